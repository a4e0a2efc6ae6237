//! The RT tick never allocates: 10 000 ticks of the real loop (world with robot cars, every
//! output stage the config enables, input hand-off, frame slots, health windows rolling over,
//! catch-up, a fault and an e-stop with their safe stops and resumes) under a counting global
//! allocator armed on the ticking thread only; and the same for parking, idling and waking up
//! (nobody drives).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use rig_physics::Controls;
use rigd::input::player_input::PlayerInput;
use rigd::rt::clock::now_ns;
use rigd::runtime::rt_loop::{FrameSlots, LoopMode, LoopParts, LoopShared, LoopTiming, RtLoop};
use rigd::runtime::session_links::SessionLinks;
use rigd::runtime::simulation::Simulation;
use rigd::runtime::stages::build_output_stages;

mod counting_alloc;

const TICKS: u64 = 10_000;

/// A pseudo-terminal pair: the motion platform's serial port (the test keeps the master open so
/// the writer thread's port stays connected).
struct Pty {
    _master: std::fs::File,
    device: String,
}

impl Pty {
    fn open() -> Pty {
        use std::os::fd::FromRawFd;
        // SAFETY: plain libc pty calls on a descriptor this function owns; ptsname's static
        // buffer is copied out immediately.
        unsafe {
            let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
            assert!(fd >= 0, "posix_openpt");
            assert_eq!(libc::grantpt(fd), 0);
            assert_eq!(libc::unlockpt(fd), 0);
            let name = std::ffi::CStr::from_ptr(libc::ptsname(fd))
                .to_string_lossy()
                .into_owned();
            Pty {
                _master: std::fs::File::from_raw_fd(fd),
                device: name,
            }
        }
    }
}

