//! The real-time loop: wait for the next absolute deadline, step the world, hand the frame to
//! the output stages and the latest-value slots, record health. Runs on the pinned RT thread.
//!
//! Invariants of everything reachable from [`RtLoop::tick`] and the wait in [`RtLoop::run`]:
//! no allocation, no logging, no blocking I/O, no lock another thread can hold. Other threads
//! talk to the loop only through [`LoopShared`]'s atomics and the wait-free slots.
//!
//! Timing: deadlines are `start + k * period` on CLOCK_MONOTONIC. A wake-up `n` whole periods
//! late runs `1 + min(n, max_catch_up_steps)` physics steps (simulation time stays locked to
//! wall time) and drops the rest, counting it. Safety: `fault_after_missed_ticks` consecutive
//! missed deadlines, a non-finite physics value, or the physics quarantine stopping the player
//! car, put every stage in its safe state (`safe_stop(Fault)`); after a second on time they
//! `resume()`. Every quarantine report goes to [`LoopShared::quarantine`] for the health
//! thread to log and count. The e-stop input does the same
//! with `EmergencyStop`, resuming when it is released. Stages keep receiving frames while
//! stopped and must hold their safe state until `resume()`. A reset request puts the player car
//! back on its start slot on the request's rising edge.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

use rig_config::realtime::LoopConfig;
use rig_protocols::Frame;

use super::health::{HealthRecorder, HealthTotals};
use super::simulation::{QuarantineFeed, Simulation};
use crate::ffb::{DriveState, FfbLink};
use crate::input::player_input::{PlayerInput, ShiftEdges};
use crate::rt::clock::{first_deadline_ns, now_ns, sleep_until_ns, wait_until_ns};
use crate::rt::handoff::{LatestReader, LatestWriter};
use crate::rt::stage::{RtStage, StopReason};

/// What the loop is asked to do next (set by the main thread, read once per tick).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Command {
    /// Keep ticking.
    Run = 0,
    /// Safe-stop every stage with `Exit` and return.
    Exit = 1,
    /// Safe-stop every stage with `Reload` and return (the caller rebuilds and restarts).
    Reload = 2,
}

/// State shared between the RT thread and everyone else: atomics only.
#[derive(Debug, Default)]
pub struct LoopShared {
    /// Wake-ups run since the daemon started (the watchdog's heartbeat).
    pub heartbeat: AtomicU64,
    command: AtomicU8,
    /// The physics quarantine's latest report and count (written here, logged elsewhere).
    pub quarantine: QuarantineFeed,
}

impl LoopShared {
    /// Asks the loop to do `command` at its next tick.
    pub fn request(&self, command: Command) {
        self.command.store(command as u8, Ordering::Release);
    }

    /// The pending command.
    pub fn command(&self) -> Command {
        match self.command.load(Ordering::Acquire) {
            1 => Command::Exit,
            2 => Command::Reload,
            _ => Command::Run,
        }
    }
}

/// The latest-value slots every tick's frame goes to (health logger, display). Kept across
/// reloads so their readers stay valid.
#[derive(Debug)]
pub struct FrameSlots {
    writers: Vec<LatestWriter<Frame>>,
}

impl FrameSlots {
    /// `count` slots and their readers.
    pub fn new(count: usize) -> (FrameSlots, Vec<LatestReader<Frame>>) {
        let (writers, readers) = (0..count)
            .map(|_| crate::rt::handoff::latest_value(Frame::default()))
            .unzip();
        (FrameSlots { writers }, readers)
    }

    fn publish(&mut self, frame: Frame) {
        for writer in &mut self.writers {
            writer.write(frame);
        }
    }
}

/// Everything the RT thread owns while it runs, handed back when it stops.
#[derive(Debug)]
pub struct LoopParts {
    /// The world and its drivers.
    pub sim: Simulation,
    /// Output stages, in tick order.
    pub stages: Vec<Box<dyn RtStage>>,
    /// The player's input.
    pub input: LatestReader<PlayerInput>,
    /// Where frames go.
    pub slots: FrameSlots,
    /// The player rim's force-feedback state (atomics; read each tick for the frame).
    pub ffb: Arc<FfbLink>,
}

impl std::fmt::Debug for dyn RtStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RtStage")
    }
}

