//! vmrig guest checks of rigd's hidraw PID backend (`rigd::ffb::hidraw_pid`) on the emulated
//! HID PID base ([`pid_gadget`]), with hid-generic + hid-pidff bound to it as on a real
//! machine: the node is found and its descriptor understood, the force reaches the device with
//! the right sign and size, 250/500/1000 Hz give no `queue full`, a stop zeroes first and
//! nothing non-zero follows, a killed writer's force dies within 50 ms (finite durations),
//! condition effects appear and vanish, and the input-to-force latency.
//!
//! The shared force, rate and latency checks live in [`pid_checks`]; [`HIDRAW`] is the
//! `Backend` that runs them through `rigd::ffb::output_stage` with `backend = "hidraw"`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rig_config::devices::DevicesConfig;
use rigd::ffb::hidraw_pid::{self, HidrawPidSettings, HidrawPidWriter};
use rigd::ffb::{ConditionLevel, FfbCommand, FfbLink};
use rigd::rt::handoff::latest_value;

use super::pid_checks::{self, Backend};
use super::pid_descriptor::EffectType;
use super::pid_gadget::{self, PidBase};
use super::pid_model::{force_timeline, DeviceModel, PidEvent, PidReport};
use super::{wait_until, Results, TickLoop};

/// rigd's hidraw PID writer, chosen by `backend = "hidraw"`.
pub const HIDRAW: Backend = Backend {
    label: "hidraw",
    ffb_extra: "backend = \"hidraw\"",
    start: super::start_ffb,
};

/// Every check of this backend, in order.
pub fn run_all(r: &mut Results, base: &PidBase) {
    test_hidraw_probe(r);
    pid_checks::test_pid_force(r, base, &HIDRAW);
    for hz in [250, 500, 1000] {
        pid_checks::test_pid_rate(r, base, &HIDRAW, hz);
    }
    test_hidraw_stop(r, base);
    test_hidraw_kill(r, base);
    pid_checks::test_pid_daemon_signals(r, base, &HIDRAW, Duration::from_millis(50));
    test_hidraw_conditions(r, base);
    super::pid_condition_checks::test_pid_conditions(r, base, &HIDRAW);
    super::pid_condition_checks::test_pid_autocentre(r, base, &HIDRAW);
    pid_checks::test_pid_latency(r, base, &HIDRAW);
}

/// rigd finds the base's hidraw node by its descriptor and can drive it (no quirk: the
/// emulated base has every field).
fn test_hidraw_probe(r: &mut Results) {
    let config = pid_checks::pid_config(HIDRAW.ffb_extra);
    let node = rigd::ffb::locate_pid_node(&config);
    let probed = node.as_deref().map(hidraw_pid::probe);
    let ok = matches!(&probed, Some(Ok(layout)) if layout.quirks.is_empty()
        && layout.set_constant_force.magnitude.max == 10_000);
    let detail = match &probed {
        Some(Ok(l)) => format!(
            "{node:?}: quirks {:?}, magnitude {}..={}, constant force report id {}",
            l.quirks,
            l.set_constant_force.magnitude.min,
            l.set_constant_force.magnitude.max,
            l.set_constant_force.address.id
        ),
        Some(Err(e)) => e.to_string(),
        None => "no hidraw node of the base carries PID reports".into(),
    };
    r.check("pid-hidraw-probe", ok, detail);
}

fn start_streaming(config: &DevicesConfig) -> Option<(TickLoop, Arc<FfbLink>)> {
    let link = FfbLink::new();
    let stage = (HIDRAW.start)(config, link.clone())?;
    if !wait_until(Duration::from_secs(5), || link.device_connected()) {
        return None;
    }
    let ticks = TickLoop::spawn(stage, None, 0.0);
    ticks.set_torque(1.1);
    Some((ticks, link))
}

/// When the first zero force report arrived after `t0`, and how many non-zero force reports
/// (and Starts of a constant effect) followed it.
fn zero_then_quiet(events: &[PidEvent], t0: Instant) -> (Option<Duration>, usize) {
    let after: Vec<&PidEvent> = events.iter().filter(|e| e.at >= t0).collect();
    let zero = after
        .iter()
        .position(|e| matches!(e.report, PidReport::SetConstantForce { magnitude: 0, .. }));
    let Some(zero) = zero else {
        return (None, 0);
    };
    let non_zero = after[zero + 1..]
        .iter()
        .filter(
            |e| matches!(e.report, PidReport::SetConstantForce { magnitude, .. } if magnitude != 0),
        )
        .count();
    (Some(after[zero].at.duration_since(t0)), non_zero)
}

