//! The game bridge end to end with the real `rigd` binary: Forza FM7 Car Dash packets, built
//! byte by byte from the published "Data Out" field table, are sent over loopback at 60 Hz
//! with jitter to `[source] kind = "game"`; an SMC3 seat mover with three
//! vertical actuators (heave, roll and pitch: a two-actuator seat has no heave) on a pty moves
//! from them.
//!
//! Checked on the actuator frames (A = left crank at y = +0.25 m, B = right crank, both
//! 0.40 m behind the pivot, a third 0.40 m in front; counts rise as a crank lifts its side):
//! garbage alone never moves the seat away from park (it comes down from the board's boot
//! position at centre and stays parked); the seat raises once the game is live; sustained braking lifts the rear of
//! both cranks (nose down, tilt coordination); a left turn lifts the left side (right side
//! down); a heave bump lifts both; a pause (IsRaceOn = 0), a stream loss (no packet for 1 s)
//! and a position jump each park the seat and it raises again with its ramp; every frame
//! stays within the travel and the speed limit. Also: `STATUS=` names the stream, its rate
//! and age, and the garbage; the native telemetry (what rig-dash reads) carries the game's
//! speed and rpm; the configured wheel's force feedback is never opened.

mod motion_pty;
mod smc3_wire;
mod support;

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use motion_pty::Pty;
use smc3_wire::{counts, smc3_frames};
use support::*;

const RANGE_DEG: f64 = 60.0;
const MAX_SPEED_DEG_PER_S: f64 = 120.0;
const RATE_HZ: f64 = 100.0;
const PARK_POSITION: f64 = -0.8;
/// The car's speed in every phase, m/s.
const SPEED_MPS: f32 = 20.0;

/// What the fake game sends now (changed by the test while the sender runs).
#[derive(Debug, Clone, Copy)]
struct Scenario {
    sending: bool,
    race_on: bool,
    /// Body acceleration in rigd's axes (forward, left, up), m/s^2.
    accel: [f32; 3],
    yaw_rate_left: f32,
    /// Added to the car's forward position (a teleport when changed), m.
    jump_m: f32,
    /// Garbage datagrams sent with every packet.
    garbage: bool,
}

impl Scenario {
    const CRUISE: Scenario = Scenario {
        sending: true,
        race_on: true,
        accel: [0.0; 3],
        yaw_rate_left: 0.0,
        jump_m: 0.0,
        garbage: false,
    };
}

/// A Forza FM7 Car Dash packet (311 bytes) at the published offsets.
fn forza_dash(s: &Scenario, time_ms: u32, forward_m: f32) -> Vec<u8> {
    let mut p = vec![0u8; 311];
    let mut f32_at =
        |offset: usize, v: f32| p[offset..offset + 4].copy_from_slice(&v.to_le_bytes());
    // Forza local axes: X right, Y up, Z forward.
    f32_at(8, 8000.0); // EngineMaxRpm
    f32_at(12, 900.0); // EngineIdleRpm
    f32_at(16, 5500.0); // CurrentEngineRpm
    f32_at(20, -s.accel[1]); // AccelerationX
    f32_at(24, s.accel[2]); // AccelerationY
    f32_at(28, s.accel[0]); // AccelerationZ
    f32_at(40, SPEED_MPS); // VelocityZ
    f32_at(48, s.yaw_rate_left); // AngularVelocityY (yaw)
    for w in 0..4 {
        f32_at(196 + 4 * w, 0.05); // SuspensionTravelMeters
    }
    f32_at(240, forward_m + s.jump_m); // PositionZ
    f32_at(244, SPEED_MPS); // Speed
    p[0..4].copy_from_slice(&i32::from(s.race_on).to_le_bytes()); // IsRaceOn
    p[4..8].copy_from_slice(&time_ms.to_le_bytes()); // TimestampMS
    p[232 + 75] = 4; // Gear
    p
}

/// Datagrams that are not the game read: wrong size, random bytes of a Forza size, a Forza
/// size with a broken IsRaceOn, a long and an empty datagram.
fn garbage(seed: &mut u64) -> Vec<Vec<u8>> {
    let mut random = |len: usize| -> Vec<u8> {
        (0..len)
            .map(|_| {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (*seed >> 33) as u8
            })
            .collect()
    };
    let mut bad_flag = random(311);
    bad_flag[0..4].copy_from_slice(&7i32.to_le_bytes());
    vec![random(100), random(232), bad_flag, random(1000), Vec::new()]
}

