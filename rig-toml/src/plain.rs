//! Plain words for what serde, the TOML parser and the file system say about rigd's files, so
//! a user reads "expected a whole number from 0 to 4294967295, found the text "fast"" instead
//! of serde's `invalid type: string "fast", expected u32`, and "`always` is not one of off,
//! dma-latency or rt-core" instead of a list in Rust syntax.
//!
//! serde's messages come in a few fixed forms (`invalid type: ..., expected ...`, `invalid
//! value: ...`, `unknown field ...`, `unknown variant ...`); [`plain_words`] rewrites those and
//! returns any other message (rigd's own validation, the TOML parser's syntax errors)
//! unchanged. [`io_words`] says why a file could not be read without the `(os error 2)`.
//!
//! ```
//! use rig_toml::plain::plain_words;
//! assert_eq!(
//!     plain_words("invalid type: string \"fast\", expected u32"),
//!     "expected a whole number from 0 to 4294967295, found the text \"fast\""
//! );
//! assert_eq!(
//!     plain_words("unknown variant `hovercraft`, expected one of `road`, `race`, `rally`"),
//!     "\"hovercraft\" is not one of road, race or rally"
//! );
//! ```

use std::io::ErrorKind;

/// `message`, a serde or TOML parser message about one value, in plain words: Rust type names
/// become what a user writes and lists become a sentence. Other messages come back unchanged.
pub fn plain_words(message: &str) -> String {
    let message = message.trim();
    if let Some((found, expected)) = message
        .strip_prefix("invalid type: ")
        .and_then(|rest| rest.rsplit_once(", expected "))
    {
        return format!(
            "expected {}, found {}",
            expected_words(expected),
            found_words(found)
        );
    }
    if let Some((found, expected)) = message
        .strip_prefix("invalid value: ")
        .and_then(|rest| rest.rsplit_once(", expected "))
    {
        return format!("{} is not {}", value_words(found), expected_words(expected));
    }
    if let Some((key, accepted)) = message
        .strip_prefix("unknown field ")
        .and_then(quoted_and_rest)
    {
        let keys = backticked(accepted);
        let here = match keys.as_slice() {
            [] => "this table takes no keys".to_string(),
            [only] => format!("the only key here is {only}"),
            _ => format!("the keys here are {}", list(&keys, "and")),
        };
        return format!("unknown field `{key}`; {here}");
    }
    if let Some((value, accepted)) = message
        .strip_prefix("unknown variant ")
        .and_then(quoted_and_rest)
    {
        let values = backticked(accepted);
        let accepted = match values.as_slice() {
            [] => "an accepted value".to_string(),
            [only] => format!("{only}, the one accepted value"),
            _ => format!("one of {}", list(&values, "or")),
        };
        return format!("\"{value}\" is not {accepted}");
    }
    if let Some((length, expected)) = message
        .strip_prefix("invalid length ")
        .and_then(|rest| rest.split_once(", expected "))
    {
        return format!("{length} items, expected {}", expected_words(expected));
    }
    if message == "wanted string or table" {
        return "expected a name in quotes".to_string();
    }
    message.to_string()
}

/// Why a file could not be read, to follow its path: `does not exist`, `cannot be read:
/// permission denied`, ... (never an OS error number).
pub fn io_words(error: &std::io::Error) -> String {
    match error.kind() {
        ErrorKind::NotFound => "does not exist".to_string(),
        ErrorKind::PermissionDenied => "cannot be read: permission denied".to_string(),
        ErrorKind::IsADirectory => "is a directory, not a file".to_string(),
        ErrorKind::InvalidData => "is not text (it is not valid UTF-8)".to_string(),
        _ => {
            let text = error.to_string();
            let text = match text.find(" (os error ") {
                Some(cut) => text[..cut].to_string(),
                None => text,
            };
            format!("cannot be read: {}", text.to_lowercase())
        }
    }
}

/// What serde's `expected ...` part means for someone writing TOML.
fn expected_words(expected: &str) -> String {
    let whole = |min: &str, max: &str| format!("a whole number from {min} to {max}");
    match expected {
        "u8" => whole("0", "255"),
        "u16" => whole("0", "65535"),
        "u32" => whole("0", "4294967295"),
        "u64" | "usize" => whole("0", "18446744073709551615"),
        "i8" => whole("-128", "127"),
        "i16" => whole("-32768", "32767"),
        "i32" => whole("-2147483648", "2147483647"),
        "i64" | "isize" => whole("-9223372036854775808", "9223372036854775807"),
        "f32" | "f64" => "a number".to_string(),
        "a boolean" | "bool" => "true or false".to_string(),
        "a string" | "a borrowed string" | "string" => "text in quotes".to_string(),
        "a character" | "char" => "a single character in quotes".to_string(),
        "a sequence" | "sequence" => "a list in square brackets".to_string(),
        "a map" | "map" => "a table".to_string(),
        other if other.starts_with("struct ") => "a table".to_string(),
        other if other.starts_with("enum ") => "one of the accepted names in quotes".to_string(),
        other => other.to_string(),
    }
}

