//! What the input layer hands to the RT thread: the player's latest controls and the
//! safety-relevant requests, as one `Copy` value in one wait-free latest-value slot
//! ([`crate::rt::handoff::latest_value`]), written by the [`super::hub::InputHub`] that merges
//! every input device.
//!
//! Invariant: when `connected` is false the RT thread ignores `controls` and the robot drives
//! the player car, so a wheel unplugged mid-lap never leaves the car with stale pedal values.

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
    /// Sequential-shift presses counted so far (serial button boxes); the RT thread turns each
    /// new one into a one-tick shift request with [`ShiftEdges`].
    pub shift_presses: ShiftPresses,
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
