//! The frame builder against known motions: streams built from analytic signals, sent at a
//! game's rate with transport jitter, resampled at 1 kHz and compared with the signal at the
//! stated delay; every condition; merging; no NaN out of any input; determinism.

use std::f64::consts::PI;

use proptest::prelude::*;
use rig_protocols::game::{GameSample, GameStream};

use super::*;

const TICK_NS: u64 = 1_000_000;
/// Transport delay of every packet before its jitter, ns.
const TRANSPORT_NS: u64 = 5_000_000;
const PERIOD_60_HZ_S: f64 = 1.0 / 60.0;

fn settings() -> GameFrameSettings {
    GameFrameSettings {
        lost_after_ns: 500_000_000,
        jump_m: 5.0,
        tick_period_ns: TICK_NS,
    }
}

/// 0 ..= 3 ms of pseudo-random transport jitter for packet `k`.
fn jitter_ns(k: u64) -> u64 {
    (k * 7_919 % 13) * 250_000
}

/// Arrival of the packet sent at game time `t_s` (the game's clock starts at 1 s of rigd's).
fn arrival_ns(t_s: f64, k: u64) -> u64 {
    1_000_000_000 + (t_s * 1e9).round() as u64 + TRANSPORT_NS + jitter_ns(k)
}

/// Runs a stream of `packets` at `period_s` (packet `k` made by `make(t)`) through a builder
/// ticking at 1 kHz; calls `check(now_game_time_s, &car, condition)` on every tick after
/// `settle_s`, where `now_game_time_s` is the tick's time on the game's clock (minus the
/// transport delay).
fn run_stream(
    packets: u64,
    period_s: f64,
    clocked: bool,
    make: impl Fn(f64) -> GameSample,
    settle_s: f64,
    mut check: impl FnMut(f64, &CarTelemetry, SourceCondition),
) -> GameFrames {
    let mut frames = GameFrames::new(&settings());
    let mut car = CarTelemetry::default();
    let end_ns = arrival_ns(packets as f64 * period_s, 0);
    let mut next = 0u64;
    let mut now = 1_000_000_000u64;
    while now < end_ns {
        while next < packets && arrival_ns(next as f64 * period_s, next) <= now {
            let t = next as f64 * period_s;
            let mut sample = make(t);
            if !clocked {
                sample.game_time_s = None;
            }
            frames.push(arrival_ns(t, next), &sample);
            next += 1;
        }
        let condition = frames.frame_at(now, &mut car);
        let game_now = (now as f64 - 1e9 - TRANSPORT_NS as f64) / 1e9;
        if game_now > settle_s {
            check(game_now, &car, condition);
        }
        now += TICK_NS;
    }
    frames
}

fn sample_at(t: f64) -> GameSample {
    let mut s = GameSample::empty(GameStream::F1_24);
    s.game_time_s = Some(t);
    s.driving = Some(true);
    s
}

/// Surge acceleration 3 sin(2 pi 0.8 t) m/s^2 on a car heading along +x, sent with position,
/// velocity and acceleration.
fn sine_surge(t: f64) -> GameSample {
    let w = 2.0 * PI * 0.8;
    let a = 3.0;
    let mut s = sample_at(t);
    s.motion.acceleration_body_mps2 = Some([a * (w * t).sin(), 0.0, 0.0]);
    s.motion.velocity_world_mps = Some([20.0 - a / w * (w * t).cos(), 0.0, 0.0]);
    s.motion.position_m = Some([20.0 * t - a / (w * w) * (w * t).sin(), 0.0, 0.0]);
    s.motion.roll_pitch_yaw_rad = Some([0.0; 3]);
    s
}

