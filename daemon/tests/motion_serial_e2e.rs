//! End to end over a pty pair with the real serialport crate: `rigd run` drives an SMC3
//! preset (2-DOF crank seat) from its running simulation. The test reads the frames from the
//! pty master and checks their format, rate and limits (no step larger than v_max x dt), that
//! SIGTERM parks the rig at its rate limits before the process exits, and that a write error
//! (master closed) on the serial output leaves the platform's UDP copy streaming while the
//! serial output parks on its own and rejoins the live motion when the port comes back.

mod motion_pty;
mod smc3_wire;
mod support;

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use motion_pty::Pty;
use smc3_wire::{counts, smc3_frames};
use support::*;

/// Crank travel either side of horizontal, degrees (the value that maps to -1 / +1).
const RANGE_DEG: f64 = 60.0;
const MAX_SPEED_DEG_PER_S: f64 = 120.0;
const RATE_HZ: f64 = 100.0;
const PARK_POSITION: f64 = -0.8;

/// The rig's config: the SMC3 on `port`, plus the same frames over UDP to `udp_port`.
fn config(port: &std::path::Path, udp_port: Option<u16>) -> String {
    let udp = udp_port.map_or(String::new(), |udp_port| {
        format!(
            r#"
[[motion.platforms.outputs]]
preset = "smc3"
udp_target = "127.0.0.1:{udp_port}"
rate_hz = {RATE_HZ}
post_open_delay_ms = 0
"#
        )
    });
    format!(
        r#"{TEST_CONFIG}
[[motion.platforms]]
name = "seat"

[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25]]
crank_radius_m = 0.10

[motion.platforms.actuators]
range_deg = {RANGE_DEG}
max_speed_deg_per_s = {MAX_SPEED_DEG_PER_S}
max_accel_deg_per_s2 = 1200.0
park_position = {PARK_POSITION}

[[motion.platforms.outputs]]
preset = "smc3"
serial_port = "{}"
rate_hz = {RATE_HZ}
post_open_delay_ms = 100
{udp}"#,
        port.display()
    )
}

/// Largest count change allowed between two frames: v_max x dt in counts, plus rounding.
fn max_step_counts() -> u16 {
    let per_frame = MAX_SPEED_DEG_PER_S / RATE_HZ / RANGE_DEG * 512.0;
    per_frame.ceil() as u16 + 1
}

fn assert_frames_within_limits(frames: &[[u16; 3]], what: &str) {
    let usable_lo = counts(-0.95) - 1;
    let usable_hi = counts(0.95) + 1;
    for (n, w) in frames.windows(2).enumerate() {
        for axis in 0..2 {
            let step = w[1][axis].abs_diff(w[0][axis]);
            assert!(
                step <= max_step_counts(),
                "{what}: frame {n} axis {axis} stepped {step} counts ({:?} -> {:?}), limit {}",
                w[0],
                w[1],
                max_step_counts()
            );
        }
    }
    for f in frames {
        assert!(
            f[0] >= usable_lo && f[0] <= usable_hi && f[1] >= usable_lo && f[1] <= usable_hi,
            "{what}: {f:?} outside the usable travel"
        );
        assert_eq!(f[2], 511, "{what}: the unused third motor stays at centre");
    }
}

struct Rig {
    _dir: TempDir,
    link: std::path::PathBuf,
    child: KillOnDrop,
}

fn start(name: &str, pty: &Pty, udp_port: Option<u16>) -> Rig {
    let dir = TempDir::new(name);
    // The config names a stable link, as /dev/serial/by-id does; the test can re-point it.
    let link = dir.0.join("ttyMOTION");
    std::os::unix::fs::symlink(&pty.slave_path, &link).unwrap();
    let path = dir.file("rigd.toml", &config(&link, udp_port));
    let notify = NotifySocket::bind(&dir.0);
    let child = spawn_rigd(&path, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(30));
    // rigd sends STATUS= every second; a full datagram queue would block its main loop.
    std::thread::spawn(move || loop {
        notify.recv(Duration::from_secs(1));
    });
    Rig {
        _dir: dir,
        link,
        child,
    }
}

