//! Built-in controller presets: template, bit depth, number format, baud rate, start and stop
//! strings of the DIY controllers documented in the motion reference (section 1.2), so a user
//! writes `preset = "smc3"` instead of retyping a SimTools interface setting; and what rigd must
//! know about the board to start from where the rig really is: where its targets sit after boot
//! ([`Preset::boot_counts`]), whether opening the port resets it ([`Preset::resets_on_open`]),
//! and the target window its firmware clips to ([`Preset::firmware_limits_counts`]).
//!
//! Each preset's comment cites where its baud, default rate and limits come from; where the
//! source publishes no value the comment says so and what rigd uses instead.

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
    /// Frames per second rigd sends unless `rate_hz` says otherwise.
    pub rate_hz: u32,
    /// Sent once after the port opened (escapes allowed).
    pub start: &'static str,
    /// Sent once after parking, before the port closes.
    pub stop: &'static str,
    /// Actuators the controller drives.
    pub axes: usize,
    /// The kind of frame (most presets are templates).
    pub kind: FrameKind,
    /// Every target after the board boots, in counts of `bits` (`None`: unknown to rigd, e.g.
    /// a controller that homes or parks on its own; rigd then moves at the homing speed).
    pub boot_counts: Option<u32>,
    /// Opening the serial port resets the board (an Arduino whose USB bridge pulses RESET on
    /// DTR): after every open its targets are at [`Self::boot_counts`].
    pub resets_on_open: bool,
    /// The target window the firmware clips to by default, counts `(low, high)`; rigd keeps
    /// its margins inside it. `None`: the firmware takes the whole range.
    pub firmware_limits_counts: Option<(u32, u32)>,
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

/// A template preset of a board that does not reset on open, whose start position rigd does
/// not know and whose firmware takes the whole value range; the table sets the rest.
const fn template(
    name: &'static str,
    template: &'static str,
    bits: u8,
    baud: u32,
    rate_hz: u32,
    axes: usize,
) -> Preset {
    Preset {
        name,
        template,
        bits,
        format: NumberFormat::Binary,
        baud,
        rate_hz,
        start: "",
        stop: "",
        axes,
        kind: FrameKind::Template,
        boot_counts: None,
        resets_on_open: false,
        firmware_limits_counts: None,
    }
}

