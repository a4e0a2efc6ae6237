//! The wait-free meeting point of the input layer, the FFB stage (RT thread), the FFB writer
//! thread and the runtime: plain atomics, so every side reads and writes without locks or
//! allocation, and without system calls except the writer's [`Doorbell`] (a non-blocking
//! futex wake when the stage publishes a changed command).
//!
//! Who writes what: the input thread writes the rim motion and the e-stop latch; the writer
//! thread writes `device_connected` and bumps `connections` on every (re)open; the FFB stage
//! writes the published [`FfbStatus`] (with why the force is held, [`FfbHold`]) and the writer
//! says when the loop stalled; every start of a hold is counted and the latest one kept, so
//! the health thread can log each once however briefly it lasted; on each open the writer also
//! says whether the stage must run the autocentre as a spring. The RT loop writes who drives
//! the player car (the [`DriveState`] the stage's condition effects centre the rim for). The
//! writer records when its level writes started and returned ([`WriteTimes`], for the latency
//! benchmark). Each
//! session of the daemon builds one link
//! ([`FfbLink::new`]) and hands it to its input reader, FFB stage and RT loop.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

use rig_protocols::{FfbHold, FfbStatus};

use super::chain::RimMotion;
use super::conditions::DriveState;
use super::doorbell::Doorbell;
use super::write_times::{LevelWrite, WriteTimes};

/// Shared FFB state (see the module docs for who writes which field).
#[derive(Debug, Default)]
pub struct FfbLink {
    rim_angle_bits: AtomicU64,
    rim_velocity_bits: AtomicU64,
    rim_known: AtomicBool,
    estop: AtomicBool,
    stopping: AtomicBool,
    device_connected: AtomicBool,
    connections: AtomicU32,
    status_active: AtomicBool,
    status_output_bits: AtomicU64,
    status_clipping: AtomicBool,
    status_clip_share_bits: AtomicU64,
    status_hold: AtomicU8,
    loop_stalled: AtomicBool,
    hold_latest: AtomicU8,
    hold_starts: AtomicU32,
    robot_drives: AtomicBool,
    resetting: AtomicBool,
    paused: AtomicBool,
    spring_autocentre: AtomicBool,
    doorbell: Doorbell,
    write_times: WriteTimes,
}

impl FfbLink {
    /// A fresh link: rim unknown, no e-stop, no device.
    pub fn new() -> Arc<FfbLink> {
        Arc::new(FfbLink::default())
    }

    /// Input thread: the rim's latest motion.
    pub fn publish_rim(&self, rim: RimMotion) {
        self.rim_angle_bits
            .store(rim.angle_rad.to_bits(), Ordering::Relaxed);
        self.rim_velocity_bits
            .store(rim.velocity_radps.to_bits(), Ordering::Relaxed);
        self.rim_known.store(true, Ordering::Release);
    }

    /// Input thread: the steering device went away (the chain then ignores rim terms).
    pub fn forget_rim(&self) {
        self.rim_known.store(false, Ordering::Release);
    }

    /// The rim's latest motion; NaN fields when no steering device is connected.
    pub fn rim(&self) -> RimMotion {
        if !self.rim_known.load(Ordering::Acquire) {
            return RimMotion {
                angle_rad: f64::NAN,
                velocity_radps: f64::NAN,
            };
        }
        RimMotion {
            angle_rad: f64::from_bits(self.rim_angle_bits.load(Ordering::Relaxed)),
            velocity_radps: f64::from_bits(self.rim_velocity_bits.load(Ordering::Relaxed)),
        }
    }

    /// Input thread: the e-stop latch (true = zero torque until re-armed).
    pub fn set_estop(&self, latched: bool) {
        self.estop.store(latched, Ordering::Release);
    }

    /// True while the e-stop is latched.
    pub fn estop(&self) -> bool {
        self.estop.load(Ordering::Acquire)
    }

    /// Main thread, the moment the session is to stop (signal, reload, terminal gone): the
    /// writer zeroes the force at once, without waiting for the RT loop to notice and safe-stop
    /// (a loop busy catching up can take several ticks). Never cleared: a session that stops
    /// gets a new link.
    pub fn begin_stopping(&self) {
        self.stopping.store(true, Ordering::Release);
    }

    /// True once [`FfbLink::begin_stopping`] was called, or while the e-stop is latched:
    /// the writer must hold zero force.
    pub fn hold_zero(&self) -> bool {
        self.estop() || self.stopping.load(Ordering::Acquire)
    }

    /// Writer thread: the FFB device is open (true) or gone (false).
    pub fn set_device_connected(&self, connected: bool) {
        if connected {
            self.connections.fetch_add(1, Ordering::AcqRel);
        }
        self.device_connected.store(connected, Ordering::Release);
    }

    /// True while the writer holds an open FFB device.
    pub fn device_connected(&self) -> bool {
        self.device_connected.load(Ordering::Acquire)
    }

    /// How many times the device was opened (a change means "reconnected: ramp again").
    pub fn connections(&self) -> u32 {
        self.connections.load(Ordering::Acquire)
    }

