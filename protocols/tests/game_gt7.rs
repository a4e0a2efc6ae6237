//! GT7 decoding against packets built here from the public layout (byte offsets written out
//! from the community tables, independent of the decoder) and encrypted here with the
//! published scheme (Salsa20, key = the first 32 bytes of "Simulator Interface Packet GT7 ver
//! 0.0", nonce = (seed ^ the variant's constant) LE ++ seed LE, the seed sent in clear at
//! 0x40); a corrupted packet is rejected; no panic or non-finite value on any bytes.

mod game_support;

use game_support::{all_finite, any_bytes, bytes_of};
use proptest::prelude::*;
use rig_protocols::game::gt7::{self, apply_keystream, heartbeat, Gt7Variant};
use rig_protocols::game::{self, GameDecodeError, GameStream};

/// (length, nonce constant) of variants A, B and ~.
const VARIANTS: [(usize, u32); 3] = [(296, 0xDEAD_BEAF), (316, 0xDEAD_BEEF), (344, 0x55FA_BB4F)];

struct Plain(Vec<u8>);

impl Plain {
    fn new(len: usize) -> Plain {
        let mut p = Plain(vec![0; len]);
        p.0[..4].copy_from_slice(b"0S7G"); // magic 0x47375330, little-endian
        p
    }
    fn f32(&mut self, at: usize, v: f32) {
        self.0[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    fn f32s(&mut self, at: usize, vs: &[f32]) {
        for (k, v) in vs.iter().enumerate() {
            self.f32(at + 4 * k, *v);
        }
    }
    fn i16(&mut self, at: usize, v: i16) {
        self.0[at..at + 2].copy_from_slice(&v.to_le_bytes());
    }
    fn u16(&mut self, at: usize, v: u16) {
        self.0[at..at + 2].copy_from_slice(&v.to_le_bytes());
    }
    fn i32(&mut self, at: usize, v: i32) {
        self.0[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Encrypted as the console does, with nonce seed `seed`.
    fn encrypt(&self, seed: u32) -> Vec<u8> {
        let constant = VARIANTS
            .iter()
            .find(|(len, _)| *len == self.0.len())
            .unwrap()
            .1;
        let key: [u8; 32] = b"Simulator Interface Packet GT7 ver 0.0"[..32]
            .try_into()
            .unwrap();
        let mut nonce = [0u8; 8];
        nonce[..4].copy_from_slice(&(seed ^ constant).to_le_bytes());
        nonce[4..].copy_from_slice(&seed.to_le_bytes());
        let mut bytes = self.0.clone();
        apply_keystream(&key, &nonce, &mut bytes);
        bytes[0x40..0x44].copy_from_slice(&seed.to_le_bytes());
        bytes
    }
}

fn close(a: Option<f64>, b: f64, tol: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= tol)
}

fn close3(a: Option<[f64; 3]>, b: [f64; 3], tol: f64) -> bool {
    a.is_some_and(|a| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol))
}

/// A car on track, heading `heading` rad about GT's up axis, driving.
fn racing(len: usize, heading: f32) -> Plain {
    let mut p = Plain::new(len);
    p.f32s(0x04, &[-120.0, 8.5, 340.0]); // position
    p.f32s(0x10, &[0.0, 0.0, 42.0]); // world velocity
    p.f32s(0x1C, &[0.0, (heading / 2.0).sin(), 0.0]); // rotation (quaternion x, y, z)
    p.f32(0x28, (heading / 2.0).cos()); // relative orientation to north (quaternion w)
    p.f32s(0x2C, &[0.0, -0.3, 0.0]); // angular velocity: left-hand yaw, turning left
    p.f32(0x3C, 6200.0); // engine rpm
    p.f32(0x44, 30.0); // fuel
    p.f32(0x48, 60.0); // fuel capacity
    p.f32(0x4C, 42.0); // speed, m/s
    p.f32s(0x60, &[85.0, 86.0, 87.0, 88.0]); // tyre temperatures FL FR RL RR
    p.i32(0x70, 777); // packet id
    p.i16(0x74, 3); // lap
    p.i32(0x78, 95_432); // best lap, ms
    p.i32(0x7C, -1); // last lap unset
    p.i16(0x84, -1); // race start position: racing
    p.u16(0x8A, 7500); // max alert rpm
    p.u16(0x8E, 0b1001); // flags: on track, in gear
    p.0[0x90] = 0x54; // gear 4, suggested 5
    p.0[0x91] = 255; // throttle
    p.0[0x92] = 51; // brake
    p.f32s(0xA4, &[140.0, 141.0, 142.0, 143.0]); // wheel spin, rad/s
    p.f32s(0xC4, &[0.11, 0.12, 0.13, 0.14]); // suspension height
    p.f32(0xF4, 0.25); // clutch
    p
}

#[test]
fn a_packet_encrypted_with_the_published_scheme_decrypts_and_decodes() {
    for (len, _) in VARIANTS {
        let bytes = racing(len, 0.4).encrypt(0x1357_9BDF);
        assert!(gt7::matches(&bytes), "{len}");
        assert_eq!(game::detect(&bytes), Some(GameStream::Gt7));
        let s = gt7::decode(&bytes).unwrap();
        assert_eq!(s.stream, GameStream::Gt7);
        assert_eq!(s.driving, Some(true));
        // The packet id is the clock: one id per frame at 60 Hz.
        assert!(
            close(s.game_time_s, 777.0 / 60.0, 1e-12),
            "{:?}",
            s.game_time_s
        );
        assert_eq!(s.wheels[0].pressure_kpa, None, "GT7 sends no tyre pressure");
        let m = s.motion;
        assert!(close3(m.position_m, [-120.0, 340.0, 8.5], 1e-4), "{m:?}");
        assert!(close3(m.velocity_world_mps, [0.0, 42.0, 0.0], 1e-6));
        // Heading 0.4 rad from GT's +Z (rigd's +y) towards +X (rigd's +x): yaw pi/2 - 0.4.
        let yaw = std::f64::consts::FRAC_PI_2 - 0.4;
        assert!(close3(m.roll_pitch_yaw_rad, [0.0, 0.0, yaw], 1e-6), "{m:?}");
        // The world velocity along +y seen from the yawed car.
        assert!(close3(
            m.velocity_body_mps,
            [42.0 * yaw.sin(), 42.0 * yaw.cos(), 0.0],
            1e-4
        ));
        assert!(close3(m.angular_velocity_body_radps, [0.0, 0.0, 0.3], 1e-6));
        let c = s.car;
        assert!(close(c.speed_mps, 42.0, 1e-6) && close(c.engine_rpm, 6200.0, 1e-3));
        assert!(close(c.max_rpm, 7500.0, 0.0));
        assert_eq!(c.gear, Some(4));
        assert!(close(c.throttle, 1.0, 0.0) && close(c.brake, 0.2, 1e-9));
        assert!(close(c.clutch, 0.25, 1e-6) && close(c.handbrake, 0.0, 0.0));
        assert!(close(c.fuel_fraction, 0.5, 1e-9));
        assert_eq!(c.laps_completed, Some(2));
        assert!(close(c.best_lap_s, 95.432, 1e-9));
        assert_eq!((c.last_lap_s, c.race_position), (None, None));
        assert!(close(s.wheels[0].temperature_c, 85.0, 1e-6));
        assert!(close(s.wheels[3].angular_velocity_radps, 143.0, 1e-4));
        assert!(close(s.wheels[2].suspension_travel_m, 0.13, 1e-6));
        assert!(all_finite(&s));
    }
}

#[test]
fn paused_loading_or_off_track_is_not_driving_and_gears_read_r_and_n() {
    for (flags, driving) in [
        (0b0011, false),
        (0b0101, false),
        (0b0000, false),
        (0b0001, true),
    ] {
        let mut p = racing(296, 0.0);
        p.u16(0x8E, flags);
        let s = gt7::decode(&p.encrypt(99)).unwrap();
        assert_eq!(s.driving, Some(driving), "flags {flags:#b}");
    }
    for (byte, gear) in [(0x00, -1), (0x0F, 0), (0x21, 1), (0x07, 7)] {
        let mut p = racing(296, 0.0);
        p.0[0x90] = byte;
        assert_eq!(gt7::decode(&p.encrypt(5)).unwrap().car.gear, Some(gear));
    }
}

#[test]
fn a_corrupted_packet_is_rejected() {
    let good = racing(296, 0.0).encrypt(0xCAFE_F00D);
    // A flipped bit in the (encrypted) magic, or in the nonce seed: the magic fails.
    for at in [0, 2, 0x40, 0x43] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        assert!(!gt7::matches(&bad), "byte {at}");
        assert!(matches!(
            gt7::decode(&bad),
            Err(GameDecodeError::Invalid {
                stream: GameStream::Gt7,
                ..
            })
        ));
    }
    // Not encrypted at all, or the wrong variant's constant for its length.
    assert!(gt7::decode(&racing(296, 0.0).0).is_err());
    let mut b_as_a = racing(316, 0.0).encrypt(1);
    b_as_a.truncate(296);
    assert!(gt7::decode(&b_as_a).is_err());
    // Another length is no GT7 packet.
    assert!(matches!(
        gt7::decode(&good[..295]),
        Err(GameDecodeError::Unrecognised { len: 295 })
    ));
}

#[test]
fn the_heartbeat_and_ports_are_the_published_ones() {
    assert_eq!(heartbeat(Gt7Variant::A), b"A");
    assert_eq!(heartbeat(Gt7Variant::B), b"B");
    assert_eq!(heartbeat(Gt7Variant::Tilde), b"~");
    assert_eq!((gt7::HEARTBEAT_PORT, gt7::TELEMETRY_PORT), (33739, 33740));
    for (variant, (len, _)) in Gt7Variant::ALL.iter().zip(VARIANTS) {
        assert_eq!(variant.packet_len(), len);
    }
}

proptest! {
    #[test]
    fn any_bytes_decode_without_panic(bytes in any_bytes(400)) {
        if let Ok(sample) = gt7::decode(&bytes) {
            prop_assert!(all_finite(&sample));
        }
    }

    #[test]
    fn any_plaintext_with_the_magic_gives_a_finite_sample(
        body in bytes_of(344),
        variant in 0usize..3,
        seed in any::<u32>(),
    ) {
        let mut plain = Plain(body);
        plain.0.truncate(VARIANTS[variant].0);
        plain.0[..4].copy_from_slice(b"0S7G");
        let sample = gt7::decode(&plain.encrypt(seed)).unwrap();
        prop_assert!(all_finite(&sample), "{sample:?}");
    }
}
