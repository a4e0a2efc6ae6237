//! vmrig guest check `rumble-panic`: a panic planted in the running daemon's rumble stage
//! (`rigd run --test-panic-stage rumble`) on a uinput gamepad with FF_RUMBLE. The daemon is
//! the real command line (`vmrig_guest rigd ...`, the path of `daemon/src/main.rs`) built
//! with its default features, so gilrs finds the pad and its FF thread uploads and plays an
//! FF_RUMBLE effect through the real kernel FF core; this side answers the uploads and erases
//! as a gamepad's driver would and records each with its arrival time.
//!
//! The guest has no udevd (so no `ID_INPUT_JOYSTICK` property for libudev to match): the
//! daemon runs with `GILRS_DISABLE_UDEV=1`, gilrs's own switch for systems without udev, and
//! finds the pad by watching `/dev/input`. Everything after discovery (the evdev node, the
//! effect uploads, the plays, the erase on close) is the path a desktop takes.
//!
//! The pad drives the car (first gear, full throttle, full lock) until the rumble uploads
//! carry a non-zero magnitude; then the planted panic: the check polls the log and asserts
//! the rumble stopped at the pad (a zero-magnitude upload, a stop or the erase) within
//! [`STOP_BOUND`] of the panic showing, no rumble after it, exit code 1 and the log's panic
//! lines. Then the same config started again (what `Restart=on-failure` does; no systemd
//! runs in the guest) comes back READY, rumbles again, and SIGTERM ends it with 0 and the
//! rumble stopped.

use std::os::unix::net::UnixDatagram;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use evdev::uinput::VirtualDevice;
use evdev::{
    AbsInfo, AbsoluteAxisCode, AttributeSet, EventSummary, EventType, FFEffectCode, InputEvent,
    InputId, KeyCode, UInputCode, UinputAbsSetup,
};

use rig_protocols::telemetry::native;

use super::settings_checks::{UI_BEGIN_FF_UPLOAD, UI_END_FF_UPLOAD};
use super::Results;

const NAME: &str = "rumble-panic";
const CONFIG: &str = "/tmp/rumble.toml";
const LOG: &str = "/tmp/rumble-daemon.log";
const NOTIFY: &str = "/tmp/rumble-notify.sock";
/// The default config's native telemetry destination: the car as the daemon sees it, for the
/// failure messages.
const TELEMETRY_PORT: u16 = 29777;

/// From the panic showing in the log to the rumble stopped at the pad: rigd's gamepad thread
/// sees the stage's zero within its 50 ms rumble period and gilrs's FF thread uploads it
/// within its 50 ms tick (100 ms on hardware); the rest is room for the emulated guest (246 ms
/// measured with the host at load 18).
const STOP_BOUND: Duration = Duration::from_millis(400);

/// One thing the pad's uinput side saw.
#[derive(Debug, Clone, Copy, PartialEq)]
enum PadEvent {
    /// An FF_RUMBLE upload (new or changed) with its motor magnitudes.
    Upload { id: i16, strong: u16, weak: u16 },
    /// EV_FF play (`true`) or stop (`false`) of an effect.
    Play { id: i16, on: bool },
    /// The effect erased (its owner closed the node or removed it).
    Erase { id: i16 },
}

impl PadEvent {
    fn rumbles(&self) -> bool {
        matches!(self, PadEvent::Upload { strong, weak, .. } if (*strong, *weak) != (0, 0))
    }

    fn silences(&self) -> bool {
        match self {
            PadEvent::Upload { strong, weak, .. } => (*strong, *weak) == (0, 0),
            PadEvent::Play { on, .. } => !on,
            PadEvent::Erase { .. } => true,
        }
    }
}

type Log = Arc<Mutex<Vec<(Instant, PadEvent)>>>;

