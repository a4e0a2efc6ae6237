//! The drivetrain in the full car on a flat track: built-in cars' declared 0-100 km/h bands,
//! top speed against the power balance computed from each car's own data, bounded launches and
//! lock-up stops, and determinism.

use rig_physics::aero::AIR_DENSITY_KG_PER_M3;
use rig_physics::drivetrain::engine::Engine;
use rig_physics::drivetrain::ShiftMode;
use rig_physics::spec::{builtin, CarSpec, GRAVITY_MPS2};
use rig_physics::track::Track;
use rig_physics::{CarId, CarTelemetry, Controls, GearRequest, World};

const DT: f64 = 0.001;

/// A scripted driver that launches flat out and shifts at the limiter, using the clutch the way
/// the car's gearbox needs.
struct Driver {
    spec: CarSpec,
    time_s: f64,
    /// Time the current H-pattern shift started (clutch pressed), if any.
    shift_started_s: Option<f64>,
    requested_gear: i8,
}

/// Time allowed for the H-pattern clutch to come back out after a shift, s.
const CLUTCH_OUT_S: f64 = 0.15;
/// Driven-wheel slip ratio the scripted driver aims for.
const TARGET_SLIP: f64 = 0.12;
/// Clutch release time of a manual launch, s.
const LAUNCH_RELEASE_S: f64 = 0.7;

impl Driver {
    fn new(spec: &CarSpec) -> Driver {
        Driver {
            spec: spec.clone(),
            time_s: 0.0,
            shift_started_s: None,
            requested_gear: 0,
        }
    }

    fn manual_clutch(&self) -> bool {
        self.spec.drivetrain.clutch.auto_engage_rpm.is_none()
    }

    /// Controls for flat-out acceleration given the last telemetry.
    fn accelerate(&mut self, t: &CarTelemetry) -> Controls {
        let gearbox = &self.spec.drivetrain.gearbox;
        let top = gearbox.forward_ratios.len() as i8;
        // Traction control as a driver would do it: ease off when the driven wheels spin.
        let spin = t.wheels.iter().map(|w| w.slip_ratio).fold(0.0f64, f64::max);
        let mut c = Controls {
            ignition: true,
            throttle: (1.0 - 8.0 * (spin - TARGET_SLIP)).clamp(0.3, 1.0),
            ..Controls::default()
        };
        if self.requested_gear == 0 {
            // Into first with the clutch pressed.
            self.requested_gear = 1;
            c.clutch = 1.0;
            c.throttle = 0.0;
            c.gear_request = GearRequest::Select(1);
            self.shift_started_s = Some(self.time_s);
        } else if let Some(start) = self.shift_started_s {
            let since = self.time_s - start;
            let engage = gearbox.shift_time_s + 0.02;
            let release = if t.drivetrain.gear == 1 && t.speed_mps < 1.0 {
                LAUNCH_RELEASE_S
            } else {
                CLUTCH_OUT_S
            };
            if self.manual_clutch() || gearbox.requires_clutch {
                c.clutch = (1.0 - (since - engage) / release).clamp(0.0, 1.0);
                if since < engage && self.requested_gear > 1 {
                    c.throttle = 0.0;
                }
            }
            if since > engage + release {
                self.shift_started_s = None;
            }
        } else if t.drivetrain.engine_rpm > self.spec.drivetrain.engine.rev_limit_rpm - 250.0
            && self.requested_gear < top
            && !t.drivetrain.shifting
        {
            self.requested_gear += 1;
            if gearbox.mode == ShiftMode::Sequential && !gearbox.requires_clutch {
                c.gear_request = GearRequest::Up;
            } else {
                c.clutch = 1.0;
                c.throttle = 0.0;
                c.gear_request = GearRequest::Select(self.requested_gear);
                self.shift_started_s = Some(self.time_s);
            }
        }
        self.time_s += DT;
        c
    }
}

fn world_with(name: &str) -> (World, CarId, CarSpec) {
    let spec = builtin::car(name).unwrap_or_else(|e| panic!("{e}"));
    let mut world = World::new(Track::flat());
    let id = world.add_car(&spec);
    // Let the car settle on its springs.
    world.set_controls(
        id,
        Controls {
            ignition: true,
            ..Controls::default()
        },
    );
    for _ in 0..1000 {
        world.step(DT);
    }
    (world, id, spec)
}