#[test]
fn a_jittered_60_hz_stream_resampled_at_1_khz_follows_the_signal_one_period_late() {
    let w = 2.0 * PI * 0.8;
    let mut worst: f64 = 0.0;
    let mut worst_early: f64 = 0.0;
    let mut ticks = 0;
    let frames = run_stream(300, PERIOD_60_HZ_S, true, sine_surge, 0.5, |now, car, c| {
        assert_eq!(c, SourceCondition::Live);
        // The stated delay: one packet period.
        let truth = 3.0 * (w * (now - PERIOD_60_HZ_S)).sin();
        worst = worst.max((car.acceleration_body_mps2[0] - truth).abs());
        // Against the signal without the delay, the error is much larger.
        worst_early =
            worst_early.max((car.acceleration_body_mps2[0] - 3.0 * (w * now).sin()).abs());
        assert!((car.specific_force_body_mps2[2] - GRAVITY_MPS2).abs() < 1e-12);
        ticks += 1;
    });
    assert!(ticks > 4_000, "{ticks} ticks checked");
    // Linear interpolation of a 0.8 Hz sine at 60 Hz: (w h)^2 / 8 of 3 m/s^2 = 1.3e-3; a
    // packet up to 3 ms late holds the newest sample that long: 3 ms x 15 m/s^3 = 0.045.
    assert!(worst < 0.05, "error {worst} m/s^2 at a delay of one period");
    assert!(
        worst_early > 0.15,
        "a delay of 0 would fit too: {worst_early}"
    );
    let delay_ms = frames.interpolation_delay_ns() as f64 / 1e6;
    assert!((delay_ms - 16.667).abs() < 0.01, "{delay_ms} ms");
    assert!(
        (frames.input_rate_hz() - 60.0).abs() < 1.0,
        "{}",
        frames.input_rate_hz()
    );
}

#[test]
fn without_a_game_clock_arrival_jitter_stays_a_small_error() {
    let w = 2.0 * PI * 0.8;
    let mut worst: f64 = 0.0;
    run_stream(
        300,
        PERIOD_60_HZ_S,
        false,
        sine_surge,
        0.5,
        |now, car, _| {
            // Arrivals carry 1.5 ms of jitter on average: the stated delay plus that.
            let truth = 3.0 * (w * (now - PERIOD_60_HZ_S - 0.0015)).sin();
            worst = worst.max((car.acceleration_body_mps2[0] - truth).abs());
        },
    );
    // 1.5 ms of timing error on a 15 m/s^3 jerk: about 0.03 m/s^2.
    assert!(worst < 0.05, "error {worst} m/s^2");
}

#[test]
fn acceleration_from_velocity_alone_lags_half_a_period_more() {
    // The same sine, sent as velocity only (as GT7 does).
    let w = 2.0 * PI * 0.8;
    let velocity_only = |t: f64| {
        let mut s = sine_surge(t);
        s.motion.acceleration_body_mps2 = None;
        s
    };
    let mut worst: f64 = 0.0;
    run_stream(
        300,
        PERIOD_60_HZ_S,
        true,
        velocity_only,
        0.5,
        |now, car, _| {
            let truth = 3.0 * (w * (now - 1.5 * PERIOD_60_HZ_S)).sin();
            worst = worst.max((car.acceleration_body_mps2[0] - truth).abs());
        },
    );
    // The same bounds as with acceleration sent (interpolation, 3 ms holds).
    assert!(
        worst < 0.05,
        "error {worst} m/s^2 at a delay of 1.5 periods"
    );
}

