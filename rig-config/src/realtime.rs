//! `[loop]`: the real-time physics thread.
use serde::Deserialize;

/// The `[loop]` section.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LoopConfig {
    /// Loop rate, Hz.
    pub rate_hz: u32,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig { rate_hz: 1000 }
    }
}
