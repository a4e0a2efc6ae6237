//! The motion RT stage: on every tick, cueing -> kinematics (whole-pose clamp) -> safety
//! state machine -> rate-limited tracker, then every `N` ticks (per output) the actuator
//! command goes to that output's writer through a wait-free ring, and the writer thread is
//! woken (`Thread::unpark`) to send it at the end of the tick ([`RtStage::end_of_tick`]): the
//! thread is shared by every output of the run ([`super::writers`]), so the stages only ask
//! for the wake-up and it wakes once per tick that has a frame, however many platforms pushed
//! one. A park command (`safe_stop`, shutdown) wakes it at once.
//!
//! RT rules: `on_tick`, `safe_stop` and `resume` never allocate, block, lock or log; all
//! buffers were built by [`MotionStage::new`]. A frame whose simulation time does not advance
//! is stale; a position jump larger than `reset_jump_m` (or time going backwards) is a reset
//! or teleport: the washout filters are reset and cues stay off for `reset_quiet_ms`.
//!
//! Every hold is said: a safe stop, stale data or the loss of every link begins a
//! [`MotionHold`] with its cause, reaching Active again ends it; the stage publishes it through
//! a wait-free slot on each change ([`super::hold`] reports it off the RT thread).
//!
//! Dropping the stage shuts its outputs' writers down and waits for them: each parks the
//! platform at the actuator limits, sends its stop string and closes its port, so every exit
//! path that drops the stages (SIGTERM, reload, fatal error) parks before the process goes
//! on; the writer thread is joined with the last stage it serves.

use rig_config::motion::{ActuatorLimits, PlatformConfig};
use rig_protocols::Frame;

use super::cueing::{CueInput, Washout};
use super::hold::{HoldCause, MotionHold};
use super::kinematics::{Platform, Pose, MAX_ACTUATORS};
use super::safety::{SafetyMachine, SafetyState, SafetyTimeouts, Target, TickFacts};
use super::tracker::Tracker;
use super::writer::{OutputCommand, WriterMode, WriterStatus};
use super::writers::StageWriters;
use crate::rt::handoff::{latest_value, LatestReader, LatestWriter};
use crate::rt::stage::{RtStage, StopReason};

/// The RT side of one output.
pub struct OutputPort {
    /// Commands to the writer.
    pub commands: rtrb::Producer<OutputCommand>,
    /// The writer's status.
    pub status: LatestReader<WriterStatus>,
    /// Send a command every this many ticks.
    pub every_ticks: u32,
    /// Ticks until the next command.
    pub countdown: u32,
    /// The writer's status as read on the last tick.
    pub last_status: WriterStatus,
}

impl std::fmt::Debug for OutputPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputPort")
            .field("every_ticks", &self.every_ticks)
            .finish()
    }
}

/// One platform's RT stage.
pub struct MotionStage {
    name: String,
    platform: Platform,
    limits: ActuatorLimits,
    washout: Washout,
    machine: SafetyMachine,
    tracker: Tracker,
    park: [f64; MAX_ACTUATORS],
    target_hold: [f64; MAX_ACTUATORS],
    outputs: Vec<OutputPort>,
    writers: StageWriters,
    traction_min_speed_mps: f64,
    reset_jump_m: f64,
    reset_quiet_ticks: u64,
    quiet_ticks: u64,
    stale_ticks: u64,
    stale_after: u64,
    last_time_s: f64,
    last_position_m: [f64; 3],
    seen_frame: bool,
    stopped: bool,
    hold: MotionHold,
    hold_slot: LatestWriter<MotionHold>,
    hold_reader: Option<LatestReader<MotionHold>>,
}

impl std::fmt::Debug for MotionStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MotionStage")
            .field("name", &self.name)
            .field("state", &self.machine.state())
            .finish()
    }
}