/// Reads frames until `done` says so, or panics after `timeout`.
fn read_until(pty: &Pty, timeout: Duration, done: impl Fn(&[[u16; 3]]) -> bool) -> Vec<[u16; 3]> {
    let start = Instant::now();
    let mut bytes = Vec::new();
    loop {
        bytes.extend(pty.read_for(Duration::from_millis(100)));
        let frames = smc3_frames(&bytes);
        if done(&frames) {
            return frames;
        }
        assert!(
            start.elapsed() < timeout,
            "timed out after {} frames; last {:?}",
            frames.len(),
            frames.last()
        );
    }
}

/// The park position inside rigd's usable travel: the SMC3 firmware's window (100 of
/// 0..1023 is -411/511) less the 5 % margin.
fn park() -> u16 {
    counts(PARK_POSITION.max(-411.0 / 511.0 * 0.95))
}

/// True once the rig left park, came to the middle of its travel and has been moving (Active).
fn raised(frames: &[[u16; 3]]) -> bool {
    let near_neutral = frames
        .iter()
        .position(|f| f[0].abs_diff(511) <= 3 && f[1].abs_diff(511) <= 3);
    near_neutral.is_some_and(|i| frames.len() > i + 150)
}

#[test]
fn smc3_runs_from_the_simulation_and_parks_on_sigterm() {
    let pty = Pty::open();
    let mut rig = start("motion-sigterm", &pty, None);

    let frames = read_until(&pty, Duration::from_secs(30), raised);
    // Opening the port resets the SMC3, which boots with every target at 512: the first frame
    // ramps from there (issue 24: no jump from an assumed park position).
    for axis in 0..2 {
        assert!(
            frames[0][axis].abs_diff(512) <= max_step_counts(),
            "starts from the board's boot position: {:?}",
            frames[0]
        );
    }
    assert_frames_within_limits(&frames, "raise and run");

    // Rate: count frames over two seconds of running. First drain what waited in the pty
    // while the test thread was not reading (a busy machine deschedules it): those frames
    // were written before the window and would count as a burst inside it.
    pty.read_for(Duration::from_millis(20));
    let window = Duration::from_secs(2);
    let t0 = Instant::now();
    let bytes = pty.read_for(window);
    let elapsed = t0.elapsed().as_secs_f64();
    let running = smc3_frames(&bytes);
    let rate = running.len() as f64 / elapsed;
    assert!(
        (RATE_HZ * 0.7..=RATE_HZ * 1.15).contains(&rate),
        "{rate:.1} frames/s, configured {RATE_HZ}"
    );
    assert_frames_within_limits(&running, "running");
    assert_eq!(bytes.len() % 15, 0, "whole 15-byte frames only");

    let (status, tail) = terminate(&mut rig, &pty);
    let mut all = bytes.clone();
    all.extend(&tail);
    let parking = smc3_frames(&all);
    assert_frames_within_limits(&parking, "parking");
    let last = parking.last().unwrap();
    assert_eq!(last[..2], [park(), park()], "parked before exit");
    assert!(status.success(), "{}", stderr_of(&mut rig.child));
}

/// SIGTERM, reading the port until the process is gone: the bytes written meanwhile.
fn terminate(rig: &mut Rig, pty: &Pty) -> (std::process::ExitStatus, Vec<u8>) {
    signal(&rig.child, libc::SIGTERM);
    let mut tail = Vec::new();
    // Generous: parking takes a second or two, a busy machine stretches it.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        tail.extend(pty.read_for(Duration::from_millis(50)));
        if let Some(status) = rig.child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = rig.child.kill();
            let _ = rig.child.wait();
            panic!(
                "rigd did not exit after SIGTERM:\n{}",
                stderr_of(&mut rig.child)
            );
        }
    };
    tail.extend(pty.read_for(Duration::from_millis(100)));
    (status, tail)
}

/// SMC3 frames with their arrival times.
type Arrivals = Arc<Mutex<Vec<(Instant, [u16; 3])>>>;

/// SMC3 frames arriving over UDP, collected by a thread.
struct UdpFrames {
    frames: Arrivals,
    stop: Arc<AtomicBool>,
    port: u16,
}

