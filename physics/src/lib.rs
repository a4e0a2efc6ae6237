//! rig-physics: the car and the world for rigd.
//!
//! Pure and tick-driven: no I/O, no clock, no allocation inside `step`, bit-identical results
//! for identical inputs. The daemon owns timing and feeds [`Controls`]; every step produces a
//! [`CarTelemetry`] per car. Those two are plain data from rig-types, re-exported here with the
//! rest of [`telemetry`] and [`controls`].
//!
//! Map: [`world`] (track + cars, `step`), [`car`] (chassis, corners, integration), [`tyre`]
//! (MF 6.1 + relaxation), [`suspension`], [`steering`], [`brakes`], [`aero`], [`drivetrain`],
//! [`track`], [`surface`] (what the ground does to the tyre: water, texture, deformable
//! ground), [`damage`] (breakable parts), [`spec`] (car documents and [`builtin`] cars), [`maneuver`] (ISO test runs),
//! [`math`] (f64 vectors and quaternions), [`envelope`] (the car's g-g-v limits), [`identity`]
//! (digests that tie files to the car or track they were made for), [`quarantine`] (the report of a non-finite value
//! caught in a step).
#![deny(missing_docs)]

pub mod aero;
pub mod brakes;
pub mod car;
pub mod controls;
pub mod damage;
pub mod data;
pub mod drivetrain;
pub mod envelope;
pub mod identity;
pub mod lap;
pub mod lapsim;
pub mod line_search;
pub mod maneuver;
pub mod math;
pub mod quarantine;
pub mod robot;
pub mod spec;
pub mod steering;
pub mod surface;
pub mod suspension;
pub mod telemetry;
pub mod track;
pub mod tyre;
pub mod world;

pub use controls::{Controls, GearRequest};
pub use data::DataError;
pub use quarantine::{FaultReport, NonFinite, Quantity, StepPhase};
pub use spec::{builtin, CarSpec};
pub use telemetry::{
    CarTelemetry, DamageTelemetry, DiffTelemetry, DrivetrainTelemetry, LapTelemetry, SurfaceKind,
    WheelTelemetry,
};
pub use world::{CarId, World};
