//! UDP telemetry formats: one module per format family, each with `#[repr(C)]` zerocopy wire
//! structs, an allocation-free encoder from a [`Frame`] and a decoder from bytes.
//!
//! This module ties them together: [`Format`] names a concrete layout (what a `[[telemetry]]`
//! entry selects), [`Format::encode`] writes one packet into a caller buffer (no allocation,
//! safe to call per tick), [`detect`] and [`decode_any`] recognise a datagram by its size and
//! magic the way receivers do, and [`DashView`] is the common summary the dashboard shows
//! from any of them. Invariant: every packet size is a compile-time constant checked against
//! the reference tables (`const` size assertions in each module).

pub mod beamng;
pub mod codemasters;
pub mod convert;
mod dash;
pub mod forza;
pub mod lfs;
pub mod native;

pub use dash::{DashGauges, DashLaps, DashLights, DashView, DashWheel};
pub use lfs::outsim::OutSimOptions;

use zerocopy::IntoBytes;

use crate::game::f1::{self, F1Packet, F1Year};
use crate::game::GameSample;
use rig_types::Frame;

/// The UDP port rigd sends its native packet to by default and the dashboard listens on.
/// Chosen clear of the common game ports (Codemasters/F1 20777, BeamNG 4444, AC 9996, the
/// Forza community's 5300 and 5555).
pub const NATIVE_DEFAULT_PORT: u16 = 29777;

/// The largest packet any format produces (the native packet or F1's Car Telemetry), bytes: a
/// buffer of this size fits every [`Format::encode`].
pub const MAX_PACKET_LEN: usize = if native::NATIVE_LEN > f1::MAX_ENCODED_LEN {
    native::NATIVE_LEN
} else {
    f1::MAX_ENCODED_LEN
};

/// A concrete wire layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// rigd's native packet (every channel).
    Native,
    /// LFS OutGauge: 92 bytes, or 96 with an ID.
    OutGauge {
        /// The `OutGauge ID` appended when `Some`.
        id: Option<i32>,
    },
    /// LFS OutSim classic: 64 bytes, or 68 with an ID.
    OutSim {
        /// The `OutSim ID` appended when `Some`.
        id: Option<i32>,
    },
    /// LFS OutSimPack2 with the given `OutSim Opts`.
    OutSimPack2 {
        /// Which parts are present.
        options: OutSimOptions,
        /// The ID written when the `ID` option is set.
        id: i32,
    },
    /// Forza Sled, 232 bytes.
    ForzaSled,
    /// Forza Motorsport 7 Car Dash, 311 bytes.
    ForzaFm7Dash,
    /// Forza Horizon 4/5, 324 bytes.
    ForzaHorizon,
    /// Forza Motorsport (2023) Car Dash, 331 bytes.
    ForzaFm2023,
    /// Codemasters extradata=3, 264 bytes.
    Codemasters,
    /// BeamNG MotionSim, 88 bytes.
    BeamNgMotionSim,
    /// One packet type of EA F1 24/25 (a `[[telemetry]]` F1 output sends several, each at its
    /// own rate). Not recognised by [`detect`]: F1 comes as several packet types that each
    /// carry a part, read with [`crate::game::f1::decode`].
    F1 {
        /// Which year's specification.
        year: F1Year,
        /// Which packet type.
        packet: F1Packet,
    },
}

impl Format {
    /// The datagram length of this format.
    pub const fn packet_len(&self) -> usize {
        match self {
            Format::Native => native::NATIVE_LEN,
            Format::OutGauge { id: None } => lfs::outgauge::OUTGAUGE_LEN,
            Format::OutGauge { id: Some(_) } => lfs::outgauge::OUTGAUGE_WITH_ID_LEN,
            Format::OutSim { id: None } => lfs::outsim::OUTSIM_LEN,
            Format::OutSim { id: Some(_) } => lfs::outsim::OUTSIM_WITH_ID_LEN,
            Format::OutSimPack2 { options, .. } => options.packet_len(),
            Format::ForzaSled => forza::SLED_LEN,
            Format::ForzaFm7Dash => forza::FM7_DASH_LEN,
            Format::ForzaHorizon => forza::HORIZON_LEN,
            Format::ForzaFm2023 => forza::FM2023_LEN,
            Format::Codemasters => codemasters::CODEMASTERS_LEN,
            Format::BeamNgMotionSim => beamng::MOTIONSIM_LEN,
            Format::F1 { year, packet } => packet.len(*year),
        }
    }

