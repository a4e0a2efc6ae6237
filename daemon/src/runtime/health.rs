//! Loop health as the RT thread measures it: wake latency, tick work and physics step
//! histograms (fixed size), late-tick and missed-tick counters, dropped time; summarised into
//! a [`LoopHealth`] once per second of wall time.
//!
//! Tick work runs from waking to the end of the tick (physics steps, every output stage, the
//! hand-offs); the physics step is one world step alone. The gap between them is what the
//! stages cost.
//!
//! Idle wake-ups (nobody drives, [`HealthRecorder::record_idle_wake`]) only roll the window:
//! they step no physics and do not spin, so they are no sample of the loop's timing.
//!
//! Two sets of histograms: the current one-second window (its percentiles go into every
//! Frame, so dashboards and telemetry see the last second) and totals since start (for
//! `rigd bench loop`). Everything is allocated in [`HealthRecorder::new`]; recording never
//! allocates.

use rig_protocols::LoopHealth;

use super::histogram::Histogram;

/// Wake-ups later than this count as late (first threshold), ns.
const LATE_250US_NS: u64 = 250_000;
/// Wake-ups later than this count as late (second threshold), ns.
const LATE_1MS_NS: u64 = 1_000_000;
/// Wake-ups later than this are counted too (cyclictest's usual first bucket), ns.
const LATE_100US_NS: u64 = 100_000;
const WINDOW_NS: u64 = 1_000_000_000;

/// Whether `health` holds a measurement: false until the loop's first one-second window
/// closes (a loop that has just started or been reloaded has no rate yet, and its "0 Hz"
/// would read as stalled).
pub fn first_window_closed(health: &LoopHealth) -> bool {
    health.tick_rate_hz > 0.0
}

/// The tick rate for people to read: "-" until [`first_window_closed`].
pub fn tick_rate_text(health: &LoopHealth) -> String {
    if first_window_closed(health) {
        format!("{:.0}", health.tick_rate_hz)
    } else {
        "-".to_string()
    }
}

/// Totals since start, for benchmarks and the exit summary.
#[derive(Debug, Clone, Default)]
pub struct HealthTotals {
    /// Wake latency of every wake-up.
    pub wake: Histogram,
    /// Work per wake-up: from waking to the end of the tick (physics and stages).
    pub work: Histogram,
    /// Duration of each physics step alone.
    pub physics_step: Histogram,
    /// Wake-ups more than 100 us late.
    pub late_100us: u64,
    /// Wake-ups more than 250 us late.
    pub late_250us: u64,
    /// Wake-ups more than 1 ms late.
    pub late_1ms: u64,
    /// Deadlines that passed while the loop was late (caught up or dropped).
    pub missed_ticks: u64,
    /// Physics steps run.
    pub steps: u64,
    /// Simulation time dropped because catch-up was exhausted, ns.
    pub dropped_ns: u64,
}

/// Records per-tick measurements and keeps the published [`LoopHealth`] current.
#[derive(Debug)]
pub struct HealthRecorder {
    period_ns: u64,
    window_wake: Histogram,
    window_work: Histogram,
    window_physics_step: Histogram,
    window_start_ns: u64,
    window_steps: u64,
    totals: HealthTotals,
    published: LoopHealth,
}

impl HealthRecorder {
    /// A recorder for a loop with the given tick period; the first window starts at `now_ns`.
    pub fn new(period_ns: u64, now_ns: u64) -> HealthRecorder {
        HealthRecorder {
            period_ns,
            window_wake: Histogram::new(),
            window_work: Histogram::new(),
            window_physics_step: Histogram::new(),
            window_start_ns: now_ns,
            window_steps: 0,
            totals: HealthTotals {
                wake: Histogram::new(),
                work: Histogram::new(),
                physics_step: Histogram::new(),
                ..HealthTotals::default()
            },
            published: LoopHealth::default(),
        }
    }

    /// Records a wake-up `latency_ns` after its deadline that ran `steps` physics steps and
    /// skipped `missed` deadlines, `dropped` of which were not caught up.
    pub fn record_wake(&mut self, latency_ns: u64, steps: u32, missed: u64, dropped: u64) {
        self.window_wake.record(latency_ns);
        self.totals.wake.record(latency_ns);
        self.totals.late_100us += u64::from(latency_ns > LATE_100US_NS);
        self.totals.late_250us += u64::from(latency_ns > LATE_250US_NS);
        self.totals.late_1ms += u64::from(latency_ns > LATE_1MS_NS);
        self.totals.missed_ticks += missed;
        self.totals.dropped_ns += dropped * self.period_ns;
        self.totals.steps += u64::from(steps);
        self.window_steps += u64::from(steps);
    }

