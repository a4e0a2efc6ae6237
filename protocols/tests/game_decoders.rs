//! The game decoders of Codemasters, EA WRC, BeamNG and LFS against packets built here from
//! the published field tables (byte offsets written out, independent of the decoders' wire
//! structs), checking the decoded values in rigd's conventions: a braking car has negative
//! body x acceleration, a left turn a positive yaw rate, left side up a positive roll.

use rig_protocols::game::{
    self, beamng, codemasters, ea_wrc, lfs, GameFormat, GameSample, GameStream,
};
use rig_protocols::telemetry::OutSimOptions;

/// A datagram under construction: little-endian values at explicit byte offsets.
struct Bytes(Vec<u8>);

impl Bytes {
    fn zeros(len: usize) -> Bytes {
        Bytes(vec![0; len])
    }
    fn raw(mut self, at: usize, bytes: &[u8]) -> Bytes {
        self.0[at..at + bytes.len()].copy_from_slice(bytes);
        self
    }
    fn f32(self, at: usize, v: f32) -> Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    fn f32s(mut self, at: usize, vs: &[f32]) -> Bytes {
        for (i, &v) in vs.iter().enumerate() {
            self = self.f32(at + 4 * i, v);
        }
        self
    }
    fn f64(self, at: usize, v: f64) -> Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    fn u8(self, at: usize, v: u8) -> Bytes {
        self.raw(at, &[v])
    }
    fn i32(self, at: usize, v: i32) -> Bytes {
        self.raw(at, &v.to_le_bytes())
    }
    fn u32(self, at: usize, v: u32) -> Bytes {
        self.raw(at, &v.to_le_bytes())
    }
}

fn near(actual: Option<f64>, expected: f64, tolerance: f64) -> bool {
    actual.is_some_and(|a| (a - expected).abs() <= tolerance)
}

#[track_caller]
fn assert_near(actual: Option<f64>, expected: f64) {
    assert!(near(actual, expected, 1e-3), "{actual:?} is not {expected}");
}

const FL: usize = 0;
const FR: usize = 1;
const RL: usize = 2;
const RR: usize = 3;
const G: f64 = 9.80665;

// ---- Codemasters extradata=3: float i at byte 4 i (Codemasters' legacy UDP table). ----

/// A level car heading along Codemasters' world +X (rigd's +x) at 20 m/s, braking at 0.8 g in
/// a left turn pulling 0.5 g.
fn codemasters_braking() -> Bytes {
    Bytes::zeros(264)
        .f32(0, 93.5) // total time
        .f32(4, 41.0) // lap time
        .f32(8, 1200.0) // lap distance
        .f32s(16, &[1.0, 2.0, 3.0]) // position X, Y (up), Z
        .f32(28, 20.0) // speed
        .f32s(32, &[20.0, 0.0, 0.0]) // world velocity
        .f32s(44, &[0.0, 0.0, 1.0]) // left vector: world +Z is rigd's +y
        .f32s(56, &[1.0, 0.0, 0.0]) // forward vector
        .f32s(68, &[30.0, 31.0, 50.0, 51.0]) // suspension position RL RR FL FR, mm
        .f32s(84, &[-100.0, 0.0, 200.0, 0.0]) // suspension velocity, mm/s
        .f32(116, 0.0) // throttle
        .f32(120, 0.25) // steer, positive right
        .f32(124, 0.9) // brake
        .f32(132, 3.0) // gear
        .f32(136, 0.5) // lateral g
        .f32(140, -0.8) // longitudinal g
        .f32(148, 650.0) // engine rate, rpm / 10
        .f32(156, 2.0) // race position
        .f32(180, 30.0) // fuel in tank
        .f32(184, 60.0) // fuel capacity
        .f32s(220, &[21.0, 22.0, 23.0, 24.0]) // tyre pressure RL RR FL FR, psi
        .f32(236, 4.0) // laps completed
        .f32(248, 95.25) // last lap
        .f32(252, 780.0) // max rpm / 10
        .f32(256, 90.0) // idle rpm / 10
        .f32(260, 6.0) // forward gears
}