    /// A short human-readable name.
    pub const fn name(&self) -> &'static str {
        match self {
            Format::Native => "rigd native",
            Format::OutGauge { .. } => "LFS OutGauge",
            Format::OutSim { .. } => "LFS OutSim",
            Format::OutSimPack2 { .. } => "LFS OutSimPack2",
            Format::ForzaSled => "Forza Sled",
            Format::ForzaFm7Dash => "Forza FM7 Dash",
            Format::ForzaHorizon => "Forza Horizon",
            Format::ForzaFm2023 => "Forza Motorsport 2023",
            Format::Codemasters => "Codemasters extradata=3",
            Format::BeamNgMotionSim => "BeamNG MotionSim",
            Format::F1 { year, packet } => f1_name(*year, *packet),
        }
    }

    /// Writes `frame` in this format into the start of `out`; returns the packet length.
    /// Never allocates.
    pub fn encode(&self, frame: &Frame, out: &mut [u8]) -> Result<usize, EncodeError> {
        let len = self.packet_len();
        if out.len() < len {
            return Err(EncodeError::BufferTooSmall {
                needed: len,
                available: out.len(),
            });
        }
        let out = &mut out[..len];
        match *self {
            Format::Native => out.copy_from_slice(native::encode(frame).as_bytes()),
            Format::OutGauge { id: None } => {
                out.copy_from_slice(lfs::outgauge::encode(frame).as_bytes())
            }
            Format::OutGauge { id: Some(id) } => {
                out.copy_from_slice(lfs::outgauge::encode_with_id(frame, id).as_bytes())
            }
            Format::OutSim { id: None } => {
                out.copy_from_slice(lfs::outsim::encode(frame).as_bytes())
            }
            Format::OutSim { id: Some(id) } => {
                out.copy_from_slice(lfs::outsim::encode_with_id(frame, id).as_bytes())
            }
            Format::OutSimPack2 { options, id } => {
                lfs::outsim::encode_pack2(frame, options, id, out)?;
            }
            Format::ForzaSled => out.copy_from_slice(forza::encode_sled(frame).as_bytes()),
            Format::ForzaFm7Dash => out.copy_from_slice(forza::encode_fm7_dash(frame).as_bytes()),
            Format::ForzaHorizon => out.copy_from_slice(forza::encode_horizon(frame).as_bytes()),
            Format::ForzaFm2023 => out.copy_from_slice(forza::encode_fm2023(frame).as_bytes()),
            Format::Codemasters => out.copy_from_slice(codemasters::encode(frame).as_bytes()),
            Format::BeamNgMotionSim => out.copy_from_slice(beamng::encode(frame).as_bytes()),
            Format::F1 { year, packet } => {
                f1::encode::encode(year, packet, frame, out)?;
            }
        }
        Ok(len)
    }

    /// Decodes `bytes` as this format.
    pub fn decode(&self, bytes: &[u8]) -> Result<Decoded, DecodeError> {
        Ok(match *self {
            Format::Native => Decoded::Native(native::decode(bytes)?),
            Format::OutGauge { .. } => {
                let (packet, id) = lfs::outgauge::decode(bytes)?;
                Decoded::OutGauge { packet, id }
            }
            Format::OutSim { .. } => {
                let (packet, id) = lfs::outsim::decode(bytes)?;
                Decoded::OutSim { packet, id }
            }
            Format::OutSimPack2 { options, .. } => {
                Decoded::OutSimPack2(lfs::outsim::decode_pack2(bytes, options)?)
            }
            Format::ForzaSled => Decoded::ForzaSled(forza::decode_sled(bytes)?),
            Format::ForzaFm7Dash => Decoded::ForzaFm7Dash(forza::decode_fm7_dash(bytes)?),
            Format::ForzaHorizon => Decoded::ForzaHorizon(forza::decode_horizon(bytes)?),
            Format::ForzaFm2023 => Decoded::ForzaFm2023(forza::decode_fm2023(bytes)?),
            Format::Codemasters => Decoded::Codemasters(codemasters::decode(bytes)?),
            Format::BeamNgMotionSim => Decoded::BeamNgMotionSim(beamng::decode(bytes)?),
            Format::F1 { year, packet } => {
                let name = f1_name(year, packet);
                if bytes.len() != packet.len(year) {
                    return Err(DecodeError::size(name, packet.len(year), bytes.len()));
                }
                let found = [0, 1, 6].map(|i| bytes.get(i).copied().unwrap_or(0));
                let format = year.packet_format().to_le_bytes();
                let expected = [format[0], format[1], packet.id()];
                if found != expected {
                    let field = "m_packetFormat / m_packetId";
                    let value = u64::from(u16::from_le_bytes([found[0], found[1]])) << 8
                        | u64::from(found[2]);
                    return Err(DecodeError::invalid(name, field, value));
                }
                let sample = f1::decode(bytes)
                    .map_err(|_| DecodeError::invalid(name, "m_playerCarIndex", bytes[27]))?;
                Decoded::F1 {
                    year,
                    packet,
                    sample,
                }
            }
        })
    }
}

