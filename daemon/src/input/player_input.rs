//! What the input layer hands to the RT thread: the player's latest controls and the
//! safety-relevant requests, as one `Copy` value in one wait-free latest-value slot
//! ([`crate::rt::handoff::latest_value`]), written by the [`super::hub::InputHub`] that merges
//! every input device.
//!
//! Invariant: when `connected` is false the RT thread ignores `controls` and the robot drives
//! the player car, so a wheel unplugged mid-lap never leaves the car with stale pedal values.
//!
//! Sequential shifts are edge-triggered: one gear per press, however short the press and however
//! long it is held. A device's held shift button is a level ([`GearRequest::Up`] / `Down` in its
//! controls); [`ShiftLevel`] counts each rising edge into [`ShiftPresses`] where the devices'
//! input is merged (every change of a device is published, so a tap between two ticks is still
//! counted), and the RT thread's [`ShiftEdges`] turns each new count into a one-tick request.

use rig_physics::{Controls, GearRequest};

/// The player's input as last published by the input layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayerInput {
    /// True while a configured input device is connected and delivering controls.
    pub connected: bool,
    /// The player's controls (only used while `connected`).
    pub controls: Controls,
    /// The player asked to reset the car to the track (level-triggered: the RT thread resets
    /// on the rising edge).
    pub reset_requested: bool,
    /// The player's pause button is held (level-triggered: the RT thread toggles the pause on
    /// the rising edge).
    pub pause_requested: bool,
    /// The emergency stop is pressed: every output goes to its safe state while true.
    pub estop: bool,
    /// Sequential-shift presses counted so far (every device's gear-up and gear-down buttons);
    /// the RT thread turns each new one into a one-tick shift request with [`ShiftEdges`].
    pub shift_presses: ShiftPresses,
    /// rigd works the clutch for the player (`[devices] auto_clutch`: the player's devices
    /// have no clutch axis, or the config says always); see [`super::auto_clutch`].
    pub auto_clutch: bool,
}

impl PlayerInput {
    /// No device: the robot drives, no requests.
    pub const DISCONNECTED: PlayerInput = PlayerInput {
        connected: false,
        controls: Controls::SAFE_STOP,
        reset_requested: false,
        pause_requested: false,
        estop: false,
        shift_presses: ShiftPresses { up: 0, down: 0 },
        auto_clutch: false,
    };
}

impl Default for PlayerInput {
    fn default() -> Self {
        PlayerInput::DISCONNECTED
    }
}

/// Running counts of sequential-shift presses (they wrap; only changes matter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShiftPresses {
    /// Gear-up presses.
    pub up: u32,
    /// Gear-down presses.
    pub down: u32,
}

/// One device's sequential-shift level as last published, to count its presses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShiftLevel {
    held: Option<GearRequest>,
}

impl ShiftLevel {
    /// Counts a newly held `Up` or `Down` of the device's `request` into `presses` (a
    /// held one counts once; releasing, or switching to the other button, re-arms) and returns
    /// the request without the sequential level: only gate selections (`Select`) stay levels.
    pub fn count(&mut self, request: GearRequest, presses: &mut ShiftPresses) -> GearRequest {
        let sequential = matches!(request, GearRequest::Up | GearRequest::Down).then_some(request);
        if sequential != self.held {
            match sequential {
                Some(GearRequest::Up) => presses.up = presses.up.wrapping_add(1),
                Some(GearRequest::Down) => presses.down = presses.down.wrapping_add(1),
                _ => {}
            }
            self.held = sequential;
        }
        if sequential.is_some() {
            GearRequest::None
        } else {
            request
        }
    }
}

/// The RT thread's memory of the shift presses it has acted on (no allocation, no lock).
#[derive(Debug, Clone, Copy, Default)]
pub struct ShiftEdges {
    seen: ShiftPresses,
}

impl ShiftEdges {
    /// Turns presses newer than the last call into this tick's gear request (`Up` before
    /// `Down`); without new presses `input` keeps the request its devices hold.
    pub fn apply(&mut self, input: &mut PlayerInput) {
        let now = input.shift_presses;
        let (up, down) = (
            now.up.wrapping_sub(self.seen.up),
            now.down.wrapping_sub(self.seen.down),
        );
        self.seen = now;
        if up > 0 {
            input.controls.gear_request = GearRequest::Up;
        } else if down > 0 {
            input.controls.gear_request = GearRequest::Down;
        }
    }
}
