//! Built-in controller presets: template, bit depth, number format, baud rate, start and stop
//! strings of the DIY controllers documented in the motion reference (section 1.2), so a user
//! writes `preset = "smc3"` instead of retyping a SimTools interface setting.

use super::encoder::{Encoder, FrameKind};
use super::template::{NumberFormat, TemplateEncoder};

/// A named controller setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Name used in the config (`preset = "..."`).
    pub name: &'static str,
    /// Frame template (empty for the frames that are not templates).
    pub template: &'static str,
    /// Axis value resolution, bits (float pose frames ignore it).
    pub bits: u8,
    /// How values are written.
    pub format: NumberFormat,
    /// The firmware's serial speed, bit/s.
    pub baud: u32,
    /// Sent once after the port opened (escapes allowed).
    pub start: &'static str,
    /// Sent once after parking, before the port closes.
    pub stop: &'static str,
    /// Actuators the controller drives.
    pub axes: usize,
    /// The kind of frame (most presets are templates).
    pub kind: FrameKind,
}

impl Preset {
    /// The encoder for this preset.
    pub fn encoder(&self) -> Encoder {
        match self.kind {
            FrameKind::KnaufinatorBinary => Encoder::KnaufinatorBinary { bits: self.bits },
            FrameKind::Motion4SimPosition => Encoder::Motion4SimPosition,
            // The preset table is tested to parse; a failure here is a programming error.
            FrameKind::Template => {
                match TemplateEncoder::new(self.template, self.bits, self.format) {
                    Ok(t) => Encoder::Template(t),
                    Err(e) => panic!("built-in preset {} is invalid: {e}", self.name),
                }
            }
        }
    }
}

const fn template(
    name: &'static str,
    template: &'static str,
    bits: u8,
    format: NumberFormat,
    baud: u32,
    axes: usize,
) -> Preset {
    Preset {
        name,
        template,
        bits,
        format,
        baud,
        start: "",
        stop: "",
        axes,
        kind: FrameKind::Template,
    }
}

const PRESETS: [Preset; 9] = [
    // SMC3 (Arduino Uno, 3 wiper motors): `[A hi lo]` per motor, 10-bit binary, 500000 8N1.
    template(
        "smc3",
        "[A<Axis1a>][B<Axis2a>][C<Axis3a>]",
        10,
        NumberFormat::Binary,
        500_000,
        3,
    ),
    // eh-msc-4dof / cubexvr servoController (Arduino Mega + AASD-15A), 16-bit, 115200.
    template(
        "aasd15a_arduino",
        "P4<Axis1a><Axis2a><Axis3a><Axis4a>!!",
        16,
        NumberFormat::Binary,
        115_200,
        4,
    ),
    // Motion4Sim direct mode: FF FF, 8 x 24-bit (two filler slots), LF CR: always 28 bytes.
    template(
        "motion4sim_direct",
        "<255><255><Axis1a><Axis2a><Axis3a><Axis4a><Axis5a><Axis6a>000000<10><13>",
        24,
        NumberFormat::Binary,
        250_000,
        6,
    ),
    // Lebois / Sirnoname stepper sketch, 2 axes, 'P' + 16-bit words, 921600.
    template(
        "stepper_p2",
        "P<Axis1a><Axis2a>",
        16,
        NumberFormat::Binary,
        921_600,
        2,
    ),
    // The same sketch family, 5-axis Mega variant with a 'T' header (11 bytes).
    template(
        "stepper_t5",
        "T<Axis1a><Axis2a><Axis3a><Axis4a><Axis5a>",
        16,
        NumberFormat::Binary,
        921_600,
        5,
    ),
    // knaufinator legacy text protocol: 12-bit decimal, comma separated, 'X' terminated.
    template(
        "knaufinator_text",
        "<Axis1a>,<Axis2a>,<Axis3a>,<Axis4a>,<Axis5a>,<Axis6a>X",
        12,
        NumberFormat::Decimal,
        115_200,
        6,
    ),
    // knaufinator binary frame (AA 55, LE words, XOR).
    Preset {
        name: "knaufinator_binary",
        template: "",
        bits: 12,
        format: NumberFormat::Binary,
        baud: 115_200,
        start: "",
        stop: "",
        axes: 6,
        kind: FrameKind::KnaufinatorBinary,
    },
    // Gabe-H ODrive hexapod via FlyPT: numbered axes, start `FF FF S`, stop `FF FF E`.
    Preset {
        name: "odrive_hexapod",
        template: "<255><255>F1<Axis1a>2<Axis2a>3<Axis3a>4<Axis4a>5<Axis5a>6<Axis6a>!",
        bits: 16,
        format: NumberFormat::Binary,
        baud: 115_200,
        start: "<255><255>S",
        stop: "<255><255>E",
        axes: 6,
        kind: FrameKind::Template,
    },
    // Motion4Sim position mode: FC FC, pose floats (mm, deg), LF CR: always 36 bytes; the
    // controller does the inverse kinematics.
    Preset {
        name: "motion4sim_position",
        template: "",
        bits: 32,
        format: NumberFormat::Binary,
        baud: 250_000,
        start: "",
        stop: "",
        axes: 6,
        kind: FrameKind::Motion4SimPosition,
    },
];

