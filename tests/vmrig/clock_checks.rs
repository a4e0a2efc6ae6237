//! The wall clock jumping under a running rigd (`clock-jump`): the guest is root on its own
//! kernel, so it can set CLOCK_REALTIME (what `date -s` does) without touching the host. The
//! real daemon (`vmrig_guest rigd run`) drives the robot car at 1 kHz, sends native telemetry
//! at 100 Hz to a listener here and motion frames at 100 Hz to a platform on a pty (devpts
//! mounted by this check), and reports `STATUS=` to a notify socket. The clock jumps one hour
//! forwards, then two hours backwards, 3 s apart; after each jump the check compares the next
//! 3 s with the 3 s before the first one (the quiet window). Under TCG on a busy host the
//! loop runs late, drops time and changes speed from one window to the next (325 to 1000 Hz
//! seen), so the bounds are relative to the quiet window or wide; a loop, timeout or clock
//! read on the wall clock would drop an hour forwards, or stall for one backwards, far
//! outside them:
//! - the loop: `dropped` time grows by at most 2x the quiet window's growth plus 0.5 s, and
//!   `late >1 ms` by at most 3x plus 20;
//! - telemetry: sequence numbers and simulation time keep rising, the simulation time from
//!   one packet to the next never steps more than 0.1 s (10 periods: it is counted in ticks,
//!   not read from a clock), and no gap between packets is longer than twice the quiet
//!   window's longest, or 1 s;
//! - motion: no gap between frames longer than twice the quiet window's longest, or 1 s,
//!   each frame within the platform's step limit, and the platform is not held
//!   (`hold(s): fault 0` in `STATUS=`).
//!
//! Then SIGTERM: exit 0. The clock is put back (original + elapsed) at the end.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::net::UnixDatagram;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rig_protocols::telemetry::native;

use super::Results;

const NAME: &str = "clock-jump";
const TELEMETRY_PORT: u16 = 40911;
/// Largest change between two motion frames: at 120 deg/s and 100 Hz an actuator moves 1.2 deg
/// a frame, 20 counts of the 10-bit 60-degree range; twice that for slack.
const MAX_FRAME_STEP: i64 = 40;

/// Something that happened, stamped on arrival (CLOCK_MONOTONIC: `Instant`).
type Stamped<T> = Arc<Mutex<Vec<(Instant, T)>>>;

/// A reader thread filling a [`Stamped`] until `stop`.
fn collect<T: Send + 'static>(
    stop: &Arc<AtomicBool>,
    mut read: impl FnMut() -> Option<T> + Send + 'static,
) -> Stamped<T> {
    let out: Stamped<T> = Arc::default();
    let (sink, stop) = (Arc::clone(&out), Arc::clone(stop));
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            if let Some(item) = read() {
                sink.lock().unwrap().push((Instant::now(), item));
            }
        }
    });
    out
}

/// A pty pair on a devpts mounted here: the master and the slave's path.
fn open_pty() -> Result<(std::fs::File, String), String> {
    let _ = std::fs::create_dir_all("/dev/pts");
    // SAFETY: constant C strings; mounting devpts where none is mounted yet (EBUSY otherwise).
    unsafe {
        libc::mount(
            c"devpts".as_ptr(),
            c"/dev/pts".as_ptr(),
            c"devpts".as_ptr(),
            0,
            c"ptmxmode=0666".as_ptr().cast(),
        )
    };
    // SAFETY: plain libc calls on the fd they return; ptsname_r writes into our buffer.
    unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        if fd < 0 || libc::grantpt(fd) != 0 || libc::unlockpt(fd) != 0 {
            return Err(format!("no pty: {}", std::io::Error::last_os_error()));
        }
        let mut name = [0 as libc::c_char; 64];
        if libc::ptsname_r(fd, name.as_mut_ptr(), name.len()) != 0 {
            return Err("ptsname".into());
        }
        let path = std::ffi::CStr::from_ptr(name.as_ptr())
            .to_string_lossy()
            .into_owned();
        Ok((std::fs::File::from_raw_fd(fd), path))
    }
}

