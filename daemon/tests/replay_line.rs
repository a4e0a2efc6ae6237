//! A run whose robots drive a found line (`[sim] robot_line`) replays from the recording
//! alone: the recorder embeds the line file's text, so a replay after the line file is gone
//! drives the same line, step for step bit for bit, and not the robots' own planned line.

use rig_config::Config;
use rig_physics::line_search::drive::Course;
use rig_physics::line_search::file::{LineFile, Provenance};
use rigd::input::player_input::PlayerInput;
use rigd::replay::digest::physics_digest;
use rigd::replay::player;
use rigd::replay::recorder::{header_for, Recorder};
use rigd::runtime::simulation::Simulation;

const RATE_HZ: u32 = 1000;
const STEPS: u64 = 4_000;

/// The player car's physics digest at every step of `sim` driven by its robot.
fn drive(sim: &mut Simulation) -> Vec<u64> {
    (0..STEPS)
        .map(|_| {
            sim.step(&PlayerInput::DISCONNECTED);
            physics_digest(&sim.player_telemetry())
        })
        .collect()
}

#[test]
fn a_run_on_a_found_line_replays_on_that_line_after_the_file_is_gone() {
    let dir = std::env::temp_dir().join(format!("rigd-replay-line-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // A line 1 m left of the robot's planned line (inside the edges), for the road car on
    // `corners`: the robot steers for it from the first step.
    let course = Course::new(
        rig_physics::track::builtin("corners").unwrap(),
        rig_physics::builtin::car("road").unwrap(),
    );
    let offsets: Vec<f64> = course
        .planned_offsets()
        .iter()
        .enumerate()
        .map(|(j, offset)| {
            let (lo, hi) = course.bounds_m(j);
            (offset + 1.0).clamp(lo, hi)
        })
        .collect();
    let provenance = Provenance {
        tool: "replay_line test".into(),
        seed: 0,
        iterations: 0,
        start_lap_s: 0.0,
        search: "random".into(),
    };
    let line_path = dir.join("line.toml");
    std::fs::write(
        &line_path,
        LineFile::new(&course, &offsets, 0.0, provenance).to_toml(),
    )
    .unwrap();

    let mut config = Config::default();
    config.sim.car = "road".into();
    config.sim.track = "corners".into();
    config.sim.robot_line = Some(line_path.to_str().unwrap().to_string());
    let header = header_for(&config).unwrap();
    assert!(
        header.robot_line_text.contains("offsets_m"),
        "the line is in the recording"
    );
    let path = dir.join("line.rigrec");
    let mut sim = player::world_from_header(&header).unwrap();
    sim.attach_observer(Box::new(Recorder::start(&path, &header, 10_000).unwrap()));
    let digests = drive(&mut sim);
    drop(sim.detach_observer());
    // The same run built from `[sim]` (reading the file) drives the same steps.
    let mut from_config = Simulation::build(&config.sim, RATE_HZ).unwrap();
    assert_eq!(drive(&mut from_config), digests);

    std::fs::remove_file(&line_path).unwrap();
    let recording = player::read(&path).unwrap();
    let mut replay = player::world_for(&recording, "test").expect("replays without the file");
    let mut replayed = Vec::new();
    let verification = player::replay_steps(&recording, &mut replay, |_, car| {
        replayed.push(physics_digest(car));
        true
    });
    assert_eq!(verification.steps, STEPS);
    assert_eq!(verification.checkpoints_checked, 4);
    assert_eq!(verification.first_divergence, None);
    assert_eq!(replayed, digests);

    // Without the line the robots plan their own and the car goes elsewhere.
    config.sim.robot_line = None;
    let mut planned = Simulation::build(&config.sim, RATE_HZ).unwrap();
    let planned = drive(&mut planned);
    let differ = planned.iter().zip(&digests).filter(|(a, b)| a != b).count();
    println!("{differ} of {STEPS} steps differ from the planned line's");
    assert!(
        differ as u64 > STEPS / 2,
        "{differ} of {STEPS} steps differ"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
