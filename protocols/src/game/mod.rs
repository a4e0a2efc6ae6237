//! Games' UDP telemetry read as a source of rigd's frame (the game bridge): what one datagram
//! from a game says about the player's car, in rigd's conventions, whatever game sent it.
//!
//! Each game's decoder is a pure function from bytes to a [`GameSample`] (no I/O, no
//! allocation, never a panic or a non-finite value on any input). Every channel is converted
//! to the conventions of [`rig_types::CarTelemetry`]: SI units, world frame right-handed with
//! `z` up, body frame x forward, y left, z up (ISO 8855), wheels FL, FR, RL, RR, gear -1 R /
//! 0 N / 1.., steering positive left. A channel the packet does not carry is `None`, never a
//! made-up value: a game that sends only some packet types (F1's Motion and Car Telemetry
//! come as separate datagrams) gives samples that each fill a part, and the bridge keeps the
//! latest value of each channel.
//!
//! [`decode`] reads a datagram as one [`GameFormat`] (or, without one, as whatever [`detect`]
//! recognises); one module per game does the reading, each with `decode` and `matches`.
//! Codemasters, F1 and EA WRC may share port 20777: Codemasters is 264 bytes, EA WRC's default
//! structure 237 (241 with its packet code), and F1 packets carry their packet format and id
//! (F1 24's 237-byte Motion Ex is told from EA WRC by that header).

pub mod beamng;
pub mod codemasters;
pub mod ea_wrc;
pub mod f1;
pub mod forza;
pub mod gt7;
pub mod lfs;
mod vectors;
pub mod y_up;

/// Which game stream a datagram was decoded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameStream {
    /// Forza "Sled", 232 bytes (FM7 Sled option).
    ForzaSled,
    /// Forza Motorsport 7 Car Dash, 311 bytes.
    ForzaFm7Dash,
    /// Forza Horizon 4/5, 324 bytes.
    ForzaHorizon,
    /// Forza Motorsport (2023) Car Dash, 331 bytes.
    ForzaFm2023,
    /// EA F1 24 UDP (packet format 2024).
    F1_24,
    /// EA F1 25 UDP (packet format 2025).
    F1_25,
    /// Codemasters extradata=3 (DiRT Rally 1/2, GRID, Project CARS' compatible mode).
    Codemasters,
    /// EA Sports WRC UDP (its documented `wrc` structure).
    EaWrc,
    /// BeamNG.drive MotionSim.
    BeamNgMotionSim,
    /// LFS (or BeamNG) OutGauge.
    OutGauge,
    /// LFS OutSim classic.
    OutSim,
    /// LFS OutSimPack2.
    OutSimPack2,
    /// Gran Turismo 7 (Salsa20-encrypted packets).
    Gt7,
}

impl GameStream {
    /// The game (format) this stream belongs to.
    pub fn format(self) -> GameFormat {
        match self {
            GameStream::ForzaSled
            | GameStream::ForzaFm7Dash
            | GameStream::ForzaHorizon
            | GameStream::ForzaFm2023 => GameFormat::Forza,
            GameStream::F1_24 | GameStream::F1_25 => GameFormat::F1,
            GameStream::Codemasters => GameFormat::Codemasters,
            GameStream::EaWrc => GameFormat::EaWrc,
            GameStream::BeamNgMotionSim => GameFormat::BeamNg,
            GameStream::OutGauge | GameStream::OutSim | GameStream::OutSimPack2 => GameFormat::Lfs,
            GameStream::Gt7 => GameFormat::Gt7,
        }
    }

    /// A short name for logs and status lines.
    pub fn name(self) -> &'static str {
        match self {
            GameStream::ForzaSled => "Forza Sled",
            GameStream::ForzaFm7Dash => "Forza FM7 Car Dash",
            GameStream::ForzaHorizon => "Forza Horizon",
            GameStream::ForzaFm2023 => "Forza Motorsport 2023",
            GameStream::F1_24 => "F1 24",
            GameStream::F1_25 => "F1 25",
            GameStream::Codemasters => "Codemasters",
            GameStream::EaWrc => "EA WRC",
            GameStream::BeamNgMotionSim => "BeamNG MotionSim",
            GameStream::OutGauge => "OutGauge",
            GameStream::OutSim => "OutSim",
            GameStream::OutSimPack2 => "OutSimPack2",
            GameStream::Gt7 => "Gran Turismo 7",
        }
    }
}

