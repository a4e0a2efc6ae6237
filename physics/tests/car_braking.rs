//! Straight-line braking from 100 km/h on mu = 1: the stop after the brake rise time within
//! 5 % of v^2 / (2 mu g) (reference 2b), the stopped car's wheels at exactly 0 without
//! chatter, and a car that still steers under full braking with ABS (and not without).
//!
//! Rig: the road car (ABS) on flat asphalt (surface grip 1), full pedal. mu = 1 is what the
//! tyre delivers: its friction scale is set so that its MF peak longitudinal mu, averaged over
//! the four wheels at the loads they carry while braking at 1 g (static loads plus the
//! m g h / L transfer), is 1 (the MF peak mu falls with load: the loaded fronts get a little
//! less, the rears a little more). Distance runs from the end of the rise time (line pressure
//! full) to standstill.
//!
//! v^2 / (2 mu g) ignores aero drag, which shortens this stop by about 1 %. The stop is also
//! held to 3 % of the drag-corrected distance ln(1 + c v^2 / (mu g)) / (2 c), c = rho CdA /
//! (2 m), so an ABS that gives away a few percent of the tyres' peak fails. Without ABS the
//! wheels lock (sliding friction, about two thirds of the peak here) and the stop is longer.

mod common;
use common::*;
use rig_physics::aero::AIR_DENSITY_KG_PER_M3;
use rig_physics::brakes::ABS_CUT_OUT_MPS;
use rig_physics::track::Track;
use rig_physics::{CarSpec, CarTelemetry, World};

/// What a stop shows besides its distance.
struct StopTrace {
    /// Largest change of a wheel's brake torque in one step while the ABS works, N m.
    max_torque_step_nm: f64,
    /// Smallest and largest front slip ratio between 20 and 8 m/s.
    front_slip_range: (f64, f64),
}

/// Brakes from 100 km/h at full pedal; returns (distance after full pressure, speed then,
/// the world at rest).
fn stop(spec: &CarSpec) -> (f64, f64, World) {
    let (distance, v1, world, _) = traced_stop(spec);
    (distance, v1, world)
}

/// [`stop`] with the trace of the brake torques and slips.
fn traced_stop(spec: &CarSpec) -> (f64, f64, World, StopTrace) {
    let (mut world, id) = world_with(spec, Track::flat());
    world.car_mut(id).set_speed(100.0 / 3.6);
    world.set_controls(
        id,
        rig_physics::Controls {
            brake: 1.0,
            ..idle()
        },
    );
    let mut start: Option<CarTelemetry> = None;
    let mut trace = StopTrace {
        max_torque_step_nm: 0.0,
        front_slip_range: (f64::INFINITY, f64::NEG_INFINITY),
    };
    let mut last = world.telemetry(id);
    for _ in 0..20_000 {
        world.step(DT);
        let t = world.telemetry(id);
        if start.is_none() && world.car(id).brake_pressure() >= 1.0 {
            start = Some(t);
        }
        if start.is_some() && t.speed_mps > ABS_CUT_OUT_MPS + 1.0 {
            for (w, w0) in t.wheels.iter().zip(&last.wheels) {
                let change = (w.brake_torque_nm - w0.brake_torque_nm).abs();
                trace.max_torque_step_nm = trace.max_torque_step_nm.max(change);
            }
        }
        if (8.0..20.0).contains(&t.speed_mps) {
            let (lo, hi) = &mut trace.front_slip_range;
            for w in &t.wheels[..2] {
                *lo = lo.min(w.slip_ratio);
                *hi = hi.max(w.slip_ratio);
            }
        }
        last = t;
        if start.is_some() && t.speed_mps < 1e-3 {
            break;
        }
    }
    let s = start.expect("pressure reached full");
    let distance = world.telemetry(id).position_m[0] - s.position_m[0];
    (distance, s.speed_mps, world, trace)
}

/// The road car with its tyre scaled to a peak longitudinal mu of 1 at 1 g braking loads.
fn road_car_on_mu_one() -> CarSpec {
    let mut spec = car("road");
    let mf = spec.tyre.mf();
    let c = &spec.chassis;
    let transfer = 0.5 * c.mass_kg * G * c.cog_height_m / c.wheelbase_m;
    let [front, rear] = spec.static_wheel_loads_n();
    let loads = [front + transfer, rear - transfer];
    let mu_at_loads = (loads[0] * mf.peak_mu_x(loads[0]) + loads[1] * mf.peak_mu_x(loads[1]))
        / (loads[0] + loads[1]);
    spec.tyre.grip_scale_long = 1.0 / mu_at_loads;
    spec
}

