//! The document a [`crate::Config`] was read from: its origin, its text, and where each field
//! is written (taken from the TOML parser's spans by [`rig_toml::Places`] during the one
//! parse). Any problem found later (by validation, or by whoever resolves the car and track
//! the document names) is placed at its line and column without parsing the text again.

use rig_toml::Places;

use crate::problem::{FieldProblem, Problem};

/// Where a configuration came from and where each of its fields is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    origin: String,
    text: String,
    places: Places,
}

impl Source {
    pub(crate) fn new(origin: String, text: String, places: Places) -> Source {
        Source {
            origin,
            text,
            places,
        }
    }

    /// The path the text was read from, or [`crate::EMBEDDED_ORIGIN`].
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The document as read.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// 1-based line and column of `field` (`sim.car`, `telemetry[1].port`): its key, or the
    /// nearest enclosing table or array element written when the key is not; `(0, 0)` when
    /// nothing on its path is written (a default).
    pub fn position(&self, field: &str) -> (usize, usize) {
        self.places.position(&self.text, field).unwrap_or((0, 0))
    }

    /// Places a problem found by field in this document.
    pub fn problem(&self, found: FieldProblem) -> Problem {
        let (line, column) = self.position(&found.field);
        Problem {
            origin: self.origin.clone(),
            line,
            column,
            field: found.field,
            message: found.message,
            fix: found.fix,
        }
    }
}