#[test]
fn codemasters_braking_in_a_left_turn_reads_in_rigds_axes() {
    let s = codemasters::decode(&codemasters_braking().0).expect("a valid packet");
    assert_eq!(s.stream, GameStream::Codemasters);
    assert_near(s.game_time_s, 93.5);
    let a = s.motion.acceleration_body_mps2.expect("g-forces");
    assert!(
        (a[0] + 0.8 * G).abs() < 1e-4,
        "braking is negative body x: {a:?}"
    );
    assert!(
        (a[1] - 0.5 * G).abs() < 1e-4,
        "a left turn pulls to +y: {a:?}"
    );
    assert_eq!(s.motion.position_m, Some([1.0, 3.0, 2.0]));
    assert_eq!(s.motion.velocity_body_mps, Some([20.0, 0.0, 0.0]));
    let [roll, pitch, yaw] = s.motion.roll_pitch_yaw_rad.expect("orientation");
    assert!(roll.abs() < 1e-9 && pitch.abs() < 1e-9 && yaw.abs() < 1e-9);
    assert_near(s.wheels[RL].suspension_travel_m, 0.030);
    assert_near(s.wheels[RR].suspension_travel_m, 0.031);
    assert_near(s.wheels[FL].suspension_travel_m, 0.050);
    assert_near(s.wheels[FR].suspension_travel_m, 0.051);
    assert_near(s.wheels[RL].suspension_velocity_mps, -0.1);
    assert_near(s.wheels[FL].suspension_velocity_mps, 0.2);
    // Tyre pressure, psi in the game's wheel order, kPa on rigd's wheels.
    const KPA_PER_PSI: f64 = 6.894_757;
    for (wheel, psi) in [(RL, 21.0), (RR, 22.0), (FL, 23.0), (FR, 24.0)] {
        assert_near(s.wheels[wheel].pressure_kpa, psi * KPA_PER_PSI);
    }
    let car = s.car;
    assert_near(car.engine_rpm, 6500.0);
    assert_near(car.max_rpm, 7800.0);
    assert_near(car.idle_rpm, 900.0);
    assert_eq!((car.gear, car.forward_gears), (Some(3), Some(6)));
    assert_near(car.steer, -0.25);
    assert_near(car.brake, 0.9);
    assert_near(car.fuel_fraction, 0.5);
    assert_eq!((car.laps_completed, car.race_position), (Some(4), Some(2)));
    assert_near(car.last_lap_s, 95.25);
    assert_near(car.lap_distance_m, 1200.0);
    assert_eq!(s.driving, None);
}

#[test]
fn codemasters_roll_pitch_and_heading_follow_the_direction_vectors() {
    // Left side up: the left vector (world +Z = rigd +y) tilts up (world Y).
    let rolled = codemasters_braking().f32s(44, &[0.0, 0.1, 0.995]);
    let [roll, _, _] = codemasters::decode(&rolled.0)
        .unwrap()
        .motion
        .roll_pitch_yaw_rad
        .unwrap();
    assert!(
        (roll - 0.1).abs() < 2e-3,
        "left side up is positive roll: {roll}"
    );
    // Nose down: the forward vector points below the horizon.
    let pitched = codemasters_braking().f32s(56, &[0.98, -0.2, 0.0]);
    let [_, pitch, _] = codemasters::decode(&pitched.0)
        .unwrap()
        .motion
        .roll_pitch_yaw_rad
        .unwrap();
    assert!(
        (pitch - 0.2).abs() < 3e-3,
        "nose down is positive pitch: {pitch}"
    );
    // Heading along world +Z (rigd +y), left along world -X: a quarter turn left.
    let turned = codemasters_braking()
        .f32s(56, &[0.0, 0.0, 1.0])
        .f32s(44, &[-1.0, 0.0, 0.0]);
    let s = codemasters::decode(&turned.0).unwrap();
    assert_near(
        s.motion.roll_pitch_yaw_rad.map(|r| r[2]),
        std::f64::consts::FRAC_PI_2,
    );
    // World velocity along the new heading is forward speed in the body frame.
    assert!(near(s.motion.velocity_body_mps.map(|v| v[1]), -20.0, 1e-9));
}

