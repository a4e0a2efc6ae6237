//! Where the input-to-force time goes on the PID base, and the harness's own floor.
//!
//! Every flip of the rim is timestamped on one clock (CLOCK_MONOTONIC in the guest) at each
//! hop: the device emulator queues the input report (`sent`), its IN write returns (the host's
//! interrupt transfer took it, `host_took`), the kernel stamps the evdev event (read on an fd
//! of our own with `EVIOCSCLOCKID` = CLOCK_MONOTONIC: evdev stamps every client from the same
//! packet time), the tick that first sees the new steering sign (rigd only), the FFB writer's
//! level write starts and returns (`FfbLink::recent_level_writes`), the emulator reads the
//! SET_REPORT's SETUP packet and then its data stage (the arrival the latency checks use).
//! `RIGD-VMRIG-LATENCY-SPLIT` lines give p50/p99/max of each hop.
//!
//! The floor (`pid-floor-evdev-latency`, `pid-floor-hidraw-latency`): the same flips echoed
//! without rigd's threads, stage or tick: one thread blocks on the evdev node and, on each rim
//! event, writes the force at once through the same kernel path (an in-place `EVIOCSFF` that
//! hid-pidff turns into Set Constant Force; or that report written to hidraw, encoded by
//! rigd's PID layout for the block it created). What is left is the emulated USB host
//! (dummy_hcd), the HID drivers, the emulator's own threads and TCG.

use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, UNIX_EPOCH};

use evdev::{AbsoluteAxisCode, EventSummary};
use rigd::ffb::hidraw_pid::{self, HidrawPidSettings, Session};
use rigd::ffb::write_times::LevelWrite;
use rigd::ffb::FfbCommand;
use rigd::rt::clock::now_ns;

use super::pid_gadget::PidBase;
use super::pid_model::PidReport;
use super::{report_latency, Results};

/// `EVIOCSCLOCKID`: `_IOW('E', 0xa0, int)`.
const EVIOCSCLOCKID: libc::c_ulong = 0x4004_45a0;
/// Rim position of a flip: left of centre steers positive and pulls with a positive force.
const FLIP_X: i16 = 8192;

/// CLOCK_MONOTONIC ns of an `Instant` (Rust's `Instant` is CLOCK_MONOTONIC on Linux).
pub fn instant_ns(at: Instant) -> u64 {
    let (now, now_i) = (now_ns(), Instant::now());
    match now_i.checked_duration_since(at) {
        Some(ago) => now.saturating_sub(ago.as_nanos() as u64),
        None => now + at.duration_since(now_i).as_nanos() as u64,
    }
}

/// Opens `node` for reading with CLOCK_MONOTONIC event times.
fn open_monotonic(node: &Path) -> Option<evdev::Device> {
    let device = evdev::Device::open(node).ok()?;
    let clock: libc::c_int = libc::CLOCK_MONOTONIC;
    // SAFETY: EVIOCSCLOCKID reads one int from the pointer, valid for the call.
    let rc = unsafe { libc::ioctl(device.as_raw_fd(), EVIOCSCLOCKID, &clock) };
    (rc == 0).then_some(device)
}

fn event_ns(event: &evdev::InputEvent) -> u64 {
    event
        .timestamp()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The base's rim events as the kernel stamped them, from a reader thread of our own.
pub struct EvdevStamps {
    events: Arc<Mutex<Vec<(u64, i32)>>>,
    quit: Arc<AtomicBool>,
}

impl EvdevStamps {
    pub fn start(base: &PidBase) -> Option<EvdevStamps> {
        let mut device = open_monotonic(&base.evdev)?;
        let events = Arc::new(Mutex::new(Vec::new()));
        let quit = Arc::new(AtomicBool::new(false));
        let (log, stop) = (events.clone(), quit.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Acquire) {
                let Ok(batch) = device.fetch_events() else {
                    return;
                };
                for event in batch {
                    if let EventSummary::AbsoluteAxis(_, AbsoluteAxisCode::ABS_X, value) =
                        event.destructure()
                    {
                        log.lock().unwrap().push((event_ns(&event), value));
                    }
                }
            }
        });
        Some(EvdevStamps { events, quit })
    }

    /// Kernel time of the first rim event at or after `from_ns` on the side of `x`.
    fn first(&self, from_ns: u64, x: i16) -> Option<u64> {
        let events = self.events.lock().unwrap();
        events
            .iter()
            .find(|(at, value)| *at >= from_ns && value.signum() == i32::from(x.signum()))
            .map(|(at, _)| *at)
    }
}

impl Drop for EvdevStamps {
    fn drop(&mut self) {
        // The reader leaves at its next event (the next check's input report).
        self.quit.store(true, Ordering::Release);
    }
}

