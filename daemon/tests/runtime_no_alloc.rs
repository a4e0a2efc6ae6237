//! The RT tick never allocates: 10 000 ticks of the real loop (world with robot cars, every
//! output stage the config enables, input hand-off, frame slots, health windows rolling over,
//! catch-up, a fault and an e-stop with their safe stops and resumes) under a counting global
//! allocator armed on the ticking thread only; the same for parking, idling and waking up
//! (nobody drives); and the game source's mode (`[source] kind = "game"`) with real Forza
//! datagrams arriving over loopback, a pause, a loss and a jump. The three build their loop
//! with one builder ([`LoopUnderTest::build`]).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use rig_config::Config;
use rig_physics::Controls;
use rig_protocols::Frame;
use rigd::game_source::{GameReceiver, SourceFeed};
use rigd::input::player_input::PlayerInput;
use rigd::rt::clock::{now_ns, sleep_until_ns};
use rigd::rt::handoff::{LatestReader, LatestWriter};
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

/// A loop over the fixture's every output (its motion platform on a pty), built as
/// `rigd run` builds it, before any counting starts.
struct LoopUnderTest {
    rt_loop: RtLoop,
    input_writer: LatestWriter<PlayerInput>,
    readers: Vec<LatestReader<Frame>>,
    shared: Arc<LoopShared>,
    period_ns: u64,
    config: Config,
    /// The game source's receiver and counters (game mode only; dropping the receiver
    /// closes its socket).
    game: Option<(GameReceiver, Arc<SourceFeed>)>,
    _pty: Pty,
}

