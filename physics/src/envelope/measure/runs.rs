//! The single driven runs the envelope is measured from, each on the flat track in the full
//! simulation at the manoeuvres' step ([`crate::maneuver::DT_S`]), started as the manoeuvres
//! start (settled straight ahead at speed by [`crate::maneuver::settle`], or rolling at a set
//! speed): a held circle at a speed and radius, straight-line braking, a full-throttle pull in
//! one gear, a coast-down in neutral, and a combined run (braking or driving on a held
//! circle). Each returns plain numbers; [`super`] decides what to run and what the numbers
//! mean. Public so tests and tools can re-run exactly the run a figure came from.

use crate::controls::Controls;
use crate::maneuver::{self, Driver, ManeuverError, DT_S};
use crate::spec::CarSpec;
use crate::telemetry::CarTelemetry;
use crate::track::Track;
use crate::world::{CarId, World};

/// Time to turn from straight ahead onto a circle (curvature ramps linearly), s.
pub const CIRCLE_ENTRY_S: f64 = 3.0;
/// Time on the circle after the entry, s.
pub const CIRCLE_HOLD_S: f64 = 12.0;
/// The last part of the hold the circle is judged over, s.
pub const CIRCLE_JUDGE_S: f64 = 4.0;
/// A circle is held when, over the judged window, the mean path curvature (yaw rate over
/// speed) is within this share of the circle's ...
pub const CIRCLE_CURVATURE_TOLERANCE: f64 = 0.01;
/// ... and the mean speed within this share of the target, with the steering never at lock.
pub const CIRCLE_SPEED_TOLERANCE: f64 = 0.01;

/// A car on the flat track with the manoeuvres' test driver and the envelope runs'
/// closed-loop controllers (speed and path curvature).
pub(crate) struct Rig {
    world: World,
    id: CarId,
    driver: Driver,
    telemetry: CarTelemetry,
    wheelbase_m: f64,
    steering_per_road_wheel_rad: f64,
    yaw_integral: f64,
    throttle_integral: f64,
}

impl Rig {
    /// The car rolling straight ahead at `speed_mps` (wheels turning at road speed), nothing
    /// settled: for runs that need no drive (braking, coasting) or start above the speeds
    /// the car can hold.
    pub(crate) fn rolling(spec: &CarSpec, speed_mps: f64) -> Rig {
        let mut world = World::new(Track::flat());
        let id = world.add_car(spec);
        world.car_mut(id).set_speed(speed_mps);
        let telemetry = world.telemetry(id);
        Rig {
            world,
            id,
            driver: Driver::new(spec),
            telemetry,
            wheelbase_m: spec.chassis.wheelbase_m,
            steering_per_road_wheel_rad: spec.steering.ratio
                / spec.steering.rim_lock_deg.to_radians(),
            yaw_integral: 0.0,
            throttle_integral: 0.0,
        }
    }

    /// The car settled straight ahead at `speed_mps` in `gear` ([`maneuver::SETTLE_CRITERION`],
    /// as the manoeuvres start, with [`Rig::holding_speed`]'s throttle, which reaches full
    /// throttle for speeds near the top speed).
    pub(crate) fn settled(spec: &CarSpec, speed_mps: f64, gear: i8) -> Result<Rig, ManeuverError> {
        let mut rig = Rig::rolling(spec, speed_mps);
        rig.driver.target_gear = gear;
        let mut held_s = 0.0;
        for _ in 0..(maneuver::SETTLE_MAX_S / DT_S) as usize {
            let controls = rig.holding_speed(speed_mps);
            rig.step(controls);
            held_s = if maneuver::is_steady(&rig.telemetry, &rig.driver, speed_mps) {
                held_s + DT_S
            } else {
                0.0
            };
            if held_s >= maneuver::SETTLE_HOLD_S {
                return Ok(rig);
            }
        }
        Err(maneuver::not_settled(speed_mps))
    }

