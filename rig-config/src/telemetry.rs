//! `[[telemetry]]`: UDP telemetry outputs.
use serde::Deserialize;

/// One `[[telemetry]]` entry.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TelemetryOutput {
    /// Wire format name.
    pub format: String,
}