fn config(pty: &str) -> String {
    format!(
        r#"
[loop]
priority = 1
lock_memory = false
pm_qos = "off"
spin_us = 0
when_nobody_drives = "robot"
fault_after_missed_ticks = 10000

[[telemetry]]
format = "native"
rate_hz = 100
destinations = ["127.0.0.1:{TELEMETRY_PORT}"]

[[motion.platforms]]
name = "seat"

[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25]]
crank_radius_m = 0.10

[motion.platforms.actuators]
range_deg = 60.0
max_speed_deg_per_s = 120.0
max_accel_deg_per_s2 = 1200.0
park_position = -0.9

[motion.platforms.cueing]
sway_gain = 3.0
surge_gain = 3.0
roll_limit_deg = 40.0
pitch_limit_deg = 40.0

[[motion.platforms.outputs]]
template = "S<Axis1a>,<Axis2a><10>"
bits = 10
format = "decimal"
rate_hz = 100.0
serial_port = "{pty}"
post_open_delay_ms = 0
"#
    )
}

fn set_realtime(to: libc::timespec) -> bool {
    // SAFETY: a valid timespec; the guest runs as root.
    unsafe { libc::clock_settime(libc::CLOCK_REALTIME, &to) == 0 }
}

fn realtime_now() -> libc::timespec {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: writes into `now`.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut now) };
    now
}

fn shifted(from: libc::timespec, by_s: i64) -> libc::timespec {
    libc::timespec {
        tv_sec: from.tv_sec + by_s,
        tv_nsec: from.tv_nsec,
    }
}

/// The number after `label` in a `STATUS=` text.
fn number_after(text: &str, label: &str) -> Option<f64> {
    let rest = &text[text.find(label)? + label.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    digits.parse().ok()
}

/// The figures of one window `[from, to)`.
#[derive(Debug, Default)]
struct Window {
    packets: usize,
    sim_advance_s: f64,
    ordered: bool,
    largest_sim_step_s: f64,
    longest_packet_gap_ms: u128,
    late: f64,
    dropped_ms: f64,
    frames: usize,
    longest_frame_gap_ms: u128,
    largest_step: i64,
}

/// Frame values as the template writes them: `S<a>,<b>\n`.
fn parse_frames(bytes: &[u8]) -> Vec<[i64; 2]> {
    String::from_utf8_lossy(bytes)
        .split('\n')
        .filter_map(|line| {
            let (a, b) = line.strip_prefix('S')?.split_once(',')?;
            Some([a.trim().parse().ok()?, b.trim().parse().ok()?])
        })
        .collect()
}

fn window(
    from: Instant,
    to: Instant,
    packets: &[(Instant, (u32, f64))],
    statuses: &[(Instant, String)],
    frames: &[(Instant, [i64; 2])],
) -> Window {
    let stamped: Vec<&(Instant, (u32, f64))> = packets
        .iter()
        .filter(|(t, _)| *t >= from && *t < to)
        .collect();
    let inside: Vec<&(u32, f64)> = stamped.iter().map(|(_, p)| p).collect();
    let status_at = |at: Instant| {
        statuses
            .iter()
            .rev()
            .find(|(t, s)| *t <= at && s.contains("late >1 ms"))
            .map(|(_, s)| s.clone())
            .unwrap_or_default()
    };
    let (s0, s1) = (status_at(from), status_at(to));
    let figure = |s: &str, label: &str| number_after(s, label).unwrap_or(f64::NAN);
    let moving: Vec<&(Instant, [i64; 2])> = frames
        .iter()
        .filter(|(t, _)| *t >= from && *t < to)
        .collect();
    Window {
        packets: inside.len(),
        sim_advance_s: match (inside.first(), inside.last()) {
            (Some(a), Some(b)) => b.1 - a.1,
            _ => 0.0,
        },
        ordered: inside
            .windows(2)
            .all(|w| w[1].0 > w[0].0 && w[1].1 > w[0].1),
        largest_sim_step_s: inside
            .windows(2)
            .map(|w| w[1].1 - w[0].1)
            .fold(0.0, f64::max),
        longest_packet_gap_ms: stamped
            .windows(2)
            .map(|w| (w[1].0 - w[0].0).as_millis())
            .max()
            .unwrap_or(u128::MAX),
        late: figure(&s1, "late >1 ms") - figure(&s0, "late >1 ms"),
        dropped_ms: figure(&s1, "dropped") - figure(&s0, "dropped"),
        frames: moving.len(),
        longest_frame_gap_ms: moving
            .windows(2)
            .map(|w| (w[1].0 - w[0].0).as_millis())
            .max()
            .unwrap_or(u128::MAX),
        largest_step: moving
            .windows(2)
            .map(|w| {
                (w[1].1[0] - w[0].1[0])
                    .abs()
                    .max((w[1].1[1] - w[0].1[1]).abs())
            })
            .max()
            .unwrap_or(0),
    }
}

fn spawn_daemon(config_path: &str, notify_path: &str) -> Option<Child> {
    let log = std::fs::File::create("/tmp/clock-daemon.log").ok()?;
    Command::new(std::env::current_exe().ok()?)
        .args(["rigd", "--config", config_path, "run", "--no-display"])
        .env("NOTIFY_SOCKET", notify_path)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .ok()
}

fn log_tail() -> String {
    let text = std::fs::read_to_string("/tmp/clock-daemon.log").unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(6)..].join(" | ")
}

