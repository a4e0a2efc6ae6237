//! Kinematics: platform pose to actuator values (inverse), actuator values back to the pose
//! (forward, numerical, for validation), and the workspace clamp.
//!
//! Actuator values are in each actuator's own unit, measured from its neutral position:
//! metres for linear actuators, radians for cranks and rotary arms. Invariants:
//! - an unreachable pose is an error ([`KinematicsError::Unreachable`]), never a NaN;
//! - the workspace clamp scales the WHOLE pose toward neutral until every actuator is inside
//!   its range (clipping actuators one by one would distort the pose into a different motion).
//!
//! Nothing here allocates: the RT thread runs inverse kinematics and the clamp every tick.

mod planar;
mod pose;
mod stewart;

pub use planar::{vertical_displacement, PlanarDrive};
pub use pose::Pose;
pub use stewart::{RotaryStewart, StewartGeometry};

use thiserror::Error;

/// Most actuators a platform may have.
pub const MAX_ACTUATORS: usize = 6;

/// Why a pose has no actuator solution.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum KinematicsError {
    /// The actuator cannot reach the pose (crank or arm would need `|sin| > 1`).
    #[error("actuator {actuator} cannot reach the pose")]
    Unreachable {
        /// 0-based actuator index.
        actuator: usize,
    },
    /// Even the neutral pose is outside the actuator range.
    #[error("the neutral pose is outside the actuator range: check the geometry and travel")]
    NeutralOutOfRange,
    /// Forward kinematics did not converge.
    #[error("forward kinematics did not converge")]
    NoConvergence,
    /// The geometry is impossible.
    #[error("impossible geometry: {0}")]
    Geometry(&'static str),
    /// The pose has a non-finite component.
    #[error("the pose is not finite")]
    NotFinite,
}

/// Actuator values of one pose (only the first `count` are used).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Actuators {
    /// Values, m or rad from neutral.
    pub values: [f64; MAX_ACTUATORS],
    /// Number of actuators.
    pub count: usize,
}

impl Actuators {
    /// The used values.
    pub fn as_slice(&self) -> &[f64] {
        &self.values[..self.count]
    }
}

/// A platform type with its geometry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Platform {
    /// 2 (roll + pitch), 3 or 4 (heave + roll + pitch) vertical actuators at platform points
    /// `(x, y)` m relative to the pivot.
    Planar {
        /// Actuator attachment points, m (only `count` used).
        points: [[f64; 2]; 4],
        /// Number of actuators, 2 ..= 4.
        count: usize,
        /// Linear actuators or cranks.
        drive: PlanarDrive,
    },
    /// Stewart platform with linear actuators; value = leg length minus neutral length.
    StewartLinear(StewartGeometry),
    /// Stewart platform with rotary arms; value = arm angle.
    StewartRotary(RotaryStewart),
}

/// Which pose components a platform can move (the others are held at 0).
const PLANAR_2: [usize; 2] = [3, 4];
const PLANAR_3: [usize; 3] = [2, 3, 4];
const ALL: [usize; 6] = [0, 1, 2, 3, 4, 5];

impl Platform {
    /// Number of actuators.
    pub fn actuator_count(&self) -> usize {
        match self {
            Platform::Planar { count, .. } => *count,
            _ => 6,
        }
    }

