//! The game bridge's motion path, measured (docs/BENCHMARKS.md, "game bridge"):
//! `cargo bench -p rigd --bench bridge [-- --seconds S] [--pm-qos-off]`.
//!
//! Everything between the game and the controller is rigd's, built as `rigd run` builds it
//! with `[source] kind = "game"`: the config loader, the game source
//! ([`rigd::game_source::start`]: its receiver thread, real loopback socket, Forza decoder and
//! ring), the output stages ([`build_output_stages`]: each platform's motion stage and the
//! motion writer thread) and [`rigd::runtime::rt_loop::RtLoop`] itself running in game mode,
//! at 1 kHz on absolute deadlines. The threads are set up as `rigd run` sets them up ([`ProcessSetup::prepare`], [`RtThread`]):
//! the RT thread pinned to its core at SCHED_FIFO, every other thread kept off that core, the
//! loop's PM QoS request held (`[loop] pm_qos`, by default `/dev/cpu_dma_latency` at 0 us;
//! `--pm-qos-off` runs without it). What the system refuses (no root) is printed and the run
//! goes on without it, as `rigd run` does. Two choices differ from the defaults: no memory
//! lock, and `spin_us = 0`, so the RT thread's CPU is its work and wake-ups, not the final
//! spin (`[loop] spin_us`, a choice of the loop's, not the bridge's).
//! A sender thread plays the game (Forza Sled datagrams at 360 Hz with 0-1 ms of jitter); the
//! writers write SMC3 frames to ptys, and a reader thread per pty decodes each frame as it
//! comes out of the master and stamps it (CLOCK_MONOTONIC).
//!
//! Latency: every 100 ms, after a 3 s warm-up, the game sends a *probe*: one datagram whose
//! roll rate is +-40 rad/s (the sign alternates) between datagrams with no motion. Through the
//! washout's rotation channel (its rate limit raised so the probe is not clipped) a probe moves
//! the seat by about 6 degrees of roll, some 270 counts of actuator 1; nothing else moves it
//! by more than a couple of counts in 10 ms (the washout's return to neutral is slow). A
//! probe's latency is from the moment just before the sender's `send_to` to the read of the
//! first serial frame whose actuator-1 value differs by more than [`REFLECTED_COUNTS`] from
//! the last frame read before the send. The latency runs raise the actuators' speed and
//! acceleration limits so the tracker passes the cue through: they measure rigd (socket,
//! decode, ring, resampler, cueing, tracker, writer, pty), not how fast a crank can start to
//! move. Measured with one platform at 100 Hz and at 1000 Hz output.
//!
//! CPU: each thread's user + system time over the measured window (`/proc/self/task`), with
//! two platforms at 1000 Hz output and their real limits: the receiver, the RT thread and the
//! motion writer thread (one for both platforms); the sender and the pty readers stand for
//! the game and the controllers and are not counted. The RT and writer threads' context
//! switches per second are printed too (their wake-ups, the cost that dominated). In this run
//! the pty readers read every [`CONTROLLER_BATCH`]: a real controller sits behind a UART or a
//! USB serial driver, and a write to it wakes no thread of this machine, while a pty reader
//! woken by every frame preempts the writer thread that wrote it (measured: about 1 100
//! involuntary switches a second on the writer, each charged to its CPU time). The frames
//! are the same; only when the bench reads them differs.

use std::net::UdpSocket;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rig_protocols::Frame;
use rigd::input::player_input::PlayerInput;
use rigd::rt::clock::{now_ns, sleep_until_ns};
use rigd::rt::setup::ProcessSetup;
use rigd::runtime::rt_loop::{Command, FrameSlots, LoopParts, LoopShared, LoopTiming};
use rigd::runtime::rt_thread::RtThread;
use rigd::runtime::session_links::SessionLinks;
use rigd::runtime::simulation::Simulation;
use rigd::runtime::stages::build_output_stages;