/// A game whose telemetry the bridge reads (one decoder module each; a game may send more
/// than one [`GameStream`], e.g. BeamNG's MotionSim and OutGauge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameFormat {
    /// Forza Motorsport 7 / 2023, Forza Horizon 4/5.
    Forza,
    /// EA F1 24 / F1 25.
    F1,
    /// Codemasters extradata=3.
    Codemasters,
    /// EA Sports WRC.
    EaWrc,
    /// BeamNG.drive MotionSim + OutGauge.
    BeamNg,
    /// Live for Speed OutSim / OutSimPack2 + OutGauge.
    Lfs,
    /// Gran Turismo 7.
    Gt7,
}

/// The game a datagram looks like (length and magic/header checks only), or `None`.
/// Each decoder adds its `matches` here.
pub fn detect_format(bytes: &[u8]) -> Option<GameFormat> {
    if forza::matches(bytes) {
        Some(GameFormat::Forza)
    } else if f1::matches(bytes) {
        Some(GameFormat::F1)
    } else if gt7::matches(bytes) {
        Some(GameFormat::Gt7)
    } else if codemasters::matches(bytes) {
        Some(GameFormat::Codemasters)
    } else if ea_wrc::matches(bytes) {
        Some(GameFormat::EaWrc)
    } else if beamng::matches(bytes) {
        Some(GameFormat::BeamNg)
    } else if lfs::matches(bytes) {
        // Also BeamNG's OutGauge (96 bytes): the LFS layout, decoded the same way.
        Some(GameFormat::Lfs)
    } else {
        None
    }
}

/// The stream a datagram decodes as, or `None` when no decoder reads it.
pub fn detect(bytes: &[u8]) -> Option<GameStream> {
    decode(None, bytes).ok().map(|sample| sample.stream)
}

/// Decodes `bytes` as `format`, or as whatever [`detect_format`] recognises when `None`
/// (auto). Each decoder adds its arm here.
pub fn decode(format: Option<GameFormat>, bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    let unrecognised = GameDecodeError::Unrecognised { len: bytes.len() };
    match format
        .or_else(|| detect_format(bytes))
        .ok_or(unrecognised.clone())?
    {
        GameFormat::Forza => forza::decode(bytes),
        GameFormat::F1 => f1::decode(bytes),
        GameFormat::Gt7 => gt7::decode(bytes),
        GameFormat::Codemasters => codemasters::decode(bytes),
        GameFormat::EaWrc => ea_wrc::decode(bytes),
        GameFormat::BeamNg => beamng::decode(bytes),
        GameFormat::Lfs => lfs::decode(bytes),
    }
}

/// The motion channels of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GameMotion {
    /// Position of the car in the world frame (z up), m.
    pub position_m: Option<[f64; 3]>,
    /// Velocity in the world frame, m/s.
    pub velocity_world_mps: Option<[f64; 3]>,
    /// Velocity in the body frame, m/s.
    pub velocity_body_mps: Option<[f64; 3]>,
    /// Kinematic acceleration of the car in the body frame (not the specific force: a car at
    /// rest reads zero), m/s^2.
    pub acceleration_body_mps2: Option<[f64; 3]>,
    /// Angular velocity in the body frame (roll, pitch, yaw rates), rad/s.
    pub angular_velocity_body_radps: Option<[f64; 3]>,
    /// Roll, pitch, yaw (Tait-Bryan z-y-x, rigd's signs: roll positive right-hand about x,
    /// pitch positive nose down, yaw positive turning left), rad.
    pub roll_pitch_yaw_rad: Option<[f64; 3]>,
}

/// One wheel's channels of one sample (FL, FR, RL, RR).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GameWheel {
    /// Suspension compression from full droop, m (larger = more compressed).
    pub suspension_travel_m: Option<f64>,
    /// Suspension compression speed, m/s (positive compressing).
    pub suspension_velocity_mps: Option<f64>,
    /// Spin rate, rad/s (positive rolling forward).
    pub angular_velocity_radps: Option<f64>,
    /// Slip ratio (positive driving).
    pub slip_ratio: Option<f64>,
    /// Slip angle, rad (ISO sign).
    pub slip_angle_rad: Option<f64>,
    /// Vertical load, N.
    pub load_n: Option<f64>,
    /// Tyre surface temperature, degC.
    pub temperature_c: Option<f64>,
    /// Tyre pressure (gauge), kPa.
    pub pressure_kpa: Option<f64>,
}