#[test]
fn random_bytes_of_codemasters_length_are_not_codemasters() {
    let mut seed = 0x5eed_u64;
    let mut random = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as u8
    };
    for _ in 0..1000 {
        let bytes: Vec<u8> = (0..264).map(|_| random()).collect();
        assert!(!codemasters::matches(&bytes) && codemasters::decode(&bytes).is_err());
        assert_eq!(game::detect(&bytes), None);
    }
    // A non-finite or absurd value in a real packet is not the game's either.
    for bad in [f32::NAN, f32::INFINITY, 3e7] {
        let packet = codemasters_braking().f32(148, bad);
        assert!(codemasters::decode(&packet.0).is_err(), "{bad}");
    }
    assert!(codemasters::matches(&codemasters_braking().0));
}

#[test]
fn codemasters_reverse_is_minus_one_or_dirt_rallys_ten() {
    for reverse in [-1.0, 10.0] {
        let s = codemasters::decode(&codemasters_braking().f32(132, reverse).0).unwrap();
        assert_eq!(s.car.gear, Some(-1));
    }
    assert!(codemasters::decode(&[0; 263]).is_err());
}

// ---- EA WRC, default `wrc` structure (offsets in ea_wrc.rs's table, from wrc.json). ----

/// A car facing EA's world +Z (forward; rigd's +x), braking at 9 m/s^2 at 25 m/s while
/// drifting left at 1 m/s, in third of five gears.
fn wrc_braking() -> Bytes {
    Bytes::zeros(237)
        .raw(0, &7u64.to_le_bytes()) // packet_uid
        .f32(8, 812.5) // game_total_time
        .f32(12, 1.0 / 60.0) // game_delta_time
        .u8(37, 3) // gear index
        .u8(38, 0) // neutral sentinel
        .u8(39, 9) // reverse sentinel
        .u8(40, 5) // forward gears
        .f32(41, 25.0) // vehicle_speed
        .f32s(49, &[10.0, 2.0, 300.0]) // position x (left), y (up), z (forward)
        .f32s(61, &[1.0, 0.0, 25.0]) // velocity
        .f32s(73, &[0.0, 0.0, -9.0]) // acceleration
        .f32s(85, &[1.0, 0.0, 0.0]) // left direction
        .f32s(97, &[0.0, 0.0, 1.0]) // forward direction
        .f32s(109, &[0.0, 1.0, 0.0]) // up direction
        .f32s(121, &[0.01, 0.02, 0.03, 0.04]) // hub position bl br fl fr
        .f32s(137, &[0.1, 0.2, 0.3, 0.4]) // hub velocity
        .f32s(185, &[8000.0, 900.0, 5500.0]) // rpm max, idle, current
        .f32s(197, &[0.0, 0.8, 0.0, 0.5, 0.0]) // throttle, brake, clutch, steering, handbrake
        .f32(217, 61.5) // stage_current_time
        .f64(221, 2500.0) // stage_current_distance
        .f64(229, 10_000.0) // stage_length
}

