//! vmrig guest checks on the emulated HID PID base ([`pid_gadget`]): hid-generic + hid-pidff
//! bind it, rigd's FFB output reaches it with the right sign and size, the update rates do not
//! overflow usbhid's control queue, SIGTERM and SIGKILL of the real daemon zero the force in
//! time, and the input-to-force latency.
//!
//! Every force check takes a [`Backend`]: how to start rigd's FFB output and what to add to
//! `[ffb]`. [`EVDEV`] is rigd's evdev writer through hid-pidff; a hidraw PID backend adds its
//! own `Backend` and calls the same functions (check names carry the backend's label).
//! Forces are read from the device model (share of full scale along +X): rigd's +1.1 N m of
//! a 2.2 N m base is +0.5.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rig_config::devices::DevicesConfig;
use rigd::ffb::{FfbLink, FfbOutputStage};
use rigd::input::InputThread;

use super::latency_split::{first_write, report_split, run_flips, EvdevStamps};
use super::pid_gadget::{self, PidBase};
use super::pid_model::{force_timeline, DeviceModel, PidEvent, PidReport};
use super::{report_latency, wait_until, Results, TickLoop};

/// How a check starts rigd's FFB output towards the PID base.
pub struct Backend {
    /// Goes into the check names (`pid-<label>-force`, ...).
    pub label: &'static str,
    /// Extra `[ffb]` lines (e.g. a backend selection).
    pub ffb_extra: &'static str,
    /// Starts the FFB stage and its writer for `config`, sharing `link`.
    pub start: fn(&DevicesConfig, Arc<FfbLink>) -> Option<FfbOutputStage>,
}

/// rigd's evdev writer (`rigd::ffb::output_stage`) through the kernel's hid-pidff.
pub const EVDEV: Backend = Backend {
    label: "evdev",
    ffb_extra: "backend = \"evdev\"",
    start: super::start_ffb,
};

/// The PID base as a rigd device: steering on ABS_X, a 2.2 N m base with a 1 s ramp.
pub fn pid_config(extra: &str) -> DevicesConfig {
    let text = format!(
        r#"
        [[device]]
        id = "base"
        role = "wheel_base"
        vid_pid = "{}"
        [[axis]]
        function = "steering"
        device = "base"
        code = "ABS_X"
        [ffb]
        base_max_torque_nm = 2.2
        torque_cap_nm = 2.2
        ramp_s = 1.0
        {extra}
        "#,
        pid_gadget::VID_PID
    );
    let config: DevicesConfig = toml::from_str(&text).expect("PID guest config parses");
    config.check().expect("PID guest config is valid");
    config
}

/// New lines of the kernel log (`/dev/kmsg`) from the moment [`Kmsg::from_now`] was called.
pub struct Kmsg {
    file: File,
}

impl Kmsg {
    /// Starts reading at the end of the kernel log.
    pub fn from_now() -> Option<Kmsg> {
        let file = Self::open()?;
        // SAFETY: seeking our own fd; /dev/kmsg accepts SEEK_END ("from now on").
        unsafe { libc::lseek(std::os::fd::AsRawFd::as_raw_fd(&file), 0, libc::SEEK_END) };
        Some(Kmsg { file })
    }

    /// Starts reading at the oldest line the kernel still holds.
    pub fn from_boot() -> Option<Kmsg> {
        Self::open().map(|file| Kmsg { file })
    }

    fn open() -> Option<File> {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open("/dev/kmsg")
            .ok()
    }

    /// The message text of every record since the last call.
    pub fn lines(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 8192];
        loop {
            match self.file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let record = String::from_utf8_lossy(&buf[..n]);
                    // "prio,seq,time,flags;text\n"
                    let text = record.split_once(';').map_or(&*record, |(_, t)| t);
                    out.push(text.lines().next().unwrap_or("").to_string());
                }
                // EPIPE: records were overwritten before we read them; go on with the rest.
                Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
                Err(_) => break,
            }
        }
        out
    }
}

fn queue_full_lines(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.contains("queue full")).count()
}

