//! rig-config: the TOML document a rigd user writes.
//!
//! SKELETON: each section lives in its own module, owned by the feature that reads it.
#![deny(missing_docs)]

pub mod devices;
pub mod motion;
pub mod realtime;
pub mod sim;
pub mod telemetry;

use serde::Deserialize;

/// The whole rigd configuration. Every section has defaults, so an empty file is valid.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Which car and track, and the robot cars.
    pub sim: sim::SimConfig,
    /// The real-time loop.
    #[serde(rename = "loop")]
    pub realtime: realtime::LoopConfig,
    /// UDP telemetry outputs.
    pub telemetry: Vec<telemetry::TelemetryOutput>,
    /// Input devices, axis and button mapping, force feedback.
    pub devices: devices::DevicesConfig,
    /// Motion platforms and DIY serial devices.
    pub motion: motion::MotionConfig,
}
