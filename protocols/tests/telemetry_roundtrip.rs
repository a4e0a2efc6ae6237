//! Round trips: every format encoded from the fixture frame is recognised by `detect`,
//! decodes, and its common dash view gives the car's speed, rpm, gear and pedals back within
//! the format's rounding (f32, rpm / 10, 1/255 pedal steps). The native packet gives the whole
//! frame back bit for bit.

mod telemetry_fixture;

use rig_protocols::telemetry::{
    decode_any, detect, DecodeError, Decoded, Format, OutSimOptions, MAX_PACKET_LEN,
};
use telemetry_fixture::frame;

const ALL_FORMATS: [Format; 12] = [
    Format::Native,
    Format::OutGauge { id: None },
    Format::OutGauge { id: Some(3) },
    Format::OutSim { id: None },
    Format::OutSim { id: Some(3) },
    Format::OutSimPack2 {
        options: OutSimOptions::ALL,
        id: 5,
    },
    Format::ForzaSled,
    Format::ForzaFm7Dash,
    Format::ForzaHorizon,
    Format::ForzaFm2023,
    Format::Codemasters,
    Format::BeamNgMotionSim,
];

fn encode(format: Format) -> Vec<u8> {
    let mut buf = [0u8; MAX_PACKET_LEN];
    let len = format.encode(&frame(), &mut buf).expect("fits");
    assert_eq!(len, format.packet_len());
    buf[..len].to_vec()
}

fn close(actual: Option<f64>, expected: f64, tolerance: f64, what: &str, format: Format) {
    let actual = actual.unwrap_or_else(|| panic!("{format:?} has no {what}"));
    assert!(
        (actual - expected).abs() <= tolerance,
        "{format:?} {what}: {actual} vs {expected}"
    );
}

#[test]
fn every_format_is_detected_by_size_and_magic() {
    for format in ALL_FORMATS {
        let bytes = encode(format);
        assert_eq!(detect(&bytes), Some(format), "{} bytes", bytes.len());
    }
}

#[test]
fn native_round_trip_is_exact() {
    let bytes = encode(Format::Native);
    let Decoded::Native(packet) = decode_any(&bytes).expect("decodes") else {
        panic!("not native");
    };
    assert_eq!(packet.to_frame().expect("valid codes"), frame());
}

/// Why the force is held travels in bits 2..=4 of `ffb_flags` next to the active and clipping
/// bits, every hold code exactly.
#[test]
fn native_carries_every_ffb_hold() {
    for hold in rig_protocols::FfbHold::ALL {
        let mut f = frame();
        f.ffb.hold = hold;
        let mut buf = [0u8; MAX_PACKET_LEN];
        let len = Format::Native.encode(&f, &mut buf).expect("fits");
        let Decoded::Native(packet) = decode_any(&buf[..len]).expect("decodes") else {
            panic!("not native");
        };
        let back = packet.to_frame().expect("valid codes");
        assert_eq!(back.ffb.hold, hold);
        assert!(back.ffb.active && back.ffb.clipping, "other bits intact");
    }
}

#[test]
fn dash_view_matches_the_car_in_every_format() {
    let f = frame();
    let car = &f.car;
    for format in ALL_FORMATS {
        let view = decode_any(&encode(format)).expect("decodes").dash_view();
        assert_eq!(view.format, format);
        // Formats without a speed field report the norm of their velocity vector.
        let velocity_norm = car
            .velocity_world_mps
            .iter()
            .map(|v| v * v)
            .sum::<f64>()
            .sqrt();
        assert!(
            (view.speed_mps - car.speed_mps).abs() < 1e-4 * car.speed_mps
                || (view.speed_mps - velocity_norm).abs() < 1e-4 * velocity_norm,
            "{format:?} speed {}",
            view.speed_mps
        );
        let has_engine = !matches!(format, Format::OutSim { .. } | Format::BeamNgMotionSim);
        if has_engine {
            close(view.rpm, car.drivetrain.engine_rpm, 0.01, "rpm", format);
        }
        let has_pedals = !matches!(
            format,
            Format::OutSim { .. } | Format::BeamNgMotionSim | Format::ForzaSled
        );
        if has_pedals {
            let step = if matches!(
                format,
                Format::ForzaFm7Dash | Format::ForzaHorizon | Format::ForzaFm2023
            ) {
                0.5 / 255.0
            } else {
                1e-6
            };
            close(
                view.throttle,
                car.controls.throttle,
                step,
                "throttle",
                format,
            );
            close(view.brake, car.controls.brake, step, "brake", format);
            close(view.clutch, car.controls.clutch, step, "clutch", format);
            assert_eq!(view.gear, Some(car.drivetrain.gear), "{format:?} gear");
        }
        if let Some(position) = view.position_m {
            for (a, e) in position.iter().zip(car.position_m) {
                assert!((a - e).abs() < 1e-4, "{format:?} position {position:?}");
            }
        }
    }
}

