//! Classical washout (Conrad & Schmidt; Reid & Nahon): vehicle specific force and angular
//! rates in, platform pose out, one call per physics tick.
//!
//! ```text
//!  f - g (scaled, soft-clipped) -> HP2 x HP1 (3rd order) -> double integral -> surge/sway/heave
//!  f_x, f_y (scaled)            -> LP2 -> asin(./g) -> clamp -> rate limit  -> pitch/roll tilt
//!  p, q, r (scaled, soft-clipped) -> HP2 -> integral                        -> roll/pitch/yaw
//!  slip angle beta (gated by speed) -> gain -> HP1                          -> yaw (traction loss)
//! ```
//! Tilt signs: sustained forward acceleration tilts the nose up (`pitch = -asin(a_x/g)`), a
//! left turn lowers the right side (`roll = +asin(a_y/g)`). The third-order translational
//! high-pass brings the platform back to centre under sustained acceleration.
//!
//! Invariants: the input at rest (`f = (0, 0, g)`, no rotation) is a fixed point at neutral;
//! [`Washout::reset`] clears every filter state (car reset or teleport); the output is finite
//! whatever the input (non-finite samples count as 0) and inside the configured soft limits.

use rig_config::motion::CueingConfig;
use rig_physics::CarTelemetry;

use super::filters::{soft_clip, Chain, Filter, RateLimiter};
use crate::motion::kinematics::Pose;

/// Standard gravity, m/s^2.
pub const G: f64 = 9.80665;

/// What the cueing reads from the car each tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CueInput {
    /// Specific force in the body frame (x fwd, y left, z up), m/s^2; `(0, 0, g)` at rest.
    pub specific_force_mps2: [f64; 3],
    /// Body angular velocity (roll, pitch, yaw rates), rad/s.
    pub angular_velocity_radps: [f64; 3],
    /// Vehicle slip angle `atan2(v_y, v_x)`, rad (0 below the traction-loss speed gate).
    pub slip_angle_rad: f64,
}

impl CueInput {
    /// A car at rest: the washout's neutral input.
    pub const REST: CueInput = CueInput {
        specific_force_mps2: [0.0, 0.0, G],
        angular_velocity_radps: [0.0; 3],
        slip_angle_rad: 0.0,
    };

    /// The cue input of `car`; the slip angle is 0 below `min_speed_mps` forward speed.
    pub fn from_telemetry(car: &CarTelemetry, min_speed_mps: f64) -> CueInput {
        let v = car.velocity_body_mps;
        let slip = if v[0] > min_speed_mps {
            v[1].atan2(v[0])
        } else {
            0.0
        };
        CueInput {
            specific_force_mps2: car.specific_force_body_mps2,
            angular_velocity_radps: car.angular_velocity_body_radps,
            slip_angle_rad: slip,
        }
    }
}

/// Washout state for one platform.
#[derive(Debug, Clone)]
pub struct Washout {
    config: CueingConfig,
    translation: [Chain<4>; 3],
    tilt_low_pass: [Filter; 2],
    tilt_rate: [RateLimiter; 2],
    rotation: [Chain<2>; 3],
    traction_loss: Filter,
}

impl Washout {
    /// A washout at rest running at `fs` Hz.
    pub fn new(config: &CueingConfig, fs: f64) -> Washout {
        let c = config;
        let break_stage = if c.washout_break_radps > 0.0 {
            Filter::high_pass_1(c.washout_break_radps, fs)
        } else {
            Filter::identity()
        };
        let translation = Chain([
            Filter::high_pass_2(c.washout_omega_radps, c.washout_zeta, fs),
            break_stage,
            Filter::integrator(fs),
            Filter::integrator(fs),
        ]);
        let rotation = Chain([
            Filter::high_pass_2(c.rotation_omega_radps, c.rotation_zeta, fs),
            Filter::integrator(fs),
        ]);
        let tilt_rate = RateLimiter::new(c.tilt_rate_limit_deg_per_s.to_radians(), fs);
        Washout {
            config: c.clone(),
            translation: [translation; 3],
            tilt_low_pass: [Filter::low_pass_2(c.tilt_omega_radps, c.tilt_zeta, fs); 2],
            tilt_rate: [tilt_rate; 2],
            rotation: [rotation; 3],
            traction_loss: Filter::high_pass_1(c.traction_loss_washout_radps, fs),
        }
    }

    /// Every filter back to rest: the next output starts from neutral.
    pub fn reset(&mut self) {
        self.translation.iter_mut().for_each(Chain::reset);
        self.tilt_low_pass.iter_mut().for_each(Filter::reset);
        self.tilt_rate.iter_mut().for_each(|r| r.value = 0.0);
        self.rotation.iter_mut().for_each(Chain::reset);
        self.traction_loss.reset();
    }

    /// One tick: the platform pose for `input`.
    pub fn step(&mut self, input: &CueInput) -> Pose {
        let c = &self.config;
        let f = input.specific_force_mps2;
        let accel_gains = [c.surge_gain, c.sway_gain, c.heave_gain];
        let deviation = [f[0], f[1], f[2] - G];
        let accel: [f64; 3] =
            std::array::from_fn(|i| soft_clip(accel_gains[i] * deviation[i], c.accel_limit_mps2));
        let translation: [f64; 3] = std::array::from_fn(|i| self.translation[i].step(accel[i]));

        // Tilt coordination: the sustained part of the horizontal specific force.
        let max_tilt = c.tilt_max_deg.to_radians();
        let tilt_angle = |lp: f64, sign: f64| {
            let s = (c.tilt_gain * lp / G).clamp(-1.0, 1.0);
            (sign * s.asin()).clamp(-max_tilt, max_tilt)
        };
        let lp_x = self.tilt_low_pass[0].step(accel[0]);
        let lp_y = self.tilt_low_pass[1].step(accel[1]);
        let tilt_pitch = self.tilt_rate[0].step(tilt_angle(lp_x, -1.0));
        let tilt_roll = self.tilt_rate[1].step(tilt_angle(lp_y, 1.0));

        let rate_gains = [c.roll_rate_gain, c.pitch_rate_gain, c.yaw_rate_gain];
        let rate_limit = c.rate_limit_deg_per_s.to_radians();
        let w = input.angular_velocity_radps;
        let rotation: [f64; 3] = std::array::from_fn(|i| {
            self.rotation[i].step(soft_clip(rate_gains[i] * w[i], rate_limit))
        });
        // Rear stepping out (negative body slip in a left-hand slide) yaws the seat nose-left.
        let traction = self
            .traction_loss
            .step(-c.traction_loss_gain * finite_or_zero(input.slip_angle_rad));

        Pose {
            surge_m: soft_clip(translation[0], c.surge_limit_m),
            sway_m: soft_clip(translation[1], c.sway_limit_m),
            heave_m: soft_clip(translation[2], c.heave_limit_m),
            roll_rad: soft_clip(rotation[0] + tilt_roll, c.roll_limit_deg.to_radians()),
            pitch_rad: soft_clip(rotation[1] + tilt_pitch, c.pitch_limit_deg.to_radians()),
            yaw_rad: soft_clip(rotation[2] + traction, c.yaw_limit_deg.to_radians()),
        }
    }
}

fn finite_or_zero(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}
