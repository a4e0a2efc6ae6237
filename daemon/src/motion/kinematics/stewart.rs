//! 6-DOF Stewart platforms: joint layout, inverse kinematics for linear actuators (leg length)
//! and for rotary arms (closed form crank angle), and the conditioning of the linear Jacobian.
//!
//! Layout (6-6, joints in pairs): base joints at radius `r_b` and angles
//! `-tb/2, tb/2, 120-tb/2, 120+tb/2, 240-tb/2, 240+tb/2` degrees, platform joints at `r_p` and
//! `-60+tp/2, 60-tp/2, 60+tp/2, 180-tp/2, 180+tp/2, 300-tp/2`; leg i joins base i to platform i.
//! The platform's neutral height above the base plane is `home_height_m`.
//!
//! Rotary arm (crank `a`, rod `s`, arm plane direction `beta_i`): with `l = T + R p_i - b_i`,
//! `L = |l|^2 - (s^2 - a^2)`, `M = 2a l_z`, `N = 2a (cos(beta) l_x + sin(beta) l_y)`, the arm
//! angle is `asin(L / sqrt(M^2 + N^2)) - atan2(N, M)`; `|L| > sqrt(M^2 + N^2)` is unreachable
//! (reported, never clamped silently). Arms alternate `beta_i = base angle -/+ 90 degrees`.

use super::pose::{norm, rotate};
use super::{KinematicsError, Pose};

/// The joints of a 6-6 Stewart platform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StewartGeometry {
    /// Base joints (or servo shafts) in the base frame, m.
    pub base: [[f64; 3]; 6],
    /// Platform joints in the platform frame, m.
    pub platform: [[f64; 3]; 6],
    /// Base joint angles, rad (the rotary arm directions derive from them).
    pub base_angles_rad: [f64; 6],
    /// Height of the platform frame above the base frame at neutral, m.
    pub home_height_m: f64,
}

impl StewartGeometry {
    /// The standard paired layout.
    pub fn paired(
        base_radius_m: f64,
        platform_radius_m: f64,
        base_pair_angle_deg: f64,
        platform_pair_angle_deg: f64,
        home_height_m: f64,
    ) -> StewartGeometry {
        let tb = base_pair_angle_deg / 2.0;
        let tp = platform_pair_angle_deg / 2.0;
        let base_deg = [-tb, tb, 120.0 - tb, 120.0 + tb, 240.0 - tb, 240.0 + tb];
        let plat_deg = [
            -60.0 + tp,
            60.0 - tp,
            60.0 + tp,
            180.0 - tp,
            180.0 + tp,
            300.0 - tp,
        ];
        let at = |r: f64, deg: f64| {
            let (s, c) = deg.to_radians().sin_cos();
            [r * c, r * s, 0.0]
        };
        StewartGeometry {
            base: base_deg.map(|d| at(base_radius_m, d)),
            platform: plat_deg.map(|d| at(platform_radius_m, d)),
            base_angles_rad: base_deg.map(f64::to_radians),
            home_height_m,
        }
    }

    /// Leg vector `T + R p_i - b_i` of every leg for `pose`.
    pub fn leg_vectors(&self, pose: &Pose) -> [[f64; 3]; 6] {
        let r = pose.rotation();
        let t = [pose.surge_m, pose.sway_m, self.home_height_m + pose.heave_m];
        std::array::from_fn(|i| {
            let p = rotate(&r, self.platform[i]);
            [
                t[0] + p[0] - self.base[i][0],
                t[1] + p[1] - self.base[i][1],
                t[2] + p[2] - self.base[i][2],
            ]
        })
    }

    /// Leg lengths for `pose`, m.
    pub fn leg_lengths(&self, pose: &Pose) -> [f64; 6] {
        self.leg_vectors(pose).map(norm)
    }

    /// Condition number `sigma_max / sigma_min` of the linear-actuator Jacobian (rows
    /// `[n_i, R p_i x n_i]`) at `pose`: about 5 is well conditioned, above 50 near-singular.
    pub fn condition_number(&self, pose: &Pose) -> f64 {
        let r = pose.rotation();
        let legs = self.leg_vectors(pose);
        let rows: [[f64; 6]; 6] = std::array::from_fn(|i| {
            let len = norm(legs[i]);
            let n = legs[i].map(|v| v / len);
            let p = rotate(&r, self.platform[i]);
            let m = [
                p[1] * n[2] - p[2] * n[1],
                p[2] * n[0] - p[0] * n[2],
                p[0] * n[1] - p[1] * n[0],
            ];
            [n[0], n[1], n[2], m[0], m[1], m[2]]
        });
        let mut jtj = [[0.0; 6]; 6];
        for (a, row_a) in jtj.iter_mut().enumerate() {
            for (b, cell) in row_a.iter_mut().enumerate() {
                *cell = rows.iter().map(|row| row[a] * row[b]).sum();
            }
        }
        let eigen = symmetric_eigenvalues(jtj);
        let max = eigen.iter().copied().fold(f64::MIN, f64::max);
        let min = eigen.iter().copied().fold(f64::MAX, f64::min);
        (max / min).sqrt()
    }
}

