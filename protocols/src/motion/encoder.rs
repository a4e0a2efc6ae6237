//! The frame encoders rigd can drive a motion controller with, behind one type, and the fixed
//! buffer they write into.
//!
//! [`Encoder::Template`] covers every SimTools / FlyPT-style controller; the knaufinator
//! binary frame (little-endian words and an XOR checksum) cannot be written as a template and
//! has its own variant, and so does the Motion4Sim position frame, which carries the platform
//! pose in physical units (floats) instead of actuator positions: the controller does the
//! inverse kinematics. A [`FrameBuffer`] is a fixed array, so a frame can be encoded and
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

/// The values one frame is made of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameValues<'a> {
    /// Actuator positions, normalised -1 ..= 1 (actuator frames).
    pub axes: &'a [f64],
    /// Platform pose `[surge, sway, heave]` m and `[roll, pitch, yaw]` rad, in rigd's
    /// convention (x forward, y left, z up; roll lifts the left side, pitch lowers the nose,
    /// yaw turns the nose left). Only pose frames ([`Encoder::uses_pose`]) read it.
    pub pose: [f64; 6],
}

impl<'a> FrameValues<'a> {
    /// Actuator positions only (pose at neutral), for actuator frames.
    pub fn actuators(axes: &'a [f64]) -> FrameValues<'a> {
        FrameValues {
            axes,
            pose: [0.0; 6],
        }
    }
}

/// The kinds of frame rigd can write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// A SimTools / FlyPT template.
    Template,
    /// The knaufinator 6DOF binary frame.
    KnaufinatorBinary,
    /// The Motion4Sim position-mode frame.
    Motion4SimPosition,
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
    /// Motion4Sim "position mode": `FC FC`, eight 4-byte slots, `0A 0D` (36 bytes). Slots:
    /// f32 sway, surge, heave (mm), yaw, roll, pitch (deg), then a u32 belt slot and a
    /// filler, both sent as 0. Floats are little-endian IEEE 754 (the vendor page does not
    /// state the byte order; little-endian is the controller's native order and the
    /// reference's best guess). Values keep rigd's signs; a non-finite value is sent as 0 and
    /// magnitudes are capped at [`Encoder::M4S_MAX_MM`] / [`Encoder::M4S_MAX_DEG`].
    Motion4SimPosition,
}

impl Encoder {
    /// Length of the knaufinator binary frame, bytes.
    pub const KNAUFINATOR_FRAME_BYTES: usize = 15;
    /// Length of the Motion4Sim position frame, bytes.
    pub const M4S_POSITION_FRAME_BYTES: usize = 36;
    /// Largest translation a Motion4Sim position frame carries, mm.
    pub const M4S_MAX_MM: f64 = 1000.0;
    /// Largest rotation a Motion4Sim position frame carries, degrees.
    pub const M4S_MAX_DEG: f64 = 180.0;

    /// Which kind of frame this is.
    pub fn kind(&self) -> FrameKind {
        match self {
            Encoder::Template(_) => FrameKind::Template,
            Encoder::KnaufinatorBinary { .. } => FrameKind::KnaufinatorBinary,
            Encoder::Motion4SimPosition => FrameKind::Motion4SimPosition,
        }
    }

    /// True when the frame carries the platform pose (the writer must supply
    /// [`FrameValues::pose`]) rather than actuator positions.
    pub fn uses_pose(&self) -> bool {
        self.kind() == FrameKind::Motion4SimPosition
    }

    /// The longest frame this encoder produces, bytes.
    pub fn max_frame_len(&self) -> usize {
        match self {
            Encoder::Template(t) => t.max_frame_len(),
            Encoder::KnaufinatorBinary { .. } => Self::KNAUFINATOR_FRAME_BYTES,
            Encoder::Motion4SimPosition => Self::M4S_POSITION_FRAME_BYTES,
        }
    }

