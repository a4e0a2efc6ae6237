//! The robot's speed profile along its line: the lap simulation's speed trace
//! ([`crate::lapsim`]) on the robot's envelope with the robot's margin on the lateral and
//! braking limits. Apex speeds from the banked-curve limit, a forward pass at full drive with
//! the shift times, a backward pass braking as late as the margin allows; the planned
//! acceleration between stations is kept for the controller's feed-forward.
//!
//! The margin is the robot's skill: 1 drives at the envelope, less leaves room for the
//! envelope's error, crests and the controller's tracking error.

use super::line::Station;
use crate::envelope::Envelope;
use crate::lapsim::{Course, LapSim};
use crate::track::Track;

/// The planned speeds.
#[derive(Debug, Clone, PartialEq)]
pub struct SpeedPlan {
    /// Speed at each station, m/s.
    pub speeds_mps: Vec<f64>,
    /// Acceleration from each station to the next, m/s^2.
    pub accels_mps2: Vec<f64>,
    /// Lap time of the plan, s.
    pub lap_s: f64,
}

/// The speed plan for `stations` on `track` with `envelope` and `margin` (a fraction of its
/// lateral and braking limits). The robot laps, so the line is run as a closed lap.
pub fn plan(track: &Track, stations: &[Station], envelope: &Envelope, margin: f64) -> SpeedPlan {
    let mut course = Course::from_stations(track, stations);
    course.closed = true;
    let mut sim = LapSim::new();
    let lap = sim.run(&course, envelope, margin);
    SpeedPlan {
        speeds_mps: lap.speeds_mps.clone(),
        accels_mps2: lap.accels_mps2.clone(),
        lap_s: lap.time_s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robot::limits::{DriverLimits, MAX_GEARS};

    fn limits() -> DriverLimits {
        DriverLimits {
            mu_lat: 1.0,
            load_sensitivity: 0.0,
            nominal_load_n: 4000.0,
            mu_long: 1.0,
            driven_weight_fraction: 0.5,
            driven_wheels: [true; 4],
            mass_kg: 1000.0,
            downforce_n_per_mps2: 0.0,
            wheelbase_m: 2.6,
            max_steer_rad: 0.5,
            half_width_m: 0.9,
            wheel_radius_m: 0.3,
            overall_ratios: [0.0; MAX_GEARS],
            forward_gears: 0,
            rev_limit_rpm: 0.0,
            idle_rpm: 0.0,
            shift_needs_clutch: false,
            sequential: false,
            auto_clutch: false,
            top_speed_mps: 90.0,
            brake_decel_per_pedal_mps2: 15.0,
            abs: false,
            upshift_speeds_mps: [0.0; MAX_GEARS],
        }
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
        for (j, s) in stations.iter_mut().enumerate() {
            s.distance_m = 4.0 * j as f64;
        }
        for s in stations.iter_mut().skip(100).take(20) {
            s.curvature_per_m = 0.02;
        }
        let plan = plan(&Track::flat(), &stations, &limits().envelope(), 1.0);
        let v = &plan.speeds_mps;
        let corner = (9.81f64 * 50.0).sqrt();
        assert!((v[110] - corner).abs() < 1e-4, "{}", v[110]);
        // The corner starts at station 100 (the step from 99 is straight): braking ends
        // there, 40 m after station 90: v^2 = corner^2 + 2 g 40 (no lateral load before it).
        let expected = (corner * corner + 2.0 * 9.81 * 40.0).sqrt();
        assert!((v[90] - expected).abs() < 1e-3, "{} vs {expected}", v[90]);
        assert!(v.iter().all(|s| s.is_finite() && *s > 0.0));
    }
}
