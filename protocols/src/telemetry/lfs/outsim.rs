//! Live for Speed OutSim: the classic 64-byte motion packet (68 with ID) and the extended
//! `OutSimPack2` whose parts are selected by the `OutSim Opts` bits.
//!
//! Axes and units: LFS world X, Y on the ground, Z up; our world frame is also z-up and
//! right-handed, so position, velocity, acceleration and angular velocity are our world-frame
//! vectors unchanged (acceleration is the kinematic one, gravity not included; angular velocity
//! is the body rate rotated into the world). Positions are metres x 65536 as i32 (saturating).
//! Angles: LFS heading is anticlockwise from above with 0 facing world +Y, so
//! `heading = yaw - pi/2` (wrapped to (-pi, pi]); pitch is anticlockwise seen from the right,
//! i.e. positive nose up, so `pitch = -our pitch` (ours is positive nose down); roll is
//! anticlockwise seen from the front, the same as ours (positive: left side up).
//!
//! OutSimPack2 wheels are sent in LFS's RL, RR, FL, FR order (rears first). Wheel forces are
//! LFS's X right / Y forward, so `x_force = -our lateral force` (ours is positive left). Neutral
//! values: `MaxTorqueAtVel` 0 (the torque curve is not in the frame), `LeanRelToRoad` 0 (no
//! camber model), `SlipFraction` 0, air temperature = our tyre temperature clamped to 0..255.

use zerocopy::little_endian::{F32, I32, U32};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::telemetry::convert::{
    body_to_world, f32_of, f32x3, finite_or_zero, front_steer_rad, gear_to_lfs, millis_wrapping,
    saturating_i32, wrap_angle, RADPS_PER_RPM,
};
use crate::telemetry::DecodeError;
use rig_types::{Frame, WHEEL_FL, WHEEL_FR, WHEEL_RL, WHEEL_RR};

/// Size of the classic packet without an ID.
pub const OUTSIM_LEN: usize = 64;
/// Size of the classic packet with the 4-byte ID.
pub const OUTSIM_WITH_ID_LEN: usize = 68;
/// The magic of an OutSimPack2 packet with the `HEADER` option.
pub const PACK2_MAGIC: [u8; 4] = *b"LFST";
/// Positions are sent as metres times this factor.
pub const POSITION_SCALE: f64 = 65536.0;
/// LFS's wheel order in `OSWheels`, as indices into our FL, FR, RL, RR arrays.
pub const LFS_WHEEL_ORDER: [usize; 4] = [WHEEL_RL, WHEEL_RR, WHEEL_FL, WHEEL_FR];

/// `OSMain`: the motion block shared by the classic packet and OutSimPack2 (60 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OsMain {
    /// Angular velocity in the world frame, rad/s.
    pub angular_velocity: [F32; 3],
    /// Heading, rad, anticlockwise from above, 0 facing +Y.
    pub heading: F32,
    /// Pitch, rad, anticlockwise from the right (nose up positive).
    pub pitch: F32,
    /// Roll, rad, anticlockwise from the front.
    pub roll: F32,
    /// Acceleration in the world frame, m/s^2.
    pub acceleration: [F32; 3],
    /// Velocity in the world frame, m/s.
    pub velocity: [F32; 3],
    /// Position, metres x 65536.
    pub position: [I32; 3],
}
const _: () = assert!(core::mem::size_of::<OsMain>() == 60);

/// The classic 64-byte packet (`Opts = 0`).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OutSimPacket {
    /// Time, ms.
    pub time_ms: U32,
    /// Motion block.
    pub main: OsMain,
}
const _: () = assert!(core::mem::size_of::<OutSimPacket>() == OUTSIM_LEN);

/// The classic packet with the `OutSim ID` appended (68 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OutSimWithIdPacket {
    /// The common body.
    pub body: OutSimPacket,
    /// `OutSim ID`.
    pub id: I32,
}
const _: () = assert!(core::mem::size_of::<OutSimWithIdPacket>() == OUTSIM_WITH_ID_LEN);

/// `OSInputs` (20 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OsInputs {
    /// Throttle, 0..1.
    pub throttle: F32,
    /// Brake, 0..1.
    pub brake: F32,
    /// Steer input, rad: mean front road-wheel angle, positive left.
    pub input_steer_rad: F32,
    /// Clutch, 0..1.
    pub clutch: F32,
    /// Handbrake, 0..1.
    pub handbrake: F32,
}
const _: () = assert!(core::mem::size_of::<OsInputs>() == 20);

