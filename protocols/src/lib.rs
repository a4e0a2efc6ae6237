//! rig-protocols: every byte format rigd speaks, encode and decode, no I/O.
//!
//! [`game`] reads games' UDP telemetry as a source of rigd's frame (the game bridge).
//!
//! Telemetry encoders take the [`Frame`] rigd publishes each tick (plain data from rig-types,
//! re-exported here); this crate does not depend on the simulator.
#![deny(missing_docs)]

pub mod game;
pub mod motion;
pub mod serial_input;
pub mod telemetry;
pub use rig_types::{FfbHold, FfbStatus, Frame, LoopHealth, MotionHoldTelemetry};
pub use telemetry::{decode_any, detect, DashView, Decoded, Format, NATIVE_DEFAULT_PORT};
