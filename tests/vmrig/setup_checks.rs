//! vmrig guest checks of the set-up commands against real kernel input devices: a uinput
//! "wheel and pedals" (1209:0002: ABS_X 0..65535 steering, ABS_Y throttle and ABS_Z brake
//! 0..1023, the brake resting at 1023, two paddle buttons) whose axes the checks move, and
//! the real `rigd` command line run as a child (`vmrig_guest rigd ...`, the path of
//! `daemon/src/main.rs`):
//! - `setup-watch`: `rigd devices --watch` with stdout a pipe notes the device appearing,
//!   prints each moved axis raw and mapped by the config (steering in degrees, the inverted
//!   brake 0..1), the paddle with its function, the device going away, and ends on SIGTERM
//!   with exit 0;
//! - `setup-calibrate`: `rigd calibrate --yes` fed its answers on stdin while the check
//!   moves the axes (resting noise of +-40 counts on the wheel and 2 on the brake, lock to
//!   lock, each pedal, the paddles) writes the expected ranges, inversion, deadzones, rotation
//!   and buttons into a config file whose comments and other keys survive, and
//!   `rigd check-config` accepts the result.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use evdev::uinput::VirtualDevice;
use evdev::{
    AbsInfo, AbsoluteAxisCode, AttributeSet, EventType, InputEvent, InputId, KeyCode,
    UinputAbsSetup,
};
use rig_config::devices::{AxisFunction, ButtonFunction};

use super::Results;

const VID_PID: &str = "1209:0002";
const NAME: &str = "rigd vmrig wheel and pedals";

/// The uinput wheel and pedals, at rest: wheel centred, throttle up, brake up (1023).
fn wheel_and_pedals() -> std::io::Result<VirtualDevice> {
    let mut keys = AttributeSet::<KeyCode>::new();
    keys.insert(KeyCode::BTN_TRIGGER);
    keys.insert(KeyCode::BTN_THUMB);
    let axis = |code, value, max| UinputAbsSetup::new(code, AbsInfo::new(value, 0, max, 0, 0, 0));
    let device = VirtualDevice::builder()?
        .name(NAME)
        .input_id(InputId::new(evdev::BusType::BUS_USB, 0x1209, 0x0002, 1))
        .with_keys(&keys)?
        .with_absolute_axis(&axis(AbsoluteAxisCode::ABS_X, 32768, 65535))?
        .with_absolute_axis(&axis(AbsoluteAxisCode::ABS_Y, 0, 1023))?
        .with_absolute_axis(&axis(AbsoluteAxisCode::ABS_Z, 1023, 1023))?
        .build()?;
    // Let the kernel create the event node before anyone looks for it.
    std::thread::sleep(Duration::from_millis(300));
    Ok(device)
}

fn set(device: &mut VirtualDevice, code: AbsoluteAxisCode, value: i32) {
    let _ = device.emit(&[InputEvent::new(EventType::ABSOLUTE.0, code.0, value)]);
    std::thread::sleep(Duration::from_millis(2));
}

fn click(device: &mut VirtualDevice, key: KeyCode) {
    for value in [1, 0] {
        let _ = device.emit(&[InputEvent::new(EventType::KEY.0, key.0, value)]);
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The child's stdout lines, read on a thread.
fn lines_of(child: &mut Child) -> Receiver<String> {
    let (send, receive) = mpsc::channel();
    let out = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                return;
            }
        }
    });
    receive
}

