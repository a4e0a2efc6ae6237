//! `rigd devices --watch`: every axis and button of every player input device, live, with
//! the raw value and what the config's `[devices]` mapping makes of it (steering in degrees
//! and as the car's control, pedals 0 ..= 1 after inversion, deadzones and curve), and notes
//! when devices appear or go away.
//!
//! On a terminal the view is redrawn in place (ANSI, alternate screen, at most 20 times a
//! second) and `q`, Ctrl-C, SIGTERM or a closed terminal end it with the terminal restored.
//! Otherwise (a pipe, a file, a test) it writes one line per change:
//! `+ event5 "name" 046d:c24f ...` for a device that appeared, `- event5 "name" gone`, and
//! `event5 ABS_X raw 16384 steering 225.0 deg left, control +0.833` or
//! `event5 BTN_TRIGGER pressed gear_up` per changed axis (at each report) and button;
//! SIGINT or SIGTERM end it.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, IsTerminal, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use rig_config::devices::{AxisFunction, DevicesConfig};

use super::calibrate_config::{axis_code_name, key_code_name};
use crate::devices::{AxisInfo, DeviceInfo};
use crate::input::calibration::{button_function_name, function_name};
use crate::input::device_events::{DeviceEvent, DeviceEvents};
use crate::input::mapping::AxisMap;
use crate::input::state::Bindings;
use crate::signals::{self, ControllingTerminal, Signal};

/// Shortest time between two redraws of the terminal view.
const FRAME: Duration = Duration::from_millis(50);

/// Runs the watch until q, Ctrl-C, SIGTERM or the terminal closing.
pub fn run(config_path: Option<&Path>) -> anyhow::Result<()> {
    let config = match config_path {
        Some(path) => Some(crate::runtime::config_load::load_config(Some(path))?.devices),
        None => None,
    };
    let mapping = Mapping::new(config.as_ref())?;
    let clear = mapping.clone();
    let mut devices = DeviceEvents::new(Box::new(move |info, code| clear.maps_axis(info, code)));
    let mut view = View::new(mapping, config_path);
    let screen = io::stdout().is_terminal();
    let terminal = ControllingTerminal::open();
    let mut out = io::stdout().lock();
    let raw = if screen {
        RawTerminal::enter(&mut out)
    } else {
        None
    };
    if !screen {
        writeln!(out, "{}", view.header())?;
    }
    let mut events = Vec::new();
    let mut last_draw: Option<Instant> = None;
    let mut dirty = true;
    let mut said_waiting = false;
    loop {
        devices.poll(FRAME, &mut events);
        for event in events.drain(..) {
            dirty = true;
            for line in view.on_event(&event, &devices) {
                if !screen {
                    writeln!(out, "{line}")?;
                }
            }
        }
        if !said_waiting && devices.present() == 0 {
            said_waiting = true;
            dirty = true;
            let line = "no input devices yet: plug in the wheel, pedals or shifter (waiting; \
                        `rigd devices` shows every input device and why one cannot be read)";
            view.note(line);
            if !screen {
                writeln!(out, "{line}")?;
            }
        }
        if screen && dirty && last_draw.is_none_or(|t| t.elapsed() >= FRAME) {
            draw(&mut out, &view.screen_lines(&devices))?;
            last_draw = Some(Instant::now());
            dirty = false;
        }
        out.flush()?;
        if raw.as_ref().is_some_and(RawTerminal::quit_pressed) {
            break;
        }
        match signals::wait(Duration::ZERO, &terminal) {
            Some(Signal::Stop | Signal::TerminalClosed) => break,
            Some(Signal::Reload) | None => {}
        }
    }
    drop(raw);
    Ok(())
}

/// What the config maps: which `[[devices.device]]` a physical device is, and the axis and
/// button bindings of each.
#[derive(Debug, Clone)]
struct Mapping {
    config: Option<DevicesConfig>,
    bindings: Option<Bindings>,
}

impl Mapping {
    fn new(config: Option<&DevicesConfig>) -> anyhow::Result<Mapping> {
        let bindings = config.map(Bindings::resolve).transpose()?;
        Ok(Mapping {
            config: config.cloned(),
            bindings,
        })
    }

    /// The config's number and id for a physical device.
    fn device_of(&self, info: &DeviceInfo) -> Option<(usize, &str)> {
        let config = self.config.as_ref()?;
        config
            .device
            .iter()
            .position(|m| info.matches(m))
            .map(|i| (i, config.device[i].id.as_str()))
    }

    fn maps_axis(&self, info: &DeviceInfo, code: u16) -> bool {
        let (Some((device, _)), Some(b)) = (self.device_of(info), &self.bindings) else {
            return false;
        };
        b.axes.iter().any(|a| a.device == device && a.code == code)
    }

