//! Property tests for the Codemasters, EA WRC, BeamNG and LFS game decoders: any bytes, of any
//! length or of exactly a stream's length, give `Ok` or `Err`, never a panic, and every value
//! of an `Ok` sample is finite; random bytes of OutGauge's size are implausible, while any
//! OutSim or OutGauge packet a car can send is read.

mod game_support;

use game_support::{all_finite, any_bytes, bytes_of};
use proptest::prelude::*;
use rig_protocols::game::{self, beamng, codemasters, ea_wrc, lfs};
use rig_protocols::telemetry::OutSimOptions;

fn check(bytes: &[u8]) {
    let options = OutSimOptions::new(OutSimOptions::MAIN | OutSimOptions::WHEELS).unwrap();
    let results = [
        game::decode(None, bytes),
        codemasters::decode(bytes),
        ea_wrc::decode(bytes),
        beamng::decode(bytes),
        lfs::decode(bytes),
        lfs::decode_outgauge(bytes),
        lfs::decode_pack2(bytes, OutSimOptions::ALL),
        lfs::decode_pack2(bytes, options),
    ];
    for sample in results.iter().flatten() {
        assert!(all_finite(sample), "non-finite value in {sample:?}");
    }
}

const SIZES: [usize; 11] = [64, 68, 88, 92, 96, 188, 237, 241, 264, 280, 1349];

proptest! {
    #[test]
    fn any_bytes_decode_or_fail_without_panic(bytes in any_bytes(1500)) {
        check(&bytes);
    }

    #[test]
    fn stream_sized_bytes_give_finite_samples(index in 0..SIZES.len(), seed in bytes_of(1349)) {
        let mut bytes = seed[..SIZES[index]].to_vec();
        // Give the magics a chance so the decoders get past their checks.
        match bytes.len() {
            88 => bytes[..4].copy_from_slice(b"BNG1"),
            241 => bytes[..4].copy_from_slice(b"sesu"),
            280 => bytes[..4].copy_from_slice(b"LFST"),
            _ => {}
        }
        check(&bytes);
    }

    #[test]
    fn extreme_floats_stay_finite(values in proptest::collection::vec(prop_oneof![
        Just(f32::MAX), Just(f32::MIN), Just(f32::NAN), Just(f32::INFINITY), Just(0.0f32),
        Just(f32::MIN_POSITIVE), any::<f32>()], 70)) {
        let floats: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        for len in SIZES {
            let mut bytes: Vec<u8> = floats.iter().cycle().take(len).copied().collect();
            if len == 88 { bytes[..4].copy_from_slice(b"BNG1"); }
            if len == 280 { bytes[..4].copy_from_slice(b"LFST"); }
            check(&bytes);
        }
    }
}

/// An OutSim packet (64 bytes, 68 with the ID) from its `OSMain` values.
fn outsim_packet(time_ms: u32, floats: &[f32; 12], position: [i32; 3], id: Option<i32>) -> Vec<u8> {
    let mut bytes = time_ms.to_le_bytes().to_vec();
    bytes.extend(floats.iter().flat_map(|f| f.to_le_bytes()));
    bytes.extend(position.iter().flat_map(|p| p.to_le_bytes()));
    bytes.extend(id.iter().flat_map(|id| id.to_le_bytes()));
    bytes
}

proptest! {
    /// Random bytes of OutGauge's sizes are never read as a car (the format has no magic:
    /// the plausibility check must hold them off; they pass about once in 10^12).
    #[test]
    fn random_outgauge_sized_bytes_are_implausible(bytes in bytes_of(96), with_id in any::<bool>()) {
        let len = if with_id { 96 } else { 92 };
        let implausible = matches!(
            lfs::decode(&bytes[..len]),
            Err(game::GameDecodeError::Implausible { .. })
        );
        prop_assert!(implausible, "{:?}", lfs::decode(&bytes[..len]));
    }

    /// Whatever a car on a real track can send passes the plausibility checks: OutSim with
    /// any motion within what cars do (a crash's 50 g and spin included), anywhere on a map.
    #[test]
    fn outsim_a_car_can_send_is_always_read(
        time_ms in any::<u32>(),
        rates in prop::array::uniform3(-60.0f32..60.0),
        angles in prop::array::uniform3(-6.3f32..6.3),
        acceleration in prop::array::uniform3(-500.0f32..500.0),
        velocity in prop::array::uniform3(-150.0f32..150.0),
        xy in prop::array::uniform2(-15_000.0f64..15_000.0),
        z in -1_500.0f64..1_500.0,
        id in prop::option::of(any::<i32>()),
    ) {
        let mut floats = [0.0f32; 12];
        floats[..3].copy_from_slice(&rates);
        floats[3..6].copy_from_slice(&angles);
        floats[6..9].copy_from_slice(&acceleration);
        floats[9..].copy_from_slice(&velocity);
        let position = [xy[0], xy[1], z].map(|m| (m * 65_536.0) as i32);
        let bytes = outsim_packet(time_ms, &floats, position, id);
        prop_assert!(lfs::decode(&bytes).is_ok(), "{floats:?} {position:?}");
    }

    /// And OutGauge with any flags, gear, lights and dashboard values LFS or BeamNG send.
    #[test]
    fn outgauge_a_car_can_send_is_always_read(
        flag_choice in any::<u8>(),
        gear in -1i8..=20,
        lights in prop::array::uniform2(0u32..(1 << 23)),
        units in prop::array::uniform4(0.0f32..=1.0),
        speed in -100.0f32..300.0,
        rpm in 0.0f32..25_000.0,
        turbo_bar in -1.0f32..5.0,
        gauges in prop::array::uniform3(-1.0f32..200.0),
        car in any::<[u8; 4]>(),
        with_id in any::<bool>(),
    ) {
        let mut bytes = vec![0u8; if with_id { 96 } else { 92 }];
        bytes[4..8].copy_from_slice(&car);
        // Any of the five OG_* flags InSim.txt defines.
        let flags = [1u16, 2, 8192, 16384, 32768]
            .iter()
            .enumerate()
            .filter(|(bit, _)| flag_choice & (1 << bit) != 0)
            .fold(0u16, |all, (_, flag)| all | flag);
        bytes[8..10].copy_from_slice(&flags.to_le_bytes());
        bytes[10] = gear as u8;
        let mut put = |at: usize, v: f32| bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
        put(12, speed);
        put(16, rpm);
        put(20, turbo_bar);
        put(24, gauges[0]); // engine temperature
        put(28, units[0]); // fuel
        put(32, gauges[1]); // oil pressure
        put(36, gauges[2]); // oil temperature
        put(48, units[1]); // throttle
        put(52, units[2]); // brake
        put(56, units[3]); // clutch
        bytes[40..44].copy_from_slice(&lights[0].to_le_bytes());
        bytes[44..48].copy_from_slice(&lights[1].to_le_bytes());
        prop_assert!(lfs::decode(&bytes).is_ok());
    }
}