/// Accelerates flat out for `seconds`; returns the 0-100 km/h time (if reached) and the
/// telemetry of every step.
fn flat_out(
    world: &mut World,
    id: CarId,
    spec: &CarSpec,
    seconds: f64,
) -> (Option<f64>, Vec<CarTelemetry>) {
    let mut driver = Driver::new(spec);
    let mut t = world.telemetry(id);
    let mut zero_to_100 = None;
    let mut log = Vec::new();
    let steps = (seconds / DT) as usize;
    for i in 0..steps {
        let controls = driver.accelerate(&t);
        world.set_controls(id, controls);
        world.step(DT);
        t = world.telemetry(id);
        if zero_to_100.is_none() && t.speed_mps >= 100.0 / 3.6 {
            zero_to_100 = Some((i + 1) as f64 * DT);
        }
        log.push(t);
    }
    (zero_to_100, log)
}

#[test]
fn every_builtin_car_parses_with_a_valid_drivetrain() {
    let names = builtin::car_names();
    assert!(names.contains(&"rally"), "{names:?}");
    for name in names {
        let spec = builtin::car(name).unwrap_or_else(|e| panic!("{e}"));
        let text = builtin::car_text(name).unwrap();
        spec.drivetrain.validate(text, name).unwrap();
    }
}

#[test]
fn zero_to_100_of_each_builtin_car_is_inside_its_declared_band() {
    for name in builtin::car_names() {
        let (mut world, id, spec) = world_with(name);
        let (time, log) = flat_out(&mut world, id, &spec, 20.0);
        let p = &spec.performance;
        let time = time.unwrap_or_else(|| {
            let last = log.last().unwrap();
            panic!("{name} never reached 100 km/h: {} m/s", last.speed_mps)
        });
        assert!(
            time >= p.zero_to_100_kph_s_min && time <= p.zero_to_100_kph_s_max,
            "{name}: 0-100 in {time:.2} s, declared {} ..= {}",
            p.zero_to_100_kph_s_min,
            p.zero_to_100_kph_s_max
        );
        assert!(
            log.iter().all(|t| t.drivetrain.engine_running),
            "{name} stalled"
        );
    }
}

