//! DIY serial input devices (Arduino handbrakes, H-pattern shifters, button boxes) speaking
//! the line protocol of `rig_protocols::serial_input` (documented in docs/serial-input.md).
//!
//! One reader thread per `[[motion.serial_inputs]]` device opens the port with the real
//! `serialport` crate (reopening it after unplugging), splits lines, maps them through the
//! config (axis letter -> function and raw range, `G` lines -> gear, button numbers ->
//! functions) and publishes a [`SerialControls`] into a latest-value slot. Garbage lines are
//! counted and dropped, never acted on.
//!
//! Merging ([`SerialMerge`], no allocation): analogue values override (max with the other
//! devices), the shifter selects the gear while it reports one, and button presses become
//! one-tick sequential shift requests. In the daemon the readers feed the session's
//! [`super::hub::InputHub`], which merges them off the RT thread with the other devices into
//! the one player-input slot the RT thread reads (the presses as counts, turned into one-tick
//! requests by [`super::player_input::ShiftEdges`]).

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use rig_config::motion::{SerialAxisFunction, SerialButtonFunction, SerialInputConfig};
use rig_physics::{Controls, GearRequest};
use rig_protocols::serial_input::{InputMessage, LineSplitter};

use super::hub::{InputHub, SerialFeed};
use crate::rt::handoff::{latest_value, LatestReader, LatestWriter};

/// What the DIY devices currently say (`Copy`, published on every change).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SerialControls {
    /// The device is open and readable.
    pub connected: bool,
    /// Handbrake 0 ..= 1, when a handbrake axis has reported.
    pub handbrake: Option<f64>,
    /// Clutch 0 ..= 1.
    pub clutch: Option<f64>,
    /// Throttle 0 ..= 1.
    pub throttle: Option<f64>,
    /// Brake 0 ..= 1.
    pub brake: Option<f64>,
    /// The shifter's gear (-1 reverse, 0 neutral, 1..), when it has reported.
    pub gear: Option<i8>,
    /// Gear-up presses so far (the merge turns each new one into one `Up` request).
    pub gear_up_presses: u32,
    /// Gear-down presses so far.
    pub gear_down_presses: u32,
    /// Starter held.
    pub starter: bool,
    /// Valid lines read.
    pub lines: u64,
    /// Garbage lines dropped.
    pub garbage_lines: u64,
}

/// Applies [`SerialControls`] to the player's controls (RT side, remembers button edges).
#[derive(Debug, Clone, Copy, Default)]
pub struct SerialMerge {
    seen_up: u32,
    seen_down: u32,
}

impl SerialMerge {
    /// Merges `serial` into `controls` (unchanged when the device is not connected).
    pub fn apply(&mut self, serial: &SerialControls, controls: &mut Controls) {
        let (up, down) = self.new_presses(serial);
        if !serial.connected {
            return;
        }
        merge_levels(serial, controls);
        if up > 0 {
            controls.gear_request = GearRequest::Up;
        } else if down > 0 {
            controls.gear_request = GearRequest::Down;
        }
    }

    /// The gear-up and gear-down presses of `serial` this merge has not seen yet (they count
    /// as seen from now on).
    pub fn new_presses(&mut self, serial: &SerialControls) -> (u32, u32) {
        let up = serial.gear_up_presses.wrapping_sub(self.seen_up);
        let down = serial.gear_down_presses.wrapping_sub(self.seen_down);
        self.seen_up = serial.gear_up_presses;
        self.seen_down = serial.gear_down_presses;
        (up, down)
    }
}

/// The level part of a connected device's merge: analogue values override (max with the
/// other devices), the starter is or-ed in, and the shifter's gear is selected while it
/// reports one.
pub fn merge_levels(serial: &SerialControls, controls: &mut Controls) {
    let merge = |into: &mut f64, value: Option<f64>| {
        if let Some(v) = value {
            *into = into.max(v);
        }
    };
    merge(&mut controls.handbrake, serial.handbrake);
    merge(&mut controls.clutch, serial.clutch);
    merge(&mut controls.throttle, serial.throttle);
    merge(&mut controls.brake, serial.brake);
    controls.starter |= serial.starter;
    if let Some(gear) = serial.gear {
        controls.gear_request = GearRequest::Select(gear);
    }
}

