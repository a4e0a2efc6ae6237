//! Benchmark: CPU cost of the telemetry sender at its heaviest realistic load, 4 formats x 4
//! loopback destinations at 1000 Hz each (16 000 packets/s), fed by a 1 kHz producer thread
//! through the real RT stage, for 10 s (or the seconds given as the first argument).
//!
//! Reports the sender thread's CPU (from `/proc/self/task/*/stat`, the number the 5 % budget
//! is about), and the whole process (`getrusage(RUSAGE_SELF)`: sender + producer + the
//! receiver thread that drains the sockets) as an upper bound.
//! Run: `cargo run --release -p rigd --example telemetry_cpu [SECONDS] [RATE_HZ]`.

use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rig_protocols::Frame;
use rigd::rt::stage::RtStage;

fn process_cpu_s() -> f64 {
    // SAFETY: getrusage writes into the zeroed struct we own; RUSAGE_SELF is always valid.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// CPU seconds of the thread named `name` (user + system), from procfs.
fn thread_cpu_s(name: &str) -> Option<f64> {
    // SAFETY: sysconf has no preconditions.
    let ticks_per_s = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    for entry in std::fs::read_dir("/proc/self/task").ok()? {
        let dir = entry.ok()?.path();
        let comm = std::fs::read_to_string(dir.join("comm")).ok()?;
        if comm.trim() != name {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
        // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let utime: f64 = fields.get(11)?.parse().ok()?;
        let stime: f64 = fields.get(12)?.parse().ok()?;
        return Some((utime + stime) / ticks_per_s);
    }
    None
}

fn main() {
    let seconds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    // Second argument: rate per output (default 1000 Hz; 1 shows the idle polling cost).
    let rate_hz: u32 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let stop = Arc::new(AtomicBool::new(false));
    let received = Arc::new(AtomicU64::new(0));
    let mut sockets = Vec::new();
    let mut toml = String::new();
    for format in ["native", "forza-horizon", "codemasters", "outgauge"] {
        let mut addrs = Vec::new();
        for _ in 0..4 {
            let socket = UdpSocket::bind("127.0.0.1:0").expect("bind a loopback port");
            addrs.push(format!("\"{}\"", socket.local_addr().expect("bound")));
            socket.set_nonblocking(true).expect("non-blocking");
            sockets.push(socket);
        }
        toml += &format!(
            "[[telemetry]]\nformat = \"{format}\"\nrate_hz = {rate_hz}\ndestinations = [{}]\n\n",
            addrs.join(", ")
        );
    }
    let drain = {
        let stop = Arc::clone(&stop);
        let received = Arc::clone(&received);
        std::thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while !stop.load(Ordering::Relaxed) {
                for socket in &sockets {
                    while socket.recv(&mut buf).is_ok() {
                        received.fetch_add(1, Ordering::Relaxed);
                    }
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let config = rig_config::parse(&toml, "bench.toml").expect("valid bench config");
    let (mut stage, handle) =
        rigd::telemetry_out::start(&config.telemetry).expect("telemetry starts");

    let ticks = seconds * 1000;
    let cpu_before = process_cpu_s();
    let sender_before = thread_cpu_s("rigd-telemetry").unwrap_or(0.0);
    let start = Instant::now();
    let mut frame = Frame::default();
    for n in 0..ticks {
        let deadline = start + Duration::from_micros(n * 1000);
        if let Some(wait) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        frame.sequence = n as u32;
        frame.car.time_s = n as f64 / 1000.0;
        frame.car.speed_mps = 30.0;
        frame.car.drivetrain.engine_rpm = 6000.0;
        stage.on_tick(&frame);
    }
    let wall = start.elapsed().as_secs_f64();
    let sender_cpu = thread_cpu_s("rigd-telemetry").unwrap_or(f64::NAN) - sender_before;
    let process_cpu = process_cpu_s() - cpu_before;
    drop(stage);
    let stats = handle.stats();
    handle.join();
    std::thread::sleep(Duration::from_millis(50));
    stop.store(true, Ordering::Relaxed);
    drain.join().expect("drain thread");

    let snapshot = stats.snapshot();
    let sent: u64 = snapshot.destinations.iter().map(|d| d.sent).sum();
    let errors: u64 = snapshot.destinations.iter().map(|d| d.errors).sum();
    println!(
        "telemetry_cpu: 4 formats x 4 destinations x {rate_hz} Hz on loopback, {wall:.2} s wall"
    );
    println!(
        "  packets sent {sent} ({:.0}/s), errors {errors}, received {}, frames dropped {}",
        sent as f64 / wall,
        received.load(Ordering::Relaxed),
        snapshot.frames_dropped
    );
    println!(
        "  sender thread CPU: {:.2} % of one core ({:.2} us per packet)",
        100.0 * sender_cpu / wall,
        1e6 * sender_cpu / sent.max(1) as f64
    );
    println!(
        "  whole process CPU (sender + 1 kHz producer + receiver): {:.2} % of one core",
        100.0 * process_cpu / wall
    );
}