#[test]
fn ea_wrc_braking_reads_in_rigds_axes() {
    let s = ea_wrc::decode(&wrc_braking().0).expect("a valid packet");
    assert_eq!((s.stream, s.driving), (GameStream::EaWrc, None));
    assert_near(s.game_time_s, 812.5);
    let a = s.motion.acceleration_body_mps2.expect("acceleration");
    assert!(
        (a[0] + 9.0).abs() < 1e-9 && a[1].abs() < 1e-9,
        "braking is -x: {a:?}"
    );
    assert_eq!(s.motion.velocity_body_mps, Some([25.0, 1.0, 0.0]));
    assert_eq!(s.motion.position_m, Some([300.0, 10.0, 2.0]));
    assert_eq!(s.motion.roll_pitch_yaw_rad, Some([0.0, 0.0, 0.0]));
    assert_near(s.wheels[RL].suspension_travel_m, 0.01);
    assert_near(s.wheels[RR].suspension_travel_m, 0.02);
    assert_near(s.wheels[FL].suspension_travel_m, 0.03);
    assert_near(s.wheels[FR].suspension_velocity_mps, 0.4);
    let car = s.car;
    assert_eq!((car.gear, car.forward_gears), (Some(3), Some(5)));
    assert_near(car.engine_rpm, 5500.0);
    assert_near(car.max_rpm, 8000.0);
    assert_near(car.brake, 0.8);
    assert_near(car.steer, -0.5);
    assert_near(car.current_lap_s, 61.5);
    assert_near(car.lap_distance_m, 2500.0);
}

#[test]
fn ea_wrc_gear_sentinels_roll_and_the_packet_code() {
    let gear = |index: u8| {
        ea_wrc::decode(&wrc_braking().u8(37, index).0)
            .unwrap()
            .car
            .gear
    };
    assert_eq!((gear(0), gear(9), gear(1)), (Some(0), Some(-1), Some(1)));
    // Left side up: the left vector tilts up (EA y).
    let rolled = wrc_braking().f32s(85, &[0.995, 0.1, 0.0]);
    let [roll, _, _] = ea_wrc::decode(&rolled.0)
        .unwrap()
        .motion
        .roll_pitch_yaw_rad
        .unwrap();
    assert!((roll - 0.1).abs() < 2e-3, "{roll}");
    // The same channels after a packet_4cc header: pause and update codes say driving.
    let with_code = |code: &[u8; 4]| {
        let mut bytes = code.to_vec();
        bytes.extend_from_slice(&wrc_braking().0);
        bytes
    };
    let paused = ea_wrc::decode(&with_code(b"sesp")).unwrap();
    assert_eq!(paused.driving, Some(false));
    assert_near(paused.car.engine_rpm, 5500.0);
    assert_eq!(
        ea_wrc::decode(&with_code(b"SESU")).unwrap().driving,
        Some(true)
    );
    assert!(!ea_wrc::matches(&with_code(b"abcd")));
    assert!(ea_wrc::decode(&with_code(b"abcd")).is_err());
}

#[test]
fn a_237_byte_f1_24_motion_ex_packet_is_not_ea_wrc() {
    let f1 = Bytes::zeros(237)
        .raw(0, &2024u16.to_le_bytes())
        .u8(2, 24)
        .u8(6, 13);
    assert!(!ea_wrc::matches(&f1.0));
    assert!(ea_wrc::decode(&f1.0).is_err());
    // The F1 decoder reads it (F1 24's Motion Ex for the player car).
    assert_eq!(game::detect(&f1.0), Some(GameStream::F1_24));
}

// ---- BeamNG MotionSim (`<4s21f`, motionSim.lua) ----

fn motionsim() -> Bytes {
    Bytes::zeros(88)
        .raw(0, b"BNG1")
        .f32s(4, &[100.0, -50.0, 3.0]) // world position
        .f32s(16, &[0.0, -20.0, 0.0]) // world velocity
        .f32s(28, &[0.0, 6.0, 0.0]) // acceleration in the vehicle frame (x left, y rear)
        .f32s(40, &[0.0, 0.0, 1.0]) // up vector
        .f32s(52, &[0.05, 0.02, 1.0]) // roll, pitch, yaw
        .f32s(64, &[0.1, 0.2, -0.5]) // roll, pitch, yaw rates
}