/// hid-generic binds the base with hid-pidff force feedback, rigd lists it, and the kernel's
/// init sequence reached the device.
pub fn test_pid_bind(r: &mut Results, base: &PidBase) {
    let list = rigd::devices::list();
    let found = list
        .iter()
        .find(|d| (d.sys.vendor, d.sys.product) == (pid_gadget::VENDOR_ID, pid_gadget::PRODUCT_ID));
    let Some(found) = found else {
        return r.check(
            "pid-bind",
            false,
            format!("no {} in the device listing", pid_gadget::VID_PID),
        );
    };
    let caps = found.caps.clone().unwrap_or_default();
    let wanted = [
        "FF_CONSTANT",
        "FF_SPRING",
        "FF_DAMPER",
        "FF_FRICTION",
        "FF_INERTIA",
        "FF_GAIN",
    ];
    let missing: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|w| !caps.ff.iter().any(|f| f == w))
        .collect();
    let pidff_errors: Vec<String> = Kmsg::from_boot()
        .map(|mut k| k.lines())
        .unwrap_or_default()
        .into_iter()
        .filter(|l| l.contains("1209:FFB0") || l.contains("pidff"))
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            // hid-pidff's notice for bases without a built-in autocentre block is expected.
            !l.contains("autocenter control method")
                && [
                    "error",
                    "fail",
                    "not found",
                    "unknown",
                    "invalid",
                    "does not",
                ]
                .iter()
                .any(|w| l.contains(w))
        })
        .collect();
    let events = base.events();
    let init = init_sequence(&events);
    let ok = missing.is_empty()
        && found.sys.driver.as_deref() == Some("hid-generic")
        && !found.sys.hidraw.is_empty()
        && found.sys.serial == pid_gadget::SERIAL
        && pidff_errors.is_empty()
        && init.is_ok();
    r.check(
        "pid-bind",
        ok,
        format!(
            "driver={:?} ff={:?} missing={missing:?} hidraw={:?} stable_id={} pidff_errors={pidff_errors:?} \
             init={init:?} stalled={:02x?}",
            found.sys.driver,
            caps.ff,
            found.sys.hidraw,
            found.stable_id(),
            base.stalled(),
        ),
    );
}

/// The kernel's bind sequence as the device saw it: reset, enable, pool read, gain, and the
/// autocentre probe (create, block load, free). Ok with a summary, or what is missing.
fn init_sequence(events: &[PidEvent]) -> Result<String, String> {
    use super::pid_model::Control;
    let count = |f: &dyn Fn(&PidReport) -> bool| events.iter().filter(|e| f(&e.report)).count();
    let resets = count(&|r| *r == PidReport::DeviceControl(Control::Reset));
    let enables = count(&|r| *r == PidReport::DeviceControl(Control::EnableActuators));
    let pools = count(&|r| *r == PidReport::PoolRead);
    let gains = count(&|r| *r == PidReport::DeviceGain(255));
    let creates = count(&|r| matches!(r, PidReport::CreateNewEffect { .. }));
    let loads = count(&|r| matches!(r, PidReport::BlockLoadRead { status: 1, .. }));
    let unknown = count(&|r| matches!(r, PidReport::Unknown { .. }));
    let summary = format!(
        "resets={resets} enables={enables} pool_reads={pools} gain255={gains} creates={creates} \
         block_loads_ok={loads} unknown={unknown}"
    );
    if resets >= 1 && enables >= 1 && pools >= 1 && creates >= 1 && loads >= 1 && unknown == 0 {
        Ok(summary)
    } else {
        Err(summary)
    }
}

/// Starts `backend` on `config`, waits for the device and ticks it with a fixed torque.
fn start_ticking(backend: &Backend, config: &DevicesConfig) -> Option<(TickLoop, Arc<FfbLink>)> {
    let link = FfbLink::new();
    let stage = (backend.start)(config, link.clone())?;
    if !wait_until(Duration::from_secs(5), || link.device_connected()) {
        return None;
    }
    Some((TickLoop::spawn(stage, None, 0.0), link))
}

/// Settled force after a torque change: waits `settle`, then reads the model.
fn settled_force(base: &PidBase, settle: Duration) -> f64 {
    std::thread::sleep(settle);
    base.force_now()
}

