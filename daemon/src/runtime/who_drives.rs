//! Who drives the player car, and why, for the log, systemd's `STATUS=` and the dashboard:
//! the wheel (by name and vid:pid) or the gamepad that delivers controls, else the robot
//! (`[loop] when_nobody_drives = "robot"`) or nobody (the loop idles), with the reason and the
//! fix, e.g. `robot: wheel 'wheel' (046d:c24f) not found; plug it in`.
//!
//! Worked out on the main thread from the configuration, what the session's input threads
//! found ([`Presence`], from the input hub) and the loop's [`LoopMode`]; never on the RT
//! thread. [`DriverLog`] turns changes into log lines: one warning per configured device that
//! is missing when the session starts (once the input thread has looked), a note when a
//! device appears or goes, and one line whenever the driver changes.

use rig_config::devices::{AxisFunction, DeviceMatch, DeviceRole};
use rig_config::realtime::WhenNobodyDrives;
use rig_config::Config;

use super::rt_loop::LoopMode;
use crate::input::hub::{FoundDevice, Presence};

/// Who drives the player car.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Driver {
    /// A device delivers the controls: its description, e.g.
    /// `wheel 'wheel' (Logitech G29 Driving Force Racing Wheel, 046d:c24f)`.
    Device(String),
    /// The robot drives because no device does, for the reason given.
    Robot(String),
    /// Nobody drives (the car parks and the loop idles), for the reason given.
    Nobody(String),
}

impl Driver {
    /// One line: `wheel '...' (...)`, `robot: <why>`, `nobody: <why>`, plus the serial
    /// devices connected beside it.
    pub fn text(&self) -> String {
        match self {
            Driver::Device(device) => device.clone(),
            Driver::Robot(why) => format!("robot: {why}"),
            Driver::Nobody(why) => format!("nobody: {why}"),
        }
    }
}

/// The configured input devices the reports name: the evdev devices, whether a gamepad is
/// read, the serial devices.
#[derive(Debug, Clone)]
pub struct Inputs {
    evdev: Vec<DeviceMatch>,
    /// The evdev reader runs (`[devices]` maps an axis or a button).
    evdev_read: bool,
    /// Index into `evdev` of the steering device, when an axis steers.
    steering: Option<usize>,
    gamepad: bool,
    serial: Vec<String>,
    robot: bool,
}

impl Inputs {
    /// What `config` reads (as `input::start` starts it).
    pub fn of(config: &Config) -> Inputs {
        let devices = &config.devices;
        let evdev_read = !devices.axis.is_empty() || !devices.button.is_empty();
        let steering = devices
            .axis
            .iter()
            .find(|axis| axis.function == AxisFunction::Steering)
            .and_then(|axis| devices.device.iter().position(|d| d.id == axis.device));
        Inputs {
            evdev: devices.device.clone(),
            evdev_read,
            steering,
            gamepad: !evdev_read && devices.gamepad.enabled && cfg!(feature = "gamepad"),
            serial: config
                .motion
                .serial_inputs
                .iter()
                .map(|s| s.name.clone())
                .collect(),
            robot: config.realtime.when_nobody_drives == WhenNobodyDrives::Robot,
        }
    }

    /// Who drives, given what the input threads found.
    pub fn driver(&self, presence: &Presence) -> Driver {
        let serial = self.serial_suffix(presence);
        if let Some(device) = self.driving_device(presence) {
            return Driver::Device(format!("{device}{serial}"));
        }
        if let (true, Some(name)) = (self.gamepad, &presence.gamepad) {
            return Driver::Device(format!("gamepad '{name}'{serial}"));
        }
        let why = format!("{}{serial}", self.why_nobody(presence));
        if self.robot {
            Driver::Robot(why)
        } else {
            Driver::Nobody(why)
        }
    }

    /// The evdev device that steers (or any connected one when no axis steers), described.
    fn driving_device(&self, presence: &Presence) -> Option<String> {
        if !self.evdev_read {
            return None;
        }
        let found = |i: usize| presence.evdev.get(i).cloned().flatten();
        let index = match self.steering {
            Some(i) => found(i).map(|_| i),
            None => (0..self.evdev.len()).find(|&i| found(i).is_some()),
        }?;
        let device = found(index)?;
        Some(connected_text(&self.evdev[index], &device))
    }

