//! Standard open- and closed-loop manoeuvres (ISO 4138 steady-state circle and constant-speed
//! steer ramp, ISO 7401 step steer, straight-line braking, full-throttle acceleration,
//! coast-down) run on a flat plane, sampled every 10 ms into [`Row`]s and written as CSV, and
//! their characteristic values ([`summary`]: steady yaw rate and lateral acceleration,
//! response times, overshoot, understeer gradient). The columns are documented in
//! `docs/maneuvers.md`; `rigd maneuver` prints them.
//!
//! A small robot driver does what a test driver would: selects and changes gears with the
//! clutch, holds a speed with the throttle, follows a constant radius with the steering.
//! Every manoeuvre that starts at speed first settles (not recorded): the driver engages the
//! gear it cruises in, lets the clutch out and holds the speed straight ahead until the car is
//! steady ([`SETTLE_CRITERION`]); time 0 of the trace is that moment.
//! Allocates (rows): not for the RT loop.

use crate::controls::{Controls, GearRequest};
use crate::spec::CarSpec;
use crate::telemetry::CarTelemetry;
use crate::track::Track;
use crate::world::World;
use std::io::{self, Write};

/// Integration step, s.
pub const DT_S: f64 = 0.001;
/// Rows are sampled every this many steps (10 ms).
pub const SAMPLE_EVERY: usize = 10;

/// When the car counts as settled before a manoeuvre (documented for users).
pub const SETTLE_CRITERION: &str = "gear engaged and not shifting, clutch fully out, speed \
within 0.1 % (at least 0.02 m/s) of the target, |longitudinal acceleration| < 0.02 m/s^2, \
|lateral acceleration| < 0.02 m/s^2 and |yaw rate| < 0.001 rad/s, all held for 1 s";
/// Longest settling before a manoeuvre gives up, s.
pub const SETTLE_MAX_S: f64 = 60.0;
/// How long the settled conditions must hold, s.
pub(crate) const SETTLE_HOLD_S: f64 = 1.0;

/// A manoeuvre and its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Maneuver {
    /// ISO 4138 constant radius: the driver holds the radius with the steering while the speed
    /// rises slowly from `speed_start_kph` to `speed_end_kph` over `duration_s`.
    SteadyStateCircle {
        /// Circle radius, m.
        radius_m: f64,
        /// Speed at the start, km/h.
        speed_start_kph: f64,
        /// Speed at the end, km/h.
        speed_end_kph: f64,
        /// Duration of the ramp, s.
        duration_s: f64,
    },
    /// ISO 7401 step steer: at a held speed, the steering wheel goes from 0 to `steer_deg`
    /// in 0.1 s at t = 0.5 s and stays there.
    StepSteer {
        /// Speed held, km/h.
        speed_kph: f64,
        /// Steering-wheel angle after the step, degrees (positive left).
        steer_deg: f64,
        /// Total duration, s.
        duration_s: f64,
    },
    /// Straight-line braking from `speed_kph` to rest (then 1 s held) with a fixed pedal
    /// (cars with ABS keep every wheel near its peak slip).
    Braking {
        /// Initial speed, km/h.
        speed_kph: f64,
        /// Brake pedal, 0..1.
        pedal: f64,
    },
    /// Full throttle from rest with gear changes near the rev limit.
    Acceleration {
        /// Duration, s.
        duration_s: f64,
    },
    /// ISO 4138 constant speed: at a held speed the steering wheel turns at a slow constant
    /// rate from 0 to `max_steer_deg` (quasi steady state); the understeer gradient comes
    /// from the road-wheel angle against lateral acceleration ([`understeer_gradient`]).
    SteerRamp {
        /// Speed held, km/h.
        speed_kph: f64,
        /// Steering-wheel rate, degrees per second (positive left).
        steer_rate_deg_per_s: f64,
        /// Steering-wheel angle at the end, degrees.
        max_steer_deg: f64,
    },
    /// Rolling in neutral from `speed_kph` with no input until walking pace or `duration_s`.
    CoastDown {
        /// Initial speed, km/h.
        speed_kph: f64,
        /// Longest duration, s.
        duration_s: f64,
    },
}