/// The name of one F1 packet type of one year, e.g. "F1 24 Motion".
const fn f1_name(year: F1Year, packet: F1Packet) -> &'static str {
    match (year, packet) {
        (F1Year::F1_24, F1Packet::Motion) => "F1 24 Motion",
        (F1Year::F1_24, F1Packet::Session) => "F1 24 Session",
        (F1Year::F1_24, F1Packet::LapData) => "F1 24 Lap Data",
        (F1Year::F1_24, F1Packet::CarTelemetry) => "F1 24 Car Telemetry",
        (F1Year::F1_24, F1Packet::CarStatus) => "F1 24 Car Status",
        (F1Year::F1_24, F1Packet::MotionEx) => "F1 24 Motion Ex",
        (F1Year::F1_25, F1Packet::Motion) => "F1 25 Motion",
        (F1Year::F1_25, F1Packet::Session) => "F1 25 Session",
        (F1Year::F1_25, F1Packet::LapData) => "F1 25 Lap Data",
        (F1Year::F1_25, F1Packet::CarTelemetry) => "F1 25 Car Telemetry",
        (F1Year::F1_25, F1Packet::CarStatus) => "F1 25 Car Status",
        (F1Year::F1_25, F1Packet::MotionEx) => "F1 25 Motion Ex",
    }
}

/// A decoded datagram, one variant per format.
///
/// Variants hold the packets by value (the native one is ~1 kB) so decoding never allocates.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Decoded {
    /// rigd native.
    Native(native::NativePacket),
    /// LFS OutGauge with its ID when 96 bytes long.
    OutGauge {
        /// The 92-byte body.
        packet: lfs::outgauge::OutGaugePacket,
        /// The ID of the 96-byte form.
        id: Option<i32>,
    },
    /// LFS OutSim classic with its ID when 68 bytes long.
    OutSim {
        /// The 64-byte body.
        packet: lfs::outsim::OutSimPacket,
        /// The ID of the 68-byte form.
        id: Option<i32>,
    },
    /// LFS OutSimPack2.
    OutSimPack2(lfs::outsim::OutSimPack2),
    /// Forza Sled.
    ForzaSled(forza::Sled),
    /// Forza FM7 Car Dash.
    ForzaFm7Dash(forza::Fm7DashPacket),
    /// Forza Horizon 4/5.
    ForzaHorizon(forza::HorizonPacket),
    /// Forza Motorsport 2023 Car Dash.
    ForzaFm2023(forza::Fm2023Packet),
    /// Codemasters extradata=3.
    Codemasters(codemasters::CodemastersPacket),
    /// BeamNG MotionSim.
    BeamNgMotionSim(beamng::MotionSimPacket),
    /// One F1 24/25 packet, read as the game bridge reads it.
    F1 {
        /// The year.
        year: F1Year,
        /// The packet type.
        packet: F1Packet,
        /// What it says about the player's car.
        sample: GameSample,
    },
}