/// The `DRIVE` part (12 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OsDrive {
    /// Gear: 0 R, 1 N, 2 first.
    pub gear: u8,
    /// Spare, 0.
    pub spare: [u8; 3],
    /// Engine angular velocity, rad/s.
    pub engine_angular_velocity_radps: F32,
    /// Maximum torque at the current engine speed, N m (0: not in the frame).
    pub max_torque_at_velocity_nm: F32,
}
const _: () = assert!(core::mem::size_of::<OsDrive>() == 12);

/// The `DISTANCE` part (8 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OsDistance {
    /// Distance into the current lap, m.
    pub current_lap_distance_m: F32,
    /// Indexed distance along the track, m (the same as the lap distance here).
    pub indexed_distance_m: F32,
}
const _: () = assert!(core::mem::size_of::<OsDistance>() == 8);

/// `OutSimWheel` (40 bytes, `<7fBBBxff`).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OsWheel {
    /// Suspension compression, m.
    pub suspension_deflection_m: F32,
    /// Road-wheel steer angle, rad (positive left).
    pub steer_rad: F32,
    /// Lateral tyre force, N, positive right.
    pub x_force_n: F32,
    /// Longitudinal tyre force, N, positive forward.
    pub y_force_n: F32,
    /// Vertical load, N.
    pub vertical_load_n: F32,
    /// Wheel spin rate, rad/s.
    pub angular_velocity_radps: F32,
    /// Lean relative to the road, rad.
    pub lean_rel_to_road_rad: F32,
    /// Air temperature, degC.
    pub air_temp_c: u8,
    /// Slip fraction, 0..255.
    pub slip_fraction: u8,
    /// 1 while touching the ground.
    pub touching: u8,
    /// Spare, 0.
    pub spare: u8,
    /// Slip ratio.
    pub slip_ratio: F32,
    /// Tangent of the slip angle.
    pub tan_slip_angle: F32,
}
const _: () = assert!(core::mem::size_of::<OsWheel>() == 40);

/// The `EXTRA_1` part (8 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OsExtra1 {
    /// Steering-column torque, N m.
    pub steer_torque_nm: F32,
    /// Spare, 0.
    pub spare: [u8; 4],
}
const _: () = assert!(core::mem::size_of::<OsExtra1>() == 8);

/// The `OutSim Opts` bits: which OutSimPack2 parts are present, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OutSimOptions(u16);

impl OutSimOptions {
    /// `OSO_HEADER`: the `LFST` magic.
    pub const HEADER: u16 = 0x001;
    /// `OSO_ID`: the OutSim ID.
    pub const ID: u16 = 0x002;
    /// `OSO_TIME`: time in ms.
    pub const TIME: u16 = 0x004;
    /// `OSO_MAIN`: [`OsMain`].
    pub const MAIN: u16 = 0x008;
    /// `OSO_INPUTS`: [`OsInputs`].
    pub const INPUTS: u16 = 0x010;
    /// `OSO_DRIVE`: [`OsDrive`].
    pub const DRIVE: u16 = 0x020;
    /// `OSO_DISTANCE`: [`OsDistance`].
    pub const DISTANCE: u16 = 0x040;
    /// `OSO_WHEELS`: four [`OsWheel`].
    pub const WHEELS: u16 = 0x080;
    /// `OSO_EXTRA_1`: [`OsExtra1`].
    pub const EXTRA_1: u16 = 0x100;
    /// Every part (`0x1ff`, 280 bytes).
    pub const ALL: OutSimOptions = OutSimOptions(0x1ff);

    /// Options from the `OutSim Opts` value; `None` for 0 (that is the classic packet) or bits
    /// above `0x1ff`.
    pub const fn new(bits: u16) -> Option<OutSimOptions> {
        if bits == 0 || bits & !0x1ff != 0 {
            None
        } else {
            Some(OutSimOptions(bits))
        }
    }

    /// The raw bits.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// True when `part` (one of the associated constants) is present.
    pub const fn has(self, part: u16) -> bool {
        self.0 & part != 0
    }

    /// The packet length these options produce.
    pub const fn packet_len(self) -> usize {
        let parts: [(u16, usize); 9] = [
            (Self::HEADER, 4),
            (Self::ID, 4),
            (Self::TIME, 4),
            (Self::MAIN, 60),
            (Self::INPUTS, 20),
            (Self::DRIVE, 12),
            (Self::DISTANCE, 8),
            (Self::WHEELS, 160),
            (Self::EXTRA_1, 8),
        ];
        let mut len = 0;
        let mut i = 0;
        while i < parts.len() {
            if self.has(parts[i].0) {
                len += parts[i].1;
            }
            i += 1;
        }
        len
    }
}