    fn why_nobody(&self, presence: &Presence) -> String {
        if self.evdev_read {
            let wanted = self.steering.or((!self.evdev.is_empty()).then_some(0));
            return match wanted.and_then(|i| self.evdev.get(i)) {
                Some(device) if !presence.evdev_scanned => {
                    format!("looking for {}", missing_text(device))
                }
                Some(device) => format!("{} not found; plug it in", missing_text(device)),
                None => "no [[devices.device]] to read (fix: add the wheel to [devices]; \
                         examples/g29.toml shows how)"
                    .to_string(),
            };
        }
        if self.gamepad {
            return "no wheel configured and no gamepad found (fix: plug in a gamepad, or map \
                    your wheel with `rigd calibrate`, see docs/wheels.md)"
                .to_string();
        }
        "no wheel or gamepad configured (fix: map your wheel with `rigd calibrate`, see \
         docs/wheels.md and examples/g29.toml)"
            .to_string()
    }

    fn serial_suffix(&self, presence: &Presence) -> String {
        let connected: Vec<String> = self
            .serial
            .iter()
            .zip(&presence.serial)
            .filter(|(_, connected)| **connected)
            .map(|(name, _)| format!("'{name}'"))
            .collect();
        if connected.is_empty() {
            String::new()
        } else {
            format!(", with serial {}", connected.join(", "))
        }
    }

    /// The log lines a change from `before` to `now` asks for: each evdev device that
    /// appeared (information) or went (a warning), the gamepad, serial devices appearing.
    fn device_changes(&self, before: &Presence, now: &Presence) -> Vec<LogLine> {
        let mut lines = Vec::new();
        for (i, device) in self.evdev.iter().enumerate() {
            let was = before.evdev.get(i).cloned().flatten();
            let is = now.evdev.get(i).cloned().flatten();
            match (was, is) {
                (None, Some(found)) => lines.push(LogLine::info(format!(
                    "input device connected: {}",
                    connected_text(device, &found)
                ))),
                (Some(found), None) => lines.push(LogLine::warn(format!(
                    "input device disconnected: {} (plug it in again; rigd looks for it every \
                     250 ms)",
                    connected_text(device, &found)
                ))),
                _ => {}
            }
        }
        match (&before.gamepad, &now.gamepad) {
            (None, Some(name)) => lines.push(LogLine::info(format!("gamepad connected: '{name}'"))),
            (Some(name), None) => {
                lines.push(LogLine::info(format!("gamepad disconnected: '{name}'")))
            }
            _ => {}
        }
        for (i, name) in self.serial.iter().enumerate() {
            let was = before.serial.get(i).copied().unwrap_or(false);
            if !was && now.serial.get(i).copied().unwrap_or(false) {
                lines.push(LogLine::info(format!("serial input '{name}' connected")));
            }
        }
        lines
    }

    /// One warning per configured evdev device missing when the session starts.
    fn missing_at_start(&self, presence: &Presence) -> Vec<LogLine> {
        if !self.evdev_read {
            return Vec::new();
        }
        self.evdev
            .iter()
            .enumerate()
            .filter(|(i, _)| presence.evdev.get(*i).cloned().flatten().is_none())
            .map(|(_, device)| {
                LogLine::warn(format!(
                    "input device {} is configured but not connected; plug it in (rigd looks \
                     for it every 250 ms; `rigd devices` lists what is connected, with the ids \
                     to match on)",
                    missing_text(device)
                ))
            })
            .collect()
    }

    /// True when the reports may start: the evdev reader (when there is one) has looked.
    fn ready(&self, presence: &Presence) -> bool {
        !self.evdev_read || presence.evdev_scanned
    }
}

/// `wheel 'wheel'`: the device's role in plain words and its config id.
fn role_and_id(device: &DeviceMatch) -> String {
    let role = match device.role {
        DeviceRole::WheelBase => "wheel",
        DeviceRole::Pedals => "pedals",
        DeviceRole::Shifter => "shifter",
        DeviceRole::Handbrake => "handbrake",
        DeviceRole::ButtonBox => "button box",
    };
    format!("{role} '{}'", device.id)
}

