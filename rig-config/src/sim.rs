//! `[sim]`: which car and track the world is built from, and the robot cars.
//!
//! Names without a `/` and without a `.toml` ending are built-in data of rig-physics; anything
//! else is a path to a TOML file (resolved by the daemon when it builds the world).
use serde::Deserialize;

use crate::problem::{Report, Validate};

/// Most robot cars a world may hold besides the player car (the 1000 Hz budget is measured
/// with 100 robots; see docs/BENCHMARKS.md).
pub const MAX_ROBOTS: u32 = 200;

/// The `[sim]` section.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SimConfig {
    /// Built-in car name (e.g. `road`) or path to a car TOML file.
    pub car: String,
    /// Built-in track name (e.g. `circuit`) or path to a track TOML file.
    pub track: String,
    /// Number of extra robot-driven cars, 0 ..= 200.
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

impl SimConfig {
    /// True when `name` names a file rather than built-in data.
    pub fn is_path(name: &str) -> bool {
        name.contains('/') || name.ends_with(".toml")
    }
}

impl Validate for SimConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        for (key, value) in [("car", &self.car), ("track", &self.track)] {
            if value.trim().is_empty() {
                report.problem(
                    format!("{field}.{key}"),
                    "is empty",
                    format!("name a built-in {key} or give the path of a {key} TOML file"),
                );
            } else if SimConfig::is_path(value) && !std::path::Path::new(value).is_file() {
                report.problem(
                    format!("{field}.{key}"),
                    format!("file `{value}` does not exist or is not a regular file"),
                    format!("correct the path, or name a built-in {key}"),
                );
            }
        }
        report.check_range(&format!("{field}.robots"), self.robots, 0..=MAX_ROBOTS);
    }
}
