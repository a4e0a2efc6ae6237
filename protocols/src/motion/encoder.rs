//! The frame encoders rigd can drive a motion controller with, behind one type, and the fixed
//! buffer they write into.
//!
//! [`Encoder::Template`] covers every SimTools / FlyPT-style controller; the knaufinator
//! binary frame (little-endian words and an XOR checksum) cannot be written as a template and
//! has its own variant. A [`FrameBuffer`] is a fixed array, so a frame can be encoded and
//! handed between threads without allocating.

use super::scaling::axis_to_counts;
use super::template::TemplateEncoder;

/// The longest frame any encoder may produce, bytes.
pub const MAX_FRAME_BYTES: usize = 256;

/// One encoded frame in a fixed array (no allocation; `Copy`).
#[derive(Clone, Copy)]
pub struct FrameBuffer {
    bytes: [u8; MAX_FRAME_BYTES],
    len: usize,
}

impl std::fmt::Debug for FrameBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FrameBuffer({:02X?})", self.as_bytes())
    }
}

impl Default for FrameBuffer {
    fn default() -> Self {
        FrameBuffer::new()
    }
}

impl FrameBuffer {
    /// An empty buffer.
    pub const fn new() -> FrameBuffer {
        FrameBuffer {
            bytes: [0; MAX_FRAME_BYTES],
            len: 0,
        }
    }

    /// Forgets the content.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Appends `data`; bytes past [`MAX_FRAME_BYTES`] are dropped (encoders check their
    /// maximum length when they are built, so this never happens for a valid encoder).
    pub fn extend(&mut self, data: &[u8]) {
        let n = data.len().min(MAX_FRAME_BYTES - self.len);
        self.bytes[self.len..self.len + n].copy_from_slice(&data[..n]);
        self.len += n;
    }

    /// The frame.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Frame length, bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A motion-controller frame encoder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Encoder {
    /// A SimTools / FlyPT template.
    Template(TemplateEncoder),
    /// knaufinator 6DOF binary frame: `0xAA 0x55`, six little-endian `u16` (surge, sway,
    /// heave, pitch, roll, yaw order is the firmware's; rigd sends actuator 1..6), then the
    /// XOR of bytes 2..=13. 15 bytes.
    KnaufinatorBinary {
        /// Value resolution, 8 ..= 16 bits (firmware default 12).
        bits: u8,
    },
}

impl Encoder {
    /// Length of the knaufinator binary frame, bytes.
    pub const KNAUFINATOR_FRAME_BYTES: usize = 15;

    /// The longest frame this encoder produces, bytes.
    pub fn max_frame_len(&self) -> usize {
        match self {
            Encoder::Template(t) => t.max_frame_len(),
            Encoder::KnaufinatorBinary { .. } => Self::KNAUFINATOR_FRAME_BYTES,
        }
    }

    /// Writes the frame for `axes` (normalised -1 ..= 1) into `out`, replacing its content.
    pub fn encode(&self, axes: &[f64], out: &mut FrameBuffer) {
        match self {
            Encoder::Template(t) => t.encode(axes, out),
            Encoder::KnaufinatorBinary { bits } => {
                out.clear();
                out.extend(&[0xAA, 0x55]);
                let mut checksum = 0u8;
                for i in 0..6 {
                    let p = axes.get(i).copied().unwrap_or(0.0);
                    let word = axis_to_counts(p, (*bits).clamp(8, 16)) as u16;
                    let bytes = word.to_le_bytes();
                    checksum ^= bytes[0] ^ bytes[1];
                    out.extend(&bytes);
                }
                out.extend(&[checksum]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knaufinator_binary_is_little_endian_with_xor() {
        let encoder = Encoder::KnaufinatorBinary { bits: 12 };
        let mut out = FrameBuffer::new();
        encoder.encode(&[0.0, 1.0, -1.0, 0.5, -0.5, 0.25], &mut out);
        let b = out.as_bytes();
        assert_eq!(b.len(), 15);
        assert_eq!(&b[..2], &[0xAA, 0x55]);
        assert_eq!(u16::from_le_bytes([b[2], b[3]]), 2047);
        assert_eq!(u16::from_le_bytes([b[4], b[5]]), 4095);
        assert_eq!(u16::from_le_bytes([b[6], b[7]]), 0);
        assert_eq!(u16::from_le_bytes([b[8], b[9]]), 3071);
        assert_eq!(b[14], b[2..14].iter().fold(0, |x, y| x ^ y));
    }

    #[test]
    fn buffer_never_overflows() {
        let mut out = FrameBuffer::new();
        out.extend(&[1; 200]);
        out.extend(&[2; 200]);
        assert_eq!(out.len(), MAX_FRAME_BYTES);
    }

    fn any_axis() -> impl proptest::strategy::Strategy<Value = f64> {
        use proptest::prelude::*;
        prop_oneof![
            any::<f64>(),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            -2.0..2.0f64,
        ]
    }

    proptest::proptest! {
        /// Whatever reaches the encoder (NaN, infinities, huge values), every encoded value
        /// stays inside the bit range and the frame keeps its length.
        #[test]
        fn encoded_values_always_in_range(axes in proptest::collection::vec(any_axis(), 0..8), bits in 7u8..=32) {
            let t = TemplateEncoder::new("[A<Axis1a>][B<Axis2a>][C<Axis3a>]", bits, super::super::NumberFormat::Binary).unwrap();
            let mut out = FrameBuffer::new();
            Encoder::Template(t.clone()).encode(&axes, &mut out);
            let width = usize::from(bits).div_ceil(8);
            proptest::prop_assert_eq!(out.len(), 3 * (width + 3));
            for k in 0..3 {
                let start = k * (width + 3) + 2;
                let mut word = [0u8; 4];
                word[4 - width..].copy_from_slice(&out.as_bytes()[start..start + width]);
                let value = u64::from(u32::from_be_bytes(word));
                proptest::prop_assert!(value < (1u64 << bits));
            }
            Encoder::KnaufinatorBinary { bits: 12 }.encode(&axes, &mut out);
            for k in 0..6 {
                let v = u16::from_le_bytes([out.as_bytes()[2 + 2 * k], out.as_bytes()[3 + 2 * k]]);
                proptest::prop_assert!(v <= 4095);
            }
        }
    }
}