/// The daemon's exit path (safe stop, then the writer dropped): the zero reaches the device
/// within 20 ms, nothing non-zero follows, and the effect is stopped and freed.
fn test_hidraw_stop(r: &mut Results, base: &PidBase) {
    let config = pid_checks::pid_config(HIDRAW.ffb_extra);
    let Some((ticks, _link)) = start_streaming(&config) else {
        return r.check("pid-hidraw-stop", false, "the writer did not open the base");
    };
    std::thread::sleep(Duration::from_millis(1500));
    let before = base.force_now();
    let mark = base.mark();
    let t0 = Instant::now();
    ticks.safe_stop_exit();
    std::thread::sleep(Duration::from_millis(5));
    drop(ticks.finish());
    std::thread::sleep(Duration::from_millis(300));
    let events = base.events();
    let (zero, non_zero_after) = zero_then_quiet(&events, t0);
    let tail: Vec<&PidReport> = events[mark..].iter().map(|e| &e.report).collect();
    let freed = tail
        .iter()
        .any(|r| matches!(r, PidReport::BlockFree { .. }));
    let force = base.force_now();
    r.check(
        "pid-hidraw-stop",
        zero.is_some_and(|d| d <= Duration::from_millis(20))
            && non_zero_after == 0
            && freed
            && force == 0.0,
        format!(
            "force {before:+.3} before; zero report {zero:?} after the stop (bound 20 ms); \
             {non_zero_after} non-zero force reports after it; block freed {freed}; force now \
             {force:+.3}; reports {tail:?}"
        ),
    );
}

