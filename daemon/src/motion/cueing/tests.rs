//! Numeric checks of the motion reference, sections 2.2 and 7: Tustin coefficients to 1e-12
//! and the step responses of the washout channels at 1 kHz.

use super::filters::{Chain, Filter};
use super::*;
use rig_config::motion::CueingConfig;

const FS: f64 = 1000.0;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn tustin_coefficients() {
    let hp1 = Filter::high_pass_1(1.0, FS);
    assert!(close(hp1.b[0], 0.999500249875, 1e-12));
    assert!(close(hp1.b[1], -0.999500249875, 1e-12));
    assert!(close(hp1.a[1], -0.999000499750, 1e-12));

    let hp2 = Filter::high_pass_2(2.5, 1.0, FS);
    let want_b = [0.997504679700, -1.995009359399, 0.997504679700];
    let want_a = [1.0, -1.995006242197, 0.995012476602];
    for i in 0..3 {
        assert!(close(hp2.b[i], want_b[i], 1e-12), "b{i} {}", hp2.b[i]);
        assert!(close(hp2.a[i], want_a[i], 1e-12), "a{i} {}", hp2.a[i]);
    }

    let lp2 = Filter::low_pass_2(5.0, 1.0, FS);
    assert!(close(lp2.b[0], 6.2189e-6, 1e-10));
    assert!(close(lp2.b[1], 1.2438e-5, 1e-9));
    assert!(close(lp2.a[1], -1.990024937656, 1e-12));
    assert!(close(lp2.a[2], 0.990049813123, 1e-12));
}

/// Runs `chain` on a unit step for `seconds`, returning (peak, time of peak, final value).
fn step_response<const N: usize>(mut chain: Chain<N>, input: f64, seconds: f64) -> (f64, f64, f64) {
    let (mut peak, mut peak_t, mut last) = (0.0f64, 0.0, 0.0);
    for k in 1..=(seconds * FS) as usize {
        last = chain.step(input);
        if last.abs() > peak.abs() {
            peak = last;
            peak_t = k as f64 / FS;
        }
    }
    (peak, peak_t, last)
}

#[test]
fn second_order_washout_never_returns() {
    let chain = Chain([
        Filter::high_pass_2(2.5, 1.0, FS),
        Filter::integrator(FS),
        Filter::integrator(FS),
    ]);
    let (_, _, last) = step_response(chain, 1.0, 30.0);
    assert!(close(last, 0.160, 0.0016), "final {last}");
}

#[test]
fn third_order_washout_returns_to_centre() {
    for (break_radps, peak_m, peak_s) in [(0.25, 0.1158, 1.60), (1.0, 0.0727, 1.08)] {
        let chain = Chain([
            Filter::high_pass_2(2.5, 1.0, FS),
            Filter::high_pass_1(break_radps, FS),
            Filter::integrator(FS),
            Filter::integrator(FS),
        ]);
        let (peak, t, last) = step_response(chain, 1.0, 60.0);
        assert!(close(peak, peak_m, peak_m * 0.02), "peak {peak}");
        assert!(close(t, peak_s, peak_s * 0.02), "peak at {t}");
        if break_radps == 0.25 {
            assert!(last.abs() < 1e-4, "x(60 s) = {last}");
        }
    }
}

#[test]
fn rotational_washout_orders() {
    let rate = 10.0f64.to_radians();
    let first = Chain([Filter::high_pass_1(1.0, FS), Filter::integrator(FS)]);
    let (_, _, last) = step_response(first, rate, 30.0);
    assert!(
        close(last.to_degrees(), 10.0, 0.01),
        "{}",
        last.to_degrees()
    );

    let second = Chain([Filter::high_pass_2(1.0, 1.0, FS), Filter::integrator(FS)]);
    let (peak, _, last) = step_response(second, rate, 60.0);
    assert!(
        close(peak.to_degrees(), 3.679, 0.005),
        "{}",
        peak.to_degrees()
    );
    assert!(last.to_degrees().abs() < 1e-3);
}

