//! `[sim]`: which car and track the world is built from, and the robot cars.
//!
//! Names without a `/` and without a `.toml` ending are built-in data of rig-physics; anything
//! else is a path to a TOML file (resolved by the daemon when it builds the world). A relative
//! path is resolved from the directory rigd runs in; every message about a car or track that
//! cannot be found says which directory that is and lists the built-in names
//! ([`file_problem`], [`builtin_problem`]), here and where the daemon reads the file.
use std::path::Path;

use serde::Deserialize;

use crate::problem::{Report, Validate};

/// Most robot cars a world may hold besides the player car (the 1000 Hz budget is measured
/// with 100 robots; see docs/BENCHMARKS.md).
pub const MAX_ROBOTS: u32 = 200;

/// The cars built into rigd (rig-physics' `data/cars`; the daemon's tests check both lists agree).
pub const BUILTIN_CARS: [&str; 3] = ["road", "race", "rally"];

/// The tracks built into rigd (rig-physics' `data/tracks`).
pub const BUILTIN_TRACKS: [&str; 5] = ["circuit", "oval", "skidpad", "gravel", "corners"];

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
    /// Path of a line file written by `rigd line` for this car and track: the robots drive
    /// that line instead of the one they plan. Unset: they plan their own.
    pub robot_line: Option<String>,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            car: "road".into(),
            track: "circuit".into(),
            robots: 0,
            robot_line: None,
        }
    }
}

impl SimConfig {
    /// True when `name` names a file rather than built-in data.
    pub fn is_path(name: &str) -> bool {
        name.contains('/') || name.ends_with(".toml")
    }
}

/// The built-in names of `kind` (`car` or `track`).
fn builtins(kind: &str) -> &'static [&'static str] {
    if kind == "car" {
        &BUILTIN_CARS
    } else {
        &BUILTIN_TRACKS
    }
}

/// The built-in names of `kind` (`car` or `track`) as a sentence: `road, race or rally`.
pub fn builtin_names(kind: &str) -> String {
    match builtins(kind).split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => builtins(kind).join(""),
    }
}

/// The message and fix for the `kind` (`car` or `track`) file at `path` that cannot be used;
/// `why` follows the path (`does not exist`, `cannot be read: permission denied`). A relative
/// path says the directory it was looked for in.
pub fn file_problem(kind: &str, path: &str, why: &str) -> (String, String) {
    let from = if Path::new(path).is_relative() {
        let directory = std::env::current_dir()
            .map_or_else(|_| "?".to_string(), |dir| dir.display().to_string());
        format!(" (a relative path is resolved from the directory rigd runs in, {directory})")
    } else {
        String::new()
    };
    (
        format!("{kind} file `{path}` {why}{from}"),
        format!(
            "correct the path (an absolute path works from anywhere), or name a built-in \
             {kind}: {}",
            builtin_names(kind)
        ),
    )
}

/// The message and fix for `name`, which is not the name of a built-in `kind`.
pub fn builtin_problem(kind: &str, name: &str) -> (String, String) {
    (
        format!("no built-in {kind} named \"{name}\""),
        format!(
            "name one of {}, or give the path of a {kind} TOML file (a name with a `/` or \
             ending in `.toml`)",
            builtin_names(kind)
        ),
    )
}

impl Validate for SimConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        for (key, value) in [("car", &self.car), ("track", &self.track)] {
            let field = format!("{field}.{key}");
            if value.trim().is_empty() {
                report.problem(
                    field,
                    "is empty",
                    format!(
                        "name a built-in {key} ({}) or give the path of a {key} TOML file",
                        builtin_names(key)
                    ),
                );
            } else if SimConfig::is_path(value) {
                let path = Path::new(value);
                let why = if !path.exists() {
                    Some("does not exist")
                } else if !path.is_file() {
                    Some("is not a regular file")
                } else {
                    None
                };
                if let Some(why) = why {
                    let (message, fix) = file_problem(key, value, why);
                    report.problem(field, message, fix);
                }
            } else if !builtins(key).contains(&value.as_str()) {
                let (message, fix) = builtin_problem(key, value);
                report.problem(field, message, fix);
            }
        }
        report.check_range(&format!("{field}.robots"), self.robots, 0..=MAX_ROBOTS);
        if let Some(line) = &self.robot_line {
            let path = Path::new(line);
            let why = if line.trim().is_empty() {
                Some("is empty")
            } else if !path.exists() {
                Some("does not exist")
            } else if !path.is_file() {
                Some("is not a regular file")
            } else {
                None
            };
            if let Some(why) = why {
                report.problem(
                    format!("{field}.robot_line"),
                    format!("line file `{line}` {why}"),
                    "write one with `rigd line --car CAR --track TRACK --out FILE` and give its \
                     path, or remove robot_line so the robots plan their own line",
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(sim: SimConfig) -> Vec<crate::FieldProblem> {
        let mut report = Report::default();
        sim.validate("sim", &mut report);
        report.into_problems()
    }

    #[test]
    fn a_missing_relative_car_file_names_the_directory_and_the_built_in_cars() {
        let found = problems(SimConfig {
            car: "cars/missing.toml".into(),
            ..SimConfig::default()
        });
        assert_eq!(found.len(), 1);
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(found[0].field, "sim.car");
        assert_eq!(
            found[0].message,
            format!(
                "car file `cars/missing.toml` does not exist (a relative path is resolved \
                 from the directory rigd runs in, {})",
                cwd.display()
            )
        );
        assert!(
            found[0]
                .fix
                .ends_with("name a built-in car: road, race or rally"),
            "{}",
            found[0].fix
        );
    }

    #[test]
    fn an_absolute_path_needs_no_directory_and_a_track_lists_the_tracks() {
        let found = problems(SimConfig {
            track: "/nonexistent/track.toml".into(),
            ..SimConfig::default()
        });
        assert_eq!(
            found[0].message,
            "track file `/nonexistent/track.toml` does not exist"
        );
        assert!(found[0]
            .fix
            .ends_with("circuit, oval, skidpad, gravel or corners"));
        let directory = problems(SimConfig {
            car: "/".into(),
            ..SimConfig::default()
        });
        assert_eq!(directory[0].message, "car file `/` is not a regular file");
    }

    #[test]
    fn an_unknown_built_in_name_lists_the_built_in_ones() {
        let found = problems(SimConfig {
            car: "hovercraft".into(),
            ..SimConfig::default()
        });
        assert_eq!(found[0].message, "no built-in car named \"hovercraft\"");
        assert!(
            found[0]
                .fix
                .starts_with("name one of road, race or rally, or give the path"),
            "{}",
            found[0].fix
        );
        assert!(problems(SimConfig::default()).is_empty());
    }
}
