//! The motion RT stage driven tick by tick from the test (standing in for the RT thread):
//! stale physics fades to neutral then parks within the limits, a teleport resets the cues
//! without a jolt, a silent RT loop makes the writer park on its own, and (property test)
//! no NaN or out-of-range value is ever encoded whatever the physics produces.

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use rig_config::motion::{OutputConfig, PlatformConfig};
use rig_protocols::Frame;
use rigd::motion::platform_stage;
use rigd::motion::safety::SafetyState;
use rigd::motion::stage::MotionStage;
use rigd::rt_stage::RtStage;

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

fn udp_output(port: u16) -> OutputConfig {
    toml::from_str(&format!(
        r#"
template = "<Axis1a><Axis2a><Axis3a><Axis4a><Axis5a><Axis6a>"
bits = 16
format = "binary"
udp_target = "127.0.0.1:{port}"
rate_hz = 1000.0
post_open_delay_ms = 0
"#
    ))
    .unwrap()
}

/// A frame of a car at `time_s` and `x_m` along the track with specific force `f`.
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
            // The second difference of the positions is the commanded acceleration.
            // Exception: the hard stop at the end of the usable travel (a safety backstop).
            let at_end = p.abs() >= 0.95 * STROKE_MM / 2000.0 - 1e-12;
            if let (Some(previous_step), false) = (&self.previous_step, at_end) {
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
        stage.on_tick(&frame(*t, *t * 20.0, REST));
        if stage.state() == SafetyState::Active {
            return;
        }
    }
    panic!("never became active: {:?}", stage.state());
}

#[test]
fn stale_physics_fades_to_neutral_then_parks_within_limits() {
    let mut stage = platform_stage(&platform(Vec::new()), TICK_HZ).unwrap();
    let mut t = 0.0;
    run_to_active(&mut stage, &mut t);
    let mut limits = LimitCheck::new(&stage);
    for _ in 0..1500 {
        t += 0.001;
        stage.on_tick(&frame(t, t * 20.0, HARD_BRAKING));
        limits.check(&stage, "cueing");
    }
    assert!(
        stage.commanded().iter().any(|p| p.abs() > 0.005),
        "hard braking moves the platform"
    );
    // Physics freezes (paused game): time stops advancing.
    let mut seen = Vec::new();
    for _ in 0..6000 {
        stage.on_tick(&frame(t, t * 20.0, HARD_BRAKING));
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
    let mut stage = platform_stage(&platform(Vec::new()), TICK_HZ).unwrap();
    let mut t = 0.0;
    run_to_active(&mut stage, &mut t);
    let mut limits = LimitCheck::new(&stage);
    for _ in 0..800 {
        t += 0.001;
        stage.on_tick(&frame(t, t * 20.0, HARD_BRAKING));
        limits.check(&stage, "before");
    }
    let displaced = stage.commanded().iter().fold(0.0f64, |m, p| m.max(p.abs()));
    // Teleport 500 m down the road, car at rest afterwards.
    for k in 0..500 {
        t += 0.001;
        stage.on_tick(&frame(t, 500.0 + f64::from(k) * 1e-3, REST));
        limits.check(&stage, "first 0.5 s after the reset");
    }
    let after = stage.commanded().iter().fold(0.0f64, |m, p| m.max(p.abs()));
    assert!(
        after < displaced,
        "filters reset: heading back to neutral ({displaced} -> {after})"
    );
    assert_eq!(stage.state(), SafetyState::Active);
}

fn receive_frames(socket: &UdpSocket, window: Duration) -> Vec<[u16; 6]> {
    socket
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let end = Instant::now() + window;
    let mut frames = Vec::new();
    let mut buf = [0u8; 64];
    while Instant::now() < end {
        if let Ok(n) = socket.recv(&mut buf) {
            assert_eq!(n, 12, "six 16-bit values");
            frames.push(std::array::from_fn(|i| {
                u16::from_be_bytes([buf[2 * i], buf[2 * i + 1]])
            }));
        }
    }
    frames
}

fn wait_ready(stage: &mut MotionStage, t: &mut f64) {
    let start = Instant::now();
    while stage.state() == SafetyState::Connecting {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "writer never became ready"
        );
        *t += 0.001;
        stage.on_tick(&frame(*t, 0.0, REST));
        std::thread::sleep(Duration::from_micros(200));
    }
}

#[test]
fn writer_parks_on_its_own_when_the_rt_loop_goes_silent() {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = socket.local_addr().unwrap().port();
    let mut stage = platform_stage(&platform(vec![udp_output(port)]), TICK_HZ).unwrap();
    let mut t = 0.0;
    wait_ready(&mut stage, &mut t);
    while stage.state() != SafetyState::Active {
        t += 0.001;
        stage.on_tick(&frame(t, t * 20.0, REST));
        std::thread::sleep(Duration::from_micros(300));
    }
    for _ in 0..300 {
        t += 0.001;
        stage.on_tick(&frame(t, t * 20.0, HARD_BRAKING));
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
        let mut stage = platform_stage(&platform(vec![udp_output(port)]), TICK_HZ).unwrap();
        let mut t = 0.0;
        wait_ready(&mut stage, &mut t);
        run_to_active(&mut stage, &mut t);
        for (f, w, v, time, x) in &frames {
            let mut fr = frame(*time, *x, *f);
            fr.car.angular_velocity_body_radps = *w;
            fr.car.velocity_body_mps = *v;
            stage.on_tick(&fr);
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