    /// The state after the last step.
    pub(crate) fn telemetry(&self) -> &CarTelemetry {
        &self.telemetry
    }

    /// One step with `controls` (ignition on).
    pub(crate) fn step(&mut self, controls: Controls) {
        self.world.set_controls(
            self.id,
            Controls {
                ignition: true,
                ..controls
            },
        );
        self.world.step(DT_S);
        self.telemetry = self.world.telemetry(self.id);
    }

    /// Speed over ground, m/s.
    pub(crate) fn speed_mps(&self) -> f64 {
        self.telemetry.speed_mps
    }

    /// Yaw rate, rad/s.
    pub(crate) fn yaw_rate_radps(&self) -> f64 {
        self.telemetry.angular_velocity_body_radps[2]
    }

    /// Steering (-1..1 of lock) that follows a path of `curvature_per_m` (positive left):
    /// kinematic feed-forward plus PI on the yaw-rate error.
    pub(crate) fn steering_for(&mut self, curvature_per_m: f64) -> f64 {
        let error = self.speed_mps() * curvature_per_m - self.yaw_rate_radps();
        self.yaw_integral = (self.yaw_integral + error * DT_S).clamp(-1.0, 1.0);
        let road_wheel_rad =
            self.wheelbase_m * curvature_per_m + 0.15 * error + 0.6 * self.yaw_integral;
        (road_wheel_rad * self.steering_per_road_wheel_rad).clamp(-1.0, 1.0)
    }

    /// Gear request, clutch and throttle holding `speed_mps` in the driver's gear (PI whose
    /// integral spans the whole pedal, so a car at its power limit still gets full throttle).
    pub(crate) fn holding_speed(&mut self, speed_mps: f64) -> Controls {
        let gear_request = self.driver.shift(&self.telemetry, DT_S);
        let error = speed_mps - self.speed_mps();
        self.throttle_integral = (self.throttle_integral + 0.5 * error * DT_S).clamp(0.0, 1.0);
        let throttle = (self.throttle_integral + 0.5 * error).clamp(0.0, 1.0);
        Controls {
            gear_request,
            clutch: self.driver.clutch,
            throttle: throttle * (1.0 - self.driver.clutch),
            ..Controls::default()
        }
    }
}

/// What a held circle gave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CircleResult {
    /// The car held the circle ([`CIRCLE_CURVATURE_TOLERANCE`], [`CIRCLE_SPEED_TOLERANCE`],
    /// steering never at lock).
    pub held: bool,
    /// Mean lateral acceleration of the path over the judged window (speed times yaw rate),
    /// m/s^2.
    pub lateral_mps2: f64,
    /// Mean speed over the judged window, m/s.
    pub speed_mps: f64,
}

/// Drives a circle of `radius_m` at `speed_mps` in `gear`: settled straight ahead, the
/// curvature ramps in over [`CIRCLE_ENTRY_S`], then [`CIRCLE_HOLD_S`] on the circle, judged
/// over the last [`CIRCLE_JUDGE_S`].
pub fn circle(
    spec: &CarSpec,
    speed_mps: f64,
    radius_m: f64,
    gear: i8,
) -> Result<CircleResult, ManeuverError> {
    let mut rig = Rig::settled(spec, speed_mps, gear)?;
    let steps = ((CIRCLE_ENTRY_S + CIRCLE_HOLD_S) / DT_S).round() as usize;
    let judged_from = steps - (CIRCLE_JUDGE_S / DT_S).round() as usize;
    let (mut lateral_sum, mut curvature_sum, mut speed_sum, mut samples) = (0.0, 0.0, 0.0, 0.0);
    let mut at_lock = false;
    for step in 0..steps {
        let time_s = step as f64 * DT_S;
        let curvature = (time_s / CIRCLE_ENTRY_S).min(1.0) / radius_m;
        let controls = Controls {
            steering: rig.steering_for(curvature),
            ..rig.holding_speed(speed_mps)
        };
        at_lock |= controls.steering.abs() >= 0.999;
        rig.step(controls);
        if at_lock || rig.speed_mps() < 0.5 * speed_mps {
            break;
        }
        if step >= judged_from {
            let speed = rig.speed_mps();
            lateral_sum += speed * rig.yaw_rate_radps();
            curvature_sum += rig.yaw_rate_radps() / speed.max(0.1);
            speed_sum += speed;
            samples += 1.0;
        }
    }
    if samples == 0.0 {
        return Ok(CircleResult {
            held: false,
            lateral_mps2: 0.0,
            speed_mps: rig.speed_mps(),
        });
    }
    let mean_speed = speed_sum / samples;
    let curvature_error = (curvature_sum / samples * radius_m - 1.0).abs();
    let speed_error = (mean_speed / speed_mps - 1.0).abs();
    Ok(CircleResult {
        held: !at_lock
            && curvature_error < CIRCLE_CURVATURE_TOLERANCE
            && speed_error < CIRCLE_SPEED_TOLERANCE,
        lateral_mps2: lateral_sum / samples,
        speed_mps: mean_speed,
    })
}