/// Sends the scenario at 60 Hz with up to +-4 ms of jitter until dropped.
struct Game {
    scenario: Arc<Mutex<Scenario>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Game {
    fn start(to: SocketAddr, first: Scenario) -> Game {
        let scenario = Arc::new(Mutex::new(first));
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, quit) = (scenario.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
            let start = Instant::now();
            let mut seed = 0x5eed_u64;
            let mut next = start;
            while !quit.load(Ordering::Relaxed) {
                let s = *shared.lock().unwrap();
                let t = start.elapsed().as_secs_f32();
                if s.sending {
                    let packet = forza_dash(&s, (t * 1000.0) as u32, SPEED_MPS * t);
                    socket.send_to(&packet, to).unwrap();
                }
                if s.garbage {
                    for datagram in garbage(&mut seed) {
                        socket.send_to(&datagram, to).unwrap();
                    }
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                let jitter_us = (seed >> 40) % 8000;
                next += Duration::from_micros(16_667);
                let at = next + Duration::from_micros(jitter_us) - Duration::from_micros(4000);
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
            }
        });
        Game {
            scenario,
            stop,
            thread: Some(thread),
        }
    }

    fn set(&self, scenario: Scenario) {
        *self.scenario.lock().unwrap() = scenario;
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn config(port: &std::path::Path, game_port: u16, dash_port: u16) -> String {
    let g29 = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/g29.toml"))
        .unwrap();
    format!(
        r#"{TEST_CONFIG}
[source]
kind = "game"
format = "auto"
listen = ["127.0.0.1:{game_port}"]
lost_after_ms = 500

[[telemetry]]
format = "native"
destinations = ["127.0.0.1:{dash_port}"]

[[motion.platforms]]
name = "seat"

[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25], [0.40, 0.0]]
crank_radius_m = 0.10

[motion.platforms.actuators]
range_deg = {RANGE_DEG}
max_speed_deg_per_s = {MAX_SPEED_DEG_PER_S}
max_accel_deg_per_s2 = 1200.0
park_position = {PARK_POSITION}

[motion.platforms.cueing]
traction_loss_gain = 0.0

[[motion.platforms.outputs]]
preset = "smc3"
serial_port = "{}"
rate_hz = {RATE_HZ}
post_open_delay_ms = 100

{g29}"#,
        port.display()
    )
}

/// The park position inside rigd's usable travel: the SMC3 firmware's window (100 of
/// 0..1023 is -411/511) less the 5 % margin.
fn park() -> u16 {
    counts(PARK_POSITION.max(-411.0 / 511.0 * 0.95))
}

fn at_park(f: &[u16; 3]) -> bool {
    f[0].abs_diff(park()) <= 2 && f[1].abs_diff(park()) <= 2
}

/// No step larger than v_max x dt, nothing outside the usable travel.
fn assert_within_limits(frames: &[[u16; 3]], what: &str) {
    let max_step = (MAX_SPEED_DEG_PER_S / RATE_HZ / RANGE_DEG * 512.0).ceil() as u16 + 1;
    for w in frames.windows(2) {
        for axis in 0..2 {
            let step = w[1][axis].abs_diff(w[0][axis]);
            assert!(
                step <= max_step,
                "{what}: stepped {step} counts {:?} -> {:?}",
                w[0],
                w[1]
            );
        }
    }
    let (lo, hi) = (counts(-0.95) - 1, counts(0.95) + 1);
    for f in frames {
        assert!(
            (lo..=hi).contains(&f[0]) && (lo..=hi).contains(&f[1]),
            "{what}: {f:?} outside the usable travel"
        );
    }
}

/// The pty's frames, all of them kept for the limits check.
struct Seat {
    pty: Pty,
    all: Vec<[u16; 3]>,
}

impl Seat {
    fn read(&mut self, window: Duration) -> Vec<[u16; 3]> {
        let frames = smc3_frames(&self.pty.read_for(window));
        self.all.extend(&frames);
        frames
    }

    fn read_until(
        &mut self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&[[u16; 3]]) -> bool,
    ) -> Vec<[u16; 3]> {
        let start = Instant::now();
        let mut frames = Vec::new();
        loop {
            frames.extend(self.read(Duration::from_millis(100)));
            if done(&frames) {
                return frames;
            }
            assert!(
                start.elapsed() < timeout,
                "{what}: timed out after {} frames; last {:?}",
                frames.len(),
                frames.last()
            );
        }
    }

