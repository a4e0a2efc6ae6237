//! Codemasters "extradata=3" UDP (DiRT Rally, DiRT Rally 2.0, DiRT 4, GRID; 264 bytes, 66
//! little-endian f32, no header) read as a [`GameSample`].
//!
//! Layout: the wire struct [`crate::telemetry::codemasters::CodemastersPacket`] (field `i` at
//! byte `4 i`; table in docs/telemetry-formats.md and the module header there). Mapping to
//! rigd's conventions:
//! - World vectors use Codemasters' y-up axes: position, velocity and the two direction
//!   vectors `(X, Y, Z)` become rigd's `(X, Z, Y)` (height to z), the mapping rigd's own
//!   Codemasters encoder and dashboard use.
//! - Floats 11-13 are the car's left unit vector (the community's "roll vector"; EA WRC, the
//!   same studio's successor, names its equivalent channel `vehicle_left_direction`; F1 2017's
//!   legacy table calls it "right direction", so a capture should confirm the roll sign),
//!   floats 14-16 the forward unit vector. Orientation (roll, pitch, yaw) and the body-frame
//!   velocity come from these two vectors. The packet has no up vector: the car is taken to
//!   be upright (up is forward x left or its opposite, whichever points up), so if the game's
//!   world were mirrored relative to this mapping only the yaw direction would flip.
//! - G-forces (34 lateral, 35 longitudinal) are the body's kinematic acceleration divided by
//!   standard gravity: lateral positive to the left (a left turn), longitudinal positive
//!   accelerating, so a braking car reads negative body x. The packet has no vertical
//!   g-force: body z acceleration is sent as 0 and the bridge gets heave from the world
//!   velocity and the suspension.
//! - Suspension position (17-20) and velocity (21-24) are compression in mm and mm/s; wheel
//!   order RL, RR, FL, FR. Wheel patch speeds (25-28, m/s) have no rigd channel without the
//!   tyre radius and are not read. Tyre pressure (55-58, same order) is psi (gauge), read as kPa.
//! - Engine rates are rpm / 10; gear is a float, 0 N, -1 R (DiRT Rally's 10 is R too); steer
//!   is -1 left .. 1 right (negated for rigd); laps, position and fuel are floats.
//! - No pause flag: `driving` is `None`.
//! - The format has no magic, so a datagram is taken as Codemasters only when its length is
//!   264 and every float is finite and below [`MAX_PLAUSIBLE`] in magnitude (nothing the game
//!   sends comes near: times in s, distances in m, rpm / 10): random bytes of that length
//!   pass this with a probability of about 1e-15 (each float about 0.6), so they are
//!   garbage ([`GameDecodeError::Implausible`]), not a car thrown across the world.

use crate::game::vectors::{finite, finite3, Basis};
use crate::game::{GameDecodeError, GameSample, GameStream, GameWheel};
use crate::telemetry::codemasters::{
    gear_from_codemasters, CodemastersPacket, CODEMASTERS_LEN, CODEMASTERS_WHEEL_ORDER,
};
use crate::telemetry::convert::{KPA_PER_PSI, STANDARD_GRAVITY_MPS2};
use zerocopy::little_endian::F32;
use zerocopy::FromBytes;

/// Largest magnitude of any float in a real packet.
pub const MAX_PLAUSIBLE: f32 = 1e7;

/// True when every float of the 264 bytes is finite and below [`MAX_PLAUSIBLE`].
fn plausible(bytes: &[u8]) -> bool {
    bytes.chunks_exact(4).all(|c| {
        let x = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        x.is_finite() && x.abs() < MAX_PLAUSIBLE
    })
}

/// True when `bytes` has the extradata=3 length and only plausible floats (the format has
/// no magic).
pub fn matches(bytes: &[u8]) -> bool {
    bytes.len() == CODEMASTERS_LEN && plausible(bytes)
}

