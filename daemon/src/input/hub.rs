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
//! memory ([`SerialMerge`]) keeps a reconnecting device from replaying old presses.

use std::sync::{Arc, Mutex, MutexGuard};

use super::player_input::{PlayerInput, ShiftPresses};
use super::serial::{merge_levels, SerialControls, SerialMerge};
use crate::rt::handoff::{latest_value, LatestReader, LatestWriter};

/// The merge of every input source of one session.
#[derive(Debug)]
pub struct InputHub {
    state: Mutex<HubState>,
}

#[derive(Debug)]
struct HubState {
    out: LatestWriter<PlayerInput>,
    /// The wheel's or gamepad's latest input.
    devices: PlayerInput,
    /// Serial devices by feed index (`None`: that feed has stopped).
    serial: Vec<Option<SerialSource>>,
    presses: ShiftPresses,
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
                serial: Vec::new(),
                presses: ShiftPresses::default(),
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

    /// The wheel's or gamepad's latest input (input thread).
    pub fn publish_devices(&self, input: PlayerInput) {
        let mut state = self.lock();
        state.devices = input;
        state.publish();
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
}
