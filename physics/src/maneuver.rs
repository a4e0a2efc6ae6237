//! Standard open- and closed-loop manoeuvres (ISO 4138 steady-state circle, ISO 7401 step
//! steer, straight-line braking, full-throttle acceleration, coast-down) run on a flat plane,
//! sampled every 10 ms into [`Row`]s and written as CSV. The columns are documented in
//! `docs/maneuvers.md`; `rigd maneuver` prints them.
//!
//! A small robot driver does what a test driver would: selects and changes gears with the
//! clutch, holds a speed with the throttle, follows a constant radius with the steering.
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
        Maneuver::Braking { speed_kph, .. } => (60.0, speed_kph / 3.6),
        Maneuver::Acceleration { duration_s } => (duration_s, 0.0),
        Maneuver::CoastDown {
            speed_kph,
            duration_s,
        } => (duration_s, speed_kph / 3.6),
    };
    if initial_speed > 0.0 {
        world.car_mut(id).set_speed(initial_speed);
        if matches!(
            maneuver,
            Maneuver::SteadyStateCircle { .. } | Maneuver::StepSteer { .. }
        ) {
            driver.target_gear = driver.cruise_gear(initial_speed);
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

/// The manoeuvres' robot driver.
#[derive(Debug, Clone)]
struct Driver {
    target_gear: i8,
    clutch: f64,
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
    fn new(spec: &CarSpec) -> Driver {
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

    fn engine_rpm_at(&self, gear: usize, speed_mps: f64) -> f64 {
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
    fn shift(&mut self, t: &CarTelemetry, dt: f64) -> GearRequest {
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

    fn cruise_throttle(&mut self, target_mps: f64, t: &CarTelemetry, dt: f64) -> f64 {
        let err = target_mps - t.speed_mps;
        self.speed_integral = (self.speed_integral + err * dt).clamp(-2.0, 2.0);
        (0.15 + 0.4 * err + 0.3 * self.speed_integral).clamp(0.0, 1.0)
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
            Maneuver::Braking { pedal, .. } => c.brake = pedal,
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
