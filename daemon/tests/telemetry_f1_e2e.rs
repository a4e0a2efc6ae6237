//! End to end on the real binary: `rigd run` (headless, the demo car driven by its robot)
//! sends `[[telemetry]] format = "f1-25"` and the native format to loopback receivers. Every
//! F1 datagram must carry a valid F1 25 header and the exact size of its packet type; Motion,
//! Motion Ex, Car Telemetry, Car Status and Lap Data must arrive at the configured rate and
//! Session at 2 Hz; and decoded with rig-protocols' F1 decoder, Car Telemetry and Motion must
//! give the speed, rpm, gear, pedals and position of the native packet of the same tick.

mod support;

use std::collections::BTreeMap;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rig_protocols::game::f1::{self, F1Packet, F1Year};
use support::*;

/// Every datagram one receiver got, with its arrival time.
type Log = Vec<(Instant, Vec<u8>)>;

fn listen(socket: UdpSocket, stop: Arc<AtomicBool>) -> JoinHandle<Log> {
    socket
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    std::thread::spawn(move || {
        let mut log = Log::new();
        let mut buf = [0u8; 2048];
        while !stop.load(Ordering::Relaxed) {
            if let Ok(len) = socket.recv(&mut buf) {
                log.push((Instant::now(), buf[..len].to_vec()));
            }
        }
        log
    })
}

const RATE_HZ: u32 = 60;

#[test]
fn rigd_speaks_f1_25_at_the_games_rates_with_the_cars_values() {
    let dir = TempDir::new("telemetry-f1-e2e");
    let stop = Arc::new(AtomicBool::new(false));
    let f1_socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let native_socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let config = format!(
        "{TEST_CONFIG}\n[[telemetry]]\nformat = \"f1-25\"\nrate_hz = {RATE_HZ}\n\
         destinations = [\"{}\"]\n\n[[telemetry]]\nformat = \"native\"\nrate_hz = {RATE_HZ}\n\
         destinations = [\"{}\"]\n",
        f1_socket.local_addr().unwrap(),
        native_socket.local_addr().unwrap()
    );
    let f1_thread = listen(f1_socket, Arc::clone(&stop));
    let native_thread = listen(native_socket, Arc::clone(&stop));
    let path = dir.file("rigd.toml", &config);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&path, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(500));
    let window_start = Instant::now();
    std::thread::sleep(Duration::from_millis(3000));
    let window_end = Instant::now();
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    stop.store(true, Ordering::Relaxed);
    assert_eq!(status.code(), Some(0), "{stderr}");
    let f1_log = f1_thread.join().unwrap();
    let native_log = native_thread.join().unwrap();

    // Native packets: the loop's simulated time and the reference values per tick.
    let native: Vec<_> = native_log
        .iter()
        .map(|(at, bytes)| (*at, rig_protocols::decode_any(bytes).unwrap().dash_view()))
        .collect();
    let in_window = |at: &Instant| *at >= window_start && *at < window_end;
    let native_in_window: Vec<_> = native.iter().filter(|(at, _)| in_window(at)).collect();
    assert!(native_in_window.len() > 100, "{stderr}");
    let sim_time = |i: usize| native_in_window[i].1.time_s.unwrap();
    let sim_s = sim_time(native_in_window.len() - 1) - sim_time(0);

    // Headers and sizes; packets per type in the window.
    let mut counts: BTreeMap<u8, usize> = BTreeMap::new();
    for (at, bytes) in &f1_log {
        assert_eq!(
            u16::from_le_bytes([bytes[0], bytes[1]]),
            2025,
            "m_packetFormat"
        );
        assert_eq!(bytes[2], 25, "m_gameYear");
        assert_eq!(bytes[27], 0, "m_playerCarIndex");
        assert_eq!(bytes[28], 255, "m_secondaryPlayerCarIndex");
        let packet = F1Packet::from_id(bytes[6]).expect("a packet type rigd sends");
        assert_eq!(bytes.len(), packet.len(F1Year::F1_25), "{packet:?}");
        assert!(f1::matches(bytes));
        if in_window(at) {
            *counts.entry(packet.id()).or_default() += 1;
        }
    }
    for packet in F1Packet::ALL {
        let rate = if packet == F1Packet::Session {
            2.0
        } else {
            f64::from(RATE_HZ)
        };
        let per_sim_s = *counts.get(&packet.id()).unwrap_or(&0) as f64 / sim_s;
        assert!(
            (per_sim_s - rate).abs() <= 0.05 * rate + 0.7,
            "{packet:?}: {per_sim_s:.1} packets per simulated second, {rate} Hz expected"
        );
    }

    // Values: each Car Telemetry and Motion packet against the native packet of its tick.
    let native_at = |t: f64| {
        native
            .iter()
            .map(|(_, v)| v)
            .find(|v| v.time_s.is_some_and(|n| (n - t).abs() < 0.0006))
    };
    let (mut telemetry_checked, mut motion_checked) = (0, 0);
    let mut top_speed: f64 = 0.0;
    for (_, bytes) in &f1_log {
        let sample = f1::decode(bytes).unwrap();
        let Some(reference) = sample.game_time_s.and_then(native_at) else {
            continue;
        };
        match F1Packet::from_id(bytes[6]) {
            Some(F1Packet::CarTelemetry) => {
                telemetry_checked += 1;
                let car = sample.car;
                top_speed = top_speed.max(reference.speed_mps);
                assert!(
                    (car.speed_mps.unwrap() - reference.speed_mps).abs() <= 0.5 / 3.6 + 1e-9,
                    "speed {car:?} vs {reference:?}"
                );
                assert!((car.engine_rpm.unwrap() - reference.rpm.unwrap()).abs() <= 0.5);
                assert_eq!(car.gear, reference.gear);
                assert!((car.throttle.unwrap() - reference.throttle.unwrap()).abs() < 1e-6);
                assert!((car.brake.unwrap() - reference.brake.unwrap()).abs() < 1e-6);
                assert!((car.steer.unwrap() - reference.steer.unwrap()).abs() < 1e-6);
            }
            Some(F1Packet::Motion) => {
                motion_checked += 1;
                let position = sample.motion.position_m.unwrap();
                let expected = reference.position_m.unwrap();
                for k in 0..3 {
                    assert!(
                        (position[k] - expected[k]).abs() <= 1e-3 * expected[k].abs().max(1.0),
                        "position {position:?} vs {expected:?}"
                    );
                }
            }
            _ => {}
        }
    }
    assert!(
        telemetry_checked > 100 && motion_checked > 100,
        "{telemetry_checked} {motion_checked}"
    );
    assert!(
        top_speed > 2.0,
        "the demo car should drive: {top_speed} m/s"
    );
}
