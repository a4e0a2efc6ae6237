//! Forza "Data Out": Sled (232 bytes), FM7 Car Dash (311), FH4/FH5 (324: a 12-byte block at
//! 232 and a pad byte at 323) and FM2023 Car Dash (331). Receivers choose the layout by size.
//!
//! Axes: Forza's local frame is X right, Y up, Z forward; ours is x forward, y left, z up, so
//! a body vector maps as `(X, Y, Z) = (-y, z, x)`. The same mapping is used for world
//! positions and for angular velocity (`X` = pitch rate, `Y` = yaw rate, `Z` = roll rate), and
//! for the angles: `yaw = our yaw`, `pitch = -our pitch` (positive nose up), `roll = our roll`.
//! Acceleration is the kinematic body acceleration (gravity not included).
//!
//! Normalised channels use nominal peaks because the frame carries no tyre curve:
//! slip ratio / [`NOMINAL_PEAK_SLIP_RATIO`], slip angle / [`NOMINAL_PEAK_SLIP_ANGLE_RAD`],
//! combined slip = hypot of the two (so 1.0 means "at the grip limit"), and suspension travel /
//! [`NOMINAL_SUSPENSION_TRAVEL_M`] clamped to 0..1. Steer is -127 (full left) .. 127 (full
//! right), the opposite sign of ours. Gear: 0 = R, 1.. forward, [`FORZA_NEUTRAL_GEAR`] for
//! neutral. Tyre temperature is sent in degF. Neutral values for what the sim does not model:
//! car ordinal, class, performance index, cylinders, race position, puddle depth, surface
//! rumble, driving line, AI brake difference, boost, tyre wear, track ordinal: 0; fuel 1.0.

use zerocopy::little_endian::{F32, I32, U16, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::telemetry::convert::{
    engine_power_w, f32_of, finite_or_zero, millis_wrapping, signed_unit_to_i8, total_distance_m,
    unit_to_u8,
};
use crate::telemetry::DecodeError;
use rig_types::{Frame, SurfaceKind, DIFF_CENTRE, DIFF_FRONT, DIFF_REAR};

/// Size of the Sled packet.
pub const SLED_LEN: usize = 232;
/// Size of the FM7 Car Dash packet.
pub const FM7_DASH_LEN: usize = 311;
/// Size of the FH4/FH5 packet.
pub const HORIZON_LEN: usize = 324;
/// Size of the FM2023 Car Dash packet.
pub const FM2023_LEN: usize = 331;
/// Slip ratio sent as 1.0 (the grip limit).
pub const NOMINAL_PEAK_SLIP_RATIO: f64 = 0.1;
/// Slip angle sent as 1.0 (the grip limit), rad.
pub const NOMINAL_PEAK_SLIP_ANGLE_RAD: f64 = 0.14;
/// Suspension compression sent as 1.0 (full compression), m.
pub const NOMINAL_SUSPENSION_TRAVEL_M: f64 = 0.15;
/// Gear byte for neutral (community reports 11 in Forza Horizon).
pub const FORZA_NEUTRAL_GEAR: u8 = 11;
/// `DrivetrainType`: front-wheel drive.
pub const DRIVETRAIN_FWD: i32 = 0;
/// `DrivetrainType`: rear-wheel drive.
pub const DRIVETRAIN_RWD: i32 = 1;
/// `DrivetrainType`: all-wheel drive.
pub const DRIVETRAIN_AWD: i32 = 2;

/// The Sled block, bytes 0..232 of every Forza packet.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Sled {
    /// 1 while racing.
    pub is_race_on: I32,
    /// Time, ms (wraps).
    pub timestamp_ms: U32,
    /// Rev limiter, rpm.
    pub engine_max_rpm: F32,
    /// Idle, rpm.
    pub engine_idle_rpm: F32,
    /// Engine speed, rpm.
    pub current_engine_rpm: F32,
    /// Local acceleration X right, Y up, Z forward, m/s^2.
    pub acceleration: [F32; 3],
    /// Local velocity, m/s.
    pub velocity: [F32; 3],
    /// Angular velocity X pitch, Y yaw, Z roll, rad/s.
    pub angular_velocity: [F32; 3],
    /// Yaw, rad.
    pub yaw: F32,
    /// Pitch, rad.
    pub pitch: F32,
    /// Roll, rad.
    pub roll: F32,
    /// Suspension travel 0 (stretched) .. 1 (compressed), FL FR RL RR.
    pub normalized_suspension_travel: [F32; 4],
    /// Normalised slip ratio, FL FR RL RR.
    pub tire_slip_ratio: [F32; 4],
    /// Wheel spin, rad/s.
    pub wheel_rotation_speed: [F32; 4],
    /// 1 on a rumble strip.
    pub wheel_on_rumble_strip: [I32; 4],
    /// Puddle depth 0..1.
    pub wheel_in_puddle_depth: [F32; 4],
    /// Surface rumble for FFB.
    pub surface_rumble: [F32; 4],
    /// Normalised slip angle.
    pub tire_slip_angle: [F32; 4],
    /// Normalised combined slip.
    pub tire_combined_slip: [F32; 4],
    /// Suspension travel, m.
    pub suspension_travel_meters: [F32; 4],
    /// Car make/model id.
    pub car_ordinal: I32,
    /// Car class 0 (D) .. 7 (X).
    pub car_class: I32,
    /// Performance index.
    pub car_performance_index: I32,
    /// 0 FWD, 1 RWD, 2 AWD.
    pub drivetrain_type: I32,
    /// Number of cylinders.
    pub num_cylinders: I32,
}
const _: () = assert!(core::mem::size_of::<Sled>() == SLED_LEN);

