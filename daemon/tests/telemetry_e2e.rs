//! End to end on the real binary: `rigd run` (headless, the demo car driven by its robot) with
//! several `[[telemetry]]` outputs to loopback receivers. Each output must arrive at its
//! configured rate (+-5 % of the loop's simulated time, and the loop must keep close to wall
//! time), the native packets' speed must agree with how far the car moves between them, and
//! every other format must carry the same speed, rpm, gear and pedals as the native packet of
//! the same tick, within that format's rounding.

mod support;

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rig_protocols::telemetry::{decode_any, DashView};
use support::*;

/// Arrival time and decoded view of every packet one receiver got.
type Log = Vec<(Instant, DashView)>;

fn listen(socket: UdpSocket, stop: Arc<AtomicBool>) -> JoinHandle<Log> {
    socket
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    std::thread::spawn(move || {
        let mut log = Log::new();
        let mut buf = [0u8; 2048];
        while !stop.load(Ordering::Relaxed) {
            if let Ok(len) = socket.recv(&mut buf) {
                let view = decode_any(&buf[..len])
                    .unwrap_or_else(|e| panic!("undecodable packet: {e}"))
                    .dash_view();
                log.push((Instant::now(), view));
            }
        }
        log
    })
}

/// (format, rate_hz, destinations): every period is a multiple of the native one, so each
/// packet has a native packet of the same tick.
const OUTPUTS: [(&str, u32, usize); 4] = [
    ("native", 200, 1),
    ("forza-horizon", 100, 2),
    ("codemasters", 50, 1),
    ("outgauge", 100, 1),
];

#[test]
fn rigd_sends_every_configured_format_at_its_rate_with_the_cars_values() {
    let dir = TempDir::new("telemetry-e2e");
    let stop = Arc::new(AtomicBool::new(false));
    let mut config = TEST_CONFIG.to_string();
    let mut listeners = Vec::new();
    for (format, rate, destinations) in OUTPUTS {
        let mut addrs = Vec::new();
        for _ in 0..destinations {
            let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
            addrs.push(format!("\"{}\"", socket.local_addr().unwrap()));
            listeners.push((format, rate, listen(socket, Arc::clone(&stop))));
        }
        config += &format!(
            "\n[[telemetry]]\nformat = \"{format}\"\nrate_hz = {rate}\ndestinations = [{}]\n",
            addrs.join(", ")
        );
    }
    let path = dir.file("rigd.toml", &config);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&path, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(30));
    // Let the car get going, then measure over 2.5 s.
    std::thread::sleep(Duration::from_millis(500));
    let window_start = Instant::now();
    std::thread::sleep(Duration::from_millis(2500));
    let window_end = Instant::now();
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    stop.store(true, Ordering::Relaxed);
    assert_eq!(status.code(), Some(0), "{stderr}");

    let logs: Vec<(&str, u32, Log)> = listeners
        .into_iter()
        .map(|(format, rate, thread)| (format, rate, thread.join().unwrap()))
        .collect();
    let in_window = |log: &Log| -> Vec<DashView> {
        log.iter()
            .filter(|(at, _)| *at >= window_start && *at < window_end)
            .map(|(_, view)| *view)
            .collect()
    };
    let wall_s = (window_end - window_start).as_secs_f64();

    // The native packets give the loop's simulated time over the window.
    let native = in_window(&logs[0].2);
    assert!(
        native.len() > 100,
        "native packets: {}\n{stderr}",
        native.len()
    );
    let sim_time = |v: &DashView| v.time_s.expect("native packets carry time");
    let sim_s = sim_time(native.last().unwrap()) - sim_time(&native[0]);
    assert!(
        sim_s > 0.9 * wall_s,
        "the loop kept {sim_s:.3} s of simulation in {wall_s:.3} s of wall time\n{stderr}"
    );

    // Rates: packets per simulated second, +-5 %.
    for (format, rate, log) in &logs {
        let packets = in_window(log).len() as f64;
        let per_sim_s = packets / sim_s;
        assert!(
            (per_sim_s - f64::from(*rate)).abs() <= 0.05 * f64::from(*rate),
            "{format}: {per_sim_s:.1} packets per simulated second, {rate} Hz configured \
             ({packets} packets, {sim_s:.3} s simulated, {wall_s:.3} s wall)"
        );
    }

    // The car moves, and its speed agrees with its positions.
    let all_native = &logs[0].2;
    let top_speed = all_native
        .iter()
        .map(|(_, v)| v.speed_mps)
        .fold(0.0, f64::max);
    assert!(
        top_speed > 2.0,
        "the demo car should drive: top speed {top_speed} m/s"
    );
    for pair in all_native.windows(2) {
        let (a, b) = (&pair[0].1, &pair[1].1);
        let dt = sim_time(b) - sim_time(a);
        if dt <= 0.0 || dt > 0.011 {
            continue; // a lost packet or a reset: not a neighbour pair
        }
        let (pa, pb) = (a.position_m.unwrap(), b.position_m.unwrap());
        let moved =
            ((pb[0] - pa[0]).powi(2) + (pb[1] - pa[1]).powi(2) + (pb[2] - pa[2]).powi(2)).sqrt();
        let mean_speed = 0.5 * (a.speed_mps + b.speed_mps);
        assert!(
            (moved / dt - mean_speed).abs() < 0.05 * mean_speed + 0.1,
            "moved {moved} m in {dt} s but reports {mean_speed} m/s"
        );
        let rpm = a.rpm.unwrap();
        let max_rpm = a.max_rpm.unwrap();
        assert!(
            (0.0..=max_rpm * 1.05).contains(&rpm),
            "rpm {rpm} of {max_rpm}"
        );
        for pedal in [a.throttle, a.brake, a.clutch] {
            assert!((0.0..=1.0).contains(&pedal.unwrap()), "{a:?}");
        }
        assert!((-1..=8).contains(&a.gear.unwrap()), "{a:?}");
    }

    // Every other format carries the native packet's values of the same tick.
    let native_at = |t: f64| {
        all_native
            .iter()
            .map(|(_, v)| v)
            .find(|v| (sim_time(v) - t).abs() < 0.0006)
    };
    for (format, _, log) in &logs[1..] {
        let mut matched = 0;
        for (_, view) in log {
            let Some(reference) = view.time_s.and_then(native_at) else {
                continue;
            };
            matched += 1;
            let close = |a: Option<f64>, b: Option<f64>, tol: f64| match (a, b) {
                (Some(a), Some(b)) => (a - b).abs() <= tol,
                _ => true,
            };
            assert!(
                (view.speed_mps - reference.speed_mps).abs() <= 1e-3 * reference.speed_mps.max(1.0),
                "{format} speed {} vs native {}",
                view.speed_mps,
                reference.speed_mps
            );
            assert!(
                close(view.rpm, reference.rpm, 0.5),
                "{format} rpm {view:?} vs {reference:?}"
            );
            assert_eq!(view.gear, reference.gear, "{format} gear");
            let pedal_step = if format.starts_with("forza") {
                0.5 / 255.0
            } else {
                1e-6
            };
            assert!(
                close(view.throttle, reference.throttle, pedal_step),
                "{format} throttle"
            );
            assert!(
                close(view.brake, reference.brake, pedal_step),
                "{format} brake"
            );
            assert!(
                close(view.clutch, reference.clutch, pedal_step),
                "{format} clutch"
            );
        }
        assert!(
            matched > 50,
            "{format}: only {matched} packets matched a native tick"
        );
    }
}
