//! The RT-thread side of telemetry: hands each frame to the sender thread through a bounded
//! lock-free channel and returns at once.
//!
//! Invariants (RT rules): `on_tick` copies the `Copy` frame into a preallocated slot with
//! `try_send` — no allocation, no blocking, no lock (the sender only ever polls with
//! `try_recv`, so no receiver waits and the channel's waker lock is never taken). A full
//! channel drops the frame and counts it.

use std::sync::Arc;

use crossbeam_channel::Sender;
use rig_protocols::Frame;

use super::stats::TelemetryStats;
use crate::rt::stage::{RtStage, StopReason};

/// The telemetry output stage run on the RT thread.
#[derive(Debug)]
pub struct TelemetryStage {
    frames: Sender<Frame>,
    stats: Arc<TelemetryStats>,
}

impl TelemetryStage {
    pub(super) fn new(frames: Sender<Frame>, stats: Arc<TelemetryStats>) -> TelemetryStage {
        TelemetryStage { frames, stats }
    }
}

impl RtStage for TelemetryStage {
    fn name(&self) -> &'static str {
        "telemetry"
    }
    fn on_tick(&mut self, frame: &Frame) {
        if self.frames.try_send(*frame).is_err() {
            self.stats.record_frame_dropped();
        }
    }

    /// Telemetry has no physical output to make safe: receivers keep seeing the (stopped)
    /// car, which is the honest state.
    fn safe_stop(&mut self, _reason: StopReason) {}
}