fn open_limits() -> CueingConfig {
    CueingConfig {
        accel_limit_mps2: 1e6,
        rate_limit_deg_per_s: 1e6,
        surge_limit_m: 1e6,
        sway_limit_m: 1e6,
        heave_limit_m: 1e6,
        roll_limit_deg: 1e6,
        pitch_limit_deg: 1e6,
        yaw_limit_deg: 1e6,
        tilt_max_deg: 30.0,
        ..CueingConfig::default()
    }
}

#[test]
fn tilt_coordination_is_rate_limited() {
    let config = CueingConfig {
        tilt_rate_limit_deg_per_s: 3.0,
        ..open_limits()
    };
    let mut washout = Washout::new(&config, FS);
    let input = CueInput {
        specific_force_mps2: [0.3 * G, 0.0, G],
        ..CueInput::REST
    };
    let mut previous = 0.0f64;
    let mut reached_at = None;
    let max_step = 3.0f64.to_radians() / FS;
    // No rotation and no vertical cue: the pitch output is the tilt channel alone.
    for k in 1..=8000 {
        let pose = washout.step(&input);
        let pitch = pose.pitch_rad;
        assert!(
            (pitch - previous).abs() <= max_step * (1.0 + 1e-9),
            "tick {k}"
        );
        previous = pitch;
        if reached_at.is_none() && (pitch.to_degrees() + 17.458).abs() < 1e-3 {
            reached_at = Some(k as f64 / FS);
        }
    }
    // Sustained forward acceleration tilts the nose up (negative pitch).
    assert!(close(previous.to_degrees(), -17.458, 1e-3));
    let t = reached_at.expect("tilt reaches asin(0.3)");
    assert!(t >= 5.819 - 1e-3, "reached at {t}");
}

#[test]
fn rest_is_neutral_and_reset_clears_everything() {
    let mut washout = Washout::new(&CueingConfig::default(), FS);
    for _ in 0..1000 {
        assert_eq!(
            washout.step(&CueInput::REST),
            crate::motion::kinematics::Pose::NEUTRAL
        );
    }
    let braking = CueInput {
        specific_force_mps2: [-8.0, 3.0, 11.0],
        angular_velocity_radps: [0.2, -0.1, 0.5],
        slip_angle_rad: 0.1,
    };
    for _ in 0..500 {
        washout.step(&braking);
    }
    washout.reset();
    assert_eq!(
        washout.step(&CueInput::REST),
        crate::motion::kinematics::Pose::NEUTRAL
    );
}

#[test]
fn garbage_input_gives_finite_bounded_output() {
    let config = CueingConfig::default();
    let mut washout = Washout::new(&config, FS);
    let values = [f64::NAN, f64::INFINITY, -1e300, 1e300, 5.0];
    for (k, &v) in values.iter().cycle().take(5000).enumerate() {
        let input = CueInput {
            specific_force_mps2: [v, -v, v],
            angular_velocity_radps: [v, v, -v],
            slip_angle_rad: if k % 2 == 0 { v } else { -v },
        };
        let pose = washout.step(&input);
        assert!(pose.is_finite());
        assert!(pose.surge_m.abs() <= config.surge_limit_m);
        assert!(pose.roll_rad.abs() <= config.roll_limit_deg.to_radians());
    }
}

#[test]
fn braking_moves_the_platform_back_and_tilts_nose_down() {
    let mut washout = Washout::new(&CueingConfig::default(), FS);
    let braking = CueInput {
        specific_force_mps2: [-8.0, 0.0, G],
        ..CueInput::REST
    };
    let mut pose = washout.step(&braking);
    for _ in 0..300 {
        pose = washout.step(&braking);
    }
    assert!(pose.surge_m < -0.01, "onset surge {}", pose.surge_m);
    assert!(pose.pitch_rad > 0.0, "nose down under braking");
}
