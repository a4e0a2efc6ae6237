//! EA F1 24 and F1 25 UDP telemetry ("Data Output from F1 24/25", EA's published
//! specifications): the packet types, their exact sizes per year, the 29-byte header, and the
//! per-car layouts rigd reads ([`decode`]) and writes ([`encode`], F1 as an output format).
//!
//! Every packet starts with the header: `m_packetFormat` u16 (2024 or 2025), `m_gameYear`
//! u8, major and minor version u8, `m_packetVersion` u8, `m_packetId` u8, `m_sessionUID`
//! u64, `m_sessionTime` f32, `m_frameIdentifier` u32, `m_overallFrameIdentifier` u32,
//! `m_playerCarIndex` u8, `m_secondaryPlayerCarIndex` u8; all little-endian, packed. Per-car
//! arrays hold [`MAX_CARS`] entries; the player's car is the one at `m_playerCarIndex`.
//!
//! A packet is taken as F1 only with a known packet format, a packet id the year defines and
//! exactly the size the year's specification gives that id ([`packet_len`]); a valid packet
//! of a type rigd does not read decodes to [`GameDecodeError::Ignored`], one of another size
//! is invalid (random bytes behind an F1 header are garbage, not an ignored packet).
//!
//! Axes and units (see [`super::y_up`]): F1's world is y-up and left-handed and its car frame
//! X right, Y up, Z forward. G-forces are the specific force (what an accelerometer reads,
//! 1 g vertical at rest) in the car frame: lateral positive to the right, longitudinal
//! positive accelerating. Yaw/pitch/roll are the left-hand rotations of that frame (yaw
//! positive turning right, pitch positive nose down, roll positive right side up); rigd reads
//! the attitude from the direction vectors instead, which carry no sign question. Speed is
//! km/h, tyre pressure psi, clutch 0..100, steer -1 (left) .. 1 (right). Wheel arrays are
//! RL, RR, FL, FR. Motion Ex's suspension position is in mm of compression and its velocity
//! in mm/s (the community reading of the unitless spec), its wheel speed in m/s (rigd's spin
//! rate is that over [`F1_TYRE_RADIUS_M`] when decoding), its slip angle in rad with F1's
//! lateral sign (positive to the right, so rigd's ISO angle is the negative).

mod decode;
pub mod encode;

pub use decode::{decode, matches};

use super::GameStream;

/// The port F1 sends to by default.
pub const DEFAULT_PORT: u16 = 20777;
/// Size of the header, bytes.
pub const HEADER_LEN: usize = 29;
/// Cars in every per-car array.
pub const MAX_CARS: usize = 22;
/// The largest packet rigd writes (Car Telemetry), bytes.
pub const MAX_ENCODED_LEN: usize = 1352;
/// Rolling radius used to turn Motion Ex's wheel speed (m/s) into a spin rate, m: an 18-inch
/// F1 tyre of 720 mm diameter (the packet carries no radius).
pub const F1_TYRE_RADIUS_M: f64 = 0.36;

/// Which year's specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum F1Year {
    /// F1 24, `m_packetFormat` 2024.
    F1_24,
    /// F1 25, `m_packetFormat` 2025.
    F1_25,
}

impl F1Year {
    /// The header's `m_packetFormat`.
    pub const fn packet_format(self) -> u16 {
        match self {
            F1Year::F1_24 => 2024,
            F1Year::F1_25 => 2025,
        }
    }

    /// The year for a header's `m_packetFormat`.
    pub const fn from_packet_format(format: u16) -> Option<F1Year> {
        match format {
            2024 => Some(F1Year::F1_24),
            2025 => Some(F1Year::F1_25),
            _ => None,
        }
    }

    /// The header's `m_gameYear` (last two digits).
    pub const fn game_year(self) -> u8 {
        match self {
            F1Year::F1_24 => 24,
            F1Year::F1_25 => 25,
        }
    }

