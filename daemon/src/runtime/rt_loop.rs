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
//! back on its start slot on the request's rising edge. The pause button toggles a pause on
//! its rising edge while someone drives: no physics steps, the frame shows the car holding
//! still ([`LoopMode::Paused`]; the FFB stage centres the rim).
//!
//! Idle (`[loop] when_nobody_drives = "idle"`, [`LoopTiming::idle_period_ns`]): while no wheel
//! or gamepad drives (`PlayerInput::connected` false) the player car gets the safe stop's
//! controls (brake on, no robot) at the full rate until it is parked (slower than
//! [`PARKED_SPEED_MPS`], or after [`PARKING_LIMIT_NS`]); then every stage is safe-stopped with
//! `Idle` and the loop wakes only every idle period (a whole number of periods, so its
//! wake-ups stay on the deadline grid), without the final spin and without physics steps:
//! it reads the input, publishes the parked car's frame to the stages and slots and beats
//! the heartbeat (the watchdog's stall detection sees it alive). The first wake-up that
//! finds a device connected runs a full tick at once, resumes the stages (unless a fault or
//! the e-stop holds them) and the loop is back at its full rate. [`LoopShared::mode`] tells
//! the health thread which of the three it is in.
//!
//! Game source (`[source] kind = "game"`, [`LoopParts::game`]): the loop steps no physics and
//! never idles; each tick drains the game samples that arrived into the bridge's frame builder
//! ([`crate::game_source::GameSource::frame`]) and publishes the built car exactly as it does
//! the simulation's. While the source is not Live (waiting for the first packet, the game
//! paused, the stream lost, a jump on this tick) every stage is safe-stopped with `Source`,
//! and resumed (with its ramp) when it is Live again, unless a fault or the e-stop holds them.
//! The pause and reset buttons do nothing then; the e-stop works as always.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

use rig_config::realtime::{LoopConfig, WhenNobodyDrives};
use rig_physics::Controls;
use rig_protocols::{Frame, MotionHoldTelemetry};

use super::health::{HealthRecorder, HealthTotals};
use super::simulation::{QuarantineFeed, Simulation};
use crate::ffb::{DriveState, FfbLink};
use crate::game_source::{GameSource, SourceCondition};
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

/// Whether the loop runs at its full rate or idles (nobody drives; see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum LoopMode {
    /// Full rate: a device drives, or the robot does (`when_nobody_drives = "robot"`).
    #[default]
    Driving = 0,
    /// Full rate, nobody drives: the player car brakes to a stop before the loop idles.
    Parking = 1,
    /// Nobody drives and the car is parked: the loop wakes every idle period, steps no
    /// physics, and its stages rest (safe-stopped with `Idle`).
    Idle = 2,
    /// Full rate, the player paused the simulation: no physics steps, the car holds still.
    Paused = 3,
}

/// The idle loop wakes at most this far apart (about 20 times a second), and at most a
/// quarter of `[loop] stall_timeout_ms` apart so the watchdog sees its heartbeat.
pub const IDLE_WAKE_NS: u64 = 50_000_000;
/// The player car counts as parked below this speed (0.36 km/h).
pub const PARKED_SPEED_MPS: f64 = 0.1;
/// The loop idles after braking this long even when the car has not come to rest.
pub const PARKING_LIMIT_NS: u64 = 10_000_000_000;

/// State shared between the RT thread and everyone else: atomics only.
#[derive(Debug, Default)]
pub struct LoopShared {
    /// Wake-ups run since the daemon started (the watchdog's heartbeat).
    pub heartbeat: AtomicU64,
    command: AtomicU8,
    mode: AtomicU8,
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

    /// Whether the loop runs at its full rate, parks the car or idles (written each tick).
    pub fn mode(&self) -> LoopMode {
        match self.mode.load(Ordering::Relaxed) {
            1 => LoopMode::Parking,
            2 => LoopMode::Idle,
            3 => LoopMode::Paused,
            _ => LoopMode::Driving,
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
    /// The game bridge's source: when present, it makes every frame and `sim` is not stepped.
    pub game: Option<GameSource>,
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
    /// While nobody drives: `Some(p)`, park the car and then wake only every `p` ns (a whole
    /// number of periods); `None`, the robot drives the player car at the full rate.
    pub idle_period_ns: Option<u64>,
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
            idle_period_ns: match config.when_nobody_drives {
                WhenNobodyDrives::Idle => Some(idle_period_ns(config)),
                WhenNobodyDrives::Robot => None,
            },
        }
    }
}