/// The car's driver-facing channels of one sample.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct GameCar {
    /// Speed over ground, m/s.
    pub speed_mps: Option<f64>,
    /// Engine speed, rpm.
    pub engine_rpm: Option<f64>,
    /// Rev limiter (or the game's maximum rpm), rpm.
    pub max_rpm: Option<f64>,
    /// Idle speed, rpm.
    pub idle_rpm: Option<f64>,
    /// Gear: -1 reverse, 0 neutral, 1.. forward.
    pub gear: Option<i8>,
    /// Number of forward gears.
    pub forward_gears: Option<u8>,
    /// Throttle 0..1.
    pub throttle: Option<f64>,
    /// Brake 0..1.
    pub brake: Option<f64>,
    /// Clutch pedal 0..1 (1 = pressed).
    pub clutch: Option<f64>,
    /// Handbrake 0..1.
    pub handbrake: Option<f64>,
    /// Steering input -1..1, positive left.
    pub steer: Option<f64>,
    /// Fuel left, 0..1 of the tank.
    pub fuel_fraction: Option<f64>,
    /// Completed laps.
    pub laps_completed: Option<u32>,
    /// Time into the current lap, s.
    pub current_lap_s: Option<f64>,
    /// Last lap, s.
    pub last_lap_s: Option<f64>,
    /// Best lap, s.
    pub best_lap_s: Option<f64>,
    /// Distance into the lap, m.
    pub lap_distance_m: Option<f64>,
    /// Position in the race, 1 = leading.
    pub race_position: Option<u32>,
}

/// What one datagram says about the player's car.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameSample {
    /// The stream it was decoded as.
    pub stream: GameStream,
    /// The game's own clock for this sample, s, when the packet carries one (used to order and
    /// space samples; the bridge times arrivals itself when this is `None`).
    pub game_time_s: Option<f64>,
    /// Whether the player is driving: `Some(false)` when the game says it is paused, in a
    /// menu or not racing (Forza `IsRaceOn` = 0, F1 `m_gamePaused`); `None` when this packet
    /// does not say.
    pub driving: Option<bool>,
    /// Motion channels.
    pub motion: GameMotion,
    /// Driver-facing channels.
    pub car: GameCar,
    /// The four wheels, FL, FR, RL, RR.
    pub wheels: [GameWheel; 4],
}

impl GameSample {
    /// A sample of `stream` that says nothing yet (every channel `None`).
    pub fn empty(stream: GameStream) -> GameSample {
        GameSample {
            stream,
            game_time_s: None,
            driving: None,
            motion: GameMotion::default(),
            car: GameCar::default(),
            wheels: [GameWheel::default(); 4],
        }
    }
}

/// Why a datagram could not be read as a game's telemetry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameDecodeError {
    /// No supported game stream has this length and magic.
    #[error("a {len}-byte datagram is none of the game streams rigd reads: check the game's telemetry format setting (docs/games/README.md lists what each game must send)")]
    Unrecognised {
        /// The datagram's length, bytes.
        len: usize,
    },
    /// The datagram has the length of `stream` but not its content (magic, version, id).
    #[error("not a valid {stream:?} packet: {reason}")]
    Invalid {
        /// The stream it looked like.
        stream: GameStream,
        /// What is wrong.
        reason: &'static str,
    },
    /// The datagram has the length of `stream`, which has no magic, but a value no game sends
    /// (beyond what a car can do, a flag bit the format does not define): random bytes or
    /// another program's packet of that size, never read as a car.
    #[error("a {stream:?}-sized datagram with an implausible {channel}: random bytes or another program's packet, not the game's (check that only the game sends to [source] listen)")]
    Implausible {
        /// The stream whose length it has.
        stream: GameStream,
        /// The first channel found out of its range.
        channel: &'static str,
    },
    /// A valid packet of a type the bridge does not read (e.g. F1's Lobby Info): not an error
    /// of the game's, nothing to show.
    #[error("a {stream:?} packet of a type the bridge does not use (id {packet_id})")]
    Ignored {
        /// The stream.
        stream: GameStream,
        /// The packet's type id.
        packet_id: u8,
    },
}