const INPUT_HZ: f64 = 360.0;
/// How often the CPU run's controllers read their pty (module header).
const CONTROLLER_BATCH: Duration = Duration::from_millis(10);
/// Time before the first probe (the source goes live, the platforms raise and settle), ns.
const WARM_UP_NS: u64 = 3_000_000_000;
/// A probe every this many datagrams (100 ms at 360 Hz).
const PROBE_EVERY: u64 = 36;
/// A probe's roll rate, rad/s.
const PROBE_ROLL_RATE_RADPS: f64 = 40.0;
/// A frame reflects a probe when actuator 1 moved by more than this from before the probe,
/// counts of 1023.
const REFLECTED_COUNTS: i32 = 10;
/// Bytes of one SMC3 frame: `[A hi lo][B hi lo][C hi lo]`.
const SMC3_FRAME: usize = 15;

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

/// A serial frame as read: when, and actuator 1's value.
#[derive(Clone, Copy)]
struct ReadFrame {
    at_ns: u64,
    actuator_1: i32,
}

/// Reads SMC3 frames from the pty master until `stop`, syncing on the frame's brackets.
/// A controller reading the frames off `master`: at once as each comes (`batch` zero: the
/// latency runs stamp every frame), or every `batch` (the CPU run, see the module header).
fn read_frames(
    master: OwnedFd,
    stop: Arc<AtomicBool>,
    out: Arc<Mutex<Vec<ReadFrame>>>,
    batch: Duration,
) {
    run_on_every_core();
    let fd = master.as_raw_fd();
    let mut pending: Vec<u8> = Vec::with_capacity(1 << 16);
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
        let at_ns = now_ns();
        pending.extend_from_slice(&buf[..n as usize]);
        let mut frames = out.lock().unwrap();
        let mut start = 0;
        while pending.len() - start >= SMC3_FRAME {
            let f = &pending[start..start + SMC3_FRAME];
            if f[0] == b'[' && f[1] == b'A' && f[4] == b']' && f[5] == b'[' && f[6] == b'B' {
                frames.push(ReadFrame {
                    at_ns,
                    actuator_1: i32::from(f[2]) << 8 | i32::from(f[3]),
                });
                start += SMC3_FRAME;
            } else {
                start += 1;
            }
        }
        pending.drain(..start);
        drop(frames);
        if !batch.is_zero() {
            std::thread::sleep(batch);
        }
    }
}

/// The game's Sled packet at game time `t` with roll rate `roll_rate` (rad/s), no other
/// motion.
fn sled_at(t: f64, roll_rate: f64, out: &mut [u8]) -> usize {
    let mut frame = Frame::default();
    frame.car.time_s = t;
    frame.car.specific_force_body_mps2 = [0.0, 0.0, 9.81];
    frame.car.angular_velocity_body_radps = [roll_rate, 0.0, 0.0];
    frame.car.velocity_body_mps = [30.0, 0.0, 0.0];
    frame.car.drivetrain.engine_rpm = 6_000.0;
    rig_protocols::Format::ForzaSled
        .encode(&frame, out)
        .expect("a Sled fits")
}

/// Per thread name (threads of one name summed): CPU time, ns, and context switches (its
/// wake-ups: voluntary ones are sleeps ended, involuntary ones preemptions).
type ThreadCpu = Vec<(String, u64, u64)>;

/// Context switches of one task, from its `status`.
fn switches(task: &std::path::Path) -> u64 {
    let status = std::fs::read_to_string(task.join("status")).unwrap_or_default();
    status
        .lines()
        .filter(|l| l.contains("ctxt_switches:"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum()
}

/// CPU time and context switches of every thread of this process by name.
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
        let switched = switches(&task.path());
        match out.iter_mut().find(|(n, _, _)| *n == name) {
            Some((_, total, wakes)) => {
                *total += ticks * tick_ns;
                *wakes += switched;
            }
            None => out.push((name, ticks * tick_ns, switched)),
        }
    }
    out
}

