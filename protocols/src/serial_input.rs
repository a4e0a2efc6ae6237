//! The line protocol of DIY serial input devices (Arduino handbrakes, H-pattern shifters,
//! button boxes), documented for builders in `docs/serial-input.md`.
//!
//! One ASCII message per line, `\n` or `\r\n` terminated, at most [`MAX_LINE_BYTES`] bytes:
//! - `<L> <raw>`: axis named by the upper-case letter `L` (any of `A`..`Z` except `B` and `G`)
//!   at raw integer position `raw` (0 ..= 65535), e.g. `H 512`;
//! - `G <gear>`: the shifter is in gear `gear` (-1 reverse, 0 neutral, 1 ..= 9), e.g. `G 3`;
//! - `B <n> <state>`: button `n` (0 ..= 63) is released (0) or pressed (1), e.g. `B 4 1`;
//! - `# ...`: a comment (firmware banners), ignored;
//! - an empty line is ignored.
//!
//! Anything else is garbage: the parser says why, and the reader counts and drops it. The
//! [`LineSplitter`] works in a fixed buffer, so a device streaming noise cannot make rigd
//! allocate or grow without bound.

use thiserror::Error;

/// Longest accepted line, bytes (without the terminator).
pub const MAX_LINE_BYTES: usize = 64;
/// Highest button number.
pub const MAX_BUTTON: u8 = 63;

/// One decoded line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputMessage {
    /// Axis `name` (an upper-case ASCII letter) at raw position `raw`.
    Axis {
        /// Axis letter.
        name: u8,
        /// Raw position.
        raw: u16,
    },
    /// The shifter's gear (-1 reverse, 0 neutral, 1 ..= 9).
    Gear(i8),
    /// Button `index` is pressed (`true`) or released.
    Button {
        /// Button number, 0 ..= 63.
        index: u8,
        /// Pressed.
        pressed: bool,
    },
    /// A comment or empty line (nothing to do).
    Nothing,
}

/// Why a line is garbage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum LineError {
    /// The line was longer than [`MAX_LINE_BYTES`].
    #[error("line longer than {MAX_LINE_BYTES} bytes")]
    TooLong,
    /// The first character names no message.
    #[error("unknown message letter (expected an axis letter, G or B)")]
    UnknownKind,
    /// A number is missing, malformed or out of range.
    #[error("bad or out-of-range number")]
    BadNumber,
    /// Extra or missing fields.
    #[error("wrong number of fields")]
    Fields,
}

fn number<T: std::str::FromStr>(field: Option<&str>) -> Result<T, LineError> {
    field
        .ok_or(LineError::Fields)?
        .parse()
        .map_err(|_| LineError::BadNumber)
}

/// Decodes one line (without its terminator; a trailing `\r` and surrounding spaces are
/// tolerated).
pub fn parse_line(line: &[u8]) -> Result<InputMessage, LineError> {
    if line.len() > MAX_LINE_BYTES {
        return Err(LineError::TooLong);
    }
    let text = std::str::from_utf8(line).map_err(|_| LineError::UnknownKind)?;
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(InputMessage::Nothing);
    }
    let mut fields = text.split_ascii_whitespace();
    let kind = fields.next().ok_or(LineError::Fields)?;
    let message = match kind.as_bytes() {
        [b'G'] => {
            let gear: i8 = number(fields.next())?;
            if !(-1..=9).contains(&gear) {
                return Err(LineError::BadNumber);
            }
            InputMessage::Gear(gear)
        }
        [b'B'] => {
            let index: u8 = number(fields.next())?;
            let state: u8 = number(fields.next())?;
            if index > MAX_BUTTON || state > 1 {
                return Err(LineError::BadNumber);
            }
            InputMessage::Button {
                index,
                pressed: state == 1,
            }
        }
        [letter] if letter.is_ascii_uppercase() => InputMessage::Axis {
            name: *letter,
            raw: number(fields.next())?,
        },
        _ => return Err(LineError::UnknownKind),
    };
    if fields.next().is_some() {
        return Err(LineError::Fields);
    }
    Ok(message)
}

/// Splits a byte stream into lines in a fixed buffer; an over-long line is reported once as
/// [`LineError::TooLong`] and skipped up to its terminator.
#[derive(Debug, Clone)]
pub struct LineSplitter {
    buffer: [u8; MAX_LINE_BYTES],
    len: usize,
    overflowed: bool,
}

