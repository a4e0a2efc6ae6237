//! Robot drivers (RARS's robots): a robot sees its car's situation relative to the track (its
//! [`CarTelemetry`] and the [`Track`]) and returns [`Controls`], like a human at the wheel.
//!
//! At construction (allocation allowed) the robot plans: a line across the track relaxed
//! towards linearly varying curvature ([`line`]), and a speed profile that is the lap
//! simulation's speed trace on the car's [`Envelope`] with the robot's margin on the lateral
//! and braking limits ([`speed`]): [`Robot::for_car`] (the demo's robots) plans on the car's
//! shipped measured envelope, else on the estimate from the car data ([`planning_envelope`]);
//! [`Robot::new`] and [`Robot::with_stations`] (the line search's robot) on the grip-only
//! envelope of the driver limits. While
//! driving (`drive`: no allocation, O(1)) it steers by pure pursuit of a point on its line a
//! speed-dependent distance ahead (further when the car is far off its line, so it rejoins
//! gently instead of at full lock), follows the profile with the plan's acceleration as
//! feed-forward (full throttle where the plan drives at the limit, the brake pedal for the
//! plan's deceleration, looked up a brake rise ahead) plus feedback on the speed error, keeps
//! the driven wheels near their peak slip with a traction control (a throttle ceiling that
//! integrates their slip past the peak) and the brakes off lock-up, and shifts gears at the envelope's power-optimal upshift speeds with
//! the clutch work a manual box needs ([`gears`]).
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
use crate::envelope::Envelope;
use crate::spec::CarSpec;
use crate::telemetry::CarTelemetry;
use crate::track::{wrap_into_lap, Track, TrackCoord, TrackHint};
use crate::world::{CarId, World};
pub use limits::DriverLimits;
use line::Station;

/// Fraction of the car's grip the line search's robot ([`Robot::new`],
/// [`Robot::with_stations`]) plans with on its grip-only envelope: near the limit, with room
/// for the tyres' load sensitivity, crests and the controller's errors.
pub const DEFAULT_GRIP: f64 = 0.85;
/// Margin on the envelope's lateral and braking limits of [`Robot::for_car`] and
/// [`Robot::at_the_limit`]: room for the estimate's error (the road car's braking is 4 % above
/// the measured figure), crests and the controller's tracking error.
pub const DEFAULT_MARGIN: f64 = 0.96;
/// Pure-pursuit look-ahead: this distance plus the distance covered in [`LOOKAHEAD_S`], m.
const LOOKAHEAD_MIN_M: f64 = 6.0;
/// Pure-pursuit look-ahead time, s.
const LOOKAHEAD_S: f64 = 0.45;
/// Least look-ahead per metre between the car and its line, m/m: a car far off its line (on
/// its grid slot, after a spin) rejoins it on a gentle diagonal. Without it the 6 m look-ahead
/// at standstill against the grid slot's 6 m gap to the line asked for three quarters of full
/// lock (the wheel at -344 degrees before the car moved).
const REJOIN_LOOKAHEAD_PER_M: f64 = 4.0;
/// The plan's speed and acceleration are read this far ahead in time (brake rise), s.
const SPEED_PREVIEW_S: f64 = 0.1;
/// Acceleration asked for per m/s of speed error, 1/s.
const SPEED_GAIN_PER_S: f64 = 2.0;
/// Drag of the tyres' slip angles per unit of lateral acceleration (about the tangent of the
/// slip angle near the limit): the thrust a car at the limit needs to hold its speed.
const CORNERING_DRAG_RATIO: f64 = 0.15;
/// Share of the plan's full-drive acceleration above which the robot is at full throttle.
const FULL_DRIVE_SHARE: f64 = 0.9;
/// Slip ratio of the driven wheels the traction control holds them at (near the tyres'
/// longitudinal peak: more spins the wheel without more thrust).
const TRACTION_SLIP: f64 = 0.12;
/// Traction control: throttle ceiling taken off per second per unit of driven-wheel slip
/// ratio above [`TRACTION_SLIP`], 1/s (a wheel at 0.3 slip loses 7 % of throttle per 10 ms).
const TRACTION_CUT_PER_S: f64 = 40.0;
/// Traction control: throttle ceiling given back per second while the driven wheels are
/// below [`TRACTION_SLIP`], 1/s.
const TRACTION_RECOVER_PER_S: f64 = 2.0;
/// Slip ratio below which the robot eases the brake (anti-lock).
const LOCK_SLIP: f64 = -0.12;
/// Body slip angle up to which the robot keeps full power with driven rear wheels, rad: power
/// at the rear pushes a sliding tail further out.
const REAR_DRIVE_SLIDE_START_RAD: f64 = 0.05;
/// ... with only the front wheels driven, rad: a front-driven car at its lateral limit runs
/// this much body slip in a steady turn (the road car: 0.09-0.11 rad at 7-9 m/s^2), and power
/// at the front pulls a slide straight rather than feeding it; cutting power here cost the
/// road car 2.5 m/s through the circuit's corners.
const FRONT_DRIVE_SLIDE_START_RAD: f64 = 0.15;
/// Body slip past the start over which the robot closes the throttle, rad.
const SLIDE_SPAN_RAD: f64 = 0.05;
/// Road-wheel angle per rad/s of yaw-rate error (proportional part of the yaw loop), s.
const YAW_GAIN_S: f64 = 0.04;
/// Integral gain of the yaw loop (learns the car's understeer), 1/s.
const YAW_INTEGRAL_GAIN: f64 = 0.6;
/// Largest learned steering bias, rad.
const YAW_INTEGRAL_LIMIT_RAD: f64 = 0.12;