/// A configured device that is not there, with what it is matched on:
/// `wheel 'wheel' (046d:c24f)`.
fn missing_text(device: &DeviceMatch) -> String {
    let how = if let Some(vid_pid) = &device.vid_pid {
        match &device.serial {
            Some(serial) => format!("{vid_pid}, serial {serial}"),
            None => vid_pid.clone(),
        }
    } else if let Some(by_id) = &device.by_id {
        format!("by-id {by_id}")
    } else if let Some(by_path) = &device.by_path {
        format!("by-path {by_path}")
    } else if let Some(name) = &device.name_contains {
        format!("name containing '{name}'")
    } else {
        "no match criteria".to_string()
    };
    format!("{} ({how})", role_and_id(device))
}

/// A connected device: `wheel 'wheel' (Logitech G29 Driving Force Racing Wheel, 046d:c24f)`.
fn connected_text(device: &DeviceMatch, found: &FoundDevice) -> String {
    format!(
        "{} ({}, {:04x}:{:04x})",
        role_and_id(device),
        found.name,
        found.vid_pid.0,
        found.vid_pid.1
    )
}

/// A line for the log at its level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Log as a warning (else information).
    pub warning: bool,
    /// The text.
    pub text: String,
}

impl LogLine {
    fn info(text: String) -> LogLine {
        LogLine {
            warning: false,
            text,
        }
    }

    fn warn(text: String) -> LogLine {
        LogLine {
            warning: true,
            text,
        }
    }
}

/// What the log has said about the session's inputs and driver so far.
#[derive(Debug)]
pub struct DriverLog {
    inputs: Inputs,
    /// The presence and driver as last reported (`None` before the first report).
    reported: Option<(Presence, Driver)>,
    mode: LoopMode,
}

impl DriverLog {
    /// A log for a session started with `config` (a reload starts a new one).
    pub fn new(config: &Config) -> DriverLog {
        DriverLog {
            inputs: Inputs::of(config),
            reported: None,
            mode: LoopMode::Driving,
        }
    }

    /// Who drives now.
    pub fn driver(&self, presence: &Presence) -> Driver {
        self.inputs.driver(presence)
    }

