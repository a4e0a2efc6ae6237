//! EA F1 24 / F1 25 ("Data Output from F1 24/25"): the 29-byte header, then Motion (id 0,
//! 1349 bytes, 60 bytes per car), Motion Ex (id 13, 237 bytes in F1 24, 273 in F1 25, the
//! player only), Car Telemetry (id 6, 1352 bytes, 60 per car) every frame and Session (id 1,
//! 753 bytes) twice a second, as the game sends them; the player is car [`PLAYER`] (not 0),
//! and the other cars hold other values.
//!
//! Axes: F1's world is y up, left-handed (rigd's `(x, y, z)` is F1's `(X, Z, Y)`); its car
//! frame is X right, Y up, Z forward (rigd's body `(x, y, z)` is F1's `(-y, z, x)`), angular
//! velocity about those axes left-handed (a left turn is negative about Y). G-forces are the
//! specific force in g: lateral positive to the right, longitudinal positive accelerating,
//! vertical 1 at rest.

use super::{random_bytes, Bytes, Datagram, GamePackets};
use crate::game_e2e::car::{CarFrame, GEAR, RPM, SUSPENSION_M, TYRE_PSI};

/// The player's car index.
pub const PLAYER: usize = 5;
const G: f64 = 9.80665;

/// Which year's specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Year {
    F1_24,
    F1_25,
}

impl Year {
    fn packet_format(self) -> u16 {
        match self {
            Year::F1_24 => 2024,
            Year::F1_25 => 2025,
        }
    }
    fn motion_ex_len(self) -> usize {
        match self {
            Year::F1_24 => 237,
            Year::F1_25 => 273,
        }
    }
}

/// rigd world vector in F1's world axes.
fn f1_world(v: [f64; 3]) -> [f64; 3] {
    [v[0], v[2], v[1]]
}

/// rigd body vector in F1's car axes.
fn f1_local(v: [f64; 3]) -> [f64; 3] {
    [-v[1], v[2], v[0]]
}

fn header(year: Year, id: u8, len: usize, car: &CarFrame) -> Bytes {
    let mut p = Bytes::zeros(len);
    p.u16(0, year.packet_format()) // m_packetFormat
        .u8(2, (year.packet_format() % 100) as u8) // m_gameYear
        .u8(3, 1) // m_gameMajorVersion
        .u8(4, 7) // m_gameMinorVersion
        .u8(5, 1) // m_packetVersion
        .u8(6, id) // m_packetId
        .u64(7, 0x00c0_ffee_f1f1) // m_sessionUID
        .f32(15, car.game_time_s) // m_sessionTime
        .u32(19, car.frame as u32) // m_frameIdentifier
        .u32(23, car.frame as u32) // m_overallFrameIdentifier
        .u8(27, PLAYER as u8) // m_playerCarIndex
        .u8(28, 255); // m_secondaryPlayerCarIndex
    p
}

/// Motion: every car's `CarMotionData` (the player's from the car, the others parked).
pub fn motion(year: Year, car: &CarFrame) -> Vec<u8> {
    let mut p = header(year, 0, 1349, car);
    for index in 0..22 {
        let at = 29 + 60 * index;
        if index != PLAYER {
            p.f32s(at, &[-500.0 - index as f64, 1.0, 300.0]); // another car, parked
            p.i16(at + 28, 32767).i16(at + 30, 32767); // facing Z, right X
            p.f32(at + 44, 1.0);
            continue;
        }
        let forward = f1_world(car.forward());
        let right = f1_world(car.left().map(|c| -c));
        p.f32s(at, &f1_world(car.position_m)) // m_worldPosition X, Y, Z
            .f32s(at + 12, &f1_world(car.velocity_world_mps)); // m_worldVelocity X, Y, Z
        for k in 0..3 {
            p.i16(at + 24 + 2 * k, (forward[k] * 32767.0).round() as i16); // m_worldForwardDir
            p.i16(at + 30 + 2 * k, (right[k] * 32767.0).round() as i16); // m_worldRightDir
        }
        let a = car.accel_body_mps2;
        p.f32(at + 36, -a[1] / G) // m_gForceLateral (right)
            .f32(at + 40, a[0] / G) // m_gForceLongitudinal
            .f32(at + 44, 1.0 + a[2] / G) // m_gForceVertical
            .f32(at + 48, -car.yaw_rad); // m_yaw (m_pitch, m_roll: level)
    }
    p.done()
}