/// A decoded OutSimPack2 packet: each part is `Some` when its option bit is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutSimPack2 {
    /// The options the packet was decoded with.
    pub options: OutSimOptions,
    /// OutSim ID.
    pub id: Option<i32>,
    /// Time, ms.
    pub time_ms: Option<u32>,
    /// Motion block.
    pub main: Option<OsMain>,
    /// Driver inputs.
    pub inputs: Option<OsInputs>,
    /// Gear and engine.
    pub drive: Option<OsDrive>,
    /// Lap distance.
    pub distance: Option<OsDistance>,
    /// Wheels in LFS order RL, RR, FL, FR.
    pub wheels: Option<[OsWheel; 4]>,
    /// Steering torque.
    pub extra: Option<OsExtra1>,
}

/// The motion block of `frame`.
pub fn encode_main(frame: &Frame) -> OsMain {
    let car = &frame.car;
    let [roll, pitch, yaw] = car.roll_pitch_yaw_rad;
    OsMain {
        angular_velocity: f32x3(body_to_world(car, car.angular_velocity_body_radps)),
        heading: f32_of(wrap_angle(yaw - std::f64::consts::FRAC_PI_2)),
        pitch: f32_of(-pitch),
        roll: f32_of(roll),
        acceleration: f32x3(body_to_world(car, car.acceleration_body_mps2)),
        velocity: f32x3(car.velocity_world_mps),
        position: car
            .position_m
            .map(|p| I32::new(saturating_i32(p * POSITION_SCALE))),
    }
}

/// Encodes `frame` as the classic 64-byte packet.
pub fn encode(frame: &Frame) -> OutSimPacket {
    OutSimPacket {
        time_ms: U32::new(millis_wrapping(frame.car.time_s)),
        main: encode_main(frame),
    }
}

/// Encodes `frame` as the classic 68-byte packet carrying `id`.
pub fn encode_with_id(frame: &Frame, id: i32) -> OutSimWithIdPacket {
    OutSimWithIdPacket {
        body: encode(frame),
        id: I32::new(id),
    }
}

fn encode_wheel(wheel: &rig_types::WheelTelemetry) -> OsWheel {
    OsWheel {
        suspension_deflection_m: f32_of(wheel.suspension_travel_m),
        steer_rad: f32_of(wheel.steer_angle_rad),
        x_force_n: f32_of(-wheel.force_lat_n),
        y_force_n: f32_of(wheel.force_long_n),
        vertical_load_n: f32_of(wheel.load_n),
        angular_velocity_radps: f32_of(wheel.angular_velocity_radps),
        lean_rel_to_road_rad: F32::new(0.0),
        air_temp_c: finite_or_zero(wheel.temperature_c)
            .clamp(0.0, 255.0)
            .round() as u8,
        slip_fraction: 0,
        touching: u8::from(wheel.in_contact),
        spare: 0,
        slip_ratio: f32_of(wheel.slip_ratio),
        tan_slip_angle: f32_of(finite_or_zero(wheel.slip_angle_rad).tan()),
    }
}

/// Writes `frame` as an OutSimPack2 packet with `options` into `out`; returns the length.
///
/// `id` is written when the `ID` bit is set. Errors when `out` is shorter than
/// [`OutSimOptions::packet_len`].
pub fn encode_pack2(
    frame: &Frame,
    options: OutSimOptions,
    id: i32,
    out: &mut [u8],
) -> Result<usize, crate::telemetry::EncodeError> {
    let len = options.packet_len();
    if out.len() < len {
        return Err(crate::telemetry::EncodeError::BufferTooSmall {
            needed: len,
            available: out.len(),
        });
    }
    let car = &frame.car;
    let mut at = 0;
    let mut put = |bytes: &[u8]| {
        out[at..at + bytes.len()].copy_from_slice(bytes);
        at += bytes.len();
    };
    if options.has(OutSimOptions::HEADER) {
        put(&PACK2_MAGIC);
    }
    if options.has(OutSimOptions::ID) {
        put(&id.to_le_bytes());
    }
    if options.has(OutSimOptions::TIME) {
        put(&millis_wrapping(car.time_s).to_le_bytes());
    }
    if options.has(OutSimOptions::MAIN) {
        put(encode_main(frame).as_bytes());
    }
    if options.has(OutSimOptions::INPUTS) {
        let c = &car.controls;
        let inputs = OsInputs {
            throttle: f32_of(c.throttle),
            brake: f32_of(c.brake),
            input_steer_rad: f32_of(front_steer_rad(car)),
            clutch: f32_of(c.clutch),
            handbrake: f32_of(c.handbrake),
        };
        put(inputs.as_bytes());
    }
    if options.has(OutSimOptions::DRIVE) {
        let drive = OsDrive {
            gear: gear_to_lfs(car.drivetrain.gear),
            spare: [0; 3],
            engine_angular_velocity_radps: f32_of(car.drivetrain.engine_rpm * RADPS_PER_RPM),
            max_torque_at_velocity_nm: F32::new(0.0),
        };
        put(drive.as_bytes());
    }
    if options.has(OutSimOptions::DISTANCE) {
        let distance = OsDistance {
            current_lap_distance_m: f32_of(car.lap.distance_m),
            indexed_distance_m: f32_of(car.lap.distance_m),
        };
        put(distance.as_bytes());
    }
    if options.has(OutSimOptions::WHEELS) {
        for index in LFS_WHEEL_ORDER {
            put(encode_wheel(&car.wheels[index]).as_bytes());
        }
    }
    if options.has(OutSimOptions::EXTRA_1) {
        let extra = OsExtra1 {
            steer_torque_nm: f32_of(car.steering_torque_nm),
            spare: [0; 4],
        };
        put(extra.as_bytes());
    }
    Ok(at)
}