/// Speed where the engine's full-throttle power through the gearbox efficiency in top gear
/// equals aero drag plus rolling resistance (with downforce on the tyres), by bisection.
fn power_balance_speed(spec: &CarSpec, radius_m: f64) -> f64 {
    let dt = &spec.drivetrain;
    let engine = Engine::new(&dt.engine);
    let top = dt.gearbox.forward_ratios[dt.gearbox.forward_ratios.len() - 1];
    let ratio = top * dt.gearbox.final_drive_ratio;
    let aero = &spec.aero;
    let surplus = |v: f64| {
        let omega_e = v / radius_m * ratio;
        let rpm = omega_e * 30.0 / std::f64::consts::PI;
        let wheel_power = dt.gearbox.efficiency * engine.curve_nm(rpm) * omega_e;
        let q = 0.5 * AIR_DENSITY_KG_PER_M3 * v * v;
        let load = spec.chassis.mass_kg * GRAVITY_MPS2
            + q * (aero.downforce_area_front_m2 + aero.downforce_area_rear_m2);
        let resistance = q * aero.drag_area_m2 * v + spec.tyre.rolling_resistance * load * v;
        wheel_power - resistance
    };
    let (mut lo, mut hi) = (10.0, 150.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if surplus(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[test]
fn top_speed_matches_the_power_balance_or_the_limiter() {
    for name in builtin::car_names() {
        let (mut world, id, spec) = world_with(name);
        let (_, log) = flat_out(&mut world, id, &spec, 150.0);
        let last = log.last().unwrap();
        let top = spec.drivetrain.gearbox.forward_ratios.len() as i8;
        assert_eq!(last.drivetrain.gear, top, "{name} reached top gear");
        let settled = log[log.len() - 5000].speed_mps;
        assert!(
            (last.speed_mps - settled).abs() < 0.01 * last.speed_mps,
            "{name} still accelerating: {settled} -> {}",
            last.speed_mps
        );
        let driven: Vec<f64> = last
            .wheels
            .iter()
            .filter(|w| w.drive_torque_nm.abs() > 1.0)
            .map(|w| w.radius_m)
            .collect();
        let radius = driven.iter().sum::<f64>() / driven.len() as f64;
        let balance = power_balance_speed(&spec, radius);
        let g = spec.drivetrain.gearbox.final_drive_ratio
            * spec.drivetrain.gearbox.forward_ratios[top as usize - 1];
        let limiter_speed =
            spec.drivetrain.engine.rev_limit_rpm * std::f64::consts::PI / 30.0 / g * radius;
        let expected = balance.min(limiter_speed);
        let error = (last.speed_mps - expected) / expected;
        assert!(
            error.abs() < 0.03,
            "{name}: top speed {:.2} m/s, expected {expected:.2} (power balance {balance:.2}, \
             limiter {limiter_speed:.2}), error {:.2} %",
            last.speed_mps,
            error * 100.0
        );
    }
}

/// Counts limit cycles: runs of at least three consecutive per-step alternations of a wheel's
/// spin acceleration above `threshold` rad/s per step (a 1 kHz oscillation alternates every
/// step; a single kink, such as a clutch biting after a shift, does not count).
fn ringing(log: &[CarTelemetry], wheel: usize, threshold: f64) -> usize {
    let mut count = 0;
    let mut run = 0;
    for w in log.windows(3) {
        let omega = |i: usize| w[i].wheels[wheel].angular_velocity_radps;
        let (a, b) = (omega(1) - omega(0), omega(2) - omega(1));
        if a * b < 0.0 && a.abs() > threshold && b.abs() > threshold {
            run += 1;
            if run == 3 {
                count += 1;
            }
        } else {
            run = 0;
        }
    }
    count
}

#[test]
fn launch_and_lock_up_stop_stay_bounded() {
    for name in builtin::car_names() {
        let (mut world, id, spec) = world_with(name);
        let (_, launch) = flat_out(&mut world, id, &spec, 8.0);
        for t in &launch {
            assert!(t.speed_mps.is_finite() && t.drivetrain.engine_rpm.is_finite());
            for w in &t.wheels {
                assert!(w.angular_velocity_radps.is_finite() && w.drive_torque_nm.is_finite());
            }
        }
        for wheel in 0..4 {
            let n = ringing(&launch, wheel, 0.05);
            assert_eq!(n, 0, "{name} wheel {wheel} oscillates during the launch");
        }
        // Lock-up stop: full brakes, clutch pressed.
        let start_speed = world.telemetry(id).speed_mps;
        assert!(start_speed > 15.0, "{name}: {start_speed}");
        let mut stop = Vec::new();
        world.set_controls(
            id,
            Controls {
                ignition: true,
                brake: 1.0,
                clutch: 1.0,
                ..Controls::default()
            },
        );
        for _ in 0..8000 {
            world.step(DT);
            stop.push(world.telemetry(id));
        }
        let end = stop.last().unwrap();
        assert!(
            end.speed_mps.abs() < 0.05,
            "{name} stopped: {}",
            end.speed_mps
        );
        for wheel in 0..4 {
            assert!(
                stop.iter()
                    .all(|t| t.wheels[wheel].angular_velocity_radps >= 0.0),
                "{name} wheel {wheel} spun backwards under braking"
            );
            let n = ringing(&stop, wheel, 0.05);
            assert_eq!(n, 0, "{name} wheel {wheel} oscillates during the stop");
        }
        assert!(
            end.drivetrain.engine_running,
            "{name}: clutch pressed, engine idles on"
        );
    }
}

#[test]
fn same_inputs_give_bit_identical_drivetrain_channels() {
    let run = || {
        let (mut world, id, spec) = world_with("rally");
        let (_, log) = flat_out(&mut world, id, &spec, 6.0);
        log
    };
    let (a, b) = (run(), run());
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.drivetrain, y.drivetrain);
        for w in 0..4 {
            assert_eq!(
                x.wheels[w].angular_velocity_radps.to_bits(),
                y.wheels[w].angular_velocity_radps.to_bits()
            );
        }
    }
}
