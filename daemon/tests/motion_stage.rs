//! The motion RT stage driven tick by tick from the test (standing in for the RT thread):
//! stale physics fades to neutral then parks within the limits, a teleport resets the cues
//! without a jolt, a silent RT loop makes the writer park on its own, and (property test)
//! no NaN or out-of-range value is ever encoded whatever the physics produces. Position,
//! velocity and acceleration limits are checked on every sample, the end of travel and the
//! writer's own parking ramp (SIGTERM) included. Motion4Sim position frames carry the pose
//! of the commanded actuators, and a serial output (pty) that died at park rejoins from park
//! after the platform rose on its UDP output alone; a serial output nobody reads never holds
//! back the frames of the UDP output sharing its writer thread.

mod motion_pty;

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use rig_config::motion::{OutputConfig, PlatformConfig};
use rig_protocols::Frame;
use rigd::motion::kinematics::Pose;
use rigd::motion::panic_park::PanicPark;
use rigd::motion::safety::SafetyState;
use rigd::motion::stage::MotionStage;
use rigd::motion::{platform_from_config, platform_stage};
use rigd::rt::stage::{RtStage, StopReason};

const TICK_HZ: f64 = 1000.0;
const STROKE_MM: f64 = 100.0;
const SPEED_MM_PER_S: f64 = 200.0;
const ACCEL_MM_PER_S2: f64 = 2000.0;

fn platform(outputs: Vec<OutputConfig>) -> PlatformConfig {
    let text = format!(
        r#"
name = "hexapod"
[geometry]
layout = "stewart_linear"
base_radius_m = 0.55
platform_radius_m = 0.35
base_pair_angle_deg = 20.0
platform_pair_angle_deg = 20.0
home_height_m = 0.60
[actuators]
stroke_mm = {STROKE_MM}
max_speed_mm_per_s = {SPEED_MM_PER_S}
max_accel_mm_per_s2 = {ACCEL_MM_PER_S2}
[safety]
hold_before_idle_ms = 300
idle_before_park_s = 0.5
"#
    );
    let mut config: PlatformConfig = toml::from_str(&text).unwrap();
    config.outputs = outputs;
    config
}

/// A UDP copy of the six actuators at the loop rate, `bits` binary big-endian values.
fn udp_output_bits(port: u16, bits: u8) -> OutputConfig {
    toml::from_str(&format!(
        r#"
template = "<Axis1a><Axis2a><Axis3a><Axis4a><Axis5a><Axis6a>"
bits = {bits}
format = "binary"
udp_target = "127.0.0.1:{port}"
rate_hz = 1000.0
post_open_delay_ms = 0
"#
    ))
    .unwrap()
}

fn udp_output(port: u16) -> OutputConfig {
    udp_output_bits(port, 16)
}

/// A frame of a car at `time_s` and `x_m` along the track with specific force `f`.
/// One tick as the RT loop runs it: the stage's `on_tick`, then its `end_of_tick` (where the
/// motion stages wake their shared writer thread).
trait Tick {
    fn tick(&mut self, frame: &Frame);
}

impl Tick for MotionStage {
    fn tick(&mut self, frame: &Frame) {
        self.on_tick(frame);
        self.end_of_tick();
    }
}

fn frame(time_s: f64, x_m: f64, f: [f64; 3]) -> Frame {
    let mut frame = Frame::default();
    frame.car.time_s = time_s;
    frame.car.position_m = [x_m, 0.0, 0.0];
    frame.car.specific_force_body_mps2 = f;
    frame.car.velocity_body_mps = [20.0, 0.0, 0.0];
    frame
}

const REST: [f64; 3] = [0.0, 0.0, 9.80665];
const HARD_BRAKING: [f64; 3] = [-9.0, 4.0, 9.80665];

/// Steps and accelerations of the commanded positions stay inside the limits.
struct LimitCheck {
    previous: Vec<f64>,
    /// Per-tick steps of the previous check (unknown before the first one).
    previous_step: Option<Vec<f64>>,
}

