//! Live for Speed's UDP outputs read as [`GameSample`]s: OutSim classic (64 bytes, 68 with
//! the `OutSim ID`), OutSimPack2 (the parts chosen by `OutSim Opts`) and OutGauge (92 bytes,
//! 96 with the `OutGauge ID`; BeamNG sends the 96-byte form, and newer BeamNG versions 112
//! bytes with four fields appended: [`BEAMNG_OUTGAUGE_LEN`]).
//!
//! Layouts: LFS `docs/InSim.txt` and `docs/OutSimPack.txt`, as the wire structs in
//! [`crate::telemetry::lfs`]. Mapping to rigd's conventions:
//! - LFS's world is z-up and right-handed like rigd's: position (metres x 65536 as i32),
//!   velocity, acceleration and angular velocity are world-frame vectors, read unchanged and
//!   rotated into the body frame with the car's orientation. The acceleration is read as
//!   kinematic (gravity not included) and the angular velocity as the body's rate in world
//!   axes; InSim.txt gives no units, receivers use rad, rad/s and m/s^2.
//! - Heading is anticlockwise from above with 0 facing world +y: rigd's yaw is
//!   `heading + pi/2`. Pitch is anticlockwise seen from the right (nose up positive): rigd's
//!   pitch (nose down positive) is `-pitch`. Roll is anticlockwise seen from the front (left
//!   side up positive), the same as rigd's.
//! - OutSimPack2 parts: inputs give the pedals and handbrake (`InputSteer` is a road-wheel
//!   angle, not a normalised input, so `steer` stays `None`); drive gives the gear (0 R, 1 N,
//!   2 first) and the engine speed (rad/s to rpm); distance the lap distance; wheels (order
//!   RL, RR, FL, FR) the suspension compression, spin rate, vertical load, slip ratio, slip
//!   angle (`atan` of LFS's tangent) and the tyre's air temperature.
//! - OutGauge: speed, rpm, gear, pedals, fuel. Its time is 0 when BeamNG sends it: a zero
//!   time gives `game_time_s = None`.
//! - OutSim classic and OutGauge have no magic (nor has OutSimPack2 without its header
//!   option): a datagram of their length is read only when its values are ones a car can
//!   have ([`plausible`]); else it is [`GameDecodeError::Implausible`], garbage.

mod plausible;

use std::f64::consts::FRAC_PI_2;

use crate::game::vectors::{finite, finite3, Basis};
use crate::game::{GameDecodeError, GameMotion, GameSample, GameStream, GameWheel};
use crate::telemetry::convert::{gear_from_lfs, wrap_angle, RADPS_PER_RPM};
use crate::telemetry::lfs::outgauge::{self, OUTGAUGE_LEN, OUTGAUGE_WITH_ID_LEN};
use crate::telemetry::lfs::outsim::{
    self, OsMain, OutSimOptions, LFS_WHEEL_ORDER, OUTSIM_LEN, OUTSIM_WITH_ID_LEN, PACK2_MAGIC,
    POSITION_SCALE,
};
use crate::telemetry::DecodeError;

/// True for an OutSim classic or OutGauge datagram (by length), or an OutSimPack2 with every
/// option (`0x1ff`: 280 bytes starting with `LFST`, the only Pack2 layout recognisable without
/// being told the options).
pub fn matches(bytes: &[u8]) -> bool {
    stream_of(bytes).is_some()
}

/// True when `bytes` is an OutSimPack2 packet of `options` (length, and `LFST` when the
/// header option is on).
pub fn matches_pack2(bytes: &[u8], options: OutSimOptions) -> bool {
    bytes.len() == options.packet_len()
        && (!options.has(OutSimOptions::HEADER) || bytes.starts_with(&PACK2_MAGIC))
}