    /// The bridge's stream for this year.
    pub const fn stream(self) -> GameStream {
        match self {
            F1Year::F1_24 => GameStream::F1_24,
            F1Year::F1_25 => GameStream::F1_25,
        }
    }
}

/// The packet types rigd reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum F1Packet {
    /// Motion (id 0): world position, velocity, direction vectors, g-forces of every car.
    Motion,
    /// Session (id 1): track, weather, `m_gamePaused`.
    Session,
    /// Lap Data (id 2): lap times, distance, position of every car.
    LapData,
    /// Car Telemetry (id 6): speed, pedals, gear, rpm, tyres of every car.
    CarTelemetry,
    /// Car Status (id 7): fuel, rpm limits, gears of every car.
    CarStatus,
    /// Motion Ex (id 13): the player car's local velocity, angular velocity, wheels.
    MotionEx,
}

impl F1Packet {
    /// Every type, in id order.
    pub const ALL: [F1Packet; 6] = [
        F1Packet::Motion,
        F1Packet::Session,
        F1Packet::LapData,
        F1Packet::CarTelemetry,
        F1Packet::CarStatus,
        F1Packet::MotionEx,
    ];

    /// The header's `m_packetId`.
    pub const fn id(self) -> u8 {
        match self {
            F1Packet::Motion => 0,
            F1Packet::Session => 1,
            F1Packet::LapData => 2,
            F1Packet::CarTelemetry => 6,
            F1Packet::CarStatus => 7,
            F1Packet::MotionEx => 13,
        }
    }

    /// The type of `m_packetId`, when rigd reads it.
    pub const fn from_id(id: u8) -> Option<F1Packet> {
        match id {
            0 => Some(F1Packet::Motion),
            1 => Some(F1Packet::Session),
            2 => Some(F1Packet::LapData),
            6 => Some(F1Packet::CarTelemetry),
            7 => Some(F1Packet::CarStatus),
            13 => Some(F1Packet::MotionEx),
            _ => None,
        }
    }

    /// The exact datagram size in `year`'s specification.
    pub const fn len(self, year: F1Year) -> usize {
        match packet_len(year, self.id()) {
            Some(len) => len,
            None => 0, // every type rigd reads is defined in both years
        }
    }

    /// A short name.
    pub const fn name(self) -> &'static str {
        match self {
            F1Packet::Motion => "Motion",
            F1Packet::Session => "Session",
            F1Packet::LapData => "Lap Data",
            F1Packet::CarTelemetry => "Car Telemetry",
            F1Packet::CarStatus => "Car Status",
            F1Packet::MotionEx => "Motion Ex",
        }
    }
}

/// Packet ids the specifications define (0 ..= 15 in F1 25; F1 24 stops at 14).
const PACKET_ID_COUNT: u8 = 16;

/// The exact datagram size of packet id `id` in `year`'s specification, for every type the
/// specification defines (rigd reads six of them, [`F1Packet`]; the others are only
/// recognised, so a valid packet rigd does not read is ignored while random bytes behind an
/// F1 header are garbage). None for an id the year does not define.
///
/// Sizes from the specifications' packet tables: F1 24 ("Data Output from F1 24", the
/// `Size:` line of each packet) and F1 25 (EA's C++ structures, the `- N bytes` heading of
/// each packet); the two years differ in Participants, Final Classification, Lobby Info,
/// Car Damage and Motion Ex, and only F1 25 has Lap Positions (id 15).
pub const fn packet_len(year: F1Year, id: u8) -> Option<usize> {
    let len = match (id, year) {
        (0, _) => 1349,             // Motion
        (1, _) => 753,              // Session
        (2, _) => 1285,             // Lap Data
        (3, _) => 45,               // Event
        (4, F1Year::F1_24) => 1350, // Participants
        (4, F1Year::F1_25) => 1284,
        (5, _) => 1133,             // Car Setups
        (6, _) => 1352,             // Car Telemetry
        (7, _) => 1239,             // Car Status
        (8, F1Year::F1_24) => 1020, // Final Classification
        (8, F1Year::F1_25) => 1042,
        (9, F1Year::F1_24) => 1306, // Lobby Info
        (9, F1Year::F1_25) => 954,
        (10, F1Year::F1_24) => 953, // Car Damage
        (10, F1Year::F1_25) => 1041,
        (11, _) => 1460,            // Session History
        (12, _) => 231,             // Tyre Sets
        (13, F1Year::F1_24) => 237, // Motion Ex
        (13, F1Year::F1_25) => 273,
        (14, _) => 101,              // Time Trial
        (15, F1Year::F1_25) => 1131, // Lap Positions
        _ => return None,
    };
    Some(len)
}

