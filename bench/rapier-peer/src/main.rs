//! The physics benchmark's peer: what a Rust developer would use instead of writing a vehicle
//! core, rapier3d's `DynamicRayCastVehicleController` (Bullet's raycast vehicle, ported), timed
//! on the scenario of rig-physics' `flat cars=1` case: one road car on flat ground at 1 kHz.
//!
//! Usage: `rapier-peer [STEPS] [VEHICLES]` (defaults 100000 and 1). After 1000 untimed steps
//! (the suspension settles, the car gets going) it times STEPS steps of "update every vehicle
//! controller, then step the world" and prints, on its second line,
//! `ns_per_step=… ns_per_vehicle_step=…`, which `scripts/bench-physics.sh` reads, and a sanity
//! line (speed, height, wheels on the ground) showing the car really drove.
//!
//! The car: a 1500 kg box chassis 4.5 × 0.7 × 1.8 m (x forward, y up), four wheels of radius
//! 0.33 m on 0.3 m suspension at ±1.3 m / ±0.75 m, rear-wheel drive with 3000 N per driven
//! wheel until 20 m/s, a 0.05 rad steer from 2 s on so it circles. Vehicles stand 10 m apart
//! and never touch. The ground is one fixed cuboid whose top face is y = 0.

use std::time::{Duration, Instant};

use rapier3d::control::{DynamicRayCastVehicleController, WheelTuning};
use rapier3d::prelude::*;

const DT_S: f32 = 0.001;
const WARM_UP_STEPS: usize = 1000;
const CHASSIS_HALF_EXTENTS_M: [f32; 3] = [2.25, 0.35, 0.9];
const CHASSIS_MASS_KG: f32 = 1500.0;
const CHASSIS_START_HEIGHT_M: f32 = 0.9;
const VEHICLE_SPACING_M: f32 = 10.0;
/// Wheel mounts in chassis coordinates: front left, front right, rear left, rear right.
const WHEEL_MOUNTS_M: [[f32; 3]; 4] = [
    [1.3, -0.3, 0.75],
    [1.3, -0.3, -0.75],
    [-1.3, -0.3, 0.75],
    [-1.3, -0.3, -0.75],
];
const SUSPENSION_REST_LENGTH_M: f32 = 0.3;
const WHEEL_RADIUS_M: f32 = 0.33;
const DRIVE_FORCE_PER_WHEEL_N: f32 = 3000.0;
const SPEED_CAP_M_PER_S: f32 = 20.0;
const STEER_RAD: f32 = 0.05;
const STEER_FROM_STEP: usize = 2000;

/// rapier multiplies spring and damper by the chassis mass (F = (k·Δl − c·v)·m), so a 1.5 Hz
/// heave on four wheels needs k = ω²/4 ≈ 22.
fn wheel_tuning() -> WheelTuning {
    WheelTuning {
        suspension_stiffness: 22.0,
        suspension_compression: 1.0,
        suspension_damping: 1.5,
        max_suspension_travel: 0.2,
        side_friction_stiffness: 1.0,
        friction_slip: 1.2,
        max_suspension_force: 20_000.0,
    }
}

struct Vehicle {
    chassis: RigidBodyHandle,
    controller: DynamicRayCastVehicleController,
}

fn build_world(vehicles: usize) -> (PhysicsWorld, Vec<Vehicle>) {
    let mut world = PhysicsWorld::new();
    world.integration_parameters.dt = DT_S;
    world.insert_collider(
        ColliderBuilder::cuboid(5000.0, 0.5, 5000.0)
            .translation(Vector::new(0.0, -0.5, 0.0))
            .friction(1.0),
        None,
    );
    let tuning = wheel_tuning();
    let [hx, hy, hz] = CHASSIS_HALF_EXTENTS_M;
    let cars = (0..vehicles)
        .map(|index| {
            let body = RigidBodyBuilder::dynamic()
                .translation(Vector::new(
                    0.0,
                    CHASSIS_START_HEIGHT_M,
                    index as f32 * VEHICLE_SPACING_M,
                ))
                .can_sleep(false);
            let (chassis, _) = world.insert(
                body,
                ColliderBuilder::cuboid(hx, hy, hz).mass(CHASSIS_MASS_KG),
            );
            let mut controller = DynamicRayCastVehicleController::new(chassis);
            for [x, y, z] in WHEEL_MOUNTS_M {
                controller.add_wheel(
                    Vector::new(x, y, z),
                    -Vector::Y,
                    Vector::Z,
                    SUSPENSION_REST_LENGTH_M,
                    WHEEL_RADIUS_M,
                    &tuning,
                );
            }
            Vehicle {
                chassis,
                controller,
            }
        })
        .collect();
    (world, cars)
}