/// Maps decoded lines onto [`SerialControls`] per the device's config.
#[derive(Debug, Clone)]
pub struct LineMapper {
    config: SerialInputConfig,
    held: [bool; 64],
}

impl LineMapper {
    /// A mapper for `config`.
    pub fn new(config: &SerialInputConfig) -> LineMapper {
        LineMapper {
            config: config.clone(),
            held: [false; 64],
        }
    }

    /// Applies one decoded line; returns true when `state` changed.
    pub fn apply(&mut self, message: InputMessage, state: &mut SerialControls) -> bool {
        let before = *state;
        match message {
            InputMessage::Axis { name, raw } => {
                for axis in &self.config.axes {
                    if axis.letter.as_bytes() != [name] {
                        continue;
                    }
                    let span = f64::from(axis.raw_max) - f64::from(axis.raw_min);
                    let value = ((f64::from(raw) - f64::from(axis.raw_min)) / span).clamp(0.0, 1.0);
                    let slot = match axis.function {
                        SerialAxisFunction::Handbrake => &mut state.handbrake,
                        SerialAxisFunction::Clutch => &mut state.clutch,
                        SerialAxisFunction::Throttle => &mut state.throttle,
                        SerialAxisFunction::Brake => &mut state.brake,
                    };
                    *slot = Some(value);
                }
            }
            InputMessage::Gear(gear) if self.config.gear_selector => state.gear = Some(gear),
            InputMessage::Button { index, pressed } => {
                let was = std::mem::replace(&mut self.held[usize::from(index)], pressed);
                for button in self.config.buttons.iter().filter(|b| b.index == index) {
                    match button.function {
                        SerialButtonFunction::GearUp if pressed && !was => {
                            state.gear_up_presses = state.gear_up_presses.wrapping_add(1)
                        }
                        SerialButtonFunction::GearDown if pressed && !was => {
                            state.gear_down_presses = state.gear_down_presses.wrapping_add(1)
                        }
                        SerialButtonFunction::Starter => state.starter = pressed,
                        _ => {}
                    }
                }
            }
            InputMessage::Gear(_) | InputMessage::Nothing => {}
        }
        state.lines += 1;
        *state != before
    }
}

