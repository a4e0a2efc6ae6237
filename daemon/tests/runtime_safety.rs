//! The loop's safety decisions, asserted with recording stages that log every `on_tick`,
//! `safe_stop(reason)` and `resume` with the number of ticks they had seen: the real
//! [`RtLoop`] is driven through [`RtLoop::wake`] (what the running loop calls after each wait)
//! with chosen wake-up times, so lateness is injected exactly and nothing sleeps; the panic
//! case runs the real [`RtLoop::run`].
//!
//! - `fault_after_missed_ticks` consecutive missed deadlines safe-stop every stage (`Fault`);
//! - after one second of on-time wake-ups they resume, not a tick earlier;
//! - the e-stop holds every stage stopped until it is released (and a fault that clears while
//!   it is held does not resume them);
//! - a stage that panics still leaves every other stage safe-stopped with `Fault`.

use std::sync::{Arc, Mutex};

use rig_config::Config;
use rig_protocols::Frame;
use rigd::ffb::FfbLink;
use rigd::input::player_input::PlayerInput;
use rigd::rt::clock::now_ns;
use rigd::rt::handoff::{latest_value, LatestWriter};
use rigd::rt::stage::{RtStage, StopReason};
use rigd::runtime::rt_loop::{FrameSlots, LoopParts, LoopShared, LoopTiming, RtLoop};
use rigd::runtime::simulation::Simulation;

const PERIOD_NS: u64 = 1_000_000;

/// One call a stage received; the number is how many `on_tick` calls it had seen before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Tick(u64),
    SafeStop(u64, StopReason),
    Resume(u64),
}

type Log = Arc<Mutex<Vec<Call>>>;

#[derive(Debug)]
struct RecordingStage {
    log: Log,
    ticks: u64,
    /// Panic in `on_tick` once this many ticks were seen, and in every `safe_stop` after.
    panic_at_tick: Option<u64>,
    panicked: bool,
}

impl RecordingStage {
    fn new(log: &Log) -> RecordingStage {
        RecordingStage {
            log: Arc::clone(log),
            ticks: 0,
            panic_at_tick: None,
            panicked: false,
        }
    }

    fn record(&self, call: Call) {
        self.log.lock().unwrap().push(call);
    }
}

impl RtStage for RecordingStage {
    fn on_tick(&mut self, _frame: &Frame) {
        if self.panic_at_tick == Some(self.ticks) {
            self.panicked = true;
            panic!("recording stage: planted panic at tick {}", self.ticks);
        }
        self.record(Call::Tick(self.ticks));
        self.ticks += 1;
    }

    fn safe_stop(&mut self, reason: StopReason) {
        if self.panicked {
            panic!("recording stage: planted panic in safe_stop");
        }
        self.record(Call::SafeStop(self.ticks, reason));
    }

    fn resume(&mut self) {
        self.record(Call::Resume(self.ticks));
    }
}

/// The safety calls (everything but ticks) in a log.
fn decisions(log: &Log) -> Vec<Call> {
    log.lock()
        .unwrap()
        .iter()
        .copied()
        .filter(|call| !matches!(call, Call::Tick(_)))
        .collect()
}

fn ticks_seen(log: &Log) -> usize {
    log.lock()
        .unwrap()
        .iter()
        .filter(|call| matches!(call, Call::Tick(_)))
        .count()
}

/// A loop at 1 kHz on the default world (no robots) over `stages`, and its input slot;
/// `fault_after_missed_ticks` overrides the config's.
fn rt_loop_faulting_after(
    stages: Vec<Box<dyn RtStage>>,
    fault_after_missed_ticks: Option<u32>,
) -> (RtLoop, LatestWriter<PlayerInput>, LoopTiming) {
    let mut config = Config::default();
    config.sim.robots = 0;
    // The robot drives the disconnected player: these tests watch the full-rate loop.
    config.realtime.when_nobody_drives = rig_config::realtime::WhenNobodyDrives::Robot;
    let sim = Simulation::build(&config.sim, config.realtime.rate_hz).unwrap();
    let (input_writer, input) = latest_value(PlayerInput::DISCONNECTED);
    let (slots, _readers) = FrameSlots::new(0);
    let parts = LoopParts {
        sim,
        stages,
        input,
        slots,
        ffb: FfbLink::new(),
        game: None,
    };
    let mut timing = LoopTiming::from_config(&config.realtime);
    assert_eq!(
        timing.period_ns, PERIOD_NS,
        "the default loop runs at 1 kHz"
    );
    timing.spin_ns = 0;
    if let Some(missed) = fault_after_missed_ticks {
        timing.fault_after_missed_ticks = missed;
    }
    let shared = Arc::new(LoopShared::default());
    (RtLoop::new(parts, timing, shared), input_writer, timing)
}

fn rt_loop(stages: Vec<Box<dyn RtStage>>) -> (RtLoop, LatestWriter<PlayerInput>, LoopTiming) {
    rt_loop_faulting_after(stages, None)
}

/// Wakes the loop with chosen lateness, on a virtual clock.
struct Driver {
    rt_loop: RtLoop,
    deadline: u64,
}

impl Driver {
    fn new(rt_loop: RtLoop) -> Driver {
        Driver {
            rt_loop,
            deadline: now_ns(),
        }
    }

    /// One wake-up `late_ns` after the current deadline.
    fn wake(&mut self, late_ns: u64) {
        self.deadline = self.rt_loop.wake(self.deadline, self.deadline + late_ns);
    }

