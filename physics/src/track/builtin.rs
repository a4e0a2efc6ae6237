//! The tracks shipped inside the binary: their documents are embedded at compile time and
//! built on request by name.

use super::Track;
use crate::data::DataError;

/// Names of the built-in tracks, in the order a user would pick them.
pub const BUILTIN_NAMES: [&str; 5] = ["circuit", "oval", "skidpad", "gravel", "corners"];

/// The document of built-in track `name`, if there is one.
pub fn builtin_text(name: &str) -> Option<&'static str> {
    match name {
        "circuit" => Some(include_str!("../../data/tracks/circuit.toml")),
        "oval" => Some(include_str!("../../data/tracks/oval.toml")),
        "skidpad" => Some(include_str!("../../data/tracks/skidpad.toml")),
        "gravel" => Some(include_str!("../../data/tracks/gravel.toml")),
        "corners" => Some(include_str!("../../data/tracks/corners.toml")),
        _ => None,
    }
}

/// Builds built-in track `name`; an unknown name is an error listing the known ones.
pub fn builtin(name: &str) -> Result<Track, DataError> {
    let text = builtin_text(name).ok_or_else(|| DataError {
        origin: format!("builtin:{name}"),
        line: 0,
        column: 0,
        field: "track".to_string(),
        message: format!(
            "no built-in track named {name:?}; choose one of {}",
            BUILTIN_NAMES.join(", ")
        ),
    })?;
    Track::from_toml(text, &format!("builtin:{name}"))
}