/// Motion Ex: the player's local velocity, angular velocity and wheels.
pub fn motion_ex(year: Year, car: &CarFrame) -> Vec<u8> {
    let mut p = header(year, 13, year.motion_ex_len(), car);
    for k in 0..4 {
        p.f32(29 + 4 * k, SUSPENSION_M * 1000.0); // m_suspensionPosition RL RR FL FR, mm
        p.f32(77 + 4 * k, car.speed_mps); // m_wheelSpeed
        p.f32(201 + 4 * k, 3500.0); // m_wheelVertForce
    }
    p.f32s(161, &f1_local(car.velocity_body_mps())) // m_localVelocity X, Y, Z
        // m_angularVelocity X, Y, Z: left-handed about X right, Y up, Z forward.
        .f32s(173, &[0.0, -car.yaw_rate_radps, 0.0]);
    p.done()
}

/// Car Telemetry: speed, pedals, gear, rpm and tyre pressures (psi, `m_tyresPressure` at
/// byte 40 of the car's 60, RL RR FL FR; the other cars at other values).
pub fn car_telemetry(year: Year, car: &CarFrame) -> Vec<u8> {
    let mut p = header(year, 6, 1352, car);
    for index in 0..22 {
        let at = 29 + 60 * index;
        let (speed_kph, rpm, gear) = if index == PLAYER {
            ((car.speed_mps * 3.6).round() as u16, RPM as u16, GEAR)
        } else {
            (12, 11_000, 1)
        };
        let psi = if index == PLAYER {
            [TYRE_PSI[2], TYRE_PSI[3], TYRE_PSI[0], TYRE_PSI[1]]
        } else {
            [30.0; 4]
        };
        p.f32s(at + 40, &psi); // m_tyresPressure RL RR FL FR
        p.u16(at, speed_kph) // m_speed, km/h
            .f32(at + 2, 0.6) // m_throttle
            .f32(at + 6, 0.0) // m_steer
            .f32(at + 10, 0.0) // m_brake
            .i8(at + 15, gear) // m_gear
            .u16(at + 16, rpm); // m_engineRPM
    }
    p.u8(29 + 22 * 60, 255).u8(29 + 22 * 60 + 1, 255); // MFD panels closed
    p.done()
}

/// Session: `m_gamePaused` when the player does not drive.
pub fn session(year: Year, car: &CarFrame) -> Vec<u8> {
    let mut p = header(year, 1, 753, car);
    p.u16(33, 5412) // m_trackLength
        .i8(36, 10) // m_trackId
        .u8(43, u8::from(!car.driving)) // m_gamePaused
        .u8(44, 0) // m_isSpectating
        .u8(45, 255); // m_spectatorCarIndex
    p.done()
}

/// F1 24 or F1 25 at 60 Hz: Motion, Motion Ex and Car Telemetry each frame, Session at 2 Hz.
#[derive(Debug)]
pub struct F1 {
    year: Year,
    seed: u64,
}

impl F1 {
    pub fn new(year: Year) -> F1 {
        F1 { year, seed: 0xf1 }
    }
}

impl GamePackets for F1 {
    fn frame(&mut self, car: &CarFrame) -> Vec<Datagram> {
        let mut out = vec![
            Datagram::to_first(motion(self.year, car)),
            Datagram::to_first(motion_ex(self.year, car)),
            Datagram::to_first(car_telemetry(self.year, car)),
        ];
        if car.frame % 30 == 0 {
            out.push(Datagram::to_first(session(self.year, car)));
        }
        out
    }

    fn corrupt(&mut self, car: &CarFrame) -> Vec<Vec<u8>> {
        // A Motion packet one byte short; a packet format no year has; random bytes of the
        // Car Telemetry size.
        let mut short = motion(self.year, car);
        short.pop();
        let mut wrong_format = car_telemetry(self.year, car);
        wrong_format[0..2].copy_from_slice(&2019u16.to_le_bytes());
        vec![short, wrong_format, random_bytes(&mut self.seed, 1352)]
    }

    fn foreign(&self, car: &CarFrame) -> Vec<Vec<u8>> {
        super::foreign(car, "f1")
    }

    fn rate_hz(&self) -> f64 {
        3.0 * 60.0 + 2.0
    }
}