/// Lets the calling thread run on every online core. The bench's stand-ins for the game and
/// the controllers are not rigd's threads, so `rigd run`'s process set-up (everything but the
/// RT thread off the RT core) does not apply to them: a game on the same machine runs on any
/// core, and a controller is not on this machine at all.
fn run_on_every_core() {
    if let Err(refused) = rigd::rt::setup::run_on_every_core() {
        panic!("{} refused: {}", refused.what, refused.error);
    }
}

/// The run's config: the game source on `port`, a loop without the final spin (and without
/// its PM QoS request when `pm_qos_off`), and one platform per pty at `rate_hz`; `fast`
/// raises the actuator limits (latency runs).
fn config_text(port: u16, ptys: &[Pty], rate_hz: u32, fast: bool, pm_qos_off: bool) -> String {
    let (speed, accel) = if fast {
        (100_000.0, 100_000_000.0)
    } else {
        (120.0, 1200.0)
    };
    let mut text = format!(
        r#"
[source]
kind = "game"
format = "forza"
listen = ["127.0.0.1:{port}"]

[loop]
lock_memory = false
spin_us = 0
"#
    );
    if pm_qos_off {
        text += "pm_qos = \"off\"\n";
    }
    for (i, pty) in ptys.iter().enumerate() {
        text += &format!(
            r#"
[[motion.platforms]]
name = "seat{i}"

[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25]]
crank_radius_m = 0.10

[motion.platforms.actuators]
range_deg = 60.0
max_speed_deg_per_s = {speed:.1}
max_accel_deg_per_s2 = {accel:.1}

[motion.platforms.cueing]
rate_limit_deg_per_s = 6000.0
roll_limit_deg = 30.0

[[motion.platforms.outputs]]
preset = "smc3"
serial_port = "{path}"
rate_hz = {rate_hz}.0
post_open_delay_ms = 0
"#,
            path = pty.path
        );
    }
    text
}

/// Shares of one core over the measured window.
struct CpuShares {
    /// The UDP receiver thread (recv, timestamp, decode, ring).
    receiver: f64,
    /// The RT thread: RtLoop's game mode (drain, frame builder, every motion stage) and its
    /// wake-ups.
    rt: f64,
    /// The motion writer thread (every platform's serial port).
    writers: f64,
    /// Context switches per second of the RT thread.
    rt_wakes_hz: f64,
    /// Context switches per second of the writer thread.
    writer_wakes_hz: f64,
}

struct Report {
    latencies_ns: Vec<u64>,
    probes: usize,
    shares: CpuShares,
    frames: usize,
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1e6
}

/// One probe's latency against platform 0's frames: from `sent_ns` to the first frame that
/// moved more than [`REFLECTED_COUNTS`] from the last one before it (`None`: no such frame
/// before `until_ns`).
fn probe_latency(frames: &[ReadFrame], sent_ns: u64, until_ns: u64) -> Option<u64> {
    let after = frames.partition_point(|f| f.at_ns < sent_ns);
    let before = frames[..after].last()?.actuator_1;
    frames[after..]
        .iter()
        .take_while(|f| f.at_ns < until_ns)
        .find(|f| (f.actuator_1 - before).abs() > REFLECTED_COUNTS)
        .map(|f| f.at_ns - sent_ns)
}

