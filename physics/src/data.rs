//! Loading car and track documents: TOML text -> validated specs, with errors that name the
//! document, line, column and field, and say what was expected.

use serde::de::DeserializeOwned;

/// A car or track document that could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{origin}:{line}:{column}: {field}: {message}")]
pub struct DataError {
    /// Where the text came from (a path, or `builtin:<name>`).
    pub origin: String,
    /// 1-based line of the offending value (0 when unknown).
    pub line: usize,
    /// 1-based column of the offending value (0 when unknown).
    pub column: usize,
    /// Dotted path of the field, e.g. `suspension.front.spring_rate_n_per_m`.
    pub field: String,
    /// What is wrong and what is expected.
    pub message: String,
}

/// Parses `text` as `T`, mapping TOML and serde errors to a [`DataError`] that points at the
/// line and column of the problem.
pub fn parse_toml<T: DeserializeOwned>(text: &str, origin: &str) -> Result<T, DataError> {
    toml::from_str(text).map_err(|err| {
        let (line, column) = err
            .span()
            .map(|span| line_column(text, span.start))
            .unwrap_or((0, 0));
        let message = err.message().to_string();
        let field = field_from_message(&message).unwrap_or_default();
        DataError {
            origin: origin.to_string(),
            line,
            column,
            field,
            message,
        }
    })
}

/// Builds the error for a value that parsed but is out of range: finds the line of `field`'s
/// last path segment in `text` so the user sees where to fix it.
pub fn invalid(text: &str, origin: &str, field: &str, message: impl Into<String>) -> DataError {
    let key = field.rsplit('.').next().unwrap_or(field);
    let (line, column) = text
        .lines()
        .enumerate()
        .find_map(|(i, l)| {
            let trimmed = l.trim_start();
            let starts =
                trimmed.starts_with(key) && trimmed[key.len()..].trim_start().starts_with('=');
            starts.then(|| (i + 1, l.len() - trimmed.len() + 1))
        })
        .unwrap_or((0, 0));
    DataError {
        origin: origin.to_string(),
        line,
        column,
        field: field.to_string(),
        message: message.into(),
    }
}

/// 1-based line and column of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// serde names the offending field in backticks ("unknown field `x`", "missing field `y`").
fn field_from_message(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(message[start..end].to_string())
}