/// The 79-byte Car Dash extension.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Dash {
    /// World position X, Y (up), Z, m.
    pub position: [F32; 3],
    /// Speed, m/s.
    pub speed: F32,
    /// Engine power, W.
    pub power: F32,
    /// Engine torque, N m.
    pub torque: F32,
    /// Tyre temperature, degF, FL FR RL RR.
    pub tire_temp: [F32; 4],
    /// Boost, psi.
    pub boost: F32,
    /// Fuel, 0..1.
    pub fuel: F32,
    /// Distance travelled, m.
    pub distance_traveled: F32,
    /// Best lap, s.
    pub best_lap: F32,
    /// Last lap, s.
    pub last_lap: F32,
    /// Current lap, s.
    pub current_lap: F32,
    /// Race time, s.
    pub current_race_time: F32,
    /// Lap number.
    pub lap_number: U16,
    /// Race position.
    pub race_position: u8,
    /// Throttle 0..255.
    pub accel: u8,
    /// Brake 0..255.
    pub brake: u8,
    /// Clutch 0..255.
    pub clutch: u8,
    /// Handbrake 0..255.
    pub hand_brake: u8,
    /// Gear: 0 R, 1.. forward, 11 neutral.
    pub gear: u8,
    /// Steer -127 (left) .. 127 (right).
    pub steer: i8,
    /// Driving line.
    pub normalized_driving_line: i8,
    /// AI brake difference.
    pub normalized_ai_brake_difference: i8,
}
const _: () = assert!(core::mem::size_of::<Dash>() == 79);

/// The FM7 Car Dash packet (311 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Fm7DashPacket {
    /// Bytes 0..232.
    pub sled: Sled,
    /// Bytes 232..311.
    pub dash: Dash,
}
const _: () = assert!(core::mem::size_of::<Fm7DashPacket>() == FM7_DASH_LEN);

/// The FH4/FH5 packet (324 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct HorizonPacket {
    /// Bytes 0..232.
    pub sled: Sled,
    /// Bytes 232..244: undocumented in FH4/FH5 (car category and two unknowns); zeros.
    pub horizon_block: [u8; 12],
    /// Bytes 244..323.
    pub dash: Dash,
    /// Byte 323, 0.
    pub pad: u8,
}
const _: () = assert!(core::mem::size_of::<HorizonPacket>() == HORIZON_LEN);

