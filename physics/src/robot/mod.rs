//! Robot drivers (RARS's robots): a robot sees its car's situation relative to the track (its
//! [`CarTelemetry`] and the [`Track`]) and returns [`Controls`], like a human at the wheel.
//!
//! At construction (allocation allowed) the robot plans: a line across the track relaxed
//! towards linearly varying curvature ([`line`]), and a speed profile from the line's
//! curvature, the banking and the car's grip and downforce, with braking points from a
//! backward pass ([`speed`]). While driving (`drive`: no allocation, O(1)) it steers by pure
//! pursuit of a point on its line a speed-dependent distance ahead (further when the car is far
//! off its line, so it rejoins gently instead of at full lock), holds the profile's speed
//! (looked up a little ahead so the brakes have time to rise) with throttle and brake, keeps
//! wheel slip in check, and shifts gears with the clutch work a manual box needs ([`gears`]).
//! It also drives the direct-drive stub (no gearbox: gear 0, no shifting).
//!
//! Track position: [`Robot::drive_car`] reads the projection the [`World`] already made for
//! the car in its last step (one projection per car per step, O(1)); [`Robot::drive`] projects
//! by itself for callers without a world.

pub mod gears;
pub mod limits;
pub mod line;
pub mod speed;

use crate::controls::{Controls, GearRequest};
use crate::spec::CarSpec;
use crate::telemetry::CarTelemetry;
use crate::track::{wrap_into_lap, Track, TrackCoord, TrackHint};
use crate::world::{CarId, World};
pub use limits::DriverLimits;
use line::Station;

/// Fraction of the car's grip the built-in robot plans with: near the limit, with room for
/// the tyres' load sensitivity, crests and the controller's errors.
pub const DEFAULT_GRIP: f64 = 0.85;
/// Pure-pursuit look-ahead: this distance plus the distance covered in [`LOOKAHEAD_S`], m.
const LOOKAHEAD_MIN_M: f64 = 6.0;
/// Pure-pursuit look-ahead time, s.
const LOOKAHEAD_S: f64 = 0.45;
/// Least look-ahead per metre between the car and its line, m/m: a car far off its line (on
/// its grid slot, after a spin) rejoins it on a gentle diagonal. Without it the 6 m look-ahead
/// at standstill against the grid slot's 6 m gap to the line asked for three quarters of full
/// lock (the wheel at -344 degrees before the car moved).
const REJOIN_LOOKAHEAD_PER_M: f64 = 4.0;
/// The speed target is read this far ahead in time (brake rise and reaction), s.
const SPEED_PREVIEW_S: f64 = 0.3;
/// Throttle per m/s below the target speed.
const THROTTLE_GAIN: f64 = 0.6;
/// Brake per m/s above the target speed.
const BRAKE_GAIN: f64 = 0.35;
/// Over-speed tolerated before braking, m/s.
const BRAKE_DEADBAND_MPS: f64 = 0.5;
/// Slip ratio above which the robot eases the throttle (traction control).
const TRACTION_SLIP: f64 = 0.12;
/// Slip ratio below which the robot eases the brake (anti-lock).
const LOCK_SLIP: f64 = -0.12;
/// Body slip angle at which the robot has closed the throttle, rad.
const MAX_BODY_SLIP_RAD: f64 = 0.1;
/// Road-wheel angle per rad/s of yaw-rate error (proportional part of the yaw loop), s.
const YAW_GAIN_S: f64 = 0.04;
/// Integral gain of the yaw loop (learns the car's understeer), 1/s.
const YAW_INTEGRAL_GAIN: f64 = 0.6;
/// Largest learned steering bias, rad.
const YAW_INTEGRAL_LIMIT_RAD: f64 = 0.12;

/// One robot driver for one car.
#[derive(Debug, Clone)]
pub struct Robot {
    limits: DriverLimits,
    stations: Vec<Station>,
    speeds: Vec<f64>,
    spacing_m: f64,
    length_m: f64,
    hint: TrackHint,
    gears: gears::Gears,
    last_time_s: Option<f64>,
    /// Learned extra road-wheel angle per unit of commanded lateral acceleration, rad/(m/s^2).
    understeer_rad_per_mps2: f64,
}