/// A manoeuvre that cannot run as asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{parameter}: {message}")]
pub struct ManeuverError {
    /// The offending parameter.
    pub parameter: &'static str,
    /// What is wrong and what is expected.
    pub message: String,
}

/// One sample of a manoeuvre.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Row {
    /// Time since the manoeuvre started, s.
    pub time_s: f64,
    /// Speed over ground, m/s.
    pub speed_mps: f64,
    /// Yaw rate, rad/s (positive left).
    pub yaw_rate_radps: f64,
    /// Lateral acceleration in the body frame, m/s^2 (positive left).
    pub lateral_accel_mps2: f64,
    /// Longitudinal acceleration in the body frame, m/s^2 (positive forward).
    pub longitudinal_accel_mps2: f64,
    /// Body slip angle atan(vy / vx), rad.
    pub body_slip_rad: f64,
    /// Roll angle, rad.
    pub roll_rad: f64,
    /// Pitch angle, rad (positive nose down).
    pub pitch_rad: f64,
    /// Steering-wheel angle, rad (positive left).
    pub steering_wheel_angle_rad: f64,
    /// Steering torque at the rim, N m (positive pulls left).
    pub steering_torque_nm: f64,
    /// Tyre loads FL, FR, RL, RR, N.
    pub wheel_loads_n: [f64; 4],
    /// Throttle applied, 0..1.
    pub throttle: f64,
    /// Brake pedal applied, 0..1.
    pub brake: f64,
    /// Gear.
    pub gear: i8,
    /// Engine speed, rpm.
    pub engine_rpm: f64,
    /// Distance travelled, m.
    pub distance_m: f64,
}

/// CSV header, matching [`Row`] field order.
pub const CSV_HEADER: &str = "time_s,speed_mps,yaw_rate_radps,lateral_accel_mps2,\
longitudinal_accel_mps2,body_slip_rad,roll_rad,pitch_rad,steering_wheel_angle_rad,\
steering_torque_nm,load_fl_n,load_fr_n,load_rl_n,load_rr_n,throttle,brake,gear,engine_rpm,\
distance_m";

impl Maneuver {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), ManeuverError> {
        let check = |parameter: &'static str, value: f64, lo: f64, hi: f64| {
            if value.is_finite() && value >= lo && value <= hi {
                Ok(())
            } else {
                Err(ManeuverError {
                    parameter,
                    message: format!("expected a value between {lo} and {hi}, got {value}"),
                })
            }
        };
        match *self {
            Maneuver::SteadyStateCircle {
                radius_m,
                speed_start_kph,
                speed_end_kph,
                duration_s,
            } => {
                check("radius_m", radius_m, 5.0, 10_000.0)?;
                check("speed_start_kph", speed_start_kph, 1.0, 400.0)?;
                check("speed_end_kph", speed_end_kph, 1.0, 400.0)?;
                check("duration_s", duration_s, 1.0, 600.0)
            }
            Maneuver::StepSteer {
                speed_kph,
                steer_deg,
                duration_s,
            } => {
                check("speed_kph", speed_kph, 1.0, 400.0)?;
                check("steer_deg", steer_deg, -1800.0, 1800.0)?;
                check("duration_s", duration_s, 1.0, 600.0)
            }
            Maneuver::SteerRamp {
                speed_kph,
                steer_rate_deg_per_s,
                max_steer_deg,
            } => {
                check("speed_kph", speed_kph, 1.0, 400.0)?;
                check(
                    "steer_rate_deg_per_s",
                    steer_rate_deg_per_s.abs(),
                    0.1,
                    100.0,
                )?;
                check("max_steer_deg", max_steer_deg.abs(), 1.0, 1800.0)
            }
            Maneuver::Braking { speed_kph, pedal } => {
                check("speed_kph", speed_kph, 1.0, 400.0)?;
                check("pedal", pedal, 0.0, 1.0)
            }
            Maneuver::Acceleration { duration_s } => check("duration_s", duration_s, 1.0, 600.0),
            Maneuver::CoastDown {
                speed_kph,
                duration_s,
            } => {
                check("speed_kph", speed_kph, 1.0, 400.0)?;
                check("duration_s", duration_s, 1.0, 3600.0)
            }
        }
    }
}

