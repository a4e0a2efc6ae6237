//! `rigd motion test` (the rig check) with the real binary against a six-actuator Stewart
//! platform on a pty (the knaufinator text protocol: 12-bit decimal, `a,b,c,d,e,fX`): the
//! frames raise from park, then the pose they encode (forward kinematics of the actuator
//! values) moves along one axis at a time, surge, sway, heave, roll, pitch, yaw, each to
//! the positive side first then the negative, as the printed lines say; every frame stays
//! inside the usable travel and the speed limit, and the jog ends parked. SIGINT mid-jog
//! parks at the actuator limits before the process exits.

mod motion_pty;
mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use motion_pty::Pty;
use rigd::motion::kinematics::{Actuators, Platform, Pose, StewartGeometry};
use support::*;

const HALF_TRAVEL_M: f64 = 0.075;
const MAX_SPEED_MPS: f64 = 0.25;
const RATE_HZ: f64 = 100.0;
/// The usable share of the half travel (the default 5 % margin).
const USABLE: f64 = 0.95;

fn config(port: &std::path::Path) -> String {
    format!(
        r#"{TEST_CONFIG}
[[motion.platforms]]
name = "hexapod"

[motion.platforms.geometry]
layout = "stewart_linear"
base_radius_m = 0.55
platform_radius_m = 0.35
base_pair_angle_deg = 20.0
platform_pair_angle_deg = 20.0
home_height_m = 0.60

[motion.platforms.actuators]
stroke_mm = 150.0
max_speed_mm_per_s = 250.0
max_accel_mm_per_s2 = 2500.0
park_position = -1.0

[[motion.platforms.outputs]]
preset = "knaufinator_text"
serial_port = "{}"
rate_hz = {RATE_HZ}
post_open_delay_ms = 0
"#,
        port.display()
    )
}

fn platform() -> Platform {
    Platform::StewartLinear(StewartGeometry::paired(0.55, 0.35, 20.0, 20.0, 0.60))
}

/// Frames `a,b,c,d,e,fX` in `bytes`, as actuator positions in units of the half travel.
fn frames(bytes: &[u8]) -> Vec<[f64; 6]> {
    String::from_utf8_lossy(bytes)
        .split('X')
        .filter_map(|frame| {
            let values: Vec<f64> = frame
                .split(',')
                .map(|v| v.trim().parse::<f64>().ok())
                .collect::<Option<_>>()?;
            let values: [f64; 6] = values.try_into().ok()?;
            // SimTools 12-bit scaling: centre 2047, +1 at 4095, -1 at 0.
            Some(values.map(|c| {
                if c > 2047.0 {
                    (c - 2047.0) / 2048.0
                } else {
                    (c - 2047.0) / 2047.0
                }
            }))
        })
        .collect()
}

/// The pose whose actuators are `fractions` of the half travel.
fn pose_of(fractions: &[f64; 6], guess: Pose) -> Pose {
    let actuators = Actuators {
        values: fractions.map(|f| f * HALF_TRAVEL_M),
        count: 6,
    };
    platform()
        .forward(&actuators, guess)
        .expect("forward kinematics")
        .0
}

struct Jog {
    child: KillOnDrop,
    lines: mpsc::Receiver<(Instant, String)>,
    _dir: TempDir,
}

