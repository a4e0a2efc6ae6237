//! `[record]`: where `rigd run` records the session's physics inputs for `rigd replay`
//! (docs/replay.md). Off unless a path is given here or with `rigd run --record FILE`.
use serde::Deserialize;

use crate::problem::{Report, Validate};

/// The `[record]` section.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RecordConfig {
    /// File to record every physics step's input to (replaced if it exists). Absent: no
    /// recording.
    pub path: Option<String>,
}

impl Validate for RecordConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        let Some(path) = &self.path else { return };
        let path_field = format!("{field}.path");
        if path.trim().is_empty() {
            report.problem(
                path_field,
                "is empty",
                "give the file to record to, or remove the key to record nothing",
            );
            return;
        }
        let parent = std::path::Path::new(path)
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(std::path::Path::new("."));
        if !parent.is_dir() {
            report.problem(
                path_field,
                format!("directory `{}` does not exist", parent.display()),
                "create the directory, or record to a file in an existing one",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(path: Option<&str>) -> Vec<String> {
        let mut report = Report::default();
        RecordConfig {
            path: path.map(str::to_string),
        }
        .validate("record", &mut report);
        report
            .problems()
            .iter()
            .map(|p| p.message.clone())
            .collect()
    }

    #[test]
    fn a_path_in_an_existing_directory_or_none_is_valid() {
        assert!(problems(None).is_empty());
        assert!(problems(Some("session.rigrec")).is_empty());
        assert!(problems(Some("/tmp/session.rigrec")).is_empty());
    }

    #[test]
    fn an_empty_path_or_a_missing_directory_is_a_problem() {
        assert_eq!(problems(Some(" ")), vec!["is empty"]);
        assert_eq!(
            problems(Some("/nonexistent-dir/x.rigrec")),
            vec!["directory `/nonexistent-dir` does not exist"]
        );
    }
}