impl LimitCheck {
    fn new(stage: &MotionStage) -> LimitCheck {
        LimitCheck {
            previous: stage.commanded().to_vec(),
            previous_step: None,
        }
    }

    fn check(&mut self, stage: &MotionStage, what: &str) {
        let dt = 1.0 / TICK_HZ;
        let v_max = SPEED_MM_PER_S / 1000.0;
        let a_max = ACCEL_MM_PER_S2 / 1000.0;
        let now = stage.commanded().to_vec();
        let steps: Vec<f64> = now.iter().zip(&self.previous).map(|(a, b)| a - b).collect();
        for (i, (&p, &step)) in now.iter().zip(&steps).enumerate() {
            assert!(
                step.abs() <= v_max * dt * (1.0 + 1e-9),
                "{what}: actuator {i} step {step}"
            );
            // The second difference of the positions is the commanded acceleration, on
            // every sample (the end of travel included: the tracker brakes ahead of it).
            if let Some(previous_step) = &self.previous_step {
                let accel = (step - previous_step[i]) / (dt * dt);
                assert!(
                    accel.abs() <= a_max * (1.0 + 1e-6),
                    "{what}: actuator {i} accel {accel}"
                );
            }
            assert!(p.abs() <= STROKE_MM / 2000.0, "{what}: actuator {i} at {p}");
        }
        self.previous = now;
        self.previous_step = Some(steps);
    }
}

fn run_to_active(stage: &mut MotionStage, t: &mut f64) {
    for _ in 0..20_000 {
        *t += 0.001;
        stage.tick(&frame(*t, *t * 20.0, REST));
        if stage.state() == SafetyState::Active {
            return;
        }
    }
    panic!("never became active: {:?}", stage.state());
}

#[test]
fn stale_physics_fades_to_neutral_then_parks_within_limits() {
    let mut stage = platform_stage(&platform(Vec::new()), TICK_HZ, &PanicPark::new()).unwrap();
    let mut t = 0.0;
    run_to_active(&mut stage, &mut t);
    let mut limits = LimitCheck::new(&stage);
    for _ in 0..1500 {
        t += 0.001;
        stage.tick(&frame(t, t * 20.0, HARD_BRAKING));
        limits.check(&stage, "cueing");
    }
    assert!(
        stage.commanded().iter().any(|p| p.abs() > 0.005),
        "hard braking moves the platform"
    );
    // Physics freezes (paused game): time stops advancing.
    let mut seen = Vec::new();
    for _ in 0..6000 {
        stage.tick(&frame(t, t * 20.0, HARD_BRAKING));
        limits.check(&stage, "stale");
        if seen.last() != Some(&stage.state()) {
            seen.push(stage.state());
        }
    }
    assert_eq!(
        seen,
        [
            SafetyState::Active,
            SafetyState::Holding,
            SafetyState::Idle,
            SafetyState::Parking,
            SafetyState::Parked
        ]
    );
    let park = -0.95 * STROKE_MM / 2000.0;
    for p in stage.commanded() {
        assert!((p - park).abs() < 1e-9, "parked at {p}");
    }
}

#[test]
fn teleport_resets_the_cues_without_a_jolt() {
    let mut stage = platform_stage(&platform(Vec::new()), TICK_HZ, &PanicPark::new()).unwrap();
    let mut t = 0.0;
    run_to_active(&mut stage, &mut t);
    let mut limits = LimitCheck::new(&stage);
    for _ in 0..800 {
        t += 0.001;
        stage.tick(&frame(t, t * 20.0, HARD_BRAKING));
        limits.check(&stage, "before");
    }
    let displaced = stage.commanded().iter().fold(0.0f64, |m, p| m.max(p.abs()));
    // Teleport 500 m down the road, car at rest afterwards.
    for k in 0..500 {
        t += 0.001;
        stage.tick(&frame(t, 500.0 + f64::from(k) * 1e-3, REST));
        limits.check(&stage, "first 0.5 s after the reset");
    }
    let after = stage.commanded().iter().fold(0.0f64, |m, p| m.max(p.abs()));
    assert!(
        after < displaced,
        "filters reset: heading back to neutral ({displaced} -> {after})"
    );
    assert_eq!(stage.state(), SafetyState::Active);
}