    /// The pose components (indices into [`Pose::to_array`]) this platform reproduces.
    pub fn degrees_of_freedom(&self) -> &'static [usize] {
        match self {
            Platform::Planar { count: 2, .. } => &PLANAR_2,
            Platform::Planar { .. } => &PLANAR_3,
            _ => &ALL,
        }
    }

    /// The pose with the components this platform cannot move set to 0.
    pub fn reachable_components(&self, pose: Pose) -> Pose {
        let full = pose.to_array();
        let mut out = [0.0; 6];
        for &k in self.degrees_of_freedom() {
            out[k] = full[k];
        }
        Pose::from_array(out)
    }

    /// Inverse kinematics: actuator values for `pose` (components the platform cannot move
    /// are ignored).
    pub fn inverse(&self, pose: &Pose) -> Result<Actuators, KinematicsError> {
        if !pose.is_finite() {
            return Err(KinematicsError::NotFinite);
        }
        let mut out = Actuators {
            values: [0.0; MAX_ACTUATORS],
            count: self.actuator_count(),
        };
        match self {
            Platform::Planar {
                points,
                count,
                drive,
            } => {
                let pose = self.reachable_components(*pose);
                for (i, point) in points.iter().enumerate().take(*count) {
                    out.values[i] = planar::actuator_value(&pose, *point, *drive, i)?;
                }
            }
            Platform::StewartLinear(g) => {
                let home = g.leg_lengths(&Pose::NEUTRAL);
                let legs = g.leg_lengths(pose);
                for i in 0..6 {
                    out.values[i] = legs[i] - home[i];
                }
            }
            Platform::StewartRotary(r) => {
                out.values[..6].copy_from_slice(&r.arm_angles(pose)?);
            }
        }
        Ok(out)
    }

    /// Forward kinematics by Newton iteration from `guess`: the pose whose inverse gives
    /// `target`, with the number of iterations used. For validation and tests (it solves a
    /// small linear system per iteration; no allocation).
    pub fn forward(
        &self,
        target: &Actuators,
        guess: Pose,
    ) -> Result<(Pose, usize), KinematicsError> {
        let dofs = self.degrees_of_freedom();
        let n = dofs.len();
        let rows = self.actuator_count();
        let mut pose = self.reachable_components(guess).to_array();
        for iteration in 1..=30 {
            let here = self.inverse(&Pose::from_array(pose))?;
            let residual: [f64; MAX_ACTUATORS] = std::array::from_fn(|i| {
                if i < rows {
                    here.values[i] - target.values[i]
                } else {
                    0.0
                }
            });
            // Numerical Jacobian (central differences), least squares via normal equations
            // so the over-determined 4-actuator platform works too.
            let mut jac = [[0.0; 6]; MAX_ACTUATORS];
            for (col, &k) in dofs.iter().enumerate() {
                let h = 1e-7;
                let mut plus = pose;
                let mut minus = pose;
                plus[k] += h;
                minus[k] -= h;
                let a = self.inverse(&Pose::from_array(plus))?;
                let b = self.inverse(&Pose::from_array(minus))?;
                for (row, jrow) in jac.iter_mut().enumerate().take(rows) {
                    jrow[col] = (a.values[row] - b.values[row]) / (2.0 * h);
                }
            }
            let mut normal = [[0.0; 7]; 6];
            for a in 0..n {
                for b in 0..n {
                    normal[a][b] = (0..rows).map(|r| jac[r][a] * jac[r][b]).sum();
                }
                normal[a][6] = -(0..rows).map(|r| jac[r][a] * residual[r]).sum::<f64>();
            }
            let step = solve(&mut normal, n).ok_or(KinematicsError::NoConvergence)?;
            let mut largest: f64 = 0.0;
            for (col, &k) in dofs.iter().enumerate() {
                pose[k] += step[col];
                largest = largest.max(step[col].abs());
            }
            if largest < 1e-13 {
                return Ok((Pose::from_array(pose), iteration));
            }
        }
        Err(KinematicsError::NoConvergence)
    }

    /// The largest fraction `k` in 0 ..= 1 of `pose` (scaled toward neutral) whose actuators
    /// all stay inside `±limit` (same unit as the actuator values), with those actuators.
    /// 20 bisection steps: the scale is exact to 1e-6.
    pub fn clamp_pose(
        &self,
        pose: &Pose,
        limit: f64,
    ) -> Result<(Pose, Actuators, f64), KinematicsError> {
        let fits = |candidate: &Pose| -> Option<Actuators> {
            let a = self.inverse(candidate).ok()?;
            a.as_slice().iter().all(|v| v.abs() <= limit).then_some(a)
        };
        let pose = if pose.is_finite() {
            *pose
        } else {
            Pose::NEUTRAL
        };
        if let Some(a) = fits(&pose) {
            return Ok((pose, a, 1.0));
        }
        let Some(mut best) = fits(&Pose::NEUTRAL) else {
            return Err(KinematicsError::NeutralOutOfRange);
        };
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..20 {
            let mid = 0.5 * (lo + hi);
            match fits(&pose.scaled(mid)) {
                Some(a) => {
                    lo = mid;
                    best = a;
                }
                None => hi = mid,
            }
        }
        Ok((pose.scaled(lo), best, lo))
    }
}

/// Gaussian elimination with partial pivoting on an augmented `n x (n+1)` system in `m`.
fn solve(m: &mut [[f64; 7]; 6], n: usize) -> Option<[f64; 6]> {
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 {
            return None;
        }
        m.swap(col, pivot);
        for row in col + 1..n {
            let f = m[row][col] / m[col][col];
            let pivot_row = m[col];
            for (value, pivot) in m[row][col..n].iter_mut().zip(&pivot_row[col..n]) {
                *value -= f * pivot;
            }
            m[row][6] -= f * pivot_row[6];
        }
    }
    let mut x = [0.0; 6];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| m[row][k] * x[k]).sum();
        x[row] = (m[row][6] - tail) / m[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests;
