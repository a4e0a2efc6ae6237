//! The Forza game-bridge decoder against packets built byte by byte from the published
//! "Data Out" field table (offsets written out here, independent of the wire structs), and
//! on arbitrary bytes: no panic, no non-finite value.

mod game_support;

use game_support::{all_finite, bytes_of};
use proptest::prelude::*;
use rig_protocols::game::{self, forza, GameFormat, GameSample, GameStream};

/// A packet of `len` bytes written at the published offsets.
struct Packet(Vec<u8>);

impl Packet {
    fn new(len: usize) -> Packet {
        Packet(vec![0; len])
    }
    fn f32(&mut self, offset: usize, value: f32) -> &mut Packet {
        self.0[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        self
    }
    fn i32(&mut self, offset: usize, value: i32) -> &mut Packet {
        self.0[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        self
    }
    fn u32(&mut self, offset: usize, value: u32) -> &mut Packet {
        self.0[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        self
    }
    fn u16(&mut self, offset: usize, value: u16) -> &mut Packet {
        self.0[offset..offset + 2].copy_from_slice(&value.to_le_bytes());
        self
    }
    fn u8(&mut self, offset: usize, value: u8) -> &mut Packet {
        self.0[offset] = value;
        self
    }
}

/// The Sled part (offsets 0..232) of a car braking at 8 m/s^2 in a left turn.
fn sled(len: usize) -> Packet {
    let mut p = Packet::new(len);
    p.i32(0, 1) // IsRaceOn
        .u32(4, 123_456) // TimestampMS
        .f32(8, 8000.0) // EngineMaxRpm
        .f32(12, 900.0) // EngineIdleRpm
        .f32(16, 5500.0) // CurrentEngineRpm
        .f32(20, -4.0) // AccelerationX (right): turning left, the car accelerates left
        .f32(24, 0.5) // AccelerationY (up)
        .f32(28, -8.0) // AccelerationZ (forward): braking
        .f32(32, 0.1) // VelocityX
        .f32(36, 0.0) // VelocityY
        .f32(40, 30.0) // VelocityZ
        .f32(44, 0.02) // AngularVelocityX (pitch)
        .f32(48, 0.3) // AngularVelocityY (yaw)
        .f32(52, -0.05) // AngularVelocityZ (roll)
        .f32(56, 1.5) // Yaw
        .f32(60, 0.03) // Pitch (nose up)
        .f32(64, -0.02); // Roll
    for w in 0..4 {
        let k = w as f32;
        p.f32(68 + 4 * w, 0.4 + 0.1 * k) // NormalizedSuspensionTravel
            .f32(84 + 4 * w, 0.5) // TireSlipRatio (normalised)
            .f32(100 + 4 * w, 90.0 + k) // WheelRotationSpeed
            .f32(164 + 4 * w, -1.0) // TireSlipAngle (normalised)
            .f32(196 + 4 * w, 0.05 + 0.01 * k); // SuspensionTravelMeters
    }
    p.i32(212, 1234).i32(224, 1).i32(228, 6);
    p
}

/// The Car Dash part (FM7 layout) starting at `base` (232, or 244 in Forza Horizon).
fn dash(p: &mut Packet, base: usize) {
    p.f32(base, 10.0) // PositionX (right)
        .f32(base + 4, 2.0) // PositionY (up)
        .f32(base + 8, 500.0) // PositionZ (forward)
        .f32(base + 12, 30.0) // Speed
        .f32(base + 24, 212.0) // TireTempFrontLeft, degF
        .f32(base + 44, 0.75) // Fuel
        .f32(base + 52, 95.5) // BestLap
        .f32(base + 56, 97.25) // LastLap
        .f32(base + 60, 12.0) // CurrentLap
        .u16(base + 68, 3) // LapNumber
        .u8(base + 70, 2) // RacePosition
        .u8(base + 71, 51) // Accel
        .u8(base + 72, 255) // Brake
        .u8(base + 73, 0) // Clutch
        .u8(base + 74, 0) // HandBrake
        .u8(base + 75, 3) // Gear
        .u8(base + 76, (-64i8) as u8); // Steer: left
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-5
}

fn check_sled(s: &GameSample) {
    assert_eq!(s.driving, Some(true));
    assert!(close(s.game_time_s.unwrap(), 123.456));
    let a = s.motion.acceleration_body_mps2.unwrap();
    assert!(
        close(a[0], -8.0) && close(a[1], 4.0) && close(a[2], 0.5),
        "{a:?}"
    );
    let v = s.motion.velocity_body_mps.unwrap();
    assert!(
        close(v[0], 30.0) && close(v[1], -0.1) && close(v[2], 0.0),
        "{v:?}"
    );
    let w = s.motion.angular_velocity_body_radps.unwrap();
    assert!(
        close(w[0], -0.05) && close(w[1], -0.02) && close(w[2], 0.3),
        "{w:?}"
    );
    let [roll, pitch, yaw] = s.motion.roll_pitch_yaw_rad.unwrap();
    assert!(close(roll, -0.02) && close(pitch, -0.03) && close(yaw, 1.5));
    assert_eq!(s.car.engine_rpm, Some(5500.0));
    assert_eq!(s.car.max_rpm, Some(8000.0));
    assert_eq!(s.car.idle_rpm, Some(900.0));
    for (i, wheel) in s.wheels.iter().enumerate() {
        assert!(close(
            wheel.suspension_travel_m.unwrap(),
            0.05 + 0.01 * i as f64
        ));
        assert!(close(
            wheel.angular_velocity_radps.unwrap(),
            90.0 + i as f64
        ));
        assert!(close(wheel.slip_ratio.unwrap(), 0.05));
        assert!(close(wheel.slip_angle_rad.unwrap(), -0.14));
    }
}

fn check_dash(s: &GameSample) {
    let p = s.motion.position_m.unwrap();
    assert!(
        close(p[0], 500.0) && close(p[1], -10.0) && close(p[2], 2.0),
        "{p:?}"
    );
    assert_eq!(s.car.speed_mps, Some(30.0));
    assert!(close(s.wheels[0].temperature_c.unwrap(), 100.0));
    assert_eq!(s.car.fuel_fraction, Some(0.75));
    assert_eq!(s.car.best_lap_s, Some(95.5));
    assert_eq!(s.car.last_lap_s, Some(97.25));
    assert_eq!(s.car.current_lap_s, Some(12.0));
    assert_eq!(s.car.laps_completed, Some(3));
    assert_eq!(s.car.race_position, Some(2));
    assert!(close(s.car.throttle.unwrap(), 0.2));
    assert_eq!(s.car.brake, Some(1.0));
    assert_eq!(s.car.gear, Some(3));
    assert!(
        close(s.car.steer.unwrap(), 64.0 / 127.0),
        "left is positive"
    );
}

#[test]
fn sled_packets_built_from_the_field_table_decode_to_rigd_axes() {
    let p = sled(232);
    let s = forza::decode(&p.0).unwrap();
    assert_eq!(s.stream, GameStream::ForzaSled);
    check_sled(&s);
    assert_eq!(s.motion.position_m, None, "the Sled carries no position");
    assert_eq!(s.car.speed_mps, None);
    assert_eq!(s.car.gear, None);
}

#[test]
fn every_dash_layout_decodes_its_dash_part() {
    for (len, base, stream) in [
        (311, 232, GameStream::ForzaFm7Dash),
        (324, 244, GameStream::ForzaHorizon),
        (331, 232, GameStream::ForzaFm2023),
    ] {
        let mut p = sled(len);
        dash(&mut p, base);
        let s = game::decode(Some(GameFormat::Forza), &p.0).unwrap();
        assert_eq!(s.stream, stream);
        check_sled(&s);
        check_dash(&s);
        assert_eq!(game::detect(&p.0), Some(stream), "auto-detection");
    }
}

#[test]
fn a_paused_game_says_so_and_neutral_gear_and_reverse_map() {
    let mut p = sled(311);
    dash(&mut p, 232);
    p.i32(0, 0).u8(232 + 75, 0);
    let s = forza::decode(&p.0).unwrap();
    assert_eq!(s.driving, Some(false));
    assert_eq!(s.car.gear, Some(-1));
    p.u8(232 + 75, 11);
    assert_eq!(forza::decode(&p.0).unwrap().car.gear, Some(0));
}

#[test]
fn non_finite_channels_are_none_and_metres_fall_back_to_the_normalised_travel() {
    let mut p = sled(232);
    p.f32(20, f32::NAN).f32(196, f32::INFINITY);
    let s = forza::decode(&p.0).unwrap();
    assert_eq!(s.motion.acceleration_body_mps2, None);
    assert!(close(s.wheels[0].suspension_travel_m.unwrap(), 0.4 * 0.15));
}

proptest! {
    #[test]
    fn any_bytes_decode_without_panic_or_non_finite_values(
        len in prop::sample::select(vec![0usize, 1, 231, 232, 233, 311, 324, 331, 400]),
        seed in bytes_of(400),
        race_on in 0u8..2,
    ) {
        let mut bytes = seed[..len].to_vec();
        if len >= 4 && race_on == 1 {
            // Half the cases with a valid IsRaceOn, so the channel readers run on random floats.
            bytes[..4].copy_from_slice(&[race_on, 0, 0, 0]);
            for offset in [8, 12, 16] {
                bytes[offset..offset + 4].copy_from_slice(&3000f32.to_le_bytes());
            }
        }
        if let Ok(sample) = forza::decode(&bytes) {
            prop_assert!(all_finite(&sample), "{sample:?}");
        }
        if let Ok(sample) = game::decode(None, &bytes) {
            prop_assert!(all_finite(&sample));
        }
    }
}