/// One flip's hop times, CLOCK_MONOTONIC ns.
#[derive(Debug, Default, Clone, Copy)]
pub struct Flip {
    pub sent: u64,
    pub host_took: Option<u64>,
    pub evdev: Option<u64>,
    pub tick: Option<u64>,
    pub write: Option<(u64, u64)>,
    pub setup: Option<u64>,
    pub arrival: Option<u64>,
}

/// The first level write starting at or after `from_ns` that pulls the way `x` steers.
pub fn first_write(writes: &[LevelWrite], from_ns: u64, x: i16) -> Option<(u64, u64)> {
    writes
        .iter()
        .find(|w| w.started_ns >= from_ns && i32::from(w.level) * i32::from(-x.signum()) > 3000)
        .map(|w| (w.started_ns, w.returned_ns))
}

/// Drives rim flips for `span` (every ~20 ms, as the latency checks do) and fills each one's
/// hops; `hops` adds the tick and the write for the flip to `x` sent at `sent_ns`.
pub fn run_flips(
    base: &PidBase,
    stamps: &EvdevStamps,
    span: Duration,
    mut hops: impl FnMut(&mut Flip, i16),
) -> (Vec<Flip>, usize) {
    base.send_input(FLIP_X, 0);
    std::thread::sleep(Duration::from_millis(300));
    let mut flips = Vec::new();
    let mut reports = 0usize;
    let mut left = false;
    let end = Instant::now() + span;
    while Instant::now() < end {
        left = !left;
        let x = if left { -FLIP_X } else { FLIP_X };
        let mark = base.mark();
        let sent = base.send_input(x, 0);
        let hit = base.wait_for(mark, Duration::from_millis(200), |e| {
            matches!(e.report, PidReport::SetConstantForce { magnitude, .. }
                if (magnitude > 1000 && left) || (magnitude < -1000 && !left))
        });
        reports += base.mark() - mark;
        // The hops are read after the pause: a hidraw write returns (and is recorded) only
        // after the device has the report, so at the hit it may not be recorded yet.
        std::thread::sleep(Duration::from_millis(20));
        if let Some(e) = hit {
            let sent = instant_ns(sent);
            let mut flip = Flip {
                sent,
                host_took: base
                    .last_input_write()
                    .map(|(_, done)| instant_ns(done))
                    .filter(|done| *done >= sent),
                evdev: stamps.first(sent, x),
                setup: Some(instant_ns(e.requested)),
                arrival: Some(instant_ns(e.at)),
                ..Flip::default()
            };
            hops(&mut flip, x);
            flips.push(flip);
        }
    }
    (flips, reports)
}

/// Prints p50/p99/max of every hop of `flips` for `path`, and returns the totals (ms).
pub fn report_split(path: &str, flips: &[Flip]) -> Vec<f64> {
    let ms = |a: u64, b: u64| b.saturating_sub(a) as f64 / 1e6;
    type Hop = fn(&Flip) -> Option<(u64, u64)>;
    let hops: [(&str, Hop); 8] = [
        ("queued_to_host_took", |f| f.host_took.map(|t| (f.sent, t))),
        ("queued_to_evdev", |f| f.evdev.map(|t| (f.sent, t))),
        ("evdev_to_tick", |f| f.evdev.zip(f.tick)),
        ("to_write_start", |f| {
            f.tick.or(f.evdev).zip(f.write.map(|w| w.0))
        }),
        ("write_call", |f| f.write),
        ("write_start_to_setup", |f| {
            f.write.map(|w| w.0).zip(f.setup)
        }),
        ("setup_to_data", |f| f.setup.zip(f.arrival)),
        ("total", |f| f.arrival.map(|t| (f.sent, t))),
    ];
    let mut totals = Vec::new();
    for (name, hop) in hops {
        let mut samples: Vec<f64> = flips
            .iter()
            .filter_map(hop)
            .map(|(a, b)| ms(a, b))
            .collect();
        if samples.is_empty() {
            continue;
        }
        samples.sort_by(f64::total_cmp);
        let pct = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
        println!(
            "RIGD-VMRIG-LATENCY-SPLIT path={path} hop={name} n={} p50_ms={:.3} p99_ms={:.3} max_ms={:.3}",
            samples.len(),
            pct(0.5),
            pct(0.99),
            pct(1.0)
        );
        if name == "total" {
            totals = samples;
        }
    }
    totals
}

/// The floor of both kernel paths: an echo with no rigd thread in between.
pub fn test_floor(r: &mut Results, base: &PidBase) {
    floor_evdev(r, base);
    floor_hidraw(r, base);
}

/// The level an echo writes for a rim at `x`.
fn echo_level(x: i32) -> i16 {
    if x < 0 {
        16384
    } else {
        -16384
    }
}