    /// The lines to log for `presence` and the loop's `mode` now: at the first call once the
    /// input thread has looked, every missing device (warnings) and who drives; later, each
    /// device change, the driver when it changed, and the loop going idle or back to its
    /// full rate.
    pub fn lines(&mut self, presence: &Presence, mode: LoopMode) -> Vec<LogLine> {
        if !self.inputs.ready(presence) {
            return Vec::new();
        }
        let driver = self.inputs.driver(presence);
        let mut lines = Vec::new();
        match &self.reported {
            None => {
                lines.extend(self.inputs.missing_at_start(presence));
                lines.push(LogLine::info(format!("who drives: {}", driver.text())));
            }
            Some((before, was)) => {
                lines.extend(self.inputs.device_changes(before, presence));
                if *was != driver {
                    lines.push(LogLine::info(format!(
                        "who drives now: {} (before: {})",
                        driver.text(),
                        was.text()
                    )));
                }
            }
        }
        if mode != self.mode {
            match mode {
                LoopMode::Idle => lines.push(LogLine::info(
                    "nobody drives: the car is parked and the loop idles (about 20 wake-ups a \
                     second, no physics, force feedback at zero, motion parked) until a wheel \
                     or gamepad appears (`rigd run --robot`, or [loop] when_nobody_drives = \
                     \"robot\", lets the robot drive instead)"
                        .to_string(),
                )),
                LoopMode::Driving if self.mode == LoopMode::Idle => lines.push(LogLine::info(
                    "the loop runs at its full rate again".to_string(),
                )),
                LoopMode::Paused => lines.push(LogLine::info(
                    "simulation paused (pause button): the car holds still, force feedback \
                     centres the rim, motion settles; press it again to resume"
                        .to_string(),
                )),
                LoopMode::Driving if self.mode == LoopMode::Paused => {
                    lines.push(LogLine::info("simulation resumed".to_string()))
                }
                _ => {}
            }
            self.mode = mode;
        }
        self.reported = Some((presence.clone(), driver));
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G29: &str = r#"
[[devices.device]]
id = "wheel"
role = "wheel_base"
vid_pid = "046d:c24f"

[[devices.device]]
id = "pedals"
role = "pedals"
name_contains = "Heusinkveld"

[[devices.axis]]
function = "steering"
device = "wheel"
code = "ABS_X"

[[devices.axis]]
function = "throttle"
device = "pedals"
code = "ABS_Y"
"#;

    fn config(extra: &str) -> Config {
        rig_config::parse(&format!("{extra}\n{G29}"), "test.toml").expect("valid")
    }

    fn g29() -> FoundDevice {
        FoundDevice {
            name: "Logitech G29 Driving Force Racing Wheel".to_string(),
            vid_pid: (0x046d, 0xc24f),
        }
    }

    fn presence(wheel: bool) -> Presence {
        Presence {
            evdev_scanned: true,
            evdev: vec![wheel.then(g29), None],
            ..Presence::default()
        }
    }

    #[test]
    fn a_missing_wheel_names_itself_and_the_fix_for_robot_and_idle() {
        let robot = Inputs::of(&config("[loop]\nwhen_nobody_drives = \"robot\""));
        assert_eq!(
            robot.driver(&presence(false)).text(),
            "robot: wheel 'wheel' (046d:c24f) not found; plug it in"
        );
        let idle = Inputs::of(&config(""));
        assert_eq!(
            idle.driver(&presence(false)).text(),
            "nobody: wheel 'wheel' (046d:c24f) not found; plug it in"
        );
        assert_eq!(
            idle.driver(&presence(true)).text(),
            "wheel 'wheel' (Logitech G29 Driving Force Racing Wheel, 046d:c24f)"
        );
        let nothing = Inputs::of(&Config::default());
        let want = if cfg!(feature = "gamepad") {
            "nobody: no wheel configured and no gamepad found (fix: plug in a gamepad"
        } else {
            "nobody: no wheel or gamepad configured (fix: "
        };
        assert!(
            nothing
                .driver(&Presence::default())
                .text()
                .starts_with(want),
            "{:?}",
            nothing.driver(&Presence::default())
        );
    }

    #[test]
    fn missing_devices_are_warned_once_and_changes_are_logged_once() {
        let mut log = DriverLog::new(&config(""));
        // The input thread has not looked yet: nothing to say.
        assert!(log
            .lines(&Presence::default(), LoopMode::Driving)
            .is_empty());
        let first = log.lines(&presence(false), LoopMode::Driving);
        let warnings: Vec<&str> = first
            .iter()
            .filter(|l| l.warning)
            .map(|l| l.text.as_str())
            .collect();
        assert_eq!(warnings.len(), 2, "{first:?}");
        assert!(warnings[0].starts_with("input device wheel 'wheel' (046d:c24f) is configured"));
        assert!(warnings[1].starts_with(
            "input device pedals 'pedals' (name containing 'Heusinkveld') is configured"
        ));
        assert_eq!(
            first.last().unwrap().text,
            "who drives: nobody: wheel 'wheel' (046d:c24f) not found; plug it in"
        );
        // Nothing changed: nothing more, however often asked.
        assert!(log.lines(&presence(false), LoopMode::Driving).is_empty());
        let idle = log.lines(&presence(false), LoopMode::Idle);
        assert_eq!(idle.len(), 1);
        assert!(idle[0].text.starts_with("nobody drives: the car is parked"));

        // The wheel is plugged in: a note, the new driver, the full rate again.
        let plugged = log.lines(&presence(true), LoopMode::Driving);
        let texts: Vec<&str> = plugged.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            vec![
                "input device connected: wheel 'wheel' (Logitech G29 Driving Force Racing \
                 Wheel, 046d:c24f)",
                "who drives now: wheel 'wheel' (Logitech G29 Driving Force Racing Wheel, \
                 046d:c24f) (before: nobody: wheel 'wheel' (046d:c24f) not found; plug it in)",
                "the loop runs at its full rate again",
            ]
        );
        assert!(plugged.iter().all(|l| !l.warning));
        let unplugged = log.lines(&presence(false), LoopMode::Driving);
        assert_eq!(unplugged.len(), 2, "{unplugged:?}");
        assert!(unplugged[0].warning && unplugged[0].text.starts_with("input device disconnected"));
        assert!(unplugged[1].text.starts_with("who drives now: nobody: "));
    }

    #[test]
    fn serial_devices_are_named_beside_the_driver() {
        let inputs = Inputs {
            serial: vec!["handbrake".to_string(), "shifter".to_string()],
            ..Inputs::of(&config(""))
        };
        let mut found = presence(true);
        found.serial = vec![true, false];
        assert_eq!(
            inputs.driver(&found).text(),
            "wheel 'wheel' (Logitech G29 Driving Force Racing Wheel, 046d:c24f), with serial \
             'handbrake'"
        );
    }
}