const PRESETS: [Preset; 11] = [
    // SMC3 v0.7.0 (SimulatorMotorController/SMC3, SMC3.ino; Arduino Uno, 3 wiper motors):
    // `[A hi lo]` per motor, 10-bit binary; `Serial.begin(500000)` (the `mode3` branch uses
    // 250000: set baud and custom_firmware_baud for it); the README's SimTools setting sends every
    // 10 ms (100 Hz). `Target1..3 = 512` at boot (the Uno resets when the port opens, so the
    // rig drives to centre during the post-open wait); `InputClipMin/Max = 100/923`
    // (changeable with `[S..]`..`[U..]` and `[sav]`).
    Preset {
        boot_counts: Some(512),
        resets_on_open: true,
        firmware_limits_counts: Some((100, 923)),
        ..template(
            "smc3",
            "[A<Axis1a>][B<Axis2a>][C<Axis3a>]",
            10,
            500_000,
            100,
            3,
        )
    },
    // eh-msc-4dof v3 / cubexvr servoController (Arduino Mega + AASD-15A): `P4` + 4 x 16-bit
    // + `!!`, `Serial.begin(115200)`, FlyPT "2 ms" (500 Hz, 52 % of the line). At power-up it
    // homes and parks at centre slowly; opening the port resets the Mega (and re-homes) unless
    // the README's 10 uF RESET-GND capacitor is fitted (then set resets_on_open = false).
    Preset {
        boot_counts: Some(32767),
        resets_on_open: true,
        ..template(
            "aasd15a_arduino",
            "P4<Axis1a><Axis2a><Axis3a><Axis4a>!!",
            16,
            115_200,
            500,
            4,
        )
    },
    // Motion4Sim direct mode (docs.motion4sim.com, direct-motion-mode): FF FF, 8 x 24-bit
    // (two filler slots), LF CR: always 28 bytes, 250000 baud. No rate is published; rigd
    // sends 100 Hz (SimTools' 10 ms; 500 Hz fits 56 % of the line). The controller parks and
    // homes on its own (start position unknown to rigd).
    template(
        "motion4sim_direct",
        "<255><255><Axis1a><Axis2a><Axis3a><Axis4a><Axis5a><Axis6a>000000<10><13>",
        24,
        250_000,
        100,
        6,
    ),
    // Lebois / Sirnoname stepper sketch, 2 axes, 'P' + 16-bit words, 921600 (FlyPT setting
    // in the sketch header). No rate is published: 100 Hz.
    template("stepper_p2", "P<Axis1a><Axis2a>", 16, 921_600, 100, 2),
    // The same sketch family, 5-axis Mega variant with a 'T' header (11 bytes), 921600; the
    // SimHub preset (degul/SFX-100-T3D-L20A) gives no rate: 100 Hz.
    template(
        "stepper_t5",
        "T<Axis1a><Axis2a><Axis3a><Axis4a><Axis5a>",
        16,
        921_600,
        100,
        5,
    ),
    // knaufinator legacy text protocol (knaufinator/Mini-6DOF README): 12-bit decimal, comma
    // separated, 'X' terminated, 115200; SimTools' 10 ms (100 Hz, 26 % of the line).
    Preset {
        format: NumberFormat::Decimal,
        ..template(
            "knaufinator_text",
            "<Axis1a>,<Axis2a>,<Axis3a>,<Axis4a>,<Axis5a>,<Axis6a>X",
            12,
            115_200,
            100,
            6,
        )
    },
    // knaufinator binary frame (Mini-6DOF README: AA 55, LE words, XOR; "up to 1000 Hz"),
    // 115200 on a real UART carries at most 768 frames/s, so rigd sends 500 Hz (65 %).
    Preset {
        kind: FrameKind::KnaufinatorBinary,
        ..template("knaufinator_binary", "", 12, 115_200, 500, 6)
    },
    // Gabe-H ODrive hexapod via FlyPT (Gabe-H/Simulator-Controller README): numbered axes,
    // 115200, every 10 ms (100 Hz); start `FF FF S`, stop `FF FF E`.
    Preset {
        start: "<255><255>S",
        stop: "<255><255>E",
        ..template(
            "odrive_hexapod",
            "<255><255>F1<Axis1a>2<Axis2a>3<Axis3a>4<Axis4a>5<Axis5a>6<Axis6a>!",
            16,
            115_200,
            100,
            6,
        )
    },
    // Motion4Sim position mode (docs.motion4sim.com, position-motion-mode): FC FC, pose floats
    // (mm, deg), LF CR: always 36 bytes, 250000; no rate published: 100 Hz (14 % of the line).
    Preset {
        kind: FrameKind::Motion4SimPosition,
        ..template("motion4sim_position", "", 32, 250_000, 100, 6)
    },
    // Thanos AMC1280USB (AASD-15A servos), firmware v3.5 and later: the author's release
    // notes (motionsim.blogspot.com, "AMC1280USB Firmware v3.5 release", 2018-12-15) give a
    // 20-byte packet: ID FF FF, each axis 16 bits (MSB first, per the v3.0 notes below), spare
    // slots up to 8 axes, LF CR (0A 0D) required at the end; rigd sends actuators 1..6 and
    // slots 7 and 8 at centre. The vendor's Q&A (thanos-motion.com/qa) says the controller
    // runs 2000 cycles/s and keeps its own stroke, limits, park position, park speed and
    // time-outs, so rigd knows neither its start position (homing speed) nor a clip window.
    // Neither source publishes a baud or an input rate: rigd opens the port at 115200 (the
    // controller enumerates as a USB serial device; unverified on hardware that the line speed
    // is ignored) and sends 100 Hz (SimTools' 10 ms).
    template(
        "thanos_amc1280usb",
        "<255><255><Axis1a><Axis2a><Axis3a><Axis4a><Axis5a><Axis6a><Axis1b><Axis2b><10><13>",
        16,
        115_200,
        100,
        6,
    ),
    // The legacy form, for firmware before v3.5: the author's v3.0 notes
    // (motionsim.blogspot.com, "AMC1280USB Firmware v3.0 release", 2018-08-16) give "two ID
    // characters followed by the 16bit values for position for each axis", the ID "AB"
    // (0x41 0x42) before v3.0 and selectable in v3.0's "Serial ID Format" menu, each value
    // MSB then LSB, and no terminator ("no need for CR as I count the incoming data"): `AB` +
    // 6 x 16 bits = 14 bytes for 6 DOF. Baud and rate as above (not published).
    template(
        "thanos_amc1280usb_ab",
        "AB<Axis1a><Axis2a><Axis3a><Axis4a><Axis5a><Axis6a>",
        16,
        115_200,
        100,
        6,
    ),
];