    fn on_time(&mut self, wakes: u64) {
        for _ in 0..wakes {
            self.wake(20_000);
        }
    }
}

#[test]
fn missed_deadlines_fault_every_stage_and_a_second_on_time_resumes_them() {
    let (a, b): (Log, Log) = (Log::default(), Log::default());
    let stages: Vec<Box<dyn RtStage>> = vec![
        Box::new(RecordingStage::new(&a)),
        Box::new(RecordingStage::new(&b)),
    ];
    let (rt_loop, _input, timing) = rt_loop(stages);
    let limit = u64::from(timing.fault_after_missed_ticks);
    assert_eq!(limit, 20);
    let mut driver = Driver::new(rt_loop);
    driver.on_time(10);

    // One missed deadline fewer than the limit, then an on-time wake-up: no fault.
    for _ in 0..limit - 1 {
        driver.wake(PERIOD_NS + PERIOD_NS / 2);
    }
    driver.on_time(1);
    assert_eq!(decisions(&a), vec![]);

    // `limit` wake-ups that each missed one deadline: the last one faults every stage,
    // before its own frame reaches them.
    let before = 10 + u64::from(timing.fault_after_missed_ticks);
    for _ in 0..limit {
        driver.wake(PERIOD_NS + PERIOD_NS / 2);
    }
    let faulted_at = before + limit - 1;
    assert_eq!(
        decisions(&a),
        vec![Call::SafeStop(faulted_at, StopReason::Fault)]
    );
    assert_eq!(decisions(&b), decisions(&a));

    // Stopped stages keep getting frames. Half a second on time, a late wake-up (the second
    // starts again), then 999 on-time wake-ups: still stopped; the 1000th resumes.
    driver.on_time(500);
    driver.wake(PERIOD_NS + PERIOD_NS / 2);
    driver.on_time(999);
    assert_eq!(decisions(&a).len(), 1, "{:?}", decisions(&a));
    driver.on_time(1);
    let resumed_at = faulted_at + 1 + 500 + 1 + 999;
    assert_eq!(
        decisions(&a),
        vec![
            Call::SafeStop(faulted_at, StopReason::Fault),
            Call::Resume(resumed_at)
        ]
    );
    assert_eq!(decisions(&b), decisions(&a));
    assert_eq!(ticks_seen(&a) as u64, resumed_at + 1);

    // One wake-up far too late faults at once.
    driver.wake(limit * PERIOD_NS + PERIOD_NS / 2);
    assert_eq!(
        decisions(&a).last(),
        Some(&Call::SafeStop(resumed_at + 1, StopReason::Fault))
    );
}

#[test]
fn the_e_stop_holds_every_stage_stopped_until_it_is_released() {
    let log = Log::default();
    let (rt_loop, mut input, timing) = rt_loop(vec![Box::new(RecordingStage::new(&log))]);
    let mut driver = Driver::new(rt_loop);
    let pressed = PlayerInput {
        estop: true,
        ..PlayerInput::DISCONNECTED
    };
    driver.on_time(5);
    input.write(pressed);
    driver.on_time(1);
    assert_eq!(
        decisions(&log),
        vec![Call::SafeStop(5, StopReason::EmergencyStop)]
    );

    // Held for two seconds on time: nothing resumes.
    driver.on_time(2_000);
    assert_eq!(decisions(&log).len(), 1);

    // A fault while it is held, cleared a second later: still held, still stopped.
    for _ in 0..timing.fault_after_missed_ticks {
        driver.wake(PERIOD_NS + PERIOD_NS / 2);
    }
    let faulted_at = 5 + 1 + 2_000 + u64::from(timing.fault_after_missed_ticks) - 1;
    driver.on_time(1_500);
    assert_eq!(
        decisions(&log),
        vec![
            Call::SafeStop(5, StopReason::EmergencyStop),
            Call::SafeStop(faulted_at, StopReason::Fault)
        ]
    );

    // Released: resumes on the first tick that reads the release.
    input.write(PlayerInput::DISCONNECTED);
    driver.on_time(1);
    let released_at = faulted_at + 1 + 1_500;
    assert_eq!(decisions(&log).last(), Some(&Call::Resume(released_at)));
    assert_eq!(decisions(&log).len(), 3);
}

#[test]
fn a_panicking_stage_still_leaves_every_other_stage_safe_stopped() {
    let (before, panicking, after): (Log, Log, Log) = Default::default();
    let mut bad = RecordingStage::new(&panicking);
    bad.panic_at_tick = Some(5);
    let stages: Vec<Box<dyn RtStage>> = vec![
        Box::new(RecordingStage::new(&before)),
        Box::new(bad),
        Box::new(RecordingStage::new(&after)),
    ];
    // Late wake-ups on a loaded machine must not fault first: only the panic stops here.
    let (rt_loop, _input, _) = rt_loop_faulting_after(stages, Some(u32::MAX));
    // The real loop, ticking on the clock until the planted panic on its sixth tick.
    let exit = rt_loop.run();
    assert!(exit.panicked);
    assert_eq!(ticks_seen(&panicking), 5);
    // The stage before the panic saw the sixth frame; the one after it did not. Both are
    // safe-stopped with `Fault`, though the panicking stage panics in its safe stop too.
    assert_eq!(
        decisions(&before),
        vec![Call::SafeStop(6, StopReason::Fault)]
    );
    assert_eq!(
        decisions(&after),
        vec![Call::SafeStop(5, StopReason::Fault)]
    );
    assert_eq!(exit.parts.stages.len(), 3);
}
