//! What the real-time thread runs after each physics step: the output stages (force feedback,
//! motion cueing, telemetry hand-off). A stage does its pure per-tick work on the RT thread and
//! hands results to its own writer thread through a wait-free slot or ring.

use rig_protocols::{Frame, MotionHoldTelemetry};

/// Why outputs must go to their safe state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// SIGTERM, SIGINT or a normal exit.
    Exit,
    /// The configuration is being reloaded (outputs resume with their ramp afterwards).
    Reload,
    /// Physics produced a non-finite value or the loop stalled.
    Fault,
    /// The user pressed the e-stop.
    EmergencyStop,
    /// Nobody drives and the loop idles (`[loop] when_nobody_drives = "idle"`): outputs
    /// rest (FFB zero, motion parked) until a wheel or gamepad appears, then resume.
    Idle,
    /// The game bridge's source cannot move a platform now (`[source] kind = "game"`):
    /// no packet yet, the game paused, the stream lost, or the car jumped. Outputs rest
    /// until the game's frames are live again, then resume with their ramp.
    Source,
}

/// An output stage driven by the RT thread.
///
/// Both methods run on the RT thread: they must not allocate, block, take a lock another thread
/// can hold, or log.
pub trait RtStage: Send {
    /// Called once per tick with the frame just produced.
    fn on_tick(&mut self, frame: &Frame);
    /// Called on every exit path and fault: drive the output to its safe state now
    /// (FFB to zero within this tick, motion towards park within its rate limits).
    fn safe_stop(&mut self, reason: StopReason);
    /// Called when ticking resumes after a safe stop that ended (fault, e-stop, idle; FFB
    /// ramps in again). While idle, `on_tick` comes about 20 times a second instead of every
    /// period, with the parked car's frame.
    fn resume(&mut self) {}
    /// Called once per tick after every stage's `on_tick`: a stage that deferred work to the
    /// end of the tick does it here. The motion stages share one writer thread and ask for
    /// its wake-up in `on_tick`; the first of them to get here wakes it, once per tick, for
    /// every platform's command (docs/runtime.md).
    fn end_of_tick(&mut self) {}
    /// Called off the RT thread, after the last `safe_stop` and before the stage is dropped:
    /// waits at most `within` until the stage's writer has put its device in the safe state
    /// (so a process that exits right after still leaves its outputs safe).
    fn wait_stopped(&mut self, _within: std::time::Duration) {}
    /// A motion platform's hold state for telemetry (RT thread, once per tick; `None` for
    /// stages that are no motion platform). The loop merges every platform's into the
    /// frame's [`Frame::motion`].
    fn motion_hold(&self) -> Option<MotionHoldTelemetry> {
        None
    }
    /// What the stage drives, one word (`telemetry`, `motion`, `ffb`, `rumble`): for messages
    /// and the `--test-panic-stage` hook.
    fn name(&self) -> &'static str {
        "output"
    }
}
