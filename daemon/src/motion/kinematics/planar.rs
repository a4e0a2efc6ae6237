//! Seat movers and 3/4-actuator platforms: vertical actuators under a platform that pivots
//! about the origin (a universal joint), moving in heave, roll and pitch only.
//!
//! The vertical displacement of the platform point `(x, y, 0)` is the third row of `R`:
//! `dz = heave - x sin(pitch) + y cos(pitch) sin(roll)`. A linear actuator's value is `dz` in
//! metres; a crank (SMC3 wiper motor) turns `asin(dz / r)` radians, the rod-much-longer-than-
//! `dz` approximation, and a `dz` beyond the crank radius is unreachable.

use super::KinematicsError;
use super::Pose;

/// How the actuators of a planar platform move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlanarDrive {
    /// Vertical linear actuators, value in metres from mid-stroke.
    Linear,
    /// Cranks of this radius (m), value in radians from horizontal.
    Crank {
        /// Crank radius, m.
        radius_m: f64,
    },
}

/// Vertical displacement of platform point `(x, y)` for `pose`, m.
pub fn vertical_displacement(pose: &Pose, x_m: f64, y_m: f64) -> f64 {
    pose.heave_m - x_m * pose.pitch_rad.sin() + y_m * pose.pitch_rad.cos() * pose.roll_rad.sin()
}

/// The actuator value for the platform point `(x, y)`.
pub fn actuator_value(
    pose: &Pose,
    point: [f64; 2],
    drive: PlanarDrive,
    index: usize,
) -> Result<f64, KinematicsError> {
    let dz = vertical_displacement(pose, point[0], point[1]);
    match drive {
        PlanarDrive::Linear => Ok(dz),
        PlanarDrive::Crank { radius_m } => {
            let ratio = dz / radius_m;
            if ratio.abs() > 1.0 || !ratio.is_finite() {
                return Err(KinematicsError::Unreachable { actuator: index });
            }
            Ok(ratio.asin())
        }
    }
}