/// Runs `maneuver` with `spec` and writes the CSV (header plus one line per row) to `out`.
pub fn run(spec: &CarSpec, maneuver: &Maneuver, out: &mut impl Write) -> io::Result<()> {
    let rows = simulate(spec, maneuver)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    write_csv(&rows, out)
}

/// Writes rows as CSV with [`CSV_HEADER`].
pub fn write_csv(rows: &[Row], out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "{CSV_HEADER}")?;
    for r in rows {
        writeln!(
            out,
            "{:.3},{:.4},{:.5},{:.4},{:.4},{:.5},{:.5},{:.5},{:.5},{:.3},{:.1},{:.1},{:.1},{:.1},{:.3},{:.3},{},{:.0},{:.3}",
            r.time_s,
            r.speed_mps,
            r.yaw_rate_radps,
            r.lateral_accel_mps2,
            r.longitudinal_accel_mps2,
            r.body_slip_rad,
            r.roll_rad,
            r.pitch_rad,
            r.steering_wheel_angle_rad,
            r.steering_torque_nm,
            r.wheel_loads_n[0],
            r.wheel_loads_n[1],
            r.wheel_loads_n[2],
            r.wheel_loads_n[3],
            r.throttle,
            r.brake,
            r.gear,
            r.engine_rpm,
            r.distance_m,
        )?;
    }
    Ok(())
}

/// Drives straight at `speed_mps` in the driver's target gear until [`SETTLE_CRITERION`]
/// holds (the manoeuvre starts from there), or fails after [`SETTLE_MAX_S`].
fn settle(
    world: &mut World,
    id: crate::world::CarId,
    driver: &mut Driver,
    speed_mps: f64,
) -> Result<(), ManeuverError> {
    let mut telemetry = world.telemetry(id);
    let mut held_s = 0.0;
    for _ in 0..(SETTLE_MAX_S / DT_S) as usize {
        let controls = driver.cruise(speed_mps, &telemetry);
        world.set_controls(id, controls);
        world.step(DT_S);
        telemetry = world.telemetry(id);
        held_s = if is_steady(&telemetry, driver, speed_mps) {
            held_s + DT_S
        } else {
            0.0
        };
        if held_s >= SETTLE_HOLD_S {
            return Ok(());
        }
    }
    Err(not_settled(speed_mps))
}

/// Whether one step's state meets [`SETTLE_CRITERION`] (it must then hold for
/// [`SETTLE_HOLD_S`]).
pub(crate) fn is_steady(telemetry: &CarTelemetry, driver: &Driver, speed_mps: f64) -> bool {
    let speed_band = (0.001 * speed_mps).max(0.02);
    let d = &telemetry.drivetrain;
    d.gear == driver.target_gear
        && !d.shifting
        && driver.clutch == 0.0
        && (telemetry.speed_mps - speed_mps).abs() < speed_band
        && telemetry.acceleration_body_mps2[0].abs() < 0.02
        && telemetry.acceleration_body_mps2[1].abs() < 0.02
        && telemetry.angular_velocity_body_radps[2].abs() < 0.001
}

/// The error of a car that did not settle at `speed_mps` within [`SETTLE_MAX_S`].
pub(crate) fn not_settled(speed_mps: f64) -> ManeuverError {
    ManeuverError {
        parameter: "speed_kph",
        message: format!(
            "the car did not settle at {:.1} km/h within {SETTLE_MAX_S} s ({SETTLE_CRITERION}); \
             choose a speed the car can hold in a gear",
            speed_mps * 3.6
        ),
    }
}

