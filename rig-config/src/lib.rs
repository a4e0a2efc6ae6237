//! rig-config: the TOML document a rigd user writes.
//!
//! One module per section, each owned by the feature that reads it: `[sim]` ([`sim`]),
//! `[loop]` ([`realtime`]), `[[telemetry]]` ([`telemetry`]), `[devices]` ([`devices`]),
//! `[motion]` ([`motion`]), `[record]` ([`record`]). Every key has a default, so an empty file (or none) is valid.
//!
//! Loading never stops at the first mistake: [`parse`] collects every syntax error, every
//! unknown or mistyped key and every out-of-range value, each as a [`Problem`] naming file,
//! line, column, field and the fix.
//!
//! ```
//! let config = rig_config::parse("[loop]\nrate_hz = 500\n", "example.toml").unwrap();
//! assert_eq!(config.realtime.rate_hz, 500);
//!
//! let problems = rig_config::parse("[loop]\nrate_hz = 5\npriorty = 3\n", "bad.toml").unwrap_err();
//! assert_eq!(problems.len(), 2);
//! assert!(problems[0].to_string().starts_with("bad.toml:"));
//! ```
#![deny(missing_docs)]

pub mod devices;
mod document;
pub mod motion;
mod problem;
pub mod realtime;
pub mod record;
pub mod sim;
pub mod telemetry;

use std::path::Path;

use serde::Deserialize;

pub use document::locate;
pub use problem::{FieldProblem, Problem, Report, Validate};

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
    /// Recording the session for `rigd replay`.
    pub record: record::RecordConfig,
}

impl Validate for Config {
    fn validate(&self, _field: &str, report: &mut Report) {
        self.sim.validate("sim", report);
        self.realtime.validate("loop", report);
        self.motion.validate("motion", report);
        for (i, out) in self.telemetry.iter().enumerate() {
            out.validate(&format!("telemetry[{i}]"), report);
        }
        self.devices.validate("devices", report);
        self.record.validate("record", report);
    }
}

/// A configuration that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: cannot read the configuration: {source} (fix: check the path and its permissions, or run without --config to use the embedded defaults)")]
    Read {
        /// The path given.
        path: String,
        /// Why reading failed.
        source: std::io::Error,
    },
    /// The document has problems (all of them are listed).
    #[error("{}", problems_text(.0))]
    Invalid(Vec<Problem>),
}

impl ConfigError {
    /// Every problem, one per line, for a terminal or the journal.
    pub fn problems(&self) -> Vec<String> {
        match self {
            ConfigError::Read { .. } => vec![self.to_string()],
            ConfigError::Invalid(problems) => problems.iter().map(|p| p.to_string()).collect(),
        }
    }
}

fn problems_text(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    lines.join("\n")
}

/// Where the embedded defaults claim to come from in messages.
pub const EMBEDDED_ORIGIN: &str = "<embedded defaults>";

/// Reads and parses the file at `path` (see [`parse`]).
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.display().to_string(),
        source,
    })?;
    parse(&text, &path.display().to_string()).map_err(ConfigError::Invalid)
}

/// Parses and validates `text`; `origin` (a path) names it in problems. Returns every problem
/// found, not only the first.
pub fn parse(text: &str, origin: &str) -> Result<Config, Vec<Problem>> {
    let (config, mut problems) = document::deserialize_collecting(text, origin);
    let mut report = Report::default();
    config.validate("", &mut report);
    for found in report.into_problems() {
        problems.push(locate(text, origin, &found));
    }
    if problems.is_empty() {
        Ok(config)
    } else {
        problems.sort_by_key(|p| (p.line, p.column));
        Err(problems)
    }
}

/// The JSON schema of the configuration, for editors (Taplo, Tombi, VS Code).
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Config);
    serde_json::to_string_pretty(&schema).expect("a schema always serialises")
}
