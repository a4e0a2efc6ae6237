//! Live for Speed OutGauge: the 92-byte dashboard packet, or 96 bytes with the `OutGauge ID`
//! appended (BeamNG always sends the 96-byte form).
//!
//! Mapping from a [`Frame`] (units as LFS `InSim.txt` states them): speed m/s, rpm, pedals
//! 0..1, gear 0 = R / 1 = N / 2 = first, time in ms of simulation time. Flags say km/h and bar
//! (`OG_KM | OG_BAR`). Channels the simulation does not model get neutral values: turbo 0 bar,
//! engine and oil temperature 0 degC, oil pressure 0 bar, fuel 1.0 (full: the sim burns no fuel,
//! so a dash shows no low-fuel warning), empty display strings, PLID 0, car name `RGD`
//! (NUL-terminated within its 4 bytes). Dash lights: shift
//! light (rpm at or above [`SHIFT_LIGHT_FRACTION`] of the limiter), handbrake, neutral.

use zerocopy::little_endian::{F32, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::telemetry::convert::{f32_of, gear_to_lfs, millis_wrapping};
use crate::telemetry::DecodeError;
use rig_types::Frame;

/// Size of the packet without an ID.
pub const OUTGAUGE_LEN: usize = 92;
/// Size of the packet with the 4-byte ID.
pub const OUTGAUGE_WITH_ID_LEN: usize = 96;
/// The car name we send: three letters and a NUL, like LFS's own short names (`XRT`). A full
/// four-letter name is legal but unterminated, and parsers that read the field as a C string
/// or take an unterminated name for a mod's skin id misread it (`rigd` came out as `rig`).
pub const CAR_NAME: [u8; 4] = *b"RGD\0";

/// `OG_SHIFT` flag: shift key held.
pub const OG_SHIFT: u16 = 1;
/// `OG_CTRL` flag: ctrl key held.
pub const OG_CTRL: u16 = 2;
/// `OG_TURBO`: show a turbo gauge.
pub const OG_TURBO: u16 = 8192;
/// `OG_KM`: the user prefers km (else miles).
pub const OG_KM: u16 = 16384;
/// `OG_BAR`: the user prefers bar (else psi).
pub const OG_BAR: u16 = 32768;

/// Dash light bit: shift light.
pub const DL_SHIFT: u32 = 1 << 0;
/// Dash light bit: handbrake.
pub const DL_HANDBRAKE: u32 = 1 << 2;
/// Dash light bit: neutral.
pub const DL_NEUTRAL: u32 = 1 << 17;
/// The dash lights this encoder can drive (sent as `DashLights`, "available").
pub const DASH_LIGHTS_AVAILABLE: u32 = DL_SHIFT | DL_HANDBRAKE | DL_NEUTRAL;
/// Fraction of the rev limiter at which the shift light comes on.
pub const SHIFT_LIGHT_FRACTION: f64 = 0.95;
/// Handbrake position above which the handbrake light is on.
pub const HANDBRAKE_LIGHT_THRESHOLD: f64 = 0.05;

/// The 92-byte OutGauge packet (`<I4sHBBfffffffIIfff16s16s`).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OutGaugePacket {
    /// Time, ms (to check order).
    pub time_ms: U32,
    /// Short car name, NUL-padded.
    pub car: [u8; 4],
    /// `OG_*` flags.
    pub flags: U16,
    /// Gear: 0 R, 1 N, 2 first.
    pub gear: u8,
    /// Viewed player id, 0 = none.
    pub plid: u8,
    /// Speed, m/s.
    pub speed_mps: F32,
    /// Engine speed, rpm.
    pub rpm: F32,
    /// Turbo pressure, bar.
    pub turbo_bar: F32,
    /// Engine temperature, degC.
    pub engine_temp_c: F32,
    /// Fuel, 0..1.
    pub fuel: F32,
    /// Oil pressure, bar.
    pub oil_pressure_bar: F32,
    /// Oil temperature, degC.
    pub oil_temp_c: F32,
    /// `DL_*` bits available.
    pub dash_lights: U32,
    /// `DL_*` bits currently on.
    pub show_lights: U32,
    /// Throttle, 0..1.
    pub throttle: F32,
    /// Brake, 0..1.
    pub brake: F32,
    /// Clutch, 0..1.
    pub clutch: F32,
    /// Display 1 text ("usually fuel"), NUL-padded.
    pub display1: [u8; 16],
    /// Display 2 text ("usually settings"), NUL-padded.
    pub display2: [u8; 16],
}
const _: () = assert!(core::mem::size_of::<OutGaugePacket>() == OUTGAUGE_LEN);