#[test]
fn stopping_distance_matches_friction_limit() {
    let mut spec = road_car_on_mu_one();
    assert!(spec.brakes.abs, "the road car has ABS");
    let (distance, v1, mut world, trace) = traced_stop(&spec);
    let mu = 1.0;
    let expected = v1 * v1 / (2.0 * mu * G);
    let err = distance / expected - 1.0;
    let c = 0.5 * AIR_DENSITY_KG_PER_M3 * spec.aero.drag_area_m2 / spec.chassis.mass_kg;
    let with_drag = (1.0 + c * v1 * v1 / (mu * G)).ln() / (2.0 * c);
    let err_drag = distance / with_drag - 1.0;
    println!(
        "ABS stop from {v1:.2} m/s: {distance:.2} m; v^2/(2 mu g) = {expected:.2} m \
         ({:+.2} %); with drag {with_drag:.2} m ({:+.2} %)",
        err * 100.0,
        err_drag * 100.0
    );
    assert!(
        err.abs() < 0.05,
        "stopped in {distance:.2} m from {v1:.2} m/s, v^2/(2 mu g) = {expected:.2} m ({:+.1} %)",
        err * 100.0
    );
    assert!(
        err_drag.abs() < 0.03,
        "stopped in {distance:.2} m, drag-corrected limit {with_drag:.2} m ({:+.1} %): the ABS \
         is not holding the tyres at their peak",
        err_drag * 100.0
    );

    // The ABS holds the fronts near the tyre's peak slip (about -0.11 here) without a limit
    // cycle, and moves the pressure smoothly: at most its 20 ms full-scale rate per step.
    let (lo, hi) = trace.front_slip_range;
    println!(
        "front slip {lo:.3} .. {hi:.3} from 20 to 8 m/s; largest torque step {:.0} N m",
        trace.max_torque_step_nm
    );
    assert!(
        lo > -0.16 && hi < -0.09,
        "front slip wandered over {lo:.3} .. {hi:.3} while the ABS held it"
    );
    let front_full_nm = 0.5 * spec.brakes.max_torque_nm * spec.brakes.front_bias;
    assert!(
        trace.max_torque_step_nm <= front_full_nm * 50.0 * DT + 1e-6,
        "brake torque jumped {:.0} N m in one step",
        trace.max_torque_step_nm
    );

    // Held on the brakes: wheels exactly still, no chatter, no creep.
    let id = rig_physics::CarId(0);
    let x_stop = world.telemetry(id).position_m[0];
    for _ in 0..2000 {
        world.step(DT);
        for w in &world.telemetry(id).wheels {
            assert_eq!(
                w.angular_velocity_radps, 0.0,
                "wheel turning while braked at rest"
            );
        }
    }
    let drift = (world.telemetry(id).position_m[0] - x_stop).abs();
    assert!(drift < 1e-3, "braked car moved {drift} m");

    // Without ABS the wheels lock and the stop is longer (sliding friction below the peak),
    // and the locked car also ends with its wheels exactly still.
    spec.brakes.abs = false;
    let (locked_distance, _, mut world) = stop(&spec);
    println!("locked-wheel stop: {locked_distance:.2} m");
    assert!(
        locked_distance > 1.1 * distance,
        "locked-wheel stop {locked_distance:.2} m not longer than ABS stop {distance:.2} m"
    );
    for _ in 0..1000 {
        world.step(DT);
        for w in &world.telemetry(id).wheels {
            assert_eq!(
                w.angular_velocity_radps, 0.0,
                "locked wheel turning at rest"
            );
        }
    }
}

/// Full pedal with a little steering from 100 km/h for 1.5 s; returns (yaw change, rad;
/// lateral displacement, m).
fn brake_and_steer(abs: bool) -> (f64, f64) {
    let mut spec = car("road");
    spec.brakes.abs = abs;
    let (mut world, id) = world_with(&spec, Track::flat());
    world.car_mut(id).set_speed(100.0 / 3.6);
    let t = run(
        &mut world,
        id,
        rig_physics::Controls {
            brake: 1.0,
            steering: 0.1,
            ..idle()
        },
        1.5,
    );
    (t.roll_pitch_yaw_rad[2], t.position_m[1])
}

#[test]
fn abs_keeps_the_car_steerable_under_full_braking() {
    // 45 degrees at the rim: locked fronts give no side force, ABS-held fronts keep most.
    let (yaw_abs, y_abs) = brake_and_steer(true);
    let (yaw_locked, y_locked) = brake_and_steer(false);
    println!(
        "yaw {yaw_abs:.3} rad / {y_abs:.2} m with ABS, \
         {yaw_locked:.3} rad / {y_locked:.2} m locked"
    );
    assert!(
        yaw_abs > 0.15 && y_abs > 1.5,
        "with ABS the car barely turned: {yaw_abs:.3} rad, {y_abs:.2} m"
    );
    assert!(
        yaw_locked.abs() < 0.2 * yaw_abs,
        "locked wheels still steered: {yaw_locked:.3} rad vs {yaw_abs:.3} rad with ABS"
    );
}