/// Runs `maneuver` and returns the sampled rows.
pub fn simulate(spec: &CarSpec, maneuver: &Maneuver) -> Result<Vec<Row>, ManeuverError> {
    maneuver.validate()?;
    let mut world = World::new(Track::flat());
    let id = world.add_car(spec);
    let mut driver = Driver::new(spec);
    let (duration_s, initial_speed) = match *maneuver {
        Maneuver::SteadyStateCircle {
            speed_start_kph,
            duration_s,
            ..
        } => (duration_s, speed_start_kph / 3.6),
        Maneuver::StepSteer {
            speed_kph,
            duration_s,
            ..
        } => (duration_s, speed_kph / 3.6),
        Maneuver::SteerRamp {
            speed_kph,
            steer_rate_deg_per_s,
            max_steer_deg,
        } => (
            (max_steer_deg / steer_rate_deg_per_s).abs(),
            speed_kph / 3.6,
        ),
        Maneuver::Braking { speed_kph, .. } => (60.0, speed_kph / 3.6),
        Maneuver::Acceleration { duration_s } => (duration_s, 0.0),
        Maneuver::CoastDown {
            speed_kph,
            duration_s,
        } => (duration_s, speed_kph / 3.6),
    };
    if initial_speed > 0.0 {
        world.car_mut(id).set_speed(initial_speed);
        if !matches!(maneuver, Maneuver::CoastDown { .. }) {
            driver.target_gear = driver.cruise_gear(initial_speed);
            settle(&mut world, id, &mut driver, initial_speed)?;
        }
    } else {
        driver.target_gear = 1;
    }
    let steps = (duration_s / DT_S).round() as usize;
    let mut rows = Vec::with_capacity(steps / SAMPLE_EVERY + 1);
    let mut distance = 0.0;
    let mut stopped_for = 0.0;
    let mut telemetry = world.telemetry(id);
    for step in 0..steps {
        let t = step as f64 * DT_S;
        let controls = driver.controls(maneuver, t, &telemetry);
        world.set_controls(id, controls);
        world.step(DT_S);
        telemetry = world.telemetry(id);
        distance += telemetry.speed_mps * DT_S;
        if step % SAMPLE_EVERY == 0 {
            rows.push(row(t + DT_S, &telemetry, distance));
        }
        let done = match maneuver {
            Maneuver::Braking { .. } => {
                if telemetry.speed_mps < 0.01 {
                    stopped_for += DT_S;
                }
                stopped_for > 1.0
            }
            Maneuver::CoastDown { .. } => telemetry.speed_mps < 1.0,
            _ => false,
        };
        if done {
            break;
        }
    }
    Ok(rows)
}

/// Lateral accelerations the understeer gradient is fitted over, m/s^2 (the linear range of
/// a road car; ISO 4138 reads the gradient there).
pub const UNDERSTEER_FIT_MPS2: [f64; 2] = [0.5, 4.0];

/// Understeer gradient, rad of road-wheel angle per m/s^2 of lateral acceleration: the
/// least-squares slope of delta - L r / v (road-wheel angle, rim angle over the steering ratio,
/// minus the kinematic angle of the path's curvature r / v) against the lateral acceleration,
/// over the rows with |a_y| in [`UNDERSTEER_FIT_MPS2`]. `None` with fewer than 10 such rows.
pub fn understeer_gradient(rows: &[Row], wheelbase_m: f64, steering_ratio: f64) -> Option<f64> {
    let [low, high] = UNDERSTEER_FIT_MPS2;
    let points: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.speed_mps > 1.0 && (low..=high).contains(&r.lateral_accel_mps2.abs()))
        .map(|r| {
            let delta = r.steering_wheel_angle_rad / steering_ratio;
            let kinematic = wheelbase_m * r.yaw_rate_radps / r.speed_mps;
            (r.lateral_accel_mps2, delta - kinematic)
        })
        .collect();
    if points.len() < 10 {
        return None;
    }
    let n = points.len() as f64;
    let (mx, my) = points
        .iter()
        .fold((0.0, 0.0), |(x, y), p| (x + p.0 / n, y + p.1 / n));
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(sxy, sxx), p| {
        (sxy + (p.0 - mx) * (p.1 - my), sxx + (p.0 - mx) * (p.0 - mx))
    });
    Some(sxy / sxx)
}