/// The envelope a robot plans on for `car` when none is given: the measured one shipped for
/// it ([`crate::envelope::file::builtin`], the road car's) when it was made for the car as it
/// is now, else the estimate from the car data ([`Envelope::estimate`]). A shipped file made
/// for other car data is passed over (`physics/tests/envelope_measured.rs` fails until it is
/// measured again).
pub fn planning_envelope(car: &CarSpec) -> Envelope {
    match crate::envelope::file::builtin(car) {
        Some(Ok(measured)) => measured,
        _ => Envelope::estimate(car),
    }
}

/// One robot driver for one car.
#[derive(Debug, Clone)]
pub struct Robot {
    limits: DriverLimits,
    envelope: Envelope,
    margin: f64,
    stations: Vec<Station>,
    speeds: Vec<f64>,
    accels: Vec<f64>,
    planned_lap_s: f64,
    spacing_m: f64,
    length_m: f64,
    hint: TrackHint,
    gears: gears::Gears,
    last_time_s: Option<f64>,
    /// Learned extra road-wheel angle per unit of commanded lateral acceleration, rad/(m/s^2).
    understeer_rad_per_mps2: f64,
    /// Traction control's throttle ceiling (0..1): lowered while a driven wheel slips past
    /// [`TRACTION_SLIP`], raised again while they grip.
    traction_ceiling: f64,
}

impl Robot {
    /// A robot for `car` on `track` driving to the limit (the demo's robots): planning on
    /// [`planning_envelope`] (the car's shipped measured envelope, else the estimate from its
    /// data) with [`DEFAULT_MARGIN`]. Every built-in car laps every built-in track this way;
    /// all four wheels stay inside the edges on 6 of the 15 (on the others the robot runs
    /// wide of its line at exits: `physics/tests/robot_every_car_track.rs`).
    pub fn for_car(track: &Track, car: &CarSpec) -> Robot {
        Robot::with_envelope(
            track,
            DriverLimits::from_car(car),
            &planning_envelope(car),
            DEFAULT_MARGIN,
        )
    }

    /// A robot for `car` on `track` driving to the limit: planning on the car's estimated
    /// envelope with [`DEFAULT_MARGIN`] (docs/lapsim.md: the road car on the circuit; not yet
    /// every car on every track).
    pub fn at_the_limit(track: &Track, car: &CarSpec) -> Robot {
        Robot::with_envelope(
            track,
            DriverLimits::from_car(car),
            &Envelope::estimate(car),
            DEFAULT_MARGIN,
        )
    }

    /// A robot with explicit limits, planning with `grip` (fraction of the limits, 0..1] on
    /// their grip-only envelope ([`DriverLimits::envelope`]).
    pub fn new(track: &Track, limits: DriverLimits, grip: f64) -> Robot {
        Robot::with_envelope(track, limits, &limits.envelope(), grip)
    }

    /// A robot planning on `envelope` (measured or estimated for its car) with `margin`
    /// (fraction of its lateral and braking limits, 0..1]: the robot's skill.
    pub fn with_envelope(
        track: &Track,
        limits: DriverLimits,
        envelope: &Envelope,
        margin: f64,
    ) -> Robot {
        let stations = line::build(track, limits.half_width_m, true);
        Robot::planned(track, limits, stations, envelope, margin)
    }

    /// A robot driving the line through `stations` (evenly spaced over the lap, e.g. from
    /// [`line::from_offsets`]), planning its speeds with `grip` exactly as [`Robot::new`] does.
    pub fn with_stations(
        track: &Track,
        limits: DriverLimits,
        grip: f64,
        stations: Vec<Station>,
    ) -> Robot {
        Robot::planned(track, limits, stations, &limits.envelope(), grip)
    }

    /// This robot with another margin (its line kept, its speeds planned again).
    pub fn with_margin(&self, track: &Track, margin: f64) -> Robot {
        Robot::planned(
            track,
            self.limits,
            self.stations.clone(),
            &self.envelope,
            margin,
        )
    }