/// Recognises a datagram by its length and, where the format has one, its magic.
///
/// A rigd native packet is recognised by its length and magic, and also, whatever its length,
/// when its magic is right and its version is not this build's: such a packet decodes to
/// [`DecodeError::UnsupportedVersion`] (which says what to do) rather than to an unknown size.
///
/// OutSimPack2 carries no options, so only the common `0x1ff` layout (280 bytes starting with
/// `LFST`) is recognised; decode other option sets with [`Format::decode`].
pub fn detect(bytes: &[u8]) -> Option<Format> {
    let magic = bytes.get(..4);
    let id_at = |offset: usize| -> Option<i32> {
        let raw: [u8; 4] = bytes.get(offset..offset + 4)?.try_into().ok()?;
        Some(i32::from_le_bytes(raw))
    };
    let native_version = bytes.get(4..6).map(|v| u16::from_le_bytes([v[0], v[1]]));
    match bytes.len() {
        native::NATIVE_LEN if magic == Some(&native::NATIVE_MAGIC[..]) => Some(Format::Native),
        _ if magic == Some(&native::NATIVE_MAGIC[..])
            && native_version.is_some_and(|v| v != native::NATIVE_VERSION) =>
        {
            Some(Format::Native)
        }
        lfs::outgauge::OUTGAUGE_LEN => Some(Format::OutGauge { id: None }),
        lfs::outgauge::OUTGAUGE_WITH_ID_LEN => Some(Format::OutGauge { id: id_at(92) }),
        lfs::outsim::OUTSIM_LEN => Some(Format::OutSim { id: None }),
        lfs::outsim::OUTSIM_WITH_ID_LEN => Some(Format::OutSim { id: id_at(64) }),
        280 if magic == Some(&lfs::outsim::PACK2_MAGIC[..]) => Some(Format::OutSimPack2 {
            options: OutSimOptions::ALL,
            id: id_at(4)?,
        }),
        forza::SLED_LEN => Some(Format::ForzaSled),
        forza::FM7_DASH_LEN => Some(Format::ForzaFm7Dash),
        forza::HORIZON_LEN => Some(Format::ForzaHorizon),
        forza::FM2023_LEN => Some(Format::ForzaFm2023),
        codemasters::CODEMASTERS_LEN => Some(Format::Codemasters),
        beamng::MOTIONSIM_LEN if magic == Some(&beamng::MOTIONSIM_MAGIC[..]) => {
            Some(Format::BeamNgMotionSim)
        }
        _ => None,
    }
}

/// Detects and decodes any supported datagram.
pub fn decode_any(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    detect(bytes)
        .ok_or(DecodeError::UnknownFormat { len: bytes.len() })?
        .decode(bytes)
}

/// Why a datagram could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The datagram has the wrong length for the format.
    #[error(
        "{format} packet must be {expected} bytes, got {actual}: check that the sender is set \
         to the {format} format (receivers choose the layout by size)"
    )]
    WrongSize {
        /// Format name.
        format: &'static str,
        /// Expected length.
        expected: usize,
        /// Actual length.
        actual: usize,
    },
    /// The magic bytes do not match.
    #[error(
        "{format} packet must start with {expected:?}, found {found:?}: the sender speaks \
         another format; point it at a port for that format"
    )]
    BadMagic {
        /// Format name.
        format: &'static str,
        /// Expected magic.
        expected: [u8; 4],
        /// Found bytes.
        found: [u8; 4],
    },
    /// A native packet of another layout version.
    #[error(
        "rigd native packet version {found} is not supported (this build reads version \
         {supported}): run the same rigd version on both ends"
    )]
    UnsupportedVersion {
        /// Version in the packet.
        found: u16,
        /// Version this build reads.
        supported: u16,
    },
    /// A field holds a value outside its documented codes.
    #[error(
        "{format} field `{field}` holds {value}, which is not a valid code: the sender is \
         broken or speaks another version"
    )]
    InvalidField {
        /// Format name.
        format: &'static str,
        /// Field name.
        field: &'static str,
        /// The value found.
        value: u64,
    },
    /// No supported format has this length (and magic).
    #[error(
        "no supported telemetry format is {len} bytes long: expected rigd native, OutGauge \
         (92/96), OutSim (64/68), OutSimPack2 0x1ff (280), Forza (232/311/324/331), \
         Codemasters extradata=3 (264) or BeamNG MotionSim (88)"
    )]
    UnknownFormat {
        /// Datagram length.
        len: usize,
    },
}

impl DecodeError {
    /// A [`DecodeError::WrongSize`].
    pub fn size(format: &'static str, expected: usize, actual: usize) -> DecodeError {
        DecodeError::WrongSize {
            format,
            expected,
            actual,
        }
    }

    /// A [`DecodeError::InvalidField`].
    pub fn invalid(
        format: &'static str,
        field: &'static str,
        value: impl Into<u64>,
    ) -> DecodeError {
        DecodeError::InvalidField {
            format,
            field,
            value: value.into(),
        }
    }
}

/// Why a packet could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The output buffer is too short.
    #[error(
        "output buffer holds {available} bytes but the packet needs {needed}: pass a buffer of \
         at least MAX_PACKET_LEN bytes"
    )]
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
}
