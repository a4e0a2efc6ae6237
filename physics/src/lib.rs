//! rig-physics: the car and the world for rigd.
//!
//! Pure and tick-driven: no I/O, no clock, no allocation inside `step`, bit-identical results
//! for identical inputs. The daemon owns timing and feeds [`Controls`]; every step produces a
//! [`CarTelemetry`] per car.
#![deny(missing_docs)]

pub mod controls;
pub mod data;
pub mod drivetrain;
pub mod lap;
pub mod telemetry;
pub mod track;
pub mod world;

pub use controls::{Controls, GearRequest};
pub use data::DataError;
pub use telemetry::{
    CarTelemetry, DiffTelemetry, DrivetrainTelemetry, LapTelemetry, SurfaceKind, WheelTelemetry,
};
pub use world::{CarId, World};