/// Decodes a classic 64- or 68-byte packet; the ID is `Some` for the 68-byte form.
pub fn decode(bytes: &[u8]) -> Result<(OutSimPacket, Option<i32>), DecodeError> {
    match bytes.len() {
        OUTSIM_LEN => OutSimPacket::read_from_bytes(bytes)
            .map(|p| (p, None))
            .map_err(|_| DecodeError::size("OutSim", OUTSIM_LEN, bytes.len())),
        OUTSIM_WITH_ID_LEN => OutSimWithIdPacket::read_from_bytes(bytes)
            .map(|p| (p.body, Some(p.id.get())))
            .map_err(|_| DecodeError::size("OutSim", OUTSIM_WITH_ID_LEN, bytes.len())),
        other => Err(DecodeError::size("OutSim", OUTSIM_LEN, other)),
    }
}

/// Splits `n` bytes off the front of `rest` as a `T`.
fn take<T: FromBytes>(rest: &mut &[u8]) -> Option<T> {
    let (value, tail) = T::read_from_prefix(rest).ok()?;
    *rest = tail;
    Some(value)
}

/// Decodes an OutSimPack2 packet sent with `options` (the packet does not carry them).
pub fn decode_pack2(bytes: &[u8], options: OutSimOptions) -> Result<OutSimPack2, DecodeError> {
    let expected = options.packet_len();
    if bytes.len() != expected {
        return Err(DecodeError::size("OutSimPack2", expected, bytes.len()));
    }
    let mut rest = bytes;
    let short = || DecodeError::size("OutSimPack2", expected, bytes.len());
    if options.has(OutSimOptions::HEADER) {
        let magic: [u8; 4] = take(&mut rest).ok_or_else(short)?;
        if magic != PACK2_MAGIC {
            return Err(DecodeError::BadMagic {
                format: "OutSimPack2",
                expected: PACK2_MAGIC,
                found: magic,
            });
        }
    }
    let id = if options.has(OutSimOptions::ID) {
        Some(take::<I32>(&mut rest).ok_or_else(short)?.get())
    } else {
        None
    };
    let time_ms = if options.has(OutSimOptions::TIME) {
        Some(take::<U32>(&mut rest).ok_or_else(short)?.get())
    } else {
        None
    };
    let main = if options.has(OutSimOptions::MAIN) {
        Some(take::<OsMain>(&mut rest).ok_or_else(short)?)
    } else {
        None
    };
    let inputs = if options.has(OutSimOptions::INPUTS) {
        Some(take::<OsInputs>(&mut rest).ok_or_else(short)?)
    } else {
        None
    };
    let drive = if options.has(OutSimOptions::DRIVE) {
        Some(take::<OsDrive>(&mut rest).ok_or_else(short)?)
    } else {
        None
    };
    let distance = if options.has(OutSimOptions::DISTANCE) {
        Some(take::<OsDistance>(&mut rest).ok_or_else(short)?)
    } else {
        None
    };
    let wheels = if options.has(OutSimOptions::WHEELS) {
        Some(take::<[OsWheel; 4]>(&mut rest).ok_or_else(short)?)
    } else {
        None
    };
    let extra = if options.has(OutSimOptions::EXTRA_1) {
        Some(take::<OsExtra1>(&mut rest).ok_or_else(short)?)
    } else {
        None
    };
    Ok(OutSimPack2 {
        options,
        id,
        time_ms,
        main,
        inputs,
        drive,
        distance,
        wheels,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_options_make_the_documented_280_bytes() {
        assert_eq!(OutSimOptions::ALL.packet_len(), 280);
        assert_eq!(
            OutSimOptions::new(OutSimOptions::HEADER).map(OutSimOptions::packet_len),
            Some(4)
        );
        assert_eq!(OutSimOptions::new(0), None);
        assert_eq!(OutSimOptions::new(0x200), None);
    }
}
