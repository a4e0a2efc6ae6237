//! One thing wrong with a configuration, located at file, line, column and field, with the
//! fix; and the collector semantic validation writes into.
//!
//! Every user-facing config message goes through [`Problem`]'s `Display`:
//! `FILE:LINE:COLUMN: FIELD: MESSAGE (fix: FIX)`, one line, journald-friendly.

use std::fmt;

/// One problem found in a configuration document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Where the text came from: a path, or `<embedded defaults>`.
    pub origin: String,
    /// 1-based line of the offending key or value (0 when the document has no such key).
    pub line: usize,
    /// 1-based column (0 when unknown).
    pub column: usize,
    /// Dotted path of the field, e.g. `loop.priority` or `telemetry[1].port`.
    pub field: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub fix: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.origin, self.line, self.column)?;
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        write!(f, "{} (fix: {})", self.message, self.fix)
    }
}

/// A problem found by semantic validation, before it is located in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    /// Dotted path of the field (`section.key`, `array[index].key`).
    pub field: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub fix: String,
}

/// Collects every semantic problem of a parsed configuration (validation never stops at the
/// first one, so `rigd check-config` can report them all).
#[derive(Debug, Default)]
pub struct Report {
    problems: Vec<FieldProblem>,
}

impl Report {
    /// Records that `field` is wrong: `message` says what, `fix` says how to repair it.
    pub fn problem(
        &mut self,
        field: impl Into<String>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.problems.push(FieldProblem {
            field: field.into(),
            message: message.into(),
            fix: fix.into(),
        });
    }

    /// Records a problem when `value` lies outside `range` (units belong in the field name).
    pub fn check_range<T>(&mut self, field: &str, value: T, range: std::ops::RangeInclusive<T>)
    where
        T: PartialOrd + fmt::Display + Copy,
    {
        if !range.contains(&value) {
            self.problem(
                field,
                format!(
                    "{value} is outside the allowed range {} ..= {}",
                    range.start(),
                    range.end()
                ),
                format!(
                    "set a value between {} and {}, or remove the key to use the default",
                    range.start(),
                    range.end()
                ),
            );
        }
    }

    /// The problems recorded so far.
    pub fn problems(&self) -> &[FieldProblem] {
        &self.problems
    }

    /// Takes the problems out of the report.
    pub fn into_problems(self) -> Vec<FieldProblem> {
        self.problems
    }
}

/// A section (or any part) of the configuration that can check itself.
pub trait Validate {
    /// Records every problem of `self` into `report`; `field` is this value's dotted path.
    fn validate(&self, field: &str, report: &mut Report);
}