/// Names of every built-in preset (for error messages).
pub const PRESET_NAMES: [&str; 9] = [
    "smc3",
    "aasd15a_arduino",
    "motion4sim_direct",
    "stepper_p2",
    "stepper_t5",
    "knaufinator_text",
    "knaufinator_binary",
    "odrive_hexapod",
    "motion4sim_position",
];

/// The preset called `name`.
pub fn preset(name: &str) -> Option<Preset> {
    PRESETS.iter().copied().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::super::encoder::{FrameBuffer, FrameValues};
    use super::*;

    fn frame(name: &str, axes: &[f64]) -> Vec<u8> {
        let mut out = FrameBuffer::new();
        preset(name)
            .unwrap()
            .encoder()
            .encode(&FrameValues::actuators(axes), &mut out);
        out.as_bytes().to_vec()
    }

    #[test]
    fn every_name_has_a_valid_preset() {
        for name in PRESET_NAMES {
            let p = preset(name).unwrap();
            assert_eq!(p.name, name);
            assert!(p.encoder().max_frame_len() > 0);
        }
        assert!(preset("nope").is_none());
    }

    #[test]
    fn smc3_frame_bytes() {
        assert_eq!(
            frame("smc3", &[0.0, 1.0, -1.0]),
            [0x5B, b'A', 0x01, 0xFF, 0x5D, 0x5B, b'B', 0x03, 0xFF, 0x5D, 0x5B, b'C', 0, 0, 0x5D]
        );
        assert_eq!(preset("smc3").unwrap().encoder().max_frame_len(), 15);
    }

    #[test]
    fn frame_lengths_are_fixed_whatever_the_axis_count() {
        for axes in [
            &[][..],
            &[0.3][..],
            &[0.1, -0.2, 0.3, -0.4][..],
            &[1.0; 6][..],
        ] {
            assert_eq!(frame("aasd15a_arduino", axes).len(), 12);
            assert_eq!(frame("motion4sim_direct", axes).len(), 28);
            assert_eq!(frame("knaufinator_binary", axes).len(), 15);
            assert_eq!(frame("stepper_t5", axes).len(), 11);
            assert_eq!(frame("motion4sim_position", axes).len(), 36);
        }
        let m4s = frame("motion4sim_direct", &[0.0; 6]);
        assert_eq!(&m4s[..5], &[0xFF, 0xFF, 0x7F, 0xFF, 0xFF]);
        assert_eq!(&m4s[26..], &[10, 13]);
        let aasd = frame("aasd15a_arduino", &[0.0; 4]);
        assert_eq!(&aasd[..4], &[b'P', b'4', 0x7F, 0xFF]);
        assert_eq!(&aasd[10..], b"!!");
    }

    #[test]
    fn knaufinator_text_is_decimal_csv() {
        assert_eq!(
            frame("knaufinator_text", &[0.0; 6]),
            b"2047,2047,2047,2047,2047,2047X"
        );
    }
}