/// A frame whose cues saturate: the workspace clamp puts the target on the end of travel.
fn slam(time_s: f64, sign: f64) -> Frame {
    let mut fr = frame(time_s, time_s * 20.0, [sign * 60.0, -sign * 40.0, 9.80665]);
    fr.car.angular_velocity_body_radps = [sign * 3.0, sign * 3.0, -sign * 3.0];
    fr
}

#[test]
fn saturating_cues_drive_into_the_end_of_travel_within_every_limit() {
    let mut stage = platform_stage(&platform(Vec::new()), TICK_HZ, &PanicPark::new()).unwrap();
    let mut t = 0.0;
    run_to_active(&mut stage, &mut t);
    let mut limits = LimitCheck::new(&stage);
    let end = 0.95 * STROKE_MM / 2000.0;
    let mut deepest: f64 = 0.0;
    // Targets jump from one end of the workspace to the other every 0.7 s.
    for k in 0..6000 {
        t += 0.001;
        let sign = if (k / 700) % 2 == 0 { 1.0 } else { -1.0 };
        stage.tick(&slam(t, sign));
        limits.check(&stage, "saturating cues");
        deepest = stage
            .commanded()
            .iter()
            .fold(deepest, |m, p| m.max(p.abs()));
    }
    assert!(
        deepest > end - 1e-6,
        "some actuator reached the end of travel ({deepest} of {end})"
    );
}

/// The datagrams `socket` receives within `window`, each decoded by `decode`.
fn receive<T>(socket: &UdpSocket, window: Duration, decode: impl Fn(&[u8]) -> T) -> Vec<T> {
    socket
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let end = Instant::now() + window;
    let mut out = Vec::new();
    let mut buf = [0u8; 64];
    while Instant::now() < end {
        if let Ok(n) = socket.recv(&mut buf) {
            out.push(decode(&buf[..n]));
        }
    }
    out
}

/// Six 16-bit big-endian values ([`udp_output`]).
fn receive_frames(socket: &UdpSocket, window: Duration) -> Vec<[u16; 6]> {
    receive(socket, window, |bytes| {
        assert_eq!(bytes.len(), 12, "six 16-bit values");
        std::array::from_fn(|i| u16::from_be_bytes([bytes[2 * i], bytes[2 * i + 1]]))
    })
}

fn wait_ready(stage: &mut MotionStage, t: &mut f64) {
    let start = Instant::now();
    while stage.state() == SafetyState::Connecting {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "writer never became ready"
        );
        *t += 0.001;
        stage.tick(&frame(*t, 0.0, REST));
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// A stage with one UDP output (`output` for the port of a fresh loopback socket), raised to
/// Active at a pace its writer keeps up with; what queued up meanwhile is drained (a full
/// socket buffer would drop the newest frames). Returns the socket, the stage and the time.
fn active_stage_with_udp(output: fn(u16) -> OutputConfig) -> (UdpSocket, MotionStage, f64) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = socket.local_addr().unwrap().port();
    let mut stage =
        platform_stage(&platform(vec![output(port)]), TICK_HZ, &PanicPark::new()).unwrap();
    let mut t = 0.0;
    wait_ready(&mut stage, &mut t);
    while stage.state() != SafetyState::Active {
        t += 0.001;
        stage.tick(&frame(t, t * 20.0, REST));
        std::thread::sleep(Duration::from_micros(200));
    }
    let _ = receive(&socket, Duration::from_millis(50), |_| ());
    (socket, stage, t)
}