/// Runs `write` (level -> (started, returned) ns) on every rim event of a thread of its own
/// reading `base`'s evdev node, during the flips; returns the flips with the echo's writes.
fn echo_flips(
    base: &PidBase,
    stamps: &EvdevStamps,
    mut write: impl FnMut(i16) -> Option<(u64, u64)> + Send + 'static,
) -> Option<(Vec<Flip>, usize)> {
    let mut device = open_monotonic(&base.evdev)?;
    let writes = Arc::new(Mutex::new(Vec::<LevelWrite>::new()));
    let quit = Arc::new(AtomicBool::new(false));
    let (log, stop) = (writes.clone(), quit.clone());
    let echo = std::thread::spawn(move || {
        while !stop.load(Ordering::Acquire) {
            let Ok(batch) = device.fetch_events() else {
                return;
            };
            let last_x = batch
                .filter_map(|e| match e.destructure() {
                    EventSummary::AbsoluteAxis(_, AbsoluteAxisCode::ABS_X, value) => Some(value),
                    _ => None,
                })
                .last();
            if let Some(x) = last_x {
                let level = echo_level(x);
                if let Some((started_ns, returned_ns)) = write(level) {
                    log.lock().unwrap().push(LevelWrite {
                        level,
                        started_ns,
                        returned_ns,
                    });
                }
            }
        }
    });
    let result = run_flips(base, stamps, Duration::from_secs(10), |flip, x| {
        flip.write = first_write(&writes.lock().unwrap(), flip.sent, x);
    });
    quit.store(true, Ordering::Release);
    base.send_input(0, 0);
    let _ = echo.join();
    Some(result)
}

fn floor_evdev(r: &mut Results, base: &PidBase) {
    let name = "pid-floor-evdev-latency";
    let Some(stamps) = EvdevStamps::start(base) else {
        return r.check(name, false, "cannot read the base's evdev node");
    };
    let Some(mut device) = evdev::Device::open(&base.evdev).ok() else {
        return r.check(name, false, "cannot open the base's evdev node");
    };
    let data = |level| evdev::FFEffectData {
        direction: 0x4000,
        trigger: evdev::FFTrigger::default(),
        replay: evdev::FFReplay {
            length: 0,
            delay: 0,
        },
        kind: evdev::FFEffectKind::Constant {
            level,
            envelope: evdev::FFEnvelope {
                attack_length: 0,
                attack_level: 0,
                fade_length: 0,
                fade_level: 0,
            },
        },
    };
    let Ok(mut effect) = device.upload_ff_effect(data(0)) else {
        return r.check(name, false, "EVIOCSFF upload failed");
    };
    if effect.play(1).is_err() {
        return r.check(name, false, "cannot play the effect");
    }
    let shared = Arc::new(Mutex::new(effect));
    let writer = shared.clone();
    let flips = echo_flips(base, &stamps, move |level| {
        let started = now_ns();
        writer.lock().unwrap().update(data(level)).ok()?;
        Some((started, now_ns()))
    });
    drop(shared);
    drop(device);
    let Some((flips, reports)) = flips else {
        return r.check(name, false, "cannot open the echo's evdev reader");
    };
    let totals = report_split("floor-evdev", &flips);
    report_latency(
        r,
        name,
        "RIGD-VMRIG-LATENCY-FLOOR path=evdev",
        &totals,
        reports,
    );
}

fn floor_hidraw(r: &mut Results, base: &PidBase) {
    let name = "pid-floor-hidraw-latency";
    let Some(node) = base.hidraw.clone() else {
        return r.check(name, false, "the base has no hidraw node");
    };
    let Some(stamps) = EvdevStamps::start(base) else {
        return r.check(name, false, "cannot read the base's evdev node");
    };
    let session = hidraw_pid::open(&node)
        .and_then(|(device, layout)| {
            Session::start(device, layout, &node, HidrawPidSettings::default())
        })
        .map(|s| Arc::new(Mutex::new(s)));
    let session = match session {
        Ok(s) => s,
        Err(e) => return r.check(name, false, format!("{e}")),
    };
    let writer = session.clone();
    let flips = echo_flips(base, &stamps, move |level| {
        let mut session = writer.lock().unwrap();
        let command = FfbCommand {
            level,
            play: true,
            ..FfbCommand::default()
        };
        session.apply(&command, Instant::now()).ok()?;
        session
            .take_level_write()
            .map(|w| (w.started_ns, w.returned_ns))
    });
    if let Ok(session) = Arc::try_unwrap(session) {
        let _ = session.into_inner().map(Session::close);
    }
    let Some((flips, reports)) = flips else {
        return r.check(name, false, "cannot open the echo's evdev reader");
    };
    let totals = report_split("floor-hidraw", &flips);
    report_latency(
        r,
        name,
        "RIGD-VMRIG-LATENCY-FLOOR path=hidraw",
        &totals,
        reports,
    );
}