/// The FM2023 Car Dash packet (331 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct Fm2023Packet {
    /// Bytes 0..232.
    pub sled: Sled,
    /// Bytes 232..311.
    pub dash: Dash,
    /// Tyre wear 0..1, FL FR RL RR.
    pub tire_wear: [F32; 4],
    /// Track id.
    pub track_ordinal: I32,
}
const _: () = assert!(core::mem::size_of::<Fm2023Packet>() == FM2023_LEN);

/// A body-frame vector in Forza's local axes (X right, Y up, Z forward).
pub fn to_forza_axes(v: [f64; 3]) -> [F32; 3] {
    [f32_of(-v[1]), f32_of(v[2]), f32_of(v[0])]
}

fn drivetrain_type(frame: &Frame) -> i32 {
    let diffs = &frame.car.drivetrain.diffs;
    let front = diffs[DIFF_FRONT].present;
    let rear = diffs[DIFF_REAR].present;
    if diffs[DIFF_CENTRE].present || (front && rear) {
        DRIVETRAIN_AWD
    } else if front {
        DRIVETRAIN_FWD
    } else {
        DRIVETRAIN_RWD
    }
}

/// Encodes the Sled block of `frame` (also the whole 232-byte Sled packet).
pub fn encode_sled(frame: &Frame) -> Sled {
    let car = &frame.car;
    let dt = &car.drivetrain;
    let [roll, pitch, yaw] = car.roll_pitch_yaw_rad;
    let per_wheel =
        |f: &dyn Fn(&rig_types::WheelTelemetry) -> f64| car.wheels.map(|w| f32_of(f(&w)));
    Sled {
        is_race_on: I32::new(1),
        timestamp_ms: U32::new(millis_wrapping(car.time_s)),
        engine_max_rpm: f32_of(dt.max_rpm),
        engine_idle_rpm: f32_of(dt.idle_rpm),
        current_engine_rpm: f32_of(dt.engine_rpm),
        acceleration: to_forza_axes(car.acceleration_body_mps2),
        velocity: to_forza_axes(car.velocity_body_mps),
        angular_velocity: to_forza_axes(car.angular_velocity_body_radps),
        yaw: f32_of(yaw),
        pitch: f32_of(-pitch),
        roll: f32_of(roll),
        normalized_suspension_travel: per_wheel(&|w| {
            (finite_or_zero(w.suspension_travel_m) / NOMINAL_SUSPENSION_TRAVEL_M).clamp(0.0, 1.0)
        }),
        tire_slip_ratio: per_wheel(&|w| w.slip_ratio / NOMINAL_PEAK_SLIP_RATIO),
        wheel_rotation_speed: per_wheel(&|w| w.angular_velocity_radps),
        wheel_on_rumble_strip: car
            .wheels
            .map(|w| I32::new(i32::from(w.surface == SurfaceKind::Kerb))),
        wheel_in_puddle_depth: [F32::new(0.0); 4],
        surface_rumble: [F32::new(0.0); 4],
        tire_slip_angle: per_wheel(&|w| w.slip_angle_rad / NOMINAL_PEAK_SLIP_ANGLE_RAD),
        tire_combined_slip: per_wheel(&|w| {
            (w.slip_ratio / NOMINAL_PEAK_SLIP_RATIO)
                .hypot(w.slip_angle_rad / NOMINAL_PEAK_SLIP_ANGLE_RAD)
        }),
        suspension_travel_meters: per_wheel(&|w| w.suspension_travel_m),
        car_ordinal: I32::new(0),
        car_class: I32::new(0),
        car_performance_index: I32::new(0),
        drivetrain_type: I32::new(drivetrain_type(frame)),
        num_cylinders: I32::new(0),
    }
}

/// Our gear (-1 R, 0 N, 1..) as a Forza gear byte.
pub fn gear_to_forza(gear: i8) -> u8 {
    match gear {
        g if g < 0 => 0,
        0 => FORZA_NEUTRAL_GEAR,
        g => g as u8,
    }
}

