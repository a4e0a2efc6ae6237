//! Shared unit, axis and saturation helpers for the telemetry encoders and decoders.
//!
//! Every conversion that more than one format needs lives here so each format module only
//! states *which* mapping it uses. Invariants: no helper panics or produces NaN from finite
//! input; casts to integers saturate, and non-finite input becomes 0 (the neutral value).

use rig_types::CarTelemetry;
use zerocopy::little_endian::F32;

/// Standard gravity, m/s^2: formats that report accelerations in g divide by this.
pub const STANDARD_GRAVITY_MPS2: f64 = 9.80665;

/// Radians per second per rpm.
pub const RADPS_PER_RPM: f64 = std::f64::consts::TAU / 60.0;

/// kPa per psi (formats that send tyre pressures in psi).
pub const KPA_PER_PSI: f64 = 6.894_757;

/// `x` as f32 with non-finite values replaced by 0, so no packet carries NaN or inf.
pub fn f32_of(x: f64) -> F32 {
    F32::new(finite_or_zero(x) as f32)
}

/// The three components of `v` as little-endian f32.
pub fn f32x3(v: [f64; 3]) -> [F32; 3] {
    v.map(f32_of)
}

/// `x`, or 0 when it is NaN or infinite.
pub fn finite_or_zero(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

/// A 0..=1 value as 0..=255 (rounded, clamped; non-finite gives 0).
pub fn unit_to_u8(x: f64) -> u8 {
    (finite_or_zero(x).clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A -1..=1 value as -127..=127 (rounded, clamped; non-finite gives 0).
pub fn signed_unit_to_i8(x: f64) -> i8 {
    (finite_or_zero(x).clamp(-1.0, 1.0) * 127.0).round() as i8
}

/// `x` rounded and saturated to i32 (non-finite gives 0).
pub fn saturating_i32(x: f64) -> i32 {
    finite_or_zero(x).round() as i32
}

/// Simulation time in milliseconds rounded to the nearest (tick times like 1.440999... s are
/// 1441 ms, not 1440), wrapping like a game's `u32` millisecond clock.
pub fn millis_wrapping(time_s: f64) -> u32 {
    let ms = (finite_or_zero(time_s).max(0.0) * 1000.0).round();
    (ms as u64 % (u64::from(u32::MAX) + 1)) as u32
}

/// Our gear (-1 R, 0 N, 1..) in the LFS convention (0 R, 1 N, 2 first ...), saturating.
pub fn gear_to_lfs(gear: i8) -> u8 {
    (i16::from(gear) + 1).clamp(0, 255) as u8
}

/// An LFS gear byte (0 R, 1 N, 2 first ...) in our convention (-1 R, 0 N, 1 ..). BeamNG's
/// OutGauge writes -1 as a signed byte (255) in park: that reads as neutral, not gear 127.
pub fn gear_from_lfs(gear: u8) -> i8 {
    if gear == u8::MAX {
        return 0;
    }
    (i16::from(gear) - 1).clamp(-1, 127) as i8
}

/// Rotates `v` by the unit quaternion `q = [w, x, y, z]` (body to world).
///
/// A zero or non-finite quaternion is treated as the identity, so a default frame encodes as
/// an unrotated car instead of zero vectors.
pub fn rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    if !norm.is_finite() || norm < 1e-12 {
        return v;
    }
    let [w, x, y, z] = q.map(|c| c / norm);
    // t = 2 (q_vec x v); v' = v + w t + q_vec x t
    let t = [
        2.0 * (y * v[2] - z * v[1]),
        2.0 * (z * v[0] - x * v[2]),
        2.0 * (x * v[1] - y * v[0]),
    ];
    [
        v[0] + w * t[0] + (y * t[2] - z * t[1]),
        v[1] + w * t[1] + (z * t[0] - x * t[2]),
        v[2] + w * t[2] + (x * t[1] - y * t[0]),
    ]
}

/// A body-frame vector of `car` expressed in the world frame.
pub fn body_to_world(car: &CarTelemetry, v: [f64; 3]) -> [f64; 3] {
    rotate(car.orientation, v)
}

/// Angle wrapped into (-pi, pi].
pub fn wrap_angle(a: f64) -> f64 {
    let a = finite_or_zero(a);
    let wrapped = a - std::f64::consts::TAU * (a / std::f64::consts::TAU).round();
    if wrapped <= -std::f64::consts::PI {
        wrapped + std::f64::consts::TAU
    } else {
        wrapped
    }
}

/// Total distance driven along the track: completed laps times the lap length plus the
/// distance into the current lap, m.
pub fn total_distance_m(car: &CarTelemetry) -> f64 {
    f64::from(car.lap.laps_completed) * car.lap.track_length_m + car.lap.distance_m
}

/// Mean road-wheel steer angle of the two front wheels, rad (positive left).
pub fn front_steer_rad(car: &CarTelemetry) -> f64 {
    0.5 * (car.wheels[rig_types::WHEEL_FL].steer_angle_rad
        + car.wheels[rig_types::WHEEL_FR].steer_angle_rad)
}

/// Engine power at the crank, W (negative while the engine brakes the car).
pub fn engine_power_w(car: &CarTelemetry) -> f64 {
    car.drivetrain.engine_torque_nm * car.drivetrain.engine_rpm * RADPS_PER_RPM
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turn_about_z_maps_forward_to_left() {
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let v = rotate([h, 0.0, 0.0, h], [1.0, 0.0, 0.0]);
        assert!((v[0]).abs() < 1e-12 && (v[1] - 1.0).abs() < 1e-12 && v[2].abs() < 1e-12);
    }

    #[test]
    fn half_turn_about_z_is_exact() {
        assert_eq!(
            rotate([0.0, 0.0, 0.0, 1.0], [1.0, 2.0, 3.0]),
            [-1.0, -2.0, 3.0]
        );
    }

    #[test]
    fn saturating_conversions_never_wrap() {
        assert_eq!(unit_to_u8(2.0), 255);
        assert_eq!(unit_to_u8(f64::NAN), 0);
        assert_eq!(signed_unit_to_i8(-5.0), -127);
        assert_eq!(saturating_i32(1e20), i32::MAX);
        assert_eq!(gear_to_lfs(-1), 0);
        assert_eq!(gear_to_lfs(6), 7);
        assert_eq!(gear_from_lfs(0), -1);
        assert_eq!(gear_from_lfs(7), 6);
        assert_eq!(
            gear_from_lfs(255),
            0,
            "BeamNG's park (-1 as a byte) reads as neutral"
        );
        assert_eq!(millis_wrapping(4_294_967.296), 0);
        assert!((wrap_angle(3.0 * std::f64::consts::PI) - std::f64::consts::PI).abs() < 1e-12);
    }
}