impl Robot {
    /// A robot for `car` on `track`, planning with [`DEFAULT_GRIP`].
    pub fn for_car(track: &Track, car: &CarSpec) -> Robot {
        Robot::new(track, DriverLimits::from_car(car), DEFAULT_GRIP)
    }

    /// A robot with explicit limits, planning with `grip` (fraction of the limits, 0..1].
    pub fn new(track: &Track, limits: DriverLimits, grip: f64) -> Robot {
        let stations = line::build(track, limits.half_width_m, true);
        Robot::with_stations(track, limits, grip, stations)
    }

    /// A robot driving the line through `stations` (evenly spaced over the lap, e.g. from
    /// [`line::from_offsets`]), planning its speeds with `grip` exactly as [`Robot::new`] does.
    pub fn with_stations(
        track: &Track,
        limits: DriverLimits,
        grip: f64,
        stations: Vec<Station>,
    ) -> Robot {
        let speeds = speed::profile(&limits, &stations, grip.clamp(0.05, 1.5));
        let length_m = track.length_m();
        Robot {
            limits,
            spacing_m: length_m / stations.len() as f64,
            stations,
            speeds,
            length_m,
            hint: TrackHint::default(),
            gears: gears::Gears::default(),
            last_time_s: None,
            understeer_rad_per_mps2: 0.0,
        }
    }

    /// The car limits the robot plans with.
    pub fn limits(&self) -> &DriverLimits {
        &self.limits
    }

    /// Station index and fraction at centreline distance `distance_m`.
    #[inline]
    fn locate(&self, distance_m: f64) -> (usize, usize, f64) {
        let x = wrap_into_lap(distance_m, self.length_m) / self.spacing_m;
        let last = self.stations.len() - 1;
        let j = (x as usize).min(last);
        (j, if j == last { 0 } else { j + 1 }, x - j as f64)
    }

    /// Planned speed at centreline distance `distance_m`, m/s.
    #[inline]
    pub fn target_speed_mps(&self, distance_m: f64) -> f64 {
        let (j, k, t) = self.locate(distance_m);
        self.speeds[j] + (self.speeds[k] - self.speeds[j]) * t
    }

    /// Planned lateral offset of the line at `distance_m`, m (positive left).
    pub fn line_offset_m(&self, distance_m: f64) -> f64 {
        let (j, k, t) = self.locate(distance_m);
        let (a, b) = (self.stations[j].offset_m, self.stations[k].offset_m);
        a + (b - a) * t
    }

    /// Lap time the plan predicts, s.
    pub fn planned_lap_s(&self) -> f64 {
        let m = self.stations.len();
        (0..m)
            .map(|j| {
                let v = 0.5 * (self.speeds[j] + self.speeds[(j + 1) % m]);
                self.stations[j].step_m / v.max(0.1)
            })
            .sum()
    }

