//! The finiteness quarantine: a non-finite value poked into one car's state (as a bad
//! manoeuvre or test rig could) is caught in that car's step, reported with the car, the
//! quantity and the phase where it first shows, and never leaves `step`: the car is brought
//! to rest at its last good pose while the other cars run on exactly as if nothing happened.
//! The drivetrain's own check point reports the value it replaced.

mod common;
use common::*;
use rig_physics::car::CarState;
use rig_physics::drivetrain::{Drivetrain, WheelSpinInput};
use rig_physics::track::Track;
use rig_physics::{CarId, Controls, FaultReport, Quantity, StepPhase, World};

const CARS: usize = 3;
const POKED: CarId = CarId(1);

/// Three road cars rolling at 20 m/s for 0.1 s.
fn rolling_world() -> World {
    let mut world = World::new(Track::flat());
    for _ in 0..CARS {
        let id = world.add_car(&car("road"));
        world.car_mut(id).set_speed(20.0);
    }
    run(&mut world, 100);
    world
}

fn run(world: &mut World, steps: usize) {
    for _ in 0..steps {
        for i in 0..CARS {
            world.set_controls(
                CarId(i),
                Controls {
                    throttle: 0.2,
                    steering: 0.1,
                    ..idle()
                },
            );
        }
        world.step(DT);
    }
}

/// Every number the car hands out after a step is finite (state and telemetry).
fn assert_all_finite(world: &World, car: CarId) {
    let text = format!("{:?} {:?}", world.car(car).state(), world.telemetry(car));
    assert!(
        !text.contains("NaN") && !text.contains("inf"),
        "a non-finite value left step() for car {}: {text}",
        car.0
    );
}

/// Pokes `poke` into the poked car's state, steps once; returns the report and the state
/// the step started from.
fn poke_and_step(poke: impl Fn(&mut CarState)) -> (World, Option<FaultReport>, CarState) {
    let mut world = rolling_world();
    let mut state = *world.car(POKED).state();
    poke(&mut state);
    world.car_mut(POKED).set_state(state);
    run(&mut world, 1);
    let report = world.last_fault();
    (world, report, state)
}

#[test]
fn a_nan_wheel_spin_is_reported_with_car_quantity_and_phase_and_stays_in_the_car() {
    assert_eq!(
        rolling_world().fault_count(),
        0,
        "a healthy world reports nothing"
    );
    let (mut world, report, poked) = poke_and_step(|s| s.wheel_omega[2] = f64::NAN);
    let report = report.expect("the NaN is reported");
    assert_eq!(report.car, POKED);
    assert_eq!(report.fault.phase, StepPhase::Entry);
    assert_eq!(report.fault.quantity, Quantity::WheelSpin);
    assert_eq!(report.fault.wheel, Some(2));
    assert!(report.fault.car_stopped);
    assert!(
        (report.fault.time_s - 0.1).abs() < 1e-9,
        "{}",
        report.fault.time_s
    );
    assert_eq!(world.fault_count(), 1);
    let text = report.to_string();
    assert!(
        text.contains("car 1") && text.contains("WheelSpin") && text.contains("rear left"),
        "{text}"
    );
    for i in 0..CARS {
        assert_all_finite(&world, CarId(i));
    }
    // The poked car is at rest where the step started; the others never noticed.
    let stopped = world.car(POKED).state();
    assert_eq!(stopped.position, poked.position);
    assert_eq!(stopped.velocity.to_array(), [0.0; 3]);
    assert_eq!(world.telemetry(POKED).speed_mps, 0.0);
    let mut clean = rolling_world();
    run(&mut clean, 1);
    for other in [CarId(0), CarId(2)] {
        assert_eq!(
            format!("{:?}", world.telemetry(other)),
            format!("{:?}", clean.telemetry(other))
        );
    }
    // It steps on from rest with no further fault.
    run(&mut world, 500);
    assert_eq!(world.fault_count(), 1);
    for i in 0..CARS {
        assert_all_finite(&world, CarId(i));
    }
}

