//! EA Sports WRC, the shipped `wrc` structure's `session_update` channels (237 bytes, packed
//! little-endian) after a `packet_4cc` header (241 bytes: `sesu` while driving, `sesp` in the
//! pause), as `telemetry/readme/udp/wrc.json` and `channels.json` define them. EA's world is
//! x left, y up, z forward (rigd's `(x, y, z)` is EA's `(z, x, y)`); the car's left, forward
//! and up unit vectors are sent; acceleration is a world-frame vector.

use super::{random_bytes, Bytes, Datagram, GamePackets};
use crate::game_e2e::car::{CarFrame, GEAR, IDLE_RPM, MAX_RPM, RPM, SUSPENSION_M};

fn ea_world(v: [f64; 3]) -> [f64; 3] {
    [v[1], v[2], v[0]]
}

/// The 241-byte packet (offsets below are into the 237 channel bytes, after the code).
pub fn packet(car: &CarFrame) -> Vec<u8> {
    let mut p = Bytes::zeros(241);
    p.raw(0, if car.driving { b"sesu" } else { b"sesp" }); // packet_4cc
    let c = |at: usize| 4 + at;
    p.u64(c(0), car.frame) // packet_uid
        .f32(c(8), car.game_time_s) // game_total_time
        .f32(c(12), 1.0 / 60.0) // game_delta_time
        .u64(c(16), car.frame) // game_frame_count
        .u8(c(37), GEAR as u8) // vehicle_gear_index
        .u8(c(38), 0) // vehicle_gear_index_neutral
        .u8(c(39), 10) // vehicle_gear_index_reverse
        .u8(c(40), 6) // vehicle_gear_maximum
        .f32(c(41), car.speed_mps) // vehicle_speed
        .f32(c(45), car.speed_mps) // vehicle_transmission_speed
        .f32s(c(49), &ea_world(car.position_m)) // vehicle_position_x, y, z
        .f32s(c(61), &ea_world(car.velocity_world_mps)) // vehicle_velocity_*
        .f32s(c(73), &ea_world(car.accel_world_mps2())) // vehicle_acceleration_*
        .f32s(c(85), &ea_world(car.left())) // vehicle_left_direction_*
        .f32s(c(97), &ea_world(car.forward())) // vehicle_forward_direction_*
        .f32s(c(109), &ea_world(car.up())) // vehicle_up_direction_*
        .f32s(c(121), &[SUSPENSION_M; 4]) // vehicle_hub_position_bl, br, fl, fr
        .f32s(c(185), &[MAX_RPM, IDLE_RPM, RPM]) // vehicle_engine_rpm_max, _idle, _current
        .f32s(c(197), &[0.6, 0.0, 0.0, 0.0, 0.0]) // throttle, brake, clutch, steering, handbrake
        .f32(c(217), car.game_time_s) // stage_current_time
        .f64(c(221), car.speed_mps * car.game_time_s) // stage_current_distance
        .f64(c(229), 12_000.0); // stage_length
    p.done()
}

/// EA WRC at 60 Hz with `packet_4cc`.
#[derive(Debug)]
pub struct EaWrc {
    seed: u64,
}

impl EaWrc {
    pub fn new() -> EaWrc {
        EaWrc { seed: 0xea }
    }
}

impl GamePackets for EaWrc {
    fn frame(&mut self, car: &CarFrame) -> Vec<Datagram> {
        vec![Datagram::to_first(packet(car))]
    }

    fn corrupt(&mut self, car: &CarFrame) -> Vec<Vec<u8>> {
        // A packet code that is not a session code; random bytes of the packet's size.
        let mut wrong_code = packet(car);
        wrong_code[..4].copy_from_slice(b"xyzw");
        vec![wrong_code, random_bytes(&mut self.seed, 241)]
    }

    fn foreign(&self, car: &CarFrame) -> Vec<Vec<u8>> {
        super::foreign(car, "ea-wrc")
    }

    fn rate_hz(&self) -> f64 {
        60.0
    }
}
