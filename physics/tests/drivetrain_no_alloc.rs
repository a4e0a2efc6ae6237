//! The drivetrain allocates nothing while stepping: every built-in car driven hard (launch, gear
//! changes, refused shifts, braking) through `World::step`, counted by a global allocator that
//! tallies allocations made on this test's thread while counting is on.

use rig_physics::spec::builtin;
use rig_physics::track::Track;
use rig_physics::{Controls, GearRequest, World};
mod counting_alloc;
use counting_alloc::{start_counting, stop_counting, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn stepping_cars_with_their_drivetrains_does_not_allocate() {
    let mut world = World::new(Track::flat());
    let ids: Vec<_> = builtin::car_names()
        .into_iter()
        .map(|name| world.add_car(&builtin::car(name).unwrap()))
        .collect();
    start_counting();
    for step in 0..4000 {
        for &id in &ids {
            let gear_request = match step {
                10 => GearRequest::Select(1),
                1500 | 2500 => GearRequest::Up,
                3000 => GearRequest::Select(-1), // refused: too fast
                _ => GearRequest::None,
            };
            world.set_controls(
                id,
                Controls {
                    ignition: true,
                    throttle: if step < 3500 { 1.0 } else { 0.0 },
                    brake: if step >= 3500 { 1.0 } else { 0.0 },
                    clutch: if step < 700 {
                        1.0 - step as f64 / 700.0
                    } else {
                        0.0
                    },
                    gear_request,
                    ..Controls::default()
                },
            );
        }
        world.step(0.001);
    }
    assert_eq!(stop_counting(), 0);
    for &id in &ids {
        assert!(world.telemetry(id).speed_mps > 1.0, "the cars really drove");
    }
}