#[test]
fn beamng_braking_in_a_left_turn_reads_in_rigds_axes() {
    let s = beamng::decode(&motionsim().0).expect("a valid packet");
    assert_eq!(s.stream, GameStream::BeamNgMotionSim);
    assert_eq!(s.motion.position_m, Some([100.0, -50.0, 3.0]));
    assert_eq!(s.motion.velocity_world_mps, Some([0.0, -20.0, 0.0]));
    let a = s.motion.acceleration_body_mps2.unwrap();
    assert_eq!(a, [-6.0, 0.0, 0.0], "accelerating rearwards is braking: -x");
    let w = s.motion.angular_velocity_body_radps.unwrap();
    assert!(
        (w[2] - 0.5).abs() < 1e-6,
        "a left turn is positive yaw rate: {w:?}"
    );
    assert!(
        (w[0] - 0.1).abs() < 1e-6 && (w[1] + 0.2).abs() < 1e-6,
        "{w:?}"
    );
    let rpy = s.motion.roll_pitch_yaw_rad.unwrap();
    assert!((rpy[0] + 0.05).abs() < 1e-6 && (rpy[1] + 0.02).abs() < 1e-6);
    assert_eq!(s.motion.velocity_body_mps, None);
    assert!(beamng::decode(&motionsim().raw(0, b"BNG2").0).is_err());
}

fn outgauge(len: usize) -> Bytes {
    Bytes::zeros(len)
        .u32(0, 0) // time (BeamNG: 0)
        .raw(4, b"beam")
        .u8(10, 0) // gear: reverse
        .f32(12, 5.5) // speed
        .f32(16, 2100.0) // rpm
        .f32(28, 0.4) // fuel
        .f32(48, 0.3) // throttle
        .f32(52, 0.0) // brake
        .f32(56, 1.0) // clutch
}

#[test]
fn outgauge_from_beamng_or_lfs_gives_the_dashboard_channels() {
    let s = beamng::decode(&outgauge(96).0).expect("BeamNG's OutGauge");
    assert_eq!(
        (s.stream, s.car.gear, s.game_time_s),
        (GameStream::OutGauge, Some(-1), None)
    );
    assert_near(s.car.speed_mps, 5.5);
    assert_near(s.car.engine_rpm, 2100.0);
    assert_near(s.car.fuel_fraction, 0.4);
    assert_near(s.car.clutch, 1.0);
    let lfs = lfs::decode(&outgauge(92).u32(0, 1500).u8(10, 3).0).unwrap();
    assert_eq!(lfs.car.gear, Some(2));
    assert_near(lfs.game_time_s, 1.5);
}

/// Newer BeamNG versions' `outgauge.lua` appends `char gearExt; float cruiseSpeed; unsigned
/// cruiseMode; float fuelCapacity;` after `int id` (BeamNG's struct definition; LuaJIT's FFI
/// aligns it like C: `gearExt` at 96, 3 bytes of padding, the rest at 100, 104, 108).
#[test]
fn beamngs_extended_outgauge_reads_like_the_96_byte_packet() {
    let extended = |len: usize, at: [usize; 3]| {
        outgauge(len)
            .u8(96, b'P') // gearExt: park
            .f32(at[0], 27.0) // cruiseSpeed, m/s
            .u32(at[1], 1) // cruiseMode: active
            .f32(at[2], 60.0) // fuelCapacity, l
    };
    let plain = beamng::decode(&outgauge(96).0).unwrap();
    for (len, at) in [(112, [100, 104, 108]), (109, [97, 101, 105])] {
        let bytes = extended(len, at).0;
        assert_eq!(
            game::detect(&bytes),
            Some(GameStream::OutGauge),
            "{len} bytes"
        );
        let s = beamng::decode(&bytes).expect("BeamNG's extended OutGauge");
        assert_eq!(
            s, plain,
            "{len} bytes: the appended fields change nothing read"
        );
        assert_eq!(lfs::decode(&bytes).unwrap(), plain, "{len} bytes");
    }
    // Other lengths are still not OutGauge.
    for len in [97, 100, 108, 110, 111, 113, 116] {
        assert!(beamng::decode(&outgauge(len).0).is_err(), "{len} bytes");
    }
}

// ---- LFS OutSim (InSim.txt) and OutSimPack2 (OutSimPack.txt) ----

