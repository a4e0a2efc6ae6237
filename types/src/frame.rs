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
}