/// The force at the device once it is within 0.02 of `want` (or the last one read when it
/// never got there within `timeout`).
pub fn force_near(base: &PidBase, want: f64, timeout: Duration) -> f64 {
    let mut force = base.force_now();
    wait_until(timeout, || {
        force = base.force_now();
        (force - want).abs() < 0.02
    });
    force
}

/// +1.1 N m of a 2.2 N m base reaches the device as +0.5 of full scale, -0.55 N m as -0.25.
pub fn test_pid_force(r: &mut Results, base: &PidBase, backend: &Backend) {
    let name = format!("pid-{}-force", backend.label);
    let config = pid_config(backend.ffb_extra);
    let Some((ticks, _link)) = start_ticking(backend, &config) else {
        return r.check(&name, false, "the FFB writer did not open the PID base");
    };
    // After the 1 s ramp. Waits (rather than one sample) because rigd stops the effect for a
    // moment whenever the tick loop stalls for 20 ms, which a loaded TCG guest does.
    ticks.set_torque(1.1);
    std::thread::sleep(Duration::from_millis(1000));
    let positive = force_near(base, 0.5, Duration::from_secs(2));
    ticks.set_torque(-0.55);
    let negative = force_near(base, -0.25, Duration::from_secs(2));
    let model = base.model();
    let now = Instant::now();
    let conditions = model.conditions_at(now);
    let playing: Vec<String> = model
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.plays_at(now))
        .map(|(i, b)| {
            format!(
                "block {i} {:?} duration {} ms direction {:.2} deg gain {} magnitude {}",
                b.effect_type,
                b.duration_ms,
                f64::from(b.direction) / 100.0,
                b.gain,
                b.magnitude
            )
        })
        .collect();
    let _ = ticks.finish();
    let stopped = settled_force(base, Duration::from_millis(300));
    r.check(
        &name,
        (positive - 0.5).abs() < 0.02 && (negative + 0.25).abs() < 0.02 && stopped == 0.0,
        format!(
            "+1.1 N m -> {positive:+.4}, -0.55 N m -> {negative:+.4} of full scale (want +0.5, \
             -0.25), after stop {stopped:+.4}; device gain {} actuators {}; playing \
             {playing:?}; conditions {conditions:?}",
            model.device_gain, model.actuators_enabled
        ),
    );
}

/// Reports a writer may have in flight when the command changes (one update: force + play).
const MAX_IN_FLIGHT: usize = 2;
/// What TCG emulation adds to a report's way through the guest kernel and back to the device
/// thread (the input-to-force latency check measures p99 around 15-20 ms there).
const TCG_ALLOWANCE: Duration = Duration::from_millis(20);