    /// Records how long one physics step took.
    pub fn record_physics_step(&mut self, step_ns: u64) {
        self.window_physics_step.record(step_ns);
        self.totals.physics_step.record(step_ns);
    }

    /// Records the work of the tick that woke last, and rolls the one-second window at
    /// `now_ns` when it is over.
    pub fn record_work(&mut self, work_ns: u64, now_ns: u64) {
        self.window_work.record(work_ns);
        self.totals.work.record(work_ns);
        self.roll_window(now_ns);
    }

    /// Records an idle wake-up at `now_ns` (nobody drives: no physics step, no spin, so
    /// neither its lateness nor its work is a sample of the loop's timing) and rolls the
    /// window when it is over; an idle window publishes a tick rate of 0 (no physics steps).
    pub fn record_idle_wake(&mut self, now_ns: u64) {
        self.roll_window(now_ns);
    }

    fn roll_window(&mut self, now_ns: u64) {
        let elapsed = now_ns.saturating_sub(self.window_start_ns);
        if elapsed >= WINDOW_NS {
            self.published = LoopHealth {
                ticks: self.totals.steps,
                tick_rate_hz: self.window_steps as f64 * 1e9 / elapsed as f64,
                wake_latency_p50_us: self.window_wake.percentile_us(50.0),
                wake_latency_p99_us: self.window_wake.percentile_us(99.0),
                wake_latency_max_us: self.window_wake.max_us(),
                tick_work_p99_us: self.window_work.percentile_us(99.0),
                physics_step_p99_us: self.window_physics_step.percentile_us(99.0),
                late_ticks_250us: self.totals.late_250us,
                late_ticks_1ms: self.totals.late_1ms,
                dropped_time_ms: self.totals.dropped_ns as f64 / 1e6,
            };
            self.window_wake.clear();
            self.window_work.clear();
            self.window_physics_step.clear();
            self.window_steps = 0;
            self.window_start_ns = now_ns;
        } else {
            self.published.ticks = self.totals.steps;
            self.published.late_ticks_250us = self.totals.late_250us;
            self.published.late_ticks_1ms = self.totals.late_1ms;
            self.published.dropped_time_ms = self.totals.dropped_ns as f64 / 1e6;
        }
    }

    /// The health to publish with this tick's frame.
    pub fn current(&self) -> LoopHealth {
        self.published
    }

    /// Totals since start.
    pub fn totals(&self) -> &HealthTotals {
        &self.totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_rolls_after_a_second_and_counts_late_ticks() {
        let period = 1_000_000;
        let mut h = HealthRecorder::new(period, 0);
        let mut now = 0;
        for i in 0..1000u64 {
            now += period;
            let latency = if i == 10 { 1_500_000 } else { 30_000 };
            h.record_wake(latency, 1, u64::from(i == 10), 0);
            h.record_physics_step(if i % 200 == 0 { 9_000 } else { 4_000 });
            h.record_work(20_000, now);
        }
        let health = h.current();
        assert_eq!(health.ticks, 1000);
        assert!((health.tick_rate_hz - 1000.0).abs() < 1.0, "{health:?}");
        assert_eq!(health.wake_latency_p50_us, 30.0 + 1.0);
        assert_eq!(health.wake_latency_max_us, 1500.0);
        assert_eq!(health.late_ticks_250us, 1);
        assert_eq!(health.late_ticks_1ms, 1);
        assert_eq!(h.totals().missed_ticks, 1);
        // Every work sample is 20 us: the bucket edge (21) is capped at the exact maximum.
        assert_eq!(health.tick_work_p99_us, 20.0);
        // 995 steps of 4 us and 5 of 9 us: the p99 is the 4 us bucket's upper edge, and the
        // physics channel is its own, not the tick work.
        assert_eq!(health.physics_step_p99_us, 5.0);
        assert_eq!(h.totals().physics_step.samples(), 1000);
    }

    #[test]
    fn dropped_deadlines_add_their_periods_to_dropped_time() {
        let mut h = HealthRecorder::new(1_000_000, 0);
        h.record_wake(30_000_000, 6, 30, 25);
        h.record_work(10_000, 500_000);
        assert_eq!(h.current().dropped_time_ms, 25.0);
    }
}
