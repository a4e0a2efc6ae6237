//! The platform pose and its rotation matrix.
//!
//! Frame: x forward, y left, z up (ISO 8855), lengths in metres, angles in radians.
//! `R = Rz(yaw) * Ry(pitch) * Rx(roll)`; positive roll lifts the left side, positive pitch
//! lowers the nose, positive yaw turns the nose left. Neutral is all zeros.

/// Platform displacement from neutral.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pose {
    /// Forward, m.
    pub surge_m: f64,
    /// Left, m.
    pub sway_m: f64,
    /// Up, m.
    pub heave_m: f64,
    /// About x, rad (positive: left side up).
    pub roll_rad: f64,
    /// About y, rad (positive: nose down).
    pub pitch_rad: f64,
    /// About z, rad (positive: nose left).
    pub yaw_rad: f64,
}

impl Pose {
    /// Neutral.
    pub const NEUTRAL: Pose = Pose {
        surge_m: 0.0,
        sway_m: 0.0,
        heave_m: 0.0,
        roll_rad: 0.0,
        pitch_rad: 0.0,
        yaw_rad: 0.0,
    };

    /// `[surge, sway, heave, roll, pitch, yaw]`.
    pub fn to_array(self) -> [f64; 6] {
        [
            self.surge_m,
            self.sway_m,
            self.heave_m,
            self.roll_rad,
            self.pitch_rad,
            self.yaw_rad,
        ]
    }

    /// From `[surge, sway, heave, roll, pitch, yaw]`.
    pub fn from_array(a: [f64; 6]) -> Pose {
        Pose {
            surge_m: a[0],
            sway_m: a[1],
            heave_m: a[2],
            roll_rad: a[3],
            pitch_rad: a[4],
            yaw_rad: a[5],
        }
    }

    /// Every component multiplied by `k` (used to scale a pose toward neutral).
    pub fn scaled(self, k: f64) -> Pose {
        Pose::from_array(self.to_array().map(|v| v * k))
    }

    /// True when every component is finite.
    pub fn is_finite(self) -> bool {
        self.to_array().iter().all(|v| v.is_finite())
    }

    /// The rotation matrix `Rz(yaw) Ry(pitch) Rx(roll)`, rows first.
    pub fn rotation(self) -> [[f64; 3]; 3] {
        let (sf, cf) = self.roll_rad.sin_cos();
        let (st, ct) = self.pitch_rad.sin_cos();
        let (sp, cp) = self.yaw_rad.sin_cos();
        [
            [cp * ct, cp * st * sf - sp * cf, cp * st * cf + sp * sf],
            [sp * ct, sp * st * sf + cp * cf, sp * st * cf - cp * sf],
            [-st, ct * sf, ct * cf],
        ]
    }
}

/// `m * v`.
pub fn rotate(m: &[[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [
        m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
        m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
        m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2],
    ]
}

/// Euclidean length.
pub fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}
