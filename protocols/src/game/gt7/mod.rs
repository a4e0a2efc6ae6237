//! Gran Turismo 7's "Simulator Interface" UDP telemetry (reverse-engineered, public: Nenkai's
//! PDTools, gt7dashboard, GT7Proxy): the heartbeat that asks the console for packets, the
//! Salsa20 decryption, and the decoding of the decrypted packet into a [`GameSample`].
//!
//! Protocol: a client sends a one-byte heartbeat (`A`, `B` or `~`, [`Gt7Variant`]) to the
//! console's port [`HEARTBEAT_PORT`]; the console then sends 60 packets a second to the
//! client's port [`TELEMETRY_PORT`] for a while, so the heartbeat is repeated
//! ([`HEARTBEAT_INTERVAL_S`]). Each packet is encrypted with Salsa20: the key is the first
//! 32 bytes of "Simulator Interface Packet GT7 ver 0.0", the nonce is `iv2` LE followed by
//! `iv1` LE, where `iv1` is the u32 LE at bytes 0x40..0x44 of the packet (sent in clear) and
//! `iv2 = iv1 ^` the variant's constant. Decrypted, the packet starts with the magic
//! 0x47375330 ("0S7G" in bytes; "G7S0" as a LE u32).
//!
//! Layout read (variant `A`, 296 bytes; `B` (316) and `~` (344) append fields whose units are
//! not published, which rigd does not read): position 0x04, world velocity 0x10, rotation
//! 0x1C (the vector part of the unit quaternion car-to-world), its scalar part 0x28 (the
//! "orientation relative to north", 1 facing north, 0 south), angular velocity 0x2C (car
//! frame, rad/s), rpm 0x3C, the nonce seed 0x40, fuel 0x44 and capacity 0x48, speed 0x4C
//! (m/s), tyre temperatures 0x60 (FL FR RL RR, degC), the packet id 0x70 (i32, one more each
//! packet at the console's fixed 60 Hz: read as the game's clock, id / 60 s; GT7 sends no
//! time stamp, and no tyre pressure), lap 0x74 (i16, 1 on the first lap),
//! best and last lap 0x78/0x7C (i32 ms, -1 unset), grid position 0x84 (i16, -1 once racing),
//! rev-warning top 0x8A (u16 rpm), flags 0x8E (u16: bit 0 car on track, 1 paused, 2 loading,
//! 6 handbrake), gear 0x90 (low nibble: 0 R, 1.. forward, 15 N), throttle 0x91 and brake
//! 0x92 (0..255), wheel spin 0xA4 (rad/s), suspension height 0xC4 (m, read as travel:
//! larger = more compressed; only its changes matter to motion), clutch 0xF4 (0..1).
//! Axes as F1's (see [`super::y_up`]): y-up left-handed world, car frame X right, Y up,
//! Z forward.

mod salsa20;

pub use salsa20::apply_keystream;

use crate::game::y_up::{local_rate_to_body, world_to_z_up, BodyAxes};
use crate::game::{GameDecodeError, GameSample, GameStream};
use crate::telemetry::convert::rotate;

/// The console's port the heartbeat goes to.
pub const HEARTBEAT_PORT: u16 = 33739;
/// The port the console sends telemetry to, on the machine the heartbeat came from.
pub const TELEMETRY_PORT: u16 = 33740;
/// How often to repeat the heartbeat, s (the console stops after some seconds without one;
/// a byte a second costs nothing and survives a lost datagram).
pub const HEARTBEAT_INTERVAL_S: f64 = 1.0;
/// The decrypted packet's first four bytes as a little-endian u32 ("G7S0").
pub const MAGIC: u32 = 0x4737_5330;
/// The Salsa20 key: the first 32 bytes of "Simulator Interface Packet GT7 ver 0.0".
pub const KEY: [u8; 32] = *b"Simulator Interface Packet GT7 v";
/// Offset of the nonce seed (sent in clear).
pub const NONCE_SEED_AT: usize = 0x40;
/// Packets the console sends a second, one per simulation frame, each with the next packet
/// id: the id over this rate is the game's clock (what tells a delivery stall from a jump).
pub const PACKET_RATE_HZ: f64 = 60.0;
/// The largest packet (variant `~`), bytes.
pub const MAX_LEN: usize = 344;

/// The packet variant a heartbeat asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Gt7Variant {
    /// Heartbeat `A`: the original 296-byte packet (everything rigd reads).
    A,
    /// Heartbeat `B`: 316 bytes (adds steering wheel rotation, sway, heave, surge).
    B,
    /// Heartbeat `~`: 344 bytes (adds filtered pedals and energy recovery).
    Tilde,
}

impl Gt7Variant {
    /// Every variant.
    pub const ALL: [Gt7Variant; 3] = [Gt7Variant::A, Gt7Variant::B, Gt7Variant::Tilde];

    /// The datagram length.
    pub const fn packet_len(self) -> usize {
        match self {
            Gt7Variant::A => 296,
            Gt7Variant::B => 316,
            Gt7Variant::Tilde => MAX_LEN,
        }
    }