/// A Forza gear byte in our convention (-1 R, 0 N, 1..).
pub fn gear_from_forza(gear: u8) -> i8 {
    match gear {
        0 => -1,
        FORZA_NEUTRAL_GEAR => 0,
        g => g.min(127) as i8,
    }
}

/// Encodes the Car Dash block of `frame`.
pub fn encode_dash(frame: &Frame) -> Dash {
    let car = &frame.car;
    let c = &car.controls;
    let lap = &car.lap;
    let [x, y, z] = car.position_m;
    Dash {
        position: [f32_of(-y), f32_of(z), f32_of(x)],
        speed: f32_of(car.speed_mps),
        power: f32_of(engine_power_w(car)),
        torque: f32_of(car.drivetrain.engine_torque_nm),
        tire_temp: car
            .wheels
            .map(|w| f32_of(w.temperature_c * 9.0 / 5.0 + 32.0)),
        boost: F32::new(0.0),
        fuel: F32::new(1.0),
        distance_traveled: f32_of(total_distance_m(car)),
        best_lap: f32_of(lap.best_lap_s),
        last_lap: f32_of(lap.last_lap_s),
        current_lap: f32_of(lap.current_lap_s),
        current_race_time: f32_of(car.time_s),
        lap_number: U16::new(lap.laps_completed.min(u32::from(u16::MAX)) as u16),
        race_position: 0,
        accel: unit_to_u8(c.throttle),
        brake: unit_to_u8(c.brake),
        clutch: unit_to_u8(c.clutch),
        hand_brake: unit_to_u8(c.handbrake),
        gear: gear_to_forza(car.drivetrain.gear),
        steer: signed_unit_to_i8(-c.steering),
        normalized_driving_line: 0,
        normalized_ai_brake_difference: 0,
    }
}

/// Encodes `frame` as the 311-byte FM7 Car Dash packet.
pub fn encode_fm7_dash(frame: &Frame) -> Fm7DashPacket {
    Fm7DashPacket {
        sled: encode_sled(frame),
        dash: encode_dash(frame),
    }
}

/// Encodes `frame` as the 324-byte FH4/FH5 packet.
pub fn encode_horizon(frame: &Frame) -> HorizonPacket {
    HorizonPacket {
        sled: encode_sled(frame),
        horizon_block: [0; 12],
        dash: encode_dash(frame),
        pad: 0,
    }
}

/// Encodes `frame` as the 331-byte FM2023 Car Dash packet.
pub fn encode_fm2023(frame: &Frame) -> Fm2023Packet {
    Fm2023Packet {
        sled: encode_sled(frame),
        dash: encode_dash(frame),
        tire_wear: frame.car.wheels.map(|w| f32_of(w.wear)),
        track_ordinal: I32::new(0),
    }
}

fn read_exact<T: FromBytes>(
    bytes: &[u8],
    name: &'static str,
    len: usize,
) -> Result<T, DecodeError> {
    T::read_from_bytes(bytes).map_err(|_| DecodeError::size(name, len, bytes.len()))
}

/// Decodes a 232-byte Sled packet.
pub fn decode_sled(bytes: &[u8]) -> Result<Sled, DecodeError> {
    read_exact(bytes, "Forza Sled", SLED_LEN)
}

/// Decodes a 311-byte FM7 Car Dash packet.
pub fn decode_fm7_dash(bytes: &[u8]) -> Result<Fm7DashPacket, DecodeError> {
    read_exact(bytes, "Forza FM7 Dash", FM7_DASH_LEN)
}

/// Decodes a 324-byte FH4/FH5 packet.
pub fn decode_horizon(bytes: &[u8]) -> Result<HorizonPacket, DecodeError> {
    read_exact(bytes, "Forza Horizon", HORIZON_LEN)
}

/// Decodes a 331-byte FM2023 Car Dash packet.
pub fn decode_fm2023(bytes: &[u8]) -> Result<Fm2023Packet, DecodeError> {
    read_exact(bytes, "Forza Motorsport 2023", FM2023_LEN)
}