#[test]
fn each_poke_is_named_at_the_first_phase_it_reaches() {
    type Poke = fn(&mut CarState);
    let cases: [(&str, Poke, StepPhase, Quantity, Option<usize>); 6] = [
        (
            "NaN body rate",
            |s| s.angular_velocity_body.y = f64::NAN,
            StepPhase::Entry,
            Quantity::AngularVelocity,
            None,
        ),
        (
            "huge velocity",
            |s| s.velocity.x = 1e200,
            StepPhase::DriverInputs,
            Quantity::Speed,
            None,
        ),
        (
            "NaN unsprung velocity",
            |s| s.wheel_vertical_velocity[1] = f64::NAN,
            StepPhase::Suspension,
            Quantity::SuspensionRate,
            Some(1),
        ),
        (
            "NaN carcass deflection",
            |s| s.slip[3].u_x = f64::NAN,
            StepPhase::Tyres,
            Quantity::TyreForce,
            Some(3),
        ),
        (
            "huge unsprung velocity",
            |s| s.wheel_vertical_velocity[0] = 1e300,
            StepPhase::Telemetry,
            Quantity::Speed,
            None,
        ),
        (
            "NaN position",
            |s| s.position.x = f64::NAN,
            StepPhase::Entry,
            Quantity::Position,
            None,
        ),
    ];
    for (name, poke, phase, quantity, wheel) in cases {
        let (world, report, _) = poke_and_step(poke);
        let fault = report
            .unwrap_or_else(|| panic!("{name}: not reported"))
            .fault;
        assert_eq!(
            (fault.phase, fault.quantity, fault.wheel),
            (phase, quantity, wheel),
            "{name}"
        );
        assert_eq!(world.fault_count(), 1, "{name}");
        for i in 0..CARS {
            assert_all_finite(&world, CarId(i));
        }
    }
    // A bad pose cannot be restored: the car goes back to its start slot.
    let (world, _, _) = poke_and_step(|s| s.position.x = f64::NAN);
    let fresh = rolling_world();
    let start_x = World::new(Track::flat()).track().start_pose(POKED.0).0[0];
    assert!((world.car(POKED).state().position.x - start_x).abs() < 1e-9);
    assert!(fresh.car(POKED).state().position.x > start_x + 1.0);
}

#[test]
fn nan_controls_are_sanitised_and_never_fault() {
    let mut world = rolling_world();
    world.set_controls(
        POKED,
        Controls {
            steering: f64::NAN,
            throttle: f64::INFINITY,
            brake: f64::NAN,
            clutch: f64::NEG_INFINITY,
            handbrake: f64::NAN,
            ..idle()
        },
    );
    world.step(DT);
    assert_eq!(world.fault_count(), 0);
    assert_eq!(world.last_fault(), None);
    assert_all_finite(&world, POKED);
}

#[test]
fn the_drivetrain_check_point_names_the_value_it_replaced() {
    let mut drivetrain = Drivetrain::new(&car("road").drivetrain);
    let wheel = |omega_radps: f64| WheelSpinInput {
        omega_radps,
        inertia_kgm2: 1.0,
        road_torque_nm: 0.0,
        road_torque_slope: 0.0,
        brake_torque_nm: 0.0,
    };
    let healthy = [wheel(30.0); 4];
    drivetrain.step(&idle(), &healthy, DT);
    assert_eq!(drivetrain.take_fault(), None);
    let mut bad = healthy;
    bad[0] = wheel(f64::NAN);
    let out = drivetrain.step(&idle(), &bad, DT);
    assert!(out.iter().all(|w| w.is_finite()), "{out:?}");
    assert_eq!(
        drivetrain.take_fault(),
        Some((Quantity::WheelSpin, Some(0)))
    );
    assert_eq!(drivetrain.take_fault(), None, "reported once");
}