/// A running serial input reader; dropping it stops the thread.
#[derive(Debug)]
pub struct SerialInputReader {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for SerialInputReader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts the reader of `config`; the returned slot carries its latest controls.
pub fn start(
    config: &SerialInputConfig,
) -> std::io::Result<(SerialInputReader, LatestReader<SerialControls>)> {
    start_feeding(config, None)
}

/// [`start`], also feeding every state into `feed` (the daemon's player-input merge).
pub fn start_feeding(
    config: &SerialInputConfig,
    feed: Option<SerialFeed>,
) -> std::io::Result<(SerialInputReader, LatestReader<SerialControls>)> {
    let (writer, reader) = latest_value(SerialControls::default());
    let stop = Arc::new(AtomicBool::new(false));
    let thread_stop = stop.clone();
    let config = config.clone();
    let mut out = Publisher { writer, feed };
    let thread = std::thread::Builder::new()
        .name(format!("serial-in-{}", config.name))
        .spawn(move || read_loop(&config, &mut out, &thread_stop))?;
    Ok((
        SerialInputReader {
            stop,
            thread: Some(thread),
        },
        reader,
    ))
}

/// Publishes to the reader's own slot and, in the daemon, to the player-input merge.
struct Publisher {
    writer: LatestWriter<SerialControls>,
    feed: Option<SerialFeed>,
}

impl Publisher {
    fn write(&mut self, state: SerialControls) {
        self.writer.write(state);
        if let Some(feed) = &self.feed {
            feed.publish(&state);
        }
    }
}

fn read_loop(config: &SerialInputConfig, writer: &mut Publisher, stop: &AtomicBool) {
    let mut mapper = LineMapper::new(config);
    let mut state = SerialControls::default();
    let mut splitter = LineSplitter::new();
    let mut buf = [0u8; 256];
    let mut open_failures = 0u64;
    while !stop.load(Ordering::SeqCst) {
        let mut port = match serialport::new(&config.serial_port, config.baud)
            .timeout(Duration::from_millis(100))
            .open()
        {
            Ok(port) => port,
            Err(e) => {
                if open_failures % 30 == 0 {
                    tracing::warn!(device = %config.name, "cannot open serial input {}: {e} (retrying every second; check serial_port and the cable)", config.serial_port);
                }
                open_failures += 1;
                sleep_unless_stopped(stop, Duration::from_secs(1));
                continue;
            }
        };
        splitter.reset();
        state.connected = true;
        writer.write(state);
        while !stop.load(Ordering::SeqCst) {
            match port.read(&mut buf) {
                Ok(0) => continue,
                Ok(n) => {
                    let mut changed = false;
                    splitter.feed(&buf[..n], |line| match line {
                        Ok(message) => changed |= mapper.apply(message, &mut state),
                        Err(why) => {
                            state.garbage_lines += 1;
                            changed = true;
                            if state.garbage_lines == 1 || state.garbage_lines % 100 == 0 {
                                tracing::warn!(device = %config.name, garbage = state.garbage_lines, "dropped a garbage serial input line ({why}); see docs/serial-input.md for the protocol");
                            }
                        }
                    });
                    if changed {
                        writer.write(state);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => continue,
                Err(e) => {
                    tracing::warn!(device = %config.name, "serial input read failed: {e}; reconnecting");
                    break;
                }
            }
        }
        state.connected = false;
        writer.write(state);
        sleep_unless_stopped(stop, Duration::from_millis(200));
    }
}

/// Every configured serial input device's reader, each feeding `hub`.
pub fn start_all(
    config: &rig_config::Config,
    hub: &Arc<InputHub>,
) -> std::io::Result<Vec<SerialInputReader>> {
    config
        .motion
        .serial_inputs
        .iter()
        .map(|device| start_feeding(device, Some(hub.serial_feed())).map(|(reader, _)| reader))
        .collect()
}

fn sleep_unless_stopped(stop: &AtomicBool, d: Duration) {
    let end = std::time::Instant::now() + d;
    while std::time::Instant::now() < end && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rig_config::motion::{SerialAxisConfig, SerialButtonConfig};

    fn config() -> SerialInputConfig {
        SerialInputConfig {
            name: "box".into(),
            serial_port: "/dev/null".into(),
            baud: 115_200,
            gear_selector: true,
            axes: vec![SerialAxisConfig {
                letter: "H".into(),
                function: SerialAxisFunction::Handbrake,
                raw_min: 100,
                raw_max: 900,
            }],
            buttons: vec![SerialButtonConfig {
                index: 4,
                function: SerialButtonFunction::GearUp,
            }],
        }
    }

    #[test]
    fn lines_map_to_controls_and_buttons_become_single_shift_requests() {
        let mut mapper = LineMapper::new(&config());
        let mut state = SerialControls {
            connected: true,
            ..SerialControls::default()
        };
        mapper.apply(
            InputMessage::Axis {
                name: b'H',
                raw: 500,
            },
            &mut state,
        );
        assert_eq!(state.handbrake, Some(0.5));
        mapper.apply(
            InputMessage::Axis {
                name: b'H',
                raw: 5000,
            },
            &mut state,
        );
        assert_eq!(state.handbrake, Some(1.0));
        mapper.apply(InputMessage::Gear(3), &mut state);
        let mut merge = SerialMerge::default();
        let mut c = Controls::default();
        merge.apply(&state, &mut c);
        assert_eq!((c.handbrake, c.gear_request), (1.0, GearRequest::Select(3)));

        // A press (held for several lines) is one Up request on one tick.
        for _ in 0..3 {
            mapper.apply(
                InputMessage::Button {
                    index: 4,
                    pressed: true,
                },
                &mut state,
            );
        }
        let mut c = Controls::default();
        merge.apply(&state, &mut c);
        assert_eq!(c.gear_request, GearRequest::Up);
        let mut c = Controls::default();
        merge.apply(&state, &mut c);
        assert_eq!(c.gear_request, GearRequest::Select(3));

        // A disconnected device changes nothing.
        state.connected = false;
        let mut c = Controls::default();
        merge.apply(&state, &mut c);
        assert_eq!(c, Controls::default());
    }
}