/// One run: `platforms` platforms at `output_hz` (`fast` actuator limits or the real ones),
/// for `seconds` after the warm-up, the controllers reading every `controller_batch` (zero:
/// each frame as it comes).
fn run(
    platforms: usize,
    output_hz: u32,
    fast: bool,
    seconds: f64,
    controller_batch: Duration,
    pm_qos_off: bool,
) -> Report {
    let ptys: Vec<Pty> = (0..platforms).map(|_| open_pty()).collect();
    let port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let path = std::env::temp_dir().join(format!("rigd-bench-bridge-{}.toml", std::process::id()));
    std::fs::write(&path, config_text(port, &ptys, output_hz, fast, pm_qos_off)).unwrap();
    let config =
        rigd::runtime::config_load::load_config(Some(&path)).unwrap_or_else(|e| panic!("{e:#}"));
    let _ = std::fs::remove_file(&path);

    // `rigd run`'s process set-up: this thread and every thread spawned from now on stay off
    // the RT core (the RT thread pins itself there and asks for SCHED_FIFO below).
    let process = ProcessSetup::prepare(&config.realtime);
    let stop = Arc::new(AtomicBool::new(false));
    let frame_logs: Vec<Arc<Mutex<Vec<ReadFrame>>>> =
        (0..platforms).map(|_| Arc::default()).collect();
    let readers: Vec<_> = ptys
        .into_iter()
        .zip(&frame_logs)
        .map(|(pty, out)| {
            let (stop, out) = (stop.clone(), out.clone());
            std::thread::Builder::new()
                .name("bench-pty".into())
                .spawn(move || read_frames(pty.master, stop, out, controller_batch))
                .unwrap()
        })
        .collect();

    // rigd's game-mode session, built as `rigd run` builds it.
    let links = SessionLinks::standalone();
    let stages = build_output_stages(&config, &links).unwrap();
    let started = rigd::game_source::start(&config.source, config.realtime.period_ns()).unwrap();
    let (_input_writer, input) = rigd::rt::handoff::latest_value(PlayerInput::DISCONNECTED);
    let (slots, _frame_readers) = FrameSlots::new(1);
    let parts = LoopParts {
        sim: Simulation::build(&config.sim, config.realtime.rate_hz).unwrap(),
        stages,
        input,
        slots,
        ffb: links.ffb.clone(),
        game: Some(started.source),
    };
    let shared = Arc::new(LoopShared::default());
    let (rt, refused) = RtThread::start(
        parts,
        LoopTiming::from_config(&config.realtime),
        shared.clone(),
        &config.realtime,
    )
    .unwrap();
    for refusal in process.refused.iter().chain(&refused) {
        eprintln!(
            "not granted (the run goes on without it): {} ({})",
            refusal.what, refusal.error
        );
    }

    // The game: probes after the warm-up, their send times logged.
    let start_ns = now_ns();
    let end_ns = start_ns + WARM_UP_NS + (seconds * 1e9) as u64;
    let sender = {
        let stop = stop.clone();
        std::thread::Builder::new()
            .name("bench-game".into())
            .spawn(move || {
                run_on_every_core();
                let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
                let period = 1e9 / INPUT_HZ;
                let mut packet = [0u8; 512];
                let mut probes: Vec<u64> = Vec::with_capacity(4096);
                let mut seq = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let due = start_ns + (seq as f64 * period) as u64;
                    // 0-1 ms of jitter, deterministic.
                    sleep_until_ns(due + (seq * 7_919 % 11) * 100_000);
                    let probe = due >= start_ns + WARM_UP_NS && seq % PROBE_EVERY == 0;
                    let roll_rate = match (probe, (seq / PROBE_EVERY) % 2) {
                        (false, _) => 0.0,
                        (true, 0) => PROBE_ROLL_RATE_RADPS,
                        (true, _) => -PROBE_ROLL_RATE_RADPS,
                    };
                    let len = sled_at(seq as f64 / INPUT_HZ, roll_rate, &mut packet);
                    let sent = now_ns();
                    let _ = socket.send_to(&packet[..len], address);
                    if probe {
                        probes.push(sent);
                    }
                    seq += 1;
                }
                probes
            })
            .unwrap()
    };

    sleep_until_ns(start_ns + WARM_UP_NS);
    let cpu_start = cpu_by_thread();
    let wall_start = now_ns();
    sleep_until_ns(end_ns);
    let cpu_end = cpu_by_thread();
    let wall = (now_ns() - wall_start) as f64;
    let at = |snapshot: &[(String, u64, u64)], name: &str| {
        snapshot
            .iter()
            .find(|(n, _, _)| n == name)
            .map_or((0, 0), |(_, ns, wakes)| (*ns, *wakes))
    };
    let share_of =
        |name: &str| at(&cpu_end, name).0.saturating_sub(at(&cpu_start, name).0) as f64 / wall;
    let wakes_of = |name: &str| {
        at(&cpu_end, name).1.saturating_sub(at(&cpu_start, name).1) as f64 / (wall / 1e9)
    };
    let shares = CpuShares {
        receiver: share_of("rigd-game-rx"),
        rt: share_of("rigd-rt"),
        writers: share_of("rigd-motion"),
        rt_wakes_hz: wakes_of("rigd-rt"),
        writer_wakes_hz: wakes_of("rigd-motion"),
    };

    shared.request(Command::Exit);
    let exit = rt.join().unwrap();
    assert!(!exit.panicked, "the loop panicked");
    // Dropping the stages parks and closes the writers; dropping the receiver its socket.
    drop(exit);
    drop(started.receiver);
    stop.store(true, Ordering::Relaxed);
    let probes = sender.join().unwrap();
    for reader in readers {
        reader.join().unwrap();
    }

    let frames = frame_logs[0].lock().unwrap().clone();
    let mut latencies_ns: Vec<u64> = probes
        .iter()
        .enumerate()
        .filter(|(_, &sent)| sent < end_ns)
        .filter_map(|(i, &sent)| {
            let until = probes.get(i + 1).copied().unwrap_or(end_ns).min(end_ns);
            probe_latency(&frames, sent, until)
        })
        .collect();
    latencies_ns.sort_unstable();
    Report {
        latencies_ns,
        probes: probes.iter().filter(|&&sent| sent < end_ns).count(),
        shares,
        frames: frames.len(),
    }
}