    /// The line point at centreline distance `distance_m`.
    #[inline]
    fn line_point(&self, distance_m: f64) -> [f64; 2] {
        let (j, k, t) = self.locate(distance_m);
        let (a, b) = (self.stations[j].xy, self.stations[k].xy);
        [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
    }

    /// The controls for the next step of `car` in `world` (no allocation, no track query:
    /// uses the world's projection of the car from its last step).
    pub fn drive_car(&mut self, world: &World, car: CarId) -> Controls {
        let coord = world.track_coord(car);
        self.drive_at(world.car(car).telemetry(), &coord)
    }

    /// The controls for the next step (no allocation), projecting the car onto `track` with
    /// the robot's own hint.
    pub fn drive(&mut self, telemetry: &CarTelemetry, track: &Track) -> Controls {
        let coord = track.project(telemetry.position_m, &mut self.hint);
        self.drive_at(telemetry, &coord)
    }

    /// The controls for the next step (no allocation) for a car at `coord` (its track
    /// position at `telemetry.position_m`).
    pub fn drive_at(&mut self, telemetry: &CarTelemetry, coord: &TrackCoord) -> Controls {
        let dt_s = match self.last_time_s {
            Some(last) if telemetry.time_s > last => telemetry.time_s - last,
            _ => 0.0,
        };
        self.last_time_s = Some(telemetry.time_s);
        let position = telemetry.position_m;
        let forward = telemetry.velocity_body_mps[0];
        let speed = forward.max(0.0);

        // Steering: pure pursuit of the line, looking further ahead the further off it the car is.
        let gap_m = (coord.lateral_m - self.line_offset_m(coord.distance_m)).abs();
        let lookahead = (LOOKAHEAD_MIN_M + LOOKAHEAD_S * speed).max(REJOIN_LOOKAHEAD_PER_M * gap_m);
        let target = self.line_point(coord.distance_m + lookahead);
        let yaw = telemetry.roll_pitch_yaw_rad[2];
        let (sin, cos) = crate::math::sin_cos(yaw);
        let (dx, dy) = (target[0] - position[0], target[1] - position[1]);
        let ahead = cos * dx + sin * dy;
        let left = -sin * dx + cos * dy;
        let distance_sq = (ahead * ahead + left * left).max(1.0);
        let curvature = 2.0 * left / distance_sq;
        // Kinematic angle, plus the learned understeer, plus yaw-rate feedback: the tyres need
        // slip angles the geometry does not know about.
        let lateral_accel = speed * speed * curvature;
        let yaw_error = speed * curvature - telemetry.angular_velocity_body_radps[2];
        if speed > 8.0 && lateral_accel.abs() > 1.0 && dt_s > 0.0 {
            let learn = YAW_INTEGRAL_GAIN * yaw_error * dt_s / lateral_accel;
            self.understeer_rad_per_mps2 =
                (self.understeer_rad_per_mps2 + learn).clamp(0.0, YAW_INTEGRAL_LIMIT_RAD / 10.0);
        }
        let road_wheel = crate::math::atan(self.limits.wheelbase_m * curvature)
            + (self.understeer_rad_per_mps2 * lateral_accel)
                .clamp(-YAW_INTEGRAL_LIMIT_RAD, YAW_INTEGRAL_LIMIT_RAD)
            + YAW_GAIN_S * yaw_error;
        let steering = (road_wheel / self.limits.max_steer_rad).clamp(-1.0, 1.0);

        // Speed: the profile a little ahead, throttle below it, brake above it.
        let wanted = self
            .target_speed_mps(coord.distance_m + SPEED_PREVIEW_S * speed)
            .min(self.target_speed_mps(coord.distance_m));
        let error = wanted - speed;
        let (mut throttle, mut brake) = if error >= 0.0 {
            ((0.2 + THROTTLE_GAIN * error).min(1.0), 0.0)
        } else if error > -BRAKE_DEADBAND_MPS {
            (0.2 * (1.0 + error / BRAKE_DEADBAND_MPS), 0.0)
        } else {
            (
                0.0,
                (BRAKE_GAIN * (-error - BRAKE_DEADBAND_MPS) + 0.1).min(1.0),
            )
        };

        // Traction and lock-up control from the wheels' slip ratios, and no power in a slide.
        let wheels = &telemetry.wheels;
        let max_slip = wheels.iter().map(|w| w.slip_ratio).fold(f64::MIN, f64::max);
        let min_slip = wheels.iter().map(|w| w.slip_ratio).fold(f64::MAX, f64::min);
        if speed > 2.0 && max_slip > TRACTION_SLIP {
            throttle *= (TRACTION_SLIP / max_slip).powi(2);
        }
        if min_slip < LOCK_SLIP {
            brake *= 0.5;
        }
        // atan2 with a positive x is atan(y / x); the math version is cheap for small slips.
        let body_slip = crate::math::atan(telemetry.velocity_body_mps[1] / forward.abs().max(1.0));
        if speed > 5.0 {
            // Ease off as the car starts to slide: full power up to half the tolerated body
            // slip, almost none at it.
            let excess = (body_slip.abs() / MAX_BODY_SLIP_RAD - 0.5) * 2.0;
            throttle = throttle.min((1.0 - excess).clamp(0.05, 1.0));
        }

        let shift = self.gears.update(&self.limits, telemetry, speed, dt_s);
        if shift.lift {
            throttle = 0.0;
        }
        // A stub drivetrain (no gearbox) reports gear 0 and needs no requests.
        let gear_request = if telemetry.drivetrain.forward_gears == 0 {
            GearRequest::None
        } else {
            shift.request
        };
        Controls {
            steering,
            throttle,
            brake,
            clutch: shift.clutch,
            handbrake: 0.0,
            gear_request,
            ignition: true,
            starter: shift.starter,
        }
        .sanitized()
    }
}
