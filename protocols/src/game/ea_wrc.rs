//! EA Sports WRC UDP telemetry, the game's shipped default `wrc` structure, read as a
//! [`GameSample`].
//!
//! EA WRC defines its packets in JSON files (Documents/My Games/WRC/telemetry: `config.json`
//! picks a structure per packet; `readme/channels.json` gives each channel's type and meaning;
//! `readme/udp/wrc.json` is the default structure). Its `session_update` packet is these
//! channels, packed little-endian with no padding (uint64 8, float32 4, float64 8, uint8 and
//! boolean 1 byte), 237 bytes:
//!
//! | offset | channel | type |
//! |---|---|---|
//! | 0 | packet_uid | uint64 |
//! | 8 | game_total_time (s) | float32 |
//! | 12 | game_delta_time (s) | float32 |
//! | 16 | game_frame_count | uint64 |
//! | 24 | shiftlights_fraction, _rpm_start, _rpm_end | 3 float32 |
//! | 36 | shiftlights_rpm_valid | boolean |
//! | 37 | vehicle_gear_index, _index_neutral, _index_reverse, vehicle_gear_maximum | 4 uint8 |
//! | 41 | vehicle_speed, vehicle_transmission_speed (m/s) | 2 float32 |
//! | 49 | vehicle_position_x, y, z (m) | 3 float32 |
//! | 61 | vehicle_velocity_x, y, z (m/s) | 3 float32 |
//! | 73 | vehicle_acceleration_x, y, z (m/s^2) | 3 float32 |
//! | 85 | vehicle_left_direction_x, y, z | 3 float32 |
//! | 97 | vehicle_forward_direction_x, y, z | 3 float32 |
//! | 109 | vehicle_up_direction_x, y, z | 3 float32 |
//! | 121 | vehicle_hub_position_bl, br, fl, fr (m, positive up) | 4 float32 |
//! | 137 | vehicle_hub_velocity_bl, br, fl, fr (m/s, positive up) | 4 float32 |
//! | 153 | vehicle_cp_forward_speed_bl, br, fl, fr (m/s) | 4 float32 |
//! | 169 | vehicle_brake_temperature_bl, br, fl, fr (degC) | 4 float32 |
//! | 185 | vehicle_engine_rpm_max, _idle, _current | 3 float32 |
//! | 197 | vehicle_throttle, _brake, _clutch, _steering, _handbrake | 5 float32 |
//! | 217 | stage_current_time (s) | float32 |
//! | 221 | stage_current_distance, stage_length (m) | 2 float64 |
//!
//! Sources: the channel order of the shipped `readme/udp/wrc.json` and the types and
//! descriptions of `readme/channels.json`, as reproduced by public EA WRC telemetry parsers
//! (two independent ones agree on this order and the 237-byte total). A structure whose header carries `packet_4cc` puts a
//! 4-byte packet code first (241 bytes): `sess` start, `sesu` update, `sese` end, `sesp`
//! pause, `sesr` resume (any letter case); that form is read too and gives `driving`.
//!
//! Axes (channels.json): world x positive left, y up, z forward, right-handed, so rigd's
//! world is `(z, x, y)`. The left, forward and up vectors give the body axes directly:
//! body-frame velocity and acceleration are dot products with them, and roll, pitch, yaw come
//! from them. The acceleration is read as kinematic (EA does not say it includes gravity).
//! Hub position is the wheel hub's height displacement relative to the body (positive up =
//! compressing); rigd reads it as suspension travel (zero at EA's reference, not at full
//! droop). Gear: `vehicle_gear_index` equals the neutral or reverse sentinel for N or R.
//! Steering -1 full left .. 1 full right is negated for rigd. Wheel order BL, BR, FL, FR.
//! An F1 24 Motion Ex packet is also 237 bytes: it starts with its packet format 2024 and has
//! packet id 13 at byte 6, which a `packet_uid` below 2^48 never has, so it is not matched.

use crate::game::vectors::{finite, Basis};
use crate::game::{GameDecodeError, GameSample, GameStream, GameWheel};
use rig_types::{WHEEL_FL, WHEEL_FR, WHEEL_RL, WHEEL_RR};

/// Length of the default `wrc` structure's packet.
pub const WRC_LEN: usize = 237;
/// Length of the same channels after a `packet_4cc` header.
pub const WRC_WITH_4CC_LEN: usize = WRC_LEN + 4;
/// EA's wheel order (bl, br, fl, fr) as indices into rigd's FL, FR, RL, RR.
const WRC_WHEEL_ORDER: [usize; 4] = [WHEEL_RL, WHEEL_RR, WHEEL_FL, WHEEL_FR];

/// The packet format an F1 24 header starts with, and F1's Motion Ex packet id.
const F1_24_FORMAT: u16 = 2024;
const F1_MOTION_EX_ID: u8 = 13;

/// The session packets' codes and whether the car is being driven during each.
const PACKET_CODES: [(&[u8; 4], bool); 5] = [
    (b"sess", true),
    (b"sesu", true),
    (b"sese", false),
    (b"sesp", false),
    (b"sesr", true),
];

