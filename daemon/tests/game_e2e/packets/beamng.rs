//! BeamNG.drive: MotionSim (`BNG1` then 21 little-endian floats, 88 bytes, from
//! `lua/vehicle/protocols/motionSim.lua`) on the first listen port and OutGauge (the LFS
//! layout, 96 bytes with the ID, time 0) on the second, as docs/games/beamng.md configures
//! them. MotionSim's world is z up like rigd's; its acceleration is in the vehicle's frame,
//! x left, y rearwards, z up; its rates are `(roll, pitch, yaw)` with rigd's body rates
//! `(roll, -pitch, -yaw)` and its angles `(roll, pitch, yaw)` with rigd's `(-roll, -pitch, yaw)`.

use super::{Bytes, Datagram, GamePackets};
use crate::game_e2e::car::{CarFrame, GEAR, RPM};

/// A MotionSim packet.
pub fn motion_sim(car: &CarFrame) -> Vec<u8> {
    let a = car.accel_body_mps2;
    let mut p = Bytes::zeros(88);
    p.raw(0, b"BNG1")
        .f32s(4, &car.position_m) // posX, posY, posZ
        .f32s(16, &car.velocity_world_mps) // velX, velY, velZ
        .f32s(28, &[a[1], -a[0], a[2]]) // accX (left), accY (rearwards), accZ (up)
        .f32s(40, &car.up()) // upVecX, Y, Z
        .f32s(52, &[0.0, 0.0, car.yaw_rad]) // rollPos, pitchPos, yawPos
        .f32s(64, &[0.0, 0.0, -car.yaw_rate_radps]); // rollVel, pitchVel, yawVel
    p.done()
}

/// An OutGauge packet (LFS InSim.txt's `OutGaugePack`) with `time_ms` and the 4-byte ID
/// when `with_id`.
pub fn outgauge(car: &CarFrame, time_ms: u32, with_id: bool) -> Vec<u8> {
    let mut p = Bytes::zeros(if with_id { 96 } else { 92 });
    p.u32(0, time_ms) // Time
        .raw(4, b"beam") // Car
        .u8(10, (GEAR + 1) as u8) // Gear: 0 R, 1 N, 2 first
        .f32(12, car.speed_mps) // Speed, m/s
        .f32(16, RPM) // RPM
        .f32(28, 0.5) // Fuel
        .f32(48, 0.6) // Throttle
        .f32(52, 0.0) // Brake
        .f32(56, 0.0); // Clutch
    p.done()
}

/// BeamNG at 60 Hz, MotionSim and OutGauge.
#[derive(Debug)]
pub struct BeamNg;

impl GamePackets for BeamNg {
    fn frame(&mut self, car: &CarFrame) -> Vec<Datagram> {
        vec![
            Datagram::to_first(motion_sim(car)),
            Datagram {
                port: 1,
                bytes: outgauge(car, 0, true),
            },
        ]
    }

    fn corrupt(&mut self, car: &CarFrame) -> Vec<Vec<u8>> {
        // Another magic in a MotionSim-sized packet; a MotionSim packet cut short.
        let mut wrong_magic = motion_sim(car);
        wrong_magic[..4].copy_from_slice(b"BNG2");
        let short = motion_sim(car)[..84].to_vec();
        vec![wrong_magic, short]
    }

    fn foreign(&self, car: &CarFrame) -> Vec<Vec<u8>> {
        super::foreign(car, "beamng")
    }

    fn rate_hz(&self) -> f64 {
        120.0
    }
}