/// Which LFS stream `bytes` is, judged by length (and magic for OutSimPack2 `0x1ff`).
pub fn stream_of(bytes: &[u8]) -> Option<GameStream> {
    match bytes.len() {
        OUTSIM_LEN | OUTSIM_WITH_ID_LEN => Some(GameStream::OutSim),
        OUTGAUGE_LEN | OUTGAUGE_WITH_ID_LEN => Some(GameStream::OutGauge),
        BEAMNG_OUTGAUGE_LEN | BEAMNG_OUTGAUGE_PACKED_LEN => Some(GameStream::OutGauge),
        _ if matches_pack2(bytes, OutSimOptions::ALL) => Some(GameStream::OutSimPack2),
        _ => None,
    }
}

/// Decodes an OutSim classic or OutGauge datagram, or an OutSimPack2 `0x1ff` one; other
/// OutSimPack2 option sets need [`decode_pack2`].
pub fn decode(bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    match stream_of(bytes) {
        Some(GameStream::OutSim) => decode_outsim(bytes),
        Some(GameStream::OutGauge) => decode_outgauge(bytes),
        Some(_) => decode_pack2(bytes, OutSimOptions::ALL),
        None => Err(GameDecodeError::Unrecognised { len: bytes.len() }),
    }
}

fn invalid(stream: GameStream, error: DecodeError) -> GameDecodeError {
    let reason = match error {
        DecodeError::BadMagic { .. } => {
            "it does not start with LFST although OutSim Opts has the header bit"
        }
        _ => "its length does not match: set lfs_outsim_options to the game's OutSim Opts",
    };
    GameDecodeError::Invalid { stream, reason }
}

/// A millisecond game clock in seconds, `None` for 0 (BeamNG's OutGauge never sets it).
fn time_s(ms: u32) -> Option<f64> {
    (ms != 0).then(|| f64::from(ms) / 1000.0)
}

/// The motion channels of an `OSMain` block.
fn motion(main: &OsMain) -> GameMotion {
    let mut motion = GameMotion {
        position_m: Some(main.position.map(|p| f64::from(p.get()) / POSITION_SCALE)),
        velocity_world_mps: finite3(main.velocity.map(|c| c.get())),
        ..GameMotion::default()
    };
    let (Some(heading), Some(pitch), Some(roll)) = (
        finite(main.heading.get()),
        finite(main.pitch.get()),
        finite(main.roll.get()),
    ) else {
        return motion;
    };
    let roll_pitch_yaw = [
        wrap_angle(roll),
        wrap_angle(-pitch),
        wrap_angle(heading + FRAC_PI_2),
    ];
    let basis = Basis::from_roll_pitch_yaw(roll_pitch_yaw);
    motion.roll_pitch_yaw_rad = Some(roll_pitch_yaw);
    motion.velocity_body_mps = motion.velocity_world_mps.map(|v| basis.body_of(v));
    motion.acceleration_body_mps2 =
        finite3(main.acceleration.map(|c| c.get())).map(|a| basis.body_of(a));
    motion.angular_velocity_body_radps =
        finite3(main.angular_velocity.map(|c| c.get())).map(|w| basis.body_of(w));
    motion
}

/// `Err` naming the channel when `channel` is one (a value no game sends).
fn require_plausible(
    stream: GameStream,
    channel: Option<&'static str>,
) -> Result<(), GameDecodeError> {
    match channel {
        Some(channel) => Err(GameDecodeError::Implausible { stream, channel }),
        None => Ok(()),
    }
}

fn decode_outsim(bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    let (packet, _id) = outsim::decode(bytes).map_err(|e| invalid(GameStream::OutSim, e))?;
    require_plausible(GameStream::OutSim, plausible::outsim_main(&packet.main))?;
    let mut sample = GameSample::empty(GameStream::OutSim);
    sample.game_time_s = time_s(packet.time_ms.get());
    sample.motion = motion(&packet.main);
    Ok(sample)
}