/// The last sample of a speed trace, to find when the trace passes a speed (interpolated
/// between steps).
struct Crossings {
    previous: (f64, f64),
}

impl Crossings {
    /// The time the trace passed `level` between the previous sample and (`time_s`, `speed`).
    fn passed(&self, level: f64, time_s: f64, speed: f64) -> Option<f64> {
        let (t0, v0) = self.previous;
        let between = (v0 - level) * (speed - level) <= 0.0 && v0 != speed;
        between.then(|| t0 + (time_s - t0) * (level - v0) / (speed - v0))
    }
}

/// Straight-line braking with `pedal` (clutch down) from rolling at `from_mps`: the mean
/// deceleration while the speed falls from `window_mps.0` to `window_mps.1` (m/s^2,
/// positive), from the time between the two crossings. `None` if the car never got through
/// the window (it stopped, or locked wheels slid it for over 30 s).
pub fn braking(spec: &CarSpec, from_mps: f64, pedal: f64, window_mps: (f64, f64)) -> Option<f64> {
    let mut rig = Rig::rolling(spec, from_mps);
    let (high, low) = window_mps;
    let mut crossings = Crossings {
        previous: (0.0, from_mps),
    };
    let mut entered = None;
    for step in 1..=(30.0 / DT_S) as usize {
        rig.step(Controls {
            brake: pedal,
            clutch: 1.0,
            ..Controls::default()
        });
        let time_s = step as f64 * DT_S;
        let speed = rig.speed_mps();
        if entered.is_none() {
            entered = crossings.passed(high, time_s, speed);
        }
        if let (Some(start), Some(end)) = (entered, crossings.passed(low, time_s, speed)) {
            return Some((high - low) / (end - start));
        }
        if speed < 0.05 {
            return None;
        }
        crossings.previous = (time_s, speed);
    }
    None
}

/// Samples of a full-throttle pull in one gear: (speed m/s, acceleration m/s^2), the
/// acceleration from the speed change over each 0.1 s.
pub type Pull = Vec<(f64, f64)>;

/// Engine speed a pull starts at, rpm (above any idle, below any peak torque).
pub const PULL_START_RPM: f64 = 2000.0;
/// A pull ends at the rev limit less this, rpm, ...
pub const PULL_END_BELOW_LIMIT_RPM: f64 = 50.0;
/// ... or once the acceleration has stayed below this for a second (top speed), m/s^2.
pub const PULL_END_ACCEL_MPS2: f64 = 0.02;