/// Names of every built-in preset (for error messages).
pub const PRESET_NAMES: [&str; 11] = [
    "smc3",
    "aasd15a_arduino",
    "motion4sim_direct",
    "stepper_p2",
    "stepper_t5",
    "knaufinator_text",
    "knaufinator_binary",
    "odrive_hexapod",
    "motion4sim_position",
    "thanos_amc1280usb",
    "thanos_amc1280usb_ab",
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

    /// The Thanos AMC1280USB packets built by hand from the author's notes: v3.5's `FF FF`,
    /// eight big-endian 16-bit slots (actuators 1..6, slots 7 and 8 at centre) and `0A 0D`;
    /// the legacy `AB` ID with six big-endian values and no terminator.
    fn thanos_frame(axes: [u16; 6]) -> Vec<u8> {
        let mut out = vec![0xFF, 0xFF];
        for value in axes.iter().chain(&[32767, 32767]) {
            out.extend(value.to_be_bytes());
        }
        out.extend([0x0A, 0x0D]);
        out
    }

    fn thanos_legacy_frame(axes: [u16; 6]) -> Vec<u8> {
        let mut out = b"AB".to_vec();
        for value in axes {
            out.extend(value.to_be_bytes());
        }
        out
    }

    #[test]
    fn thanos_frames_match_the_published_layout() {
        let axes = [0.0, 1.0, -1.0, 0.5, -0.5, 0.25];
        let counts = [32767, 65535, 0, 49151, 16384, 40959];
        let modern = frame("thanos_amc1280usb", &axes);
        assert_eq!(modern, thanos_frame(counts));
        assert_eq!(modern.len(), 20);
        let legacy = frame("thanos_amc1280usb_ab", &axes);
        assert_eq!(legacy, thanos_legacy_frame(counts));
        assert_eq!(&legacy[..4], &[0x41, 0x42, 0x7F, 0xFF]);
        assert_eq!(legacy.len(), 14);
        for (name, len) in [("thanos_amc1280usb", 20), ("thanos_amc1280usb_ab", 14)] {
            let p = preset(name).unwrap();
            assert_eq!(p.encoder().max_frame_len(), len);
            assert_eq!((p.boot_counts, p.resets_on_open), (None, false));
        }
    }

    #[test]
    fn smc3_states_its_boot_position_reset_and_firmware_window() {
        let p = preset("smc3").unwrap();
        assert_eq!(p.boot_counts, Some(512));
        assert!(p.resets_on_open);
        assert_eq!(p.firmware_limits_counts, Some((100, 923)));
        assert_eq!((p.baud, p.rate_hz), (500_000, 100));
    }

    #[test]
    fn every_preset_default_rate_fits_its_line() {
        use super::super::budget::{line_bits_per_byte, Parity, SerialBudget};
        for name in PRESET_NAMES {
            let p = preset(name).unwrap();
            let budget = SerialBudget {
                frame_bytes: p.encoder().max_frame_len(),
                rate_hz: f64::from(p.rate_hz),
                baud: p.baud,
                bits_per_byte: line_bits_per_byte(8, Parity::None, 1),
            };
            assert!(
                budget.fits(),
                "{name}: {:.0} %",
                budget.line_share() * 100.0
            );
            if let Some((low, high)) = p.firmware_limits_counts {
                assert!(low < high && high < 1 << p.bits, "{name}");
            }
        }
    }
}
