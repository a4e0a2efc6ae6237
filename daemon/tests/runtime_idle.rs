//! The idle loop (`[loop] when_nobody_drives = "idle"`, the default): with nobody driving the
//! real loop, on its own thread and the real clock, parks the car and then wakes about 20
//! times a second with no physics step, its stages safe-stopped with `Idle`; a device
//! appearing through the input hub (the seam the evdev and gamepad threads publish through
//! on hot-plug) brings the full rate back within a tick of the idle period, with the stages
//! resumed; the robot setting keeps the full rate. Counts, not timings: wake-ups (the
//! heartbeat) and physics steps (the frames' `health.ticks`) over a window.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rig_config::realtime::WhenNobodyDrives;
use rig_config::Config;
use rig_physics::Controls;
use rig_protocols::Frame;
use rigd::ffb::FfbLink;
use rigd::input::hub::InputHub;
use rigd::input::player_input::PlayerInput;
use rigd::rt::handoff::LatestReader;
use rigd::rt::stage::{RtStage, StopReason};
use rigd::runtime::rt_loop::{
    Command, FrameSlots, LoopExit, LoopMode, LoopParts, LoopShared, LoopTiming, RtLoop,
};
use rigd::runtime::simulation::Simulation;

/// What the loop did to its one stage (atomics: the stage runs on the loop's thread).
#[derive(Debug, Default)]
struct StageLog {
    ticks: AtomicU64,
    idle_stops: AtomicU64,
    resumes: AtomicU64,
    /// 1 while stopped (any reason), 0 while running.
    stopped: AtomicU8,
}

struct Recorder(Arc<StageLog>);

impl RtStage for Recorder {
    fn on_tick(&mut self, _frame: &Frame) {
        self.0.ticks.fetch_add(1, Ordering::Relaxed);
    }
    fn safe_stop(&mut self, reason: StopReason) {
        if reason == StopReason::Idle {
            self.0.idle_stops.fetch_add(1, Ordering::Relaxed);
        }
        self.0.stopped.store(1, Ordering::Relaxed);
    }
    fn resume(&mut self) {
        self.0.resumes.fetch_add(1, Ordering::Relaxed);
        self.0.stopped.store(0, Ordering::Relaxed);
    }
}

struct Running {
    shared: Arc<LoopShared>,
    frames: LatestReader<Frame>,
    stage: Arc<StageLog>,
    hub: Arc<InputHub>,
    thread: JoinHandle<LoopExit>,
}

impl Running {
    /// The default world at 1 kHz with the given policy, its input from a fresh hub.
    fn start(when_nobody_drives: WhenNobodyDrives) -> Running {
        let mut config = Config::default();
        config.realtime.when_nobody_drives = when_nobody_drives;
        let sim = Simulation::build(&config.sim, config.realtime.rate_hz).unwrap();
        let (hub, input) = InputHub::new();
        let (slots, mut readers) = FrameSlots::new(1);
        let stage = Arc::new(StageLog::default());
        let parts = LoopParts {
            sim,
            stages: vec![Box::new(Recorder(stage.clone()))],
            input,
            slots,
            ffb: FfbLink::new(),
            game: None,
        };
        let timing = LoopTiming {
            // The test machine is shared: no final spin at the full rate, and a loaded
            // machine's missed ticks must not fault the stages here (faults: runtime_safety).
            spin_ns: 0,
            fault_after_missed_ticks: u32::MAX,
            ..LoopTiming::from_config(&config.realtime)
        };
        let shared = Arc::new(LoopShared::default());
        let rt_loop = RtLoop::new(parts, timing, shared.clone());
        let thread = std::thread::spawn(move || rt_loop.run());
        Running {
            shared,
            frames: readers.pop().unwrap(),
            stage,
            hub,
            thread,
        }
    }

    /// Wake-ups and physics steps during `window`.
    fn count(&mut self, window: Duration) -> (u64, u64) {
        let beats = self.shared.heartbeat.load(Ordering::Relaxed);
        let steps = self.frames.read().health.ticks;
        std::thread::sleep(window);
        (
            self.shared.heartbeat.load(Ordering::Relaxed) - beats,
            self.frames.read().health.ticks - steps,
        )
    }