impl MotionStage {
    /// A stage for `config` ticking at `tick_hz`, with its outputs' RT ends and its hold on
    /// the writer thread (built by [`super::platform_stage`] and [`super::stages`]).
    pub fn new(
        config: &PlatformConfig,
        platform: Platform,
        limits: ActuatorLimits,
        tick_hz: f64,
        outputs: Vec<OutputPort>,
        writers: StageWriters,
    ) -> MotionStage {
        let s = &config.safety;
        let ticks = |ms: f64| (ms / 1000.0 * tick_hz).round().max(1.0) as u64;
        let park = Tracker::park_position(&limits);
        let count = platform.actuator_count();
        let stale_after = ticks(f64::from(s.stale_after_ms));
        let (hold_slot, hold_reader) = latest_value(MotionHold::default());
        MotionStage {
            name: config.name.clone(),
            platform,
            limits,
            washout: Washout::new(&config.cueing, tick_hz),
            machine: SafetyMachine::new(SafetyTimeouts {
                stale_after,
                hold_before_idle: ticks(f64::from(s.hold_before_idle_ms)),
                idle_before_park: ticks(s.idle_before_park_s * 1000.0),
            }),
            tracker: Tracker::new(limits, count, 1.0 / tick_hz, park),
            park,
            target_hold: [0.0; MAX_ACTUATORS],
            outputs,
            writers,
            traction_min_speed_mps: config.cueing.traction_loss_min_speed_mps,
            reset_jump_m: s.reset_jump_m,
            reset_quiet_ticks: ticks(f64::from(s.reset_quiet_ms)),
            quiet_ticks: 0,
            stale_ticks: u64::MAX / 2,
            stale_after,
            last_time_s: 0.0,
            last_position_m: [0.0; 3],
            seen_frame: false,
            stopped: false,
            hold: MotionHold::default(),
            hold_slot,
            hold_reader: Some(hold_reader),
        }
    }

    /// The reading end of the stage's hold slot (once; the health thread reports from it).
    pub fn take_hold_reader(&mut self) -> Option<LatestReader<MotionHold>> {
        self.hold_reader.take()
    }

    /// The platform's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Publishes the hold when `update` changed it (RT-safe: a wait-free slot).
    fn update_hold(&mut self, update: impl FnOnce(&mut MotionHold)) {
        let before = self.hold;
        update(&mut self.hold);
        if self.hold != before {
            self.hold_slot.write(self.hold);
        }
    }

    /// The current safety state.
    pub fn state(&self) -> SafetyState {
        self.machine.state()
    }

    /// True when every output's writer passes the stage's commands through (it has joined
    /// them from where its controller was; a writer homing from an unknown position moves
    /// slower and joins later), as of the last tick.
    pub fn writers_following(&self) -> bool {
        self.outputs
            .iter()
            .all(|out| out.last_status.mode == WriterMode::Following)
    }

    /// The commanded actuator positions, m or rad.
    pub fn commanded(&self) -> &[f64] {
        &self.tracker.position[..self.tracker.count]
    }

    /// Every output writer's status as read on the last tick, in config order.
    pub fn output_status(&self) -> impl Iterator<Item = &WriterStatus> {
        self.outputs.iter().map(|out| &out.last_status)
    }

    /// Reads every writer's status. True when the platform can move: some output link is
    /// up (each output parks and rejoins on its own, so one dead port never stops the
    /// others), or it has no outputs.
    fn any_link_ready(&mut self) -> bool {
        for out in &mut self.outputs {
            out.last_status = out.status.read();
        }
        self.outputs.is_empty() || self.outputs.iter().any(|out| out.last_status.ready)
    }

    /// Freshness and reset detection from the frame.
    fn observe(&mut self, frame: &Frame) -> bool {
        let car = &frame.car;
        let time_ok = car.time_s.is_finite();
        let position_ok = car.position_m.iter().all(|v| v.is_finite());
        if !(time_ok && position_ok) {
            self.stale_ticks = self.stale_ticks.saturating_add(1);
            return false;
        }
        if self.seen_frame {
            let d = [
                car.position_m[0] - self.last_position_m[0],
                car.position_m[1] - self.last_position_m[1],
                car.position_m[2] - self.last_position_m[2],
            ];
            let jump = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            if jump > self.reset_jump_m || car.time_s < self.last_time_s {
                self.washout.reset();
                self.quiet_ticks = self.reset_quiet_ticks;
            }
            if car.time_s > self.last_time_s {
                self.stale_ticks = 0;
            } else {
                self.stale_ticks = self.stale_ticks.saturating_add(1);
            }
        }
        self.seen_frame = true;
        self.last_time_s = car.time_s;
        self.last_position_m = car.position_m;
        self.stale_ticks < self.stale_after
    }

    fn cue_target(&mut self, frame: &Frame, fresh: bool) -> [f64; MAX_ACTUATORS] {
        let input = if fresh && self.quiet_ticks == 0 {
            CueInput::from_telemetry(&frame.car, self.traction_min_speed_mps)
        } else {
            CueInput::REST
        };
        let pose = self.washout.step(&input);
        match self
            .platform
            .clamp_pose(&pose, self.limits.usable_half_travel)
        {
            Ok((_, actuators, _)) => {
                self.target_hold = actuators.values;
                actuators.values
            }
            // Never NaN: keep the last valid target.
            Err(_) => self.target_hold,
        }
    }

