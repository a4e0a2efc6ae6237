//! The game bridge's motion path, measured (docs/BENCHMARKS.md, "game bridge"):
//! `cargo bench -p rigd --bench bridge [-- --seconds S]`.
//!
//! A sender thread sends Forza Sled datagrams over loopback UDP (game clock, a moving
//! acceleration and rotation, at 360 Hz with 0-1 ms of jitter); rigd's game receiver
//! ([`rigd::game_source::receiver`]) timestamps each on arrival (CLOCK_MONOTONIC), decodes it
//! and hands it to the tick thread through its wait-free ring; the tick thread (the bench's
//! own loop standing in for `RtLoop`'s game mode) runs at 1 kHz on absolute deadlines: it drains
//! the ring into [`GameFrames`], renders the tick's frame and runs every platform's real
//! [`MotionStage`] (washout, kinematics, safety, tracker), whose writer threads write SMC3
//! frames to a pty; a reader thread timestamps each frame as it comes out of the pty master.
//!
//! Latency of a datagram: from its arrival to the pty read of the first serial frame whose
//! command was made on or after the tick that took the datagram in (the writer sends one
//! frame per command, so the n-th command is the n-th frame; the run checks the counts
//! agree). Measured with one platform at 100 Hz and at 1000 Hz output.
//!
//! CPU: each thread's user + system time over the window (`/proc/self/task`), with two
//! platforms at 1000 Hz output; the sender and the pty readers stand for the game and the
//! controllers and are not counted.

use std::net::UdpSocket;
use std::os::fd::{FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rig_physics::CarTelemetry;
use rig_protocols::game::GameFormat;
use rig_protocols::Frame;
use rigd::game_source::frames::{GameFrameSettings, GameFrames};
use rigd::motion::panic_park::PanicPark;
use rigd::motion::safety::SafetyState;
use rigd::motion::stage::MotionStage;
use rigd::rt::clock::{now_ns, sleep_until_ns};
use rigd::rt::stage::{RtStage, StopReason};

const TICK_HZ: u64 = 1_000;
const TICK_NS: u64 = 1_000_000_000 / TICK_HZ;
const INPUT_HZ: f64 = 360.0;
/// Ticks after the platforms are Active before latencies count (the raise and the washout
/// settling).
const WARM_UP_TICKS: u64 = 1_000;

/// A pty pair: the master stays here, the platform's writer opens the slave path.
struct Pty {
    master: OwnedFd,
    path: String,
}

fn open_pty() -> Pty {
    // SAFETY: plain libc pty calls on a descriptor this function owns; ptsname's buffer is
    // copied at once; the slave is set raw through a descriptor closed right after.
    unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(fd >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        let path = std::ffi::CStr::from_ptr(libc::ptsname(fd))
            .to_string_lossy()
            .into_owned();
        let c_path = std::ffi::CString::new(path.clone()).unwrap();
        let slave = libc::open(c_path.as_ptr(), libc::O_RDWR | libc::O_NOCTTY);
        let mut t: libc::termios = std::mem::zeroed();
        libc::tcgetattr(slave, &mut t);
        libc::cfmakeraw(&mut t);
        libc::tcsetattr(slave, libc::TCSANOW, &t);
        libc::close(slave);
        Pty {
            master: OwnedFd::from_raw_fd(fd),
            path,
        }
    }
}

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-parameter.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Reads SMC3 frames (15 bytes) from the pty master until `stop`; the read time of each
/// frame, ns.
fn read_frames(master: OwnedFd, stop: Arc<AtomicBool>, out: Arc<Mutex<Vec<u64>>>) {
    use std::os::fd::AsRawFd;
    let fd = master.as_raw_fd();
    let mut buffered = 0usize;
    let mut buf = [0u8; 4096];
    while !stop.load(Ordering::Relaxed) {
        let mut poll_fd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        if unsafe { libc::poll(&mut poll_fd, 1, 50) } <= 0 {
            continue;
        }
        // SAFETY: reading into a buffer this function owns.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            std::thread::sleep(Duration::from_millis(1));
            continue;
        }
        let at = now_ns();
        buffered += n as usize;
        let mut frames = out.lock().unwrap();
        while buffered >= 15 {
            buffered -= 15;
            frames.push(at);
        }
    }
}

/// The game's Sled packet at game time `t`: a moving acceleration and rotation.
fn sled_at(t: f64, out: &mut [u8]) -> usize {
    let w = 2.0 * std::f64::consts::PI * 0.7;
    let mut frame = Frame::default();
    frame.car.time_s = t;
    frame.car.acceleration_body_mps2 = [3.0 * (w * t).sin(), 2.0 * (1.3 * w * t).cos(), 0.0];
    frame.car.angular_velocity_body_radps = [
        0.2 * (w * t).sin(),
        0.1 * (w * t).cos(),
        0.3 * (0.5 * w * t).sin(),
    ];
    frame.car.velocity_body_mps = [30.0, 0.0, 0.0];
    frame.car.drivetrain.engine_rpm = 6_000.0;
    rig_protocols::Format::ForzaSled
        .encode(&frame, out)
        .expect("a Sled fits")
}

