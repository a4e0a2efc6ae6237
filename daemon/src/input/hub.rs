//! Where the player's input devices meet: the evdev wheel or the gamepad (one
//! [`PlayerInput`]) and every DIY serial device ([`SerialControls`]) are merged here, on the
//! input threads, into the one latest-value slot the RT thread reads.
//!
//! One hub per session, built when the session's input starts and dropped with it (no
//! process-wide table). Each source's update takes the hub's lock, recomputes the merged
//! input and writes it into the slot; only input threads take that lock, the RT thread only
//! reads the slot (wait-free). Serial devices add their analogue values, starter and
//! selected gear while connected ([`merge_levels`]); their shift-button presses are added to
//! running counts in [`PlayerInput::shift_presses`], which the RT thread turns into one-tick
//! requests. A device only counts presses while it is connected, and each device's own press
//! memory ([`SerialMerge`]) keeps a reconnecting device from replaying old presses. The wheel's
//! or gamepad's held gear-up / gear-down button is counted the same way, on its rising edge
//! ([`ShiftLevel`]), so a tap shorter than a tick shifts once and a held button shifts once.
//!
//! The hub also stamps the session's auto-clutch decision ([`InputHub::set_auto_clutch`]) on
//! every input it publishes.
//!
//! The hub also keeps what each source has found ([`Presence`]: the configured evdev devices
//! by name and ids, the gamepad, the serial devices), for the main thread's who-drives
//! reports (`runtime::who_drives`); the RT thread never reads it.

use std::sync::{Arc, Mutex, MutexGuard};

use super::player_input::{PlayerInput, ShiftLevel, ShiftPresses};
use super::serial::{merge_levels, SerialControls, SerialMerge};
use crate::rt::handoff::{latest_value, LatestReader, LatestWriter};

/// The merge of every input source of one session.
#[derive(Debug)]
pub struct InputHub {
    state: Mutex<HubState>,
}

/// One configured evdev device as the input thread found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundDevice {
    /// The name the kernel reports, e.g. `Logitech G29 Driving Force Racing Wheel`.
    pub name: String,
    /// USB vendor and product id.
    pub vid_pid: (u16, u16),
}

/// What the session's input sources have found, for who-drives reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Presence {
    /// The evdev reader has looked for its devices at least once (before that a missing
    /// device has not been looked for yet).
    pub evdev_scanned: bool,
    /// Per `[[devices.device]]`, in config order: the device while it is connected.
    pub evdev: Vec<Option<FoundDevice>>,
    /// The gamepad in use, by name.
    pub gamepad: Option<String>,
    /// Per `[[motion.serial_inputs]]`, in config order: connected.
    pub serial: Vec<bool>,
}

#[derive(Debug)]
struct HubState {
    out: LatestWriter<PlayerInput>,
    /// The wheel's or gamepad's latest input (sequential shift levels taken out).
    devices: PlayerInput,
    /// The wheel's or gamepad's held sequential shift button.
    device_shift: ShiftLevel,
    /// rigd works the clutch for the player this session.
    auto_clutch: bool,
    /// Serial devices by feed index (`None`: that feed has stopped).
    serial: Vec<Option<SerialSource>>,
    presses: ShiftPresses,
    /// Evdev and gamepad presence (serial presence is read from `serial`).
    presence: Presence,
}

#[derive(Debug)]
struct SerialSource {
    state: SerialControls,
    merge: SerialMerge,
}

impl HubState {
    fn publish(&mut self) {
        let mut merged = self.devices;
        for source in self.serial.iter().flatten() {
            if source.state.connected {
                merge_levels(&source.state, &mut merged.controls);
            }
        }
        merged.controls = merged.controls.sanitized();
        merged.shift_presses = self.presses;
        merged.auto_clutch = self.auto_clutch;
        self.out.write(merged);
    }
}

impl InputHub {
    /// A hub with nothing connected, and the slot the RT thread reads.
    pub fn new() -> (Arc<InputHub>, LatestReader<PlayerInput>) {
        let (out, reader) = latest_value(PlayerInput::DISCONNECTED);
        let hub = InputHub {
            state: Mutex::new(HubState {
                out,
                devices: PlayerInput::DISCONNECTED,
                device_shift: ShiftLevel::default(),
                auto_clutch: false,
                serial: Vec::new(),
                presses: ShiftPresses::default(),
                presence: Presence::default(),
            }),
        };
        (Arc::new(hub), reader)
    }

