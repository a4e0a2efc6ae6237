//! SimTools / FlyPT Mover style byte templates: a user-written string such as
//! `[A<Axis1a>][B<Axis2a>][C<Axis3a>]` where `<AxisNs>` (N = 1..6, set s = a, b, c) is replaced
//! by the value of axis `(s * 6) + N - 1` and `<0>` .. `<255>` by that single raw byte. Any
//! other character, including a `<` that starts no placeholder, is sent as written.
//!
//! Axis values are written as binary big-endian (1 to 4 bytes by bit depth, most significant
//! first), ASCII decimal or ASCII uppercase hex (variable length, no padding).
//!
//! The template is parsed once; [`TemplateEncoder::encode`] then runs without allocating.

use thiserror::Error;

use super::encoder::FrameBuffer;
use super::scaling::{axis_to_counts, MAX_BITS, MIN_BITS};

/// Axes a template can address: `<Axis1a>` .. `<Axis6c>`.
pub const MAX_AXES: usize = 18;

/// How an axis value is written into the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberFormat {
    /// Big-endian bytes, 1 byte up to 8 bits, 2 up to 16, 3 up to 24, 4 up to 32.
    Binary,
    /// ASCII decimal digits, no padding.
    Decimal,
    /// ASCII uppercase hexadecimal digits, no padding.
    Hex,
}

/// A template that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TemplateError {
    /// The bit depth is outside 7 ..= 32.
    #[error("output bits {0} is outside 7..=32: set bits to a value between 7 and 32 (SMC3 uses 10, most 16)")]
    Bits(u8),
    /// The template never mentions an axis.
    #[error(
        "the frame template has no <AxisNa> placeholder: add one per actuator, e.g. [A<Axis1a>]"
    )]
    NoAxis,
    /// The longest frame the template can produce does not fit the frame buffer.
    #[error("the frame template can produce {0} bytes, more than the {max} byte limit: shorten it", max = super::encoder::MAX_FRAME_BYTES)]
    TooLong(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Segment {
    /// `len` bytes of `literal` starting at `start`.
    Literal { start: usize, len: usize },
    /// Axis value number `index`.
    Axis { index: usize },
}

enum Token {
    Byte(u8),
    Axis(usize),
}

/// Reads the placeholder or escape starting at `s[0] == b'<'`, with its length in bytes.
fn placeholder(s: &[u8]) -> Option<(Token, usize)> {
    let close = s.iter().position(|&b| b == b'>')?;
    let inner = std::str::from_utf8(&s[1..close]).ok()?;
    if let Some(rest) = inner.strip_prefix("Axis") {
        let bytes = rest.as_bytes();
        if bytes.len() == 2 && (b'1'..=b'6').contains(&bytes[0]) {
            let set = match bytes[1] {
                b'a' => 0,
                b'b' => 1,
                b'c' => 2,
                _ => return None,
            };
            return Some((
                Token::Axis(set * 6 + usize::from(bytes[0] - b'1')),
                close + 1,
            ));
        }
        return None;
    }
    if !inner.is_empty() && inner.len() <= 3 && inner.bytes().all(|b| b.is_ascii_digit()) {
        let value: u16 = inner.parse().ok()?;
        return u8::try_from(value)
            .ok()
            .map(|b| (Token::Byte(b), close + 1));
    }
    None
}

fn tokens(text: &str, mut each: impl FnMut(Token)) {
    let s = text.as_bytes();
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'<' {
            if let Some((token, len)) = placeholder(&s[i..]) {
                each(token);
                i += len;
                continue;
            }
        }
        each(Token::Byte(s[i]));
        i += 1;
    }
}