/// CPU time per thread name, ns (threads of one name summed).
type ThreadCpu = Vec<(String, u64)>;

/// CPU time of every thread of this process by name.
fn cpu_by_thread() -> ThreadCpu {
    // SAFETY: sysconf has no preconditions.
    let tick_ns = 1_000_000_000 / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as u64;
    let mut out: ThreadCpu = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_string();
        let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
        // utime and stime are fields 14 and 15 of stat, 12 and 13 after the name.
        let ticks: u64 =
            fields[11].parse::<u64>().unwrap_or(0) + fields[12].parse::<u64>().unwrap_or(0);
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, total)) => *total += ticks * tick_ns,
            None => out.push((name, ticks * tick_ns)),
        }
    }
    out
}

fn platform_config(pty: &str, rate_hz: u32, name: &str) -> String {
    format!(
        r#"
[[motion.platforms]]
name = "{name}"

[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25]]
crank_radius_m = 0.10

[motion.platforms.actuators]
range_deg = 60.0
max_speed_deg_per_s = 120.0
max_accel_deg_per_s2 = 1200.0

[[motion.platforms.outputs]]
preset = "smc3"
serial_port = "{pty}"
rate_hz = {rate_hz}.0
post_open_delay_ms = 0
"#
    )
}

/// Shares of one core, over the measured window.
struct CpuShares {
    /// The UDP receiver thread (recv, timestamp, decode, ring).
    receiver: f64,
    /// The frame builder on the tick thread (push, frame_at).
    builder: f64,
    /// The whole tick thread (its sleeps' wake-ups, the builder, every motion stage).
    tick: f64,
    /// The motion writer threads (serial ports).
    writers: f64,
}

struct Report {
    latencies_ns: Vec<u64>,
    cpu_share: f64,
    shares: CpuShares,
    frames: usize,
    commands: usize,
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1e6
}

