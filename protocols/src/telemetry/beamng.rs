//! BeamNG.drive MotionSim (`BNG1`, 88 bytes, `<4s21f`): what BeamNG sends to motion platforms.
//!
//! BeamNG's world is z-up like ours, so world vectors go out unchanged: position (m), world
//! velocity (m/s), kinematic acceleration rotated into the world (m/s^2, gravity not included)
//! and the car's up unit vector. Angles, rates: our roll, pitch, yaw (rad) and body angular
//! velocity components about x, y, z (rad/s). Angular accelerations are sent as 0 (neutral):
//! the frame carries no angular acceleration and encoders are stateless.

use zerocopy::little_endian::F32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::telemetry::convert::{body_to_world, f32x3};
use crate::telemetry::DecodeError;
use rig_types::Frame;

/// Size of a MotionSim packet.
pub const MOTIONSIM_LEN: usize = 88;
/// The fixed format tag at offset 0.
pub const MOTIONSIM_MAGIC: [u8; 4] = *b"BNG1";

/// The 88-byte MotionSim packet.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct MotionSimPacket {
    /// `BNG1`.
    pub magic: [u8; 4],
    /// World position, m.
    pub position: [F32; 3],
    /// World velocity, m/s.
    pub velocity: [F32; 3],
    /// World acceleration without gravity, m/s^2.
    pub acceleration: [F32; 3],
    /// The car's up unit vector in world axes.
    pub up: [F32; 3],
    /// Roll, pitch, yaw, rad.
    pub angle: [F32; 3],
    /// Roll, pitch, yaw rates, rad/s.
    pub angular_velocity: [F32; 3],
    /// Roll, pitch, yaw accelerations, rad/s^2 (0: not available).
    pub angular_acceleration: [F32; 3],
}
const _: () = assert!(core::mem::size_of::<MotionSimPacket>() == MOTIONSIM_LEN);

/// Encodes `frame` as a MotionSim packet.
pub fn encode(frame: &Frame) -> MotionSimPacket {
    let car = &frame.car;
    MotionSimPacket {
        magic: MOTIONSIM_MAGIC,
        position: f32x3(car.position_m),
        velocity: f32x3(car.velocity_world_mps),
        acceleration: f32x3(body_to_world(car, car.acceleration_body_mps2)),
        up: f32x3(body_to_world(car, [0.0, 0.0, 1.0])),
        angle: f32x3(car.roll_pitch_yaw_rad),
        angular_velocity: f32x3(car.angular_velocity_body_radps),
        angular_acceleration: [F32::new(0.0); 3],
    }
}

/// Decodes an 88-byte MotionSim packet (checks the `BNG1` tag).
pub fn decode(bytes: &[u8]) -> Result<MotionSimPacket, DecodeError> {
    let packet = MotionSimPacket::read_from_bytes(bytes)
        .map_err(|_| DecodeError::size("BeamNG MotionSim", MOTIONSIM_LEN, bytes.len()))?;
    if packet.magic != MOTIONSIM_MAGIC {
        return Err(DecodeError::BadMagic {
            format: "BeamNG MotionSim",
            expected: MOTIONSIM_MAGIC,
            found: packet.magic,
        });
    }
    Ok(packet)
}