    /// How long until the loop is in `mode` (panics after `timeout`).
    fn until_mode(&self, mode: LoopMode, timeout: Duration) -> Duration {
        let start = Instant::now();
        while self.shared.mode() != mode {
            assert!(
                start.elapsed() < timeout,
                "the loop did not reach {mode:?} within {timeout:?}"
            );
            std::thread::sleep(Duration::from_micros(500));
        }
        start.elapsed()
    }

    fn stop(self) {
        self.shared.request(Command::Exit);
        let exit = self.thread.join().unwrap();
        assert!(!exit.panicked);
    }
}

fn wheel() -> PlayerInput {
    PlayerInput {
        connected: true,
        controls: Controls {
            throttle: 0.3,
            ..Controls::SAFE_STOP
        },
        ..PlayerInput::DISCONNECTED
    }
}

#[test]
fn nobody_driving_idles_with_no_physics_and_a_device_brings_the_full_rate_back() {
    let mut idle = Running::start(WhenNobodyDrives::Idle);
    // The car starts at rest: the loop parks it and idles at once.
    idle.until_mode(LoopMode::Idle, Duration::from_secs(5));
    // The last full-rate frame's step count lags its own tick: count from an idle frame.
    std::thread::sleep(Duration::from_millis(200));
    let (idle_wakes, idle_steps) = idle.count(Duration::from_secs(2));
    let stage_ticks = idle.stage.ticks.load(Ordering::Relaxed);
    assert_eq!(idle_steps, 0, "no physics step while idle");
    assert!(
        (10..=45).contains(&idle_wakes),
        "about 20 wake-ups a second while idle: {idle_wakes} in 2 s"
    );
    assert_eq!(idle.stage.idle_stops.load(Ordering::Relaxed), 1);
    assert_eq!(idle.stage.stopped.load(Ordering::Relaxed), 1, "stages rest");
    assert!(
        stage_ticks > 0,
        "the stages still get the parked car's frames"
    );

    // A wheel appears (the input thread publishes it into the hub): full rate within the
    // idle period, the stages resumed.
    idle.hub.publish_devices(wheel());
    let woke_in = idle.until_mode(LoopMode::Driving, Duration::from_secs(1));
    assert!(woke_in < Duration::from_millis(500), "woke in {woke_in:?}");
    let (driving_wakes, driving_steps) = idle.count(Duration::from_millis(500));
    assert!(
        driving_wakes > 10 * idle_wakes / 4,
        "full rate again: {driving_wakes} wake-ups in 0.5 s against {idle_wakes} in 2 s idle"
    );
    // The heartbeat and the published frame are read one after the other, so either count
    // may include one tick the other does not yet show.
    assert!(
        driving_steps + 1 >= driving_wakes,
        "a physics step every tick: {driving_steps} steps in {driving_wakes} wake-ups"
    );
    assert_eq!(idle.stage.resumes.load(Ordering::Relaxed), 1);
    assert_eq!(idle.stage.stopped.load(Ordering::Relaxed), 0);

    // Unplugged: the car is braked to a stop, then the loop idles again.
    idle.hub.publish_devices(PlayerInput::DISCONNECTED);
    idle.until_mode(LoopMode::Idle, Duration::from_secs(15));
    assert_eq!(idle.stage.idle_stops.load(Ordering::Relaxed), 2);
    assert!(
        idle.frames.read().car.speed_mps.abs() < 0.1 + 1e-9,
        "parked before idling"
    );
    idle.stop();

    // The robot setting never idles: the same window ticks at the full rate.
    let mut robot = Running::start(WhenNobodyDrives::Robot);
    std::thread::sleep(Duration::from_millis(200));
    let (robot_wakes, robot_steps) = robot.count(Duration::from_secs(2));
    assert_eq!(robot.shared.mode(), LoopMode::Driving);
    assert!(
        robot_wakes > 10 * idle_wakes,
        "{robot_wakes} wake-ups with the robot against {idle_wakes} idle"
    );
    assert!(robot_steps >= robot_wakes);
    assert_eq!(robot.stage.idle_stops.load(Ordering::Relaxed), 0);
    robot.stop();
}