impl LoopUnderTest {
    /// The fixture with `extra` appended (TOML), `tweak` applied to the loaded config.
    fn build(name: &str, extra: &str, tweak: impl FnOnce(&mut Config)) -> LoopUnderTest {
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/all-outputs.toml"
        );
        let pty = Pty::open();
        let text = format!(
            "{}serial_port = \"{}\"\n{extra}",
            std::fs::read_to_string(fixture).unwrap(),
            pty.device
        );
        let path = std::env::temp_dir().join(format!("rigd-{name}-{}.toml", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let mut config =
            rigd::runtime::config_load::load_config(Some(&path)).unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::remove_file(&path);
        tweak(&mut config);
        let sim = Simulation::build(&config.sim, config.realtime.rate_hz).unwrap();
        let (input_writer, input) = rigd::rt::handoff::latest_value(PlayerInput::DISCONNECTED);
        let (slots, readers) = FrameSlots::new(2);
        let links = SessionLinks::standalone();
        let stages = build_output_stages(&config, &links).unwrap();
        assert!(stages.len() >= 2, "telemetry and motion stages are built");
        let (source, game) = if config.source.is_game() {
            let started =
                rigd::game_source::start(&config.source, config.realtime.period_ns()).unwrap();
            (Some(started.source), Some((started.receiver, started.feed)))
        } else {
            (None, None)
        };
        let parts = LoopParts {
            sim,
            stages,
            input,
            slots,
            ffb: links.ffb,
            game: source,
        };
        let shared = Arc::new(LoopShared::default());
        let timing = LoopTiming::from_config(&config.realtime);
        LoopUnderTest {
            rt_loop: RtLoop::new(parts, timing, shared.clone()),
            input_writer,
            readers,
            shared,
            period_ns: timing.period_ns,
            config,
            game,
            _pty: pty,
        }
    }
}

#[test]
fn ten_thousand_ticks_with_every_output_allocate_nothing() {
    let LoopUnderTest {
        mut rt_loop,
        mut input_writer,
        mut readers,
        shared,
        config,
        _pty,
        ..
    } = LoopUnderTest::build("no-alloc", "", |_| {});
    assert_eq!(config.telemetry.len(), 6);
    assert_eq!(config.motion.platforms.len(), 1);
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
    let LoopUnderTest {
        mut rt_loop,
        mut input_writer,
        shared,
        period_ns: period,
        _pty,
        ..
    } = LoopUnderTest::build("no-alloc-idle", "", |config| {
        config.realtime.when_nobody_drives = rig_config::realtime::WhenNobodyDrives::Idle;
    });
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

/// A Forza FM7 Car Dash datagram (311 bytes, the published offsets): racing or not, the game
/// clock, 20 m/s forward at `forward_m`.
fn forza_dash(race_on: bool, time_ms: u32, forward_m: f32) -> [u8; 311] {
    let mut p = [0u8; 311];
    let mut f32_at =
        |offset: usize, v: f32| p[offset..offset + 4].copy_from_slice(&v.to_le_bytes());
    f32_at(8, 8000.0); // EngineMaxRpm
    f32_at(16, 5500.0); // CurrentEngineRpm
    f32_at(24, 9.81); // AccelerationY (up)
    f32_at(40, 20.0); // VelocityZ (forward)
    f32_at(240, forward_m); // PositionZ
    f32_at(244, 20.0); // Speed
    p[0..4].copy_from_slice(&i32::from(race_on).to_le_bytes()); // IsRaceOn
    p[4..8].copy_from_slice(&time_ms.to_le_bytes()); // TimestampMS
    p
}

/// The game source's mode allocates nothing on the RT thread: 4 s of real ticks (1 kHz, real
/// clock, since the receiver stamps arrivals with it) while a game thread sends Forza datagrams
/// over loopback at 60 Hz: live, paused for 0.5 s, silent past `lost_after_ms` (lost), live
/// again, a 50 m teleport (jump), live. Every motion hold and resume, every frame build and
/// drain of the receiver's ring runs on the armed thread.
#[test]
fn game_source_ticks_with_pause_loss_and_jump_allocate_nothing() {
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let source = format!(
        "\n[source]\nkind = \"game\"\nformat = \"forza\"\nlisten = [\"127.0.0.1:{port}\"]\nlost_after_ms = 200\n"
    );
    let LoopUnderTest {
        mut rt_loop,
        shared,
        period_ns,
        game,
        _pty,
        ..
    } = LoopUnderTest::build("no-alloc-game", &source, |_| {});
    let (_receiver, feed) = game.expect("the game source started");

    // The game: 60 Hz, its own clock; paused 1.0-1.5 s, silent 2.0-2.5 s, +50 m at 3.0 s.
    let start = now_ns();
    let game = std::thread::spawn(move || {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        for k in 0..240u64 {
            let t_ns = k * 1_000_000_000 / 60;
            sleep_until_ns(start + t_ns);
            let t_s = t_ns as f64 / 1e9;
            if (2.0..2.5).contains(&t_s) {
                continue;
            }
            let race_on = !(1.0..1.5).contains(&t_s);
            let forward_m = 20.0 * t_s as f32 + if t_s >= 3.0 { 50.0 } else { 0.0 };
            let packet = forza_dash(race_on, (t_ns / 1_000_000) as u32, forward_m);
            socket
                .send_to(&packet, ("127.0.0.1", port))
                .expect("loopback send");
        }
    });

    // Conditions seen, by the source's code (waiting, live, paused, lost, jumped).
    let mut seen = [0u32; 5];
    let mut deadline = start + period_ns;
    counting_alloc::arm();
    while deadline < start + 4_100_000_000 {
        sleep_until_ns(deadline);
        deadline = rt_loop.wake(deadline, now_ns());
        seen[usize::from(feed.condition_code()).min(4)] += 1;
    }
    counting_alloc::disarm();
    game.join().unwrap();

    assert_eq!(
        counting_alloc::allocations(),
        0,
        "the game source's ticks allocated"
    );
    let [_waiting, live, paused, lost, jumped] = seen;
    assert!(
        live > 2_000 && paused > 300 && lost > 100 && jumped >= 1,
        "every condition was passed through: {seen:?}"
    );
    assert!(feed.packets() >= 200, "{} datagrams taken", feed.packets());
    assert!(shared.heartbeat.load(Ordering::Relaxed) > 3_000);
}
