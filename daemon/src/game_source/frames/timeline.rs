//! When a game sample happened, on rigd's monotonic clock, and how often samples come.
//!
//! A sample carrying the game's own clock is placed at `game_time + offset`, where the offset
//! maps the game's clock onto arrivals: it follows the EARLIEST arrival (a packet that comes
//! earlier than the model pulls it down at once, later ones nudge it up by 1/64 of their
//! lateness, for clock drift), so transport jitter does not move samples in time. A sample
//! later than the model by more than [`REANCHOR_S`] (the game's clock stopped while packets
//! went on, or it jumped ahead) re-anchors the offset. A sample without a game clock is
//! placed at its arrival.
//!
//! The packet period (for the interpolation delay) is an average of the intervals between
//! consecutive motion samples (on the game's clock when they have one), leaving out gaps
//! longer than [`GAP_S`].

/// Lateness after which the game clock is re-anchored on the arrival clock, s.
pub const REANCHOR_S: f64 = 0.1;
/// Intervals longer than this are gaps (pause, loss), not the packet period, s.
pub const GAP_S: f64 = 0.25;
/// Weight of a new interval in the period average.
const PERIOD_GAIN: f64 = 1.0 / 16.0;
/// Share of its lateness a late sample moves the offset by.
const DRIFT_GAIN: f64 = 1.0 / 64.0;

/// The game clock's mapping onto arrivals and the measured sample period.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Timeline {
    offset_s: Option<f64>,
    last_sample_s: Option<f64>,
    period_s: Option<f64>,
}

impl Timeline {
    /// Forgets the offset and the last sample (a restart, a lost stream); keeps the period.
    pub fn restart(&mut self) {
        self.offset_s = None;
        self.last_sample_s = None;
    }

    /// Where a sample that arrived at `arrival_s` with the game clock `game_time_s` belongs
    /// on the arrival clock, s (never later than its arrival).
    pub fn place(&mut self, arrival_s: f64, game_time_s: Option<f64>) -> f64 {
        let Some(game_s) = game_time_s else {
            return arrival_s;
        };
        let offset = match self.offset_s {
            None => arrival_s - game_s,
            Some(offset) => {
                let lateness = arrival_s - (game_s + offset);
                if lateness < 0.0 {
                    offset + lateness
                } else if lateness > REANCHOR_S {
                    arrival_s - game_s
                } else {
                    offset + lateness * DRIFT_GAIN
                }
            }
        };
        self.offset_s = Some(offset);
        (game_s + offset).min(arrival_s)
    }

    /// Counts a motion sample into the period: `t_s` is its game time when it has one
    /// (exact spacing), else where it was placed.
    pub fn observe(&mut self, t_s: f64) {
        if let Some(last) = self.last_sample_s {
            let interval = t_s - last;
            if interval > 0.0 && interval < GAP_S {
                self.period_s = Some(match self.period_s {
                    None => interval,
                    Some(p) => p + (interval - p) * PERIOD_GAIN,
                });
            }
        }
        self.last_sample_s = Some(t_s);
    }

    /// The measured period between motion samples, s (`None` before two samples).
    pub fn period_s(&self) -> Option<f64> {
        self.period_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jittered_arrivals_of_a_clocked_stream_land_on_its_clock() {
        let mut timeline = Timeline::default();
        let period = 1.0 / 60.0;
        let mut worst: f64 = 0.0;
        for k in 0..600 {
            let game = f64::from(k) * period;
            // 5 ms transport delay plus 0..3 ms jitter.
            let jitter = 0.003 * f64::from((k * 7919) % 13) / 12.0;
            let placed = timeline.place(100.0 + game + 0.005 + jitter, Some(game));
            timeline.observe(game);
            if k > 60 {
                // The spacing follows the game's clock, not the jitter.
                worst = worst.max((placed - (100.0 + game + 0.005)).abs());
            }
        }
        assert!(worst < 0.0003, "placement error {worst} s");
        assert!((timeline.period_s().unwrap() - period).abs() < 1e-6);
    }

    #[test]
    fn a_stopped_game_clock_reanchors() {
        let mut timeline = Timeline::default();
        assert_eq!(timeline.place(10.0, Some(1.0)), 10.0);
        // The game clock paused for 5 s of arrivals, then goes on.
        assert_eq!(timeline.place(15.0, Some(1.01)), 15.0);
        assert!((timeline.place(15.02, Some(1.03)) - 15.02).abs() < 1e-9);
        // Without a clock: the arrival.
        assert_eq!(timeline.place(16.0, None), 16.0);
    }
}
