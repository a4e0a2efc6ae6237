//! The world: one track and the cars on it, stepped together at a fixed dt.
//!
//! `step` never allocates, logs or reads a clock; cars are independent of each other (no
//! car-to-car contact yet) and are stepped in insertion order, so results are bit-identical for
//! identical inputs. Steps longer than [`MAX_SUBSTEP_S`] are split into equal sub-steps.
//!
//! Each car's quarantine catches a non-finite value in its step (and brings the car to rest);
//! the world keeps the latest [`FaultReport`] and a count for the caller to query
//! ([`World::last_fault`], [`World::fault_count`]), plain data written without allocation.
//!
//! Each car projects itself onto the track once per sub-step (at the end of its step); the
//! lap timer, [`World::track_coord`] (what robots read) and the car's barrier broad phase all
//! use that one projection.

use crate::car::Car;
use crate::controls::Controls;
use crate::lap::LapTimer;
use crate::quarantine::FaultReport;
use crate::spec::CarSpec;
use crate::telemetry::CarTelemetry;
use crate::track::{Track, TrackCoord};

/// Longest single integration step, s; longer `step` calls are sub-divided.
pub const MAX_SUBSTEP_S: f64 = 0.002;

/// Identifies a car inside a [`World`] (its index, stable for the world's life).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CarId(pub usize);

/// A track and the cars on it.
#[derive(Debug)]
pub struct World {
    track: Track,
    cars: Vec<Car>,
    /// Lap and sector timing per car.
    laps: Vec<LapTimer>,
    time_s: f64,
    /// The latest fault any car's quarantine caught, and how many it caught in all.
    last_fault: Option<FaultReport>,
    fault_count: u64,
}

impl World {
    /// An empty world on `track`.
    pub fn new(track: Track) -> World {
        World {
            track,
            cars: Vec::new(),
            laps: Vec::new(),
            time_s: 0.0,
            last_fault: None,
            fault_count: 0,
        }
    }

    /// The track.
    pub fn track(&self) -> &Track {
        &self.track
    }

    /// Adds a car (validated spec) at the next start slot, at rest. Allocates: call at
    /// set-up, never from the loop.
    pub fn add_car(&mut self, spec: &CarSpec) -> CarId {
        let slot = self.cars.len();
        let (position, yaw) = self.track.start_pose(slot);
        self.cars.push(Car::new(spec, &self.track, position, yaw));
        self.laps.push(LapTimer::new(&self.track));
        CarId(slot)
    }

    /// Puts a car back on its start slot, at rest.
    pub fn reset_car(&mut self, car: CarId) {
        self.cars[car.0].reset();
        self.cars[car.0].refresh_track_coord(&self.track);
        self.laps[car.0] = LapTimer::new(&self.track);
    }

    /// Number of cars.
    pub fn car_count(&self) -> usize {
        self.cars.len()
    }

    /// Simulated time, s.
    pub fn time_s(&self) -> f64 {
        self.time_s
    }

    /// Sets the controls used by the following steps (sanitised: non-finite or out-of-range
    /// values are clamped). A gear request is applied once.
    pub fn set_controls(&mut self, car: CarId, controls: Controls) {
        self.cars[car.0].set_controls(controls);
    }

    /// Advances every car by `dt_s` seconds (no allocation, no I/O). Non-positive or
    /// non-finite `dt_s` does nothing.
    pub fn step(&mut self, dt_s: f64) {
        if !(dt_s > 0.0 && dt_s.is_finite()) {
            return;
        }
        let substeps = (dt_s / MAX_SUBSTEP_S).ceil().max(1.0);
        let h = dt_s / substeps;
        for _ in 0..substeps as u64 {
            for (index, (car, lap)) in self.cars.iter_mut().zip(&mut self.laps).enumerate() {
                car.step(&self.track, h);
                if let Some(fault) = car.take_fault() {
                    self.last_fault = Some(FaultReport {
                        car: CarId(index),
                        fault,
                    });
                    self.fault_count += 1;
                }
                lap.update(car.track_coord(), h);
            }
        }
        self.time_s += dt_s;
    }

    /// The latest non-finite value any car's quarantine caught (which car, quantity and
    /// phase), or None when none ever was.
    pub fn last_fault(&self) -> Option<FaultReport> {
        self.last_fault
    }

    /// How many steps of any car caught a non-finite value since the world was built (a
    /// caller compares it with the count it saw last to find new reports).
    pub fn fault_count(&self) -> u64 {
        self.fault_count
    }

    /// The telemetry of one car after the last step.
    pub fn telemetry(&self, car: CarId) -> CarTelemetry {
        let mut telemetry = *self.cars[car.0].telemetry();
        telemetry.lap = self.laps[car.0].telemetry();
        telemetry
    }

    /// Where a car is on the track after the last step (along/across coordinates of its
    /// centre of gravity): the projection the world made for lap timing, so robots and tools
    /// need no query of their own.
    pub fn track_coord(&self, car: CarId) -> TrackCoord {
        *self.cars[car.0].track_coord()
    }

    /// One car (state, parameters).
    pub fn car(&self, car: CarId) -> &Car {
        &self.cars[car.0]
    }

    /// One car, mutable (initial conditions for manoeuvres and test rigs).
    pub fn car_mut(&mut self, car: CarId) -> &mut Car {
        &mut self.cars[car.0]
    }
}

impl Default for World {
    fn default() -> Self {
        World::new(Track::flat())
    }
}