/// The 60-byte OSMain block at `at`: a car facing world +Y (heading 0) braking at 7 m/s^2
/// while turning left at 0.5 rad/s, nose up 0.05 rad, left side up 0.1 rad, at (10, 20, 1) m.
fn os_main(bytes: Bytes, at: usize) -> Bytes {
    bytes
        .f32s(at, &[0.0, 0.0, 0.5]) // angular velocity (world)
        .f32(at + 12, 0.0) // heading
        .f32(at + 16, 0.05) // pitch, anticlockwise from the right
        .f32(at + 20, 0.1) // roll, anticlockwise from the front
        .f32s(at + 24, &[0.0, -7.0, 0.0]) // acceleration (world)
        .f32s(at + 36, &[0.0, 30.0, 0.0]) // velocity (world)
        .i32(at + 48, 10 * 65536)
        .i32(at + 52, 20 * 65536)
        .i32(at + 56, 65536)
}

#[test]
fn outsim_braking_in_a_left_turn_reads_in_rigds_axes() {
    let packet = os_main(Bytes::zeros(64).u32(0, 2500), 4);
    let s = lfs::decode(&packet.0).expect("a classic OutSim packet");
    assert_eq!(s.stream, GameStream::OutSim);
    assert_near(s.game_time_s, 2.5);
    assert_eq!(s.motion.position_m, Some([10.0, 20.0, 1.0]));
    let [roll, pitch, yaw] = s.motion.roll_pitch_yaw_rad.unwrap();
    assert!(
        (roll - 0.1).abs() < 1e-6 && (pitch + 0.05).abs() < 1e-6,
        "{roll} {pitch}"
    );
    assert!(
        (yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-6,
        "facing +y is yaw pi/2"
    );
    let a = s.motion.acceleration_body_mps2.unwrap();
    assert!(a[0] < -6.9, "braking is negative body x: {a:?}");
    let w = s.motion.angular_velocity_body_radps.unwrap();
    assert!(w[2] > 0.49, "a left turn is positive yaw rate: {w:?}");
    let v = s.motion.velocity_body_mps.unwrap();
    assert!((v[0] - 30.0 * 0.05f64.cos()).abs() < 1e-4, "{v:?}");
    // The 68-byte form carries the OutSim ID after the same fields.
    let with_id = os_main(Bytes::zeros(68), 4).i32(64, 7);
    assert_eq!(
        lfs::decode(&with_id.0).unwrap().motion.position_m,
        Some([10.0, 20.0, 1.0])
    );
}

/// An OutSimPack2 packet with every option (0x1ff, 280 bytes), parts in the documented order.
fn pack2_all() -> Bytes {
    let bytes = Bytes::zeros(280).raw(0, b"LFST").i32(4, 3).u32(8, 4000);
    let bytes = os_main(bytes, 12);
    let mut bytes = bytes
        .f32s(72, &[0.2, 0.7, 0.1, 0.0, 0.5]) // inputs: throttle, brake, steer, clutch, handbrake
        .u8(92, 3) // drive: gear 2nd
        .f32(96, 600.0) // engine angular velocity, rad/s
        .f32(104, 850.0); // distance: current lap
    for (i, load) in [2000.0, 2100.0, 3000.0, 3100.0].into_iter().enumerate() {
        let wheel = 112 + 40 * i; // RL, RR, FL, FR
        bytes = bytes
            .f32(wheel, 0.01 * (i as f32 + 1.0)) // suspension deflection
            .f32(wheel + 16, load) // vertical load
            .f32(wheel + 20, 80.0) // angular velocity
            .u8(wheel + 28, 45) // air temperature
            .f32(wheel + 32, 0.05) // slip ratio
            .f32(wheel + 36, 0.1); // tan slip angle
    }
    bytes.f32(272, 4.5) // extra: steer torque
}

#[test]
fn outsim_pack2_reads_every_part_at_its_documented_offset() {
    let s = lfs::decode_pack2(&pack2_all().0, OutSimOptions::ALL).expect("280 bytes");
    assert_eq!(s.stream, GameStream::OutSimPack2);
    assert_near(s.game_time_s, 4.0);
    assert_eq!(s.motion.position_m, Some([10.0, 20.0, 1.0]));
    assert_near(s.car.throttle, 0.2);
    assert_near(s.car.brake, 0.7);
    assert_near(s.car.handbrake, 0.5);
    assert_eq!((s.car.gear, s.car.steer), (Some(2), None));
    assert_near(s.car.engine_rpm, 600.0 * 60.0 / std::f64::consts::TAU);
    assert_near(s.car.lap_distance_m, 850.0);
    assert_near(s.wheels[RL].suspension_travel_m, 0.01);
    assert_near(s.wheels[RR].suspension_travel_m, 0.02);
    assert_near(s.wheels[FL].load_n, 3000.0);
    assert_near(s.wheels[FR].load_n, 3100.0);
    assert_near(s.wheels[FL].angular_velocity_radps, 80.0);
    assert_near(s.wheels[FL].slip_angle_rad, 0.1f64.atan());
    assert_near(s.wheels[FL].temperature_c, 45.0);
    // Auto-detection recognises the 0x1ff layout and decodes it the same way.
    assert_eq!(game::decode(None, &pack2_all().0), Ok(s));
}

#[test]
fn outsim_pack2_with_some_options_needs_those_options() {
    let options = OutSimOptions::new(OutSimOptions::MAIN | OutSimOptions::DRIVE).unwrap();
    let bytes = os_main(Bytes::zeros(72), 0).u8(60, 1).f32(64, 100.0);
    let s = lfs::decode_pack2(&bytes.0, options).expect("72 bytes");
    assert_eq!(s.car.gear, Some(0));
    assert_eq!(s.motion.position_m, Some([10.0, 20.0, 1.0]));
    assert!(lfs::matches_pack2(&bytes.0, options));
    assert!(lfs::decode_pack2(&bytes.0, OutSimOptions::ALL).is_err());
    let header = OutSimOptions::new(OutSimOptions::HEADER | OutSimOptions::TIME).unwrap();
    assert!(lfs::decode_pack2(b"LFSX\0\0\0\0", header).is_err());
    assert!(lfs::decode_pack2(b"LFST\x10\0\0\0", header).is_ok());
}

// ---- Plausibility of the magic-less LFS streams ----

/// Deterministic pseudo-random bytes (an LCG: the same datagrams on every run).
fn random_datagram(seed: &mut u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            *seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (*seed >> 33) as u8
        })
        .collect()
}