#[test]
fn constant_braking_given_as_velocity_reads_its_deceleration_after_settling() {
    // 8 m/s^2 of braking from 60 m/s, heading 30 degrees left, slightly nose down; the
    // game sends world velocity and angles, no acceleration.
    let heading = 30f64.to_radians();
    let pitch = 0.02;
    let braking = |t: f64| {
        let mut s = sample_at(t);
        let v = 60.0 - 8.0 * t;
        s.motion.velocity_world_mps = Some([v * heading.cos(), v * heading.sin(), 0.0]);
        s.motion.roll_pitch_yaw_rad = Some([0.0, pitch, heading]);
        s
    };
    // Settling: two samples for the first difference, then one period of delay.
    let settle_s = 3.0 * PERIOD_60_HZ_S;
    let mut checked = 0;
    run_stream(240, PERIOD_60_HZ_S, true, braking, settle_s, |_, car, _| {
        let a = car.acceleration_body_mps2;
        // The world deceleration seen in body axes: -8 along the heading, tilted by pitch.
        assert!((a[0] + 8.0 * pitch.cos()).abs() < 1e-6, "{a:?}");
        assert!(
            a[1].abs() < 1e-6 && (a[2] + 8.0 * pitch.sin()).abs() < 1e-6,
            "{a:?}"
        );
        let f = car.specific_force_body_mps2;
        assert!(
            (f[0] - (a[0] - GRAVITY_MPS2 * pitch.sin())).abs() < 1e-9,
            "{f:?}"
        );
        assert!(car
            .angular_velocity_body_radps
            .iter()
            .all(|w| w.abs() < 1e-9));
        checked += 1;
    });
    assert!(checked > 3_000);
}

#[test]
fn a_car_at_rest_reads_gravity_up_and_turning_cars_get_rates_from_orientation() {
    let mut frames = GameFrames::new(&settings());
    let mut car = CarTelemetry::default();
    assert_eq!(frames.frame_at(1_000, &mut car), SourceCondition::Waiting);
    assert_eq!(car.specific_force_body_mps2, [0.0, 0.0, GRAVITY_MPS2]);
    assert_eq!(car.orientation, [1.0, 0.0, 0.0, 0.0]);

    // Yaw at 0.5 rad/s through the +-pi wrap, angles only: the rate comes from the
    // orientation and the yaw never swings the long way.
    let turning = |t: f64| {
        let mut s = sample_at(t);
        let yaw = (3.0 + 0.5 * t + PI).rem_euclid(2.0 * PI) - PI;
        s.motion.roll_pitch_yaw_rad = Some([0.0, 0.0, yaw]);
        s.motion.velocity_body_mps = Some([0.0; 3]);
        s
    };
    let mut last_yaw: Option<f64> = None;
    run_stream(120, PERIOD_60_HZ_S, true, turning, 0.1, |_, car, _| {
        assert!((car.angular_velocity_body_radps[2] - 0.5).abs() < 1e-6);
        let yaw = car.roll_pitch_yaw_rad[2];
        if let Some(last) = last_yaw {
            let step = (yaw - last + PI).rem_euclid(2.0 * PI) - PI;
            // 0.5 mrad a tick, plus up to 3 ms of turn caught up after a late packet.
            assert!(step.abs() < 0.002, "yaw stepped {step} rad");
        }
        last_yaw = Some(yaw);
    });
}

#[test]
fn partial_samples_merge_and_late_ones_are_dropped() {
    let mut frames = GameFrames::new(&settings());
    let mut car = CarTelemetry::default();
    let mut motion = sample_at(10.0);
    motion.motion.acceleration_body_mps2 = Some([1.0, 2.0, 0.0]);
    motion.driving = None;
    frames.push(1_000_000_000, &motion);
    // The telemetry packet of the same frame: rpm, gear, pedals, wheels; no motion.
    let mut telemetry = sample_at(10.0);
    telemetry.car.engine_rpm = Some(7_000.0);
    telemetry.car.gear = Some(3);
    telemetry.car.throttle = Some(0.8);
    telemetry.wheels[2].suspension_travel_m = Some(0.04);
    frames.push(1_001_000_000, &telemetry);
    assert_eq!(
        frames.frame_at(1_002_000_000, &mut car),
        SourceCondition::Live
    );
    assert_eq!(car.acceleration_body_mps2, [1.0, 2.0, 0.0]);
    assert_eq!(
        (car.drivetrain.engine_rpm, car.drivetrain.gear),
        (7_000.0, 3)
    );
    assert_eq!(car.controls.throttle, 0.8);
    assert_eq!(car.wheels[2].suspension_travel_m, 0.04);
    // A NaN rpm and a missing gear keep the latest values.
    let mut garbage = sample_at(10.0);
    garbage.car.engine_rpm = Some(f64::NAN);
    frames.push(1_003_000_000, &garbage);
    frames.frame_at(1_004_000_000, &mut car);
    assert_eq!(
        (car.drivetrain.engine_rpm, car.drivetrain.gear),
        (7_000.0, 3)
    );
    // A motion sample from before the newest (reordered on the way) is dropped.
    let mut newer = sample_at(10.02);
    newer.motion.acceleration_body_mps2 = Some([5.0, 0.0, 0.0]);
    frames.push(1_021_000_000, &newer);
    let mut late = sample_at(10.01);
    late.motion.acceleration_body_mps2 = Some([-50.0, 0.0, 0.0]);
    frames.push(1_022_000_000, &late);
    assert_eq!(frames.out_of_order(), 1);
    frames.frame_at(1_100_000_000, &mut car);
    assert_eq!(car.acceleration_body_mps2, [5.0, 0.0, 0.0]);
}

