//! Steering: the control (-1..1) turns the rim, the rack turns the road wheels through the
//! steering ratio with Ackermann geometry and lock limits; the front tyres' aligning moments
//! and lateral forces (times the mechanical trail) come back through the same ratio as the
//! torque at the rim (the force-feedback source).
//!
//! Signs: angles positive to the left; rim torque positive pulls the rim to the left.

use crate::data::DataError;
use crate::spec::check_range;
use serde::Deserialize;

/// The `[steering]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteeringSpec {
    /// Rim angle at full lock (each side), degrees (e.g. 450 for 900 lock to lock).
    pub rim_lock_deg: f64,
    /// Overall ratio: rim angle / mean road-wheel angle.
    pub ratio: f64,
    /// Largest road-wheel angle of either wheel, degrees.
    pub max_road_wheel_deg: f64,
    /// Ackermann fraction: 0 parallel steer, 1 full Ackermann.
    pub ackermann: f64,
    /// Mechanical (caster) trail at the ground, m.
    pub mechanical_trail_m: f64,
}

impl SteeringSpec {
    /// Range checks.
    pub fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        check_range(
            text,
            origin,
            "steering.rim_lock_deg",
            self.rim_lock_deg,
            30.0,
            1800.0,
        )?;
        check_range(text, origin, "steering.ratio", self.ratio, 1.0, 40.0)?;
        check_range(
            text,
            origin,
            "steering.max_road_wheel_deg",
            self.max_road_wheel_deg,
            5.0,
            70.0,
        )?;
        check_range(text, origin, "steering.ackermann", self.ackermann, 0.0, 1.0)?;
        check_range(
            text,
            origin,
            "steering.mechanical_trail_m",
            self.mechanical_trail_m,
            -0.05,
            0.2,
        )?;
        Ok(())
    }
}

/// The front road-wheel angles for one rim angle with their sines and cosines: the car keeps
/// one and refreshes it only when the rim angle changes (the controls change far less often
/// than the step runs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrontWheelAngles {
    /// Rim angle these are for, rad (NaN before the first update, so it always refreshes).
    pub rim_rad: f64,
    /// Road-wheel angles (front-left, front-right), rad.
    pub angles_rad: [f64; 2],
    /// (sin, cos) of each road-wheel angle.
    pub sin_cos: [(f64, f64); 2],
}

impl Default for FrontWheelAngles {
    fn default() -> Self {
        FrontWheelAngles {
            rim_rad: f64::NAN,
            angles_rad: [0.0; 2],
            sin_cos: [(0.0, 1.0); 2],
        }
    }
}

/// Steering geometry of one car, ready for the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Steering {
    rim_lock_rad: f64,
    ratio: f64,
    max_road_wheel_rad: f64,
    ackermann: f64,
    mechanical_trail_m: f64,
    wheelbase_m: f64,
    half_track_m: f64,
}

impl Steering {
    /// Builds from the spec and the front axle geometry.
    pub fn new(spec: &SteeringSpec, wheelbase_m: f64, track_front_m: f64) -> Steering {
        Steering {
            rim_lock_rad: spec.rim_lock_deg.to_radians(),
            ratio: spec.ratio,
            max_road_wheel_rad: spec.max_road_wheel_deg.to_radians(),
            ackermann: spec.ackermann,
            mechanical_trail_m: spec.mechanical_trail_m,
            wheelbase_m,
            half_track_m: 0.5 * track_front_m,
        }
    }

    /// Overall ratio (rim angle / road-wheel angle).
    pub fn ratio(&self) -> f64 {
        self.ratio
    }

    /// Rim angle for a steering control value, rad.
    pub fn rim_angle(&self, control: f64) -> f64 {
        control.clamp(-1.0, 1.0) * self.rim_lock_rad
    }

    /// Road-wheel angles (front-left, front-right) for a rim angle, rad.
    pub fn road_wheel_angles(&self, rim_angle_rad: f64) -> [f64; 2] {
        let lock = self.max_road_wheel_rad;
        let mean = (rim_angle_rad / self.ratio).clamp(-lock, lock);
        if mean.abs() < 1e-9 {
            return [mean, mean];
        }
        // Turn radius of the rear-axle centre for the mean angle, then the inner and outer
        // wheel angles that share it (full Ackermann), blended with parallel steer.
        let radius = self.wheelbase_m / mean.abs().tan();
        let inner = (self.wheelbase_m / (radius - self.half_track_m).max(1e-3)).atan();
        let outer = (self.wheelbase_m / (radius + self.half_track_m)).atan();
        let a = self.ackermann;
        let inner = (mean.abs() + a * (inner - mean.abs())).min(lock);
        let outer = (mean.abs() + a * (outer - mean.abs())).min(lock);
        if mean > 0.0 {
            // Turning left: the left wheel is the inner one.
            [inner, outer]
        } else {
            [-outer, -inner]
        }
    }

    /// Brings `angles` up to date for `rim_angle_rad` (no work when it is unchanged).
    pub fn update_front_angles(&self, rim_angle_rad: f64, angles: &mut FrontWheelAngles) {
        if angles.rim_rad == rim_angle_rad {
            return;
        }
        let road = self.road_wheel_angles(rim_angle_rad);
        *angles = FrontWheelAngles {
            rim_rad: rim_angle_rad,
            angles_rad: road,
            sin_cos: [crate::math::sin_cos(road[0]), crate::math::sin_cos(road[1])],
        };
    }

    /// Torque at the rim from the two front wheels' aligning moments and lateral forces
    /// (wheel frame), N m, positive pulling the rim left. A lateral force acting at the
    /// contact patch, which lies the mechanical trail behind the steering axis, turns the
    /// wheel with moment `-trail * Fy`.
    pub fn rim_torque(&self, aligning_nm: [f64; 2], lateral_n: [f64; 2]) -> f64 {
        let kingpin = aligning_nm[0] + aligning_nm[1]
            - self.mechanical_trail_m * (lateral_n[0] + lateral_n[1]);
        kingpin / self.ratio
    }
}