/// The uinput gamepad (vendor 1209, not in gilrs's mapping database, so gilrs's default
/// evdev mapping applies: ABS_X left stick, ABS_HAT2X/ABS_HAT2Y the analogue right/left
/// triggers, BTN_TR/BTN_TL the bumpers) and the thread that answers its FF requests and
/// writes its input events.
struct Pad {
    log: Log,
    input: Sender<Vec<InputEvent>>,
    quit: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Pad {
    fn plug() -> std::io::Result<Pad> {
        let mut keys = AttributeSet::<KeyCode>::new();
        for key in [
            KeyCode::BTN_SOUTH,
            KeyCode::BTN_EAST,
            KeyCode::BTN_TL,
            KeyCode::BTN_TR,
            KeyCode::BTN_SELECT,
            KeyCode::BTN_START,
        ] {
            keys.insert(key);
        }
        // What a rumble pad's kernel driver declares through ff-memless: FF_RUMBLE, the
        // periodic waveforms it emulates on the motors, and FF_GAIN (gilrs takes a device for
        // force feedback only when it has the last four).
        let mut ff = AttributeSet::<FFEffectCode>::new();
        for code in [
            FFEffectCode::FF_RUMBLE,
            FFEffectCode::FF_PERIODIC,
            FFEffectCode::FF_SQUARE,
            FFEffectCode::FF_TRIANGLE,
            FFEffectCode::FF_SINE,
            FFEffectCode::FF_GAIN,
        ] {
            ff.insert(code);
        }
        let stick = |code| UinputAbsSetup::new(code, AbsInfo::new(0, -32768, 32767, 16, 128, 0));
        let trigger = |code| UinputAbsSetup::new(code, AbsInfo::new(0, 0, 255, 0, 0, 0));
        let mut device = VirtualDevice::builder()?
            .name("rigd vmrig rumble pad")
            .input_id(InputId::new(evdev::BusType::BUS_USB, 0x1209, 0x0003, 1))
            .with_keys(&keys)?
            .with_absolute_axis(&stick(AbsoluteAxisCode::ABS_X))?
            .with_absolute_axis(&stick(AbsoluteAxisCode::ABS_Y))?
            .with_absolute_axis(&trigger(AbsoluteAxisCode::ABS_HAT2X))?
            .with_absolute_axis(&trigger(AbsoluteAxisCode::ABS_HAT2Y))?
            .with_ff(&ff)?
            .with_ff_effects_max(4)
            .build()?;
        let fd = std::os::fd::AsRawFd::as_raw_fd(&device);
        // SAFETY: setting O_NONBLOCK on our own uinput fd.
        unsafe {
            libc::fcntl(
                fd,
                libc::F_SETFL,
                libc::fcntl(fd, libc::F_GETFL) | libc::O_NONBLOCK,
            )
        };
        let log: Log = Arc::default();
        let quit = Arc::new(AtomicBool::new(false));
        let (input, inputs) = mpsc::channel::<Vec<InputEvent>>();
        let thread = {
            let (log, quit) = (log.clone(), quit.clone());
            std::thread::spawn(move || {
                while !quit.load(Ordering::Acquire) {
                    while let Ok(events) = inputs.try_recv() {
                        let _ = device.emit(&events);
                    }
                    let seen = pump(&mut device, fd);
                    if seen.is_empty() {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    let now = Instant::now();
                    log.lock()
                        .unwrap()
                        .extend(seen.into_iter().map(|e| (now, e)));
                }
            })
        };
        // Let the kernel create the event node before anyone looks for it.
        std::thread::sleep(Duration::from_millis(300));
        Ok(Pad {
            log,
            input,
            quit,
            thread: Some(thread),
        })
    }

    fn send(&self, events: Vec<InputEvent>) {
        let _ = self.input.send(events);
        std::thread::sleep(Duration::from_millis(20));
    }

    /// First gear, then full throttle and full right lock. The bumper is held until the
    /// daemon's telemetry shows first gear (a quick tap can fall between two ticks of the
    /// emulated guest's loop; held longer, the sequential box keeps shifting up). Each axis
    /// goes through 0 first: the kernel drops a value equal to the last, and a restarted
    /// daemon must see the change.
    fn drive(&self, car: &CarWatch) -> bool {
        let abs =
            |code: AbsoluteAxisCode, value| InputEvent::new(EventType::ABSOLUTE.0, code.0, value);
        let key = |code: KeyCode, value| InputEvent::new(EventType::KEY.0, code.0, value);
        self.send(vec![
            abs(AbsoluteAxisCode::ABS_HAT2X, 0),
            abs(AbsoluteAxisCode::ABS_X, 0),
        ]);
        let mut in_first = false;
        for _ in 0..6 {
            let gear = car.gear.load(Ordering::Relaxed);
            if gear == 1 {
                in_first = true;
                break;
            }
            let bumper = if gear < 1 {
                KeyCode::BTN_TR
            } else {
                KeyCode::BTN_TL
            };
            self.send(vec![key(bumper, 1)]);
            let end = Instant::now() + Duration::from_secs(3);
            while car.gear.load(Ordering::Relaxed) == gear && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(1));
            }
            self.send(vec![key(bumper, 0)]);
            std::thread::sleep(Duration::from_millis(200));
        }
        self.send(vec![
            abs(AbsoluteAxisCode::ABS_HAT2X, 255),
            abs(AbsoluteAxisCode::ABS_X, 32767),
        ]);
        in_first
    }