#[test]
fn random_outsim_and_outgauge_sized_datagrams_are_implausible() {
    // Before the check every one of these decoded (the formats have no magic).
    const TRIES: usize = 200_000;
    let mut seed = 0x0ff5_1e7d;
    for (len, most) in [(64, 10), (68, 10), (92, 0), (96, 0)] {
        let mut passed = 0;
        let mut implausible = 0;
        for _ in 0..TRIES {
            match lfs::decode(&random_datagram(&mut seed, len)) {
                Ok(_) => passed += 1,
                Err(game::GameDecodeError::Implausible { .. }) => implausible += 1,
                Err(other) => panic!("{len} bytes: {other}"),
            }
        }
        assert!(
            passed <= most && passed + implausible == TRIES,
            "{passed} of {TRIES} random {len}-byte datagrams read as LFS"
        );
        // Auto-detection sees them as garbage too.
        assert_eq!(game::detect(&random_datagram(&mut seed, len)), None);
    }
    // A real packet's channels out of range, one at a time.
    let outsim = || os_main(Bytes::zeros(64).u32(0, 2500), 4);
    for broken in [
        outsim().f32(4, 1e5),             // angular velocity
        outsim().f32(20, f32::NAN),       // pitch
        outsim().f32(28, -3e4),           // acceleration
        outsim().f32(40, 1e4),            // velocity
        outsim().i32(60, 5_000 * 65_536), // 5 km up
    ] {
        assert!(matches!(
            lfs::decode(&broken.0),
            Err(game::GameDecodeError::Implausible {
                stream: GameStream::OutSim,
                ..
            })
        ));
    }
    for broken in [
        outgauge(92).raw(8, &[0x10, 0]), // an undefined flag bit
        outgauge(92).u8(10, 100),        // gear
        outgauge(92).u32(40, 1 << 30),   // dash lights
        outgauge(92).f32(48, 1.5),       // throttle
        outgauge(96).f32(28, -0.5),      // fuel
        outgauge(96).f32(16, 1e9),       // rpm
    ] {
        assert!(matches!(
            lfs::decode(&broken.0),
            Err(game::GameDecodeError::Implausible {
                stream: GameStream::OutGauge,
                ..
            })
        ));
    }
}