/// Full throttle in `gear` from settled at [`PULL_START_RPM`] to the rev limit or top speed
/// (at most 180 s), sampled every 0.1 s after the first 0.5 s (the driveline's shunt).
pub fn gear_pull(spec: &CarSpec, gear: i8) -> Result<Pull, ManeuverError> {
    let driver = Driver::new(spec);
    let start_mps = PULL_START_RPM / driver.engine_rpm_at(gear as usize, 1.0);
    let mut rig = Rig::settled(spec, start_mps, gear)?;
    let every = (0.1 / DT_S).round() as usize;
    let mut samples = Vec::new();
    let mut last = (0.0, rig.speed_mps());
    let mut slow_for_s = 0.0;
    for step in 1..=(180.0 / DT_S) as usize {
        rig.step(Controls {
            throttle: 1.0,
            ..Controls::default()
        });
        let time_s = step as f64 * DT_S;
        let telemetry = rig.telemetry();
        if telemetry.drivetrain.engine_rpm
            >= telemetry.drivetrain.max_rpm - PULL_END_BELOW_LIMIT_RPM
        {
            break;
        }
        if step % every == 0 {
            let speed = rig.speed_mps();
            let accel = (speed - last.1) / (time_s - last.0);
            if time_s > 0.5 {
                samples.push((0.5 * (speed + last.1), accel));
                slow_for_s = if accel < PULL_END_ACCEL_MPS2 {
                    slow_for_s + 0.1
                } else {
                    0.0
                };
                if slow_for_s >= 1.0 {
                    break;
                }
            }
            last = (time_s, speed);
        }
    }
    Ok(samples)
}

/// Coasting in neutral (no pedal, clutch down) from rolling at `from_mps`: (speed m/s,
/// deceleration m/s^2 positive) at each of `speeds_mps`, from the time the speed takes to
/// fall from 1 m/s above it to 1 m/s below (down to 1 m/s, at most 600 s).
pub fn coast_down(spec: &CarSpec, from_mps: f64, speeds_mps: &[f64]) -> Vec<(f64, f64)> {
    let mut rig = Rig::rolling(spec, from_mps);
    let mut crossings = Crossings {
        previous: (0.0, from_mps),
    };
    // Per speed: when the trace passed 1 m/s above it, and whether it is measured.
    let mut above: Vec<Option<f64>> = vec![None; speeds_mps.len()];
    let mut measured = vec![false; speeds_mps.len()];
    let mut result = Vec::new();
    for step in 1..=(600.0 / DT_S) as usize {
        rig.step(Controls {
            clutch: 1.0,
            ..Controls::default()
        });
        let time_s = step as f64 * DT_S;
        let speed = rig.speed_mps();
        for (index, &level) in speeds_mps.iter().enumerate() {
            if measured[index] {
                continue;
            }
            match above[index] {
                None => above[index] = crossings.passed(level + 1.0, time_s, speed),
                Some(start) => {
                    if let Some(end) = crossings.passed(level - 1.0, time_s, speed) {
                        result.push((level, 2.0 / (end - start)));
                        measured[index] = true;
                    }
                }
            }
        }
        if speed < 1.0 {
            break;
        }
        crossings.previous = (time_s, speed);
    }
    result.sort_by(|a, b| a.0.total_cmp(&b.0));
    result
}

/// What a combined run gave: means over its judged window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CombinedResult {
    /// The car kept the lateral acceleration asked through the window
    /// ([`COMBINED_LATERAL_TOLERANCE`]) without spinning.
    pub held: bool,
    /// Mean speed, m/s.
    pub speed_mps: f64,
    /// Mean longitudinal acceleration along the path, m/s^2 (negative braking).
    pub longitudinal_mps2: f64,
    /// Mean lateral acceleration of the path (speed times yaw rate), m/s^2.
    pub lateral_mps2: f64,
}

/// Longitudinal input of a combined run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Longitudinal {
    /// Brake pedal 0..1 (clutch down).
    Brake(f64),
    /// Throttle 0..1 in the held gear.
    Throttle(f64),
}

