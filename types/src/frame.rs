//! The frame rigd publishes every tick: one car's telemetry plus the daemon's own state (loop
//! health, force-feedback status). Telemetry encoders take a `&Frame`; the native packet
//! carries every field of it.

use crate::telemetry::CarTelemetry;

/// Real-time loop health, as published by the RT thread (fixed-size, `Copy`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LoopHealth {
    /// Ticks run since start.
    pub ticks: u64,
    /// Measured tick rate over the last second, Hz.
    pub tick_rate_hz: f64,
    /// Wake latency percentiles over the last second, microseconds.
    pub wake_latency_p50_us: f64,
    /// 99th percentile wake latency, microseconds.
    pub wake_latency_p99_us: f64,
    /// Worst wake latency, microseconds.
    pub wake_latency_max_us: f64,
    /// 99th percentile of a tick's work over the last second, microseconds: from waking to
    /// the end of the tick (physics steps, every output stage, the hand-offs).
    pub tick_work_p99_us: f64,
    /// 99th percentile of one physics step's duration over the last second, microseconds
    /// (robot drivers and the world's step alone, without the output stages).
    pub physics_step_p99_us: f64,
    /// Ticks that woke more than 250 us late, since start.
    pub late_ticks_250us: u64,
    /// Ticks that woke more than 1 ms late, since start.
    pub late_ticks_1ms: u64,
    /// Simulation time dropped after catch-up was exhausted, since start, ms.
    pub dropped_time_ms: f64,
}

/// Force-feedback state as seen by telemetry and the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FfbStatus {
    /// True when a force-feedback device is driven.
    pub active: bool,
    /// Commanded output as a fraction of the device's maximum, -1 ..= 1.
    pub output: f64,
    /// True when this tick's output was clipped.
    pub clipping: bool,
    /// Share of recent ticks that clipped, 0 ..= 1.
    pub clipping_share: f64,
    /// Why the force is held at zero, if it is.
    pub hold: FfbHold,
}

/// Why force feedback is held at zero (the force ramps in again once the cause is gone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum FfbHold {
    /// Not held: the force follows the physics (or no FFB device is configured).
    #[default]
    None = 0,
    /// rigd is stopping or reloading its configuration.
    Stopping = 1,
    /// A safety fault: the loop missed `fault_after_missed_ticks` deadlines in a row, or the
    /// physics gave a non-finite value; released after one second on time.
    Fault = 2,
    /// The e-stop button is latched.
    EmergencyStop = 3,
    /// The FFB device is not open (unplugged, no permission, no FF_CONSTANT).
    NoDevice = 4,
    /// The physics loop stopped ticking; the FFB writer zeroed the force by itself.
    LoopStalled = 5,
}

impl FfbHold {
    /// Every hold, in code order.
    pub const ALL: [FfbHold; 6] = [
        FfbHold::None,
        FfbHold::Stopping,
        FfbHold::Fault,
        FfbHold::EmergencyStop,
        FfbHold::NoDevice,
        FfbHold::LoopStalled,
    ];

    /// The hold with wire code `code` (unknown codes read as `None`).
    pub fn from_code(code: u8) -> FfbHold {
        FfbHold::ALL
            .get(usize::from(code))
            .copied()
            .unwrap_or(FfbHold::None)
    }

    /// The wire code (0 = not held).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Short text for the dashboard and `STATUS=`.
    pub fn label(self) -> &'static str {
        match self {
            FfbHold::None => "on",
            FfbHold::Stopping => "stopping",
            FfbHold::Fault => "fault hold",
            FfbHold::EmergencyStop => "e-stop",
            FfbHold::NoDevice => "no device",
            FfbHold::LoopStalled => "loop stalled",
        }
    }

    /// Why the force is held and what to do, for the log.
    pub fn explanation(self) -> &'static str {
        match self {
            FfbHold::None => "force feedback is on",
            FfbHold::Stopping => "rigd is stopping or reloading",
            FfbHold::Fault => {
                "safety fault: the physics loop missed realtime.fault_after_missed_ticks                  deadlines in a row or gave a non-finite value; force ramps in again after one                  second on time (if it keeps happening, run `rigd bench loop` and see the                  realtime section of the README)"
            }
            FfbHold::EmergencyStop => "the e-stop is latched: press the e-stop button again to re-arm",
            FfbHold::NoDevice => {
                "the FFB device is not open: plug it in, check `rigd devices` and the                  permissions of its event node"
            }
            FfbHold::LoopStalled => {
                "the physics loop stopped ticking; the FFB writer zeroed the force by itself"
            }
        }
    }
}

#[cfg(test)]
mod ffb_hold_tests {
    use super::FfbHold;

    #[test]
    fn codes_round_trip_and_unknown_codes_read_as_not_held() {
        for hold in FfbHold::ALL {
            assert_eq!(FfbHold::from_code(hold.code()), hold);
        }
        assert_eq!(FfbHold::from_code(6), FfbHold::None);
        assert_eq!(FfbHold::LoopStalled.code(), 5);
    }
}

/// The motion platforms' holds as telemetry carries them (issue 24): the safety state and hold
/// cause of one platform (the first one held, else the first one), and the hold counters
/// summed over every platform. Codes, so listeners need no rigd types: see
/// `docs/telemetry-native.md` ("motion holds").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MotionHoldTelemetry {
    /// Motion platforms running (0: none, and every other field is 0).
    pub platforms: u8,
    /// Platforms holding now (parked, parking or faded out of their cues for a cause).
    pub held: u8,
    /// Safety state of the reported platform: 0 connecting, 1 parked, 2 raising, 3 active,
    /// 4 holding, 5 idle, 6 parking.
    pub state: u8,
    /// Cause of its hold in progress (0: none): 1 rigd stops, 2 reload, 3 loop fault (late
    /// loop or bad physics), 4 e-stop, 5 nobody drives, 6 game source not live, 7 stale data,
    /// 8 no controller link.
    pub cause: u8,
    /// Cause of its latest hold (same codes; 0: never held).
    pub latest: u8,
    /// Holds since the platforms started, every platform and cause.
    pub holds: u32,
    /// Of them: loop faults.
    pub fault_holds: u32,
    /// Of them: e-stops.
    pub estop_holds: u32,
    /// Of them: stale data.
    pub stale_holds: u32,
}

/// Everything rigd publishes about one car for one tick.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Frame {
    /// Tick sequence number.
    pub sequence: u32,
    /// Index of the car this frame describes (0 = the player car).
    pub car_index: u16,
    /// The car's channels.
    pub car: CarTelemetry,
    /// Loop health.
    pub health: LoopHealth,
    /// Force-feedback state.
    pub ffb: FfbStatus,
    /// The motion platforms' holds (as of the previous tick's motion stages).
    pub motion: MotionHoldTelemetry,
}