    fn lock(&self) -> MutexGuard<'_, HubState> {
        // A panicking input thread leaves whole values behind: keep merging.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The wheel's or gamepad's latest input (input thread), published on every change: a
    /// newly held gear-up or gear-down counts as one press.
    pub fn publish_devices(&self, mut input: PlayerInput) {
        let mut state = self.lock();
        let mut presses = state.presses;
        input.controls.gear_request = state
            .device_shift
            .count(input.controls.gear_request, &mut presses);
        state.presses = presses;
        state.devices = input;
        state.publish();
    }

    /// Whether rigd works the clutch for the player this session (set-up, before the input
    /// threads start; [`super::auto_clutch::applies`] decides).
    pub fn set_auto_clutch(&self, on: bool) {
        let mut state = self.lock();
        state.auto_clutch = on;
        state.publish();
    }

    /// The evdev reader's devices as it found them now (after each scan that changed
    /// something, and on every disconnect); the first call marks the first scan done.
    pub fn publish_evdev_presence(&self, devices: Vec<Option<FoundDevice>>) {
        let mut state = self.lock();
        state.presence.evdev_scanned = true;
        state.presence.evdev = devices;
    }

    /// The gamepad in use now, by name (`None`: none connected).
    pub fn publish_gamepad(&self, name: Option<String>) {
        self.lock().presence.gamepad = name;
    }

    /// What every source has found now (main thread).
    pub fn presence(&self) -> Presence {
        let state = self.lock();
        let mut presence = state.presence.clone();
        presence.serial = state
            .serial
            .iter()
            .map(|source| source.as_ref().is_some_and(|s| s.state.connected))
            .collect();
        presence
    }

    /// A feed for one more serial device (set-up: allocates its place).
    pub fn serial_feed(self: &Arc<InputHub>) -> SerialFeed {
        let mut state = self.lock();
        state.serial.push(Some(SerialSource {
            state: SerialControls::default(),
            merge: SerialMerge::default(),
        }));
        SerialFeed {
            hub: Arc::clone(self),
            index: state.serial.len() - 1,
        }
    }
}

/// One serial device's way into the hub; dropping it removes the device from the merge.
#[derive(Debug)]
pub struct SerialFeed {
    hub: Arc<InputHub>,
    index: usize,
}

impl SerialFeed {
    /// The device's latest state (its reader thread).
    pub fn publish(&self, serial: &SerialControls) {
        let mut state = self.hub.lock();
        let mut presses = state.presses;
        if let Some(source) = state.serial[self.index].as_mut() {
            let (up, down) = source.merge.new_presses(serial);
            if serial.connected {
                presses.up = presses.up.wrapping_add(up);
                presses.down = presses.down.wrapping_add(down);
            }
            source.state = *serial;
        }
        state.presses = presses;
        state.publish();
    }
}