    /// Waits until the seat has come to the middle of its travel and moved on from there for
    /// a second and a half (Active).
    fn raised(&mut self, what: &str) {
        self.read_until(what, Duration::from_secs(30), |frames| {
            frames
                .iter()
                .position(|f| f[0].abs_diff(511) <= 4 && f[1].abs_diff(511) <= 4)
                .is_some_and(|i| frames.len() > i + 150)
        });
    }

    fn parked(&mut self, what: &str) {
        self.read_until(what, Duration::from_secs(10), |frames| {
            frames.last().is_some_and(at_park)
        });
    }
}

fn mean(frames: &[[u16; 3]], f: impl Fn(&[u16; 3]) -> f64) -> f64 {
    frames.iter().map(f).sum::<f64>() / frames.len().max(1) as f64
}

#[test]
fn forza_packets_move_an_smc3_seat_and_every_hold_parks_it() {
    let dir = TempDir::new("game-bridge");
    let mut seat = Seat {
        pty: Pty::open(),
        all: Vec::new(),
    };
    let (game_port, dash_port) = (free_port(), free_port());
    let dash = UdpSocket::bind(("127.0.0.1", dash_port)).unwrap();
    let path = dir.file(
        "rigd.toml",
        &config(&seat.pty.slave_path, game_port, dash_port),
    );
    let notify = NotifySocket::bind(&dir.0);
    let mut child = KillOnDrop(spawn_rigd(&path, &notify, &[], &[]));
    notify.wait_for("READY=1", Duration::from_secs(30));
    let statuses = Arc::new(Mutex::new(Vec::<String>::new()));
    let collected = statuses.clone();
    std::thread::spawn(move || loop {
        if let Some(message) = notify.recv(Duration::from_secs(1)) {
            collected.lock().unwrap().push(message);
        }
    });
    let status_with = |needle: &str| {
        let start = Instant::now();
        loop {
            if let Some(s) = statuses
                .lock()
                .unwrap()
                .iter()
                .rev()
                .find(|s| s.contains(needle))
            {
                return s.clone();
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no STATUS with {needle:?}: {:?}",
                statuses.lock().unwrap().last()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let to: SocketAddr = ([127, 0, 0, 1], game_port).into();

    // Garbage alone: counted, and the seat stays parked.
    let game = Game::start(
        to,
        Scenario {
            sending: false,
            garbage: true,
            ..Scenario::CRUISE
        },
    );
    // (The SMC3 boots at centre when the port opens: the seat comes down from there to park
    // within its limits and stays; garbage must never move it away from park.)
    let idle = seat.read(Duration::from_millis(2000));
    assert_within_limits(&idle, "coming down from the board's boot position");
    let towards_park = idle
        .windows(2)
        .all(|w| (0..2).all(|i| w[1][i].abs_diff(park()) <= w[0][i].abs_diff(park())));
    assert!(
        towards_park && idle.last().is_none_or(at_park),
        "garbage moved the seat: {idle:?}"
    );
    let waiting = status_with("garbage");
    assert!(
        waiting.contains("source: waiting for game telemetry"),
        "{waiting}"
    );

    // The game goes live (garbage still arriving, and still dropped): the seat raises.
    game.set(Scenario {
        garbage: true,
        ..Scenario::CRUISE
    });
    seat.raised("raise once the game is live");
    let live = status_with("source: Forza FM7 Car Dash");
    assert!(
        live.contains(" Hz, age ") && live.contains("garbage"),
        "{live}"
    );
    let rate: f64 = live
        .split("source: Forza FM7 Car Dash ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a rate in {live}"));
    assert!(
        (40.0..=80.0).contains(&rate),
        "{rate} Hz from a 60 Hz game: {live}"
    );
    game.set(Scenario::CRUISE);
    let steady = seat.read(Duration::from_secs(2));
    let base = [
        mean(&steady, |f| f64::from(f[0])),
        mean(&steady, |f| f64::from(f[1])),
    ];
    assert!(
        (base[0] - base[1]).abs() < 15.0,
        "cruising straight keeps the seat level: {base:?}"
    );

    // The dashboard's feed carries the game's speed and rpm.
    // The newest packet: the socket also holds those sent while the game was not live yet.
    let mut buf = [0u8; 2048];
    let mut len = 0;
    dash.set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let drain_until = Instant::now() + Duration::from_millis(500);
    while Instant::now() < drain_until {
        if let Ok(n) = dash.recv(&mut buf) {
            len = n;
        }
    }
    assert!(len > 0, "native telemetry to the dashboard");
    let view = rig_protocols::decode_any(&buf[..len]).unwrap().dash_view();
    assert!(
        (view.speed_mps - f64::from(SPEED_MPS)).abs() < 0.5,
        "{view:?}"
    );
    assert!(
        view.rpm.is_some_and(|rpm| (rpm - 5500.0).abs() < 1.0),
        "{view:?}"
    );

    // Sustained braking: nose down, both cranks (behind the pivot) lift.
    game.set(Scenario {
        accel: [-8.0, 0.0, 0.0],
        ..Scenario::CRUISE
    });
    seat.read(Duration::from_millis(1500));
    let braking = seat.read(Duration::from_millis(1500));
    let (a, b) = (
        mean(&braking, |f| f64::from(f[0])),
        mean(&braking, |f| f64::from(f[1])),
    );
    assert!(
        a > base[0] + 40.0 && b > base[1] + 40.0 && (a - b).abs() < 20.0,
        "braking pitches nose down: A {a:.0}, B {b:.0}, cruising {base:?}"
    );
    game.set(Scenario::CRUISE);
    seat.read(Duration::from_secs(4));

    // A left turn (acceleration to the left, yaw rate left): the right side goes down.
    game.set(Scenario {
        accel: [0.0, 6.0, 0.0],
        yaw_rate_left: 0.3,
        ..Scenario::CRUISE
    });
    seat.read(Duration::from_millis(1500));
    let turning = seat.read(Duration::from_millis(1500));
    let (a, b) = (
        mean(&turning, |f| f64::from(f[0])),
        mean(&turning, |f| f64::from(f[1])),
    );
    assert!(
        a - b > 40.0,
        "a left turn lowers the right side: A {a:.0}, B {b:.0}"
    );
    game.set(Scenario::CRUISE);
    seat.read(Duration::from_secs(4));

    // A heave bump: both sides lift for a moment.
    let before = seat.read(Duration::from_millis(500));
    let level = mean(&before, |f| (f64::from(f[0]) + f64::from(f[1])) / 2.0);
    game.set(Scenario {
        accel: [0.0, 0.0, 25.0],
        ..Scenario::CRUISE
    });
    let mut bump = seat.read(Duration::from_millis(200));
    game.set(Scenario::CRUISE);
    bump.extend(seat.read(Duration::from_millis(800)));
    let peak = bump
        .iter()
        .map(|f| (f64::from(f[0]) + f64::from(f[1])) / 2.0 - level)
        .fold(f64::MIN, f64::max);
    assert!(
        peak > 5.0,
        "a heave bump lifts the seat: peak {peak:.1} counts"
    );

    // Pause, loss and jump each park the seat, which then raises again with its ramp.
    game.set(Scenario {
        race_on: false,
        ..Scenario::CRUISE
    });
    seat.parked("the game paused");
    assert!(status_with("(paused)").contains("source: Forza FM7 Car Dash"));
    game.set(Scenario::CRUISE);
    seat.raised("the game resumed");

    game.set(Scenario {
        sending: false,
        ..Scenario::CRUISE
    });
    seat.parked("the stream stopped");
    status_with("(lost)");
    game.set(Scenario::CRUISE);
    seat.raised("the stream came back");

    game.set(Scenario {
        jump_m: 500.0,
        ..Scenario::CRUISE
    });
    seat.parked("the car jumped 500 m");
    seat.raised("after the jump");

    drop(game);
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(15));
    seat.read(Duration::from_millis(100));
    assert_within_limits(&seat.all, "the whole run");
    let log = stderr_of(&mut child);
    assert!(status.success(), "{log}");
    assert!(log.contains("force feedback stays with the game"), "{log}");
    assert!(
        !log.contains("force feedback backend") && !log.contains("backend is chosen when"),
        "the wheel's force feedback was touched: {log}"
    );
    for said in [
        "game telemetry: waiting for packets",
        "is live, motion follows it",
        "motion held: Forza FM7 Car Dash says the game is paused",
        "motion held: no packet from Forza FM7 Car Dash",
        "dropped as garbage",
    ] {
        assert!(log.contains(said), "{said:?} not in the log:\n{log}");
    }
}
