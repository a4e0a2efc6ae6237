//! The shared state a session's threads meet through, built when a session starts and passed
//! down to the input threads, the output stages and the RT loop (nothing of it is a
//! module-level static, so sessions and tests in one process never share it by accident).
//!
//! Per session: the FFB link (rim motion, e-stop latch, device and FFB status) and the
//! gamepad rumble link, the motion platforms' hold slots. Per run, handed to each of its sessions: the telemetry counters (a
//! reload's sender continues them) and the park-on-panic state of the motion writers.

use std::sync::Arc;

use crate::ffb::FfbLink;
use crate::input::rumble::RumbleLink;
use crate::motion::hold::MotionHolds;
use crate::motion::panic_park::PanicPark;
use crate::telemetry_out::TelemetryCounters;

/// What one session's threads share.
#[derive(Debug, Clone)]
pub struct SessionLinks {
    /// The player rim's FFB state: input thread, FFB stage and writer, RT loop.
    pub ffb: Arc<FfbLink>,
    /// The gamepad's rumble command: rumble stage and gamepad thread.
    pub rumble: Arc<RumbleLink>,
    /// The run's telemetry counters (health output reads them).
    pub telemetry: Arc<TelemetryCounters>,
    /// The run's park-on-panic state of the motion writers.
    pub panic_park: Arc<PanicPark>,
    /// The motion platforms' holds (health thread: log, `STATUS=`, dashboard).
    pub motion: Arc<MotionHolds>,
}

impl SessionLinks {
    /// Fresh per-session links for a session of the run that owns `telemetry` and
    /// `panic_park`.
    pub fn new(telemetry: Arc<TelemetryCounters>, panic_park: Arc<PanicPark>) -> SessionLinks {
        SessionLinks {
            ffb: FfbLink::new(),
            rumble: Arc::new(RumbleLink::default()),
            telemetry,
            panic_park,
            motion: Arc::default(),
        }
    }

    /// Links for a session that is a run of its own (`rigd bench loop`, tests).
    pub fn standalone() -> SessionLinks {
        SessionLinks::new(Arc::default(), PanicPark::new())
    }
}
