//! Recording never allocates on the physics thread: 5000 steps (five checkpoints) of a world
//! with robot cars and a recorder attached, after a reset, under a counting global allocator armed on the
//! stepping thread only (the writer thread may allocate; it is not counted).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use rig_config::Config;
use rigd::input::player_input::PlayerInput;
use rigd::replay::recorder::{header_for, Recorder};
use rigd::runtime::simulation::Simulation;

struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

fn count() {
    if ARMED.with(|armed| armed.get()) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: forwards every call to the system allocator unchanged; counting has no effect on
// the memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

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
    ARMED.with(|armed| armed.set(true));
    for _ in 0..5_000 {
        sim.step(&input);
    }
    ARMED.with(|armed| armed.set(false));
    assert_eq!(ALLOCATIONS.load(Ordering::Relaxed), 0);
    drop(sim.detach_observer());
    let recording = rigd::replay::player::read(&path).unwrap();
    assert_eq!((recording.steps, recording.lost_steps), (5_100, 0));
    assert_eq!(recording.checkpoints.len(), 5);
    let reset_steps: Vec<bool> = recording.runs.iter().map(|(_, s)| s.reset).collect();
    assert_eq!(reset_steps.iter().filter(|r| **r).count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