/// One run: `platforms` platforms at `output_hz`, for `seconds` after the warm-up.
fn run(platforms: usize, output_hz: u32, seconds: f64) -> Report {
    let ptys: Vec<Pty> = (0..platforms).map(|_| open_pty()).collect();
    let text: String = ptys
        .iter()
        .enumerate()
        .map(|(i, pty)| platform_config(&pty.path, output_hz, &format!("seat{i}")))
        .collect();
    let path = std::env::temp_dir().join(format!("rigd-bench-bridge-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let config =
        rigd::runtime::config_load::load_config(Some(&path)).unwrap_or_else(|e| panic!("{e:#}"));
    let _ = std::fs::remove_file(&path);
    let panic_park = PanicPark::new();
    let mut stages: Vec<MotionStage> = config
        .motion
        .platforms
        .iter()
        .map(|p| rigd::motion::platform_stage(p, TICK_HZ as f64, &panic_park).unwrap())
        .collect();
    let every_ticks = (TICK_HZ / u64::from(output_hz)).max(1);

    let stop = Arc::new(AtomicBool::new(false));
    let frame_times: Vec<Arc<Mutex<Vec<u64>>>> = (0..platforms).map(|_| Arc::default()).collect();
    let readers: Vec<_> = ptys
        .into_iter()
        .zip(&frame_times)
        .map(|(pty, out)| {
            let (stop, out) = (stop.clone(), out.clone());
            std::thread::Builder::new()
                .name("bench-pty".into())
                .spawn(move || read_frames(pty.master, stop, out))
                .unwrap()
        })
        .collect();

    // rigd's receiver, on a port found free just before.
    let port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let (receiver, mut ring_out, _feed) =
        rigd::game_source::receiver::start(&[address], Some(GameFormat::Forza), None, None)
            .unwrap();
    // The game.
    let sender = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("bench-game".into())
            .spawn(move || {
                let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
                let start = now_ns();
                let period = 1e9 / INPUT_HZ;
                let mut packet = [0u8; 512];
                let mut seq = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let due = start + (seq as f64 * period) as u64;
                    // 0-1 ms of jitter, deterministic.
                    sleep_until_ns(due + (seq * 7_919 % 11) * 100_000);
                    let len = sled_at(seq as f64 / INPUT_HZ, &mut packet);
                    let _ = socket.send_to(&packet[..len], address);
                    seq += 1;
                }
            })
            .unwrap()
    };

    let settings = GameFrameSettings {
        lost_after_ns: 500_000_000,
        jump_m: 5.0,
        tick_period_ns: TICK_NS,
    };
    let mut frames = GameFrames::new(&settings);
    let mut frame = Frame::default();
    let mut car = CarTelemetry::default();
    // Ticks on which platform 0's stage published, and the commands it made (one every
    // `every_ticks` publishing ticks, as the stage counts down).
    let mut publish_calls = 0u64;
    let mut commands = 0usize;
    // Datagrams taken in: (arrival, the number of commands made before their tick).
    let mut taken: Vec<(u64, usize)> = Vec::new();
    let mut active_ticks = 0u64;
    let measured_ticks = (seconds * TICK_HZ as f64) as u64;
    let mut cpu_start: Option<(u64, ThreadCpu, u64)> = None;
    // Time spent in the frame builder (push and frame_at) during the window, ns.
    let mut builder_ns = 0u64;
    let mut deadline = now_ns() + TICK_NS;
    let give_up = now_ns() + 60_000_000_000;
    while active_ticks < WARM_UP_TICKS + measured_ticks {
        sleep_until_ns(deadline);
        deadline += TICK_NS;
        let now = now_ns();
        assert!(now < give_up, "the platforms never came up");
        let measuring = active_ticks >= WARM_UP_TICKS;
        let builder_start = now_ns();
        while let Ok((arrival, sample)) = ring_out.pop() {
            frames.push(arrival, &sample);
            if measuring {
                taken.push((arrival, commands));
            }
        }
        frames.frame_at(now, &mut car);
        if measuring {
            builder_ns += now_ns() - builder_start;
        }
        frame.car = car;
        frame.sequence = frame.sequence.wrapping_add(1);
        for stage in &mut stages {
            stage.on_tick(&frame);
        }
        if stages[0].state() != SafetyState::Connecting {
            publish_calls += 1;
            if publish_calls % every_ticks == 0 {
                commands += 1;
            }
        }
        if stages.iter().all(|s| s.state() == SafetyState::Active) || active_ticks > 0 {
            active_ticks += 1;
        }
        if active_ticks == WARM_UP_TICKS {
            cpu_start = Some((now_ns(), cpu_by_thread(), thread_cpu_ns()));
        }
    }
    let (wall_start, cpu_start, tick_cpu_start) = cpu_start.unwrap();
    let wall = (now_ns() - wall_start) as f64;
    let cpu_end = cpu_by_thread();
    let tick = (thread_cpu_ns() - tick_cpu_start) as f64 / wall;
    let share_of = |name: &str| {
        let at = |snapshot: &[(String, u64)]| {
            snapshot
                .iter()
                .find(|(n, _)| n == name)
                .map_or(0, |(_, ns)| *ns)
        };
        at(&cpu_end).saturating_sub(at(&cpu_start)) as f64 / wall
    };
    let shares = CpuShares {
        receiver: share_of("rigd-game-rx"),
        builder: builder_ns as f64 / wall,
        tick,
        writers: share_of("motion-0"),
    };
    let cpu_share = shares.receiver + shares.tick + shares.writers;
    for stage in &mut stages {
        stage.safe_stop(StopReason::Exit);
    }
    drop(stages);
    drop(receiver);
    stop.store(true, Ordering::Relaxed);
    sender.join().unwrap();
    for reader in readers {
        reader.join().unwrap();
    }

    let frame_times = frame_times[0].lock().unwrap().clone();
    let mut latencies_ns = Vec::new();
    for (arrival, commands_before) in taken {
        // The first command made on or after the tick that took the datagram in is command
        // number `commands_before`; its frame is frame number `commands_before`.
        if let Some(&read_at) = frame_times.get(commands_before) {
            latencies_ns.push(read_at.saturating_sub(arrival));
        }
    }
    latencies_ns.sort_unstable();
    Report {
        latencies_ns,
        cpu_share,
        shares,
        frames: frame_times.len(),
        commands,
    }
}

fn main() {
    let mut seconds = 10.0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--seconds" {
            seconds = args
                .next()
                .and_then(|s| s.parse().ok())
                .expect("--seconds S");
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("game bridge bench: {INPUT_HZ} Hz input with 0-1 ms jitter, {TICK_HZ} Hz ticks, {seconds} s per run; load average at start: {}", load.trim());
    for output_hz in [100u32, 1000] {
        let r = run(1, output_hz, seconds);
        let period_ms = 1000.0 / f64::from(output_hz);
        let p99 = percentile(&r.latencies_ns, 0.99);
        println!(
            "latency, 1 platform at {output_hz} Hz: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms over {} datagrams (goal p99 <= {:.1} ms: {}); frames {} for {} commands",
            percentile(&r.latencies_ns, 0.5),
            p99,
            percentile(&r.latencies_ns, 1.0),
            r.latencies_ns.len(),
            period_ms + 1.0,
            if p99 <= period_ms + 1.0 { "met" } else { "missed" },
            r.frames,
            r.commands,
        );
    }
    let r = run(2, 1000, seconds);
    println!(
        "CPU, 2 platforms at 1000 Hz: {:.2} % of one core (goal < 5 %: {}): receiver {:.2} %, tick thread {:.2} % (of which the frame builder {:.3} %), the two serial writer threads {:.2} %",
        r.cpu_share * 100.0,
        if r.cpu_share < 0.05 { "met" } else { "missed" },
        r.shares.receiver * 100.0,
        r.shares.tick * 100.0,
        r.shares.builder * 100.0,
        r.shares.writers * 100.0,
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at the end: {}", load.trim());
}
