//! The telemetry sender on real loopback sockets: a producer thread ticks frames at 1 kHz into
//! the RT stage for 2.5 s; receivers bound on 127.0.0.1 count and decode what arrives. Every
//! output must arrive at its configured rate (+-5 %), at every destination, and decode to the
//! car's speed, rpm, gear and pedals. A destination nobody listens on is counted as errors
//! (connection refused) without disturbing the others.

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rig_protocols::telemetry::{decode_any, detect, Format};
use rig_protocols::Frame;
use rigd::rt::stage::RtStage;

const LOOP_HZ: u32 = 1000;
const RUN_TICKS: u32 = 2500;

/// The car of tick `n`: accelerating at 2 m/s^2 from 10 m/s along world x, in third gear.
fn frame_at(n: u32) -> Frame {
    let t = f64::from(n) / f64::from(LOOP_HZ);
    let mut frame = Frame {
        sequence: n,
        ..Frame::default()
    };
    let car = &mut frame.car;
    car.time_s = t;
    car.orientation = [1.0, 0.0, 0.0, 0.0];
    car.speed_mps = 10.0 + 2.0 * t;
    car.velocity_world_mps = [car.speed_mps, 0.0, 0.0];
    car.velocity_body_mps = [car.speed_mps, 0.0, 0.0];
    car.acceleration_body_mps2 = [2.0, 0.0, 0.0];
    car.position_m = [10.0 * t + t * t, 5.0, 0.0];
    car.drivetrain.engine_rpm = 3000.0 + 100.0 * car.speed_mps;
    car.drivetrain.max_rpm = 7500.0;
    car.drivetrain.gear = 3;
    car.controls.throttle = 0.6;
    car.controls.brake = 0.0;
    car.controls.clutch = 0.0;
    frame
}

struct Received {
    format: Option<Format>,
    packets: u64,
    bad: Vec<String>,
}

fn receiver(socket: UdpSocket, stop: Arc<AtomicBool>) -> JoinHandle<Received> {
    socket
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    std::thread::spawn(move || {
        let mut got = Received {
            format: None,
            packets: 0,
            bad: Vec::new(),
        };
        let mut buf = [0u8; 2048];
        while !stop.load(Ordering::Relaxed) {
            let Ok(len) = socket.recv(&mut buf) else {
                continue;
            };
            let bytes = &buf[..len];
            got.packets += 1;
            got.format = detect(bytes);
            let view = match decode_any(bytes) {
                Ok(decoded) => decoded.dash_view(),
                Err(e) => {
                    got.bad.push(e.to_string());
                    continue;
                }
            };
            // The packet's own time tells which tick it came from; formats without a clock
            // (BeamNG MotionSim) are placed by position, x = 10 t + t^2.
            let t = view.time_s.unwrap_or_else(|| {
                let x = view.position_m.map_or(0.0, |p| p[0]);
                -5.0 + (25.0 + x).sqrt()
            });
            let expected_speed = 10.0 + 2.0 * t;
            let checks = [
                ((view.speed_mps - expected_speed).abs() < 0.01, "speed"),
                (
                    view.rpm
                        .is_none_or(|rpm| (rpm - (3000.0 + 100.0 * expected_speed)).abs() < 2.0),
                    "rpm",
                ),
                (view.gear.is_none_or(|g| g == 3), "gear"),
                (
                    view.throttle.is_none_or(|x| (x - 0.6).abs() <= 0.5 / 255.0),
                    "throttle",
                ),
                (view.brake.is_none_or(|x| x == 0.0), "brake"),
                (view.clutch.is_none_or(|x| x == 0.0), "clutch"),
            ];
            for (ok, what) in checks {
                if !ok && got.bad.len() < 5 {
                    got.bad.push(format!("{what} wrong in {view:?}"));
                }
            }
        }
        got
    })
}

/// Ticks `RUN_TICKS` frames at 1 kHz on absolute deadlines (catching up after a late wake, as
/// the real loop does); returns the wall time it took.
fn produce(stage: &mut dyn RtStage) -> Duration {
    let start = Instant::now();
    for n in 0..RUN_TICKS {
        let deadline = start + Duration::from_micros(u64::from(n) * 1_000_000 / u64::from(LOOP_HZ));
        if let Some(wait) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        stage.on_tick(&frame_at(n));
    }
    start.elapsed()
}

