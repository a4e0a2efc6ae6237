//! Property tests for the Codemasters, EA WRC, BeamNG and LFS game decoders: any bytes, of any
//! length or of exactly a stream's length, give `Ok` or `Err`, never a panic, and every value
//! of an `Ok` sample is finite.

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