/// Byte offsets of the fields rigd uses, from the specifications' structures.
mod layout {
    /// Header: `m_packetFormat`.
    pub const PACKET_FORMAT: usize = 0;
    /// Header: `m_gameYear`.
    pub const GAME_YEAR: usize = 2;
    /// Header: `m_gameMajorVersion`.
    pub const MAJOR_VERSION: usize = 3;
    /// Header: `m_packetVersion`.
    pub const PACKET_VERSION: usize = 5;
    /// Header: `m_packetId`.
    pub const PACKET_ID: usize = 6;
    /// Header: `m_sessionUID`.
    pub const SESSION_UID: usize = 7;
    /// Header: `m_sessionTime`.
    pub const SESSION_TIME: usize = 15;
    /// Header: `m_frameIdentifier`.
    pub const FRAME_ID: usize = 19;
    /// Header: `m_overallFrameIdentifier`.
    pub const OVERALL_FRAME_ID: usize = 23;
    /// Header: `m_playerCarIndex`.
    pub const PLAYER_CAR: usize = 27;
    /// Header: `m_secondaryPlayerCarIndex`.
    pub const SECONDARY_PLAYER_CAR: usize = 28;

    /// `CarMotionData` size and fields.
    pub const MOTION_STRIDE: usize = 60;
    pub const MOTION_POSITION: usize = 0;
    pub const MOTION_VELOCITY: usize = 12;
    pub const MOTION_FORWARD: usize = 24;
    pub const MOTION_RIGHT: usize = 30;
    pub const MOTION_G_LATERAL: usize = 36;
    pub const MOTION_G_LONGITUDINAL: usize = 40;
    pub const MOTION_G_VERTICAL: usize = 44;
    pub const MOTION_YAW: usize = 48;
    pub const MOTION_PITCH: usize = 52;
    pub const MOTION_ROLL: usize = 56;

    /// Session: `m_gamePaused` and `m_isSpectating` (after weather, temperatures, laps,
    /// track length, session type, track id, formula, time left, duration, pit limit).
    pub const SESSION_TRACK_LENGTH: usize = 33;
    pub const SESSION_TRACK_ID: usize = 36;
    pub const SESSION_GAME_PAUSED: usize = 43;
    pub const SESSION_IS_SPECTATING: usize = 44;
    pub const SESSION_SPECTATOR_CAR: usize = 45;

    /// `LapData` size and fields.
    pub const LAP_STRIDE: usize = 57;
    pub const LAP_LAST_MS: usize = 0;
    pub const LAP_CURRENT_MS: usize = 4;
    pub const LAP_SECTOR1_MS: usize = 8;
    pub const LAP_SECTOR1_MIN: usize = 10;
    pub const LAP_SECTOR2_MS: usize = 11;
    pub const LAP_SECTOR2_MIN: usize = 13;
    pub const LAP_DISTANCE: usize = 20;
    pub const LAP_TOTAL_DISTANCE: usize = 24;
    pub const LAP_CAR_POSITION: usize = 32;
    pub const LAP_CURRENT_LAP_NUM: usize = 33;
    pub const LAP_SECTOR: usize = 36;
    pub const LAP_GRID_POSITION: usize = 43;
    pub const LAP_DRIVER_STATUS: usize = 44;
    pub const LAP_RESULT_STATUS: usize = 45;
    pub const LAP_SPEED_TRAP_LAP: usize = 56;
    /// After the 22 cars: `m_timeTrialPBCarIdx`, `m_timeTrialRivalCarIdx`.
    pub const LAP_TIME_TRIAL_PB_CAR: usize = HEADER_LEN + MAX_CARS * LAP_STRIDE;

