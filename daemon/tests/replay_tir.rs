//! A car whose tyres come from `.tir` property files replays from the recording alone: the
//! recorder embeds the files' text in the car text it stores (issue 21), so a replay after the
//! car file and its tyre files are gone runs the same steps bit for bit.

use rig_config::Config;
use rigd::input::player_input::PlayerInput;
use rigd::replay::digest::physics_digest;
use rigd::replay::player;
use rigd::replay::recorder::{header_for, Recorder};
use rigd::runtime::simulation::Simulation;

const RATE_HZ: u32 = 1000;
const STEPS: u64 = 3_000;

#[test]
fn a_car_on_tir_files_replays_after_the_files_are_gone() {
    let dir = std::env::temp_dir().join(format!("rigd-replay-tir-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The road car on a front tyre file and a grippier rear one.
    let road = rig_physics::builtin::car_text("road").unwrap();
    let set = "coefficients = \"pacejka2006_205_60r15\"";
    assert!(road.contains(set));
    let car_text = road.replace(set, "coefficients = \"front.tir\"").replace(
        "[drivetrain]",
        "[tyre.rear]\ncoefficients = \"rear.tir\"\n\n[drivetrain]",
    );
    let tir = rig_physics::tyre::BUILTIN_TIR;
    let rear = tir.replace(
        "PDY1                     = -0.990",
        "PDY1                     = -1.1385",
    );
    assert_ne!(rear, tir);
    std::fs::write(dir.join("front.tir"), tir).unwrap();
    std::fs::write(dir.join("rear.tir"), rear).unwrap();
    let car_path = dir.join("car.toml");
    std::fs::write(&car_path, car_text).unwrap();

    let mut config = Config::default();
    config.sim.car = car_path.to_str().unwrap().to_string();
    let path = dir.join("tir.rigrec");
    let mut sim = Simulation::build(&config.sim, RATE_HZ).unwrap();
    let header = header_for(&config).unwrap();
    assert!(
        header.car_toml.contains("tir_text"),
        "the tyre files are in the recording"
    );
    sim.attach_observer(Box::new(Recorder::start(&path, &header, 10_000).unwrap()));
    let mut digests = Vec::new();
    for _ in 0..STEPS {
        sim.step(&PlayerInput::DISCONNECTED);
        digests.push(physics_digest(&sim.player_telemetry()));
    }
    drop(sim.detach_observer());

    for file in ["front.tir", "rear.tir", "car.toml"] {
        std::fs::remove_file(dir.join(file)).unwrap();
    }
    let recording = player::read(&path).unwrap();
    let mut replay = player::world_for(&recording, "test").expect("replays without the files");
    let mut replayed = Vec::new();
    let verification = player::replay_steps(&recording, &mut replay, |_, car| {
        replayed.push(physics_digest(car));
        true
    });
    assert_eq!(verification.steps, STEPS);
    assert_eq!(verification.checkpoints_checked, 3);
    assert_eq!(verification.first_divergence, None);
    assert_eq!(replayed, digests);
    let _ = std::fs::remove_dir_all(&dir);
}