fn main() {
    let mut seconds = 10.0;
    let mut pm_qos_off = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--seconds" {
            seconds = args
                .next()
                .and_then(|s| s.parse().ok())
                .expect("--seconds S");
        } else if arg == "--pm-qos-off" {
            pm_qos_off = true;
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "game bridge bench (RtLoop game mode, 1 kHz, spin_us = 0, pm_qos {}): {INPUT_HZ} Hz \
         input with 0-1 ms jitter, {seconds} s per run after {} s of warm-up; load average at \
         start: {}",
        if pm_qos_off { "off" } else { "as rigd run" },
        WARM_UP_NS / 1_000_000_000,
        load.trim()
    );
    for output_hz in [100u32, 1000] {
        let r = run(1, output_hz, true, seconds, Duration::ZERO, pm_qos_off);
        let period_ms = 1000.0 / f64::from(output_hz);
        let p99 = percentile(&r.latencies_ns, 0.99);
        println!(
            "latency, 1 platform at {output_hz} Hz: p50 {:.3} ms, p99 {:.3} ms, min {:.3} ms, max {:.3} ms; {} of {} probes reflected, {} frames (goal p99 <= {:.1} ms: {})",
            percentile(&r.latencies_ns, 0.5),
            p99,
            percentile(&r.latencies_ns, 0.0),
            percentile(&r.latencies_ns, 1.0),
            r.latencies_ns.len(),
            r.probes,
            r.frames,
            period_ms + 1.0,
            if p99 <= period_ms + 1.0 { "met" } else { "missed" },
        );
    }
    let r = run(2, 1000, false, seconds, CONTROLLER_BATCH, pm_qos_off);
    let total = r.shares.receiver + r.shares.rt + r.shares.writers;
    println!(
        "CPU, 2 platforms at 1000 Hz: {:.2} % of one core (goal < 5 %: {}): receiver {:.2} %, RT thread {:.2} %, the writer thread (both serial ports) {:.2} %; context switches per second: RT thread {:.0}, writer thread {:.0}",
        total * 100.0,
        if total < 0.05 { "met" } else { "missed" },
        r.shares.receiver * 100.0,
        r.shares.rt * 100.0,
        r.shares.writers * 100.0,
        r.shares.rt_wakes_hz,
        r.shares.writer_wakes_hz,
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at the end: {}", load.trim());
}