#[test]
fn ten_thousand_ticks_with_every_output_allocate_nothing() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/all-outputs.toml"
    );
    let pty = Pty::open();
    let text = format!(
        "{}serial_port = \"{}\"\n",
        std::fs::read_to_string(fixture).unwrap(),
        pty.device
    );
    let path = std::env::temp_dir().join(format!("rigd-no-alloc-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let config =
        rigd::runtime::config_load::load_config(Some(&path)).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(&path);
    assert_eq!(config.telemetry.len(), 6);
    assert_eq!(config.motion.platforms.len(), 1);
    let sim = Simulation::build(&config.sim, config.realtime.rate_hz).unwrap();
    let (mut input_writer, input) = rigd::rt::handoff::latest_value(PlayerInput::DISCONNECTED);
    let (slots, mut readers) = FrameSlots::new(2);
    let links = SessionLinks::standalone();
    let stages = build_output_stages(&config, &links).unwrap();
    assert!(stages.len() >= 2, "telemetry and motion stages are built");
    let parts = LoopParts {
        sim,
        stages,
        input,
        slots,
        ffb: links.ffb,
        game: None,
    };
    let shared = Arc::new(LoopShared::default());
    let timing = LoopTiming::from_config(&config.realtime);
    let mut rt_loop = RtLoop::new(parts, timing, shared.clone());
    let driving = PlayerInput {
        connected: true,
        controls: Controls {
            throttle: 0.6,
            steering: 0.1,
            ..Controls::SAFE_STOP
        },
        reset_requested: false,
        estop: false,
        ..PlayerInput::DISCONNECTED
    };

    let start = now_ns();
    counting_alloc::arm();
    for tick in 0..TICKS {
        // Input changes hands as the input threads would publish it (driving, pause, e-stop,
        // reset).
        let input = match tick {
            // Paused from the first press to the second.
            2_400..=2_409 | 2_700..=2_709 => PlayerInput {
                pause_requested: true,
                ..driving
            },
            2_000..=2_999 => driving,
            3_000..=3_499 => PlayerInput {
                estop: true,
                ..driving
            },
            4_000..=4_009 => PlayerInput {
                reset_requested: true,
                ..driving
            },
            _ => PlayerInput::DISCONNECTED,
        };
        input_writer.write(input);
        // A 30 ms hiccup at tick 5000 (catch-up, dropped time, fault); some slow ticks.
        let missed = match tick {
            5_000 => 30,
            t if t % 997 == 0 => 1,
            _ => 0,
        };
        let wake = now_ns();
        rt_loop.tick(wake, missed * 1_000_000 + 40_000, missed);
        // Let wall time pass so the one-second health window rolls over a few times.
        std::thread::sleep(std::time::Duration::from_micros(150));
    }
    counting_alloc::disarm();
    let elapsed_s = (now_ns() - start) as f64 / 1e9;

    assert_eq!(counting_alloc::allocations(), 0, "the RT tick allocated");
    assert!(
        elapsed_s > 1.5,
        "health windows must roll over during the run ({elapsed_s} s)"
    );
    assert_eq!(shared.heartbeat.load(Ordering::Relaxed), TICKS);
    let last = readers[0].read();
    // Catch-up steps counted, less the 300 paused ticks (2 400 ..= 2 699) that step nothing.
    assert!(
        last.health.ticks > TICKS - 300,
        "catch-up steps counted: {}",
        last.health.ticks
    );
    assert!(last.health.dropped_time_ms >= 25.0, "{:?}", last.health);
    // Both timing channels are measured by the loop itself (the step alone, and the tick).
    assert!(last.health.physics_step_p99_us > 0.0, "{:?}", last.health);
    assert!(last.health.tick_work_p99_us > 0.0, "{:?}", last.health);
    assert_eq!(last.sequence as u64, TICKS - 1);
    assert_eq!(readers[1].read().sequence, last.sequence);
}

/// Idling allocates nothing either: with every output of the fixture and the default
/// `when_nobody_drives = "idle"`, the loop parks the car, idles (the stages safe-stopped,
/// wake-ups an idle period apart), wakes up for a connected device (full tick, resume) and
/// goes back to idle, on a virtual clock.
#[test]
fn parking_idling_and_waking_up_allocate_nothing() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/all-outputs.toml"
    );
    let pty = Pty::open();
    let text = format!(
        "{}serial_port = \"{}\"\n",
        std::fs::read_to_string(fixture).unwrap(),
        pty.device
    );
    let path = std::env::temp_dir().join(format!("rigd-no-alloc-idle-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let mut config =
        rigd::runtime::config_load::load_config(Some(&path)).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(&path);
    config.realtime.when_nobody_drives = rig_config::realtime::WhenNobodyDrives::Idle;
    let sim = Simulation::build(&config.sim, config.realtime.rate_hz).unwrap();
    let (mut input_writer, input) = rigd::rt::handoff::latest_value(PlayerInput::DISCONNECTED);
    let (slots, _readers) = FrameSlots::new(2);
    let links = SessionLinks::standalone();
    let stages = build_output_stages(&config, &links).unwrap();
    let parts = LoopParts {
        sim,
        stages,
        input,
        slots,
        ffb: links.ffb,
        game: None,
    };
    let shared = Arc::new(LoopShared::default());
    let timing = LoopTiming::from_config(&config.realtime);
    let period = timing.period_ns;
    let mut rt_loop = RtLoop::new(parts, timing, shared.clone());
    let driving = PlayerInput {
        connected: true,
        controls: Controls::SAFE_STOP,
        ..PlayerInput::DISCONNECTED
    };

    let mut deadline = now_ns() + period;
    let mut idle_wakes = 0;
    counting_alloc::arm();
    for step in 0..3_000u64 {
        input_writer.write(match step {
            1_000..=1_499 => driving,
            _ => PlayerInput::DISCONNECTED,
        });
        idle_wakes += u64::from(rt_loop.mode() == LoopMode::Idle);
        deadline = rt_loop.wake(deadline, deadline + 20_000);
    }
    counting_alloc::disarm();

    assert_eq!(
        counting_alloc::allocations(),
        0,
        "parking or idling allocated"
    );
    assert!(
        idle_wakes > 2_000,
        "the loop idled: {idle_wakes} idle wake-ups"
    );
    assert_eq!(rt_loop.mode(), LoopMode::Idle);
    assert_eq!(shared.mode(), LoopMode::Idle);
}