/// Replaces `<0>` .. `<255>` escapes in a start or stop string by their raw bytes (axis
/// placeholders have no meaning there and are kept as text).
pub fn parse_escapes(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let s = text.as_bytes();
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'<' {
            if let Some((Token::Byte(b), len)) = placeholder(&s[i..]) {
                out.push(b);
                i += len;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

/// A parsed template with its number format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateEncoder {
    literal: Vec<u8>,
    segments: Vec<Segment>,
    bits: u8,
    format: NumberFormat,
    axes_used: usize,
}

impl TemplateEncoder {
    /// Parses `template` for values of `bits` bits written as `format`.
    pub fn new(template: &str, bits: u8, format: NumberFormat) -> Result<Self, TemplateError> {
        if !(MIN_BITS..=MAX_BITS).contains(&bits) {
            return Err(TemplateError::Bits(bits));
        }
        let mut literal = Vec::new();
        let mut segments = Vec::new();
        let mut axes_used = 0;
        tokens(template, |token| match token {
            Token::Byte(b) => {
                literal.push(b);
                match segments.last_mut() {
                    Some(Segment::Literal { len, .. }) => *len += 1,
                    _ => segments.push(Segment::Literal {
                        start: literal.len() - 1,
                        len: 1,
                    }),
                }
            }
            Token::Axis(index) => {
                axes_used = axes_used.max(index + 1);
                segments.push(Segment::Axis { index });
            }
        });
        if axes_used == 0 {
            return Err(TemplateError::NoAxis);
        }
        let encoder = TemplateEncoder {
            literal,
            segments,
            bits,
            format,
            axes_used,
        };
        let max = encoder.max_frame_len();
        if max > super::encoder::MAX_FRAME_BYTES {
            return Err(TemplateError::TooLong(max));
        }
        Ok(encoder)
    }

    /// Bit depth of the axis values.
    pub fn bits(&self) -> u8 {
        self.bits
    }

    /// One more than the highest axis index the template mentions.
    pub fn axes_used(&self) -> usize {
        self.axes_used
    }

    /// True when the template has a placeholder for axis `index` (0-based: `<Axis1a>` is 0).
    pub fn mentions_axis(&self, index: usize) -> bool {
        self.segments
            .iter()
            .any(|s| matches!(s, Segment::Axis { index: i } if *i == index))
    }

    /// Bytes one axis value takes at most.
    fn max_value_len(&self) -> usize {
        let max = (1u64 << self.bits) - 1;
        match self.format {
            NumberFormat::Binary => usize::from(self.bits).div_ceil(8),
            NumberFormat::Decimal => max.to_string().len(),
            NumberFormat::Hex => format!("{max:X}").len(),
        }
    }

    /// The longest frame this template can produce, bytes (the serial budget uses it).
    pub fn max_frame_len(&self) -> usize {
        let value_len = self.max_value_len();
        self.segments
            .iter()
            .map(|s| match s {
                Segment::Literal { len, .. } => *len,
                Segment::Axis { .. } => value_len,
            })
            .sum()
    }

    /// Writes one frame for `axes` (normalised -1 ..= 1; missing axes are sent at centre,
    /// non-finite ones at centre, out-of-range ones clamped) into `out`, replacing its content.
    pub fn encode(&self, axes: &[f64], out: &mut FrameBuffer) {
        out.clear();
        for segment in &self.segments {
            match *segment {
                Segment::Literal { start, len } => out.extend(&self.literal[start..start + len]),
                Segment::Axis { index } => {
                    let p = axes.get(index).copied().unwrap_or(0.0);
                    self.write_value(axis_to_counts(p, self.bits), out);
                }
            }
        }
    }

    fn write_value(&self, value: u32, out: &mut FrameBuffer) {
        match self.format {
            NumberFormat::Binary => {
                let width = usize::from(self.bits).div_ceil(8);
                out.extend(&value.to_be_bytes()[4 - width..]);
            }
            NumberFormat::Decimal => write_digits(value, 10, out),
            NumberFormat::Hex => write_digits(value, 16, out),
        }
    }
}

fn write_digits(mut value: u32, radix: u32, out: &mut FrameBuffer) {
    let mut digits = [0u8; 10];
    let mut n = 0;
    loop {
        let d = (value % radix) as u8;
        digits[n] = if d < 10 { b'0' + d } else { b'A' + d - 10 };
        n += 1;
        value /= radix;
        if value == 0 {
            break;
        }
    }
    digits[..n].reverse();
    out.extend(&digits[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentioned_axes_are_the_placeholders() {
        let t = TemplateEncoder::new("[A<Axis4a>][B<Axis6a>]<Axis1b>", 10, NumberFormat::Binary)
            .unwrap();
        let mentioned: Vec<usize> = (0..18).filter(|&i| t.mentions_axis(i)).collect();
        assert_eq!(mentioned, [3, 5, 6]);
        assert_eq!(t.axes_used(), 7);
    }

    fn encode(template: &str, bits: u8, format: NumberFormat, axes: &[f64]) -> Vec<u8> {
        let encoder = TemplateEncoder::new(template, bits, format).unwrap();
        let mut out = FrameBuffer::new();
        encoder.encode(axes, &mut out);
        out.as_bytes().to_vec()
    }

    #[test]
    fn smc3_centre_frame() {
        let frame = encode("[A<Axis1a>]", 10, NumberFormat::Binary, &[0.0]);
        assert_eq!(frame, [0x5B, 0x41, 0x01, 0xFF, 0x5D]);
    }

    #[test]
    fn sixteen_bit_centre_is_7fff() {
        assert_eq!(
            encode("<Axis1a>", 16, NumberFormat::Binary, &[0.0]),
            [0x7F, 0xFF]
        );
    }

    #[test]
    fn binary_widths_follow_bit_depth() {
        for (bits, width) in [
            (7, 1),
            (8, 1),
            (9, 2),
            (16, 2),
            (17, 3),
            (24, 3),
            (25, 4),
            (32, 4),
        ] {
            assert_eq!(
                encode("<Axis1a>", bits, NumberFormat::Binary, &[1.0]).len(),
                width
            );
        }
        assert_eq!(
            encode("<Axis1a>", 24, NumberFormat::Binary, &[0.0]),
            [0x7F, 0xFF, 0xFF]
        );
    }

    #[test]
    fn escapes_become_single_bytes() {
        assert_eq!(
            encode("<255><Axis1a><0>", 8, NumberFormat::Binary, &[1.0]),
            [255, 255, 0]
        );
        assert_eq!(parse_escapes("<255><255>S"), [255, 255, b'S']);
        assert_eq!(parse_escapes("a<256>b<x>"), b"a<256>b<x>");
    }

    #[test]
    fn decimal_and_hex_are_variable_length() {
        let t = "<Axis1a>,<Axis2a>X";
        assert_eq!(
            encode(t, 12, NumberFormat::Decimal, &[-1.0, 1.0]),
            b"0,4095X"
        );
        assert_eq!(
            encode(t, 12, NumberFormat::Decimal, &[0.0, 0.5]),
            b"2047,3071X"
        );
        assert_eq!(encode(t, 12, NumberFormat::Hex, &[-1.0, 1.0]), b"0,FFFX");
        assert_eq!(encode(t, 16, NumberFormat::Hex, &[0.0, 0.0]), b"7FFF,7FFFX");
        let encoder = TemplateEncoder::new(t, 12, NumberFormat::Decimal).unwrap();
        assert_eq!(encoder.max_frame_len(), 10);
    }

    #[test]
    fn sets_b_and_c_address_later_axes() {
        let mut axes = [0.0; 18];
        axes[6] = 1.0;
        axes[17] = -1.0;
        assert_eq!(
            encode("<Axis1b><Axis6c><Axis1a>", 8, NumberFormat::Binary, &axes),
            [255, 0, 127]
        );
    }

    #[test]
    fn bad_templates_are_refused_with_a_fix() {
        let err = TemplateEncoder::new("[A]", 10, NumberFormat::Binary).unwrap_err();
        assert!(err.to_string().contains("<AxisNa>"));
        let err = TemplateEncoder::new("<Axis1a>", 6, NumberFormat::Binary).unwrap_err();
        assert_eq!(err, TemplateError::Bits(6));
        let long = "x".repeat(300) + "<Axis1a>";
        assert!(matches!(
            TemplateEncoder::new(&long, 8, NumberFormat::Binary),
            Err(TemplateError::TooLong(301))
        ));
    }
}