/// Waits up to `timeout` for a line containing every part of `parts`; every line read goes
/// to `log`.
fn wait_line(
    lines: &Receiver<String>,
    log: &mut Vec<String>,
    parts: &[&str],
    timeout: Duration,
) -> bool {
    let end = Instant::now() + timeout;
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        match lines.recv_timeout(left) {
            Ok(line) => {
                let found = parts.iter().all(|p| line.contains(p));
                log.push(line);
                if found {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    false
}

fn rigd(args: &[&str]) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("exe"));
    command.arg("rigd").args(args);
    command
}

fn tail(log: &[String]) -> String {
    log[log.len().saturating_sub(12)..].join(" | ")
}

fn exit_within(child: &mut Child, timeout: Duration) -> Option<i32> {
    let end = Instant::now() + timeout;
    while Instant::now() < end {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

const WATCH_CONFIG: &str = r#"
[[devices.device]]
id = "rig"
vid_pid = "1209:0002"
[devices.steering]
range_deg = 900
[[devices.axis]]
function = "steering"
device = "rig"
code = "ABS_X"
[[devices.axis]]
function = "brake"
device = "rig"
code = "ABS_Z"
invert = true
[[devices.button]]
function = "gear_up"
device = "rig"
code = "BTN_THUMB"
"#;

/// `rigd devices --watch` in line mode: appear, move, press, go away, SIGTERM.
pub fn test_watch(r: &mut Results) {
    let config = "/tmp/setup-watch.toml";
    if std::fs::write(config, WATCH_CONFIG).is_err() {
        return r.check("setup-watch", false, "cannot write the config");
    }
    let Ok(mut child) = rigd(&["--config", config, "devices", "--watch"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
    else {
        return r.check("setup-watch", false, "cannot start rigd devices --watch");
    };
    let lines = lines_of(&mut child);
    let mut log = Vec::new();
    let second = Duration::from_secs(1);
    // Started before the device exists: it must notice it appearing. (Whether it said it was
    // waiting depends on what else the guest has plugged in, so that is only reported.)
    let waiting = wait_line(&lines, &mut log, &["no input devices yet"], 5 * second);
    let mut device = match wheel_and_pedals() {
        Ok(d) => d,
        Err(e) => {
            let _ = child.kill();
            return r.check("setup-watch", false, format!("uinput: {e}"));
        }
    };
    let appeared = wait_line(
        &lines,
        &mut log,
        &["+ event", NAME, "= config device \"rig\""],
        5 * second,
    );
    // A quarter of the range left of centre: 225 deg left of a 900 deg wheel.
    set(&mut device, AbsoluteAxisCode::ABS_X, 16384);
    let steered = wait_line(
        &lines,
        &mut log,
        &["ABS_X raw 16384 steering 225.0 deg left, control +0.500"],
        3 * second,
    );
    set(&mut device, AbsoluteAxisCode::ABS_Z, 0);
    let braked = wait_line(&lines, &mut log, &["ABS_Z raw 0 brake 1.000"], 3 * second);
    click(&mut device, KeyCode::BTN_THUMB);
    let paddle = wait_line(&lines, &mut log, &["BTN_THUMB pressed gear_up"], 3 * second);
    drop(device);
    let gone = wait_line(&lines, &mut log, &["- event", NAME, "gone"], 5 * second);
    // SAFETY: kill with our child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let code = exit_within(&mut child, 3 * second);
    r.check(
        "setup-watch",
        appeared && steered && braked && paddle && gone && code == Some(0),
        format!(
            "waiting={waiting} appeared={appeared} steered={steered} braked={braked} \
             paddle={paddle} gone={gone} exit={code:?}; last lines: {}",
            tail(&log)
        ),
    );
}

const CALIBRATE_CONFIG: &str = "# vmrig calibrate check: this comment must survive
[sim]
robots = 0   # keep me

[devices]
disconnect_brake = 0.3
";

struct Dialogue {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    log: Vec<String>,
}

impl Dialogue {
    /// Waits for a line with `prompt`, then does `act` and answers `answer`.
    fn step(&mut self, prompt: &str, act: impl FnOnce(), answer: &str) -> bool {
        if !wait_line(
            &self.lines,
            &mut self.log,
            &[prompt],
            Duration::from_secs(5),
        ) {
            return false;
        }
        act();
        writeln!(self.stdin, "{answer}").is_ok() && self.stdin.flush().is_ok()
    }
}

/// `rigd calibrate --yes` driven through every step while the device moves.
pub fn test_calibrate(r: &mut Results) {
    let path = "/tmp/setup-calibrate.toml";
    if std::fs::write(path, CALIBRATE_CONFIG).is_err() {
        return r.check("setup-calibrate", false, "cannot write the config");
    }
    let device = match wheel_and_pedals() {
        Ok(d) => std::cell::RefCell::new(d),
        Err(e) => return r.check("setup-calibrate", false, format!("uinput: {e}")),
    };
    let Ok(mut child) = rigd(&["--config", path, "calibrate", "--yes"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        return r.check("setup-calibrate", false, "cannot start rigd calibrate");
    };
    let lines = lines_of(&mut child);
    let stdin = child.stdin.take().expect("piped stdin");
    let mut talk = Dialogue {
        child,
        stdin,
        lines,
        log: Vec::new(),
    };
    let axis = |code, value| set(&mut device.borrow_mut(), code, value);
    let (x, y, z) = (
        AbsoluteAxisCode::ABS_X,
        AbsoluteAxisCode::ABS_Y,
        AbsoluteAxisCode::ABS_Z,
    );
    let steps = [
        talk.step(
            "Hands off",
            || {
                for k in 0..40 {
                    let sign = if k % 2 == 0 { 1 } else { -1 };
                    axis(x, 32768 + 40 * sign);
                    axis(z, if k % 2 == 0 { 1021 } else { 1023 });
                }
                axis(x, 32768);
            },
            "",
        ),
        talk.step(
            "LEFT lock",
            || {
                for v in [24000, 12000, 0, 16000, 32768, 48000, 65535, 50000, 32768] {
                    axis(x, v);
                }
            },
            "",
        ),
        talk.step("rotation from lock to lock", || {}, "540"),
        talk.step(
            "THROTTLE",
            || {
                for v in [300, 800, 1023, 500, 0] {
                    axis(y, v);
                }
            },
            "",
        ),
        talk.step(
            "BRAKE",
            || {
                for v in [700, 200, 0, 600, 1023] {
                    axis(z, v);
                }
            },
            "",
        ),
        talk.step("CLUTCH", || {}, "s"),
        talk.step("HANDBRAKE", || {}, "s"),
        talk.step(
            "Shift UP",
            || click(&mut device.borrow_mut(), KeyCode::BTN_THUMB),
            "",
        ),
        talk.step(
            "Shift DOWN",
            || click(&mut device.borrow_mut(), KeyCode::BTN_TRIGGER),
            "",
        ),
    ];
    let answered = steps.iter().filter(|s| **s).count();
    let wrote = wait_line(
        &talk.lines,
        &mut talk.log,
        &["Wrote /tmp/setup-calibrate.toml"],
        Duration::from_secs(5),
    );
    let code = exit_within(&mut talk.child, Duration::from_secs(3));
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let kept = text.contains("# vmrig calibrate check: this comment must survive")
        && text.contains("robots = 0   # keep me")
        && text.contains("disconnect_brake = 0.3");
    let mapping = match rig_config::parse(&text, path) {
        Ok(config) => {
            let d = &config.devices;
            let axis = |f| d.axis.iter().find(|a| a.function == f);
            let button = |f| {
                d.button
                    .iter()
                    .find(|b| b.function == f)
                    .map(|b| b.code.as_str())
            };
            let steering = axis(AxisFunction::Steering).is_some_and(|a| {
                a.code == "ABS_X"
                    && (a.raw_min, a.raw_max) == (Some(0), Some(65535))
                    && !a.invert
                    && a.inner_deadzone == 0.002
            });
            let throttle = axis(AxisFunction::Throttle).is_some_and(|a| {
                a.code == "ABS_Y" && (a.raw_min, a.raw_max) == (Some(0), Some(1023)) && !a.invert
            });
            // Brake resting at 1021..1023: noise 2 of 1023 counts -> 0.003, read backwards.
            let brake = axis(AxisFunction::Brake).is_some_and(|a| {
                a.code == "ABS_Z"
                    && (a.raw_min, a.raw_max) == (Some(0), Some(1023))
                    && a.invert
                    && a.inner_deadzone == 0.003
            });
            let device = d.device.len() == 1
                && d.device[0].vid_pid.as_deref() == Some(VID_PID)
                && d.device[0].id == "wheel";
            let ok = steering
                && throttle
                && brake
                && device
                && d.steering.range_deg == 540.0
                && button(ButtonFunction::GearUp) == Some("BTN_THUMB")
                && button(ButtonFunction::GearDown) == Some("BTN_TRIGGER")
                && axis(AxisFunction::Clutch).is_none();
            (
                ok,
                format!("steering={steering} throttle={throttle} brake={brake} device={device}"),
            )
        }
        Err(problems) => (false, format!("invalid: {problems:?}")),
    };
    let checked = rigd(&["check-config", path])
        .stdout(Stdio::null())
        .status()
        .ok()
        .and_then(|s| s.code());
    drop(device);
    r.check(
        "setup-calibrate",
        answered == steps.len() && wrote && code == Some(0) && kept && mapping.0 && checked == Some(0),
        format!(
            "answered {answered}/{} wrote={wrote} exit={code:?} kept={kept} {} check-config={checked:?}; \
             last lines: {}; file: {}",
            steps.len(),
            mapping.1,
            tail(&talk.log),
            text.replace('\n', " / ")
        ),
    );
}
