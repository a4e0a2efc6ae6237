//! `[sim]`: which car and track the world is built from, and the robot cars.
use serde::Deserialize;

/// The `[sim]` section.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Built-in car name or path to a car TOML file.
    pub car: String,
    /// Built-in track name or path to a track TOML file.
    pub track: String,
    /// Number of extra robot-driven cars.
    pub robots: u32,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            car: "road".into(),
            track: "circuit".into(),
            robots: 0,
        }
    }
}