/// The 96-byte OutGauge packet: the 92-byte body plus the configured ID.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OutGaugeWithIdPacket {
    /// The common body.
    pub body: OutGaugePacket,
    /// `OutGauge ID`.
    pub id: I32,
}
const _: () = assert!(core::mem::size_of::<OutGaugeWithIdPacket>() == OUTGAUGE_WITH_ID_LEN);

/// Encodes `frame` as the 92-byte body.
pub fn encode(frame: &Frame) -> OutGaugePacket {
    let car = &frame.car;
    let dt = &car.drivetrain;
    let mut show_lights = 0;
    if dt.max_rpm > 0.0 && dt.engine_rpm >= SHIFT_LIGHT_FRACTION * dt.max_rpm {
        show_lights |= DL_SHIFT;
    }
    if car.controls.handbrake > HANDBRAKE_LIGHT_THRESHOLD {
        show_lights |= DL_HANDBRAKE;
    }
    if dt.gear == 0 {
        show_lights |= DL_NEUTRAL;
    }
    OutGaugePacket {
        time_ms: U32::new(millis_wrapping(car.time_s)),
        car: CAR_NAME,
        flags: U16::new(OG_KM | OG_BAR),
        gear: gear_to_lfs(dt.gear),
        plid: 0,
        speed_mps: f32_of(car.speed_mps),
        rpm: f32_of(dt.engine_rpm),
        turbo_bar: F32::new(0.0),
        engine_temp_c: F32::new(0.0),
        fuel: F32::new(1.0),
        oil_pressure_bar: F32::new(0.0),
        oil_temp_c: F32::new(0.0),
        dash_lights: U32::new(DASH_LIGHTS_AVAILABLE),
        show_lights: U32::new(show_lights),
        throttle: f32_of(car.controls.throttle),
        brake: f32_of(car.controls.brake),
        clutch: f32_of(car.controls.clutch),
        display1: [0; 16],
        display2: [0; 16],
    }
}

/// Encodes `frame` as the 96-byte packet carrying `id`.
pub fn encode_with_id(frame: &Frame, id: i32) -> OutGaugeWithIdPacket {
    OutGaugeWithIdPacket {
        body: encode(frame),
        id: I32::new(id),
    }
}

/// Decodes a 92- or 96-byte OutGauge packet; the ID is `Some` for the 96-byte form.
pub fn decode(bytes: &[u8]) -> Result<(OutGaugePacket, Option<i32>), DecodeError> {
    match bytes.len() {
        OUTGAUGE_LEN => OutGaugePacket::read_from_bytes(bytes)
            .map(|p| (p, None))
            .map_err(|_| DecodeError::size("OutGauge", OUTGAUGE_LEN, bytes.len())),
        OUTGAUGE_WITH_ID_LEN => OutGaugeWithIdPacket::read_from_bytes(bytes)
            .map(|p| (p.body, Some(p.id.get())))
            .map_err(|_| DecodeError::size("OutGauge", OUTGAUGE_WITH_ID_LEN, bytes.len())),
        other => Err(DecodeError::size("OutGauge", OUTGAUGE_LEN, other)),
    }
}