/// A characteristic value of a manoeuvre.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    /// What it is (snake case).
    pub name: &'static str,
    /// Its value.
    pub value: f64,
    /// Its unit.
    pub unit: &'static str,
}

/// Steady value (mean over the last second), time from the steering input's half-way point
/// (t = 0.55 s) to 90 % of it, time to the peak, and overshoot of one step-steer channel.
fn step_response(rows: &[Row], value: impl Fn(&Row) -> f64) -> [f64; 4] {
    const HALF_STEER_S: f64 = 0.55;
    let end = rows.last().map_or(0.0, |r| r.time_s);
    let tail: Vec<f64> = rows
        .iter()
        .filter(|r| r.time_s >= end - 1.0)
        .map(&value)
        .collect();
    let steady = tail.iter().sum::<f64>() / tail.len().max(1) as f64;
    let sign = if steady < 0.0 { -1.0 } else { 1.0 };
    let rise = rows
        .iter()
        .find(|r| r.time_s > HALF_STEER_S && sign * value(r) >= 0.9 * sign * steady)
        .map_or(f64::NAN, |r| r.time_s - HALF_STEER_S);
    let peak = rows
        .iter()
        .filter(|r| r.time_s > HALF_STEER_S)
        .max_by(|a, b| (sign * value(a)).total_cmp(&(sign * value(b))));
    let (peak_time, peak_value) = peak.map_or((f64::NAN, f64::NAN), |r| (r.time_s, value(r)));
    let overshoot = 100.0 * (peak_value - steady) / steady;
    [steady, rise, peak_time - HALF_STEER_S, overshoot]
}

/// The characteristic values of `maneuver`'s trace `rows` for the car `spec`: step steer:
/// steady yaw rate and lateral acceleration, their response and peak times (from the
/// steering input's half-way point) and overshoot; steer ramp and steady-state circle: the
/// understeer gradient (ISO 4138) and the largest lateral acceleration; empty for the others.
pub fn summary(spec: &CarSpec, maneuver: &Maneuver, rows: &[Row]) -> Vec<Figure> {
    let figure = |name, value, unit| Figure { name, value, unit };
    match maneuver {
        Maneuver::StepSteer { .. } => {
            let [yaw, yaw_rise, yaw_peak, yaw_over] = step_response(rows, |r| r.yaw_rate_radps);
            let [lat, lat_rise, lat_peak, lat_over] = step_response(rows, |r| r.lateral_accel_mps2);
            vec![
                figure("steady_yaw_rate", yaw, "rad/s"),
                figure("yaw_rate_response_time", yaw_rise, "s"),
                figure("yaw_rate_peak_time", yaw_peak, "s"),
                figure("yaw_rate_overshoot", yaw_over, "%"),
                figure("steady_lateral_accel", lat, "m/s^2"),
                figure("lateral_accel_response_time", lat_rise, "s"),
                figure("lateral_accel_peak_time", lat_peak, "s"),
                figure("lateral_accel_overshoot", lat_over, "%"),
            ]
        }
        Maneuver::SteerRamp { .. } | Maneuver::SteadyStateCircle { .. } => {
            let gradient = understeer_gradient(rows, spec.chassis.wheelbase_m, spec.steering.ratio)
                .unwrap_or(f64::NAN);
            let peak = rows
                .iter()
                .map(|r| r.lateral_accel_mps2.abs())
                .fold(0.0, f64::max);
            vec![
                figure(
                    "understeer_gradient",
                    gradient.to_degrees() * crate::spec::GRAVITY_MPS2,
                    "deg/g",
                ),
                figure("max_lateral_accel", peak, "m/s^2"),
            ]
        }
        _ => Vec::new(),
    }
}