    /// `CarTelemetryData` size and fields.
    pub const TELEMETRY_STRIDE: usize = 60;
    pub const TELEMETRY_SPEED_KPH: usize = 0;
    pub const TELEMETRY_THROTTLE: usize = 2;
    pub const TELEMETRY_STEER: usize = 6;
    pub const TELEMETRY_BRAKE: usize = 10;
    pub const TELEMETRY_CLUTCH: usize = 14;
    pub const TELEMETRY_GEAR: usize = 15;
    pub const TELEMETRY_RPM: usize = 16;
    pub const TELEMETRY_REV_LIGHTS_PERCENT: usize = 19;
    pub const TELEMETRY_REV_LIGHTS_BITS: usize = 20;
    pub const TELEMETRY_TYRE_SURFACE_TEMP: usize = 30;
    pub const TELEMETRY_TYRE_INNER_TEMP: usize = 34;
    pub const TELEMETRY_TYRE_PRESSURE: usize = 40;
    pub const TELEMETRY_SURFACE_TYPE: usize = 56;
    /// After the 22 cars: `m_mfdPanelIndex`, secondary, `m_suggestedGear`.
    pub const TELEMETRY_MFD_PANEL: usize = HEADER_LEN + MAX_CARS * TELEMETRY_STRIDE;

    /// `CarStatusData` size and fields.
    pub const STATUS_STRIDE: usize = 55;
    pub const STATUS_FUEL_IN_TANK: usize = 5;
    pub const STATUS_FUEL_CAPACITY: usize = 9;
    pub const STATUS_MAX_RPM: usize = 17;
    pub const STATUS_IDLE_RPM: usize = 19;
    pub const STATUS_MAX_GEARS: usize = 21;
    pub const STATUS_ENGINE_POWER_ICE: usize = 29;

    /// Motion Ex fields (player car only, right after the header).
    pub const EX_SUSPENSION_POSITION: usize = 29;
    pub const EX_SUSPENSION_VELOCITY: usize = 45;
    pub const EX_WHEEL_SPEED: usize = 77;
    pub const EX_SLIP_RATIO: usize = 93;
    pub const EX_SLIP_ANGLE: usize = 109;
    pub const EX_LAT_FORCE: usize = 125;
    pub const EX_LONG_FORCE: usize = 141;
    pub const EX_LOCAL_VELOCITY: usize = 161;
    pub const EX_ANGULAR_VELOCITY: usize = 173;
    pub const EX_FRONT_WHEELS_ANGLE: usize = 197;
    pub const EX_VERTICAL_FORCE: usize = 201;

    use super::{HEADER_LEN, MAX_CARS};
}

/// F1's wheel order (RL, RR, FL, FR) as indices into rigd's FL, FR, RL, RR.
pub const F1_WHEEL_ORDER: [usize; 4] = [
    rig_types::WHEEL_RL,
    rig_types::WHEEL_RR,
    rig_types::WHEEL_FL,
    rig_types::WHEEL_FR,
];

/// Metres per second per km/h.
const MPS_PER_KPH: f64 = 1.0 / 3.6;
/// kPa per psi.
const KPA_PER_PSI: f64 = 6.894_757;
/// Scale of the int16 direction vectors.
const DIRECTION_SCALE: f64 = 32767.0;