/// Timing settings the loop reads from `[loop]`.
#[derive(Debug, Clone, Copy)]
pub struct LoopTiming {
    /// Tick period, ns.
    pub period_ns: u64,
    /// Final spin before each deadline, ns.
    pub spin_ns: u64,
    /// Most extra steps per wake-up.
    pub max_catch_up_steps: u32,
    /// Consecutive missed deadlines that fault the outputs.
    pub fault_after_missed_ticks: u32,
    /// Test hook: stop ticking (without exiting) this long after start, ns.
    pub stall_after_ns: Option<u64>,
}

impl LoopTiming {
    /// The timing `[loop]` asks for.
    pub fn from_config(config: &LoopConfig) -> LoopTiming {
        LoopTiming {
            period_ns: config.period_ns(),
            spin_ns: u64::from(config.final_spin_us()) * 1_000,
            max_catch_up_steps: config.max_catch_up_steps,
            fault_after_missed_ticks: config.fault_after_missed_ticks,
            stall_after_ns: None,
        }
    }
}

/// Why the loop returned.
#[derive(Debug)]
pub struct LoopExit {
    /// What the loop owned, safe-stopped.
    pub parts: LoopParts,
    /// Health totals of this run.
    pub totals: HealthTotals,
    /// True when a panic ended the loop (the stages were safe-stopped with `Fault`).
    pub panicked: bool,
}

/// The loop's state between ticks.
#[derive(Debug)]
pub struct RtLoop {
    parts: LoopParts,
    timing: LoopTiming,
    health: HealthRecorder,
    shared: Arc<LoopShared>,
    sequence: u32,
    consecutive_missed: u64,
    on_time_streak: u64,
    faulted: bool,
    estop: bool,
    reset_held: bool,
    shift_edges: ShiftEdges,
}

impl RtLoop {
    /// A loop over `parts` (set-up: allocates the histograms).
    pub fn new(parts: LoopParts, timing: LoopTiming, shared: Arc<LoopShared>) -> RtLoop {
        RtLoop {
            parts,
            health: HealthRecorder::new(timing.period_ns, now_ns()),
            timing,
            shared,
            sequence: 0,
            consecutive_missed: 0,
            on_time_streak: 0,
            faulted: false,
            estop: false,
            reset_held: false,
            shift_edges: ShiftEdges::default(),
        }
    }

    fn stop_all(&mut self, reason: StopReason) {
        for stage in &mut self.parts.stages {
            stage.safe_stop(reason);
        }
    }

    fn resume_all(&mut self) {
        for stage in &mut self.parts.stages {
            stage.resume();
        }
    }

    /// One wake-up's work: `latency_ns` after its deadline, `missed` deadlines passed since
    /// the previous wake-up. Runs the physics steps, the stages and the hand-offs.
    pub fn tick(&mut self, wake_ns: u64, latency_ns: u64, missed: u64) {
        let extra = missed.min(u64::from(self.timing.max_catch_up_steps));
        let dropped = missed - extra;
        let steps = 1 + extra as u32;
        self.health.record_wake(latency_ns, steps, missed, dropped);
        self.track_deadlines(missed);

        // Every input device was merged into this one slot by the input layer.
        let mut input = self.parts.input.read();
        self.shift_edges.apply(&mut input);
        self.track_estop(input.estop);
        if input.reset_requested && !self.reset_held {
            self.parts.sim.reset_player();
        }
        self.reset_held = input.reset_requested;
        // The FFB stage centres the rim while the robot drives or the car is being reset.
        self.parts.ffb.publish_drive(DriveState {
            robot_drives: !input.connected,
            resetting: input.reset_requested,
        });
        // Each physics step is timed alone (one clock read per step), apart from the tick's
        // whole work recorded below.
        let mut step_start = now_ns();
        for _ in 0..steps {
            self.parts.sim.step(&input);
            let step_end = now_ns();
            self.health
                .record_physics_step(step_end.saturating_sub(step_start));
            step_start = step_end;
        }
        let mut player_stopped = false;
        if let Some((new, report)) = self.parts.sim.new_fault() {
            self.shared.quarantine.publish(new, &report);
            player_stopped = self.parts.sim.is_player(&report) && report.fault.car_stopped;
        }
        let car = self.parts.sim.player_telemetry();
        if (player_stopped || !physics_is_finite(&car)) && !self.faulted {
            self.faulted = true;
            self.on_time_streak = 0;
            self.stop_all(StopReason::Fault);
        }

        let frame = Frame {
            sequence: self.sequence,
            car_index: 0,
            car,
            health: self.health.current(),
            ffb: self.parts.ffb.status(),
        };
        self.sequence = self.sequence.wrapping_add(1);
        for stage in &mut self.parts.stages {
            stage.on_tick(&frame);
        }
        self.parts.slots.publish(frame);
        self.shared.heartbeat.fetch_add(1, Ordering::Relaxed);
        let done = now_ns();
        self.health.record_work(done.saturating_sub(wake_ns), done);
    }