/// A car driving along +x at 20 m/s, sent at 60 Hz from `t0` for `packets` packets, arriving
/// from `arrival0_ns`; returns the next arrival.
fn drive(
    frames: &mut GameFrames,
    x0: f64,
    t0: f64,
    arrival0_ns: u64,
    packets: u32,
    driving: bool,
) -> u64 {
    let mut arrival = arrival0_ns;
    for k in 0..packets {
        let dt = f64::from(k) * PERIOD_60_HZ_S;
        let mut s = sample_at(t0 + dt);
        s.driving = Some(driving);
        s.motion.position_m = Some([x0 + 20.0 * dt, 0.0, 0.0]);
        s.motion.velocity_world_mps = Some([20.0, 0.0, 0.0]);
        frames.push(arrival, &s);
        arrival += 16_666_667;
    }
    arrival
}

#[test]
fn every_condition_in_turn() {
    let mut frames = GameFrames::new(&settings());
    let mut car = CarTelemetry::default();
    assert_eq!(frames.frame_at(5, &mut car), SourceCondition::Waiting);
    let next = drive(&mut frames, 0.0, 50.0, 1_000_000_000, 30, true);
    assert_eq!(frames.frame_at(next, &mut car), SourceCondition::Live);
    let time = car.time_s;
    assert_eq!(
        frames.frame_at(next + TICK_NS, &mut car),
        SourceCondition::Live
    );
    assert!(
        (car.time_s - time - 0.001).abs() < 1e-12,
        "time advances with the tick"
    );
    // 20 m/s over 0.5 s is 10 m per sample at 2 Hz: no jump. A teleport of 50 m is one, on
    // exactly one tick, and the car is at the new place at once (no interpolation across).
    let next = drive(
        &mut frames,
        29.0 * 20.0 / 60.0 + 20.0 / 60.0 + 50.0,
        50.5,
        next,
        3,
        true,
    );
    assert_eq!(frames.frame_at(next, &mut car), SourceCondition::Jumped);
    assert!(car.position_m[0] > 55.0, "{:?}", car.position_m);
    assert_eq!(
        frames.frame_at(next + TICK_NS, &mut car),
        SourceCondition::Live
    );
    // The game's clock going back by a second: a restart.
    let next = drive(&mut frames, 0.0, 49.0, next, 3, true);
    assert_eq!(frames.frame_at(next, &mut car), SourceCondition::Jumped);
    assert_eq!(frames.frame_at(next + 1, &mut car), SourceCondition::Live);
    // Paused by the game.
    let next = drive(&mut frames, 1.0, 49.05, next, 3, false);
    assert_eq!(frames.frame_at(next, &mut car), SourceCondition::Paused);
    let time = car.time_s;
    assert_eq!(
        frames.frame_at(next + TICK_NS, &mut car),
        SourceCondition::Paused
    );
    assert_eq!(car.time_s, time, "time stands still while paused");
    // Nothing for 0.5 s: lost, then back.
    assert_eq!(
        frames.frame_at(next + 400_000_000, &mut car),
        SourceCondition::Paused
    );
    assert_eq!(
        frames.frame_at(next + 510_000_000, &mut car),
        SourceCondition::Lost
    );
    let back = next + 3_000_000_000;
    let next = drive(&mut frames, 2.0, 52.0, back, 2, true);
    assert_eq!(frames.frame_at(next, &mut car), SourceCondition::Live);
}