/// serde's description of the value found (`string "x"`, ``integer `5` ``, `map`).
fn found_words(found: &str) -> String {
    if let Some(text) = found.strip_prefix("string ") {
        return format!("the text {text}");
    }
    for prefix in ["integer ", "floating point "] {
        if let Some(number) = found.strip_prefix(prefix) {
            return format!("the number {}", number.trim_matches('`'));
        }
    }
    if let Some(flag) = found.strip_prefix("boolean ") {
        return flag.trim_matches('`').to_string();
    }
    if let Some(character) = found.strip_prefix("character ") {
        return format!("the character '{}'", character.trim_matches('`'));
    }
    match found {
        "sequence" => "a list".to_string(),
        "map" => "a table".to_string(),
        "unit value" => "nothing".to_string(),
        other => other.to_string(),
    }
}

/// The value itself where serde quotes one (`-1`, `"x"`, `true`), else [`found_words`].
fn value_words(found: &str) -> String {
    for prefix in ["integer ", "floating point ", "boolean "] {
        if let Some(value) = found.strip_prefix(prefix) {
            return value.trim_matches('`').to_string();
        }
    }
    match found.strip_prefix("string ") {
        Some(text) => text.to_string(),
        None => found_words(found),
    }
}

/// `` `name`, rest `` -> (`name`, `rest`).
fn quoted_and_rest(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('`')?;
    let end = inner.find('`')?;
    Some((
        &inner[..end],
        inner[end + 1..].trim_start_matches(',').trim(),
    ))
}

/// Every name between backticks in `text` (serde's `expected one of `a`, `b``).
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// `a`, `a and b`, `a, b and c` (with `or` for alternatives).
fn list(items: &[&str], last_joint: &str) -> String {
    match items {
        [] => String::new(),
        [only] => only.to_string(),
        [rest @ .., last] => format!("{} {last_joint} {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_errors_name_what_a_user_writes() {
        for (serde, plain) in [
            (
                "invalid type: string \"fast\", expected u32",
                "expected a whole number from 0 to 4294967295, found the text \"fast\"",
            ),
            (
                "invalid type: floating point `1.5`, expected u8",
                "expected a whole number from 0 to 255, found the number 1.5",
            ),
            (
                "invalid type: integer `1`, expected a boolean",
                "expected true or false, found the number 1",
            ),
            (
                "invalid type: integer `3`, expected struct LoopConfig",
                "expected a table, found the number 3",
            ),
            (
                "invalid type: string \"127.0.0.1:3\", expected a sequence",
                "expected a list in square brackets, found the text \"127.0.0.1:3\"",
            ),
            (
                "invalid type: map, expected a string",
                "expected text in quotes, found a table",
            ),
            (
                "invalid type: boolean `true`, expected f64",
                "expected a number, found true",
            ),
        ] {
            assert_eq!(plain_words(serde), plain, "{serde}");
        }
    }

    #[test]
    fn values_out_of_a_type_s_range_are_said_with_the_range() {
        assert_eq!(
            plain_words("invalid value: integer `-1`, expected u32"),
            "-1 is not a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain_words("invalid value: integer `300`, expected u8"),
            "300 is not a whole number from 0 to 255"
        );
    }

    #[test]
    fn keys_and_values_are_listed_as_a_sentence() {
        assert_eq!(
            plain_words("unknown field `colour`, expected one of `car`, `track`, `robots`"),
            "unknown field `colour`; the keys here are car, track and robots"
        );
        assert_eq!(
            plain_words("unknown field `x`, expected `only`"),
            "unknown field `x`; the only key here is only"
        );
        assert_eq!(
            plain_words("unknown field `x`, there are no fields"),
            "unknown field `x`; this table takes no keys"
        );
        assert_eq!(
            plain_words(
                "unknown variant `always`, expected one of `off`, `dma-latency`, `rt-core`"
            ),
            "\"always\" is not one of off, dma-latency or rt-core"
        );
        assert_eq!(
            plain_words("unknown variant `x`, expected `a` or `b`"),
            "\"x\" is not one of a or b"
        );
    }

    #[test]
    fn other_messages_are_left_as_they_are() {
        for own in [
            "5 is outside the allowed range 100 ..= 2000",
            "expected a value between 0 and 0.18",
            "invalid type: something new",
            "missing field `format`",
        ] {
            assert_eq!(plain_words(own), own);
        }
    }

    #[test]
    fn file_errors_carry_no_os_error_numbers() {
        let missing = std::fs::read_to_string("/nonexistent/rigd.toml").unwrap_err();
        assert_eq!(io_words(&missing), "does not exist");
        let directory = std::fs::read_to_string("/").unwrap_err();
        assert_eq!(io_words(&directory), "is a directory, not a file");
        // EIO on Linux: said in words, without its number.
        let other = std::io::Error::from_raw_os_error(5);
        let words = io_words(&other);
        assert!(
            words.starts_with("cannot be read: ") && !words.contains("os error"),
            "{words}"
        );
    }
}
