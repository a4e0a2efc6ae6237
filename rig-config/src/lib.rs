//! rig-config: the TOML document a rigd user writes.
//!
//! One module per section, each owned by the feature that reads it: `[sim]` ([`sim`]),
//! `[loop]` ([`realtime`]), `[[telemetry]]` ([`telemetry`]), `[devices]` ([`devices`]),
//! `[motion]` ([`motion`]), `[record]` ([`record`]), `[source]` ([`frame_source`]). Every key has a default, so an empty file (or none) is valid.
//!
//! Loading never stops at the first mistake: [`parse`] collects every syntax error, every
//! unknown or mistyped key and every out-of-range value, each as a [`Problem`] naming file,
//! line, column, field and the fix.
//!
//! [`load_with`] is the one way rigd loads its configuration (`check-config`, `run` and the
//! SIGHUP reload): read the file, parse it once (the parser's spans say where every field is
//! written, kept in the returned [`Source`]), deserialise, validate, and let the caller's
//! [`Resolve`] check what the document names outside itself (the car and track files, which
//! only the simulator can read), its problems placed at the line of the key that names them.
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
pub mod frame_source;
pub mod motion;
mod problem;
pub mod realtime;
pub mod record;
pub mod sim;
mod source;
pub mod telemetry;

use std::path::Path;

use serde::Deserialize;
use toml::de::DeTable;

pub use problem::{FieldProblem, Problem, Report, Validate};
pub use source::Source;

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
    /// Where the frame comes from: the built-in simulation or a game's telemetry.
    pub source: frame_source::SourceConfig,
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
        self.source.validate("source", report);
    }
}

/// A configuration that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("config file {path} {} (fix: {})", rig_toml::plain::io_words(.cause), read_fix(.cause))]
    Read {
        /// The path given.
        path: String,
        /// Why reading failed (said in the message in plain words, not chained, so it is
        /// said once).
        cause: std::io::Error,
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

/// How to repair a config file that could not be read.
fn read_fix(cause: &std::io::Error) -> &'static str {
    match cause.kind() {
        std::io::ErrorKind::NotFound => {
            "create it (examples/rigd.toml lists every key with its default), or run rigd \
             without --config to use the defaults"
        }
        std::io::ErrorKind::PermissionDenied => {
            "let the user rigd runs as read it (the service runs as user rigd), e.g. \
             `chmod 0644` it"
        }
        _ => {
            "give the path of a TOML config file, or run rigd without --config to use the defaults"
        }
    }
}

fn problems_text(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    lines.join("\n")
}

/// Where the embedded defaults claim to come from in messages.
pub const EMBEDDED_ORIGIN: &str = "<embedded defaults>";

/// A valid configuration and the document it was read from (to place any later problem).
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The configuration.
    pub config: Config,
    /// Its origin, text and where each field is written.
    pub source: Source,
}

/// Checks what a configuration names outside itself, which rig-config cannot read (the car
/// and track files of `[sim]`: the daemon resolves them with the simulator's parsers).
///
/// It is called even when the document has other problems, with everything that parsed (a
/// broken entry at its default), so one `check-config` lists every problem at once.
pub trait Resolve {
    /// Every problem, each against the field that names the thing (`sim.car`); a field
    /// that already has a problem is not reported twice.
    fn problems(&self, config: &Config) -> Vec<FieldProblem>;
}

impl<F: Fn(&Config) -> Vec<FieldProblem>> Resolve for F {
    fn problems(&self, config: &Config) -> Vec<FieldProblem> {
        self(config)
    }
}

/// Nothing outside the document is checked.
fn nothing_to_resolve(_: &Config) -> Vec<FieldProblem> {
    Vec::new()
}

/// Reads and checks the file at `path`, or the embedded defaults when `path` is `None`,
/// without resolving anything outside the document (see [`load_with`]).
pub fn load(path: Option<&Path>) -> Result<Loaded, ConfigError> {
    load_with(path, &nothing_to_resolve)
}

/// Reads the file at `path` (`None`: the embedded defaults, an empty document), parses it once,
/// validates it and runs `resolver`; returns the configuration with its [`Source`], or every
/// problem found, sorted by line.
pub fn load_with(path: Option<&Path>, resolver: &dyn Resolve) -> Result<Loaded, ConfigError> {
    let (text, origin) = match path {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|cause| ConfigError::Read {
                path: path.display().to_string(),
                cause,
            })?;
            (text, path.display().to_string())
        }
        None => (String::new(), EMBEDDED_ORIGIN.to_string()),
    };
    check(text, origin, resolver).map_err(ConfigError::Invalid)
}

/// Parses and validates `text`; `origin` (a path) names it in problems. Returns every problem
/// found, not only the first.
pub fn parse(text: &str, origin: &str) -> Result<Config, Vec<Problem>> {
    check(text.to_string(), origin.to_string(), &nothing_to_resolve).map(|loaded| loaded.config)
}

/// The one parse: spans, deserialisation, validation, resolution, every problem placed.
fn check(text: String, origin: String, resolver: &dyn Resolve) -> Result<Loaded, Vec<Problem>> {
    let (config, places, mut problems) = {
        let (root, syntax_errors) = DeTable::parse_recoverable(&text);
        let places = rig_toml::Places::of(root.get_ref());
        let (config, problems) =
            document::deserialize_collecting(root, &syntax_errors, &text, &origin);
        (config, places, problems)
    };
    let source = Source::new(origin, text, places);
    let mut report = Report::default();
    config.validate("", &mut report);
    let mut found = report.into_problems();
    for resolved in resolver.problems(&config) {
        let known = |field: &str| field == resolved.field;
        if !found.iter().any(|f| known(&f.field)) && !problems.iter().any(|p| known(&p.field)) {
            found.push(resolved);
        }
    }
    problems.extend(found.into_iter().map(|f| source.problem(f)));
    if problems.is_empty() {
        Ok(Loaded { config, source })
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