#[test]
fn writer_parks_on_its_own_when_the_rt_loop_goes_silent() {
    let (socket, mut stage, mut t) = active_stage_with_udp(udp_output);
    for _ in 0..300 {
        t += 0.001;
        stage.tick(&frame(t, t * 20.0, HARD_BRAKING));
        std::thread::sleep(Duration::from_micros(300));
    }
    let _ = receive_frames(&socket, Duration::from_millis(50));
    // The RT loop stops calling the stage (stalled, crashed): within the watchdog time plus
    // the ramp the writer brings the rig to park.
    let frames = receive_frames(&socket, Duration::from_millis(1500));
    let park = (32767.0 - 0.95 * 32767.0f64).round_ties_even() as u16;
    let last = frames
        .last()
        .expect("the writer keeps sending while it parks");
    assert!(
        last.iter().all(|&v| v.abs_diff(park) <= 1),
        "parked: {last:?} vs {park}"
    );
    let max_step =
        (SPEED_MM_PER_S / 1000.0 / 1000.0 / (STROKE_MM / 2000.0) * 32768.0).ceil() as u16 + 1;
    for w in frames.windows(2) {
        for i in 0..6 {
            assert!(
                w[1][i].abs_diff(w[0][i]) <= max_step,
                "{:?} -> {:?}",
                w[0],
                w[1]
            );
        }
    }
    drop(stage);
}

/// A 32-bit UDP copy of the actuators at the loop rate: fine enough (2.3e-11 m per count)
/// to check accelerations from second differences of the received positions.
fn fine_udp_output(port: u16) -> OutputConfig {
    udp_output_bits(port, 32)
}

/// Actuator positions (m) from the 32-bit frames received within `window`.
fn receive_positions(socket: &UdpSocket, window: Duration) -> Vec<[f64; 6]> {
    let h = 2f64.powi(31);
    receive(socket, window, |bytes| {
        assert_eq!(bytes.len(), 24, "six 32-bit values");
        std::array::from_fn(|i| {
            let word = [
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ];
            let counts = f64::from(u32::from_be_bytes(word));
            let p = if counts > h - 1.0 {
                (counts - (h - 1.0)) / h
            } else {
                (counts - (h - 1.0)) / (h - 1.0)
            };
            p * STROKE_MM / 2000.0
        })
    })
}

#[test]
fn sigterm_park_keeps_position_velocity_and_acceleration_limits() {
    let (socket, mut stage, mut t) = active_stage_with_udp(fine_udp_output);
    // Saturating cues, reversing: the actuators are moving fast, some toward the far end,
    // when SIGTERM comes. Paced so the writer never falls 64 commands (its ring) behind on a
    // loaded machine: a dropped command would look like a limit violation here.
    let mut live = Vec::new();
    for k in 0..1200 {
        t += 0.001;
        stage.tick(&slam(t, if k < 700 { -1.0 } else { 1.0 }));
        std::thread::sleep(Duration::from_micros(800));
        if k % 50 == 49 {
            live.extend(receive_positions(&socket, Duration::from_millis(1)));
        }
    }
    assert!(
        stage.commanded().iter().any(|&p| p.abs() > 0.01),
        "moving when the stop comes: {:?}",
        stage.commanded()
    );
    stage.safe_stop(StopReason::Exit);
    // The RT loop stops; the writer owns the ramp to park.
    let mut frames = live;
    frames.extend(receive_positions(&socket, Duration::from_millis(1500)));
    let dt = 1.0 / TICK_HZ;
    let (v_max, a_max) = (SPEED_MM_PER_S / 1000.0, ACCEL_MM_PER_S2 / 1000.0);
    let park = -0.95 * STROKE_MM / 2000.0;
    // Count-rounding of the 32-bit values: 2.3e-11 m, four of them in a second difference.
    let accel_slack = 4.0 * (STROKE_MM / 2000.0) / 2f64.powi(31) / (dt * dt);
    let mut peak_accel: f64 = 0.0;
    for w in frames.windows(3) {
        for (i, ((&a, &b), &c)) in w[0].iter().zip(&w[1]).zip(&w[2]).enumerate() {
            assert!(
                c.abs() <= 0.95 * STROKE_MM / 2000.0 + 1e-9,
                "actuator {i} at {c}"
            );
            assert!(
                (c - b).abs() <= v_max * dt * (1.0 + 1e-6),
                "actuator {i} step {}",
                c - b
            );
            let accel = (c - 2.0 * b + a) / (dt * dt);
            peak_accel = peak_accel.max(accel.abs());
            assert!(
                accel.abs() <= a_max + accel_slack,
                "actuator {i} accel {accel} m/s^2 ({a} {b} {c})"
            );
        }
    }
    assert!(
        peak_accel > 0.9 * a_max,
        "the park ramp brakes at the limit: {peak_accel}"
    );
    let last = frames.last().expect("frames while parking");
    for p in last {
        assert!((p - park).abs() < 1e-6, "parked at {p}, park {park}");
    }
    drop(stage);
}