impl UdpFrames {
    fn listen() -> UdpFrames {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let port = socket.local_addr().unwrap().port();
        let frames = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (sink, done) = (frames.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 64];
            while !done.load(Ordering::SeqCst) {
                if let Ok(n) = socket.recv(&mut buf) {
                    for frame in smc3_frames(&buf[..n]) {
                        sink.lock().unwrap().push((Instant::now(), frame));
                    }
                }
            }
        });
        UdpFrames { frames, stop, port }
    }

    fn between(&self, from: Instant, to: Instant) -> Vec<[u16; 3]> {
        let frames = self.frames.lock().unwrap();
        frames
            .iter()
            .filter(|(t, _)| *t >= from && *t <= to)
            .map(|(_, f)| *f)
            .collect()
    }

    /// True when the last 50 serial `frames` are 50 consecutive frames of the UDP copy: the
    /// serial output passes the platform's live commands through again.
    fn joined(&self, frames: &[[u16; 3]]) -> bool {
        let Some(tail) = frames.len().checked_sub(50).map(|start| &frames[start..]) else {
            return false;
        };
        // The platform is moving (not resting at park or neutral, where any two streams
        // would match).
        let moving = tail.windows(2).any(|w| w[0] != w[1]);
        moving && self.all().windows(tail.len()).any(|w| w == tail)
    }

    fn all(&self) -> Vec<[u16; 3]> {
        self.frames
            .lock()
            .unwrap()
            .iter()
            .map(|(_, f)| *f)
            .collect()
    }
}

impl Drop for UdpFrames {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

#[test]
fn write_error_parks_the_serial_output_while_its_udp_copy_keeps_streaming() {
    let udp = UdpFrames::listen();
    let pty = Pty::open();
    let mut rig = start("motion-write-error", &pty, Some(udp.port));
    // The platform may rise on the UDP link before the serial port's post-open delay is
    // over; the serial output then joins the live motion on its own ramp.
    let before = read_until(&pty, Duration::from_secs(30), |frames| udp.joined(frames));
    assert_frames_within_limits(&before, "serial start and join");

    // Pull the cable: the daemon's writes to the serial port fail, and reopening fails
    // while it is unplugged.
    drop(pty);
    let unplugged = Instant::now();
    std::thread::sleep(Duration::from_millis(2000));

    // The UDP output of the same platform kept streaming the live motion all along: at its
    // rate, within the limits, never sent to park.
    let during = udp.between(
        unplugged + Duration::from_millis(300),
        unplugged + Duration::from_millis(1900),
    );
    let rate = during.len() as f64 / 1.6;
    assert!(
        (RATE_HZ * 0.7..=RATE_HZ * 1.15).contains(&rate),
        "UDP output while the serial port is down: {rate:.1} frames/s, configured {RATE_HZ}"
    );
    assert_frames_within_limits(&during, "UDP while the serial port is down");
    assert!(
        during.iter().all(|f| f[0] != park() || f[1] != park()),
        "the UDP copy must not park because the serial port failed"
    );

    // Plug it back in (a new device behind the same stable link).
    let pty = Pty::open();
    let fresh = rig.link.with_extension("new");
    std::os::unix::fs::symlink(&pty.slave_path, &fresh).unwrap();
    std::fs::rename(&fresh, &rig.link).unwrap();

    // The serial output ramps from where the controller was to park, then joins the live
    // motion: from then on its frames are the UDP output's frames.
    let after = read_until(&pty, Duration::from_secs(30), |frames| {
        let parked_at = frames.iter().position(|f| f[0] == park() && f[1] == park());
        parked_at.is_some_and(|p| udp.joined(&frames[p..]))
    });
    assert_frames_within_limits(&after, "serial recovery");
    let first = after[0];
    assert!(
        first[0] != park() || first[1] != park(),
        "the serial output resumed from where the board is (an SMC3 resets on open: centre), not from park: {first:?}"
    );

    let (status, serial_tail) = terminate(&mut rig, &pty);
    let parked = smc3_frames(&serial_tail);
    assert_eq!(parked.last().map(|f| [f[0], f[1]]), Some([park(), park()]));
    std::thread::sleep(Duration::from_millis(100));
    let udp_last = udp.all().last().copied().unwrap();
    assert_eq!(
        [udp_last[0], udp_last[1]],
        [park(), park()],
        "UDP parked too"
    );
    assert!(status.success(), "{}", stderr_of(&mut rig.child));
}
