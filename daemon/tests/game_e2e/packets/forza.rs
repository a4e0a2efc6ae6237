//! Forza "Data Out": the Sled block (232 bytes) and FM7's Car Dash (311 bytes), at the offsets
//! of Forza's published field table. Forza's local frame is X right, Y up, Z forward (a body
//! vector of rigd's `(x, y, z)` is Forza's `(-y, z, x)`), its world the same axes; its yaw is
//! rigd's, its angular velocity Y the yaw rate (positive turning left).

use super::{random_bytes, Bytes, Datagram, GamePackets};
use crate::game_e2e::car::{CarFrame, GEAR, IDLE_RPM, MAX_RPM, RPM, SUSPENSION_M};

/// rigd's body (or world) vector in Forza's axes.
fn forza_axes(v: [f64; 3]) -> [f64; 3] {
    [-v[1], v[2], v[0]]
}

fn sled_block(car: &CarFrame, len: usize) -> Bytes {
    let mut p = Bytes::zeros(len);
    p.i32(0, i32::from(car.driving)) // IsRaceOn
        .u32(4, (car.game_time_s * 1000.0) as u32) // TimestampMS
        .f32(8, MAX_RPM) // EngineMaxRpm
        .f32(12, IDLE_RPM) // EngineIdleRpm
        .f32(16, RPM) // CurrentEngineRpm
        .f32s(20, &forza_axes(car.accel_body_mps2)) // AccelerationX, Y, Z
        .f32s(32, &forza_axes(car.velocity_body_mps())) // VelocityX, Y, Z
        .f32s(44, &forza_axes([0.0, 0.0, car.yaw_rate_radps])) // AngularVelocityX (pitch), Y (yaw), Z (roll)
        .f32(56, car.yaw_rad); // Yaw (Pitch 60, Roll 64: level)
    for w in 0..4 {
        p.f32(196 + 4 * w, SUSPENSION_M); // SuspensionTravelMeters FL FR RL RR
    }
    p
}

/// A Sled packet (232 bytes).
pub fn sled(car: &CarFrame) -> Vec<u8> {
    sled_block(car, 232).done()
}

/// An FM7 Car Dash packet (311 bytes): the Sled block, then position, speed, ... gear.
pub fn fm7_dash(car: &CarFrame) -> Vec<u8> {
    let mut p = sled_block(car, 311);
    p.f32s(232, &forza_axes(car.position_m)) // PositionX, Y, Z
        .f32(244, car.speed_mps) // Speed
        .u8(232 + 75, GEAR as u8); // Gear
    p.done()
}

/// Forza FM7 sending Car Dash.
#[derive(Debug)]
pub struct Forza {
    seed: u64,
}

impl Forza {
    pub fn new() -> Forza {
        Forza { seed: 0x5eed }
    }
}

impl GamePackets for Forza {
    fn frame(&mut self, car: &CarFrame) -> Vec<Datagram> {
        vec![Datagram::to_first(fm7_dash(car))]
    }

    fn corrupt(&mut self, car: &CarFrame) -> Vec<Vec<u8>> {
        // Random bytes of a Forza size; a Forza size with an IsRaceOn that is neither 0 nor 1.
        let mut bad_flag = fm7_dash(car);
        bad_flag[0..4].copy_from_slice(&7i32.to_le_bytes());
        vec![random_bytes(&mut self.seed, 232), bad_flag]
    }

    fn foreign(&self, car: &CarFrame) -> Vec<Vec<u8>> {
        super::foreign(car, "forza")
    }

    fn rate_hz(&self) -> f64 {
        60.0
    }
}