/// A car at 60 m/s (216 km/h) along +x sent at 60 Hz, with or without the game's clock,
/// whose packets 30..=36 are held back by a 100 ms delivery stall and then handed over back
/// to back (0.1 ms apart), the car moved by `teleport_m` from packet 33 on; ticked at 1 kHz.
/// Returns how many ticks were Jumped. (Timed by arrival alone, the first packet after the
/// stall, 117 ms after its predecessor with the car 1 m on, is 6 m short of where 60 m/s
/// over 117 ms would put it: more than the 5 m `jump_m`.)
fn jumped_ticks_around_a_stall(clocked: bool, teleport_m: [f64; 3]) -> usize {
    const SPEED_MPS: f64 = 60.0;
    let mut frames = GameFrames::new(&settings());
    let mut car = CarTelemetry::default();
    let sent_ns = |k: u64| 1_000_000_000 + (k as f64 * PERIOD_60_HZ_S * 1e9) as u64;
    // Packet 30 should have come at 0.5 s; it and the six after it come 100 ms later.
    let stall_end_ns = sent_ns(30) + 100_000_000;
    let arrivals: Vec<u64> = (0..90u64)
        .map(|k| match k {
            0..=29 => sent_ns(k),
            30..=36 => stall_end_ns + (k - 30) * 100_000,
            _ => sent_ns(k).max(stall_end_ns + 700_000),
        })
        .collect();
    let mut jumped = 0;
    let mut next = 0;
    let mut now = 1_000_000_000u64;
    while next < arrivals.len() {
        while next < arrivals.len() && arrivals[next] <= now {
            let t = next as f64 * PERIOD_60_HZ_S;
            let mut s = sample_at(t);
            if !clocked {
                s.game_time_s = None;
            }
            let moved = if next >= 33 { teleport_m } else { [0.0; 3] };
            s.motion.position_m = Some([SPEED_MPS * t + moved[0], moved[1], moved[2]]);
            s.motion.velocity_world_mps = Some([SPEED_MPS, 0.0, 0.0]);
            frames.push(arrivals[next], &s);
            next += 1;
        }
        if frames.frame_at(now, &mut car) == SourceCondition::Jumped {
            jumped += 1;
        }
        now += TICK_NS;
    }
    jumped
}

#[test]
fn a_100_ms_delivery_stall_is_not_a_jump_but_a_teleport_during_it_is() {
    for clocked in [true, false] {
        assert_eq!(
            jumped_ticks_around_a_stall(clocked, [0.0; 3]),
            0,
            "a stall, clocked: {clocked}"
        );
        // Sideways, off the line the velocity draws: a jump, however late the packet.
        assert_eq!(
            jumped_ticks_around_a_stall(clocked, [0.0, 8.0, 0.0]),
            1,
            "8 m sideways, clocked: {clocked}"
        );
        // Ahead, beyond what 60 m/s covers in the stall and two periods more.
        assert_eq!(
            jumped_ticks_around_a_stall(clocked, [30.0, 0.0, 0.0]),
            1,
            "30 m ahead, clocked: {clocked}"
        );
    }
}

