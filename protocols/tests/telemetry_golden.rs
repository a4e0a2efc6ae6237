//! Golden tests: for the fixture frame, each encoder must produce exactly the bytes written
//! here by hand from the formats' published layouts (cited in `docs/telemetry-formats.md`)
//! and from `docs/telemetry-native.md`: offsets, units, axes and wheel orders are spelled out below,
//! never taken from the encoder.

mod telemetry_fixture;

use std::f64::consts::{FRAC_PI_2, PI, TAU};

use rig_protocols::telemetry::{Format, OutSimOptions, MAX_PACKET_LEN};
use telemetry_fixture::{assert_bytes_eq, frame, wheel, Golden};

const G: f64 = 9.80665;

fn encoded(format: Format) -> Vec<u8> {
    let mut buf = [0u8; MAX_PACKET_LEN];
    let len = format
        .encode(&frame(), &mut buf)
        .expect("buffer is large enough");
    buf[..len].to_vec()
}

/// OutGauge body (92 bytes) per LFS InSim.txt.
fn outgauge_body(g: &mut Golden) {
    g.u32(0, 12_500); // time, ms
    g.bytes(4, b"RGD\0"); // car: three letters, NUL-terminated like LFS's short names
    g.u16(8, 16384 | 32768); // OG_KM | OG_BAR
    g.u8(10, 4); // gear 3 -> 0 R, 1 N, 2 first => 4
    g.u8(11, 0); // PLID
    g.f32(12, 30.04); // speed m/s
    g.f32(16, 6500.0); // rpm
    g.f32(20, 0.0); // turbo bar (not modelled)
    g.f32(24, 0.0); // engine temp (not modelled)
    g.f32(28, 1.0); // fuel: full
    g.f32(32, 0.0); // oil pressure
    g.f32(36, 0.0); // oil temp
    g.u32(40, 1 | 1 << 2 | 1 << 17); // available: SHIFT, HANDBRAKE, NEUTRAL
    g.u32(44, 1 << 2); // on: handbrake at 0.5; 6500 rpm < 95 % of 7200; gear 3 is not neutral
    g.f32(48, 0.75);
    g.f32(52, 0.1);
    g.f32(56, 0.2);
    // 60..92: display strings, empty.
}

#[test]
fn outgauge_92_matches_hand_built_bytes() {
    let mut g = Golden::new(92);
    outgauge_body(&mut g);
    assert_bytes_eq(&encoded(Format::OutGauge { id: None }), &g.0);
}

#[test]
fn outgauge_96_appends_the_id() {
    let mut g = Golden::new(96);
    outgauge_body(&mut g);
    g.i32(92, -7);
    assert_bytes_eq(&encoded(Format::OutGauge { id: Some(-7) }), &g.0);
}

/// OSMain (60 bytes) at `base`. Yaw is pi, so body (x, y, z) -> world (-x, -y, z).
fn outsim_main(g: &mut Golden, base: usize) {
    g.f32s(base, &[-0.1, 0.2, 0.3]); // angular velocity, world
    g.f32(base + 12, PI - FRAC_PI_2); // heading: yaw - pi/2
    g.f32(base + 16, 0.01); // pitch: nose-up positive = -(-0.01)
    g.f32(base + 20, 0.02); // roll
    g.f32s(base + 24, &[-2.0, 4.0, 0.5]); // acceleration, world
    g.f32s(base + 36, &[-30.0, -1.5, 0.25]); // velocity, world
    g.i32(base + 48, (100.5 * 65536.0) as i32);
    g.i32(base + 52, (-20.25 * 65536.0) as i32);
    g.i32(base + 56, 3 * 65536);
}

#[test]
fn outsim_64_and_68_match_hand_built_bytes() {
    let mut g = Golden::new(64);
    g.u32(0, 12_500);
    outsim_main(&mut g, 4);
    assert_bytes_eq(&encoded(Format::OutSim { id: None }), &g.0);

    let mut g68 = Golden::new(68);
    g68.bytes(0, &g.0);
    g68.i32(64, 42);
    assert_bytes_eq(&encoded(Format::OutSim { id: Some(42) }), &g68.0);
}