/// Eigenvalues of a symmetric 6x6 matrix (cyclic Jacobi rotations).
fn symmetric_eigenvalues(mut m: [[f64; 6]; 6]) -> [f64; 6] {
    for _sweep in 0..50 {
        let off: f64 = (0..6)
            .flat_map(|i| (0..6).map(move |j| (i, j)))
            .filter(|(i, j)| i != j)
            .map(|(i, j)| m[i][j] * m[i][j])
            .sum();
        if off < 1e-30 {
            break;
        }
        for p in 0..6 {
            for q in p + 1..6 {
                if m[p][q].abs() < 1e-300 {
                    continue;
                }
                let theta = (m[q][q] - m[p][p]) / (2.0 * m[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for row in m.iter_mut() {
                    let (mkp, mkq) = (row[p], row[q]);
                    row[p] = c * mkp - s * mkq;
                    row[q] = s * mkp + c * mkq;
                }
                let (row_p, row_q) = (m[p], m[q]);
                m[p] = std::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
                m[q] = std::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
            }
        }
    }
    std::array::from_fn(|i| m[i][i])
}

/// A rotary-arm Stewart platform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotaryStewart {
    /// Joint layout; `home_height_m` is the height where every arm is horizontal.
    pub geometry: StewartGeometry,
    /// Crank (servo arm) length, m.
    pub arm_m: f64,
    /// Rod length, m.
    pub rod_m: f64,
    /// Direction of each arm's plane of rotation, rad.
    pub arm_directions_rad: [f64; 6],
}

impl RotaryStewart {
    /// A rotary platform on the paired layout; the neutral height is where arm angles are 0.
    /// Fails when the rod cannot reach the platform joint from the horizontal arm tip.
    pub fn paired(
        base_radius_m: f64,
        platform_radius_m: f64,
        base_pair_angle_deg: f64,
        platform_pair_angle_deg: f64,
        arm_m: f64,
        rod_m: f64,
    ) -> Result<RotaryStewart, KinematicsError> {
        let mut geometry = StewartGeometry::paired(
            base_radius_m,
            platform_radius_m,
            base_pair_angle_deg,
            platform_pair_angle_deg,
            0.0,
        );
        let arm_directions_rad: [f64; 6] = std::array::from_fn(|i| {
            let quarter = std::f64::consts::FRAC_PI_2;
            geometry.base_angles_rad[i] + if i % 2 == 0 { -quarter } else { quarter }
        });
        let tip = [
            geometry.base[0][0] + arm_m * arm_directions_rad[0].cos(),
            geometry.base[0][1] + arm_m * arm_directions_rad[0].sin(),
        ];
        let dx = geometry.platform[0][0] - tip[0];
        let dy = geometry.platform[0][1] - tip[1];
        let squared = rod_m * rod_m - dx * dx - dy * dy;
        if squared <= 0.0 {
            return Err(KinematicsError::Geometry(
                "the rod is shorter than the horizontal distance from arm tip to platform joint: lengthen rod_length_m or bring the radii closer",
            ));
        }
        geometry.home_height_m = squared.sqrt();
        Ok(RotaryStewart {
            geometry,
            arm_m,
            rod_m,
            arm_directions_rad,
        })
    }

    /// Arm angles for `pose`, rad.
    pub fn arm_angles(&self, pose: &Pose) -> Result<[f64; 6], KinematicsError> {
        let legs = self.geometry.leg_vectors(pose);
        let a = self.arm_m;
        let mut out = [0.0; 6];
        for (i, l) in legs.iter().enumerate() {
            let big_l = l[0] * l[0] + l[1] * l[1] + l[2] * l[2] - (self.rod_m * self.rod_m - a * a);
            let m = 2.0 * a * l[2];
            let (sb, cb) = self.arm_directions_rad[i].sin_cos();
            let n = 2.0 * a * (cb * l[0] + sb * l[1]);
            let radius = (m * m + n * n).sqrt();
            let ratio = big_l / radius;
            if !ratio.is_finite() || ratio.abs() > 1.0 {
                return Err(KinematicsError::Unreachable { actuator: i });
            }
            out[i] = ratio.asin() - n.atan2(m);
        }
        Ok(out)
    }

    /// Arm tip of leg `i` at angle `alpha_rad` (for validation: `|q_i - tip| = rod`).
    pub fn arm_tip(&self, i: usize, alpha_rad: f64) -> [f64; 3] {
        let (sa, ca) = alpha_rad.sin_cos();
        let (sb, cb) = self.arm_directions_rad[i].sin_cos();
        let b = self.geometry.base[i];
        [
            b[0] + self.arm_m * ca * cb,
            b[1] + self.arm_m * ca * sb,
            b[2] + self.arm_m * sa,
        ]
    }
}
