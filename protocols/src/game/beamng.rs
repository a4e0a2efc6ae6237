//! BeamNG.drive's motion and dashboard UDP read as [`GameSample`]s: MotionSim (`BNG1`, 88
//! bytes, `<4s21f`) and OutGauge (the LFS layout, 96 bytes from BeamNG, 112 from newer
//! versions that append four fields; decoded by [`crate::game::lfs::decode_outgauge`]). Both go to the port set in Options > Other >
//! Protocols (4444 by default); they are told apart by length.
//!
//! MotionSim fields (BeamNG `lua/vehicle/protocols/motionSim.lua`, filled by
//! `protocols.lua`): world position, smoothed world velocity, smoothed acceleration "gravity
//! not included", the car's up unit vector, then roll, pitch, yaw angles, their rates and
//! their accelerations. Mapping to rigd's conventions:
//! - BeamNG's world is z-up like rigd's: position and velocity are read unchanged.
//! - The acceleration is the negated reading of the vehicle's acceleration sensors
//!   (`-ffiSensors.sensorX/Y/Z`), so it is in the vehicle's frame: x left, y rearwards, z up
//!   (BeamNG vehicles face -y). rigd's body acceleration is `(-acc_y, acc_x, acc_z)`.
//! - The rates are `obj:getRollPitchYawAngularVelocity()` unchanged; in a forward-left-up
//!   body frame they are `(roll, -pitch, -yaw)` (measured by public BeamNG telemetry tools),
//!   which is rigd's body angular velocity.
//! - The angles are `getRollPitchYaw()` with roll and yaw negated by BeamNG; taking the same
//!   sign convention as the rates, rigd's roll, pitch, yaw are `(-roll, -pitch, yaw)`. The
//!   zero of BeamNG's yaw is not documented, so the body-frame velocity (which would need the
//!   heading) is not derived: `velocity_body_mps` stays `None`.
//! - Angular accelerations have no rigd channel and are not read. MotionSim carries no
//!   pause flag or clock: `driving` and `game_time_s` are `None`.

use crate::game::lfs::{decode_outgauge, BEAMNG_OUTGAUGE_LEN, BEAMNG_OUTGAUGE_PACKED_LEN};
use crate::game::vectors::finite3;
use crate::game::{GameDecodeError, GameSample, GameStream};
use crate::telemetry::beamng::{MotionSimPacket, MOTIONSIM_LEN, MOTIONSIM_MAGIC};
use crate::telemetry::lfs::outgauge::OUTGAUGE_WITH_ID_LEN;
use zerocopy::FromBytes;

/// True for an 88-byte MotionSim packet starting with `BNG1`.
pub fn matches(bytes: &[u8]) -> bool {
    bytes.len() == MOTIONSIM_LEN && bytes.starts_with(&MOTIONSIM_MAGIC)
}

/// Decodes a MotionSim packet, or BeamNG's 96-byte (newer versions: 112-byte) OutGauge packet.
pub fn decode(bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    if matches!(
        bytes.len(),
        OUTGAUGE_WITH_ID_LEN | BEAMNG_OUTGAUGE_LEN | BEAMNG_OUTGAUGE_PACKED_LEN
    ) {
        return decode_outgauge(bytes);
    }
    let invalid = |reason| GameDecodeError::Invalid {
        stream: GameStream::BeamNgMotionSim,
        reason,
    };
    let p = MotionSimPacket::read_from_bytes(bytes).map_err(|_| {
        invalid("MotionSim packets are 88 bytes (OutGauge 96): enable MotionSim in Options > Other > Protocols")
    })?;
    if p.magic != MOTIONSIM_MAGIC {
        return Err(invalid("it does not start with BNG1"));
    }
    let get = |v: [zerocopy::little_endian::F32; 3]| finite3(v.map(|c| c.get()));
    let mut sample = GameSample::empty(GameStream::BeamNgMotionSim);
    let motion = &mut sample.motion;
    motion.position_m = get(p.position);
    motion.velocity_world_mps = get(p.velocity);
    motion.acceleration_body_mps2 = get(p.acceleration).map(|[x, y, z]| [-y, x, z]);
    motion.angular_velocity_body_radps =
        get(p.angular_velocity).map(|[roll, pitch, yaw]| [roll, -pitch, -yaw]);
    motion.roll_pitch_yaw_rad = get(p.angle).map(|[roll, pitch, yaw]| [-roll, -pitch, yaw]);
    Ok(sample)
}
