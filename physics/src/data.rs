//! Loading car and track documents: TOML text -> validated specs, with errors that name the
//! document, line, column and field, and say what was expected.
//!
//! Every line and column comes from the TOML parser's spans: a syntax or serde error carries
//! its own span; a value that parsed but is out of range is placed with [`rig_toml::Places`],
//! which finds the field however it is written (under its table header, as a dotted key, in
//! an inline table, in the n-th `[[array]]` element). The document is parsed once to build the
//! spec; only an error re-reads it for the field's place.

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
            .map(|span| rig_toml::line_column(text, span.start))
            .unwrap_or((0, 0));
        let field = field_from_message(err.message()).unwrap_or_default();
        // serde's wording (`expected f64`) said in plain words.
        let message = rig_toml::plain::plain_words(err.message());
        DataError {
            origin: origin.to_string(),
            line,
            column,
            field,
            message,
        }
    })
}

/// Builds the error for `field` (dotted path, `piece[3].radius_m`), a value that parsed but is
/// unusable: it points at the field's key in `text`, or at the nearest enclosing table or
/// array element written there when the field is not (0:0 when nothing on its path is).
///
/// A part of a car validated as a document of its own (a drivetrain table alone, as its tests
/// do) still names its fields from the car's root (`drivetrain.engine.idle_rpm`): when nothing
/// of that path is written, it is looked up relative to each table it lies in
/// (`engine.idle_rpm`, then `idle_rpm`).
pub fn invalid(text: &str, origin: &str, field: &str, message: impl Into<String>) -> DataError {
    let places = rig_toml::Places::parse(text);
    let (line, column) = std::iter::once(field)
        .chain(field.match_indices('.').map(|(dot, _)| &field[dot + 1..]))
        .find_map(|path| places.position(text, path))
        .unwrap_or((0, 0));
    DataError {
        origin: origin.to_string(),
        line,
        column,
        field: field.to_string(),
        message: message.into(),
    }
}

/// serde names the offending field in backticks ("unknown field `x`", "missing field `y`").
fn field_from_message(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(message[start..end].to_string())
}