/// The Motion4Sim position frames of `socket` received within `window`, as poses.
fn receive_poses(socket: &UdpSocket, window: Duration) -> Vec<Pose> {
    receive(socket, window, |bytes| {
        assert_eq!(bytes.len(), 36, "Motion4Sim position frames are 36 bytes");
        assert_eq!(&bytes[..2], &[0xFC, 0xFC]);
        assert_eq!(&bytes[34..], &[0x0A, 0x0D]);
        let slot = |k: usize| {
            let word = [
                bytes[2 + 4 * k],
                bytes[3 + 4 * k],
                bytes[4 + 4 * k],
                bytes[5 + 4 * k],
            ];
            f64::from(f32::from_le_bytes(word))
        };
        // Slots: sway, surge, heave (mm), yaw, roll, pitch (deg).
        Pose {
            surge_m: slot(1) / 1000.0,
            sway_m: slot(0) / 1000.0,
            heave_m: slot(2) / 1000.0,
            roll_rad: slot(4).to_radians(),
            pitch_rad: slot(5).to_radians(),
            yaw_rad: slot(3).to_radians(),
        }
    })
}

fn m4s_position_output(port: u16) -> OutputConfig {
    toml::from_str(&format!(
        "preset = \"motion4sim_position\"\nudp_target = \"127.0.0.1:{port}\"\nrate_hz = 1000.0\npost_open_delay_ms = 0\n"
    ))
    .unwrap()
}

#[test]
fn motion4sim_position_frames_carry_the_pose_of_the_actuator_command() {
    let kinematics = platform_from_config(&platform(Vec::new()).geometry).unwrap();
    let (socket, mut stage, mut t) = active_stage_with_udp(m4s_position_output);
    let mut poses = Vec::new();
    for k in 0..600 {
        t += 0.001;
        stage.tick(&frame(t, t * 20.0, HARD_BRAKING));
        std::thread::sleep(Duration::from_micros(200));
        if k % 100 == 99 {
            poses = receive_poses(&socket, Duration::from_millis(1));
        }
    }
    let commanded = stage.commanded().to_vec();
    poses.extend(receive_poses(&socket, Duration::from_millis(60)));
    let pose = poses.last().expect("pose frames");
    assert!(
        pose.surge_m.abs() > 1e-4 || pose.pitch_rad.abs() > 1e-4,
        "hard braking shows in the pose: {pose:?}"
    );
    // The pose in the frame is the forward kinematics of the commanded actuators: its
    // inverse gives them back (to the f32 resolution of the frame).
    let legs = kinematics.inverse(pose).unwrap();
    for (leg, want) in legs.as_slice().iter().zip(&commanded) {
        assert!((leg - want).abs() < 2e-6, "leg {leg} vs commanded {want}");
    }
    drop(stage);
}

/// A serial output on `path` writing one text line per frame (16-bit decimal values), 100 Hz.
fn serial_line_output(path: &std::path::Path) -> OutputConfig {
    toml::from_str(&format!(
        r#"
template = "<Axis1a>,<Axis2a>,<Axis3a>,<Axis4a>,<Axis5a>,<Axis6a><10>"
bits = 16
format = "decimal"
serial_port = "{}"
baud = 921600
rate_hz = 100.0
post_open_delay_ms = 0
"#,
        path.display()
    ))
    .unwrap()
}