#[test]
fn steering_sign_comes_back_as_positive_left() {
    for format in [Format::Native, Format::ForzaHorizon, Format::Codemasters] {
        let view = decode_any(&encode(format)).expect("decodes").dash_view();
        close(view.steer, 0.25, 0.5 / 127.0, "steer", format);
    }
}

#[test]
fn wheel_orders_come_back_fl_fr_rl_rr() {
    let f = frame();
    for format in [
        Format::Native,
        Format::OutSimPack2 {
            options: OutSimOptions::ALL,
            id: 0,
        },
        Format::ForzaFm2023,
        Format::Codemasters,
    ] {
        let view = decode_any(&encode(format)).expect("decodes").dash_view();
        let wheels = view.wheels.expect("wheel data");
        for (i, w) in wheels.iter().enumerate() {
            close(
                w.suspension_travel_m,
                f.car.wheels[i].suspension_travel_m,
                1e-6,
                "suspension travel",
                format,
            );
        }
    }
}

#[test]
fn lap_times_come_back_where_the_format_has_them() {
    for format in [Format::Native, Format::ForzaHorizon, Format::Codemasters] {
        let laps = decode_any(&encode(format))
            .expect("decodes")
            .dash_view()
            .laps
            .expect("laps");
        assert_eq!(laps.laps_completed, Some(2), "{format:?}");
        close(laps.current_lap_s, 45.5, 1e-4, "current lap", format);
        close(laps.last_lap_s, 92.25, 1e-4, "last lap", format);
    }
}

#[test]
fn native_view_carries_health_and_ffb() {
    let view = decode_any(&encode(Format::Native))
        .expect("decodes")
        .dash_view();
    assert_eq!(view.health, Some(frame().health));
    assert_eq!(view.ffb, Some(frame().ffb));
    assert_eq!(view.sequence, Some(12345));
}

#[test]
fn native_rejects_other_versions_and_magic() {
    let mut bytes = encode(Format::Native);
    bytes[4] = 4;
    assert_eq!(
        Format::Native.decode(&bytes),
        Err(DecodeError::UnsupportedVersion {
            found: 4,
            supported: 3
        })
    );
    bytes[0] = b'X';
    assert!(matches!(
        Format::Native.decode(&bytes),
        Err(DecodeError::BadMagic { .. })
    ));
    assert!(
        detect(&bytes).is_none(),
        "a native-sized packet without RIGD is not native"
    );
}

#[test]
fn a_version_1_packet_is_named_as_such_not_as_an_unknown_size() {
    // Version 1 was 1012 bytes: the same layout without the physics-step channel.
    let mut v1 = encode(Format::Native)[..1012].to_vec();
    v1[4..6].copy_from_slice(&1u16.to_le_bytes());
    v1[6..8].copy_from_slice(&1012u16.to_le_bytes());
    assert_eq!(detect(&v1), Some(Format::Native));
    let err = decode_any(&v1).expect_err("version 1 is not read");
    assert_eq!(
        err,
        DecodeError::UnsupportedVersion {
            found: 1,
            supported: 3
        }
    );
    assert!(
        err.to_string()
            .contains("run the same rigd version on both ends"),
        "{err}"
    );
}

#[test]
fn unknown_sizes_are_reported_with_the_supported_list() {
    let err = decode_any(&[0u8; 100]).expect_err("100 bytes is no format");
    assert_eq!(err, DecodeError::UnknownFormat { len: 100 });
    assert!(err.to_string().contains("Forza (232/311/324/331)"));
}

#[test]
fn encode_reports_a_short_buffer_instead_of_panicking() {
    let mut small = [0u8; 10];
    let err = Format::ForzaHorizon
        .encode(&frame(), &mut small)
        .expect_err("10 bytes is too small");
    assert!(err.to_string().contains("needs 324"));
}