/// One step: set every vehicle's drive and steer, update its controller (the wheel ray casts
/// and the impulses on the chassis), then step the world. Returns the time in the controllers.
fn step(world: &mut PhysicsWorld, vehicles: &mut [Vehicle], step_index: usize) -> Duration {
    let controllers_started = Instant::now();
    for vehicle in vehicles.iter_mut() {
        let speed = world.bodies[vehicle.chassis].linvel().length();
        let drive = if speed < SPEED_CAP_M_PER_S {
            DRIVE_FORCE_PER_WHEEL_N
        } else {
            0.0
        };
        let steer = if step_index > STEER_FROM_STEP {
            STEER_RAD
        } else {
            0.0
        };
        let (front, rear) = vehicle.controller.wheels_mut().split_at_mut(2);
        front.iter_mut().for_each(|wheel| wheel.steering = steer);
        rear.iter_mut().for_each(|wheel| wheel.engine_force = drive);
        let queries = world.broad_phase.as_query_pipeline_mut(
            world.narrow_phase.query_dispatcher(),
            &mut world.bodies,
            &mut world.colliders,
            QueryFilter::exclude_dynamic().exclude_rigid_body(vehicle.chassis),
        );
        vehicle.controller.update_vehicle(DT_S, queries);
    }
    let in_controllers = controllers_started.elapsed();
    world.step();
    in_controllers
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let number = |index: usize, default: usize| {
        args.get(index).map_or(Ok(default), |text| {
            text.parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("argument {index} must be a positive count, got '{text}'"))
        })
    };
    let (steps, vehicle_count) = match (number(1, 100_000), number(2, 1)) {
        (Ok(steps), Ok(vehicles)) => (steps, vehicles),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("rapier-peer: {e} (usage: rapier-peer [STEPS] [VEHICLES])");
            std::process::exit(2);
        }
    };

    let (mut world, mut vehicles) = build_world(vehicle_count);
    for k in 0..WARM_UP_STEPS {
        step(&mut world, &mut vehicles, k);
    }
    let mut in_controllers = Duration::ZERO;
    let started = Instant::now();
    for k in WARM_UP_STEPS..WARM_UP_STEPS + steps {
        in_controllers += step(&mut world, &mut vehicles, k);
    }
    let elapsed = started.elapsed();

    let ns_per_step = elapsed.as_nanos() as f64 / steps as f64;
    println!(
        "rapier3d 0.36.1 DynamicRayCastVehicleController: vehicles={vehicle_count} steps={steps} dt=1ms"
    );
    println!(
        "ns_per_step={ns_per_step:.0} (vehicle controllers {:.0}) ns_per_vehicle_step={:.0} realtime_factor={:.0}x",
        in_controllers.as_nanos() as f64 / steps as f64,
        ns_per_step / vehicle_count as f64,
        1.0e6 / ns_per_step
    );
    let first = &vehicles[0];
    let body = &world.bodies[first.chassis];
    let on_ground = first
        .controller
        .wheels()
        .iter()
        .filter(|wheel| wheel.raycast_info().is_in_contact)
        .count();
    println!(
        "sanity vehicle 0: speed={:.2} m/s height={:.3} m wheels_on_ground={on_ground}",
        body.linvel().length(),
        body.translation().y
    );
}