/// Child side of [`test_hidraw_kill`]: `vmrig_guest pid-hidraw-child` streams +1.1 N m
/// through the hidraw writer and prints READY.
pub fn child() -> ! {
    let config = pid_checks::pid_config(HIDRAW.ffb_extra);
    let Some((_ticks, _link)) = start_streaming(&config) else {
        println!("NODEVICE");
        std::process::exit(3);
    };
    std::thread::sleep(Duration::from_millis(1500));
    println!("READY");
    let _ = std::io::stdout().flush();
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

fn spawn_child() -> Option<Child> {
    let exe = std::env::current_exe().ok()?;
    let mut child = Command::new(exe)
        .arg("pid-hidraw-child")
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut line = String::new();
    BufReader::new(child.stdout.take()?)
        .read_line(&mut line)
        .ok()?;
    if line.trim() == "READY" {
        Some(child)
    } else {
        let _ = child.kill();
        let _ = child.wait();
        None
    }
}

/// SIGKILL of the writer's process: nothing cleans up on hidraw, so the finite effect duration
/// (30 ms, refreshed every 10 ms) must end the force at the device within 50 ms.
fn test_hidraw_kill(r: &mut Results, base: &PidBase) {
    let Some(mut child) = spawn_child() else {
        return r.check("pid-hidraw-sigkill", false, "the child did not stream");
    };
    let before = base.force_now();
    let t0 = Instant::now();
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let _ = child.wait();
    std::thread::sleep(Duration::from_millis(300));
    let events = base.events();
    let timeline = force_timeline(
        &events,
        t0,
        t0 + Duration::from_millis(250),
        Duration::from_micros(250),
    );
    let zero_at = timeline.iter().find(|(_, f)| *f == 0.0).map(|(t, _)| *t);
    let again = zero_at.and_then(|z| timeline.iter().find(|(t, f)| *t > z && *f != 0.0));
    r.check(
        "pid-hidraw-sigkill",
        before.abs() >= 0.3
            && zero_at.is_some_and(|z| z.duration_since(t0) <= Duration::from_millis(50))
            && again.is_none(),
        format!(
            "force {before:+.3} before; zero at the device {:?} after SIGKILL (bound 50 ms); \
             non-zero again {:?}",
            zero_at.map(|z| z.duration_since(t0)),
            again.map(|(t, _)| t.duration_since(t0))
        ),
    );
}

/// The writer driven directly with condition levels: a spring appears with the coefficient
/// and saturation scaled to the device's units (16384 of 32767 -> 5000 of 10000), a damper
/// joins it, and both stop when their coefficients return to zero.
fn test_hidraw_conditions(r: &mut Results, base: &PidBase) {
    let config = pid_checks::pid_config(HIDRAW.ffb_extra);
    let link = FfbLink::new();
    let (mut commands, reader) = latest_value(FfbCommand::default());
    let Ok(writer) = HidrawPidWriter::spawn(
        Arc::default(),
        move || rigd::ffb::locate_pid_node(&config),
        reader,
        link.clone(),
        HidrawPidSettings::default(),
    ) else {
        return r.check("pid-hidraw-conditions", false, "writer thread");
    };
    if !wait_until(Duration::from_secs(5), || link.device_connected()) {
        return r.check(
            "pid-hidraw-conditions",
            false,
            "the writer did not open the base",
        );
    }
    let wanted = Arc::new(std::sync::Mutex::new(FfbCommand::default()));
    let quit = Arc::new(AtomicBool::new(false));
    let (w, q) = (wanted.clone(), quit.clone());
    // The RT loop's stand-in: a fresh sequence every millisecond (else the writer sees a stall).
    let feeder = std::thread::spawn(move || {
        let mut sequence = 0;
        while !q.load(Ordering::Acquire) {
            sequence += 1;
            let cmd = FfbCommand {
                sequence,
                ..*w.lock().expect("command")
            };
            commands.write(cmd);
            std::thread::sleep(Duration::from_millis(1));
        }
    });
    let set = |f: &dyn Fn(&mut FfbCommand)| f(&mut wanted.lock().expect("command"));
    let playing = |kind: EffectType| {
        base.model()
            .conditions_at(Instant::now())
            .into_iter()
            .find(|(_, k, _)| *k == kind)
            .map(|(_, _, p)| {
                (
                    p.positive_coefficient,
                    p.negative_coefficient,
                    p.positive_saturation,
                )
            })
    };
    set(&|c| {
        c.play = true;
        c.conditions.spring = ConditionLevel {
            coefficient: 16384,
            saturation: 32767,
        };
    });
    std::thread::sleep(Duration::from_millis(200));
    let spring = playing(EffectType::Spring);
    set(&|c| {
        c.conditions.damper = ConditionLevel {
            coefficient: 8192,
            saturation: 16384,
        };
    });
    std::thread::sleep(Duration::from_millis(200));
    let both = (playing(EffectType::Spring), playing(EffectType::Damper));
    set(&|c| c.conditions = Default::default());
    std::thread::sleep(Duration::from_millis(200));
    let after = base.model().conditions_at(Instant::now());
    quit.store(true, Ordering::Release);
    let _ = feeder.join();
    let stats = writer.shutdown();
    let model: DeviceModel = base.model();
    r.check(
        "pid-hidraw-conditions",
        spring == Some((5000, 5000, 10000))
            && both == (Some((5000, 5000, 10000)), Some((2500, 2500, 5000)))
            && after.is_empty(),
        format!(
            "spring {spring:?} (want 5000/5000/10000); spring+damper {both:?} (damper want \
             2500/2500/5000); after zero {after:?}; writer {stats:?}; device gain {}",
            model.device_gain
        ),
    );
}

/// A base plugged in after the FFB stage started, under `backend = "auto"`: the backend is
/// chosen when the base appears, so rigd's hidraw PID writer drives it (its effects last
/// 30 ms; the evdev writer's would last `replay_ms`, 100 ms) and the force arrives. Leaves
/// the base plugged in.
pub fn test_plugged_late(r: &mut Results) {
    let name = "pid-auto-plugged-late";
    if let Err(e) = pid_gadget::detach() {
        return r.check(name, false, format!("could not unplug the base: {e}"));
    }
    std::thread::sleep(Duration::from_millis(500));
    let config = pid_checks::pid_config("");
    let link = FfbLink::new();
    let Some(stage) = super::start_ffb(&config, link.clone()) else {
        return r.check(
            name,
            false,
            "the FFB stage did not start without its device",
        );
    };
    let ticks = TickLoop::spawn(stage, None, 0.0);
    ticks.set_torque(1.1);
    std::thread::sleep(Duration::from_millis(600));
    let connected_before = link.device_connected();
    let base = match pid_gadget::attach() {
        Ok(base) => base,
        Err(e) => {
            drop(ticks.finish());
            return r.check(
                name,
                false,
                format!("could not plug the base in again: {e}"),
            );
        }
    };
    let mark = base.mark();
    let opened = wait_until(Duration::from_secs(5), || link.device_connected());
    let force = pid_checks::force_near(&base, 0.5, Duration::from_secs(4));
    drop(ticks.finish());
    let durations: Vec<u16> = base
        .events_since(mark)
        .iter()
        .filter_map(|e| match e.report {
            PidReport::SetEffect {
                effect_type: Some(EffectType::Constant),
                duration_ms,
                ..
            } => Some(duration_ms),
            _ => None,
        })
        .collect();
    r.check(
        name,
        !connected_before
            && opened
            && (force - 0.5).abs() < 0.02
            && !durations.is_empty()
            && durations.iter().all(|&d| d == 30),
        format!(
            "connected before the plug-in {connected_before}, after {opened}; force {force:+.4} \
             (want +0.5); constant-force Set Effect durations {durations:?} (want 30 ms: the \
             hidraw writer)"
        ),
    );
}
