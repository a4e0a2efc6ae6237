//! Recording never allocates on the physics thread: 5000 steps (five checkpoints) of a world
//! with robot cars and a recorder attached, after a reset, under a counting global allocator armed on the
//! stepping thread only (the writer thread may allocate; it is not counted).

use rig_config::Config;
use rigd::input::player_input::PlayerInput;
use rigd::replay::recorder::{header_for, Recorder};
use rigd::runtime::simulation::Simulation;

mod counting_alloc;

#[test]
fn recording_steps_do_not_allocate() {
    let dir = std::env::temp_dir().join(format!("rigd-replay-noalloc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("noalloc.rigrec");
    let mut config = Config::default();
    config.sim.robots = 3;
    let mut sim = Simulation::build(&config.sim, 1000).unwrap();
    let recorder = Recorder::start(&path, &header_for(&config).unwrap(), 10_000).unwrap();
    sim.attach_observer(Box::new(recorder));
    let input = PlayerInput::DISCONNECTED;
    for step in 0..100 {
        // The reset itself is outside the armed window: rig-physics' `Car::reset` rebuilds
        // the drivetrain (it allocates; not the recorder's doing).
        if step == 50 {
            sim.reset_player();
        }
        sim.step(&input);
    }
    counting_alloc::arm();
    for _ in 0..5_000 {
        sim.step(&input);
    }
    counting_alloc::disarm();
    assert_eq!(counting_alloc::allocations(), 0);
    drop(sim.detach_observer());
    let recording = rigd::replay::player::read(&path).unwrap();
    assert_eq!((recording.steps, recording.lost_steps), (5_100, 0));
    assert_eq!(recording.checkpoints.len(), 5);
    let reset_steps: Vec<bool> = recording.runs.iter().map(|(_, s)| s.reset).collect();
    assert_eq!(reset_steps.iter().filter(|r| **r).count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