    /// Writer thread, on every open: whether the stage is to run `autocentre_percent` as part
    /// of its spring (true for a base without an autocentre of its own, FF_AUTOCENTER, that
    /// takes a spring effect: every base on the hidraw PID backend, hid-pidff bases whose
    /// autocentre method the kernel does not know), or the base does it itself (false).
    pub fn set_spring_autocentre(&self, by_stage: bool) {
        self.spring_autocentre.store(by_stage, Ordering::Release);
    }

    /// True when the stage runs the autocentre as a spring (see
    /// [`FfbLink::set_spring_autocentre`]).
    pub fn spring_autocentre(&self) -> bool {
        self.spring_autocentre.load(Ordering::Acquire)
    }

    /// RT loop: who drives the player car this tick.
    pub fn publish_drive(&self, drive: DriveState) {
        self.robot_drives
            .store(drive.robot_drives, Ordering::Relaxed);
        self.resetting.store(drive.resetting, Ordering::Relaxed);
        self.paused.store(drive.paused, Ordering::Relaxed);
    }

    /// Who drives the player car (robot, reset held, paused), as the RT loop last published it.
    pub fn drive(&self) -> DriveState {
        DriveState {
            robot_drives: self.robot_drives.load(Ordering::Relaxed),
            resetting: self.resetting.load(Ordering::Relaxed),
            paused: self.paused.load(Ordering::Relaxed),
        }
    }

    /// FFB stage: the status for telemetry and the dashboard.
    pub fn publish_status(&self, status: FfbStatus) {
        self.status_output_bits
            .store(status.output.to_bits(), Ordering::Relaxed);
        self.status_clip_share_bits
            .store(status.clipping_share.to_bits(), Ordering::Relaxed);
        self.status_clipping
            .store(status.clipping, Ordering::Relaxed);
        let before = self.status_hold.swap(status.hold.code(), Ordering::AcqRel);
        if before != status.hold.code() {
            self.note_hold_start(status.hold);
        }
        self.status_active.store(status.active, Ordering::Release);
    }

    /// Writer thread: the RT loop's commands stopped advancing (true) or advance again.
    pub fn set_loop_stalled(&self, stalled: bool) {
        if self.loop_stalled.swap(stalled, Ordering::AcqRel) != stalled && stalled {
            self.note_hold_start(FfbHold::LoopStalled);
        }
    }

    fn note_hold_start(&self, hold: FfbHold) {
        if hold != FfbHold::None {
            self.hold_latest.store(hold.code(), Ordering::Release);
            self.hold_starts.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// Why the force is held now (the writer's loop stall first, else the stage's reason).
    pub fn hold(&self) -> FfbHold {
        if self.loop_stalled.load(Ordering::Acquire) {
            return FfbHold::LoopStalled;
        }
        FfbHold::from_code(self.status_hold.load(Ordering::Acquire))
    }

    /// How many holds have started so far and the latest one to start (`None` before any).
    pub fn hold_starts(&self) -> (u32, FfbHold) {
        let count = self.hold_starts.load(Ordering::Acquire);
        let latest = FfbHold::from_code(self.hold_latest.load(Ordering::Acquire));
        (count, latest)
    }

    /// FFB stage (RT thread): a command that differs from the previous one was published;
    /// wakes the writer thread (non-blocking, see [`Doorbell`]).
    pub fn ring_writer(&self) {
        self.doorbell.ring();
    }

    /// Writer thread: sleeps until the stage publishes a changed command (true) or `timeout`
    /// passes (false).
    pub fn wait_for_command(&self, timeout: std::time::Duration) -> bool {
        self.doorbell.wait(timeout)
    }

    /// Writer thread: a force-level write and when it started and returned.
    pub fn record_level_write(&self, write: LevelWrite) {
        self.write_times.record(write);
    }

    /// The writer's last few level writes, oldest first (see [`WriteTimes`]).
    pub fn recent_level_writes(&self) -> Vec<LevelWrite> {
        self.write_times.recent()
    }

    /// The latest status (the runtime copies it into the next frame).
    pub fn status(&self) -> FfbStatus {
        let active = self.status_active.load(Ordering::Acquire);
        FfbStatus {
            active,
            output: f64::from_bits(self.status_output_bits.load(Ordering::Relaxed)),
            clipping: self.status_clipping.load(Ordering::Relaxed),
            clipping_share: f64::from_bits(self.status_clip_share_bits.load(Ordering::Relaxed)),
            hold: FfbHold::from_code(self.status_hold.load(Ordering::Relaxed)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopping_session_holds_zero_for_good_and_the_estop_only_while_latched() {
        let link = FfbLink::new();
        assert!(!link.hold_zero());
        link.set_estop(true);
        assert!(link.hold_zero());
        link.set_estop(false);
        assert!(!link.hold_zero());
        link.begin_stopping();
        assert!(link.hold_zero());
        link.set_estop(false);
        assert!(link.hold_zero(), "nothing clears a stop");
    }
}