/// The idle loop's wake-up period for `config`: [`IDLE_WAKE_NS`], or a quarter of the stall
/// timeout when that is shorter, rounded down to whole tick periods (at least one).
pub fn idle_period_ns(config: &LoopConfig) -> u64 {
    let period = config.period_ns().max(1);
    let bound = IDLE_WAKE_NS.min(u64::from(config.stall_timeout_ms) * 1_000_000 / 4);
    (bound / period).max(1) * period
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
    paused: bool,
    pause_held: bool,
    shift_edges: ShiftEdges,
    mode: LoopMode,
    /// When the current parking began, ns.
    parking_since_ns: u64,
    /// The game source holds the stages (it is not Live).
    source_held: bool,
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
            paused: false,
            pause_held: false,
            shift_edges: ShiftEdges::default(),
            mode: LoopMode::Driving,
            parking_since_ns: 0,
            source_held: false,
        }
    }

    /// True while the stages should run (no fault, no e-stop, not idle, the game source live).
    fn outputs_live(&self) -> bool {
        !self.faulted && !self.estop && self.mode != LoopMode::Idle && !self.source_held
    }

    fn set_mode(&mut self, mode: LoopMode) {
        self.mode = mode;
        self.shared.mode.store(mode as u8, Ordering::Relaxed);
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
        if self.parts.game.is_some() {
            self.game_tick(wake_ns, latency_ns, missed);
            return;
        }
        // Every input device was merged into this one slot by the input layer.
        let mut input = self.parts.input.read();
        self.shift_edges.apply(&mut input);
        // The pause toggles on the button's rising edge; it needs someone at the controls.
        if input.pause_requested && !self.pause_held {
            self.paused = !self.paused;
        }
        self.pause_held = input.pause_requested;
        self.paused &= input.connected;
        let paused = self.paused;

        let extra = missed.min(u64::from(self.timing.max_catch_up_steps));
        let dropped = missed - extra;
        let steps = if paused { 0 } else { 1 + extra as u32 };
        self.health.record_wake(latency_ns, steps, missed, dropped);
        self.track_deadlines(missed);

        self.track_estop(input.estop);
        if input.reset_requested && !self.reset_held {
            self.parts.sim.reset_player();
        }
        self.reset_held = input.reset_requested;
        let nobody_drives = !input.connected && self.timing.idle_period_ns.is_some();
        // The FFB stage centres the rim while the robot drives, the car is being reset or the
        // simulation is paused.
        self.parts.ffb.publish_drive(DriveState {
            robot_drives: !input.connected && !nobody_drives,
            resetting: input.reset_requested,
            paused,
        });
        if nobody_drives {
            // Parking: no robot; the controls are the safe stop's (brake on, no throttle), as
            // if a driver held the brake (a recording sees exactly this input).
            input.connected = true;
            input.controls = Controls::SAFE_STOP;
        }
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
        let mut car = self.parts.sim.player_telemetry();
        if paused {
            hold_still(&mut car);
        }
        if (player_stopped || !physics_is_finite(&car)) && !self.faulted {
            self.faulted = true;
            self.on_time_streak = 0;
            self.stop_all(StopReason::Fault);
        }

        self.publish(car);
        let done = now_ns();
        self.health.record_work(done.saturating_sub(wake_ns), done);
        self.track_parking(nobody_drives, paused, car.speed_mps, wake_ns);
    }

    /// One tick of the game source: the car the bridge built for `wake_ns` (one frame per
    /// tick, however many deadlines were missed: the game's clock, not ours, moves the car),
    /// the stages held while the source is not Live. The frame build is timed as the "physics
    /// step" of the health figures.
    fn game_tick(&mut self, wake_ns: u64, latency_ns: u64, missed: u64) {
        let input = self.parts.input.read();
        self.health.record_wake(latency_ns, 1, missed, 0);
        self.track_deadlines(missed);
        self.track_estop(input.estop);
        let Some(game) = self.parts.game.as_mut() else {
            return;
        };
        let build_start = now_ns();
        let (car, condition) = game.frame(wake_ns);
        self.health
            .record_physics_step(now_ns().saturating_sub(build_start));
        self.track_source(condition == SourceCondition::Live);
        if !physics_is_finite(&car) && !self.faulted {
            self.faulted = true;
            self.on_time_streak = 0;
            self.stop_all(StopReason::Fault);
        }
        self.publish(car);
        let done = now_ns();
        self.health.record_work(done.saturating_sub(wake_ns), done);
    }

    /// Holds the stages while the game source is not `live`, resumes them when it is again.
    fn track_source(&mut self, live: bool) {
        if live != self.source_held {
            return;
        }
        if live {
            self.source_held = false;
            if self.outputs_live() {
                self.resume_all();
            }
        } else {
            let were_live = self.outputs_live();
            self.source_held = true;
            if were_live {
                self.stop_all(StopReason::Source);
            }
        }
    }

    /// The frame of `car` to every stage and slot, and the heartbeat (full-rate and idle ticks).
    fn publish(&mut self, car: rig_physics::CarTelemetry) {
        let frame = Frame {
            sequence: self.sequence,
            car_index: 0,
            car,
            health: self.health.current(),
            ffb: self.parts.ffb.status(),
            motion: self.motion_holds(),
        };
        self.sequence = self.sequence.wrapping_add(1);
        for stage in &mut self.parts.stages {
            stage.on_tick(&frame);
        }
        for stage in &mut self.parts.stages {
            stage.end_of_tick();
        }
        self.parts.slots.publish(frame);
        self.shared.heartbeat.fetch_add(1, Ordering::Relaxed);
    }

    /// Every motion platform's hold merged for the frame (as of their last tick): the first
    /// platform holding is reported, else the first one; the counters are summed.
    fn motion_holds(&self) -> MotionHoldTelemetry {
        let mut merged = MotionHoldTelemetry::default();
        for hold in self.parts.stages.iter().filter_map(|s| s.motion_hold()) {
            if merged.platforms == 0 || (merged.held == 0 && hold.held > 0) {
                (merged.state, merged.cause, merged.latest) = (hold.state, hold.cause, hold.latest);
            }
            merged.platforms = merged.platforms.saturating_add(1);
            merged.held = merged.held.saturating_add(hold.held);
            merged.holds = merged.holds.wrapping_add(hold.holds);
            merged.fault_holds = merged.fault_holds.wrapping_add(hold.fault_holds);
            merged.estop_holds = merged.estop_holds.wrapping_add(hold.estop_holds);
            merged.stale_holds = merged.stale_holds.wrapping_add(hold.stale_holds);
        }
        merged
    }

    /// Full-rate mode changes after a tick: nobody drives -> park the car, parked -> idle
    /// (the stages rest), someone drives -> full rate.
    fn track_parking(&mut self, nobody_drives: bool, paused: bool, speed_mps: f64, wake_ns: u64) {
        match (self.mode, nobody_drives) {
            (_, false) if paused => self.set_mode(LoopMode::Paused),
            (_, false) => self.set_mode(LoopMode::Driving),
            (LoopMode::Driving, true) => {
                self.parking_since_ns = wake_ns;
                self.set_mode(LoopMode::Parking);
            }
            (_, true) => {}
        }
        let parked = speed_mps.abs() < PARKED_SPEED_MPS
            || wake_ns.saturating_sub(self.parking_since_ns) >= PARKING_LIMIT_NS;
        if self.mode == LoopMode::Parking && parked {
            if self.outputs_live() {
                self.stop_all(StopReason::Idle);
            }
            self.set_mode(LoopMode::Idle);
        }
    }

    /// One idle wake-up at `wake_ns`: no physics step, the parked car's frame to the stages
    /// and slots, the heartbeat. Returns false (having done nothing) when someone drives now.
    fn idle_tick(&mut self, wake_ns: u64) -> bool {
        let input = self.parts.input.read();
        if input.connected {
            return false;
        }
        self.track_estop(input.estop);
        self.health.record_idle_wake(wake_ns);
        let car = self.parts.sim.player_telemetry();
        self.publish(car);
        true
    }

    /// Leaves idle: the stages resume unless a fault or the e-stop holds them.
    fn wake_up(&mut self) {
        self.set_mode(LoopMode::Driving);
        if self.outputs_live() {
            self.resume_all();
        }
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
            if self.outputs_live() {
                self.resume_all();
            }
        }
    }

    fn track_estop(&mut self, pressed: bool) {
        let was = self.estop;
        self.estop = pressed;
        if pressed && !was {
            self.stop_all(StopReason::EmergencyStop);
        } else if !pressed && was && self.outputs_live() {
            self.resume_all();
        }
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
            if self.mode == LoopMode::Idle {
                // Idle: a plain sleep to the next idle deadline (no spin).
                sleep_until_ns(deadline);
            } else {
                // The final spin leaves the core to its kernel threads for at least a tenth
                // of every period, however long the tick's work (clock::spin_start_ns).
                wait_until_ns(deadline, self.timing.spin_ns, period / 10);
            }
            deadline = self.wake(deadline, now_ns());
        }
    }

    /// One wake-up at `wake_ns` for the deadline `deadline_ns`: its lateness decides the
    /// deadlines missed, then [`RtLoop::tick`] runs; returns the next deadline. The running
    /// loop calls this after each wait with the clock's time; tests call it with the wake-up
    /// times they want, so the safety decisions run exactly as in the daemon.
    /// While idle the deadlines are the idle period apart (still on the grid): an idle
    /// wake-up that finds nobody driving returns the next idle deadline; one that finds a
    /// device runs a full tick at once (no catch-up for the idle time) and returns the next
    /// full-rate deadline.
    pub fn wake(&mut self, deadline_ns: u64, wake_ns: u64) -> u64 {
        let period = self.timing.period_ns;
        let latency = wake_ns.saturating_sub(deadline_ns);
        if self.mode == LoopMode::Idle {
            if let Some(idle_period) = self.timing.idle_period_ns {
                if self.idle_tick(wake_ns) {
                    return next_deadline(deadline_ns, latency, idle_period);
                }
            }
            self.wake_up();
            self.tick(wake_ns, latency, 0);
            return deadline_ns + (latency / period + 1) * period;
        }
        let missed = latency / period;
        self.tick(wake_ns, latency, missed);
        if self.mode == LoopMode::Idle {
            if let Some(idle_period) = self.timing.idle_period_ns {
                return next_deadline(deadline_ns, latency, idle_period);
            }
        }
        deadline_ns + (missed + 1) * period
    }

    /// Whether the loop runs at its full rate, parks the car or idles.
    pub fn mode(&self) -> LoopMode {
        self.mode
    }
}

