//! Record and replay on the real world and the real recorder, through real files in a temp
//! directory: 60 s at 1 kHz of the robot driving, and 60 s of scripted player input (steering,
//! pedals, gear changes, a reset, a disconnect, catch-up steps), each replayed from the file
//! alone, give the same physics bytes at every step; a tampered file is refused naming
//! itself, what is wrong and the fix; a file from another build says so and still replays; a
//! full ring makes the recording say it is incomplete.

use std::path::{Path, PathBuf};

use rig_config::Config;
use rig_physics::{Controls, GearRequest};
use rigd::input::player_input::PlayerInput;
use rigd::replay::digest::{physics_bytes, physics_digest};
use rigd::replay::format;
use rigd::replay::player::{self, ReplayError};
use rigd::replay::recorder::{header_for, Recorder};
use rigd::runtime::simulation::Simulation;

const RATE_HZ: u32 = 1000;
const STEPS: u64 = 60_000;

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("rigd-replay-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The original session: per-step physics digests and the last step's physics bytes.
struct Original {
    digests: Vec<u64>,
    last_bytes: Vec<u8>,
}

/// Runs `steps` steps of the default world with a recorder (ring of `capacity` events)
/// writing to `path`; `input_at(step)` gives each step's input and whether the player asked
/// for a reset before it. Steps come in groups of `catch_up` with one input, as a late
/// wake-up runs them.
fn record(
    path: &Path,
    steps: u64,
    capacity: usize,
    catch_up: u64,
    input_at: impl Fn(u64) -> (PlayerInput, bool),
) -> (Original, rigd::replay::recorder::WriteSummary) {
    let config = Config::default();
    let mut sim = Simulation::build(&config.sim, RATE_HZ).unwrap();
    let recorder = Recorder::start(path, &header_for(&config).unwrap(), capacity).unwrap();
    sim.attach_observer(Box::new(recorder));
    let mut digests = Vec::with_capacity(steps as usize);
    let mut step = 0;
    while step < steps {
        let (input, reset) = input_at(step);
        if reset {
            sim.reset_player();
        }
        for _ in 0..catch_up.min(steps - step) {
            sim.step(&input);
            digests.push(physics_digest(&sim.player_telemetry()));
            step += 1;
        }
    }
    let last_bytes = physics_bytes(&sim.player_telemetry()).to_vec();
    let observer = sim.detach_observer().unwrap();
    // Dropping the recorder finishes the file; read its summary from the file itself.
    drop(observer);
    let recording = player::read(path).unwrap();
    let summary = rigd::replay::recorder::WriteSummary {
        steps: recording.steps,
        lost_steps: recording.lost_steps,
        bytes: std::fs::metadata(path).unwrap().len(),
        error: None,
    };
    (
        Original {
            digests,
            last_bytes,
        },
        summary,
    )
}

/// Replays `path` from the file alone: per-step digests, the last bytes, the verification.
fn replay(path: &Path) -> (Original, player::Verification) {
    let recording = player::read(path).unwrap();
    let mut sim = player::world_for(&recording, "test").unwrap();
    let mut digests = Vec::new();
    let mut last_bytes = Vec::new();
    let verification = player::replay_steps(&recording, &mut sim, |_, car| {
        digests.push(physics_digest(car));
        last_bytes = physics_bytes(car).to_vec();
        true
    });
    (
        Original {
            digests,
            last_bytes,
        },
        verification,
    )
}

fn assert_identical(original: &Original, replayed: &Original) {
    assert_eq!(replayed.digests.len(), original.digests.len());
    let first_difference = original
        .digests
        .iter()
        .zip(&replayed.digests)
        .position(|(a, b)| a != b);
    assert_eq!(first_difference, None, "the replay diverged at this step");
    assert_eq!(replayed.last_bytes, original.last_bytes);
}

#[test]
fn sixty_seconds_of_the_robot_replay_bit_for_bit_from_a_compact_file() {
    let dir = TempDir::new("robot");
    let path = dir.0.join("robot.rigrec");
    let (original, summary) = record(&path, STEPS, 70_000, 1, |_| {
        (PlayerInput::DISCONNECTED, false)
    });
    assert_eq!((summary.steps, summary.lost_steps), (STEPS, 0));
    // The robot drove: the car is far from its start and moving.
    let recording = player::read(&path).unwrap();
    let header_len = format::encode_header(&recording.header).len() as u64;
    // One run per checkpoint window and the checkpoints: 60 * (49 + 17) bytes + the end.
    assert_eq!(recording.runs.len(), 60);
    assert_eq!(
        summary.bytes,
        header_len + 60 * (49 + 17) + format::END_LEN as u64
    );

    let (replayed, verification) = replay(&path);
    assert_identical(&original, &replayed);
    assert_eq!(verification.steps, STEPS);
    assert_eq!(verification.checkpoints_checked, 60);
    assert_eq!(verification.first_divergence, None);
}

/// The scripted player: steering sweeps, pedal phases, gear requests, a reset at 30 s, the
/// device unplugged (robot drives) from 40 s to 45 s.
fn scripted(step: u64) -> (PlayerInput, bool) {
    let t = step as f64 / f64::from(RATE_HZ);
    let gear_request = match step {
        500 => GearRequest::Select(1),
        8_000 | 15_000 | 33_000 => GearRequest::Up,
        25_000 => GearRequest::Down,
        _ => GearRequest::None,
    };
    let (throttle, brake) = match step % 20_000 {
        0..=11_999 => (0.8, 0.0),
        12_000..=14_999 => (0.0, 0.6),
        _ => (0.3, 0.0),
    };
    // Steering changes every 10 ms, as a wheel's reports would.
    let steering = 0.3 * ((t * 100.0).floor() / 100.0 * 0.7).sin();
    let input = PlayerInput {
        connected: !(40_000..45_000).contains(&step),
        controls: Controls {
            steering,
            throttle,
            brake,
            gear_request,
            ..Controls::SAFE_STOP
        },
        ..PlayerInput::DISCONNECTED
    };
    (input, step == 30_000)
}

#[test]
fn sixty_seconds_of_scripted_input_with_a_reset_and_catch_up_replay_bit_for_bit() {
    let dir = TempDir::new("scripted");
    let path = dir.0.join("scripted.rigrec");
    // Groups of 2 steps with one input, as wake-ups one period late run them.
    let (original, summary) = record(&path, STEPS, 70_000, 2, scripted);
    assert_eq!((summary.steps, summary.lost_steps), (STEPS, 0));
    let recording = player::read(&path).unwrap();
    let resets: Vec<u64> = {
        let mut at = 0;
        let mut found = Vec::new();
        for (count, step) in &recording.runs {
            if step.reset {
                found.push(at);
            }
            at += u64::from(*count);
        }
        found
    };
    assert_eq!(resets, vec![30_000], "one reset, before step 30 000");
    assert!(recording.runs.iter().any(|(_, s)| !s.connected));

    let (replayed, verification) = replay(&path);
    assert_identical(&original, &replayed);
    assert_eq!(verification.checkpoints_checked, 60);
    assert_eq!(verification.first_divergence, None);
}

fn short_recording(dir: &TempDir) -> PathBuf {
    let path = dir.0.join("short.rigrec");
    record(&path, 3_000, 10_000, 1, scripted);
    path
}

fn damaged_message(path: &Path) -> String {
    match player::read(path) {
        Err(e @ ReplayError::Damaged { .. }) => e.to_string(),
        other => panic!("expected a damaged-file error, got {other:?}"),
    }
}

#[test]
fn a_tampered_or_truncated_file_is_refused_naming_the_file_the_damage_and_the_fix() {
    let dir = TempDir::new("tamper");
    let path = short_recording(&dir);
    let bytes = std::fs::read(&path).unwrap();
    let header_len = format::encode_header(&player::read(&path).unwrap().header).len();
    let shown = path.display().to_string();

    // One byte of the header (the build fingerprint) and one of the inputs.
    for at in [40, header_len + 10] {
        let mut tampered = bytes.clone();
        tampered[at] ^= 0x01;
        std::fs::write(&path, &tampered).unwrap();
        let message = damaged_message(&path);
        assert!(
            message.starts_with(&format!("{shown}: checksum mismatch")),
            "{message}"
        );
        assert!(message.contains("(fix: copy the file again"), "{message}");
    }

    std::fs::write(&path, &bytes[..bytes.len() - 100]).unwrap();
    let message = damaged_message(&path);
    assert!(
        message.starts_with(&format!("{shown}: the file ends without its end record")),
        "{message}"
    );
    assert!(message.contains("fix:"), "{message}");

    std::fs::write(&path, b"[sim]\ncar = \"road\"\n").unwrap();
    assert!(damaged_message(&path).contains("not a rigd recording"));
}

#[test]
fn a_file_from_another_build_says_so_and_still_replays_bit_for_bit() {
    let dir = TempDir::new("build");
    let path = short_recording(&dir);
    let (original, _) = replay(&path);
    let mut recording = player::read(&path).unwrap();
    assert_eq!(player::build_note(&recording), None, "same build");
    recording.header.build = "0123456789abcdef".into();
    std::fs::write(&path, format::encode(&recording)).unwrap();

    let recording = player::read(&path).unwrap();
    let note = player::build_note(&recording).unwrap();
    assert!(
        note.contains("build 0123456789abcdef, replayed by rigd"),
        "{note}"
    );
    let (replayed, verification) = replay(&path);
    assert_identical(&original, &replayed);
    assert_eq!(verification.checkpoints_checked, 3);
}

#[test]
fn a_full_ring_is_counted_and_the_file_says_it_is_incomplete() {
    let dir = TempDir::new("full");
    let path = dir.0.join("full.rigrec");
    // 16 events and a writer that drains every 10 ms: 5000 steps cannot all fit.
    let (original, summary) = record(&path, 5_000, 16, 1, |_| (PlayerInput::DISCONNECTED, false));
    assert!(summary.lost_steps > 0, "{summary:?}");
    assert_eq!(summary.steps + summary.lost_steps, 5_000);
    // The recorded prefix still replays bit for bit.
    let (replayed, _) = replay(&path);
    assert_eq!(
        replayed.digests[..],
        original.digests[..summary.steps as usize]
    );
}

#[test]
fn a_replay_that_diverges_names_the_first_window_of_steps_that_differs() {
    let dir = TempDir::new("diverge");
    let path = short_recording(&dir);
    let mut recording = player::read(&path).unwrap();
    // As if the physics had changed within steps 2001..=3000: the third checkpoint differs.
    recording.checkpoints[2].1 ^= 1;
    std::fs::write(&path, format::encode(&recording)).unwrap();
    let (_, verification) = replay(&path);
    assert_eq!(verification.checkpoints_checked, 3);
    assert_eq!(verification.first_divergence, Some((3, 2_001, 3_000)));
}