    /// The one place a robot's speeds are planned: every constructor ends here.
    fn planned(
        track: &Track,
        limits: DriverLimits,
        stations: Vec<Station>,
        envelope: &Envelope,
        margin: f64,
    ) -> Robot {
        let margin = margin.clamp(0.05, 1.5);
        let plan = speed::plan(track, &stations, envelope, margin);
        let length_m = track.length_m();
        Robot {
            limits: limits.with_upshifts_of(envelope),
            envelope: envelope.clone(),
            margin,
            spacing_m: length_m / stations.len() as f64,
            stations,
            speeds: plan.speeds_mps,
            accels: plan.accels_mps2,
            planned_lap_s: plan.lap_s,
            length_m,
            hint: TrackHint::default(),
            gears: gears::Gears::default(),
            last_time_s: None,
            understeer_rad_per_mps2: 0.0,
            traction_ceiling: 1.0,
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

    /// Lap time the plan predicts (the lap simulation's, with the robot's margin), s.
    pub fn planned_lap_s(&self) -> f64 {
        self.planned_lap_s
    }

    /// The envelope the robot plans with.
    pub fn envelope(&self) -> &Envelope {
        &self.envelope
    }

    /// The margin on the envelope's lateral and braking limits the robot plans with.
    pub fn margin(&self) -> f64 {
        self.margin
    }

    /// The robot's line.
    pub fn stations(&self) -> &[Station] {
        &self.stations
    }

    /// Planned acceleration at centreline distance `distance_m` (the step it falls in), m/s^2.
    #[inline]
    pub fn target_accel_mps2(&self, distance_m: f64) -> f64 {
        self.accels[self.locate(distance_m).0]
    }

    /// Curvature of the line at centreline distance `distance_m` (its station), 1/m.
    #[inline]
    fn curvature_at(&self, distance_m: f64) -> f64 {
        self.stations[self.locate(distance_m).0]
            .curvature_per_m
            .abs()
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

        // Speed: the plan's acceleration a brake rise ahead as feed-forward, plus feedback on
        // the speed error; full throttle where the plan is at full drive.
        let ahead_m = coord.distance_m + SPEED_PREVIEW_S * speed;
        let planned_accel = self.target_accel_mps2(ahead_m);
        let wanted = planned_accel + SPEED_GAIN_PER_S * (self.target_speed_mps(ahead_m) - speed);
        let lateral_mps2 = speed * speed * self.curvature_at(ahead_m);
        let coast = self.envelope.coast_mps2(speed) + CORNERING_DRAG_RATIO * lateral_mps2;
        let full_drive = self.envelope.drive_limit_mps2(speed);
        let (mut throttle, mut brake) = if wanted >= -coast {
            let at_full_drive = planned_accel
                > FULL_DRIVE_SHARE
                    * full_drive.min(
                        self.envelope
                            .drive_with_lateral_mps2(speed, lateral_mps2 / self.margin),
                    )
                && planned_accel > 0.0;
            let share = (wanted + coast) / (full_drive + coast).max(0.5);
            (
                if at_full_drive {
                    1.0
                } else {
                    share.clamp(0.0, 1.0)
                },
                0.0,
            )
        } else {
            let pedal = (-wanted - coast) / self.limits.brake_decel_per_pedal_mps2;
            (0.0, pedal.clamp(0.0, 1.0))
        };

        // Traction control (an integrating throttle ceiling on the driven wheels' largest slip
        // ratio, so an open differential's inside wheel is held near its peak instead of
        // spinning up and then being cut hard), lock-up control, and no power in a slide.
        let wheels = &telemetry.wheels;
        let driven_slip = wheels
            .iter()
            .zip(self.limits.driven_wheels)
            .filter(|(_, driven)| *driven)
            .map(|(w, _)| w.slip_ratio)
            .fold(0.0, f64::max);
        let min_slip = wheels.iter().map(|w| w.slip_ratio).fold(f64::MAX, f64::min);
        if speed > 2.0 && driven_slip > TRACTION_SLIP {
            // Cut from the throttle actually in use, not from a ceiling far above it.
            self.traction_ceiling = self.traction_ceiling.min(throttle)
                - TRACTION_CUT_PER_S * (driven_slip - TRACTION_SLIP) * dt_s;
        } else {
            self.traction_ceiling += TRACTION_RECOVER_PER_S * dt_s;
        }
        self.traction_ceiling = self.traction_ceiling.clamp(0.0, 1.0);
        throttle = throttle.min(self.traction_ceiling);
        if min_slip < LOCK_SLIP && !self.limits.abs {
            brake *= 0.5;
        }
        // atan2 with a positive x is atan(y / x); the math version is cheap for small slips.
        let body_slip = crate::math::atan(telemetry.velocity_body_mps[1] / forward.abs().max(1.0));
        if speed > 5.0 {
            // Ease off as the car starts to slide: full power up to the body slip of a steady
            // turn at the limit, almost none at the tolerated body slip.
            let start = if self.limits.driven_wheels[2] {
                REAR_DRIVE_SLIDE_START_RAD
            } else {
                FRONT_DRIVE_SLIDE_START_RAD
            };
            let excess = (body_slip.abs() - start) / SLIDE_SPAN_RAD;
            throttle = throttle.min((1.0 - excess).clamp(0.05, 1.0));
        }

        let shift = self.gears.update(&self.limits, telemetry, speed, dt_s);
        if shift.lift {
            throttle = 0.0;
        }
        if shift.blip {
            throttle = 1.0;
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