    /// The constant XORed into the nonce seed.
    pub const fn nonce_xor(self) -> u32 {
        match self {
            Gt7Variant::A => 0xDEAD_BEAF,
            Gt7Variant::B => 0xDEAD_BEEF,
            Gt7Variant::Tilde => 0x55FA_BB4F,
        }
    }

    /// The variant of a datagram of `len` bytes.
    pub const fn of_len(len: usize) -> Option<Gt7Variant> {
        match len {
            296 => Some(Gt7Variant::A),
            316 => Some(Gt7Variant::B),
            MAX_LEN => Some(Gt7Variant::Tilde),
            _ => None,
        }
    }
}

/// The heartbeat datagram asking for `variant`, sent to the console's [`HEARTBEAT_PORT`]
/// every [`HEARTBEAT_INTERVAL_S`].
pub const fn heartbeat(variant: Gt7Variant) -> &'static [u8] {
    match variant {
        Gt7Variant::A => b"A",
        Gt7Variant::B => b"B",
        Gt7Variant::Tilde => b"~",
    }
}

/// The Salsa20 nonce for a packet whose seed (bytes 0x40..0x44) is `seed`.
pub fn nonce(variant: Gt7Variant, seed: u32) -> [u8; 8] {
    let mut nonce = [0u8; 8];
    nonce[..4].copy_from_slice(&(seed ^ variant.nonce_xor()).to_le_bytes());
    nonce[4..].copy_from_slice(&seed.to_le_bytes());
    nonce
}

/// `bytes` decrypted into a stack buffer, with its variant; `None` unless the length is a
/// variant's and the magic matches after decryption.
fn decrypt(bytes: &[u8]) -> Option<([u8; MAX_LEN], Gt7Variant)> {
    let variant = Gt7Variant::of_len(bytes.len())?;
    let seed = u32::from_le_bytes(
        bytes
            .get(NONCE_SEED_AT..NONCE_SEED_AT + 4)?
            .try_into()
            .ok()?,
    );
    let mut plain = [0u8; MAX_LEN];
    let plain_packet = plain.get_mut(..bytes.len())?;
    plain_packet.copy_from_slice(bytes);
    apply_keystream(&KEY, &nonce(variant, seed), plain_packet);
    let magic = u32::from_le_bytes(plain[..4].try_into().ok()?);
    (magic == MAGIC).then_some((plain, variant))
}

/// True when `bytes` is a GT7 packet: a variant's length and, decrypted, the magic.
pub fn matches(bytes: &[u8]) -> bool {
    decrypt(bytes).is_some()
}

/// Offsets in the decrypted packet.
mod at {
    pub const POSITION: usize = 0x04;
    pub const VELOCITY: usize = 0x10;
    pub const ROTATION: usize = 0x1C;
    pub const ROTATION_W: usize = 0x28;
    pub const ANGULAR_VELOCITY: usize = 0x2C;
    pub const RPM: usize = 0x3C;
    pub const FUEL: usize = 0x44;
    pub const FUEL_CAPACITY: usize = 0x48;
    pub const SPEED: usize = 0x4C;
    pub const TYRE_TEMPERATURE: usize = 0x60;
    pub const PACKET_ID: usize = 0x70;
    pub const LAP: usize = 0x74;
    pub const BEST_LAP_MS: usize = 0x78;
    pub const LAST_LAP_MS: usize = 0x7C;
    pub const GRID_POSITION: usize = 0x84;
    pub const MAX_ALERT_RPM: usize = 0x8A;
    pub const FLAGS: usize = 0x8E;
    pub const GEAR: usize = 0x90;
    pub const THROTTLE: usize = 0x91;
    pub const BRAKE: usize = 0x92;
    pub const WHEEL_SPIN: usize = 0xA4;
    pub const SUSPENSION_HEIGHT: usize = 0xC4;
    pub const CLUTCH: usize = 0xF4;
}

/// Flag bits at [`at::FLAGS`].
const FLAG_ON_TRACK: u16 = 1 << 0;
const FLAG_PAUSED: u16 = 1 << 1;
const FLAG_LOADING: u16 = 1 << 2;
const FLAG_HANDBRAKE: u16 = 1 << 6;
/// Gear nibble for neutral.
const GEAR_NEUTRAL: u8 = 15;
/// How far the sent quaternion may be from unit length before it is rejected.
const QUATERNION_TOLERANCE: f64 = 0.05;

struct Plain<'a>(&'a [u8]);

