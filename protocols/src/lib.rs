//! rig-protocols: every byte format rigd speaks, encode and decode, no I/O.
#![deny(missing_docs)]

pub mod frame;
pub mod motion;
pub mod serial_input;
pub mod telemetry;
pub use frame::{FfbStatus, Frame, LoopHealth};
pub use telemetry::{decode_any, detect, DashView, Decoded, Format, NATIVE_DEFAULT_PORT};