#[test]
fn outsim_pack2_0x1ff_matches_hand_built_bytes() {
    let mut g = Golden::new(280);
    g.bytes(0, b"LFST");
    g.i32(4, 9); // ID
    g.u32(8, 12_500); // time
    outsim_main(&mut g, 12); // 12..72
                             // OSInputs 72..92: throttle, brake, steer (mean front road-wheel angle), clutch, handbrake.
    g.f32s(72, &[0.75, 0.1, 0.5 * (0.05 + 0.04), 0.2, 0.5]);
    // Drive 92..104: gear byte, 3 spare, engine rad/s, max torque (not in frame).
    g.u8(92, 4);
    g.f32(96, 6500.0 * TAU / 60.0);
    g.f32(100, 0.0);
    // Distance 104..112.
    g.f32s(104, &[1234.5, 1234.5]);
    // Wheels 112..272 in LFS order RL, RR, FL, FR.
    for (slot, ours) in [2usize, 3, 0, 1].into_iter().enumerate() {
        let w = wheel(ours);
        let b = 112 + 40 * slot;
        g.f32(b, w.suspension_travel_m);
        g.f32(b + 4, w.steer_angle_rad);
        g.f32(b + 8, -w.force_lat_n); // X force, positive right
        g.f32(b + 12, w.force_long_n); // Y force, positive forward
        g.f32(b + 16, w.load_n);
        g.f32(b + 20, w.angular_velocity_radps);
        g.f32(b + 24, 0.0); // lean
        g.u8(b + 28, w.temperature_c as u8); // air temp degC
        g.u8(b + 29, 0); // slip fraction
        g.u8(b + 30, u8::from(ours != 2)); // touching (RL is airborne)
        g.f32(b + 32, w.slip_ratio);
        g.f32(b + 36, w.slip_angle_rad.tan());
    }
    // EXTRA_1 272..280: steer torque, 4 spare.
    g.f32(272, 3.5);
    let format = Format::OutSimPack2 {
        options: OutSimOptions::ALL,
        id: 9,
    };
    assert_bytes_eq(&encoded(format), &g.0);
}

#[test]
fn outsim_pack2_selected_parts_only_in_order() {
    // TIME | INPUTS | EXTRA_1 = 0x114: 4 + 20 + 8 bytes, no magic.
    let options = OutSimOptions::new(0x114).expect("valid options");
    let mut g = Golden::new(32);
    g.u32(0, 12_500);
    g.f32s(4, &[0.75, 0.1, 0.045, 0.2, 0.5]);
    g.f32(24, 3.5);
    assert_bytes_eq(&encoded(Format::OutSimPack2 { options, id: 0 }), &g.0);
}

/// Forza Sled (0..232). Local axes X right, Y up, Z forward from body x fwd, y left, z up.
fn forza_sled(g: &mut Golden) {
    g.i32(0, 1); // IsRaceOn
    g.u32(4, 12_500);
    g.f32(8, 7200.0);
    g.f32(12, 900.0);
    g.f32(16, 6500.0);
    g.f32s(20, &[4.0, 0.5, 2.0]); // accel: (-y, z, x) of (2, -4, 0.5)
    g.f32s(32, &[-1.5, 0.25, 30.0]); // velocity: (-y, z, x) of (30, 1.5, 0.25)
    g.f32s(44, &[0.2, 0.3, 0.1]); // angular velocity: pitch, yaw, roll rates
    g.f32(56, PI); // yaw
    g.f32(60, 0.01); // pitch, nose up positive
    g.f32(64, 0.02); // roll
    for i in 0..4 {
        let w = wheel(i);
        let o = 4 * i;
        g.f32(68 + o, w.suspension_travel_m / 0.15); // normalised travel
        g.f32(84 + o, w.slip_ratio / 0.1); // normalised slip ratio
        g.f32(100 + o, w.angular_velocity_radps);
        g.i32(116 + o, i32::from(i == 1)); // FR is on the kerb
        g.f32(132 + o, 0.0); // puddle
        g.f32(148 + o, 0.0); // surface rumble
        g.f32(164 + o, w.slip_angle_rad / 0.14);
        g.f32(180 + o, (w.slip_ratio / 0.1).hypot(w.slip_angle_rad / 0.14));
        g.f32(196 + o, w.suspension_travel_m);
    }
    g.i32(212, 0); // car ordinal
    g.i32(216, 0); // class
    g.i32(220, 0); // PI
    g.i32(224, 1); // RWD: only the rear diff is present
    g.i32(228, 0); // cylinders
}

/// Forza Car Dash block at `base`.
fn forza_dash(g: &mut Golden, base: usize) {
    g.f32s(base, &[20.25, 3.0, 100.5]); // position (-y, z, x)
    g.f32(base + 12, 30.04);
    g.f32(base + 16, 250.0 * 6500.0 * TAU / 60.0); // power W
    g.f32(base + 20, 250.0);
    for i in 0..4 {
        g.f32(base + 24 + 4 * i, (80.0 + i as f64) * 9.0 / 5.0 + 32.0); // degF
    }
    g.f32(base + 40, 0.0); // boost
    g.f32(base + 44, 1.0); // fuel
    g.f32(base + 48, 2.0 * 3000.0 + 1234.5); // distance travelled
    g.f32(base + 52, 90.5);
    g.f32(base + 56, 92.25);
    g.f32(base + 60, 45.5);
    g.f32(base + 64, 12.5);
    g.u16(base + 68, 2);
    g.u8(base + 70, 0); // race position
    g.u8(base + 71, 191); // 0.75 * 255 = 191.25
    g.u8(base + 72, 26); // 0.1 * 255 = 25.5
    g.u8(base + 73, 51); // 0.2 * 255
    g.u8(base + 74, 128); // 0.5 * 255 = 127.5
    g.u8(base + 75, 3);
    g.u8(base + 76, (-32i8) as u8); // steer 0.25 left -> -31.75 (negative = left)
}