/// A combined run keeps its lateral acceleration when the window's mean is at least this
/// share of the one asked (and at most [`COMBINED_SPIN_SHARE`] of it: no spin).
pub const COMBINED_LATERAL_TOLERANCE: f64 = 0.97;
/// See [`COMBINED_LATERAL_TOLERANCE`].
pub const COMBINED_SPIN_SHARE: f64 = 1.5;
/// Combined runs: steady on the circle this long before the input, s.
pub const COMBINED_STEADY_S: f64 = 4.0;
/// The brake pedal or throttle goes to its value over this time, s.
pub const COMBINED_INPUT_RAMP_S: f64 = 0.2;
/// The window a combined run is judged over: from this long after the input starts ...
pub const COMBINED_WINDOW_START_S: f64 = 0.4;
/// ... to this long after, s.
pub const COMBINED_WINDOW_END_S: f64 = 0.9;

/// Braking or driving in a turn at a held lateral acceleration: settled at `speed_mps` in
/// `gear`, onto the circle of `lateral_mps2` at that speed as in [`circle`], steady for
/// [`COMBINED_STEADY_S`], then `input` (ramped in over [`COMBINED_INPUT_RAMP_S`]) while the
/// driver steers for a path of curvature `lateral_mps2 / v^2` at the current speed (a
/// tightening spiral while braking, an opening one while driving, so the lateral
/// acceleration asked stays the same); judged from [`COMBINED_WINDOW_START_S`] to
/// [`COMBINED_WINDOW_END_S`] after the input starts.
pub fn combined(
    spec: &CarSpec,
    speed_mps: f64,
    lateral_mps2: f64,
    gear: i8,
    input: Longitudinal,
) -> Result<CombinedResult, ManeuverError> {
    let mut rig = Rig::settled(spec, speed_mps, gear)?;
    let circle_curvature = lateral_mps2 / (speed_mps * speed_mps);
    let before = ((CIRCLE_ENTRY_S + COMBINED_STEADY_S) / DT_S).round() as usize;
    let window = (
        before + (COMBINED_WINDOW_START_S / DT_S).round() as usize,
        before + (COMBINED_WINDOW_END_S / DT_S).round() as usize,
    );
    let (mut speed_start, mut speed_end) = (0.0, 0.0);
    let (mut lateral_sum, mut speed_sum, mut samples) = (0.0, 0.0, 0.0);
    for step in 0..window.1 {
        let time_s = step as f64 * DT_S;
        let curvature = if step < before {
            (time_s / CIRCLE_ENTRY_S).min(1.0) * circle_curvature
        } else {
            lateral_mps2 / rig.speed_mps().max(1.0).powi(2)
        };
        let steering = rig.steering_for(curvature);
        let controls = if step < before {
            rig.holding_speed(speed_mps)
        } else {
            let ramp = ((step - before) as f64 * DT_S / COMBINED_INPUT_RAMP_S).min(1.0);
            match input {
                Longitudinal::Brake(pedal) => Controls {
                    brake: pedal * ramp,
                    clutch: 1.0,
                    ..Controls::default()
                },
                Longitudinal::Throttle(throttle) => {
                    let held = rig.holding_speed(speed_mps).throttle;
                    Controls {
                        throttle: held + (throttle - held) * ramp,
                        ..Controls::default()
                    }
                }
            }
        };
        rig.step(Controls {
            steering,
            ..controls
        });
        if step == window.0 {
            speed_start = rig.speed_mps();
        }
        if step > window.0 {
            let speed = rig.speed_mps();
            lateral_sum += speed * rig.yaw_rate_radps();
            speed_sum += speed;
            samples += 1.0;
            speed_end = speed;
        }
    }
    let lateral = lateral_sum / samples;
    Ok(CombinedResult {
        held: lateral >= COMBINED_LATERAL_TOLERANCE * lateral_mps2
            && lateral <= COMBINED_SPIN_SHARE * lateral_mps2,
        speed_mps: speed_sum / samples,
        longitudinal_mps2: (speed_end - speed_start) / (samples * DT_S),
        lateral_mps2: lateral,
    })
}
