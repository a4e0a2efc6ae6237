//! Property tests for every telemetry decoder: arbitrary bytes, of any length or of exactly a
//! format's length, give `Ok` or `Err` and never panic; and the native packet round-trips any
//! finite frame exactly.

use proptest::prelude::*;
use rig_protocols::telemetry::{
    beamng, codemasters, decode_any, forza, lfs, native, Format, OutSimOptions, MAX_PACKET_LEN,
};
use rig_protocols::Frame;

fn every_decoder(bytes: &[u8]) {
    let _ = decode_any(bytes).map(|d| d.dash_view());
    let _ = native::decode(bytes).map(|p| p.to_frame());
    let _ = lfs::outgauge::decode(bytes);
    let _ = lfs::outsim::decode(bytes);
    let _ = forza::decode_sled(bytes);
    let _ = forza::decode_fm7_dash(bytes);
    let _ = forza::decode_horizon(bytes);
    let _ = forza::decode_fm2023(bytes);
    let _ = codemasters::decode(bytes);
    let _ = beamng::decode(bytes);
}

const SIZES: [usize; 12] = [
    64,
    68,
    88,
    92,
    96,
    232,
    264,
    280,
    311,
    324,
    331,
    native::NATIVE_LEN,
];

proptest! {
    #[test]
    fn any_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1200)) {
        every_decoder(&bytes);
    }

    #[test]
    fn exact_size_bytes_never_panic(
        size_index in 0..SIZES.len(),
        seed in proptest::collection::vec(any::<u8>(), native::NATIVE_LEN),
        magic in prop_oneof![Just(*b"RIGD"), Just(*b"LFST"), Just(*b"BNG1"), any::<[u8; 4]>()],
        version_one in any::<bool>(),
    ) {
        let mut bytes = seed[..SIZES[size_index]].to_vec();
        bytes[..4].copy_from_slice(&magic);
        if version_one {
            bytes[4] = 1;
            bytes[5] = 0;
        }
        every_decoder(&bytes);
    }

    #[test]
    fn pack2_never_panics_for_any_options(
        bits in 0u16..0x400,
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        if let Some(options) = OutSimOptions::new(bits) {
            let _ = lfs::outsim::decode_pack2(&bytes, options).map(|p| {
                rig_protocols::telemetry::Decoded::OutSimPack2(p).dash_view()
            });
            let mut exact = bytes.clone();
            exact.resize(options.packet_len(), 0);
            prop_assert!(lfs::outsim::decode_pack2(&exact, options).is_ok()
                || options.has(OutSimOptions::HEADER));
        }
    }

    #[test]
    fn native_round_trips_any_finite_frame(
        values in proptest::collection::vec(-1e6f64..1e6, 8),
        gear in -1i8..8,
        sequence in any::<u32>(),
        laps in any::<u32>(),
    ) {
        let mut frame = Frame { sequence, ..Frame::default() };
        frame.car.time_s = values[0];
        frame.car.speed_mps = values[1];
        frame.car.position_m = [values[2], values[3], values[4]];
        frame.car.drivetrain.engine_rpm = values[5];
        frame.car.drivetrain.gear = gear;
        frame.car.wheels[3].load_n = values[6];
        frame.car.lap.laps_completed = laps;
        frame.health.dropped_time_ms = values[7];
        let mut buf = [0u8; MAX_PACKET_LEN];
        let len = Format::Native.encode(&frame, &mut buf).expect("fits");
        let back = native::decode(&buf[..len]).expect("decodes").to_frame().expect("valid");
        prop_assert_eq!(back, frame);
    }

    #[test]
    fn encoders_never_emit_nan_for_non_finite_input(x in prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY)]) {
        let mut frame = Frame::default();
        frame.car.speed_mps = x;
        frame.car.drivetrain.engine_rpm = x;
        frame.car.controls.throttle = x;
        frame.car.position_m = [x; 3];
        frame.car.orientation = [x; 4];
        for format in [Format::OutGauge { id: None }, Format::ForzaHorizon, Format::Codemasters, Format::BeamNgMotionSim] {
            let mut buf = [0u8; MAX_PACKET_LEN];
            let len = format.encode(&frame, &mut buf).expect("fits");
            let view = decode_any(&buf[..len]).expect("decodes").dash_view();
            prop_assert!(view.speed_mps.is_finite());
            prop_assert!(view.rpm.is_none_or(f64::is_finite));
        }
    }
}
