//! Shared set-up for the car tests: a world with one built-in car, helpers to run it.
#![allow(dead_code)] // Each test binary uses its own subset.

use rig_physics::track::Track;
use rig_physics::{builtin, CarId, CarSpec, CarTelemetry, Controls, World};

/// Fixed step used by the tests, s.
pub const DT: f64 = 0.001;
/// Gravity used by the model, m/s^2.
pub const G: f64 = 9.81;

/// A built-in car spec.
pub fn car(name: &str) -> CarSpec {
    builtin::car(name).expect("built-in car parses")
}

/// A world on `track` with one car of `spec`.
pub fn world_with(spec: &CarSpec, track: Track) -> (World, CarId) {
    let mut world = World::new(track);
    let id = world.add_car(spec);
    (world, id)
}

/// Controls with the ignition on and everything else released.
pub fn idle() -> Controls {
    Controls {
        ignition: true,
        ..Controls::default()
    }
}

/// Steps `seconds` with fixed controls, returning the last telemetry.
pub fn run(world: &mut World, id: CarId, controls: Controls, seconds: f64) -> CarTelemetry {
    world.set_controls(id, controls);
    let steps = (seconds / DT).round() as usize;
    for _ in 0..steps {
        world.step(DT);
    }
    world.telemetry(id)
}