    /// Writes the frame for `values` into `out`, replacing its content.
    pub fn encode(&self, values: &FrameValues<'_>, out: &mut FrameBuffer) {
        let axes = values.axes;
        match self {
            Encoder::Template(t) => t.encode(axes, out),
            Encoder::Motion4SimPosition => {
                out.clear();
                out.extend(&[0xFC, 0xFC]);
                let [surge, sway, heave, roll, pitch, yaw] = values.pose;
                let mm = |m: f64| capped(m * 1000.0, Self::M4S_MAX_MM);
                let deg = |rad: f64| capped(rad.to_degrees(), Self::M4S_MAX_DEG);
                for value in [
                    mm(sway),
                    mm(surge),
                    mm(heave),
                    deg(yaw),
                    deg(roll),
                    deg(pitch),
                ] {
                    out.extend(&value.to_le_bytes());
                }
                // Belt actuator slot (unused) and filler.
                out.extend(&[0; 8]);
                out.extend(&[0x0A, 0x0D]);
            }
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

/// `value` as f32, capped at `±limit`; a non-finite value becomes 0.
fn capped(value: f64, limit: f64) -> f32 {
    if value.is_finite() {
        value.clamp(-limit, limit) as f32
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knaufinator_binary_is_little_endian_with_xor() {
        let encoder = Encoder::KnaufinatorBinary { bits: 12 };
        let mut out = FrameBuffer::new();
        encoder.encode(
            &FrameValues::actuators(&[0.0, 1.0, -1.0, 0.5, -0.5, 0.25]),
            &mut out,
        );
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
    fn motion4sim_position_frame_golden_bytes() {
        // surge 10 mm, sway -20 mm, heave 5 mm, roll 2 deg, pitch -3 deg, yaw 1.5 deg.
        let pose = [
            0.010,
            -0.020,
            0.005,
            2f64.to_radians(),
            (-3f64).to_radians(),
            1.5f64.to_radians(),
        ];
        let mut out = FrameBuffer::new();
        Encoder::Motion4SimPosition.encode(&FrameValues { axes: &[], pose }, &mut out);
        #[rustfmt::skip]
        let golden: [u8; 36] = [
            0xFC, 0xFC,
            0x00, 0x00, 0xA0, 0xC1, // sway -20.0 mm
            0x00, 0x00, 0x20, 0x41, // surge 10.0 mm
            0x00, 0x00, 0xA0, 0x40, // heave 5.0 mm
            0x00, 0x00, 0xC0, 0x3F, // yaw 1.5 deg
            0x00, 0x00, 0x00, 0x40, // roll 2.0 deg
            0x00, 0x00, 0x40, 0xC0, // pitch -3.0 deg
            0x00, 0x00, 0x00, 0x00, // belt (unused)
            0x00, 0x00, 0x00, 0x00, // filler
            0x0A, 0x0D,
        ];
        assert_eq!(out.as_bytes(), golden);
        assert_eq!(Encoder::Motion4SimPosition.max_frame_len(), 36);
        assert!(Encoder::Motion4SimPosition.uses_pose());
        assert!(!Encoder::KnaufinatorBinary { bits: 12 }.uses_pose());
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
            Encoder::Template(t.clone()).encode(&FrameValues::actuators(&axes), &mut out);
            let width = usize::from(bits).div_ceil(8);
            proptest::prop_assert_eq!(out.len(), 3 * (width + 3));
            for k in 0..3 {
                let start = k * (width + 3) + 2;
                let mut word = [0u8; 4];
                word[4 - width..].copy_from_slice(&out.as_bytes()[start..start + width]);
                let value = u64::from(u32::from_be_bytes(word));
                proptest::prop_assert!(value < (1u64 << bits));
            }
            Encoder::KnaufinatorBinary { bits: 12 }.encode(&FrameValues::actuators(&axes), &mut out);
            for k in 0..6 {
                let v = u16::from_le_bytes([out.as_bytes()[2 + 2 * k], out.as_bytes()[3 + 2 * k]]);
                proptest::prop_assert!(v <= 4095);
            }
        }

        /// The Motion4Sim position frame is always 36 bytes with its header and trailer, and
        /// every float in it is finite and inside the caps, whatever the pose.
        #[test]
        fn motion4sim_position_values_always_finite(pose in proptest::array::uniform6(any_axis())) {
            let mut out = FrameBuffer::new();
            Encoder::Motion4SimPosition.encode(&FrameValues { axes: &[], pose }, &mut out);
            let b = out.as_bytes();
            proptest::prop_assert_eq!(b.len(), 36);
            proptest::prop_assert_eq!(&b[..2], &[0xFC, 0xFC]);
            proptest::prop_assert_eq!(&b[34..], &[0x0A, 0x0D]);
            for k in 0..6 {
                let v = f32::from_le_bytes([b[2 + 4 * k], b[3 + 4 * k], b[4 + 4 * k], b[5 + 4 * k]]);
                let cap = if k < 3 { Encoder::M4S_MAX_MM } else { Encoder::M4S_MAX_DEG } as f32;
                proptest::prop_assert!(v.is_finite() && v.abs() <= cap, "slot {} = {}", k, v);
            }
            proptest::prop_assert_eq!(&b[26..34], &[0u8; 8]);
        }
    }
}