fn row(time_s: f64, t: &CarTelemetry, distance_m: f64) -> Row {
    Row {
        time_s,
        speed_mps: t.speed_mps,
        yaw_rate_radps: t.angular_velocity_body_radps[2],
        lateral_accel_mps2: t.acceleration_body_mps2[1],
        longitudinal_accel_mps2: t.acceleration_body_mps2[0],
        body_slip_rad: if t.speed_mps > 0.5 {
            t.velocity_body_mps[1].atan2(t.velocity_body_mps[0])
        } else {
            0.0
        },
        roll_rad: t.roll_pitch_yaw_rad[0],
        pitch_rad: t.roll_pitch_yaw_rad[1],
        steering_wheel_angle_rad: t.steering_wheel_angle_rad,
        steering_torque_nm: t.steering_torque_nm,
        wheel_loads_n: [
            t.wheels[0].load_n,
            t.wheels[1].load_n,
            t.wheels[2].load_n,
            t.wheels[3].load_n,
        ],
        throttle: t.controls.throttle,
        brake: t.controls.brake,
        gear: t.drivetrain.gear,
        engine_rpm: t.drivetrain.engine_rpm,
        distance_m,
    }
}

/// The manoeuvres' robot driver (the envelope measurement drives with it too).
#[derive(Debug, Clone)]
pub(crate) struct Driver {
    pub(crate) target_gear: i8,
    pub(crate) clutch: f64,
    clutch_held_s: f64,
    speed_integral: f64,
    yaw_integral: f64,
    ratios: Vec<f64>,
    final_drive: f64,
    radius_m: f64,
    rim_lock_rad: f64,
    steering_ratio: f64,
    wheelbase_m: f64,
}

impl Driver {
    pub(crate) fn new(spec: &CarSpec) -> Driver {
        Driver {
            target_gear: 0,
            clutch: 0.0,
            clutch_held_s: 0.0,
            speed_integral: 0.0,
            yaw_integral: 0.0,
            ratios: spec.drivetrain.gearbox.forward_ratios.clone(),
            final_drive: spec.drivetrain.gearbox.final_drive_ratio,
            radius_m: spec.tyre.unloaded_radius_m,
            rim_lock_rad: spec.steering.rim_lock_deg.to_radians(),
            steering_ratio: spec.steering.ratio,
            wheelbase_m: spec.chassis.wheelbase_m,
        }
    }

    pub(crate) fn engine_rpm_at(&self, gear: usize, speed_mps: f64) -> f64 {
        speed_mps / self.radius_m * self.final_drive * self.ratios[gear - 1] * 60.0
            / (2.0 * std::f64::consts::PI)
    }

    /// Highest gear keeping the engine above 3000 rpm at `speed_mps` (first if none).
    fn cruise_gear(&self, speed_mps: f64) -> i8 {
        (1..=self.ratios.len())
            .rev()
            .find(|&g| self.engine_rpm_at(g, speed_mps) >= 3000.0)
            .unwrap_or(1) as i8
    }

    /// Clutch and gear requests towards `target_gear`: pedal down, one gear at a time, pedal
    /// up over 0.4 s.
    pub(crate) fn shift(&mut self, t: &CarTelemetry, dt: f64) -> GearRequest {
        let gear = t.drivetrain.gear;
        if gear != self.target_gear || t.drivetrain.shifting {
            self.clutch = 1.0;
            self.clutch_held_s += dt;
            if gear != self.target_gear && !t.drivetrain.shifting && self.clutch_held_s > 0.05 {
                self.clutch_held_s = 0.0;
                let next = gear + (self.target_gear - gear).signum();
                return GearRequest::Select(next);
            }
        } else {
            self.clutch_held_s = 0.0;
            self.clutch = (self.clutch - dt / 0.4).max(0.0);
        }
        GearRequest::None
    }

    pub(crate) fn cruise_throttle(&mut self, target_mps: f64, t: &CarTelemetry, dt: f64) -> f64 {
        let err = target_mps - t.speed_mps;
        self.speed_integral = (self.speed_integral + err * dt).clamp(-2.0, 2.0);
        (0.15 + 0.4 * err + 0.3 * self.speed_integral).clamp(0.0, 1.0)
    }

