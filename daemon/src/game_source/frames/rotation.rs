//! Unit quaternions `[w, x, y, z]` (body to world) for the game bridge: from and to rigd's
//! roll/pitch/yaw (Tait-Bryan z-y-x, `R = Rz(yaw) Ry(pitch) Rx(roll)`, the same convention as
//! the physics' telemetry), shortest-path interpolation (so an angle crossing +-pi never
//! swings the long way round), the body rotation rate between two orientations, and vector
//! rotation. Pure `Copy` arithmetic, no allocation.

/// `[w, x, y, z]`.
pub type Quat = [f64; 4];

/// No rotation.
pub const IDENTITY: Quat = [1.0, 0.0, 0.0, 0.0];

/// The orientation with these roll, pitch and yaw, rad.
pub fn from_roll_pitch_yaw(rpy: [f64; 3]) -> Quat {
    let (sr, cr) = (0.5 * rpy[0]).sin_cos();
    let (sp, cp) = (0.5 * rpy[1]).sin_cos();
    let (sy, cy) = (0.5 * rpy[2]).sin_cos();
    [
        cy * cp * cr + sy * sp * sr,
        cy * cp * sr - sy * sp * cr,
        cy * sp * cr + sy * cp * sr,
        sy * cp * cr - cy * sp * sr,
    ]
}

/// Roll, pitch, yaw of `q`, rad (pitch in -pi/2 ..= pi/2, the others in -pi ..= pi).
pub fn roll_pitch_yaw(q: Quat) -> [f64; 3] {
    let [w, x, y, z] = q;
    let roll = (2.0 * (w * x + y * z)).atan2(1.0 - 2.0 * (x * x + y * y));
    let pitch = (2.0 * (w * y - z * x)).clamp(-1.0, 1.0).asin();
    let yaw = (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z));
    [roll, pitch, yaw]
}

fn multiply(a: Quat, b: Quat) -> Quat {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

fn conjugate(q: Quat) -> Quat {
    [q[0], -q[1], -q[2], -q[3]]
}

fn dot(a: Quat, b: Quat) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

/// `q` scaled to unit length (the identity for a zero or non-finite `q`).
pub fn normalized(q: Quat) -> Quat {
    let n = dot(q, q).sqrt();
    if n.is_finite() && n > 1e-12 {
        q.map(|c| c / n)
    } else {
        IDENTITY
    }
}

/// The orientation a fraction `alpha` (0 ..= 1) of the way from `a` to `b` along the shorter
/// arc (normalised linear interpolation: for the small steps between two packets it is
/// within 1e-6 rad of the exact slerp and has no division by a vanishing sine).
pub fn interpolate(a: Quat, b: Quat, alpha: f64) -> Quat {
    let b = if dot(a, b) < 0.0 { b.map(|c| -c) } else { b };
    normalized(std::array::from_fn(|i| a[i] + (b[i] - a[i]) * alpha))
}

/// The constant body-frame angular velocity, rad/s, that turns `from` into `to` in `dt_s`
/// (shorter arc).
pub fn body_rate_between(from: Quat, to: Quat, dt_s: f64) -> [f64; 3] {
    let mut rel = multiply(conjugate(from), to);
    if rel[0] < 0.0 {
        rel = rel.map(|c| -c);
    }
    let s = (rel[1] * rel[1] + rel[2] * rel[2] + rel[3] * rel[3]).sqrt();
    let angle = 2.0 * s.atan2(rel[0]);
    // angle / s -> 2 as s -> 0 (small rotations).
    let scale = if s > 1e-12 { angle / s } else { 2.0 };
    [1, 2, 3].map(|i| rel[i] * scale / dt_s)
}

/// `v` rotated from the body frame into the world frame by `q`.
pub fn body_to_world(q: Quat, v: [f64; 3]) -> [f64; 3] {
    let p = multiply(multiply(q, [0.0, v[0], v[1], v[2]]), conjugate(q));
    [p[1], p[2], p[3]]
}

/// `v` rotated from the world frame into the body frame of `q`.
pub fn world_to_body(q: Quat, v: [f64; 3]) -> [f64; 3] {
    body_to_world(conjugate(q), v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roll_pitch_yaw_round_trips_and_follows_rigd_signs() {
        for rpy in [[0.1, -0.2, 3.0], [-0.5, 0.3, -3.1], [0.0, 0.0, 0.0]] {
            let back = roll_pitch_yaw(from_roll_pitch_yaw(rpy));
            for k in 0..3 {
                assert!((back[k] - rpy[k]).abs() < 1e-12, "{rpy:?} -> {back:?}");
            }
        }
        // Positive pitch lowers the nose: the body's x axis points down in the world.
        let nose = body_to_world(from_roll_pitch_yaw([0.0, 0.3, 0.0]), [1.0, 0.0, 0.0]);
        assert!(nose[2] < -0.29, "{nose:?}");
        // Positive yaw turns the nose left (+y).
        let nose = body_to_world(from_roll_pitch_yaw([0.0, 0.0, 0.3]), [1.0, 0.0, 0.0]);
        assert!(nose[1] > 0.29, "{nose:?}");
        // Positive roll lifts the left side: the body's y axis points up.
        let left = body_to_world(from_roll_pitch_yaw([0.3, 0.0, 0.0]), [0.0, 1.0, 0.0]);
        assert!(left[2] > 0.29, "{left:?}");
    }

    #[test]
    fn interpolation_across_the_yaw_wrap_takes_the_short_way() {
        let a = from_roll_pitch_yaw([0.0, 0.0, 3.1]);
        let b = from_roll_pitch_yaw([0.0, 0.0, -3.1]);
        let mid = roll_pitch_yaw(interpolate(a, b, 0.5))[2];
        assert!((mid.abs() - std::f64::consts::PI).abs() < 1e-9, "{mid}");
    }

    #[test]
    fn body_rate_between_two_orientations() {
        let a = from_roll_pitch_yaw([0.1, 0.05, 3.1]);
        // 0.02 s at 0.5 rad/s of yaw about the body z (pitch and roll small).
        let step = from_roll_pitch_yaw([0.0, 0.0, 0.01]);
        let b = multiply(a, step);
        let w = body_rate_between(a, b, 0.02);
        assert!(
            (w[2] - 0.5).abs() < 1e-9 && w[0].abs() < 1e-9 && w[1].abs() < 1e-9,
            "{w:?}"
        );
    }
}