    fn publish(&mut self, park_now: bool) {
        for out in &mut self.outputs {
            if !park_now {
                if out.countdown > 1 {
                    out.countdown -= 1;
                    continue;
                }
                out.countdown = out.every_ticks;
            }
            // A full ring means the writer is stuck: dropping is the RT-safe choice (the
            // writer's watchdog parks if it stays stuck).
            let _ = out.commands.push(OutputCommand {
                position: self.tracker.position,
                velocity: self.tracker.velocity,
                park_now,
            });
            if park_now {
                self.writers.thread.wake();
            } else {
                self.writers.thread.request_wake();
            }
        }
    }
}

impl MotionStage {
    /// One tick of a manual jog (`rigd motion test`): the platform follows `pose` instead of
    /// the cues, through the same workspace clamp, safety states (raise from park first),
    /// rate-limited tracker and writers as a running rig.
    pub fn jog_tick(&mut self, pose: &Pose) {
        let link_ready = self.any_link_ready();
        let target = match self
            .platform
            .clamp_pose(pose, self.limits.usable_half_travel)
        {
            Ok((_, actuators, _)) => actuators.values,
            Err(_) => self.target_hold,
        };
        self.target_hold = target;
        self.drive(link_ready, true, target);
        self.writers.thread.wake_if_requested();
    }

    /// The safety state machine and the tracker for one tick, with `cue` as the target while
    /// Active.
    fn drive(&mut self, link_ready: bool, fresh: bool, cue: [f64; MAX_ACTUATORS]) {
        if self.stopped {
            return;
        }
        let target = match self.machine.target() {
            Target::Freeze => None,
            Target::Park => Some(self.park),
            Target::Neutral => Some([0.0; MAX_ACTUATORS]),
            Target::Cue => Some(cue),
        };
        if let Some(target) = target {
            self.tracker.step(&target);
        }
        let at_target = target.is_some_and(|t| self.tracker.reached(&t, 1e-6));
        let before = self.machine.state();
        let state = self.machine.tick(TickFacts {
            link_ready,
            physics_fresh: fresh,
            at_target,
        });
        if state == SafetyState::Active && before == SafetyState::Raising {
            // Cues start from neutral, not from whatever the washout saw while raising.
            self.washout.reset();
        }
        self.update_hold(|hold| {
            hold.state = state;
            match (before, state) {
                (SafetyState::Active, SafetyState::Holding) => hold.begin(HoldCause::StaleData),
                (SafetyState::Connecting, SafetyState::Connecting) => {}
                (_, SafetyState::Connecting) => hold.begin(HoldCause::LinkDown),
                (_, SafetyState::Active) => hold.rejoin(),
                _ => {}
            }
        });
        if state != SafetyState::Connecting {
            self.publish(false);
        }
    }
}

impl RtStage for MotionStage {
    fn name(&self) -> &'static str {
        "motion"
    }
    fn on_tick(&mut self, frame: &Frame) {
        let link_ready = self.any_link_ready();
        let fresh = self.observe(frame);
        self.quiet_ticks = self.quiet_ticks.saturating_sub(1);
        // The washout always runs (with the rest input when cues are off) so it is at
        // neutral whenever the platform returns to Active.
        let cue = self.cue_target(frame, fresh);
        self.drive(link_ready, fresh, cue);
    }

    fn end_of_tick(&mut self) {
        self.writers.thread.wake_if_requested();
    }

    fn safe_stop(&mut self, reason: StopReason) {
        if self.stopped {
            return;
        }
        self.update_hold(|hold| {
            hold.state = SafetyState::Parking;
            hold.begin(HoldCause::Stop(reason));
        });
        // Every reason parks: the writer owns the ramp from the last command, at the
        // actuator limits, so it completes even when the RT loop stops right after this.
        self.stopped = true;
        self.machine.enter(SafetyState::Parking);
        self.publish(true);
    }

    fn motion_hold(&self) -> Option<rig_protocols::MotionHoldTelemetry> {
        Some(self.hold.telemetry())
    }

    fn resume(&mut self) {
        // The stage goes on from its own state (Parking, then Parked -> Raising); every
        // writer finishes its park and then joins the live commands at the actuator limits.
        self.stopped = false;
    }
}

impl Drop for MotionStage {
    fn drop(&mut self) {
        if !self.stopped {
            self.publish(true);
        }
        self.writers.shut_down();
    }
}
