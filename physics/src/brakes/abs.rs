//! Anti-lock braking: a per-wheel slip controller that holds each braked tyre at the slip
//! ratio of its own Magic Formula peak, by scaling that wheel's pedal torque with a factor
//! 0..1 that moves smoothly (rate-limited) from step to step.
//!
//! Target: the slip ratio where the tyre's pure longitudinal braking force peaks, found once
//! per load on a table per axle at construction (each axle with its own coefficient set, load
//! steps and friction scale) (golden-section search on the MF curve) and scaled by
//! the friction scale of tyre and surface under the wheel (with MF 6.1's lambda_mu the slip
//! stiffness is unscaled, so the peak slip is proportional to the friction scale). A real
//! ABS finds the peak by probing; here it is given the model's peak, which is what a
//! well-calibrated ABS converges to.
//!
//! Control law (why it holds the slip without a limit cycle): the wheel's slip obeys
//! `I ds/dt = (r / v) (T_brake - r F_brake) - I (1 - s) a / v` (s = braking slip, F_brake the
//! braking road force, a the car's deceleration). The ABS asks for the torque that balances
//! the road force and the wheel's share of the deceleration, plus a slip error term:
//! `T = r F_brake + I (1 - s) a / r + (I v / r) (g (s* - s) + z)`, which makes
//! `ds/dt = g (s* - s) + z` (first order, time constant 1/g). The force comes from the
//! previous step (the ABS knows its line pressure and the wheel's deceleration, hence the
//! road torque). `z` integrates `g^2 / 4 (s* - s)` while the factor is not at a limit: it
//! removes the steady error left by what the balance does not know (driveline inertia and
//! drag on driven wheels). Feedback is on the tyre's effective slip (the relaxed one that
//! makes the force), which lags the wheel by sigma / v, so g is capped at v / (2 sigma) to
//! keep the loop well damped at low speed.
//!
//! Inactive below [`ABS_CUT_OUT_MPS`] (as on real cars, so the car stops and holds with
//! locked wheels), for wheels off the ground (no road force to balance: full pedal), and
//! whenever the pedal torque is already below what the controller would allow.
//! Units: N m, N, m, m/s, s.

use crate::telemetry::WheelTelemetry;
use crate::track::Surface;
use crate::tyre::Tyre;

/// Speed below which the ABS does nothing, m/s.
pub const ABS_CUT_OUT_MPS: f64 = 2.0;
/// Largest slip-control bandwidth g, 1/s.
const MAX_BANDWIDTH_PER_S: f64 = 50.0;
/// Fastest change of a wheel's modulation factor, 1/s (full release or re-apply in 20 ms,
/// the order of an ABS valve's dump and build times).
const MAX_FACTOR_RATE_PER_S: f64 = 50.0;
/// Loads of the peak-slip table: 0, 1, ... (N - 1) times this fraction of FNOMIN.
const TABLE_LOAD_STEP: f64 = 0.2;
/// Entries of the peak-slip table (0 .. 3 x FNOMIN).
const TABLE_LEN: usize = 16;

/// Per-wheel ABS controller of one car.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Abs {
    enabled: bool,
    /// Per axle (0 front, 1 rear): peak braking slip magnitude at unit friction scale, at
    /// loads `i * load_step_n[axle]`.
    peak_slip: [[f64; TABLE_LEN]; 2],
    load_step_n: [f64; 2],
    /// Per axle: the tyre's longitudinal friction scale.
    tyre_grip: [f64; 2],
    spin_inertia_kgm2: f64,
    sigma_long_m: f64,
    /// Pedal-torque scale of each wheel, 0..1.
    factor: [f64; 4],
    /// Integral of each wheel's slip error times g^2 / 4, 1/s: removes the steady error left
    /// by what the balance does not know (driveline inertia, drag torques).
    slip_rate_trim: [f64; 4],
    /// Car speed of the previous step (for the deceleration), m/s; negative before the first.
    last_speed_mps: f64,
}

impl Abs {
    /// The controller for `tyre`, on (`enabled`) or permanently passing the pedal through.
    pub fn new(enabled: bool, tyre: &Tyre) -> Abs {
        let load_step_n = tyre.axles.map(|a| TABLE_LOAD_STEP * a.mf.fnomin);
        let peak_slip = [0, 1].map(|axle| {
            std::array::from_fn(|i| {
                // The zero-load entry uses a small load (the MF curve shape is defined there).
                let load = (i as f64 * load_step_n[axle]).max(0.05 * load_step_n[axle]);
                peak_braking_slip(tyre, axle, load, 1.0)
            })
        });
        Abs {
            enabled,
            peak_slip,
            load_step_n,
            tyre_grip: tyre.axles.map(|a| a.grip.mu_x),
            spin_inertia_kgm2: tyre.spin_inertia,
            sigma_long_m: tyre.sigma_m[0],
            factor: [1.0; 4],
            slip_rate_trim: [0.0; 4],
            last_speed_mps: -1.0,
        }
    }

    /// Target braking slip (magnitude, > 0) of a tyre on axle `axle` (0 front, 1 rear) at a
    /// load and friction scale of tyre x surface.
    pub fn target_slip(&self, axle: usize, load_n: f64, grip: f64) -> f64 {
        let table = &self.peak_slip[axle];
        let x = (load_n / self.load_step_n[axle]).clamp(0.0, (TABLE_LEN - 1) as f64);
        let i = (x as usize).min(TABLE_LEN - 2);
        let f = x - i as f64;
        grip * (table[i] + f * (table[i + 1] - table[i]))
    }