/// At `hz`, a torque that changes every tick for 2 s: no `queue full` in the kernel log, and
/// once the torque holds still the device settles on it within one update period (+ the TCG
/// allowance), with no more than [`MAX_IN_FLIGHT`] stale force reports after the change.
/// Also prints how stale the reports were during the sweep (device arrival minus the last
/// moment that value was commanded): a queue in front of the device shows up there.
pub fn test_pid_rate(r: &mut Results, base: &PidBase, backend: &Backend, hz: u32) {
    let name = format!("pid-{}-rate-{hz}", backend.label);
    let extra = format!(
        "update_rate_hz = {hz}\nslew_rate_nm_per_s = 100000\n{}",
        backend.ffb_extra
    );
    let config = pid_config(&extra);
    let mut kmsg = Kmsg::from_now();
    let Some((ticks, _link)) = start_ticking(backend, &config) else {
        return r.check(&name, false, "the FFB writer did not open the PID base");
    };
    std::thread::sleep(Duration::from_millis(1100));
    let sweep = Arc::new(AtomicBool::new(true));
    let s2 = sweep.clone();
    let bits = ticks.torque_bits.clone();
    let sweeper = std::thread::spawn(move || {
        let t0 = Instant::now();
        let mut commanded = Vec::with_capacity(8000);
        while s2.load(Ordering::Acquire) {
            let t = t0.elapsed().as_secs_f64();
            let torque = 1.5 * (t * 7.0).sin();
            bits.store(torque.to_bits(), Ordering::Relaxed);
            commanded.push((Instant::now(), torque));
            std::thread::sleep(Duration::from_micros(500));
        }
        commanded
    });
    let mark = base.mark();
    let window = Duration::from_secs(2);
    std::thread::sleep(window);
    sweep.store(false, Ordering::Release);
    let commanded = sweeper.join().expect("sweeper");
    let sweep_events = base.events_since(mark);
    // Hold +1.1 N m (magnitude +5000): when does the device settle on it?
    let hold_mark = base.mark();
    ticks.set_torque(1.1);
    let held_at = Instant::now();
    std::thread::sleep(Duration::from_millis(600));
    let after = base.events_since(hold_mark);
    let held = base.force_now();
    let _ = ticks.finish();
    std::thread::sleep(Duration::from_millis(300));
    let queue_full = kmsg.as_mut().map(|k| queue_full_lines(&k.lines()));
    let magnitudes: Vec<(Duration, i16)> = after
        .iter()
        .filter_map(|e| match e.report {
            PidReport::SetConstantForce { magnitude, .. } => {
                Some((e.at.saturating_duration_since(held_at), magnitude))
            }
            _ => None,
        })
        .collect();
    let settled = settle_time(&magnitudes);
    // Force reports that arrived after the change but carry an older command.
    let stale = magnitudes.iter().filter(|(_, m)| *m != 5000).count();
    let staleness = staleness_ms(&sweep_events, &commanded);
    let forces = sweep_events
        .iter()
        .filter(|e| matches!(e.report, PidReport::SetConstantForce { .. }))
        .count();
    let reports_per_s = sweep_events.len() as f64 / window.as_secs_f64();
    let bound = Duration::from_secs_f64(1.0 / f64::from(hz)) + TCG_ALLOWANCE;
    let first_after: Vec<String> = magnitudes
        .iter()
        .take(4)
        .map(|(t, m)| format!("{m}@{:.1}ms", t.as_secs_f64() * 1e3))
        .collect();
    r.check(
        &name,
        queue_full == Some(0)
            && (held - 0.5).abs() < 0.02
            && settled.is_some_and(|l| l <= bound)
            && stale <= MAX_IN_FLIGHT,
        format!(
            "queue_full={queue_full:?}; sweep: {reports_per_s:.0} reports/s ({:.0} force/s), \
             report staleness p50 {:.1} ms max {:.1} ms; hold: settled {settled:?} after the \
             change (bound {bound:?}), {} force reports after it, {stale} stale (at most \
             {MAX_IN_FLIGHT}) {first_after:?}, held {held:+.4} (want +0.5)",
            forces as f64 / window.as_secs_f64(),
            staleness.0,
            staleness.1,
            magnitudes.len(),
        ),
    );
}

/// When the device settled: the first of the trailing run of force reports that all carry
/// the final magnitude.
fn settle_time(magnitudes: &[(Duration, i16)]) -> Option<Duration> {
    let last = magnitudes.last()?.1;
    let run = magnitudes
        .iter()
        .rev()
        .take_while(|(_, m)| *m == last)
        .count();
    Some(magnitudes[magnitudes.len() - run].0)
}

/// p50 and max over the sweep's Set Constant Force reports of "arrival minus the last time
/// the torque it carries was commanded" (ms; magnitude 10000 = 2.2 N m, within 40 units).
fn staleness_ms(events: &[PidEvent], commanded: &[(Instant, f64)]) -> (f64, f64) {
    let mut ages: Vec<f64> = events
        .iter()
        .filter_map(|e| match e.report {
            PidReport::SetConstantForce { magnitude, .. } => {
                let torque = f64::from(magnitude) / 10_000.0 * 2.2;
                commanded
                    .iter()
                    .rev()
                    .filter(|(t, _)| *t <= e.at)
                    .find(|(_, c)| (c - torque).abs() <= 40.0 / 10_000.0 * 2.2)
                    .map(|(t, _)| e.at.duration_since(*t).as_secs_f64() * 1e3)
            }
            _ => None,
        })
        .collect();
    ages.sort_by(f64::total_cmp);
    if ages.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    (ages[ages.len() / 2], ages[ages.len() - 1])
}

