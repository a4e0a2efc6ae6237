//! rigd: the real-time sim-racing rig daemon.
//!
//! The binary (`src/main.rs`) is a thin CLI edge; everything it runs lives in these modules.

pub mod handoff;
pub mod motion;
pub mod rt_stage;
pub mod runtime;