impl Drop for SerialFeed {
    fn drop(&mut self) {
        let mut state = self.hub.lock();
        state.serial[self.index] = None;
        state.publish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::player_input::ShiftEdges;
    use rig_physics::{Controls, GearRequest};

    fn wheel() -> PlayerInput {
        PlayerInput {
            connected: true,
            controls: Controls {
                throttle: 0.4,
                handbrake: 0.1,
                ..Controls::default()
            },
            ..PlayerInput::DISCONNECTED
        }
    }

    fn handbrake_box(handbrake: f64, gear_up_presses: u32) -> SerialControls {
        SerialControls {
            connected: true,
            handbrake: Some(handbrake),
            gear_up_presses,
            ..SerialControls::default()
        }
    }

    #[test]
    fn serial_devices_merge_into_the_wheel_input_and_presses_shift_once() {
        let (hub, mut slot) = InputHub::new();
        hub.publish_devices(wheel());
        let feed = hub.serial_feed();
        feed.publish(&handbrake_box(0.7, 0));
        let mut edges = ShiftEdges::default();
        let mut input = slot.read();
        edges.apply(&mut input);
        assert!(input.connected);
        assert_eq!(
            (
                input.controls.throttle,
                input.controls.handbrake,
                input.controls.gear_request
            ),
            (0.4, 0.7, GearRequest::None)
        );

        // One press (published twice): one tick with `Up`, then none.
        feed.publish(&handbrake_box(0.7, 1));
        feed.publish(&handbrake_box(0.7, 1));
        let mut first = slot.read();
        edges.apply(&mut first);
        let mut second = slot.read();
        edges.apply(&mut second);
        assert_eq!(first.controls.gear_request, GearRequest::Up);
        assert_eq!(second.controls.gear_request, GearRequest::None);

        // A wheel update keeps the serial values; a dropped device leaves the merge.
        hub.publish_devices(wheel());
        assert_eq!(slot.read().controls.handbrake, 0.7);
        drop(feed);
        assert_eq!(slot.read().controls.handbrake, 0.1);
    }

    #[test]
    fn a_disconnected_serial_device_changes_nothing_and_counts_no_presses() {
        let (hub, mut slot) = InputHub::new();
        hub.publish_devices(wheel());
        let feed = hub.serial_feed();
        feed.publish(&SerialControls {
            connected: false,
            ..handbrake_box(1.0, 3)
        });
        let input = slot.read();
        assert_eq!(input.controls, wheel().controls.sanitized());
        assert_eq!(input.shift_presses, ShiftPresses::default());
    }

    fn wheel_shifting(gear_request: GearRequest) -> PlayerInput {
        let mut input = wheel();
        input.controls.gear_request = gear_request;
        input
    }

    /// `ticks` RT ticks reading the slot: the Up and Down requests they hand the car.
    fn shifts_over(
        slot: &mut LatestReader<PlayerInput>,
        edges: &mut ShiftEdges,
        ticks: usize,
    ) -> (usize, usize) {
        let (mut up, mut down) = (0, 0);
        for _ in 0..ticks {
            let mut input = slot.read();
            edges.apply(&mut input);
            match input.controls.gear_request {
                GearRequest::Up => up += 1,
                GearRequest::Down => down += 1,
                _ => {}
            }
        }
        (up, down)
    }

    #[test]
    fn a_held_shift_button_shifts_once_and_a_tap_between_two_ticks_is_not_lost() {
        let (hub, mut slot) = InputHub::new();
        let mut edges = ShiftEdges::default();
        hub.publish_devices(wheel_shifting(GearRequest::None));
        assert_eq!(shifts_over(&mut slot, &mut edges, 5), (0, 0));

        // A tap: press and release both published between two ticks.
        hub.publish_devices(wheel_shifting(GearRequest::Up));
        hub.publish_devices(wheel_shifting(GearRequest::None));
        assert_eq!(shifts_over(&mut slot, &mut edges, 10), (1, 0));

        // Held for 2 s of 1 kHz ticks while the other controls keep being republished.
        hub.publish_devices(wheel_shifting(GearRequest::Down));
        let (mut up, mut down) = (0, 0);
        for _ in 0..2000 {
            hub.publish_devices(wheel_shifting(GearRequest::Down));
            let (u, d) = shifts_over(&mut slot, &mut edges, 1);
            (up, down) = (up + u, down + d);
        }
        assert_eq!((up, down), (0, 1), "one downshift for one held press");

        // Released, then three taps each in its own tick: three shifts.
        hub.publish_devices(wheel_shifting(GearRequest::None));
        let mut taps = 0;
        for _ in 0..3 {
            hub.publish_devices(wheel_shifting(GearRequest::Up));
            hub.publish_devices(wheel_shifting(GearRequest::None));
            taps += shifts_over(&mut slot, &mut edges, 1).0;
        }
        assert_eq!(taps, 3);
        // Up held, then Down taken over from it (Up released as Down is pressed): one each.
        hub.publish_devices(wheel_shifting(GearRequest::Up));
        assert_eq!(shifts_over(&mut slot, &mut edges, 50), (1, 0));
        hub.publish_devices(wheel_shifting(GearRequest::Down));
        assert_eq!(shifts_over(&mut slot, &mut edges, 50), (0, 1));
        hub.publish_devices(wheel_shifting(GearRequest::None));
        assert_eq!(slot.read().shift_presses, ShiftPresses { up: 5, down: 2 });
    }

    #[test]
    fn a_gate_selection_stays_a_level_and_the_auto_clutch_flag_rides_along() {
        let (hub, mut slot) = InputHub::new();
        hub.set_auto_clutch(true);
        hub.publish_devices(wheel_shifting(GearRequest::Select(3)));
        for _ in 0..3 {
            let input = slot.read();
            assert_eq!(input.controls.gear_request, GearRequest::Select(3));
            assert!(input.auto_clutch);
        }
        assert_eq!(slot.read().shift_presses, ShiftPresses::default());
    }
}
