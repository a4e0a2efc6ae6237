//! `[motion]`: motion platforms and DIY serial devices.
use serde::Deserialize;

/// The `[motion]` section.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MotionConfig {}
