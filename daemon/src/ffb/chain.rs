//! The force-feedback signal chain: physics steering torque at the rim (N m) in, device command
//! (share of the base's maximum, -1 ..= 1) out. Pure and allocation-free: it runs on the RT
//! thread once per tick.
//!
//! Order per tick: user gain -> optional low-pass -> damping, friction and inertia from the rim
//! motion -> soft lock past the car's lock -> hard cap (clipping meter) -> minimum force ->
//! safety ramp -> slew-rate limit -> sign for the device.
//!
//! Invariants (property-tested): the output is always finite and `|torque| <= torque_cap_nm`;
//! after `reset` the output starts at zero and rises no faster than the ramp and the slew rate
//! allow; any non-finite input gives zero force for that tick and restarts the ramp.
//! Sign: positive torque pulls the rim to the left (the physics convention); `invert` flips it
//! for the device only.

use rig_config::devices::{FfbConfig, SteeringConfig};

/// Rim motion measured by the input layer (positive left, like the physics).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RimMotion {
    /// Rim angle from centre, rad (positive left); NaN when unknown.
    pub angle_rad: f64,
    /// Rim speed, rad/s (positive turning left); NaN when unknown.
    pub velocity_radps: f64,
}

/// One tick's result.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FfbOutput {
    /// Torque sent to the base, N m (after every stage, device sign applied).
    pub torque_nm: f64,
    /// The same as a share of the base's maximum torque, -1 ..= 1.
    pub fraction: f64,
    /// True when the hard cap cut the torque this tick.
    pub clipped: bool,
    /// Share of recent ticks (about one second) that clipped, 0 ..= 1.
    pub clipping_share: f64,
    /// True when this tick's input was not finite (the output is zero).
    pub fault: bool,
}

/// Friction rounds its sign change over this rim speed, rad/s, so a resting rim does not buzz.
const FRICTION_SMOOTHING_RADPS: f64 = 0.3;
/// Time constant of the clipping meter, s.
const CLIP_METER_S: f64 = 1.0;
/// Commands smaller than this are "no force" for the minimum-force stage, N m.
const MIN_FORCE_THRESHOLD_NM: f64 = 1e-3;

/// The chain's tuning, derived once from the config (no parsing on the RT thread).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainParams {
    /// User gain.
    pub gain: f64,
    /// Device sign.
    pub invert: bool,
    /// Device maximum, N m.
    pub base_max_torque_nm: f64,
    /// Hard cap, N m (<= base maximum).
    pub torque_cap_nm: f64,
    /// Low-pass cut-off, Hz (0 = off).
    pub lowpass_hz: f64,
    /// N m per rad/s.
    pub damping_nm_per_radps: f64,
    /// N m.
    pub friction_nm: f64,
    /// N m per rad/s^2.
    pub inertia_nm_per_radps2: f64,
    /// Minimum-force torque, N m.
    pub min_force_nm: f64,
    /// Half of the car's lock, rad.
    pub soft_lock_start_rad: f64,
    /// N m per rad past the lock.
    pub soft_lock_nm_per_rad: f64,
    /// N m per s.
    pub slew_rate_nm_per_s: f64,
    /// Fade-in time, s.
    pub ramp_s: f64,
}

impl ChainParams {
    /// Derives the parameters; the cap is clamped to the device limit even if validation was
    /// skipped, so no config can raise the torque past the base's maximum.
    pub fn from_config(ffb: &FfbConfig, steering: &SteeringConfig) -> ChainParams {
        let base = ffb.base_max_torque_nm.max(0.0);
        let cap = ffb.torque_cap_nm.clamp(0.0, base);
        ChainParams {
            gain: ffb.gain,
            invert: ffb.invert,
            base_max_torque_nm: base,
            torque_cap_nm: cap,
            lowpass_hz: ffb.lowpass_hz,
            damping_nm_per_radps: ffb.damping_nm_per_radps,
            friction_nm: ffb.friction_nm,
            inertia_nm_per_radps2: ffb.inertia_nm_per_radps2,
            min_force_nm: (ffb.min_force * base).min(cap),
            soft_lock_start_rad: (steering.effective_car_lock_deg() / 2.0).to_radians(),
            soft_lock_nm_per_rad: ffb.soft_lock_nm_per_deg.to_degrees(),
            slew_rate_nm_per_s: ffb.slew_rate_nm_per_s,
            ramp_s: ffb.ramp_s,
        }
    }
}

/// The chain's state.
#[derive(Debug, Clone)]
pub struct FfbChain {
    params: ChainParams,
    dt_s: f64,
    lowpass_nm: f64,
    last_velocity_radps: f64,
    ramp: f64,
    last_output_nm: f64,
    clip_share: f64,
}

fn finite_or(v: f64, fallback: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        fallback
    }
}

impl FfbChain {
    /// A chain ticking every `dt_s` seconds, starting at zero force with the ramp at zero.
    pub fn new(params: ChainParams, dt_s: f64) -> FfbChain {
        FfbChain {
            params,
            dt_s,
            lowpass_nm: 0.0,
            last_velocity_radps: 0.0,
            ramp: 0.0,
            last_output_nm: 0.0,
            clip_share: 0.0,
        }
    }