#[test]
fn every_format_reaches_every_destination_at_its_rate_with_the_cars_values() {
    let formats = [
        ("native", 60, 2),
        ("forza-horizon", 100, 1),
        ("forza-fm7-dash", 60, 1),
        ("codemasters", 1000, 2),
        ("outgauge", 250, 1),
        ("outsim-pack2", 500, 1),
        ("beamng-motionsim", 200, 1),
    ];
    let stop = Arc::new(AtomicBool::new(false));
    let mut toml = String::new();
    let mut receivers = Vec::new();
    for (name, rate, destinations) in formats {
        let mut addrs = Vec::new();
        for _ in 0..destinations {
            let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
            addrs.push(format!("\"{}\"", socket.local_addr().unwrap()));
            receivers.push((name, rate, receiver(socket, Arc::clone(&stop))));
        }
        toml += &format!(
            "[[telemetry]]\nformat = \"{name}\"\nrate_hz = {rate}\ndestinations = [{}]\n\n",
            addrs.join(", ")
        );
    }
    let config = rig_config::parse(&toml, "loopback.toml").expect("valid config");
    let (mut stage, handle) = rigd::telemetry_out::start(&config.telemetry).expect("starts");

    let elapsed = produce(&mut stage);
    drop(stage);
    let stats = handle.stats();
    handle.join();
    std::thread::sleep(Duration::from_millis(100));
    stop.store(true, Ordering::Relaxed);

    let seconds = elapsed.as_secs_f64();
    assert!(seconds >= 2.0, "measured over {seconds} s");
    let snapshot = stats.snapshot();
    for (i, (name, rate, thread)) in receivers.into_iter().enumerate() {
        let got = thread.join().unwrap();
        let measured = got.packets as f64 / seconds;
        assert!(
            (measured - f64::from(rate)).abs() <= 0.05 * f64::from(rate),
            "{name}: {measured:.1} Hz measured, {rate} Hz configured ({} packets in {seconds:.3} s)",
            got.packets
        );
        assert!(got.bad.is_empty(), "{name}: {:?}", got.bad);
        let destination = &snapshot.destinations[i];
        assert_eq!(
            destination.sent, got.packets,
            "{name}: every sent packet arrived"
        );
        assert_eq!(destination.errors, 0, "{name}");
        assert_eq!(
            got.format.map(|f| f.name()),
            Some(destination.format.name())
        );
    }
}

#[test]
fn a_destination_nobody_listens_on_counts_errors_and_does_not_disturb_others() {
    let listening = UdpSocket::bind("127.0.0.1:0").unwrap();
    let closed_port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port(); // the socket closes here: nothing listens on this port any more
    let toml = format!(
        "[[telemetry]]\nformat = \"outgauge\"\nrate_hz = 200\ndestinations = [\"127.0.0.1:{closed_port}\", \"{}\"]\n",
        listening.local_addr().unwrap()
    );
    let config = rig_config::parse(&toml, "refused.toml").expect("valid config");
    let (mut stage, handle) = rigd::telemetry_out::start(&config.telemetry).expect("starts");
    let stop = Arc::new(AtomicBool::new(false));
    let thread = receiver(listening, Arc::clone(&stop));
    for n in 0..500 {
        stage.on_tick(&frame_at(n));
        std::thread::sleep(Duration::from_micros(900));
    }
    drop(stage);
    let stats = handle.stats();
    handle.join();
    std::thread::sleep(Duration::from_millis(50));
    stop.store(true, Ordering::Relaxed);
    let got = thread.join().unwrap();

    let snapshot = stats.snapshot();
    let refused = &snapshot.destinations[0];
    assert!(refused.errors > 0, "{refused:?}");
    assert!(
        refused
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("refused")),
        "{refused:?}"
    );
    assert_eq!(
        refused.sent + refused.errors,
        100,
        "every due packet was attempted once"
    );
    let healthy = &snapshot.destinations[1];
    assert_eq!(healthy.sent, 100, "100 of 500 ticks at 200 Hz from 1 kHz");
    assert_eq!(healthy.errors, 0);
    assert_eq!(got.packets, 100);
}

#[test]
fn broadcast_and_multicast_destinations_are_accepted() {
    let toml = "[[telemetry]]\nformat = \"forza-horizon\"\ndestinations = [\"127.255.255.255:5300\", \"239.255.0.1:5300\"]\nmulticast_ttl = 2\n";
    let config = rig_config::parse(toml, "cast.toml").expect("valid config");
    let (mut stage, handle) = rigd::telemetry_out::start(&config.telemetry).expect("starts");
    for n in 0..100 {
        stage.on_tick(&frame_at(n));
    }
    drop(stage);
    let stats = handle.stats();
    handle.join();
    for destination in stats.snapshot().destinations {
        assert_eq!(
            destination.sent + destination.errors,
            6,
            "100 ms at 60 Hz: 6 packets attempted to {}",
            destination.destination
        );
    }
}
