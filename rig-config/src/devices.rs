//! `[devices]`: input devices, mapping and force feedback.
use serde::Deserialize;

/// The `[devices]` section.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DevicesConfig {}