    /// The parameters in use.
    pub fn params(&self) -> &ChainParams {
        &self.params
    }

    /// Drops all state: the next tick starts from zero force and ramps in again (start, resume,
    /// reconnect, e-stop re-arm, fault).
    pub fn reset(&mut self) {
        self.lowpass_nm = 0.0;
        self.last_velocity_radps = 0.0;
        self.ramp = 0.0;
        self.last_output_nm = 0.0;
    }

    /// The current fade-in factor, 0 ..= 1.
    pub fn ramp(&self) -> f64 {
        self.ramp
    }

    /// One tick: `rim_torque_nm` from the physics, `rim` from the input layer.
    pub fn step(&mut self, rim_torque_nm: f64, rim: RimMotion) -> FfbOutput {
        let p = self.params;
        let dt = self.dt_s;
        if !rim_torque_nm.is_finite() {
            self.reset();
            return FfbOutput {
                clipping_share: self.clip_share,
                fault: true,
                ..FfbOutput::default()
            };
        }
        let mut torque = rim_torque_nm * p.gain;

        if p.lowpass_hz > 0.0 {
            let tau = 1.0 / (2.0 * std::f64::consts::PI * p.lowpass_hz);
            let alpha = dt / (dt + tau);
            self.lowpass_nm += alpha * (torque - self.lowpass_nm);
            torque = self.lowpass_nm;
        }

        let velocity = finite_or(rim.velocity_radps, 0.0);
        let acceleration = (velocity - self.last_velocity_radps) / dt;
        self.last_velocity_radps = velocity;
        torque -= p.damping_nm_per_radps * velocity;
        torque -= p.friction_nm * (velocity / FRICTION_SMOOTHING_RADPS).tanh();
        torque -= p.inertia_nm_per_radps2 * acceleration;

        let angle = finite_or(rim.angle_rad, 0.0);
        let past_lock = angle.abs() - p.soft_lock_start_rad;
        if past_lock > 0.0 {
            torque -= angle.signum() * past_lock * p.soft_lock_nm_per_rad;
        }

        let clipped = torque.abs() > p.torque_cap_nm;
        torque = torque.clamp(-p.torque_cap_nm, p.torque_cap_nm);
        let k = dt / CLIP_METER_S;
        self.clip_share += k * (f64::from(u8::from(clipped)) - self.clip_share);

        if p.min_force_nm > 0.0 && torque.abs() > MIN_FORCE_THRESHOLD_NM {
            let span = p.torque_cap_nm - p.min_force_nm;
            torque = torque.signum() * (p.min_force_nm + torque.abs() * span / p.torque_cap_nm);
        }

        self.ramp = (self.ramp + dt / p.ramp_s).min(1.0);
        torque *= self.ramp;

        let max_step = p.slew_rate_nm_per_s * dt;
        torque = torque.clamp(
            self.last_output_nm - max_step,
            self.last_output_nm + max_step,
        );
        torque = torque.clamp(-p.torque_cap_nm, p.torque_cap_nm);
        if !torque.is_finite() {
            self.reset();
            return FfbOutput {
                clipping_share: self.clip_share,
                fault: true,
                ..FfbOutput::default()
            };
        }
        self.last_output_nm = torque;

        let device_torque = if p.invert { -torque } else { torque };
        FfbOutput {
            torque_nm: device_torque,
            fraction: if p.base_max_torque_nm > 0.0 {
                (device_torque / p.base_max_torque_nm).clamp(-1.0, 1.0)
            } else {
                0.0
            },
            clipped,
            clipping_share: self.clip_share,
            fault: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DT: f64 = 0.001;

    fn params() -> ChainParams {
        ChainParams::from_config(&FfbConfig::default(), &SteeringConfig::default())
    }

    fn still() -> RimMotion {
        RimMotion::default()
    }

    fn run(chain: &mut FfbChain, torque: f64, ticks: usize) -> FfbOutput {
        let mut out = FfbOutput::default();
        for _ in 0..ticks {
            out = chain.step(torque, still());
        }
        out
    }

    #[test]
    fn ramp_takes_ramp_s_from_start_and_after_reset() {
        let p = params();
        let mut chain = FfbChain::new(p, DT);
        let half_ramp = (p.ramp_s / 2.0 / DT) as usize;
        let out = run(&mut chain, 1.0, half_ramp);
        assert!((out.torque_nm - 0.5).abs() < 0.01, "{out:?}");
        let out = run(&mut chain, 1.0, half_ramp + 5);
        assert!((out.torque_nm - 1.0).abs() < 1e-9, "{out:?}");
        chain.reset();
        let out = run(&mut chain, 1.0, 1);
        assert!(out.torque_nm <= 1.0 * DT / p.ramp_s + 1e-12, "{out:?}");
    }

    #[test]
    fn cap_clips_and_the_meter_counts_clipped_ticks() {
        let mut chain = FfbChain::new(params(), DT);
        run(&mut chain, 1.0, 2000);
        let out = run(&mut chain, 10.0, 3000);
        assert!(out.clipped);
        assert!((out.torque_nm - 2.2).abs() < 1e-9);
        assert!((out.fraction - 1.0).abs() < 1e-9);
        assert!(out.clipping_share > 0.9, "{out:?}");
        let out = run(&mut chain, 1.0, 3000);
        assert!(!out.clipped && out.clipping_share < 0.1, "{out:?}");
    }

    #[test]
    fn cap_cannot_exceed_the_device_limit_even_unvalidated() {
        let cfg = FfbConfig {
            torque_cap_nm: 50.0,
            ..FfbConfig::default()
        };
        let p = ChainParams::from_config(&cfg, &SteeringConfig::default());
        assert_eq!(p.torque_cap_nm, cfg.base_max_torque_nm);
    }

    #[test]
    fn non_finite_input_gives_zero_and_restarts_the_ramp() {
        let mut chain = FfbChain::new(params(), DT);
        run(&mut chain, 1.0, 3000);
        let out = chain.step(f64::NAN, still());
        assert!(out.fault && out.torque_nm == 0.0);
        assert_eq!(chain.ramp(), 0.0);
    }

    #[test]
    fn soft_lock_pushes_back_past_the_cars_lock() {
        let mut chain = FfbChain::new(params(), DT);
        let past_left = RimMotion {
            angle_rad: (450.0f64 + 5.0).to_radians(),
            velocity_radps: 0.0,
        };
        let mut out = FfbOutput::default();
        for _ in 0..3000 {
            out = chain.step(0.0, past_left);
        }
        // 5 degrees past the lock at 0.2 N m per degree: 1 N m to the right.
        assert!((out.torque_nm + 1.0).abs() < 1e-6, "{out:?}");
    }

    #[test]
    fn damping_opposes_rim_speed_and_invert_flips_the_device_sign() {
        let cfg = FfbConfig {
            damping_nm_per_radps: 0.1,
            invert: true,
            ..FfbConfig::default()
        };
        let mut chain = FfbChain::new(
            ChainParams::from_config(&cfg, &SteeringConfig::default()),
            DT,
        );
        let turning_left = RimMotion {
            angle_rad: 0.0,
            velocity_radps: 5.0,
        };
        let mut out = FfbOutput::default();
        for _ in 0..3000 {
            out = chain.step(0.0, turning_left);
        }
        // -0.5 N m (against the motion), inverted for the device.
        assert!((out.torque_nm - 0.5).abs() < 1e-6, "{out:?}");
    }

    #[test]
    fn min_force_lifts_small_commands_but_keeps_zero() {
        let cfg = FfbConfig {
            min_force: 0.1,
            ..FfbConfig::default()
        };
        let mut chain = FfbChain::new(
            ChainParams::from_config(&cfg, &SteeringConfig::default()),
            DT,
        );
        let out = run(&mut chain, 0.05, 3000);
        assert!(
            (out.torque_nm - (0.22 + 0.05 * 0.9)).abs() < 1e-6,
            "{out:?}"
        );
        let out = run(&mut chain, 0.0, 3000);
        assert_eq!(out.torque_nm, 0.0);
    }

    proptest! {
        #[test]
        fn output_is_finite_capped_and_slew_limited(
            torques in proptest::collection::vec(prop_oneof![
                any::<f64>(),
                -100.0f64..100.0,
                Just(f64::NAN),
                Just(f64::INFINITY),
            ], 1..400),
            angle in prop_oneof![any::<f64>(), -20.0f64..20.0],
            velocity in prop_oneof![any::<f64>(), -50.0f64..50.0],
            cap in 0.1f64..2.2,
            slew in 1.0f64..5000.0,
            damping in 0.0f64..5.0,
            lowpass in 0.0f64..500.0,
        ) {
            let cfg = FfbConfig {
                torque_cap_nm: cap,
                slew_rate_nm_per_s: slew,
                damping_nm_per_radps: damping,
                lowpass_hz: lowpass,
                friction_nm: 0.05,
                inertia_nm_per_radps2: 0.01,
                min_force: 0.05,
                ..FfbConfig::default()
            };
            let p = ChainParams::from_config(&cfg, &SteeringConfig::default());
            let mut chain = FfbChain::new(p, DT);
            let mut last = 0.0f64;
            for (i, t) in torques.iter().enumerate() {
                let out = chain.step(*t, RimMotion { angle_rad: angle, velocity_radps: velocity });
                prop_assert!(out.torque_nm.is_finite() && out.fraction.is_finite());
                prop_assert!(out.torque_nm.abs() <= cap + 1e-12);
                prop_assert!((-1.0..=1.0).contains(&out.fraction));
                if !out.fault {
                    prop_assert!((out.torque_nm - last).abs() <= slew * DT + 1e-9);
                    // Ramp: never above the fade-in share of the cap.
                    prop_assert!(out.torque_nm.abs() <= cap * chain.ramp() + 1e-9);
                } else {
                    prop_assert_eq!(out.torque_nm, 0.0);
                }
                prop_assert!(i > 0 || out.torque_nm.abs() <= cap * DT / p.ramp_s + 1e-12);
                last = out.torque_nm;
            }
        }
    }
}
