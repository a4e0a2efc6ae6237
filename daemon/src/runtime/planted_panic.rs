//! The test hook that plants a panic inside one named output stage of a running `rigd run`
//! (`--test-panic-stage NAME [--test-panic-after-ms MS]`, hidden, debug builds only): the
//! stage runs normally for MS (default 1000) worth of ticks, then panics in its `on_tick` on
//! the RT thread. What follows is rigd's real
//! panic path, untouched: the loop catches the panic, safe-stops every stage with `Fault`, the
//! motion writers' panic hook parks the platforms, and the process exits 1 (the systemd unit's
//! `Restart=on-failure` restarts it). `daemon/tests/fault_panic.rs` drives it per stage.
//!
//! Stages are named by [`RtStage::name`]; every stage of that name gets the panic planted.

use std::time::Duration;

use crate::rt::stage::{RtStage, StopReason};
use rig_protocols::{Frame, MotionHoldTelemetry};

/// Which stage panics, and after how long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanicPlan {
    /// The stage's [`RtStage::name`].
    pub stage: String,
    /// Ticking time before the panic (counted in ticks at the loop's rate).
    pub after: Duration,
}

/// Wraps every stage named as `plan` says in `stages` so it panics after `plan.after` worth of
/// ticks at `rate_hz`. Fails, listing the names there are, when no stage has that name.
pub fn plant(
    stages: Vec<Box<dyn RtStage>>,
    plan: &PanicPlan,
    rate_hz: u32,
) -> anyhow::Result<Vec<Box<dyn RtStage>>> {
    let name = plan.stage.as_str();
    let at_tick = (plan.after.as_secs_f64() * f64::from(rate_hz)).round() as u64;
    if !stages.iter().any(|stage| stage.name() == name) {
        let names: Vec<&str> = stages.iter().map(|stage| stage.name()).collect();
        anyhow::bail!(
            "--test-panic-stage {name}: this configuration runs no `{name}` stage (fix: name one \
             of the stages it runs: {})",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        );
    }
    Ok(stages
        .into_iter()
        .map(|stage| -> Box<dyn RtStage> {
            if stage.name() == name {
                Box::new(PlantedPanic {
                    stage,
                    ticks_before_panic: at_tick,
                })
            } else {
                stage
            }
        })
        .collect())
}

/// A stage that behaves as the one it wraps until its planted tick, then panics there.
struct PlantedPanic {
    stage: Box<dyn RtStage>,
    ticks_before_panic: u64,
}

impl RtStage for PlantedPanic {
    fn on_tick(&mut self, frame: &Frame) {
        if self.ticks_before_panic == 0 {
            panic!(
                "planted panic in the {} stage (--test-panic-stage)",
                self.stage.name()
            );
        }
        self.ticks_before_panic -= 1;
        self.stage.on_tick(frame);
    }
    fn safe_stop(&mut self, reason: StopReason) {
        self.stage.safe_stop(reason);
    }
    fn resume(&mut self) {
        self.stage.resume();
    }
    fn end_of_tick(&mut self) {
        self.stage.end_of_tick();
    }
    fn wait_stopped(&mut self, within: std::time::Duration) {
        self.stage.wait_stopped(within);
    }
    fn motion_hold(&self) -> Option<MotionHoldTelemetry> {
        self.stage.motion_hold()
    }
    fn name(&self) -> &'static str {
        self.stage.name()
    }
}