fn start(name: &str, pty: &Pty, move_seconds: &str) -> Jog {
    let dir = TempDir::new(name);
    let path = dir.file("rigd.toml", &config(&pty.slave_path));
    let mut child = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_rigd"))
            .args([
                "--config",
                path.to_str().unwrap(),
                "motion",
                "test",
                "--move-seconds",
                move_seconds,
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    let stdout = child.stdout.take().unwrap();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if send.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    Jog {
        child,
        lines,
        _dir: dir,
    }
}

/// Reads the pty until the process exits (or `timeout`); the bytes and the exit status.
fn read_to_exit(
    jog: &mut Jog,
    pty: &Pty,
    timeout: Duration,
) -> (Vec<u8>, std::process::ExitStatus) {
    let deadline = Instant::now() + timeout;
    let mut bytes = Vec::new();
    loop {
        bytes.extend(pty.read_for(Duration::from_millis(50)));
        if let Some(status) = jog.child.try_wait().unwrap() {
            bytes.extend(pty.read_for(Duration::from_millis(100)));
            return (bytes, status);
        }
        if Instant::now() > deadline {
            let _ = jog.child.kill();
            panic!(
                "rigd motion test did not end: {}",
                stderr_of(&mut jog.child)
            );
        }
    }
}

fn assert_within_limits(frames: &[[f64; 6]]) {
    // v_max per frame, in half travels, plus the 12-bit rounding.
    let max_step = MAX_SPEED_MPS / RATE_HZ / HALF_TRAVEL_M + 2.0 / 2047.0;
    for (n, w) in frames.windows(2).enumerate() {
        for (k, (after, before)) in w[1].iter().zip(&w[0]).enumerate() {
            let step = (after - before).abs();
            assert!(
                step <= max_step,
                "frame {n} actuator {k} stepped {step} (limit {max_step})"
            );
        }
    }
    for f in frames {
        assert!(
            f.iter().all(|v| v.abs() <= USABLE + 1e-3),
            "{f:?} outside the usable travel"
        );
    }
}

#[test]
fn the_jog_moves_one_axis_at_a_time_in_order_and_ends_parked() {
    let pty = Pty::open();
    let mut jog = start("motion-test-jog", &pty, "0.6");
    let (bytes, status) = read_to_exit(&mut jog, &pty, Duration::from_secs(90));
    assert!(status.success(), "{}", stderr_of(&mut jog.child));
    let frames = frames(&bytes);
    assert!(frames.len() > 1_000, "{} frames", frames.len());
    assert_within_limits(&frames);
    assert!(
        frames[0].iter().all(|v| (v + USABLE).abs() < 0.05),
        "starts parked: {:?}",
        frames[0]
    );
    assert!(
        frames
            .last()
            .unwrap()
            .iter()
            .all(|v| (v + USABLE).abs() < 1e-3),
        "ends parked"
    );

    // The pose of every frame between the raise and the park (the first and the last frame
    // at neutral): one component at a time moves.
    let at_neutral = |f: &[f64; 6]| f.iter().all(|v| v.abs() < 0.002);
    let first = frames.iter().position(at_neutral).expect("reaches neutral");
    let last = frames.iter().rposition(at_neutral).unwrap();
    let mut guess = Pose::NEUTRAL;
    let mut order: Vec<(usize, f64)> = Vec::new();
    let thresholds = [0.01, 0.01, 0.01, 0.02, 0.02, 0.02];
    for f in &frames[first..=last] {
        let pose = pose_of(f, guess);
        guess = pose;
        let p = pose.to_array();
        let moving: Vec<usize> = (0..6).filter(|&k| p[k].abs() > thresholds[k]).collect();
        assert!(moving.len() <= 1, "more than one axis moves at once: {p:?}");
        if let Some(&axis) = moving.first() {
            let sign = p[axis].signum();
            if order.last() != Some(&(axis, sign)) {
                order.push((axis, sign));
            }
        }
    }
    let expected: Vec<(usize, f64)> = (0..6)
        .flat_map(|axis| [(axis, 1.0), (axis, -1.0)])
        .collect();
    assert_eq!(order, expected, "axis and direction order");

    let printed: Vec<String> = jog.lines.try_iter().map(|(_, l)| l).collect();
    let moves: Vec<&String> = printed
        .iter()
        .filter(|l| l.contains(" +: ") || l.contains(" -: "))
        .collect();
    assert_eq!(moves.len(), 12, "{printed:#?}");
    assert!(
        moves[0].starts_with("hexapod: surge +: forward"),
        "{printed:#?}"
    );
    assert!(
        moves[7].starts_with("hexapod: roll -: right side up"),
        "{printed:#?}"
    );
    assert_eq!(printed.last().unwrap(), "hexapod: parked");
}

#[test]
fn sigint_mid_jog_parks_before_exit() {
    let pty = Pty::open();
    let mut jog = start("motion-test-sigint", &pty, "1.0");
    // Wait for the sway moves, then Ctrl-C.
    let mut bytes = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        bytes.extend(pty.read_for(Duration::from_millis(20)));
        if jog.lines.try_iter().any(|(_, l)| l.contains("sway +")) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no sway move: {}",
            stderr_of(&mut jog.child)
        );
    }
    bytes.extend(pty.read_for(Duration::from_millis(500)));
    signal(&jog.child, libc::SIGINT);
    let interrupted_at = bytes.len();
    let (tail, status) = read_to_exit(&mut jog, &pty, Duration::from_secs(20));
    bytes.extend(tail);
    assert!(status.success(), "{}", stderr_of(&mut jog.child));
    let all = frames(&bytes);
    let before = frames(&bytes[..interrupted_at]);
    assert!(
        before
            .last()
            .unwrap()
            .iter()
            .any(|v| v.abs() > 0.05 && *v > -0.7),
        "the platform was mid-jog: {:?}",
        before.last()
    );
    assert_within_limits(&all);
    assert!(
        all.last()
            .unwrap()
            .iter()
            .all(|v| (v + USABLE).abs() < 1e-3),
        "parked: {:?}",
        all.last()
    );
    let printed: Vec<String> = jog.lines.try_iter().map(|(_, l)| l).collect();
    assert!(
        printed.iter().any(|l| l == "hexapod: stopped, parked"),
        "{printed:#?}"
    );
    assert!(
        !printed.iter().any(|l| l.contains("heave")),
        "stopped before heave: {printed:#?}"
    );
}