/// The real daemon as a child: `vmrig_guest rigd run --config FILE --no-display` with the PID
/// base held 90 degrees right on a 900 degree range and the car's lock at 90 degrees, so the
/// soft lock asks for the torque cap (a steady non-zero force while the car is parked).
fn spawn_daemon(backend: &Backend, extra_args: &[&str]) -> Option<Child> {
    let config = format!(
        r#"
# One emulated CPU: no spinning, no memory locking; and a start-up under TCG misses ticks,
# which must not hold the force off for this check (fault holds are checked elsewhere).
[loop]
priority = 1
lock_memory = false
pm_qos = "off"
spin_us = 0
fault_after_missed_ticks = 10000

[[devices.device]]
id = "base"
role = "wheel_base"
vid_pid = "{}"

[devices.steering]
range_deg = 900
car_lock_deg = 90

[[devices.axis]]
function = "steering"
device = "base"
code = "ABS_X"

[devices.ffb]
base_max_torque_nm = 2.2
torque_cap_nm = 1.1
ramp_s = 1.0
{}
"#,
        pid_gadget::VID_PID,
        backend.ffb_extra
    );
    let path = format!("/tmp/pid-daemon-{}.toml", backend.label);
    std::fs::write(&path, config).ok()?;
    let exe = std::env::current_exe().ok()?;
    let log = File::create(daemon_log(backend)).ok()?;
    Command::new(exe)
        .args(["rigd", "--config", &path, "run", "--no-display"])
        .args(extra_args)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .ok()
}

fn daemon_log(backend: &Backend) -> String {
    format!("/tmp/pid-daemon-{}.log", backend.label)
}

/// A short account of reports for a failure message: counts by kind and the last magnitudes.
fn summary(events: &[PidEvent]) -> String {
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for e in events {
        let kind = format!("{:?}", e.report);
        let kind = kind.split([' ', '(']).next().unwrap_or("").to_string();
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((kind, 1)),
        }
    }
    let last: Vec<i16> = events
        .iter()
        .filter_map(|e| match e.report {
            PidReport::SetConstantForce { magnitude, .. } => Some(magnitude),
            _ => None,
        })
        .rev()
        .take(3)
        .collect();
    format!("{kinds:?}, last magnitudes (newest first) {last:?}")
}

/// Waits until the device holds a force of at least `min` (share of full scale).
/// Meanwhile it keeps the rim 90 degrees right of centre (a fifth of the 900 degree range),
/// nudging it by a few counts so the input layer sees events whenever the daemon opened the
/// base.
fn wait_streaming(base: &PidBase, min: f64, timeout: Duration) -> bool {
    let mut nudge = 0;
    let mut holds = || {
        nudge = 8 - nudge;
        base.send_input(6554 + nudge, 0);
        base.force_now().abs() >= min
    };
    // Then once more after the ramp settled, so the signal goes out while the force is on
    // (rigd itself zeroes it for a moment whenever its loop stalls for 20 ms, often under TCG).
    wait_until(timeout, &mut holds) && {
        std::thread::sleep(Duration::from_millis(300));
        wait_until(Duration::from_secs(3), &mut holds)
    }
}

/// What happened at the device after `t0`: when the force first reached zero (by a report or
/// by a finite effect running out), when a report first made it zero, and whether it came back.
struct AfterSignal {
    zero_after: Option<Duration>,
    zero_report_after: Option<Duration>,
    nonzero_again: Option<Duration>,
    reports_after_zero: usize,
}

fn after_signal(events: &[PidEvent], t0: Instant, window: Duration) -> AfterSignal {
    let timeline = force_timeline(events, t0, t0 + window, Duration::from_micros(250));
    let zero_at = timeline.iter().find(|(_, f)| *f == 0.0).map(|(t, _)| *t);
    let nonzero_again = zero_at.and_then(|z| {
        timeline
            .iter()
            .find(|(t, f)| *t > z && *f != 0.0)
            .map(|(t, _)| t.duration_since(t0))
    });
    let mut model = DeviceModel::default();
    let mut zero_report_at = None;
    for e in events {
        model.apply(e);
        if e.at >= t0 && zero_report_at.is_none() && model.force_at(e.at) == 0.0 {
            zero_report_at = Some(e.at);
        }
    }
    let reports_after_zero = zero_report_at.map_or(0, |z| {
        events
            .iter()
            .filter(|e| e.at > z)
            .filter(|e| matches!(e.report, PidReport::SetConstantForce { magnitude, .. } if magnitude != 0))
            .count()
    });
    AfterSignal {
        zero_after: zero_at.map(|z| z.duration_since(t0)),
        zero_report_after: zero_report_at.map(|z| z.duration_since(t0)),
        nonzero_again,
        reports_after_zero,
    }
}

