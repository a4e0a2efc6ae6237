//! Gran Turismo 7's "Simulator Interface" packet (variant `A`, 296 bytes), laid out and
//! encrypted as the public decoders (Nenkai's PDTools, gt7dashboard) document it: magic
//! "0S7G" (0x47375330 LE), position 0x04 and world velocity 0x10 (y up, left-handed: rigd's
//! `(x, y, z)` is GT's `(X, Z, Y)`), the car-to-world rotation quaternion's vector part at
//! 0x1C and scalar part at 0x28, angular velocity 0x2C (car frame X right, Y up, Z forward,
//! left-handed: a left turn is negative about Y), rpm 0x3C, speed 0x4C, flags 0x8E (bit 0 on
//! track, bit 1 paused), gear 0x90, throttle 0x91, brake 0x92, suspension height 0xC4.
//! Salsa20 with the key "Simulator Interface Packet GT7 v" (the first 32 bytes of "...ver
//! 0.0") and the nonce `iv1 ^ 0xDEADBEAF` LE then `iv1` LE, `iv1` being the u32 at 0x40,
//! which goes out in clear. GT7 sends no acceleration and no game clock.

use rig_protocols::game::gt7::apply_keystream;

use super::{Bytes, Datagram, GamePackets};
use crate::game_e2e::car::{CarFrame, GEAR, MAX_RPM, RPM, SUSPENSION_M};

const KEY: &[u8; 32] = b"Simulator Interface Packet GT7 v";
const NONCE_XOR_A: u32 = 0xDEAD_BEAF;

fn gt_world(v: [f64; 3]) -> [f64; 3] {
    [v[0], v[2], v[1]]
}

/// The decrypted packet.
pub fn plain(car: &CarFrame) -> Vec<u8> {
    // The car turned by `yaw` (left, about rigd's z) is turned by pi/2 - yaw about GT's Y
    // (right-handed formula in GT's own axes): its local +Z (forward) goes to
    // (cos yaw, 0, sin yaw), which is rigd's forward.
    let half = (std::f64::consts::FRAC_PI_2 - car.yaw_rad) / 2.0;
    let mut p = Bytes::zeros(296);
    p.raw(0, b"0S7G")
        .f32s(0x04, &gt_world(car.position_m)) // position
        .f32s(0x10, &gt_world(car.velocity_world_mps)) // world velocity
        .f32s(0x1C, &[0.0, half.sin(), 0.0]) // rotation (quaternion x, y, z)
        .f32(0x28, half.cos()) // relative orientation to north (quaternion w)
        .f32s(0x2C, &[0.0, -car.yaw_rate_radps, 0.0]) // angular velocity
        .f32(0x3C, RPM) // engine rpm
        .f32(0x44, 40.0) // fuel
        .f32(0x48, 60.0) // fuel capacity
        .f32(0x4C, car.speed_mps) // speed, m/s
        .i32(0x70, car.frame as i32) // packet id
        .i16(0x74, 2) // lap
        .i32(0x78, -1) // best lap: unset
        .i32(0x7C, -1) // last lap: unset
        .i16(0x84, -1) // grid position: racing
        .u16(0x8A, MAX_RPM as u16) // rev warning
        .u16(0x8E, if car.driving { 0b1 } else { 0b11 }) // flags: on track, paused
        .u8(0x90, 0x50 | GEAR as u8) // gear, suggested gear 5
        .u8(0x91, 153) // throttle 0.6
        .u8(0x92, 0) // brake
        .f32s(0xC4, &[SUSPENSION_M; 4]); // suspension height FL FR RL RR
    p.done()
}

/// `plain` encrypted with nonce seed `iv1`.
pub fn encrypt(mut bytes: Vec<u8>, iv1: u32) -> Vec<u8> {
    let mut nonce = [0u8; 8];
    nonce[..4].copy_from_slice(&(iv1 ^ NONCE_XOR_A).to_le_bytes());
    nonce[4..].copy_from_slice(&iv1.to_le_bytes());
    apply_keystream(KEY, &nonce, &mut bytes);
    bytes[0x40..0x44].copy_from_slice(&iv1.to_le_bytes());
    bytes
}

fn iv1(car: &CarFrame) -> u32 {
    (car.frame as u32).wrapping_mul(0x9E37_79B9) ^ 0x0bad_cafe
}

/// GT7 streaming variant A at 60 Hz.
#[derive(Debug)]
pub struct Gt7;

impl GamePackets for Gt7 {
    fn frame(&mut self, car: &CarFrame) -> Vec<Datagram> {
        vec![Datagram::to_first(encrypt(plain(car), iv1(car)))]
    }

    fn corrupt(&mut self, car: &CarFrame) -> Vec<Vec<u8>> {
        // One flipped bit in the encrypted magic; a packet encrypted with the wrong seed
        // in clear (the nonce does not match); a packet cut short.
        let mut flipped = encrypt(plain(car), iv1(car));
        flipped[1] ^= 0x10;
        let mut wrong_seed = encrypt(plain(car), iv1(car));
        wrong_seed[0x40] ^= 1;
        let short = encrypt(plain(car), iv1(car))[..290].to_vec();
        vec![flipped, wrong_seed, short]
    }

    fn foreign(&self, car: &CarFrame) -> Vec<Vec<u8>> {
        super::foreign(car, "gt7")
    }

    fn rate_hz(&self) -> f64 {
        60.0
    }
}