    fn track_deadlines(&mut self, missed: u64) {
        if missed == 0 {
            self.consecutive_missed = 0;
            self.on_time_streak += 1;
        } else {
            self.consecutive_missed += missed;
            self.on_time_streak = 0;
        }
        if !self.faulted
            && self.consecutive_missed >= u64::from(self.timing.fault_after_missed_ticks)
        {
            self.faulted = true;
            self.stop_all(StopReason::Fault);
        }
        let one_second = 1_000_000_000 / self.timing.period_ns.max(1);
        if self.faulted && self.on_time_streak >= one_second {
            self.faulted = false;
            if !self.estop {
                self.resume_all();
            }
        }
    }

    fn track_estop(&mut self, pressed: bool) {
        if pressed && !self.estop {
            self.stop_all(StopReason::EmergencyStop);
        } else if !pressed && self.estop && !self.faulted {
            self.resume_all();
        }
        self.estop = pressed;
    }

    /// Runs until asked to exit or reload (or a panic), then safe-stops every stage and hands
    /// back what it owned. Call on the RT thread after its set-up.
    pub fn run(mut self) -> LoopExit {
        let outcome = catch_unwind(AssertUnwindSafe(|| self.run_ticks()));
        let panicked = outcome.is_err();
        let reason = match (panicked, self.shared.command()) {
            (true, _) => StopReason::Fault,
            (false, Command::Reload) => StopReason::Reload,
            (false, _) => StopReason::Exit,
        };
        for stage in &mut self.parts.stages {
            // A stage that panics in its own safe stop must not keep the others from theirs.
            let _ = catch_unwind(AssertUnwindSafe(|| stage.safe_stop(reason)));
        }
        LoopExit {
            totals: self.health.totals().clone(),
            parts: self.parts,
            panicked,
        }
    }

    fn run_ticks(&mut self) {
        let period = self.timing.period_ns;
        let start = now_ns();
        let stall_at = self.timing.stall_after_ns.map(|after| start + after);
        let mut deadline = first_deadline_ns(start, period);
        while self.shared.command() == Command::Run {
            if stall_at.is_some_and(|at| deadline >= at) {
                // Test hook: stop ticking but stay responsive to exit requests.
                sleep_until_ns(now_ns() + period);
                continue;
            }
            // The final spin leaves the core to its kernel threads for at least a tenth of
            // every period, however long the tick's work (clock::spin_start_ns).
            wait_until_ns(deadline, self.timing.spin_ns, period / 10);
            deadline = self.wake(deadline, now_ns());
        }
    }

    /// One wake-up at `wake_ns` for the deadline `deadline_ns`: its lateness decides the
    /// deadlines missed, then [`RtLoop::tick`] runs; returns the next deadline. The running
    /// loop calls this after each wait with the clock's time; tests call it with the wake-up
    /// times they want, so the safety decisions run exactly as in the daemon.
    pub fn wake(&mut self, deadline_ns: u64, wake_ns: u64) -> u64 {
        let period = self.timing.period_ns;
        let latency = wake_ns.saturating_sub(deadline_ns);
        let missed = latency / period;
        self.tick(wake_ns, latency, missed);
        deadline_ns + (missed + 1) * period
    }
}

/// True when the values every output reads are finite.
fn physics_is_finite(car: &rig_physics::CarTelemetry) -> bool {
    car.time_s.is_finite()
        && car.speed_mps.is_finite()
        && car.steering_torque_nm.is_finite()
        && car.position_m.iter().all(|v| v.is_finite())
        && car.velocity_world_mps.iter().all(|v| v.is_finite())
}
