//! F1 24/25 decoding against packets built here from EA's published field tables (byte
//! offsets written out from the specifications' structures, independent of the decoder's own
//! layout), the header checks, a 60 Hz stream with jitter, the output encoders round-tripping
//! through the decoder, and no panic or non-finite value on any bytes.

mod game_support;

use game_support::{all_finite, any_bytes, bytes_of};
use proptest::prelude::*;
use rig_protocols::game::f1::{self, encode::encode, F1Packet, F1Year};
use rig_protocols::game::{self, GameDecodeError, GameSample, GameStream};
use rig_protocols::Frame;

const G: f64 = 9.80665;

/// A packet of `len` bytes with the 29-byte header filled in.
struct Packet(Vec<u8>);

impl Packet {
    fn new(format: u16, id: u8, len: usize, player: u8, session_time: f32) -> Packet {
        let mut p = Packet(vec![0; len]);
        p.u16(0, format); // m_packetFormat
        p.0[2] = (format % 100) as u8; // m_gameYear
        p.0[3] = 1; // m_gameMajorVersion
        p.0[5] = 1; // m_packetVersion
        p.0[6] = id; // m_packetId
        p.0[7..15].copy_from_slice(&0x1234_5678_u64.to_le_bytes()); // m_sessionUID
        p.f32(15, session_time); // m_sessionTime
        p.0[27] = player; // m_playerCarIndex
        p.0[28] = 255; // m_secondaryPlayerCarIndex
        p
    }
    fn u16(&mut self, at: usize, v: u16) {
        self.0[at..at + 2].copy_from_slice(&v.to_le_bytes());
    }
    fn i16(&mut self, at: usize, v: i16) {
        self.0[at..at + 2].copy_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, at: usize, v: u32) {
        self.0[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    fn f32(&mut self, at: usize, v: f32) {
        self.0[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
}

fn close(a: Option<f64>, b: f64, tol: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= tol)
}

fn close3(a: Option<[f64; 3]>, b: [f64; 3], tol: f64) -> bool {
    a.is_some_and(|a| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol))
}

/// Motion (id 0, 1349 bytes): `CarMotionData` is 60 bytes per car from byte 29.
fn motion(format: u16, player: u8, time: f32) -> Packet {
    let mut p = Packet::new(format, 0, 1349, player, time);
    // Another car with other values, to show the player's index is used.
    p.f32(29, 999.0);
    let car = 29 + 60 * usize::from(player);
    p.f32(car, 100.0); // m_worldPositionX
    p.f32(car + 4, 2.0); // m_worldPositionY (up)
    p.f32(car + 8, -50.0); // m_worldPositionZ
    p.f32(car + 20, 30.0); // m_worldVelocityZ
    p.i16(car + 28, 32767); // m_worldForwardDirZ
    p.i16(car + 30, 32767); // m_worldRightDirX
    p.f32(car + 36, 0.5); // m_gForceLateral (to the right)
    p.f32(car + 40, -1.0); // m_gForceLongitudinal (braking)
    p.f32(car + 44, 1.0); // m_gForceVertical
    p
}

#[test]
fn motion_gives_the_player_cars_position_velocity_attitude_and_acceleration() {
    let sample = f1::decode(&motion(2025, 3, 12.5).0).unwrap();
    assert_eq!(sample.stream, GameStream::F1_25);
    assert_eq!(sample.game_time_s, Some(12.5));
    let m = sample.motion;
    assert!(close3(m.position_m, [100.0, -50.0, 2.0], 1e-9), "{m:?}");
    assert!(close3(m.velocity_world_mps, [0.0, 30.0, 0.0], 1e-9));
    // Facing F1's +Z, which is rigd's +y: yaw a quarter turn left, level.
    let half_pi = std::f64::consts::FRAC_PI_2;
    assert!(
        close3(m.roll_pitch_yaw_rad, [0.0, 0.0, half_pi], 1e-4),
        "{m:?}"
    );
    assert!(close3(m.velocity_body_mps, [30.0, 0.0, 0.0], 1e-3));
    // Braking at 1 g and turning right at 0.5 g; gravity is taken out of the vertical.
    assert!(
        close3(m.acceleration_body_mps2, [-G, -0.5 * G, 0.0], 1e-3),
        "{m:?}"
    );
    assert_eq!(sample.driving, None);
    assert!(all_finite(&sample));
}

#[test]
fn motion_ex_gives_local_velocity_angular_velocity_and_the_wheels_in_rigds_order() {
    for (format, len) in [(2024, 237), (2025, 273)] {
        let mut p = Packet::new(format, 13, len, 0, 1.0);
        // Wheel arrays are RL, RR, FL, FR.
        for (k, mm) in [10.0, 20.0, 30.0, 40.0].iter().enumerate() {
            p.f32(29 + 4 * k, *mm); // m_suspensionPosition
            p.f32(45 + 4 * k, *mm * 10.0); // m_suspensionVelocity
            p.f32(77 + 4 * k, 36.0 + k as f32); // m_wheelSpeed
            p.f32(93 + 4 * k, 0.01 * k as f32); // m_wheelSlipRatio
            p.f32(109 + 4 * k, 0.02); // m_wheelSlipAngle
            p.f32(201 + 4 * k, 3000.0 + k as f32); // m_wheelVertForce
        }
        p.f32(161, 1.0); // m_localVelocityX (right)
        p.f32(169, 50.0); // m_localVelocityZ (forward)
        p.f32(177, -0.5); // m_angularVelocityY: turning left
        let sample = f1::decode(&p.0).unwrap();
        let m = sample.motion;
        assert!(
            close3(m.velocity_body_mps, [50.0, -1.0, 0.0], 1e-9),
            "{format}"
        );
        assert!(close3(m.angular_velocity_body_radps, [0.0, 0.0, 0.5], 1e-9));
        let w = sample.wheels;
        // FL is F1's third entry, RL its first.
        assert!(close(w[0].suspension_travel_m, 0.030, 1e-9));
        assert!(close(w[1].suspension_travel_m, 0.040, 1e-9));
        assert!(close(w[2].suspension_travel_m, 0.010, 1e-9));
        assert!(close(w[3].suspension_velocity_mps, 0.2, 1e-9));
        assert!(close(w[0].angular_velocity_radps, 38.0 / 0.36, 1e-4));
        assert!(close(w[3].slip_ratio, 0.01, 1e-6));
        assert!(close(w[1].slip_angle_rad, -0.02, 1e-6));
        assert!(close(w[2].load_n, 3000.0, 1e-9));
    }
}

#[test]
fn car_telemetry_status_lap_data_and_session_fill_the_drivers_channels() {
    // Car Telemetry (id 6, 1352 bytes, 60 bytes per car), player 1.
    let mut p = Packet::new(2024, 6, 1352, 1, 3.0);
    let car = 29 + 60;
    p.u16(car, 180); // m_speed, km/h
    p.f32(car + 2, 0.8); // m_throttle
    p.f32(car + 6, -0.25); // m_steer (left)
    p.f32(car + 10, 0.1); // m_brake
    p.0[car + 14] = 40; // m_clutch
    p.0[car + 15] = 5; // m_gear
    p.u16(car + 16, 11_000); // m_engineRPM
    p.0[car + 30..car + 34].copy_from_slice(&[90, 91, 100, 101]); // m_tyresSurfaceTemperature
    for k in 0..4 {
        p.f32(car + 40 + 4 * k, 23.0); // m_tyresPressure, psi
    }
    let s = f1::decode(&p.0).unwrap();
    assert_eq!(s.stream, GameStream::F1_24);
    let c = s.car;
    assert!(close(c.speed_mps, 50.0, 1e-9));
    assert!(close(c.throttle, 0.8, 1e-6) && close(c.brake, 0.1, 1e-6));
    assert!(close(c.steer, 0.25, 1e-9), "left is positive in rigd");
    assert!(close(c.clutch, 0.4, 1e-9));
    assert_eq!(c.gear, Some(5));
    assert!(close(c.engine_rpm, 11_000.0, 0.0));
    assert!(close(s.wheels[0].temperature_c, 100.0, 0.0), "FL");
    assert!(close(s.wheels[3].temperature_c, 91.0, 0.0), "RR");
    assert!(close(s.wheels[2].pressure_kpa, 23.0 * 6.894_757, 1e-3));

    // Car Status (id 7, 1239 bytes, 55 bytes per car).
    let mut p = Packet::new(2025, 7, 1239, 0, 3.0);
    p.f32(29 + 5, 55.0); // m_fuelInTank
    p.f32(29 + 9, 110.0); // m_fuelCapacity
    p.u16(29 + 17, 13_000); // m_maxRPM
    p.u16(29 + 19, 4000); // m_idleRPM
    p.0[29 + 21] = 8; // m_maxGears
    let c = f1::decode(&p.0).unwrap().car;
    assert!(close(c.max_rpm, 13_000.0, 0.0) && close(c.idle_rpm, 4000.0, 0.0));
    assert_eq!(c.forward_gears, Some(8));
    assert!(close(c.fuel_fraction, 0.5, 1e-9));

    // Lap Data (id 2, 1285 bytes, 57 bytes per car), player 2.
    let mut p = Packet::new(2025, 2, 1285, 2, 3.0);
    let car = 29 + 2 * 57;
    p.u32(car, 90_123); // m_lastLapTimeInMS
    p.u32(car + 4, 12_500); // m_currentLapTimeInMS
    p.f32(car + 20, 1234.5); // m_lapDistance
    p.0[car + 32] = 3; // m_carPosition
    p.0[car + 33] = 4; // m_currentLapNum
    let c = f1::decode(&p.0).unwrap().car;
    assert!(close(c.last_lap_s, 90.123, 1e-9) && close(c.current_lap_s, 12.5, 1e-9));
    assert!(close(c.lap_distance_m, 1234.5, 1e-9));
    assert_eq!((c.race_position, c.laps_completed), (Some(3), Some(3)));

    // Session (id 1, 753 bytes): m_gamePaused at 43, m_isSpectating at 44.
    let mut p = Packet::new(2025, 1, 753, 0, 3.0);
    assert_eq!(f1::decode(&p.0).unwrap().driving, Some(true));
    p.0[43] = 1;
    assert_eq!(f1::decode(&p.0).unwrap().driving, Some(false), "paused");
    p.0[43] = 0;
    p.0[44] = 1;
    assert_eq!(f1::decode(&p.0).unwrap().driving, Some(false), "spectating");
}

#[test]
fn the_header_format_id_size_and_player_index_are_checked() {
    let invalid =
        |r: Result<GameSample, GameDecodeError>| matches!(r, Err(GameDecodeError::Invalid { .. }));
    // F1 25's Motion Ex size under F1 24's format, and the reverse.
    assert!(invalid(f1::decode(&Packet::new(2024, 13, 273, 0, 0.0).0)));
    assert!(invalid(f1::decode(&Packet::new(2025, 13, 237, 0, 0.0).0)));
    // A Motion packet one byte short.
    assert!(invalid(f1::decode(&Packet::new(2025, 0, 1348, 0, 0.0).0)));
    assert!(!f1::matches(&Packet::new(2025, 0, 1348, 0, 0.0).0));
    // No car 22.
    let mut beyond = motion(2025, 0, 0.0);
    beyond.0[27] = 22;
    assert!(invalid(f1::decode(&beyond.0)));
    // F1 23's format, an id past the specification, a short datagram: not F1 24/25.
    for bytes in [
        motion(2023, 0, 0.0).0,
        Packet::new(2025, 16, 100, 0, 0.0).0,
        vec![0xE9, 0x07, 25],
    ] {
        assert!(matches!(
            f1::decode(&bytes),
            Err(GameDecodeError::Unrecognised { .. })
        ));
        assert!(!f1::matches(&bytes));
    }
    // An Event packet (id 3, 45 bytes) is valid and ignored.
    let event = Packet::new(2025, 3, 45, 0, 0.0);
    assert!(f1::matches(&event.0));
    assert_eq!(
        f1::decode(&event.0),
        Err(GameDecodeError::Ignored {
            stream: GameStream::F1_25,
            packet_id: 3
        })
    );
    // The game module recognises both years.
    assert_eq!(
        game::detect(&motion(2024, 0, 0.0).0),
        Some(GameStream::F1_24)
    );
    assert_eq!(
        game::detect(&motion(2025, 0, 0.0).0),
        Some(GameStream::F1_25)
    );
    assert!(game::decode(None, &motion(2025, 0, 0.0).0).is_ok());
}

/// Every packet type of each year with its size from the specification's packet table
/// (F1 24: "Data Output from F1 24", each packet's `Size:`; F1 25: EA's C++ structures, each
/// packet's heading), written out here apart from the decoder's table.
const SPEC_SIZES: [(u16, &[usize]); 2] = [
    (
        2024,
        &[
            1349, 753, 1285, 45, 1350, 1133, 1352, 1239, 1020, 1306, 953, 1460, 231, 237, 101,
        ],
    ),
    (
        2025,
        &[
            1349, 753, 1285, 45, 1284, 1133, 1352, 1239, 1042, 954, 1041, 1460, 231, 273, 101, 1131,
        ],
    ),
];

#[test]
fn a_packet_type_rigd_does_not_read_is_ignored_only_at_its_specified_size() {
    for (format, sizes) in SPEC_SIZES {
        for (id, &len) in sizes.iter().enumerate() {
            let id = id as u8;
            let read = F1Packet::from_id(id).is_some();
            let packet = Packet::new(format, id, len, 0, 1.0);
            assert!(f1::matches(&packet.0), "{format} id {id}: {len} bytes");
            if !read {
                assert!(
                    matches!(f1::decode(&packet.0), Err(GameDecodeError::Ignored { packet_id, .. }) if packet_id == id),
                    "{format} id {id}"
                );
            }
            // Random bytes behind a valid header, of another size: not an ignored packet
            // (the receiver counts them as garbage).
            for other in [len - 1, len + 1, 100, 1000] {
                let wrong = Packet::new(format, id, other, 0, 1.0);
                assert!(!f1::matches(&wrong.0), "{format} id {id}: {other} bytes");
                assert!(
                    matches!(f1::decode(&wrong.0), Err(GameDecodeError::Invalid { .. })),
                    "{format} id {id}: {other} bytes"
                );
            }
        }
    }
    // F1 24 defines no id 15 (Lap Positions came with F1 25).
    let lap_positions = Packet::new(2024, 15, 1131, 0, 1.0);
    assert!(!f1::matches(&lap_positions.0));
    assert!(
        f1::decode(&lap_positions.0).is_err_and(|e| !matches!(e, GameDecodeError::Ignored { .. }))
    );
}

#[test]
fn a_60hz_stream_with_jitter_decodes_in_order_with_the_games_clock() {
    // A car driving along F1's +Z at 20 m/s, braking at 0.8 g; packets every 1/60 s with
    // +-4 ms of send jitter (a fixed pseudo-random sequence), Car Telemetry between Motions.
    let mut seed = 0x2545_f491_u32;
    let mut jitter = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        (f64::from(seed % 8001) / 1000.0 - 4.0) / 1000.0
    };
    let mut last_time = f64::NEG_INFINITY;
    let mut motions = 0;
    for k in 0..180 {
        let t = f64::from(k) / 60.0 + jitter();
        let speed = 20.0 - 0.8 * G * t.max(0.0) * 0.1;
        let mut p = Packet::new(2025, 0, 1349, 0, t as f32);
        p.f32(29 + 8, (20.0 * t) as f32); // m_worldPositionZ
        p.f32(29 + 20, speed as f32); // m_worldVelocityZ
        p.i16(29 + 28, 32767); // forward +Z
        p.i16(29 + 30, 32767); // right +X
        p.f32(29 + 40, -0.08); // m_gForceLongitudinal
        p.f32(29 + 44, 1.0); // m_gForceVertical
        let s = game::decode(None, &p.0).unwrap();
        let time = s.game_time_s.unwrap();
        assert!((time - t).abs() < 1e-5 && time > last_time, "packet {k}");
        last_time = time;
        assert!(close3(s.motion.position_m, [0.0, 20.0 * t, 0.0], 1e-3));
        assert!(close(s.motion.velocity_body_mps.map(|v| v[0]), speed, 1e-4));
        assert!(close(
            s.motion.acceleration_body_mps2.map(|a| a[0]),
            -0.08 * G,
            1e-4
        ));
        motions += 1;
        let mut telemetry = Packet::new(2025, 6, 1352, 0, t as f32);
        telemetry.u16(29, (speed * 3.6).round() as u16);
        let s = game::decode(None, &telemetry.0).unwrap();
        assert!(close(s.car.speed_mps, (speed * 3.6).round() / 3.6, 1e-9));
    }
    assert_eq!(motions, 180);
}

/// A frame of a car turning and braking, yawed, pitched and rolled.
fn frame() -> Frame {
    let mut frame = Frame {
        sequence: 4242,
        ..Frame::default()
    };
    let car = &mut frame.car;
    car.time_s = 65.25;
    let [roll, pitch, yaw]: [f64; 3] = [-0.02, 0.05, 0.3];
    let (cr, sr) = ((roll / 2.0).cos(), (roll / 2.0).sin());
    let (cp, sp) = ((pitch / 2.0).cos(), (pitch / 2.0).sin());
    let (cy, sy) = ((yaw / 2.0).cos(), (yaw / 2.0).sin());
    car.orientation = [
        cr * cp * cy + sr * sp * sy,
        sr * cp * cy - cr * sp * sy,
        cr * sp * cy + sr * cp * sy,
        cr * cp * sy - sr * sp * cy,
    ];
    car.roll_pitch_yaw_rad = [roll, pitch, yaw];
    car.position_m = [120.5, -40.25, 3.5];
    car.velocity_world_mps = [30.0, 9.0, -0.5];
    car.velocity_body_mps = [31.0, 0.5, -0.2];
    car.angular_velocity_body_radps = [0.05, -0.1, 0.4];
    car.specific_force_body_mps2 = [-7.0, 4.0, 9.9];
    car.speed_mps = 31.3;
    car.controls.throttle = 0.25;
    car.controls.brake = 0.6;
    car.controls.clutch = 0.3;
    car.controls.steering = 0.2;
    car.drivetrain.engine_rpm = 6543.0;
    car.drivetrain.max_rpm = 7800.0;
    car.drivetrain.idle_rpm = 900.0;
    car.drivetrain.gear = 4;
    car.drivetrain.forward_gears = 6;
    car.lap.laps_completed = 2;
    car.lap.current_lap_s = 33.456;
    car.lap.last_lap_s = 92.5;
    car.lap.distance_m = 812.75;
    car.lap.track_length_m = 3200.0;
    for (i, wheel) in car.wheels.iter_mut().enumerate() {
        let k = i as f64;
        wheel.suspension_travel_m = 0.05 + 0.01 * k;
        wheel.suspension_velocity_mps = -0.1 + 0.05 * k;
        wheel.angular_velocity_radps = 95.0 + k;
        wheel.radius_m = 0.3;
        wheel.slip_ratio = 0.02 * k;
        wheel.slip_angle_rad = 0.01 - 0.01 * k;
        wheel.load_n = 3000.0 + 100.0 * k;
        wheel.temperature_c = 80.4 + k;
    }
    frame
}

fn encoded(year: F1Year, packet: F1Packet, frame: &Frame) -> Vec<u8> {
    let mut out = vec![0xAA; 2000];
    let len = encode(year, packet, frame, &mut out).unwrap();
    assert_eq!(len, packet.len(year));
    out.truncate(len);
    out
}

#[test]
fn every_encoded_packet_decodes_back_to_the_frames_values() {
    let frame = frame();
    let car = &frame.car;
    for year in [F1Year::F1_24, F1Year::F1_25] {
        for packet in F1Packet::ALL {
            let bytes = encoded(year, packet, &frame);
            // Header: format, year, id, time, frame identifier, player 0.
            assert_eq!(
                u16::from_le_bytes([bytes[0], bytes[1]]),
                year.packet_format()
            );
            assert_eq!(
                (bytes[2], bytes[6], bytes[27]),
                (year.game_year(), packet.id(), 0)
            );
            assert_eq!(u32::from_le_bytes(bytes[19..23].try_into().unwrap()), 4242);
            let s = f1::decode(&bytes).unwrap();
            assert_eq!(s.stream, year.stream());
            assert!(close(s.game_time_s, 65.25, 1e-9));
            assert!(all_finite(&s));
        }
        let motion = f1::decode(&encoded(year, F1Packet::Motion, &frame))
            .unwrap()
            .motion;
        assert!(close3(motion.position_m, car.position_m, 1e-5));
        assert!(close3(
            motion.velocity_world_mps,
            car.velocity_world_mps,
            1e-5
        ));
        // Direction vectors are int16: about 3e-5 per component.
        assert!(
            close3(motion.roll_pitch_yaw_rad, car.roll_pitch_yaw_rad, 2e-4),
            "{motion:?}"
        );
        let rpy = car.roll_pitch_yaw_rad;
        let gravity_body = [
            G * rpy[1].sin(),
            -G * rpy[0].sin() * rpy[1].cos(),
            -G * rpy[0].cos() * rpy[1].cos(),
        ];
        let expected: [f64; 3] =
            [0, 1, 2].map(|k| car.specific_force_body_mps2[k] + gravity_body[k]);
        assert!(
            close3(motion.acceleration_body_mps2, expected, 5e-3),
            "{motion:?} {expected:?}"
        );

        let ex = f1::decode(&encoded(year, F1Packet::MotionEx, &frame)).unwrap();
        assert!(close3(
            ex.motion.velocity_body_mps,
            car.velocity_body_mps,
            1e-5
        ));
        assert!(close3(
            ex.motion.angular_velocity_body_radps,
            car.angular_velocity_body_radps,
            1e-6
        ));
        for (got, sent) in ex.wheels.iter().zip(&car.wheels) {
            assert!(close(
                got.suspension_travel_m,
                sent.suspension_travel_m,
                1e-6
            ));
            assert!(close(
                got.suspension_velocity_mps,
                sent.suspension_velocity_mps,
                1e-6
            ));
            // F1 sends the contact-patch speed: the spin comes back scaled by the radii.
            let patch = sent.angular_velocity_radps * sent.radius_m;
            assert!(close(
                got.angular_velocity_radps,
                patch / f1::F1_TYRE_RADIUS_M,
                1e-4
            ));
            assert!(close(got.slip_ratio, sent.slip_ratio, 1e-6));
            assert!(close(got.slip_angle_rad, sent.slip_angle_rad, 1e-6));
            assert!(close(got.load_n, sent.load_n, 1e-3));
        }

        let t = f1::decode(&encoded(year, F1Packet::CarTelemetry, &frame)).unwrap();
        // Speed is whole km/h.
        assert!(close(t.car.speed_mps, car.speed_mps, 0.5 / 3.6));
        assert!(close(t.car.throttle, 0.25, 1e-6) && close(t.car.brake, 0.6, 1e-6));
        assert!(close(t.car.steer, 0.2, 1e-6) && close(t.car.clutch, 0.3, 1e-9));
        assert_eq!(t.car.gear, Some(4));
        assert!(close(t.car.engine_rpm, 6543.0, 0.0));
        for (got, sent) in t.wheels.iter().zip(&car.wheels) {
            assert!(
                close(got.temperature_c, sent.temperature_c, 0.5),
                "whole degrees"
            );
        }

        let status = f1::decode(&encoded(year, F1Packet::CarStatus, &frame))
            .unwrap()
            .car;
        assert!(close(status.max_rpm, 7800.0, 0.0) && close(status.idle_rpm, 900.0, 0.0));
        assert_eq!(status.forward_gears, Some(6));
        assert!(close(status.fuel_fraction, 1.0, 0.0));

        let lap = f1::decode(&encoded(year, F1Packet::LapData, &frame))
            .unwrap()
            .car;
        assert_eq!(lap.laps_completed, Some(2));
        assert!(close(lap.current_lap_s, 33.456, 1e-9) && close(lap.last_lap_s, 92.5, 1e-9));
        assert!(close(lap.lap_distance_m, 812.75, 1e-4));
        assert_eq!(lap.race_position, Some(1));

        let session = f1::decode(&encoded(year, F1Packet::Session, &frame)).unwrap();
        assert_eq!(session.driving, Some(true));
    }
}

#[test]
fn the_other_21_cars_are_zero() {
    let frame = frame();
    for (packet, stride) in [
        (F1Packet::Motion, 60),
        (F1Packet::CarTelemetry, 60),
        (F1Packet::CarStatus, 55),
        (F1Packet::LapData, 57),
    ] {
        let bytes = encoded(F1Year::F1_25, packet, &frame);
        let others = &bytes[29 + stride..29 + 22 * stride];
        assert!(others.iter().all(|b| *b == 0), "{packet:?}");
        assert!(bytes[29..29 + stride].iter().any(|b| *b != 0), "{packet:?}");
    }
}

#[test]
fn a_short_buffer_is_an_error_not_a_panic() {
    let mut out = [0u8; 100];
    assert!(encode(F1Year::F1_24, F1Packet::Motion, &frame(), &mut out).is_err());
}

/// Bytes that pass the header check of a packet type rigd reads, with random content.
fn header_shaped() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(vec![2024u16, 2025]),
        prop::sample::select(F1Packet::ALL.to_vec()),
        any::<u8>(),
        bytes_of(1400),
    )
        .prop_map(|(format, packet, player, mut body)| {
            let year = F1Year::from_packet_format(format).unwrap();
            body.truncate(packet.len(year));
            body[..2].copy_from_slice(&format.to_le_bytes());
            body[6] = packet.id();
            body[27] = player % 24;
            body
        })
}

proptest! {
    #[test]
    fn any_bytes_decode_without_panic_or_non_finite_values(
        bytes in any_bytes(1400)
    ) {
        if let Ok(sample) = f1::decode(&bytes) {
            prop_assert!(all_finite(&sample));
        }
        let _ = f1::matches(&bytes);
    }

    #[test]
    fn header_shaped_garbage_gives_finite_samples(bytes in header_shaped()) {
        if let Ok(sample) = f1::decode(&bytes) {
            prop_assert!(all_finite(&sample), "{sample:?}");
        }
    }
}
