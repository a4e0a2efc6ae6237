//! The drivetrain allocates nothing while stepping: every built-in car driven hard (launch, gear
//! changes, refused shifts, braking) through `World::step`, counted by a global allocator that
//! tallies allocations made on this test's thread while counting is on.

use rig_physics::spec::builtin;
use rig_physics::track::Track;
use rig_physics::{Controls, GearRequest, World};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator unchanged; only bumps a thread-local counter.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCATIONS.with(|a| a.set(a.get() + 1));
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn stepping_cars_with_their_drivetrains_does_not_allocate() {
    let mut world = World::new(Track::flat());
    let ids: Vec<_> = builtin::car_names()
        .into_iter()
        .map(|name| world.add_car(&builtin::car(name).unwrap()))
        .collect();
    COUNTING.with(|c| c.set(true));
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
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.with(Cell::get), 0);
    for &id in &ids {
        assert!(world.telemetry(id).speed_mps > 1.0, "the cars really drove");
    }
}