#[test]
fn forza_sled_232_matches_hand_built_bytes() {
    let mut g = Golden::new(232);
    forza_sled(&mut g);
    assert_bytes_eq(&encoded(Format::ForzaSled), &g.0);
}

#[test]
fn forza_fm7_dash_311_has_dash_at_232() {
    let mut g = Golden::new(311);
    forza_sled(&mut g);
    forza_dash(&mut g, 232);
    assert_bytes_eq(&encoded(Format::ForzaFm7Dash), &g.0);
}

#[test]
fn forza_horizon_324_has_block_dash_at_244_and_pad() {
    let mut g = Golden::new(324);
    forza_sled(&mut g);
    // 232..244: FH block, zeros.
    forza_dash(&mut g, 244);
    // 323: pad, zero.
    let bytes = encoded(Format::ForzaHorizon);
    assert_bytes_eq(&bytes, &g.0);
    // The reference's key absolute offsets.
    assert_eq!(
        f32::from_le_bytes(bytes[256..260].try_into().unwrap()),
        30.04_f32
    );
    assert_eq!(bytes[319], 3, "gear at 319");
}

#[test]
fn forza_fm2023_331_has_tyre_wear_and_track() {
    let mut g = Golden::new(331);
    forza_sled(&mut g);
    forza_dash(&mut g, 232);
    // Tyre wear 0..1 from the tyre model, FL FR RL RR.
    let wear: Vec<f64> = (0..4).map(|i| wheel(i).wear).collect();
    g.f32s(311, &wear);
    g.i32(327, 0); // track ordinal
    assert_bytes_eq(&encoded(Format::ForzaFm2023), &g.0);
}

#[test]
fn codemasters_264_matches_hand_built_bytes() {
    let mut g = Golden::new(264);
    let at = |i: usize| 4 * i;
    g.f32(at(0), 12.5);
    g.f32(at(1), 45.5);
    g.f32(at(2), 1234.5);
    g.f32(at(3), 7234.5);
    g.f32s(at(4), &[100.5, 3.0, -20.25]); // world (x, z, y): y up
    g.f32(at(7), 30.04);
    g.f32s(at(8), &[-30.0, 0.25, -1.5]);
    g.f32s(at(11), &[0.0, 0.0, -1.0]); // left axis: world (0, -1, 0) -> (x, z, y)
    g.f32s(at(14), &[-1.0, 0.0, 0.0]); // forward axis: world (-1, 0, 0)
    for (slot, ours) in [2usize, 3, 0, 1].into_iter().enumerate() {
        let w = wheel(ours);
        g.f32(at(17 + slot), w.suspension_travel_m * 1000.0); // mm
        g.f32(at(21 + slot), w.suspension_velocity_mps * 1000.0); // mm/s
        g.f32(at(25 + slot), w.angular_velocity_radps * w.radius_m); // m/s
        g.f32(at(55 + slot), w.pressure_kpa / 6.894_757); // psi
    }
    g.f32(at(29), 0.75);
    g.f32(at(30), -0.25); // steer: +right
    g.f32(at(31), 0.1);
    g.f32(at(32), 0.2);
    g.f32(at(33), 3.0);
    g.f32(at(34), -4.0 / G);
    g.f32(at(35), 2.0 / G);
    g.f32(at(36), 2.0);
    g.f32(at(37), 650.0); // rpm / 10
    g.f32(at(45), 1.0); // fuel in tank
    g.f32(at(46), 1.0); // capacity
    g.f32(at(48), 1.0); // sector
    g.f32(at(49), 30.5);
    g.f32(at(50), 0.0);
    g.f32(at(59), 2.0);
    g.f32(at(61), 3000.0);
    g.f32(at(62), 92.25);
    g.f32(at(63), 720.0);
    g.f32(at(64), 90.0);
    g.f32(at(65), 6.0);
    assert_bytes_eq(&encoded(Format::Codemasters), &g.0);
}

#[test]
fn beamng_motionsim_88_matches_hand_built_bytes() {
    let mut g = Golden::new(88);
    g.bytes(0, b"BNG1");
    g.f32s(4, &[100.5, -20.25, 3.0]);
    g.f32s(16, &[-30.0, -1.5, 0.25]);
    g.f32s(28, &[-2.0, 4.0, 0.5]); // body accel rotated by yaw pi
    g.f32s(40, &[0.0, 0.0, 1.0]); // up
    g.f32s(52, &[0.02, -0.01, PI]);
    g.f32s(64, &[0.1, -0.2, 0.3]);
    // 76..88 angular accelerations: 0.
    assert_bytes_eq(&encoded(Format::BeamNgMotionSim), &g.0);
}