    /// Straight ahead at `speed_mps` in the target gear (the settling before a manoeuvre).
    fn cruise(&mut self, speed_mps: f64, t: &CarTelemetry) -> Controls {
        let gear_request = self.shift(t, DT_S);
        Controls {
            ignition: true,
            gear_request,
            clutch: self.clutch,
            throttle: self.cruise_throttle(speed_mps, t, DT_S) * (1.0 - self.clutch),
            ..Controls::default()
        }
    }

    fn controls(&mut self, maneuver: &Maneuver, time_s: f64, t: &CarTelemetry) -> Controls {
        let mut c = Controls {
            ignition: true,
            ..Controls::default()
        };
        match *maneuver {
            Maneuver::SteadyStateCircle {
                radius_m,
                speed_start_kph,
                speed_end_kph,
                duration_s,
            } => {
                let frac = (time_s / duration_s).clamp(0.0, 1.0);
                let target = (speed_start_kph + frac * (speed_end_kph - speed_start_kph)) / 3.6;
                if self.target_gear > 0
                    && self.engine_rpm_at(self.target_gear as usize, target)
                        > 0.85 * t.drivetrain.max_rpm
                {
                    self.target_gear = (self.target_gear + 1).min(self.ratios.len() as i8);
                }
                c.gear_request = self.shift(t, DT_S);
                c.clutch = self.clutch;
                c.throttle = self.cruise_throttle(target, t, DT_S) * (1.0 - self.clutch);
                // Hold the radius: yaw rate v / R, feed-forward L / R at the road wheels.
                let wanted = t.speed_mps / radius_m;
                let err = wanted - t.angular_velocity_body_radps[2];
                self.yaw_integral = (self.yaw_integral + err * DT_S).clamp(-1.0, 1.0);
                let road = self.wheelbase_m / radius_m + 0.05 * err + 0.3 * self.yaw_integral;
                c.steering = road * self.steering_ratio / self.rim_lock_rad;
            }
            Maneuver::StepSteer {
                speed_kph,
                steer_deg,
                ..
            } => {
                c.gear_request = self.shift(t, DT_S);
                c.clutch = self.clutch;
                c.throttle = self.cruise_throttle(speed_kph / 3.6, t, DT_S) * (1.0 - self.clutch);
                let ramp = ((time_s - 0.5) / 0.1).clamp(0.0, 1.0);
                c.steering = ramp * steer_deg.to_radians() / self.rim_lock_rad;
            }
            Maneuver::SteerRamp {
                speed_kph,
                steer_rate_deg_per_s,
                max_steer_deg,
            } => {
                c = self.cruise(speed_kph / 3.6, t);
                let rim_deg = (steer_rate_deg_per_s * time_s)
                    .clamp(-max_steer_deg.abs(), max_steer_deg.abs());
                c.steering = rim_deg.to_radians() / self.rim_lock_rad;
            }
            Maneuver::Braking { pedal, .. } => {
                // Clutch down with the brake, as a driver stopping does (the engine would
                // stall in gear).
                c.brake = pedal;
                c.clutch = 1.0;
            }
            Maneuver::Acceleration { .. } => {
                let top = self.ratios.len() as i8;
                if t.drivetrain.gear == self.target_gear
                    && !t.drivetrain.shifting
                    && self.target_gear < top
                    && t.drivetrain.engine_rpm > 0.95 * t.drivetrain.max_rpm
                {
                    self.target_gear += 1;
                }
                c.gear_request = self.shift(t, DT_S);
                c.clutch = self.clutch;
                let launching = t.drivetrain.gear == 1 && self.clutch > 0.0;
                c.throttle = if launching || self.clutch == 0.0 {
                    1.0
                } else {
                    0.0
                };
            }
            Maneuver::CoastDown { .. } => {}
        }
        c
    }
}