/// BeamNG's newer `outgauge.lua` appends `char gearExt; float cruiseSpeed; unsigned
/// cruiseMode; float fuelCapacity;` to the 96-byte packet. Its protocol framework lays the
/// struct out with LuaJIT's FFI, which aligns like C: 3 bytes of padding after `gearExt`, 112
/// bytes in all.
pub const BEAMNG_OUTGAUGE_LEN: usize = 112;
/// The same fields packed without padding (109 bytes), should a BeamNG version send it so.
pub const BEAMNG_OUTGAUGE_PACKED_LEN: usize = 109;

/// Decodes a 92- or 96-byte OutGauge datagram (LFS or BeamNG), or BeamNG's extended 112- or
/// 109-byte one: its first 96 bytes are the 96-byte packet, and the appended fields (the
/// gearbox mode letter, cruise control and the tank's capacity) have no channel in rigd's
/// frame and are not read.
pub fn decode_outgauge(bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    let bytes = match bytes.len() {
        BEAMNG_OUTGAUGE_LEN | BEAMNG_OUTGAUGE_PACKED_LEN => &bytes[..OUTGAUGE_WITH_ID_LEN],
        _ => bytes,
    };
    let (p, _id) = outgauge::decode(bytes).map_err(|e| invalid(GameStream::OutGauge, e))?;
    require_plausible(GameStream::OutGauge, plausible::outgauge(&p))?;
    let mut sample = GameSample::empty(GameStream::OutGauge);
    sample.game_time_s = time_s(p.time_ms.get());
    let car = &mut sample.car;
    car.speed_mps = finite(p.speed_mps.get());
    car.engine_rpm = finite(p.rpm.get());
    car.gear = Some(gear_from_lfs(p.gear));
    car.throttle = finite(p.throttle.get());
    car.brake = finite(p.brake.get());
    car.clutch = finite(p.clutch.get());
    car.fuel_fraction = finite(p.fuel.get()).map(|fuel| fuel.clamp(0.0, 1.0));
    Ok(sample)
}

/// Decodes an OutSimPack2 datagram sent with `options` (the game's `OutSim Opts`; the packet
/// does not carry them).
pub fn decode_pack2(bytes: &[u8], options: OutSimOptions) -> Result<GameSample, GameDecodeError> {
    let p =
        outsim::decode_pack2(bytes, options).map_err(|e| invalid(GameStream::OutSimPack2, e))?;
    if let Some(main) = &p.main {
        require_plausible(GameStream::OutSimPack2, plausible::outsim_main(main))?;
    }
    let mut sample = GameSample::empty(GameStream::OutSimPack2);
    sample.game_time_s = p.time_ms.and_then(time_s);
    if let Some(main) = &p.main {
        sample.motion = motion(main);
    }
    let car = &mut sample.car;
    if let Some(inputs) = &p.inputs {
        car.throttle = finite(inputs.throttle.get());
        car.brake = finite(inputs.brake.get());
        car.clutch = finite(inputs.clutch.get());
        car.handbrake = finite(inputs.handbrake.get());
    }
    if let Some(drive) = &p.drive {
        car.gear = Some(gear_from_lfs(drive.gear));
        car.engine_rpm =
            finite(drive.engine_angular_velocity_radps.get()).map(|w| w / RADPS_PER_RPM);
    }
    if let Some(distance) = &p.distance {
        car.lap_distance_m = finite(distance.current_lap_distance_m.get());
    }
    if let Some(wheels) = &p.wheels {
        for (wheel, &ours) in wheels.iter().zip(LFS_WHEEL_ORDER.iter()) {
            sample.wheels[ours] = GameWheel {
                suspension_travel_m: finite(wheel.suspension_deflection_m.get()),
                angular_velocity_radps: finite(wheel.angular_velocity_radps.get()),
                slip_ratio: finite(wheel.slip_ratio.get()),
                slip_angle_rad: finite(wheel.tan_slip_angle.get()).map(f64::atan),
                load_n: finite(wheel.vertical_load_n.get()),
                temperature_c: Some(f64::from(wheel.air_temp_c)),
                ..GameWheel::default()
            };
        }
    }
    Ok(sample)
}
