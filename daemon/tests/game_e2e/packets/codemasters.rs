//! Codemasters extradata=3 (DiRT Rally 1/2, DiRT 4, GRID): 66 little-endian floats, float `i`
//! at byte `4 i`, no header. World axes y up (rigd's `(x, y, z)` is `(X, Z, Y)`); floats 11-13
//! the car's left unit vector, 14-16 its forward unit vector; g-forces lateral (positive to
//! the left, a left turn) and longitudinal (positive accelerating), no vertical g; engine
//! rates in rpm / 10.

use super::{random_bytes, Bytes, Datagram, GamePackets};
use crate::game_e2e::car::{CarFrame, GEAR, IDLE_RPM, MAX_RPM, RPM, SUSPENSION_M, TYRE_PSI};

const G: f64 = 9.80665;

fn cm_world(v: [f64; 3]) -> [f64; 3] {
    [v[0], v[2], v[1]]
}

/// One 264-byte packet.
pub fn packet(car: &CarFrame) -> Vec<u8> {
    let f = |i: usize| 4 * i;
    let mut p = Bytes::zeros(264);
    p.f32(f(0), car.game_time_s) // total time
        .f32(f(1), car.game_time_s % 90.0) // lap time
        .f32(f(2), 800.0) // lap distance
        .f32s(f(4), &cm_world(car.position_m)) // position X, Y, Z
        .f32(f(7), car.speed_mps) // speed
        .f32s(f(8), &cm_world(car.velocity_world_mps)) // world velocity
        .f32s(f(11), &cm_world(car.left())) // left (roll) vector
        .f32s(f(14), &cm_world(car.forward())) // forward (pitch) vector
        .f32s(f(17), &[SUSPENSION_M * 1000.0; 4]) // suspension position RL RR FL FR, mm
        .f32(f(29), 0.6) // throttle
        .f32(f(30), 0.0) // steer
        .f32(f(31), 0.0) // brake
        .f32(f(33), f64::from(GEAR)) // gear
        .f32(f(34), car.accel_body_mps2[1] / G) // lateral g
        .f32(f(35), car.accel_body_mps2[0] / G) // longitudinal g
        .f32(f(36), 2.0) // current lap
        .f32(f(37), RPM / 10.0) // engine rate
        .f32(f(39), 3.0) // race position
        .f32(f(45), 30.0) // fuel in tank
        .f32(f(46), 60.0) // fuel capacity
        .f32s(f(55), &[TYRE_PSI[2], TYRE_PSI[3], TYRE_PSI[0], TYRE_PSI[1]]) // tyre pressure RL RR FL FR, psi
        .f32(f(59), 1.0) // laps completed
        .f32(f(63), MAX_RPM / 10.0) // max rpm
        .f32(f(64), IDLE_RPM / 10.0) // idle rpm
        .f32(f(65), 6.0); // forward gears
    p.done()
}

/// DiRT Rally 2.0 at 60 Hz.
#[derive(Debug)]
pub struct Codemasters {
    seed: u64,
}

impl Codemasters {
    pub fn new() -> Codemasters {
        Codemasters { seed: 0xc0de }
    }
}

impl GamePackets for Codemasters {
    fn frame(&mut self, car: &CarFrame) -> Vec<Datagram> {
        vec![Datagram::to_first(packet(car))]
    }

    fn corrupt(&mut self, car: &CarFrame) -> Vec<Vec<u8>> {
        // Packets cut short, and random bytes of the packet's size (the format has no magic:
        // the decoder tells them by their implausible values).
        let whole = packet(car);
        vec![
            whole[..152].to_vec(),
            whole[..256].to_vec(),
            random_bytes(&mut self.seed, 264),
        ]
    }

    fn foreign(&self, car: &CarFrame) -> Vec<Vec<u8>> {
        super::foreign(car, "codemasters")
    }

    fn rate_hz(&self) -> f64 {
        60.0
    }
}