#[test]
fn native_matches_the_documented_layout() {
    let f = frame();
    let mut g = Golden::new(1137);
    g.bytes(0, b"RIGD");
    g.u16(4, 3);
    g.u16(6, 1137);
    g.u32(8, 12345);
    g.u16(12, 0);
    g.f64(14, 12.5);
    g.f64s(22, &[100.5, -20.25, 3.0]);
    g.f64s(46, &[0.0, 0.0, 0.0, 1.0]);
    g.f64s(78, &[0.02, -0.01, PI]);
    g.f64s(102, &[-30.0, -1.5, 0.25]);
    g.f64s(126, &[30.0, 1.5, 0.25]);
    g.f64s(150, &[0.1, -0.2, 0.3]);
    g.f64s(174, &[2.0, -4.0, 0.5]);
    g.f64s(198, &[2.0, -4.0, 10.31]);
    g.f64(222, 30.04);
    for i in 0..4 {
        let w = wheel(i);
        let b = 230 + 114 * i;
        g.f64s(
            b,
            &[
                w.load_n,
                w.slip_ratio,
                w.slip_angle_rad,
                w.force_long_n,
                w.force_lat_n,
                w.aligning_moment_nm,
                w.angular_velocity_radps,
                w.radius_m,
                w.steer_angle_rad,
                w.suspension_travel_m,
                w.suspension_velocity_mps,
                w.temperature_c,
                w.drive_torque_nm,
                w.brake_torque_nm,
            ],
        );
        g.u8(b + 112, [0, 1, 2, 0][i]); // asphalt, kerb, grass, asphalt
        g.u8(b + 113, u8::from(i != 2));
    }
    g.f64s(686, &[6500.0, 250.0, 7200.0, 900.0]);
    g.u8(718, 3);
    g.u8(719, 6);
    g.u8(720, 0b011); // running, clutch locked
    g.f64s(721, &[0.0, 40.0, 0.0]);
    g.bytes(745, &[0, 0b01, 0]); // rear diff present, open
    g.f64(748, 240.0); // clutch torque
    g.u8(756, 2); // refusal: clutch required
    g.u32(757, 4); // refusal count
    g.f64s(761, &[0.25, 0.75, 0.1, 0.2, 0.5]);
    g.u8(801, 3); // select
    g.u8(802, 3); // gear 3
    g.u8(803, 0b01); // ignition
    g.f64s(804, &[0.5, 3.5, 0.6, 0.05]);
    g.u8(836, 0b11); // ffb active, clipping
    g.f64s(837, &[1234.5, 1.25, 3000.0, 45.5, 92.25, 90.5]);
    g.f64s(885, &[30.5, 0.0, 0.0, 30.0, 31.0, 29.5]);
    g.u32(933, 2);
    g.u8(937, 1);
    g.u8(938, 0);
    g.u8(939, 0);
    g.u64(940, 12500);
    g.f64s(948, &[999.5, 12.0, 48.0, 310.0, 35.0]); // .., tick work p99
    g.u64(988, 3);
    g.u64(996, 1);
    g.f64(1004, 0.5);
    g.f64(1012, 9.5); // physics step p99 (version 2)
                      // Motion holds (version 3): 2 platforms, 1 held, parking (6) for an e-stop (4), latest
                      // e-stop, 5 holds: 1 fault, 2 e-stops, 1 stale.
    g.bytes(1020, &[2, 1, 6, 4, 4]);
    g.u32(1025, 5);
    g.u32(1029, 1);
    g.u32(1033, 2);
    g.u32(1037, 1);
    for i in 0..4 {
        // Carcass temperature, pressure, wear (version 3).
        let w = wheel(i);
        g.f64s(
            1041 + 24 * i,
            &[w.carcass_temperature_c, w.pressure_kpa, w.wear],
        );
    }
    assert_eq!(f.sequence, 12345);
    assert_bytes_eq(&encoded(Format::Native), &g.0);
}

/// The Car field (offset 4, 4 bytes) holds a short name the way LFS sends its own: three
/// letters, then NUL. Read as a C string it is the whole name; no byte of it is cut off.
#[test]
fn outgauge_car_name_is_three_letters_and_a_nul() {
    let bytes = encoded(Format::OutGauge { id: None });
    let car = &bytes[4..8];
    assert_eq!(car, b"RGD\0");
    let name: Vec<u8> = car.iter().copied().take_while(|&b| b != 0).collect();
    assert_eq!(name, b"RGD");
    assert!(name.iter().all(u8::is_ascii_uppercase));
}