impl Default for LineSplitter {
    fn default() -> Self {
        LineSplitter::new()
    }
}

impl LineSplitter {
    /// An empty splitter.
    pub const fn new() -> LineSplitter {
        LineSplitter {
            buffer: [0; MAX_LINE_BYTES],
            len: 0,
            overflowed: false,
        }
    }

    /// Forgets a partial line (after the device reconnects).
    pub fn reset(&mut self) {
        self.len = 0;
        self.overflowed = false;
    }

    /// Feeds `bytes`; calls `each` with the result of every completed line.
    pub fn feed(&mut self, bytes: &[u8], mut each: impl FnMut(Result<InputMessage, LineError>)) {
        for &b in bytes {
            if b == b'\n' {
                if self.overflowed {
                    each(Err(LineError::TooLong));
                } else {
                    each(parse_line(&self.buffer[..self.len]));
                }
                self.reset();
            } else if self.len < MAX_LINE_BYTES {
                self.buffer[self.len] = b;
                self.len += 1;
            } else {
                self.overflowed = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn documented_examples() {
        assert_eq!(
            parse_line(b"H 512"),
            Ok(InputMessage::Axis {
                name: b'H',
                raw: 512
            })
        );
        assert_eq!(parse_line(b"G 3\r"), Ok(InputMessage::Gear(3)));
        assert_eq!(parse_line(b"G -1"), Ok(InputMessage::Gear(-1)));
        assert_eq!(
            parse_line(b"B 4 1"),
            Ok(InputMessage::Button {
                index: 4,
                pressed: true
            })
        );
        assert_eq!(parse_line(b"# handbrake v1.2"), Ok(InputMessage::Nothing));
        assert_eq!(parse_line(b""), Ok(InputMessage::Nothing));
    }

    #[test]
    fn garbage_is_refused() {
        assert_eq!(parse_line(b"G 10"), Err(LineError::BadNumber));
        assert_eq!(parse_line(b"H 70000"), Err(LineError::BadNumber));
        assert_eq!(parse_line(b"H"), Err(LineError::Fields));
        assert_eq!(parse_line(b"H 1 2"), Err(LineError::Fields));
        assert_eq!(parse_line(b"B 64 1"), Err(LineError::BadNumber));
        assert_eq!(parse_line(b"B 3 2"), Err(LineError::BadNumber));
        assert_eq!(parse_line(b"h 5"), Err(LineError::UnknownKind));
        assert_eq!(parse_line(b"\xff\xfe"), Err(LineError::UnknownKind));
    }

    #[test]
    fn splitter_handles_partial_and_long_lines() {
        let mut s = LineSplitter::new();
        let mut got = Vec::new();
        s.feed(b"H 5", |m| got.push(m));
        s.feed(b"12\nG 2\n", |m| got.push(m));
        let long = [b'x'; 100];
        s.feed(&long, |m| got.push(m));
        s.feed(b"\nB 1 0\n", |m| got.push(m));
        assert_eq!(
            got,
            vec![
                Ok(InputMessage::Axis {
                    name: b'H',
                    raw: 512
                }),
                Ok(InputMessage::Gear(2)),
                Err(LineError::TooLong),
                Ok(InputMessage::Button {
                    index: 1,
                    pressed: false
                }),
            ]
        );
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut s = LineSplitter::new();
            let mut lines = 0usize;
            s.feed(&bytes, |_| lines += 1);
            prop_assert_eq!(lines, bytes.iter().filter(|&&b| b == b'\n').count());
            let _ = parse_line(&bytes);
        }

        #[test]
        fn valid_lines_round_trip(letter in "[ACD-FH-Z]", raw in any::<u16>(), gear in -1i8..=9, button in 0u8..=63, pressed: bool) {
            let line = format!("{letter} {raw}");
            prop_assert_eq!(parse_line(line.as_bytes()), Ok(InputMessage::Axis { name: letter.as_bytes()[0], raw }));
            let line = format!("G {gear}");
            prop_assert_eq!(parse_line(line.as_bytes()), Ok(InputMessage::Gear(gear)));
            let line = format!("B {button} {}", u8::from(pressed));
            prop_assert_eq!(parse_line(line.as_bytes()), Ok(InputMessage::Button { index: button, pressed }));
        }
    }
}