/// Complete lines of six values in `bytes`.
fn lines_of_six(bytes: &[u8]) -> Vec<[u16; 6]> {
    String::from_utf8_lossy(bytes)
        .split('\n')
        .filter_map(|line| {
            let values: Vec<u16> = line.split(',').filter_map(|v| v.parse().ok()).collect();
            <[u16; 6]>::try_from(values).ok()
        })
        .collect()
}

#[test]
fn a_port_that_died_at_park_rejoins_from_park_after_the_platform_rose_without_it() {
    let dir = std::env::temp_dir().join(format!("rigd-motion-rejoin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("ttyMOTION");
    let _ = std::fs::remove_file(&link);
    let pty = motion_pty::Pty::open();
    std::os::unix::fs::symlink(&pty.slave_path, &link).unwrap();
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = socket.local_addr().unwrap().port();
    let config = platform(vec![serial_line_output(&link), udp_output(port)]);
    let mut stage = platform_stage(&config, TICK_HZ, &PanicPark::new()).unwrap();
    let park = (32767.0 - 0.95 * 32767.0f64).round_ties_even() as u16;
    let tick = |stage: &mut MotionStage, time_s: f64| {
        stage.tick(&frame(time_s, time_s * 20.0, HARD_BRAKING));
        std::thread::sleep(Duration::from_micros(900));
    };
    // Physics paused: the platform waits at park and the serial output streams park frames.
    let mut parked_frames = Vec::new();
    let start = Instant::now();
    while parked_frames.len() < 20 {
        assert!(start.elapsed() < Duration::from_secs(10), "no park frames");
        tick(&mut stage, 0.0);
        parked_frames.extend(lines_of_six(&pty.read_for(Duration::from_millis(1))));
    }
    assert_eq!(stage.state(), SafetyState::Parked);
    assert!(parked_frames.iter().all(|f| f.iter().all(|&v| v == park)));
    // The serial port dies while parked.
    drop(pty);
    let start = Instant::now();
    while stage.output_status().next().unwrap().ready {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "write error unseen"
        );
        tick(&mut stage, 0.0);
    }
    // Live physics: the platform rises on its UDP link alone and runs.
    let mut t = 0.0;
    for _ in 0..1500 {
        t += 0.001;
        tick(&mut stage, t);
    }
    assert_eq!(stage.state(), SafetyState::Active);
    // The port returns: its writer must start from park (where it left the controller),
    // not jump to the live position, and ramp onto the motion within the limits.
    let pty = motion_pty::Pty::open();
    let fresh = link.with_extension("new");
    std::os::unix::fs::symlink(&pty.slave_path, &fresh).unwrap();
    std::fs::rename(&fresh, &link).unwrap();
    let mut bytes = Vec::new();
    for k in 0..2500 {
        t += 0.001;
        tick(&mut stage, t);
        if k % 20 == 19 {
            bytes.extend(pty.read_for(Duration::from_millis(1)));
        }
    }
    let frames = lines_of_six(&bytes);
    assert!(
        frames.len() > 50,
        "{} frames after the port returned",
        frames.len()
    );
    // The controller was left at park: the first frame is one ramp step from there.
    let max_step = (SPEED_MM_PER_S * 0.01 / (STROKE_MM / 2.0) * 32768.0).ceil() as u16 + 1;
    assert!(
        frames[0].iter().all(|&v| v.abs_diff(park) <= max_step),
        "first frame after the port returned: {:?}, park {park}, step limit {max_step}",
        frames[0]
    );
    for w in frames.windows(2) {
        for (a, b) in w[0].iter().zip(&w[1]) {
            assert!(a.abs_diff(*b) <= max_step, "{:?} -> {:?}", w[0], w[1]);
        }
    }
    let last = frames.last().unwrap();
    assert!(
        last.iter().any(|&v| v.abs_diff(park) > 100),
        "rejoined the live motion: {last:?}"
    );
    drop(stage);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_port_that_takes_nothing_never_delays_the_other_outputs_frames() {
    // One writer thread serves both outputs: a serial one nobody reads (210-byte frames at
    // 1 kHz fill the pty in about a third of a second; after that every write finds it full,
    // times out after 200 ms and reconnects) and a UDP copy. The UDP frames must keep
    // coming, one per tick: a writer that waited on the full port would hold them back
    // 200 ms at a time, and the ring (64 commands) would drop most of them.
    let dir = std::env::temp_dir().join(format!("rigd-motion-deaf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("ttyDEAF");
    let _ = std::fs::remove_file(&link);
    let pty = motion_pty::Pty::open();
    std::os::unix::fs::symlink(&pty.slave_path, &link).unwrap();
    let pad = "x".repeat(170);
    let deaf: OutputConfig = toml::from_str(&format!(
        r#"
template = "<Axis1a>,<Axis2a>,<Axis3a>,<Axis4a>,<Axis5a>,<Axis6a>;{pad}<10>"
bits = 16
format = "decimal"
serial_port = "{}"
baud = 4000000
rate_hz = 1000.0
post_open_delay_ms = 0
"#,
        link.display()
    ))
    .unwrap();
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = socket.local_addr().unwrap().port();
    let config = platform(vec![deaf, udp_output(port)]);
    let mut stage = platform_stage(&config, TICK_HZ, &PanicPark::new()).unwrap();
    let mut t = 0.0;
    wait_ready(&mut stage, &mut t);
    let window = Duration::from_secs(3);
    let counter = std::thread::spawn(move || receive(&socket, window, |_| ()).len());
    let start = Instant::now();
    let mut ticks = 0u32;
    // Ticks on an absolute 1 kHz schedule, stopping a little before the reader does.
    while start.elapsed() < window - Duration::from_millis(50) {
        ticks += 1;
        let due = start + Duration::from_micros(1000 * u64::from(ticks));
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
        t += 0.001;
        stage.tick(&frame(t, t * 20.0, REST));
    }
    let udp_frames = counter.join().unwrap();
    let serial = *stage.output_status().next().unwrap();
    assert!(
        serial.errors >= 2,
        "the unread port timed out and reconnected more than once: {serial:?}"
    );
    assert!(
        udp_frames as f64 >= 0.8 * f64::from(ticks),
        "the UDP copy kept its frames while the serial port took nothing: {udp_frames} frames for {ticks} ticks"
    );
    drop(stage);
    drop(pty);
    let _ = std::fs::remove_dir_all(&dir);
}

fn wild() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(1e300),
        -200.0..200.0f64,
        any::<f64>(),
    ]
}

fn wild_frame() -> impl Strategy<Value = ([f64; 3], [f64; 3], [f64; 3], f64, f64)> {
    (
        prop::array::uniform3(wild()),
        prop::array::uniform3(wild()),
        prop::array::uniform3(wild()),
        wild(),
        wild(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Whatever the physics does (NaN, infinities, teleports, time going backwards), every
    /// encoded actuator value is a number inside the usable travel.
    #[test]
    fn no_nan_or_out_of_range_value_is_ever_encoded(frames in prop::collection::vec(wild_frame(), 200)) {
        let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
        let port = socket.local_addr().unwrap().port();
        let mut stage = platform_stage(&platform(vec![udp_output(port)]), TICK_HZ, &PanicPark::new()).unwrap();
        let mut t = 0.0;
        wait_ready(&mut stage, &mut t);
        run_to_active(&mut stage, &mut t);
        for (f, w, v, time, x) in &frames {
            let mut fr = frame(*time, *x, *f);
            fr.car.angular_velocity_body_radps = *w;
            fr.car.velocity_body_mps = *v;
            stage.tick(&fr);
            std::thread::sleep(Duration::from_micros(200));
        }
        let received = receive_frames(&socket, Duration::from_millis(100));
        prop_assert!(!received.is_empty());
        let lo = (32767.0 - 0.95 * 32767.0f64).floor() as u16;
        let hi = (32767.0 + 0.95 * 32768.0f64).ceil() as u16;
        for values in &received {
            for &v in values {
                prop_assert!(v >= lo && v <= hi, "{v} outside {lo}..={hi}");
            }
        }
        for p in stage.commanded() {
            prop_assert!(p.is_finite());
        }
        drop(stage);
    }
}