pub fn test_clock_jump(r: &mut Results) {
    let (mut master, slave) = match open_pty() {
        Ok(pty) => pty,
        Err(e) => return r.check(NAME, false, e),
    };
    let config_path = "/tmp/clock.toml";
    let notify_path = "/tmp/clock-notify.sock";
    let _ = std::fs::remove_file(notify_path);
    let (Ok(()), Ok(notify), Ok(listener)) = (
        std::fs::write(config_path, config(&slave)),
        UnixDatagram::bind(notify_path),
        std::net::UdpSocket::bind(("127.0.0.1", TELEMETRY_PORT)),
    ) else {
        return r.check(
            NAME,
            false,
            "cannot set up the config, notify socket or listener",
        );
    };
    let stop = Arc::new(AtomicBool::new(false));
    notify
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let statuses = collect(&stop, move || {
        let mut buf = [0u8; 4096];
        let n = notify.recv(&mut buf).ok()?;
        let text = String::from_utf8_lossy(&buf[..n]).into_owned();
        text.lines()
            .find_map(|l| l.strip_prefix("STATUS=").map(str::to_string))
    });
    listener
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let packets = collect(&stop, move || {
        let mut buf = [0u8; 2048];
        let n = listener.recv(&mut buf).ok()?;
        let frame = native::decode(&buf[..n]).ok()?.to_frame().ok()?;
        Some((frame.sequence, frame.car.time_s))
    });
    // SAFETY: a valid fd we own; nonblocking reads so the thread sees `stop`.
    unsafe { libc::fcntl(master.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
    let frames: Stamped<[i64; 2]> = Arc::default();
    {
        let (sink, stop) = (Arc::clone(&frames), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut pending = Vec::new();
            let mut buf = [0u8; 4096];
            while !stop.load(Ordering::Relaxed) {
                match master.read(&mut buf) {
                    Ok(n) if n > 0 => {
                        pending.extend_from_slice(&buf[..n]);
                        if let Some(end) = pending.iter().rposition(|&b| b == b'\n') {
                            let now = Instant::now();
                            let mut sink = sink.lock().unwrap();
                            sink.extend(
                                parse_frames(&pending[..end]).into_iter().map(|f| (now, f)),
                            );
                            pending.drain(..=end);
                        }
                    }
                    _ => std::thread::sleep(Duration::from_millis(2)),
                }
            }
        });
    }
    let Some(mut child) = spawn_daemon(config_path, notify_path) else {
        return r.check(NAME, false, "cannot start the daemon");
    };
    // Up and moving: telemetry flowing and the platform following its cues.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30)
        && (packets.lock().unwrap().len() < 200 || frames.lock().unwrap().len() < 300)
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    let wall_before = realtime_now();
    let mono_before = Instant::now();
    let quiet_from = Instant::now();
    std::thread::sleep(Duration::from_secs(3));
    let forward_at = Instant::now();
    let forwarded = set_realtime(shifted(realtime_now(), 3600));
    std::thread::sleep(Duration::from_secs(3));
    let backward_at = Instant::now();
    let backwarded = set_realtime(shifted(realtime_now(), -7200));
    std::thread::sleep(Duration::from_secs(3));
    let end = Instant::now();
    // The clock back where it would be.
    let elapsed = mono_before.elapsed();
    let restored = set_realtime(libc::timespec {
        tv_sec: wall_before.tv_sec + elapsed.as_secs() as i64,
        tv_nsec: wall_before.tv_nsec,
    });
    let final_status = statuses
        .lock()
        .unwrap()
        .last()
        .map(|(_, s)| s.clone())
        .unwrap_or_default();
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let code = child.wait().ok().and_then(|s| s.code());
    std::thread::sleep(Duration::from_millis(200));
    stop.store(true, Ordering::Relaxed);

    let (packets, statuses, frames) = (
        packets.lock().unwrap().clone(),
        statuses.lock().unwrap().clone(),
        frames.lock().unwrap().clone(),
    );
    let quiet = window(quiet_from, forward_at, &packets, &statuses, &frames);
    let jumps = [
        (
            "forwards 1 h",
            window(forward_at, backward_at, &packets, &statuses, &frames),
        ),
        (
            "backwards 2 h",
            window(backward_at, end, &packets, &statuses, &frames),
        ),
    ];
    let mut problems = Vec::new();
    if !(forwarded && backwarded && restored) {
        problems.push("clock_settime failed".to_string());
    }
    if quiet.packets < 30 || quiet.frames < 10 {
        problems.push(format!(
            "not running before the jumps: {quiet:?}; log: {}",
            log_tail()
        ));
    }
    for (what, w) in &jumps {
        let packet_gap_bound_ms = (2 * quiet.longest_packet_gap_ms).max(1000);
        if !w.ordered || w.largest_sim_step_s > 0.1 || w.longest_packet_gap_ms > packet_gap_bound_ms
        {
            problems.push(format!(
                "{what}: telemetry ordered {}, largest simulation-time step {:.3} s (bound \
                 0.1), longest gap {} ms (bound {packet_gap_bound_ms})",
                w.ordered, w.largest_sim_step_s, w.longest_packet_gap_ms
            ));
        }
        if w.dropped_ms.is_nan()
            || w.dropped_ms > 2.0 * quiet.dropped_ms + 500.0
            || w.late.is_nan()
            || w.late > 3.0 * quiet.late + 20.0
        {
            problems.push(format!(
                "{what}: dropped {:.0} ms, late {} (quiet window: {})",
                w.dropped_ms, w.late, quiet.late
            ));
        }
        let gap_bound_ms = (2 * quiet.longest_frame_gap_ms).max(1000);
        if w.longest_frame_gap_ms > gap_bound_ms || w.largest_step > MAX_FRAME_STEP {
            problems.push(format!(
                "{what}: motion {} frames (quiet {}), longest gap {} ms (bound {gap_bound_ms}), \
                 largest step {}",
                w.frames, quiet.frames, w.longest_frame_gap_ms, w.largest_step
            ));
        }
    }
    if !final_status.contains("hold(s): fault 0") && final_status.contains("hold(s): fault") {
        problems.push(format!("the platform was held: {final_status}"));
    }
    if code != Some(0) {
        problems.push(format!(
            "exit code {code:?} after SIGTERM (want 0); log: {}",
            log_tail()
        ));
    }
    r.check(
        NAME,
        problems.is_empty(),
        format!(
            "quiet 3 s: {} packets, sim +{:.2} s, late +{}, dropped +{:.0} ms, {} motion frames; \
             forwards: {:?}; backwards: {:?}; {}",
            quiet.packets,
            quiet.sim_advance_s,
            quiet.late,
            quiet.dropped_ms,
            quiet.frames,
            jumps[0].1,
            jumps[1].1,
            if problems.is_empty() {
                "ok".to_string()
            } else {
                problems.join("; ")
            }
        ),
    );
}
