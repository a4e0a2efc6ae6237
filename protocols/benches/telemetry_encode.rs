//! Encode cost per packet for every telemetry format (ns per packet), and the decode cost of
//! the dashboard path (`decode_any` + `dash_view`). Run: `cargo bench -p rig-protocols`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use rig_protocols::telemetry::{decode_any, Format, OutSimOptions, MAX_PACKET_LEN};
use rig_protocols::Frame;

/// A frame with every channel non-zero, so no encoder takes a shortcut.
fn busy_frame() -> Frame {
    let mut frame = Frame {
        sequence: 4242,
        ..Frame::default()
    };
    let car = &mut frame.car;
    car.time_s = 123.456;
    car.orientation = [0.9, 0.1, -0.2, 0.37];
    car.roll_pitch_yaw_rad = [0.02, -0.03, 1.2];
    car.position_m = [1500.0, -320.0, 12.0];
    car.velocity_world_mps = [30.0, 12.0, 0.1];
    car.velocity_body_mps = [32.0, -0.5, 0.1];
    car.angular_velocity_body_radps = [0.01, 0.02, 0.3];
    car.acceleration_body_mps2 = [1.5, 6.0, 0.2];
    car.speed_mps = 32.3;
    for (i, w) in car.wheels.iter_mut().enumerate() {
        w.load_n = 3500.0 + i as f64;
        w.slip_ratio = 0.03;
        w.slip_angle_rad = 0.05;
        w.angular_velocity_radps = 100.0;
        w.radius_m = 0.32;
        w.suspension_travel_m = 0.06;
        w.temperature_c = 85.0;
    }
    car.drivetrain.engine_rpm = 6100.0;
    car.drivetrain.max_rpm = 7500.0;
    car.drivetrain.gear = 4;
    car.controls.throttle = 0.8;
    car.lap.distance_m = 800.0;
    frame
}

const FORMATS: [(&str, Format); 12] = [
    ("native", Format::Native),
    ("outgauge_92", Format::OutGauge { id: None }),
    ("outgauge_96", Format::OutGauge { id: Some(1) }),
    ("outsim_64", Format::OutSim { id: None }),
    ("outsim_68", Format::OutSim { id: Some(1) }),
    (
        "outsim_pack2_1ff",
        Format::OutSimPack2 {
            options: OutSimOptions::ALL,
            id: 1,
        },
    ),
    ("forza_sled_232", Format::ForzaSled),
    ("forza_fm7_dash_311", Format::ForzaFm7Dash),
    ("forza_horizon_324", Format::ForzaHorizon),
    ("forza_fm2023_331", Format::ForzaFm2023),
    ("codemasters_264", Format::Codemasters),
    ("beamng_motionsim_88", Format::BeamNgMotionSim),
];

fn encode(c: &mut Criterion) {
    let frame = busy_frame();
    let mut group = c.benchmark_group("telemetry_encode");
    for (name, format) in FORMATS {
        let mut buf = [0u8; MAX_PACKET_LEN];
        group.bench_function(name, |b| {
            b.iter(|| format.encode(black_box(&frame), black_box(&mut buf)))
        });
    }
    group.finish();
}

fn decode(c: &mut Criterion) {
    let frame = busy_frame();
    let mut group = c.benchmark_group("telemetry_decode_dash_view");
    for (name, format) in FORMATS {
        let mut buf = [0u8; MAX_PACKET_LEN];
        let len = format.encode(&frame, &mut buf).expect("fits");
        let packet = buf[..len].to_vec();
        group.bench_function(name, |b| {
            b.iter(|| decode_any(black_box(&packet)).map(|d| d.dash_view()))
        });
    }
    group.finish();
}

criterion_group!(benches, encode, decode);
criterion_main!(benches);