/// A Codemasters y-up world vector in rigd's z-up axes.
fn world(v: [F32; 3]) -> Option<[f64; 3]> {
    let [x, y, z] = finite3(v.map(|c| c.get()))?;
    Some([x, z, y])
}

/// A float counter (laps, position) as a whole number, `None` when not finite.
fn count(x: F32) -> Option<u32> {
    finite(x.get()).map(|v| v.round().clamp(0.0, f64::from(u32::MAX)) as u32)
}

/// Decodes a 264-byte extradata=3 packet.
pub fn decode(bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    let p = CodemastersPacket::read_from_bytes(bytes).map_err(|_| GameDecodeError::Invalid {
        stream: GameStream::Codemasters,
        reason: "extradata=3 packets are 264 bytes: set extradata=\"3\" in the game's hardware_settings_config.xml",
    })?;
    if !plausible(bytes) {
        return Err(GameDecodeError::Implausible {
            stream: GameStream::Codemasters,
            channel: "value (not finite or beyond 1e7)",
        });
    }
    let mut sample = GameSample::empty(GameStream::Codemasters);
    let f = |x: F32| finite(x.get());
    sample.game_time_s = f(p.total_time);

    let basis = match (world(p.forward_vector), world(p.left_vector)) {
        (Some(forward), Some(left)) => Basis::from_axes(forward, left, None),
        _ => None,
    };
    let motion = &mut sample.motion;
    motion.position_m = world(p.position);
    motion.velocity_world_mps = world(p.velocity);
    if let Some(basis) = basis {
        motion.roll_pitch_yaw_rad = Some(basis.roll_pitch_yaw());
        motion.velocity_body_mps = motion.velocity_world_mps.map(|v| basis.body_of(v));
    }
    if let (Some(longitudinal), Some(lateral)) = (f(p.g_force_longitudinal), f(p.g_force_lateral)) {
        motion.acceleration_body_mps2 = Some([
            longitudinal * STANDARD_GRAVITY_MPS2,
            lateral * STANDARD_GRAVITY_MPS2,
            0.0,
        ]);
    }

    for (cm, &ours) in CODEMASTERS_WHEEL_ORDER.iter().enumerate() {
        sample.wheels[ours] = GameWheel {
            suspension_travel_m: f(p.suspension_position[cm]).map(|mm| mm / 1000.0),
            suspension_velocity_mps: f(p.suspension_velocity[cm]).map(|mmps| mmps / 1000.0),
            pressure_kpa: f(p.tyre_pressure[cm]).map(|psi| psi * KPA_PER_PSI),
            ..GameWheel::default()
        };
    }

    let car = &mut sample.car;
    car.speed_mps = f(p.speed);
    car.engine_rpm = f(p.engine_rate).map(|r| r * 10.0);
    car.max_rpm = f(p.max_rpm).map(|r| r * 10.0);
    car.idle_rpm = f(p.idle_rpm).map(|r| r * 10.0);
    car.gear = f(p.gear).map(|_| gear_from_codemasters(p.gear.get()));
    car.forward_gears = count(p.max_gears).map(|g| g.min(u32::from(u8::MAX)) as u8);
    car.throttle = f(p.throttle);
    car.brake = f(p.brake);
    car.clutch = f(p.clutch);
    car.steer = f(p.steer).map(|s| -s);
    car.fuel_fraction = match (f(p.fuel_in_tank), f(p.fuel_capacity)) {
        (Some(fuel), Some(capacity)) if capacity > 0.0 => Some((fuel / capacity).clamp(0.0, 1.0)),
        _ => None,
    };
    car.laps_completed = count(p.laps_completed);
    car.current_lap_s = f(p.lap_time);
    car.last_lap_s = f(p.last_lap_time);
    car.lap_distance_m = f(p.lap_distance);
    car.race_position = count(p.race_position).filter(|&position| position > 0);
    Ok(sample)
}