    /// Updates and returns each wheel's pedal-torque factor for this step. `pedal_nm` are
    /// the torques the pedal alone would apply, `wheels` the previous step's wheel record
    /// (slip, force, load, radius, surface), `speed_mps` the car's speed.
    pub fn step(
        &mut self,
        pedal_nm: [f64; 4],
        wheels: &[WheelTelemetry; 4],
        speed_mps: f64,
        dt_s: f64,
    ) -> [f64; 4] {
        if !self.enabled {
            return self.factor;
        }
        let last_speed_mps = self.last_speed_mps;
        self.last_speed_mps = speed_mps;
        let active = speed_mps > ABS_CUT_OUT_MPS;
        let max_change = MAX_FACTOR_RATE_PER_S * dt_s;
        if !(active && pedal_nm.iter().any(|&nm| nm > 0.0)) {
            // No wheel under control (the pedal off, nearly every step of a drive): every
            // factor recovers towards 1 with its trim cleared, as in the loop below, without
            // the controller's divisions.
            self.slip_rate_trim = [0.0; 4];
            for factor in &mut self.factor {
                *factor += (1.0 - *factor).clamp(-max_change, max_change);
            }
            return self.factor;
        }
        let decel = if last_speed_mps >= 0.0 {
            ((last_speed_mps - speed_mps) / dt_s).max(0.0)
        } else {
            0.0
        };
        let bandwidth = MAX_BANDWIDTH_PER_S.min(speed_mps / (2.0 * self.sigma_long_m));
        for i in 0..4 {
            let w = &wheels[i];
            let wanted = if active && w.in_contact && pedal_nm[i] > 0.0 && w.radius_m > 0.0 {
                let grip = self.tyre_grip[i / 2] * Surface::of(w.surface).grip_scale;
                let target = self.target_slip(i / 2, w.load_n, grip);
                let slip = -w.slip_ratio;
                let r = w.radius_m;
                let inertia = self.spin_inertia_kgm2;
                let balance = -w.force_long_n * r + inertia * (1.0 - slip) * decel / r;
                let error = target - slip;
                let trim = &mut self.slip_rate_trim[i];
                let correction = inertia * speed_mps / r * (bandwidth * error + *trim);
                let wanted = (balance + correction) / pedal_nm[i];
                // Integrate only while the factor is free (no wind-up against a limit).
                if (0.0..1.0).contains(&wanted) {
                    *trim += 0.25 * bandwidth * bandwidth * error * dt_s;
                }
                wanted.clamp(0.0, 1.0)
            } else {
                self.slip_rate_trim[i] = 0.0;
                1.0
            };
            let factor = &mut self.factor[i];
            *factor += (wanted - *factor).clamp(-max_change, max_change);
        }
        self.factor
    }
}

/// Slip magnitude (> 0) where the pure braking force of `tyre` on axle `axle` (0 front, 1
/// rear) peaks at `load_n` with friction scale `grip`: golden-section search on the
/// (unimodal) MF curve over 0..1.
pub fn peak_braking_slip(tyre: &Tyre, axle: usize, load_n: f64, grip: f64) -> f64 {
    let mf = tyre.axle_prepared_mf(axle);
    let braking = |slip: f64| -mf.combined(-slip, 0.0, load_n, scale(grip)).fx;
    let ratio = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if braking(a) < braking(b) {
            lo = a;
        } else {
            hi = b;
        }
    }
    0.5 * (lo + hi)
}

fn scale(grip: f64) -> crate::tyre::mf61::GripScale {
    crate::tyre::mf61::GripScale {
        mu_x: grip,
        mu_y: grip,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::builtin;

    fn road_tyre() -> Tyre {
        let spec = builtin::car("road").unwrap();
        Tyre::new(&spec.tyre, 3000.0, 325.0)
    }

    #[test]
    fn target_is_the_peak_of_the_tyre_curve() {
        let tyre = road_tyre();
        let abs = Abs::new(true, &tyre);
        for load in [1500.0, 3200.0, 5000.0, 7300.0] {
            let peak = peak_braking_slip(&tyre, 0, load, 1.0);
            let target = abs.target_slip(0, load, 1.0);
            // Between table entries the interpolation costs a little slip, never force.
            assert!(
                (target / peak - 1.0).abs() < 0.01,
                "{load} N: {target} vs {peak}"
            );
            let fx = |s: f64| -tyre.prepared_mf.combined(-s, 0.0, load, scale(1.0)).fx;
            assert!(fx(target) > 0.9999 * fx(peak));
            assert!(fx(peak) > fx(peak - 0.02) && fx(peak) > fx(peak + 0.02));
            // This tyre peaks near 14 % slip (Pacejka 2006, table A3.1).
            assert!((0.10..0.18).contains(&peak), "{load} N: peak slip {peak}");
        }
    }

    #[test]
    fn target_scales_with_the_friction_scale() {
        let tyre = road_tyre();
        let abs = Abs::new(true, &tyre);
        for grip in [0.5, 0.65, 0.9] {
            let exact = peak_braking_slip(&tyre, 0, 4000.0, grip);
            let target = abs.target_slip(0, 4000.0, grip);
            assert!(
                (target - exact).abs() < 2e-3,
                "grip {grip}: {target} vs {exact}"
            );
        }
    }
}