    /// What the mapping makes of `raw` on `axis` of `info` (empty when it maps nothing).
    fn axis_text(&self, info: &DeviceInfo, axis: &AxisInfo, raw: i32) -> String {
        let (Some((device, _)), Some(b)) = (self.device_of(info), &self.bindings) else {
            return String::new();
        };
        b.axes
            .iter()
            .filter(|a| a.device == device && a.code == axis.code)
            .map(|a| {
                let map = AxisMap::new(&a.mapping, axis.min, axis.max);
                mapped_text(a.mapping.function, &map, raw, &b.steering)
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn button_text(&self, info: &DeviceInfo, code: u16) -> String {
        let (Some((device, _)), Some(b)) = (self.device_of(info), &self.bindings) else {
            return String::new();
        };
        b.buttons
            .iter()
            .filter(|x| x.device == device && x.code == code)
            .map(|x| button_function_name(x.function))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// One mapped value in words: `steering 225.0 deg left, control +0.833`, `brake 0.420`.
fn mapped_text(
    function: AxisFunction,
    map: &AxisMap,
    raw: i32,
    steering: &rig_config::devices::SteeringConfig,
) -> String {
    match function {
        AxisFunction::Steering => {
            let deg = map.rim_angle_rad(raw, steering).to_degrees();
            let side = if deg > 0.0 {
                " left"
            } else if deg < 0.0 {
                " right"
            } else {
                ""
            };
            format!(
                "steering {:.1} deg{side}, control {:+.3}",
                deg.abs(),
                // + 0.0 turns a negative zero into a zero.
                map.steering_control(raw, steering) + 0.0
            )
        }
        AxisFunction::CombinedPedals => {
            let (throttle, brake) = map.combined(raw);
            format!("throttle {throttle:.3} brake {brake:.3}")
        }
        other => format!("{} {:.3}", function_name(other), map.pedal(raw)),
    }
}

#[derive(Debug)]
struct DeviceView {
    axes: Vec<(AxisInfo, i32)>,
    reported: BTreeMap<u16, i32>,
    held: BTreeSet<u16>,
}

/// The watch's state: the devices seen, their values, the last notes.
#[derive(Debug)]
struct View {
    mapping: Mapping,
    config: String,
    devices: BTreeMap<usize, DeviceView>,
    notes: Vec<String>,
}

impl View {
    fn new(mapping: Mapping, config_path: Option<&Path>) -> View {
        View {
            mapping,
            config: config_path.map_or_else(
                || "no --config: raw values only".to_string(),
                |p| format!("mapped by {}", p.display()),
            ),
            devices: BTreeMap::new(),
            notes: Vec::new(),
        }
    }

    fn header(&self) -> String {
        format!(
            "rigd devices --watch ({}); Ctrl-C or SIGTERM ends it",
            self.config
        )
    }

    fn note(&mut self, line: &str) {
        self.notes.push(line.to_string());
        let excess = self.notes.len().saturating_sub(5);
        self.notes.drain(..excess);
    }

    fn node_name(info: &DeviceInfo) -> String {
        info.sys
            .event_node
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    fn title(&self, info: &DeviceInfo) -> String {
        let s = &info.sys;
        let configured = match self.mapping.device_of(info) {
            Some((_, id)) => format!(" = config device \"{id}\""),
            None if self.mapping.config.is_some() => " (not in the config)".to_string(),
            None => String::new(),
        };
        format!(
            "{} \"{}\" {:04x}:{:04x}{configured}",
            View::node_name(info),
            s.name,
            s.vendor,
            s.product
        )
    }

    /// Applies one event; returns the lines the line mode prints for it.
    fn on_event(&mut self, event: &DeviceEvent, devices: &DeviceEvents) -> Vec<String> {
        let mut lines = Vec::new();
        match event {
            DeviceEvent::Appeared { device, axes } => {
                let info = devices.info(*device);
                let buttons = info.caps.as_ref().map_or(0, |c| c.buttons.len());
                let ranges: Vec<String> = axes
                    .iter()
                    .map(|a| format!("{} {}..{}", a.info.name, a.info.min, a.info.max))
                    .collect();
                let line = format!(
                    "+ {} | axes {} | {buttons} buttons",
                    self.title(info),
                    if ranges.is_empty() {
                        "-".to_string()
                    } else {
                        ranges.join(", ")
                    }
                );
                self.note(&line);
                lines.push(line);
                self.devices.insert(
                    *device,
                    DeviceView {
                        axes: axes.iter().map(|a| (a.info.clone(), a.value)).collect(),
                        reported: axes.iter().map(|a| (a.info.code, a.value)).collect(),
                        held: BTreeSet::new(),
                    },
                );
                for a in axes {
                    lines.push(self.axis_line(info, &a.info, a.value));
                }
            }
            DeviceEvent::Gone { device } => {
                let line = format!("- {} gone", self.title(devices.info(*device)));
                self.note(&line);
                lines.push(line);
            }
            DeviceEvent::Unreadable { node, why } => {
                let line = format!("! {}: {why}", node.display());
                self.note(&line);
                lines.push(line);
            }
            DeviceEvent::Axis {
                device,
                code,
                value,
                ..
            } => {
                if let Some(view) = self.devices.get_mut(device) {
                    if let Some(axis) = view.axes.iter_mut().find(|(a, _)| a.code == *code) {
                        axis.1 = *value;
                    }
                }
            }
            DeviceEvent::Button {
                device,
                code,
                pressed,
            } => {
                let info = devices.info(*device);
                if let Some(view) = self.devices.get_mut(device) {
                    if *pressed {
                        view.held.insert(*code);
                    } else {
                        view.held.remove(code);
                    }
                }
                let function = self.mapping.button_text(info, *code);
                lines.push(
                    format!(
                        "{} {} {} {function}",
                        View::node_name(info),
                        key_code_name(*code),
                        if *pressed { "pressed" } else { "released" }
                    )
                    .trim_end()
                    .to_string(),
                );
            }
            DeviceEvent::Report { device } => {
                let info = devices.info(*device);
                let Some(view) = self.devices.get_mut(device) else {
                    return lines;
                };
                let mut changed = Vec::new();
                for (axis, value) in &view.axes {
                    if view.reported.insert(axis.code, *value) != Some(*value) {
                        changed.push((axis.clone(), *value));
                    }
                }
                for (axis, value) in changed {
                    lines.push(self.axis_line(info, &axis, value));
                }
            }
        }
        lines
    }

    fn axis_line(&self, info: &DeviceInfo, axis: &AxisInfo, raw: i32) -> String {
        format!(
            "{} {} raw {raw} {}",
            View::node_name(info),
            axis_code_name(axis.code),
            self.mapping.axis_text(info, axis, raw)
        )
        .trim_end()
        .to_string()
    }

    /// The terminal view, one string per line.
    fn screen_lines(&self, devices: &DeviceEvents) -> Vec<String> {
        let mut lines = vec![format!("{} (q quits)", self.header()), String::new()];
        for (number, view) in &self.devices {
            let info = devices.info(*number);
            let gone = if devices.is_present(*number) {
                ""
            } else {
                "  [gone]"
            };
            lines.push(format!("{}{gone}", self.title(info)));
            for (axis, raw) in &view.axes {
                lines.push(format!(
                    "  {:<10} {:>7}  [{}..{}]  {}",
                    axis_code_name(axis.code),
                    raw,
                    axis.min,
                    axis.max,
                    self.mapping.axis_text(info, axis, *raw)
                ));
            }
            let held: Vec<String> = view
                .held
                .iter()
                .map(|code| {
                    let function = self.mapping.button_text(info, *code);
                    if function.is_empty() {
                        key_code_name(*code)
                    } else {
                        format!("{} ({function})", key_code_name(*code))
                    }
                })
                .collect();
            lines.push(format!(
                "  buttons held: {}",
                if held.is_empty() {
                    "-".to_string()
                } else {
                    held.join(" ")
                }
            ));
            lines.push(String::new());
        }
        lines.extend(self.notes.iter().cloned());
        lines
    }
}

/// Redraws the whole view from the top left, each line cut to the terminal's width.
fn draw(out: &mut impl Write, lines: &[String]) -> io::Result<()> {
    let width = terminal_width().unwrap_or(200);
    let mut frame = String::from("\x1b[H");
    for line in lines {
        frame.extend(line.chars().take(width));
        frame.push_str("\x1b[K\r\n");
    }
    frame.push_str("\x1b[J");
    out.write_all(frame.as_bytes())
}

fn terminal_width() -> Option<usize> {
    // SAFETY: TIOCGWINSZ fills a winsize struct we own.
    unsafe {
        let mut size: libc::winsize = std::mem::zeroed();
        (libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) == 0 && size.ws_col > 0)
            .then_some(usize::from(size.ws_col))
    }
}

/// The terminal while the view is up: alternate screen, no cursor, keys read one by one
/// without echo (Ctrl-C still signals); everything is put back on drop, also on a panic.
struct RawTerminal {
    saved: Option<libc::termios>,
}

impl RawTerminal {
    fn enter(out: &mut impl Write) -> Option<RawTerminal> {
        let saved = io::stdin().is_terminal().then(|| {
            // SAFETY: tcgetattr/tcsetattr on stdin with termios structs we own.
            unsafe {
                let mut saved: libc::termios = std::mem::zeroed();
                if libc::tcgetattr(libc::STDIN_FILENO, &mut saved) != 0 {
                    return None;
                }
                let mut keys = saved;
                keys.c_lflag &= !(libc::ICANON | libc::ECHO);
                keys.c_cc[libc::VMIN] = 0;
                keys.c_cc[libc::VTIME] = 0;
                libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &keys);
                Some(saved)
            }
        });
        let _ = out.write_all(b"\x1b[?1049h\x1b[?25l\x1b[2J");
        Some(RawTerminal {
            saved: saved.flatten(),
        })
    }

    /// True when `q` was typed since the last call.
    fn quit_pressed(&self) -> bool {
        if self.saved.is_none() {
            return false;
        }
        let mut keys = [0u8; 32];
        let n = io::stdin().read(&mut keys).unwrap_or(0);
        keys[..n].iter().any(|k| matches!(k, b'q' | b'Q'))
    }
}

impl Drop for RawTerminal {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            // SAFETY: restores the termios read in `enter`.
            unsafe { libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, saved) };
        }
        let mut out = io::stdout();
        let _ = out.write_all(b"\x1b[?25h\x1b[?1049l");
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::{Capabilities, SysfsInput};
    use rig_config::devices::SteeringConfig;

    const CONFIG: &str = r#"
        [[device]]
        id = "wheel"
        vid_pid = "046d:c24f"
        [steering]
        range_deg = 900
        car_lock_deg = 540
        [[axis]]
        function = "steering"
        device = "wheel"
        code = "ABS_X"
        [[axis]]
        function = "brake"
        device = "wheel"
        code = "ABS_RZ"
        invert = true
        inner_deadzone = 0.1
        [[button]]
        function = "gear_up"
        device = "wheel"
        code = "BTN_TRIGGER"
    "#;

    fn axis(code: u16, name: &str, max: i32) -> AxisInfo {
        AxisInfo {
            code,
            name: name.into(),
            min: 0,
            max,
            resolution: 0,
            fuzz: 0,
            flat: 0,
        }
    }

    fn g29() -> DeviceInfo {
        DeviceInfo {
            sys: SysfsInput {
                event_node: "/dev/input/event5".into(),
                name: "G29".into(),
                vendor: 0x046d,
                product: 0xc24f,
                ..SysfsInput::default()
            },
            caps: Ok(Capabilities::default()),
        }
    }

    fn mapping() -> Mapping {
        let config: DevicesConfig = toml::from_str(CONFIG).unwrap();
        Mapping::new(Some(&config)).unwrap()
    }

    #[test]
    fn axes_read_as_the_mapping_makes_them() {
        let m = mapping();
        let x = axis(0x00, "ABS_X", 65535);
        assert_eq!(
            m.axis_text(&g29(), &x, 16384),
            "steering 225.0 deg left, control +0.833"
        );
        assert!(m
            .axis_text(&g29(), &x, 65535)
            .starts_with("steering 450.0 deg right, control -1.000"));
        let rz = axis(0x05, "ABS_RZ", 255);
        // Inverted with a 10 % deadzone: released (255) reads 0, 3/4 down reads 0.722.
        assert_eq!(m.axis_text(&g29(), &rz, 255), "brake 0.000");
        assert_eq!(m.axis_text(&g29(), &rz, 64), "brake 0.721");
        assert_eq!(
            m.axis_text(&g29(), &axis(0x01, "ABS_Y", 255), 3),
            "",
            "unmapped"
        );
        assert_eq!(m.button_text(&g29(), 0x120), "gear_up");
        assert!(m.maps_axis(&g29(), 0x05) && !m.maps_axis(&g29(), 0x01));
        let other = DeviceInfo {
            sys: SysfsInput {
                vendor: 0x1234,
                ..g29().sys
            },
            ..g29()
        };
        assert_eq!(m.axis_text(&other, &x, 0), "", "not the configured wheel");
    }

    #[test]
    fn without_a_config_only_raw_values_show() {
        let m = Mapping::new(None).unwrap();
        assert_eq!(m.axis_text(&g29(), &axis(0, "ABS_X", 65535), 7), "");
        assert!(!m.maps_axis(&g29(), 0));
    }

    #[test]
    fn steering_text_names_the_side() {
        let mapping_cfg: DevicesConfig = toml::from_str(CONFIG).unwrap();
        let map = AxisMap::new(&mapping_cfg.axis[0], 0, 1000);
        let steering = SteeringConfig {
            range_deg: 900.0,
            car_lock_deg: None,
        };
        assert_eq!(
            mapped_text(AxisFunction::Steering, &map, 500, &steering),
            "steering 0.0 deg, control +0.000"
        );
    }

    #[test]
    fn the_frame_is_drawn_from_the_top_and_cut_to_the_width() {
        let mut out = Vec::new();
        draw(&mut out, &["a".repeat(500), "b".into()]).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("\x1b[H"));
        assert!(text.ends_with("b\x1b[K\r\n\x1b[J"));
        assert!(text.matches('a').count() <= 500);
    }
}