/// The daemon's log lines except the periodic loop-health and telemetry ones (at most 8).
fn daemon_log_tail(backend: &Backend) -> String {
    let mut text = String::new();
    if let Ok(mut log) = File::open(daemon_log(backend)) {
        let _ = log.read_to_string(&mut text);
    }
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("loop health") && !l.contains("telemetry"))
        .collect();
    lines[lines.len().saturating_sub(8)..].join(" | ")
}

/// SIGTERM to the running daemon: the zero force reaches the device within 20 ms and no
/// non-zero force follows. SIGKILL: the force at the device stops within `kill_bound`.
pub fn test_pid_daemon_signals(
    r: &mut Results,
    base: &PidBase,
    backend: &Backend,
    kill_bound: Duration,
) {
    for (signal, name, bound) in [
        (
            libc::SIGTERM,
            format!("pid-{}-sigterm", backend.label),
            Duration::from_millis(20),
        ),
        (
            libc::SIGKILL,
            format!("pid-{}-sigkill", backend.label),
            kill_bound,
        ),
    ] {
        let spawn_mark = base.mark();
        let Some(mut child) = spawn_daemon(backend, &[]) else {
            r.check(&name, false, "cannot start the daemon");
            continue;
        };
        if !wait_streaming(base, 0.3, Duration::from_secs(15)) {
            let _ = child.kill();
            let _ = child.wait();
            let tail = daemon_log_tail(backend);
            let seen = summary(&base.events_since(spawn_mark));
            r.check(
                &name,
                false,
                format!(
                    "the daemon never held a force >= 0.3 at the device (now {:+.3}); the \
                     device got {seen}; log: {tail}",
                    base.force_now()
                ),
            );
            continue;
        }
        let before = base.force_now();
        let mark = base.mark();
        let t0 = Instant::now();
        // SAFETY: a signal to our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        let _ = child.wait();
        std::thread::sleep(Duration::from_millis(700));
        let events = base.events();
        let seen = after_signal(&events, t0, Duration::from_millis(600));
        let ok = if signal == libc::SIGTERM {
            seen.zero_report_after.is_some_and(|d| d <= bound)
                && seen.nonzero_again.is_none()
                && seen.reports_after_zero == 0
        } else {
            seen.zero_after.is_some_and(|d| d <= bound) && seen.nonzero_again.is_none()
        };
        r.check(
            &name,
            ok,
            format!(
                "force {before:+.3} before; zero at the device {:?} (by a report {:?}) after the \
                 signal (bound {bound:?}); non-zero again {:?}; non-zero force reports after \
                 the zero {}; {} reports after the signal",
                seen.zero_after,
                seen.zero_report_after,
                seen.nonzero_again,
                seen.reports_after_zero,
                events.len() - mark
            ),
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    base.send_input(0, 0);
}

/// Input report on the device side -> first force report reflecting it, at 1000 Hz, over 10 s.
pub fn test_pid_latency(r: &mut Results, base: &PidBase, backend: &Backend) -> Vec<f64> {
    let name = format!("pid-{}-latency", backend.label);
    let extra = format!(
        "slew_rate_nm_per_s = 100000\nupdate_rate_hz = 1000\n{}",
        backend.ffb_extra
    );
    let config = pid_config(&extra);
    let link = FfbLink::new();
    let Ok((input, player)) = InputThread::spawn(&config, link.clone()) else {
        r.check(&name, false, "input thread");
        return Vec::new();
    };
    let Some(stage) = (backend.start)(&config, link.clone()) else {
        r.check(&name, false, "ffb writer");
        return Vec::new();
    };
    wait_until(Duration::from_secs(5), || link.device_connected());
    let Some(stamps) = EvdevStamps::start(base) else {
        r.check(&name, false, "cannot read the base's evdev node");
        return Vec::new();
    };
    // Torque follows the rim: 2.2 N m per unit of steering (the tick loop is the physics).
    let ticks = TickLoop::spawn(stage, Some(player), 2.2);
    base.send_input(-8192, 0);
    std::thread::sleep(Duration::from_millis(1000));
    let (flips, reports) = run_flips(base, &stamps, Duration::from_secs(10), |flip, x| {
        let tick = ticks.steer_flip_ns();
        flip.tick = (tick >= flip.sent).then_some(tick);
        flip.write = first_write(&link.recent_level_writes(), flip.sent, x);
    });
    let samples = report_split(&format!("rigd-{}", backend.label), &flips);
    let _ = ticks.finish();
    drop(input);
    report_latency(
        r,
        &name,
        &format!("RIGD-VMRIG-LATENCY-PID backend={}", backend.label),
        &samples,
        reports,
    );
    samples
}

/// A panic planted in the running daemon's FFB stage (`--test-panic-stage ffb`, 12 s after the
/// loop started): the zero force reaches the device within 20 ms of the panic showing in the
/// daemon's log (which the check polls every millisecond; the zero may come first), the force
/// was held until then, no non-zero force follows, and the process exits 1 (the code
/// `Restart=on-failure` restarts on; no systemd runs in this guest).
pub fn test_pid_daemon_panic(r: &mut Results, base: &PidBase, backend: &Backend) {
    let name = format!("pid-{}-panic", backend.label);
    let Some(mut child) = spawn_daemon(
        backend,
        &[
            "--test-panic-stage",
            "ffb",
            "--test-panic-after-ms",
            "12000",
        ],
    ) else {
        return r.check(&name, false, "cannot start the daemon");
    };
    if !wait_streaming(base, 0.3, Duration::from_secs(10)) {
        let _ = child.kill();
        let _ = child.wait();
        return r.check(
            &name,
            false,
            format!(
                "no force >= 0.3 before the planted panic; log: {}",
                daemon_log_tail(backend)
            ),
        );
    }
    // Poll the log for the panic while keeping the last moment the force was held.
    let mut last_held = Instant::now();
    let seen = loop {
        if base.force_now().abs() >= 0.3 {
            last_held = Instant::now();
        }
        let mut text = String::new();
        if let Ok(mut log) = File::open(daemon_log(backend)) {
            let _ = log.read_to_string(&mut text);
        }
        if text.contains("planted panic in the ffb stage") {
            break Some(Instant::now());
        }
        if last_held.elapsed() > Duration::from_secs(15) {
            break None;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let status = child.wait();
    std::thread::sleep(Duration::from_millis(300));
    let Some(seen) = seen else {
        return r.check(
            &name,
            false,
            format!("no panic in the log: {}", daemon_log_tail(backend)),
        );
    };
    let from = seen - Duration::from_millis(50);
    let after = after_signal(&base.events(), from, Duration::from_millis(600));
    let code = status.ok().and_then(|s| s.code());
    let zero_in_bound = after
        .zero_report_after
        .is_some_and(|d| d <= Duration::from_millis(70));
    let ok = zero_in_bound
        && last_held + Duration::from_millis(60) >= seen
        && after.nonzero_again.is_none()
        && after.reports_after_zero == 0
        && code == Some(1);
    r.check(
        &name,
        ok,
        format!(
            "force held until {:?} before the panic showed; zero by a report {:?} after 50 ms \
             before it (bound 70 ms); non-zero again {:?}; non-zero force reports after the \
             zero {}; exit code {code:?} (want 1)",
            seen.saturating_duration_since(last_held),
            after.zero_report_after,
            after.nonzero_again,
            after.reports_after_zero,
        ),
    );
}

/// Child side of [`spawn_daemon`]: `vmrig_guest rigd ARGS...` runs the daemon's command line
/// exactly as `daemon/src/main.rs` does (signals blocked first, then parse and dispatch).
pub fn run_daemon(args: &[String]) -> ! {
    use clap::Parser;
    rigd::signals::block_handled_signals();
    let cli = rigd::cli::Cli::parse_from(args);
    let log = rigd::logging::init(false);
    let code = match rigd::cli::dispatch::dispatch(cli, false, log.notices.clone()) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("{err:#}");
            rigd::cli::exit_code(&err)
        }
    };
    std::process::exit(code);
}
