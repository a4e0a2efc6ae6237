//! What a driver (human through rigd's input layer, or a robot) asks of one car in one step.
//! The types are plain data and live in rig-types; they are re-exported here so
//! `rig_physics::controls::...` paths keep working. The car clamps them with
//! [`Controls::sanitized`] at the physics boundary.

pub use rig_types::controls::{Controls, GearRequest};