fn packet_code_driving(code: &[u8]) -> Option<bool> {
    PACKET_CODES
        .iter()
        .find(|(known, _)| code.eq_ignore_ascii_case(&known[..]))
        .map(|&(_, driving)| driving)
}

fn looks_like_f1_24_motion_ex(bytes: &[u8]) -> bool {
    bytes.len() >= 7
        && u16::from_le_bytes([bytes[0], bytes[1]]) == F1_24_FORMAT
        && bytes[6] == F1_MOTION_EX_ID
}

/// True for a 237-byte default `wrc` packet (not F1 24's 237-byte Motion Ex) or a 241-byte
/// one starting with a session packet code.
pub fn matches(bytes: &[u8]) -> bool {
    match bytes.len() {
        WRC_LEN => !looks_like_f1_24_motion_ex(bytes),
        WRC_WITH_4CC_LEN => packet_code_driving(&bytes[..4]).is_some(),
        _ => false,
    }
}

/// Channel readers over the 237 channel bytes (never panic: a short slice reads as NaN / 0,
/// which the decoder turns into `None`).
struct Channels<'a>(&'a [u8]);

impl Channels<'_> {
    fn raw<const N: usize>(&self, at: usize) -> Option<[u8; N]> {
        self.0.get(at..at + N)?.try_into().ok()
    }
    fn f32(&self, at: usize) -> Option<f64> {
        self.raw(at).map(f32::from_le_bytes).and_then(finite)
    }
    fn f64(&self, at: usize) -> Option<f64> {
        self.raw(at)
            .map(f64::from_le_bytes)
            .filter(|x| x.is_finite())
    }
    fn u8(&self, at: usize) -> Option<u8> {
        self.0.get(at).copied()
    }
    fn vec3(&self, at: usize) -> Option<[f64; 3]> {
        Some([self.f32(at)?, self.f32(at + 4)?, self.f32(at + 8)?])
    }
    /// An EA world vector (x left, y up, z forward) in rigd's world axes.
    fn world(&self, at: usize) -> Option<[f64; 3]> {
        let [x, y, z] = self.vec3(at)?;
        Some([z, x, y])
    }
}

/// Decodes a default `wrc` structure packet, with or without the `packet_4cc` header.
pub fn decode(bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    let invalid = |reason| GameDecodeError::Invalid {
        stream: GameStream::EaWrc,
        reason,
    };
    let (driving, channels) = match bytes.len() {
        WRC_LEN if looks_like_f1_24_motion_ex(bytes) => {
            return Err(invalid("this is an F1 24 Motion Ex packet, not EA WRC"))
        }
        WRC_LEN => (None, Channels(bytes)),
        WRC_WITH_4CC_LEN => {
            let driving = packet_code_driving(&bytes[..4])
                .ok_or(invalid("the packet code is not one of sess, sesu, sese, sesp, sesr"))?;
            (Some(driving), Channels(&bytes[4..]))
        }
        _ => {
            return Err(invalid(
                "the default wrc structure is 237 bytes (241 with packet_4cc): select structure \"wrc\" in telemetry/config.json",
            ))
        }
    };
    let c = channels;
    let mut sample = GameSample::empty(GameStream::EaWrc);
    sample.driving = driving;
    sample.game_time_s = c.f32(8);

    let basis = match (c.world(97), c.world(85)) {
        (Some(forward), Some(left)) => Basis::from_axes(forward, left, c.world(109)),
        _ => None,
    };
    let motion = &mut sample.motion;
    motion.position_m = c.world(49);
    motion.velocity_world_mps = c.world(61);
    if let Some(basis) = basis {
        motion.roll_pitch_yaw_rad = Some(basis.roll_pitch_yaw());
        motion.velocity_body_mps = motion.velocity_world_mps.map(|v| basis.body_of(v));
        motion.acceleration_body_mps2 = c.world(73).map(|a| basis.body_of(a));
    }

    for (ea, &ours) in WRC_WHEEL_ORDER.iter().enumerate() {
        sample.wheels[ours] = GameWheel {
            suspension_travel_m: c.f32(121 + 4 * ea),
            suspension_velocity_mps: c.f32(137 + 4 * ea),
            ..GameWheel::default()
        };
    }

    let car = &mut sample.car;
    car.speed_mps = c.f32(41);
    car.max_rpm = c.f32(185);
    car.idle_rpm = c.f32(189);
    car.engine_rpm = c.f32(193);
    car.gear = match (c.u8(37), c.u8(38), c.u8(39)) {
        (Some(gear), Some(neutral), _) if gear == neutral => Some(0),
        (Some(gear), _, Some(reverse)) if gear == reverse => Some(-1),
        (Some(gear), _, _) => Some(gear.min(i8::MAX as u8) as i8),
        _ => None,
    };
    car.forward_gears = c.u8(40);
    car.throttle = c.f32(197);
    car.brake = c.f32(201);
    car.clutch = c.f32(205);
    car.steer = c.f32(209).map(|s| -s);
    car.handbrake = c.f32(213);
    car.current_lap_s = c.f32(217);
    car.lap_distance_m = c.f64(221);
    Ok(sample)
}
