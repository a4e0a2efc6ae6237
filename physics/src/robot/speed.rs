//! The speed profile along the line: the fastest speed each station's curvature and banking
//! allow with the car's grip and downforce (the banked-curve limit), then a backward pass for
//! braking and a forward pass for traction inside the friction circle. Braking points are
//! where the backward pass bites.
//!
//! Corner limit with bank angle `th` (towards the turn), friction `mu`, downforce `k v^2`:
//! `v^2 = g (sin th + mu cos th) / ((cos th - mu sin th) / R - mu k / m)`; a non-positive
//! denominator means no grip limit (capped at the top speed).

use super::limits::DriverLimits;
use super::line::Station;

/// Gravity, m/s^2.
const G: f64 = 9.81;

/// Fastest steady speed through curvature `curvature_per_m` on bank `bank_rad` (positive:
/// left edge lower) with friction `mu`.
pub fn corner_limit_mps(
    limits: &DriverLimits,
    mu: f64,
    curvature_per_m: f64,
    bank_rad: f64,
) -> f64 {
    let k = curvature_per_m.abs();
    if k < 1e-6 {
        return limits.top_speed_mps;
    }
    // Banking helps when the low edge is on the inside of the turn.
    let th = if curvature_per_m > 0.0 {
        bank_rad
    } else {
        -bank_rad
    };
    let (sin, cos) = th.sin_cos();
    let numerator = G * (sin + mu * cos);
    let denominator = (cos - mu * sin) * k - mu * limits.downforce_n_per_mps2 / limits.mass_kg;
    if denominator <= 0.0 || numerator <= 0.0 {
        return if numerator <= 0.0 {
            0.0
        } else {
            limits.top_speed_mps
        };
    }
    (numerator / denominator).sqrt().min(limits.top_speed_mps)
}

/// Longitudinal acceleration left inside the friction circle at `speed` on curvature `k`.
fn remaining(limits: &DriverLimits, mu_lat: f64, mu_long: f64, speed: f64, k: f64) -> f64 {
    let grip_g = G + limits.downforce_n_per_mps2 * speed * speed / limits.mass_kg;
    let lateral = speed * speed * k.abs();
    let used = (lateral / (mu_lat * grip_g)).min(1.0);
    mu_long * grip_g * (1.0 - used * used).sqrt()
}

/// Target speeds per station using `grip` (fraction of the limits the robot dares to use) on
/// each station's ground (`Station::grip_scale`: gravel and wet patches are taken slower).
pub fn profile(limits: &DriverLimits, stations: &[Station], grip: f64) -> Vec<f64> {
    let m = stations.len();
    let mu_lat = limits.mu_lat * grip;
    let mu_long = limits.mu_long * grip;
    let mut v: Vec<f64> = stations
        .iter()
        .map(|s| corner_limit_mps(limits, mu_lat * s.grip_scale, s.curvature_per_m, s.bank_rad))
        .collect();
    // Backward (braking) then forward (traction) passes, twice round the closed lap.
    for _ in 0..2 {
        for step in (0..2 * m).rev() {
            let j = step % m;
            let next = (j + 1) % m;
            let ground = stations[next].grip_scale;
            let decel = remaining(
                limits,
                mu_lat * ground,
                mu_long * ground,
                v[next],
                stations[next].curvature_per_m,
            );
            let reachable = (v[next] * v[next] + 2.0 * decel * stations[j].step_m).sqrt();
            v[j] = v[j].min(reachable);
        }
        for step in 0..2 * m {
            let j = step % m;
            let next = (j + 1) % m;
            let ground = stations[j].grip_scale;
            let accel = remaining(
                limits,
                mu_lat * ground,
                mu_long * ground,
                v[j],
                stations[j].curvature_per_m,
            ) * limits.driven_weight_fraction;
            let reachable = (v[j] * v[j] + 2.0 * accel * stations[j].step_m).sqrt();
            v[next] = v[next].min(reachable);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> DriverLimits {
        DriverLimits {
            mu_lat: 1.0,
            load_sensitivity: 0.0,
            nominal_load_n: 4000.0,
            mu_long: 1.0,
            driven_weight_fraction: 0.5,
            mass_kg: 1000.0,
            downforce_n_per_mps2: 0.0,
            wheelbase_m: 2.6,
            max_steer_rad: 0.5,
            half_width_m: 0.9,
            wheel_radius_m: 0.3,
            overall_ratios: [0.0; super::super::limits::MAX_GEARS],
            forward_gears: 0,
            rev_limit_rpm: 0.0,
            idle_rpm: 0.0,
            shift_needs_clutch: false,
            sequential: false,
            auto_clutch: false,
            top_speed_mps: 90.0,
        }
    }

    #[test]
    fn corner_limits_match_the_reference_values() {
        // Reference 2b: R 100 m, mu 1: flat 31.32 m/s, 10 degrees banked 37.43 m/s.
        let l = limits();
        assert!((corner_limit_mps(&l, 1.0, 0.01, 0.0) - 31.32).abs() < 0.01);
        assert!((corner_limit_mps(&l, 1.0, 0.01, 10f64.to_radians()) - 37.43).abs() < 0.01);
        // The same bank on a right-hander works against the car.
        assert!(corner_limit_mps(&l, 1.0, -0.01, 10f64.to_radians()) < 31.32);
        // Downforce raises the limit.
        let aero = DriverLimits {
            downforce_n_per_mps2: 2.0,
            ..l
        };
        assert!(corner_limit_mps(&aero, 1.0, 0.01, 0.0) > 35.0);
    }

    #[test]
    fn braking_points_respect_the_deceleration_limit() {
        // 400 m straight then a tight 50 m radius: the speed falls at mu g before it.
        let mut stations = vec![
            Station {
                step_m: 4.0,
                ..Station::default()
            };
            200
        ];
        for s in stations.iter_mut().skip(100).take(20) {
            s.curvature_per_m = 0.02;
        }
        let v = profile(&limits(), &stations, 1.0);
        let corner = (9.81f64 * 50.0).sqrt();
        assert!((v[110] - corner).abs() < 1e-6);
        // The corner's first station (100) is already at the limit; braking ends at station 99,
        // so 36 m before it: v^2 = corner^2 + 2 g 36 (no lateral load on the straight).
        let expected = (corner * corner + 2.0 * 9.81 * 36.0).sqrt();
        assert!((v[90] - expected).abs() < 1e-6, "{} vs {expected}", v[90]);
        assert!(v.iter().all(|s| s.is_finite() && *s > 0.0));
    }
}