impl Plain<'_> {
    fn array<const N: usize>(&self, at: usize) -> [u8; N] {
        self.0
            .get(at..at + N)
            .and_then(|s| s.try_into().ok())
            .unwrap_or([0; N])
    }
    fn u8(&self, at: usize) -> u8 {
        self.0.get(at).copied().unwrap_or(0)
    }
    fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes(self.array(at))
    }
    fn i16(&self, at: usize) -> i16 {
        i16::from_le_bytes(self.array(at))
    }
    fn i32(&self, at: usize) -> i32 {
        i32::from_le_bytes(self.array(at))
    }
    fn f32(&self, at: usize) -> Option<f64> {
        let x = f64::from(f32::from_le_bytes(self.array(at)));
        x.is_finite().then_some(x)
    }
    fn f32x3(&self, at: usize) -> Option<[f64; 3]> {
        Some([self.f32(at)?, self.f32(at + 4)?, self.f32(at + 8)?])
    }
    fn f32x4(&self, at: usize) -> [Option<f64>; 4] {
        [0, 1, 2, 3].map(|k| self.f32(at + 4 * k))
    }
    /// A lap time in ms, `None` when unset (negative).
    fn lap_s(&self, at: usize) -> Option<f64> {
        let ms = self.i32(at);
        (ms >= 0).then(|| f64::from(ms) / 1000.0)
    }
}

/// The car's axes from the quaternion (vector part at 0x1C, scalar at 0x28).
fn body_axes(p: &Plain) -> Option<BodyAxes> {
    let [x, y, z] = p.f32x3(at::ROTATION)?;
    let w = p.f32(at::ROTATION_W)?;
    let norm = (w * w + x * x + y * y + z * z).sqrt();
    if (norm - 1.0).abs() > QUATERNION_TOLERANCE {
        return None;
    }
    let q = [w, x, y, z];
    let forward = world_to_z_up(rotate(q, [0.0, 0.0, 1.0]));
    let right = world_to_z_up(rotate(q, [1.0, 0.0, 0.0]));
    BodyAxes::from_forward_right(forward, right)
}

/// Decrypts and decodes one GT7 datagram (any variant).
pub fn decode(bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    if Gt7Variant::of_len(bytes.len()).is_none() {
        return Err(GameDecodeError::Unrecognised { len: bytes.len() });
    }
    let Some((plain, _variant)) = decrypt(bytes) else {
        return Err(GameDecodeError::Invalid {
            stream: GameStream::Gt7,
            reason: "the magic does not match after decryption (a corrupted packet, or not \
                     GT7's)",
        });
    };
    let p = Plain(&plain);
    let mut sample = GameSample::empty(GameStream::Gt7);
    sample.game_time_s = Some(f64::from(p.i32(at::PACKET_ID)) / PACKET_RATE_HZ);
    let flags = p.u16(at::FLAGS);
    sample.driving = Some(flags & FLAG_ON_TRACK != 0 && flags & (FLAG_PAUSED | FLAG_LOADING) == 0);

    let motion = &mut sample.motion;
    motion.position_m = p.f32x3(at::POSITION).map(world_to_z_up);
    let velocity = p.f32x3(at::VELOCITY).map(world_to_z_up);
    motion.velocity_world_mps = velocity;
    motion.angular_velocity_body_radps = p.f32x3(at::ANGULAR_VELOCITY).map(local_rate_to_body);
    if let Some(axes) = body_axes(&p) {
        motion.roll_pitch_yaw_rad = Some(axes.roll_pitch_yaw());
        motion.velocity_body_mps = velocity.map(|v| axes.world_to_body(v));
    }

    let car = &mut sample.car;
    car.speed_mps = p.f32(at::SPEED);
    car.engine_rpm = p.f32(at::RPM);
    car.max_rpm = Some(f64::from(p.u16(at::MAX_ALERT_RPM))).filter(|r| *r > 0.0);
    car.gear = Some(match p.u8(at::GEAR) & 0x0F {
        0 => -1,
        GEAR_NEUTRAL => 0,
        g => g as i8,
    });
    car.throttle = Some(f64::from(p.u8(at::THROTTLE)) / 255.0);
    car.brake = Some(f64::from(p.u8(at::BRAKE)) / 255.0);
    car.clutch = p.f32(at::CLUTCH);
    car.handbrake = Some(if flags & FLAG_HANDBRAKE != 0 {
        1.0
    } else {
        0.0
    });
    let capacity = p.f32(at::FUEL_CAPACITY).filter(|c| *c > 0.0);
    car.fuel_fraction = p
        .f32(at::FUEL)
        .zip(capacity)
        .map(|(f, c)| f / c)
        .filter(|x| x.is_finite());
    let lap = p.i16(at::LAP);
    car.laps_completed = (lap > 0).then(|| u32::from(lap.unsigned_abs()) - 1);
    car.best_lap_s = p.lap_s(at::BEST_LAP_MS);
    car.last_lap_s = p.lap_s(at::LAST_LAP_MS);
    let grid = p.i16(at::GRID_POSITION);
    car.race_position = (grid > 0).then(|| u32::from(grid.unsigned_abs()));

    let temperature = p.f32x4(at::TYRE_TEMPERATURE);
    let spin = p.f32x4(at::WHEEL_SPIN);
    let height = p.f32x4(at::SUSPENSION_HEIGHT);
    for (i, wheel) in sample.wheels.iter_mut().enumerate() {
        wheel.temperature_c = temperature[i];
        wheel.angular_velocity_radps = spin[i];
        wheel.suspension_travel_m = height[i];
    }
    Ok(sample)
}
