//! The world: one track and the cars on it, stepped together at a fixed dt.
//!
//! CONTRACT SKELETON: the signatures below are what rigd, the robots and the benches call.
//! The physics-core work replaces the bodies; signatures may gain items but not change.

use crate::controls::Controls;
use crate::telemetry::CarTelemetry;

/// Identifies a car inside a [`World`] (its index, stable for the world's life).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CarId(pub usize);

/// A track and the cars on it.
#[derive(Debug)]
pub struct World {
    cars: Vec<(Controls, CarTelemetry)>,
    time_s: f64,
}

impl World {
    /// An empty world (skeleton: no track yet).
    pub fn new() -> World {
        World {
            cars: Vec::new(),
            time_s: 0.0,
        }
    }

    /// Adds a car at the next start slot. Allocates: call at set-up, never from the loop.
    pub fn add_car(&mut self) -> CarId {
        self.cars
            .push((Controls::default(), CarTelemetry::default()));
        CarId(self.cars.len() - 1)
    }

    /// Number of cars.
    pub fn car_count(&self) -> usize {
        self.cars.len()
    }

    /// Sets the controls used by the following steps.
    pub fn set_controls(&mut self, car: CarId, controls: Controls) {
        self.cars[car.0].0 = controls.sanitized();
    }

    /// Advances every car by `dt_s` seconds (no allocation, no I/O).
    pub fn step(&mut self, dt_s: f64) {
        self.time_s += dt_s;
        for (controls, telemetry) in &mut self.cars {
            telemetry.time_s = self.time_s;
            telemetry.controls = *controls;
        }
    }

    /// The telemetry of one car after the last step.
    pub fn telemetry(&self, car: CarId) -> CarTelemetry {
        self.cars[car.0].1
    }
}

impl Default for World {
    fn default() -> Self {
        World::new()
    }
}
