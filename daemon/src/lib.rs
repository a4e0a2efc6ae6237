//! rigd: the real-time sim-racing rig daemon.
//!
//! The binary (`src/main.rs`) is a thin CLI edge; everything it runs lives in these modules.

pub mod bench;
pub mod check;
pub mod cli;
pub mod devices;
pub mod ffb;
pub mod handoff;
pub mod input;
pub mod maneuver;
pub mod motion;
pub mod replay;
pub mod rt_stage;
pub mod runtime;
pub mod serial_input;
pub mod signals;
pub mod systemd;
pub mod telemetry_out;
#[cfg(test)]
mod test_pty;