#[test]
fn tyre_pressure_lands_on_the_wheel_that_sent_it() {
    let mut frames = GameFrames::new(&settings());
    let mut car = CarTelemetry::default();
    let mut s = sample_at(1.0);
    for (i, kpa) in [171.0, 172.0, 173.0, 174.0].into_iter().enumerate() {
        s.wheels[i].pressure_kpa = Some(kpa);
    }
    frames.push(1_000_000_000, &s);
    frames.frame_at(1_001_000_000, &mut car);
    let pressures: Vec<f64> = car.wheels.iter().map(|w| w.pressure_kpa).collect();
    assert_eq!(pressures, [171.0, 172.0, 173.0, 174.0]);
    // A packet without pressure (F1's Motion) keeps them; NaN is not a pressure.
    let mut motion_only = sample_at(1.02);
    motion_only.wheels[1].pressure_kpa = Some(f64::NAN);
    frames.push(1_020_000_000, &motion_only);
    frames.frame_at(1_021_000_000, &mut car);
    assert_eq!(car.wheels[1].pressure_kpa, 172.0);
    // A game that sends none reads 0, not a made-up pressure.
    let mut none = GameFrames::new(&settings());
    none.push(1_000_000_000, &sample_at(1.0));
    let mut fresh = CarTelemetry::default();
    fresh.wheels[0].pressure_kpa = 190.0;
    none.frame_at(1_001_000_000, &mut fresh);
    assert_eq!(fresh.wheels[0].pressure_kpa, 0.0);
}

#[test]
fn the_same_stream_gives_bit_identical_frames() {
    let collect = || {
        let mut out = Vec::new();
        run_stream(100, 1.0 / 360.0, false, sine_surge, 0.0, |_, car, c| {
            out.push((*car, c));
        });
        out
    };
    assert_eq!(collect(), collect());
}

fn any_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => -1e3..1e3f64,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(f64::MAX),
        1 => Just(-1e300),
        1 => Just(1e-300),
    ]
}

fn any_vec() -> impl Strategy<Value = Option<[f64; 3]>> {
    proptest::option::of(proptest::array::uniform3(any_f64()))
}

fn any_sample() -> impl Strategy<Value = GameSample> {
    (
        proptest::option::of(any_f64()),
        proptest::option::of(any::<bool>()),
        proptest::array::uniform6(any_vec()),
        proptest::array::uniform4(proptest::option::of(any_f64())),
    )
        .prop_map(|(time, driving, m, scalars)| {
            let mut s = GameSample::empty(GameStream::ForzaSled);
            s.game_time_s = time;
            s.driving = driving;
            s.motion.position_m = m[0];
            s.motion.velocity_world_mps = m[1];
            s.motion.velocity_body_mps = m[2];
            s.motion.acceleration_body_mps2 = m[3];
            s.motion.angular_velocity_body_radps = m[4];
            s.motion.roll_pitch_yaw_rad = m[5];
            s.car.speed_mps = scalars[0];
            s.car.engine_rpm = scalars[1];
            s.wheels[0].suspension_travel_m = scalars[2];
            s.wheels[3].load_n = scalars[3];
            s
        })
}

fn all_finite(car: &CarTelemetry) -> bool {
    let vectors = [
        car.position_m,
        car.roll_pitch_yaw_rad,
        car.velocity_world_mps,
        car.velocity_body_mps,
        car.angular_velocity_body_radps,
        car.acceleration_body_mps2,
        car.specific_force_body_mps2,
    ];
    vectors.iter().flatten().all(|v| v.is_finite())
        && car.orientation.iter().all(|v| v.is_finite())
        && car.time_s.is_finite()
        && car.speed_mps.is_finite()
        && car.drivetrain.engine_rpm.is_finite()
        && car
            .wheels
            .iter()
            .all(|w| w.suspension_travel_m.is_finite() && w.load_n.is_finite())
}

proptest! {
    #[test]
    fn no_input_makes_a_non_finite_frame(
        samples in proptest::collection::vec((0u64..40_000_000, any_sample()), 1..40),
        tick_gaps in proptest::collection::vec(0u64..30_000_000, 1..40),
    ) {
        let mut frames = GameFrames::new(&settings());
        let mut car = CarTelemetry::default();
        let mut now = 1_000_000u64;
        for ((gap, sample), tick_gap) in samples.iter().zip(tick_gaps.iter().cycle()) {
            now += gap;
            frames.push(now, sample);
            frames.frame_at(now + tick_gap, &mut car);
            prop_assert!(all_finite(&car), "{:?} after {:?}", car, sample);
        }
    }
}