    fn events(&self) -> Vec<(Instant, PadEvent)> {
        self.log.lock().unwrap().clone()
    }

    fn mark(&self) -> usize {
        self.log.lock().unwrap().len()
    }

    /// Waits until an upload after `mark` carries a non-zero magnitude.
    fn wait_rumble(&self, mark: usize, timeout: Duration) -> Option<PadEvent> {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if let Some((_, e)) = self.log.lock().unwrap()[mark..]
                .iter()
                .find(|(_, e)| e.rumbles())
            {
                return Some(*e);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Pad {
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Answers the pad's pending FF requests (an upload blocks the uploader until answered) and
/// returns what they and its EV_FF events carried.
fn pump(device: &mut VirtualDevice, fd: i32) -> Vec<PadEvent> {
    let events: Vec<_> = device
        .fetch_events()
        .map(|e| e.collect())
        .unwrap_or_default();
    let mut seen = Vec::new();
    for e in events {
        match e.destructure() {
            EventSummary::UInput(_, UInputCode::UI_FF_UPLOAD, request_id) => {
                seen.extend(answer_upload(fd, request_id));
            }
            EventSummary::UInput(ev, UInputCode::UI_FF_ERASE, _) => {
                if let Ok(erase) = device.process_ff_erase(ev) {
                    seen.push(PadEvent::Erase {
                        id: erase.effect_id() as i16,
                    });
                }
            }
            // Codes below FF_RUMBLE (0x50) are effect ids: play or stop.
            EventSummary::ForceFeedback(_, code, value) if code.0 < 0x50 => {
                seen.push(PadEvent::Play {
                    id: code.0 as i16,
                    on: value != 0,
                });
            }
            _ => {}
        }
    }
    seen
}

/// Accepts upload `request_id` and returns its rumble magnitudes.
fn answer_upload(fd: i32, request_id: i32) -> Option<PadEvent> {
    // SAFETY: a zeroed uinput_ff_upload is valid; the ioctls read and write exactly it.
    let mut request: libc::uinput_ff_upload = unsafe { std::mem::zeroed() };
    request.request_id = request_id as u32;
    if unsafe { libc::ioctl(fd, UI_BEGIN_FF_UPLOAD as _, &mut request) } < 0 {
        return None;
    }
    // SAFETY: ff_rumble_effect (strong, weak: u16) starts the 32-byte union.
    let [strong, weak]: [u16; 2] = unsafe { std::ptr::read(request.effect.u.as_ptr().cast()) };
    let upload = PadEvent::Upload {
        id: request.effect.id,
        strong,
        weak,
    };
    request.retval = 0;
    // SAFETY: as above.
    unsafe { libc::ioctl(fd, UI_END_FF_UPLOAD as _, &mut request) };
    Some(upload)
}

/// One emulated CPU per thread: no spinning, no memory locking; a start-up under TCG misses
/// ticks, which must not hold the outputs for this check. The race car (sequential box, a
/// centrifugal clutch: a pad has no clutch pedal for the road car's H-pattern) at full
/// rumble gain.
fn config() -> String {
    "[loop]\npriority = 1\nlock_memory = false\npm_qos = \"off\"\nspin_us = 0\n\
     fault_after_missed_ticks = 10000\n\n\
     [sim]\ncar = \"race\"\n\n\
     [devices.gamepad]\nenabled = true\nrumble_gain = 1.0\n"
        .to_string()
}

fn spawn_daemon(extra: &[&str]) -> Option<Child> {
    let log = std::fs::File::create(LOG).ok()?;
    Command::new(std::env::current_exe().ok()?)
        .args(["rigd", "--config", CONFIG, "run", "--no-display"])
        .args(extra)
        .env("GILRS_DISABLE_UDEV", "1")
        .env("NOTIFY_SOCKET", NOTIFY)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .ok()
}

fn wait_ready(notify: &UnixDatagram, timeout: Duration) -> bool {
    let end = Instant::now() + timeout;
    let mut buf = [0u8; 4096];
    while Instant::now() < end {
        if let Ok(n) = notify.recv(&mut buf) {
            if String::from_utf8_lossy(&buf[..n])
                .lines()
                .any(|l| l == "READY=1")
            {
                return true;
            }
        }
    }
    false
}

/// The car as the daemon's native telemetry shows it: its gear, and a line for the failure
/// messages.
struct CarWatch {
    gear: std::sync::atomic::AtomicI32,
    line: Mutex<String>,
}

/// Listens on the default config's native telemetry destination.
fn watch_car() -> Arc<CarWatch> {
    let car = Arc::new(CarWatch {
        gear: std::sync::atomic::AtomicI32::new(i32::MIN),
        line: Mutex::new("no telemetry".to_string()),
    });
    let latest = car.clone();
    if let Ok(socket) = std::net::UdpSocket::bind(("127.0.0.1", TELEMETRY_PORT)) {
        std::thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while let Ok(n) = socket.recv(&mut buf) {
                let Some(frame) = native::decode(&buf[..n])
                    .ok()
                    .and_then(|p| p.to_frame().ok())
                else {
                    continue;
                };
                let c = &frame.car;
                let largest = |f: &dyn Fn(usize) -> f64| (0..4).map(f).fold(0.0, f64::max);
                latest
                    .gear
                    .store(i32::from(c.drivetrain.gear), Ordering::Relaxed);
                *latest.line.lock().unwrap() = format!(
                    "speed {:.1} m/s, gear {}, throttle {:.2}, steering {:+.2}, largest slip \
                     ratio {:.3} and angle {:.3} rad",
                    c.speed_mps,
                    c.drivetrain.gear,
                    c.controls.throttle,
                    c.controls.steering,
                    largest(&|i| c.wheels[i].slip_ratio.abs()),
                    largest(&|i| c.wheels[i].slip_angle_rad.abs()),
                );
            }
        });
    }
    car
}

/// The daemon's log read as it grows (only the new bytes each time).
#[derive(Default)]
struct LogTail {
    file: Option<std::fs::File>,
    text: Vec<u8>,
    scanned: usize,
}

impl LogTail {
    fn shows(&mut self, needle: &str) -> bool {
        use std::io::Read;
        if self.file.is_none() {
            self.file = std::fs::File::open(LOG).ok();
        }
        if let Some(file) = &mut self.file {
            let _ = file.read_to_end(&mut self.text);
        }
        let from = self.scanned.saturating_sub(needle.len());
        self.scanned = self.text.len();
        self.text[from..]
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
    }
}

fn log_text() -> String {
    std::fs::read_to_string(LOG).unwrap_or_default()
}

fn log_tail() -> String {
    let text = log_text();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("loop health"))
        .collect();
    lines[lines.len().saturating_sub(6)..].join(" | ")
}

/// What the pad saw from `from` on: when it first went silent, and the rumble after that.
fn silenced_after(events: &[(Instant, PadEvent)], from: Instant) -> (Option<Instant>, usize) {
    let silent = events
        .iter()
        .find(|(at, e)| *at >= from && e.silences())
        .map(|(at, _)| *at);
    let rumble_after = silent.map_or(0, |s| {
        events
            .iter()
            .filter(|(at, e)| *at > s && e.rumbles())
            .count()
    });
    (silent, rumble_after)
}

pub fn test_rumble_panic(r: &mut Results) {
    let _ = std::fs::remove_file(NOTIFY);
    let (Ok(()), Ok(notify)) = (std::fs::write(CONFIG, config()), UnixDatagram::bind(NOTIFY))
    else {
        return r.check(
            NAME,
            false,
            "cannot write the config or bind the notify socket",
        );
    };
    let _ = notify.set_read_timeout(Some(Duration::from_millis(50)));
    let car = watch_car();
    let pad = match Pad::plug() {
        Ok(pad) => pad,
        Err(e) => return r.check(NAME, false, format!("uinput gamepad: {e}")),
    };
    let Some(mut child) = spawn_daemon(&[
        "--test-panic-stage",
        "rumble",
        "--test-panic-after-ms",
        "2500",
    ]) else {
        return r.check(NAME, false, "cannot start the daemon");
    };
    if !wait_ready(&notify, Duration::from_secs(30)) {
        let _ = child.kill();
        let _ = child.wait();
        return r.check(NAME, false, format!("never READY; log: {}", log_tail()));
    }
    let t_ready = Instant::now();
    let geared = pad.drive(&car);
    let Some(first) = pad.wait_rumble(0, Duration::from_secs(15)) else {
        let _ = child.kill();
        let _ = child.wait();
        return r.check(
            NAME,
            false,
            format!(
                "no rumble while driving (first gear {geared}; {}); the pad saw {:?}; log: {}",
                car.line.lock().unwrap(),
                pad.events().iter().rev().take(4).collect::<Vec<_>>(),
                log_tail()
            ),
        );
    };
    let rumble_from_ready = t_ready.elapsed();
    // Poll the log for the panic: 2.5 s of ticks, 1.7 s more than the pad took to rumble
    // here; the race car's physics under TCG on a busy host ran about 80 ticks a second, so
    // this can take 30 s.
    let seen = {
        let mut log = LogTail::default();
        let end = Instant::now() + Duration::from_secs(90);
        loop {
            if log.shows("planted panic in the rumble stage") {
                break Some(Instant::now());
            }
            if Instant::now() > end {
                break None;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    };
    let status = child.wait();
    std::thread::sleep(Duration::from_millis(500));
    let Some(seen) = seen else {
        let text = log_text();
        let health: Vec<&str> = text.lines().filter(|l| l.contains("loop health")).collect();
        return r.check(
            NAME,
            false,
            format!(
                "no panic in the log within 90 s (exit {status:?}); loop: {}; log: {}",
                health[health.len().saturating_sub(2)..].join(" | "),
                log_tail()
            ),
        );
    };
    let events = pad.events();
    let code = status.ok().and_then(|s| s.code());
    let text = log_text();
    let logged = text.contains("the physics loop panicked; every output was safe-stopped (fault)");
    let rumbles_before: Vec<Instant> = events
        .iter()
        .filter(|(at, e)| *at < seen && e.rumbles())
        .map(|(at, _)| *at)
        .collect();
    let last_rumble = rumbles_before.last().map(|at| seen.duration_since(*at));
    // The stop may come before the log line shows (the check polls every millisecond).
    let from = seen - Duration::from_millis(50);
    let (silent, rumble_after) = silenced_after(&events, from);
    let stop_after = silent.map(|s| s.saturating_duration_since(seen));
    let erased = events
        .iter()
        .any(|(at, e)| *at >= from && matches!(e, PadEvent::Erase { .. }));
    let panic_ok = silent.is_some_and(|s| s <= seen + STOP_BOUND)
        && last_rumble.is_some_and(|d| d <= Duration::from_millis(250))
        && rumble_after == 0
        && erased
        && code == Some(1)
        && logged;
    let panic_detail = format!(
        "rumbling {rumble_from_ready:?} after READY ({first:?} first; {} uploads with \
         rumble) until {last_rumble:?} before the panic showed; silent at the pad {stop_after:?} after it (bound {STOP_BOUND:?}); \
         rumble after that {rumble_after}; effect erased {erased}; exit code {code:?} (want \
         1); the log's safe-stop line {logged}",
        rumbles_before.len()
    );

    // What `Restart=on-failure` does next, after `RestartSec=1s`; the first run's
    // notifications left unread are dropped so READY is the new run's.
    std::thread::sleep(Duration::from_secs(1));
    let mut buf = [0u8; 4096];
    while notify.recv(&mut buf).is_ok() {}
    let mark = pad.mark();
    let Some(mut child) = spawn_daemon(&[]) else {
        return r.check(
            NAME,
            false,
            format!("{panic_detail}; cannot restart the daemon"),
        );
    };
    let ready = wait_ready(&notify, Duration::from_secs(30));
    car.gear.store(i32::MIN, Ordering::Relaxed);
    pad.drive(&car);
    let again = pad.wait_rumble(mark, Duration::from_secs(15));
    let t_term = Instant::now();
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let term_code = child.wait().ok().and_then(|s| s.code());
    std::thread::sleep(Duration::from_millis(500));
    let events = pad.events();
    let (term_silent, term_rumble_after) = silenced_after(&events[mark..], t_term);
    let restart_ok = ready
        && again.is_some()
        && term_code == Some(0)
        && term_silent.is_some()
        && term_rumble_after == 0;
    r.check(
        NAME,
        panic_ok && restart_ok,
        format!(
            "{panic_detail}; restarted: READY {ready}, rumble again {again:?}, SIGTERM exit \
             code {term_code:?} (want 0), silent {:?} after it, rumble after that \
             {term_rumble_after}{}",
            term_silent.map(|s| s.saturating_duration_since(t_term)),
            if panic_ok && restart_ok {
                String::new()
            } else {
                format!("; log: {}", log_tail())
            }
        ),
    );
}