/// The paused car as the stages and telemetry see it: where it stands, as it was, but nothing
/// changes, so no acceleration, no rotation and no torque at the rim (the specific force is
/// gravity's alone: motion platforms settle, force feedback lets go of the road).
fn hold_still(car: &mut rig_physics::CarTelemetry) {
    for axis in 0..3 {
        car.specific_force_body_mps2[axis] -= car.acceleration_body_mps2[axis];
    }
    car.acceleration_body_mps2 = [0.0; 3];
    car.angular_velocity_body_radps = [0.0; 3];
    car.steering_torque_nm = 0.0;
}

/// The first deadline a whole number of `step_ns` after `deadline_ns` that is later than a
/// wake-up `latency_ns` after it.
fn next_deadline(deadline_ns: u64, latency_ns: u64, step_ns: u64) -> u64 {
    deadline_ns + (latency_ns / step_ns + 1) * step_ns
}

/// True when the values every output reads are finite.
fn physics_is_finite(car: &rig_physics::CarTelemetry) -> bool {
    car.time_s.is_finite()
        && car.speed_mps.is_finite()
        && car.steering_torque_nm.is_finite()
        && car.position_m.iter().all(|v| v.is_finite())
        && car.velocity_world_mps.iter().all(|v| v.is_finite())
}