#[test]
fn what_lfs_and_beamng_really_send_is_plausible() {
    // BeamNG: gear index + 1 (-1 in park), km and bar flags, every light it defines.
    let beamng_park = outgauge(96)
        .raw(8, &(0x4000u16 | 0x8000 | 0x2000).to_le_bytes())
        .u8(10, (-1i8) as u8)
        .u32(40, (1 << 23) - 1)
        .u32(44, 1 << 22)
        .f32(20, 1.2) // turbo, bar
        .f32(24, 95.0) // water temperature
        .f32(36, 110.0); // oil temperature
    assert!(lfs::decode(&beamng_park.0).is_ok());
    // LFS on a high bank, far from the origin, spinning after a crash.
    let crash = os_main(Bytes::zeros(68).u32(0, 99_000), 4)
        .f32s(4, &[3.0, -2.0, 25.0])
        .f32(16, -3.1)
        .f32s(28, &[-400.0, 250.0, 90.0])
        .i32(52, -9_000 * 65_536)
        .i32(60, 300 * 65_536);
    assert!(lfs::decode(&crash.0).is_ok());
}

// ---- Auto-detection across these streams ----

#[test]
fn detect_tells_the_streams_apart_by_length_and_magic() {
    let detect = |bytes: &Bytes| game::detect(&bytes.0);
    assert_eq!(
        detect(&codemasters_braking()),
        Some(GameStream::Codemasters)
    );
    assert_eq!(detect(&wrc_braking()), Some(GameStream::EaWrc));
    assert_eq!(detect(&motionsim()), Some(GameStream::BeamNgMotionSim));
    assert_eq!(detect(&outgauge(96)), Some(GameStream::OutGauge));
    assert_eq!(detect(&outgauge(92)), Some(GameStream::OutGauge));
    assert_eq!(detect(&Bytes::zeros(64)), Some(GameStream::OutSim));
    assert_eq!(detect(&Bytes::zeros(68)), Some(GameStream::OutSim));
    assert_eq!(detect(&pack2_all()), Some(GameStream::OutSimPack2));
    assert_eq!(detect(&Bytes::zeros(280)), None, "280 bytes without LFST");
    assert_eq!(detect(&motionsim().raw(0, b"XXXX")), None);
    assert_eq!(detect(&Bytes::zeros(100)), None);
    let with = |format, bytes: &Bytes| game::decode(Some(format), &bytes.0).map(|s| s.stream);
    assert_eq!(
        with(GameFormat::BeamNg, &outgauge(96)),
        Ok(GameStream::OutGauge)
    );
    assert_eq!(
        with(GameFormat::BeamNg, &motionsim()),
        Ok(GameStream::BeamNgMotionSim)
    );
    assert_eq!(
        with(GameFormat::EaWrc, &wrc_braking()),
        Ok(GameStream::EaWrc)
    );
    assert!(with(GameFormat::Codemasters, &wrc_braking()).is_err());
    assert!(with(GameFormat::Lfs, &codemasters_braking()).is_err());
    let decoded: GameSample = game::decode(None, &codemasters_braking().0).unwrap();
    assert_eq!(decoded.stream, GameStream::Codemasters);
    assert!(matches!(
        game::decode(None, &[0; 100]),
        Err(game::GameDecodeError::Unrecognised { len: 100 })
    ));
}
