//! Spacing of repeated warnings about a lasting condition (a telemetry destination that keeps
//! failing): the first at once, the next after [`FIRST_INTERVAL`], then twice as far apart
//! each time while the condition lasts, up to [`MAX_INTERVAL`]. A destination refused at
//! 1 kHz all day costs a few hundred log lines, not one per packet or per ten seconds; once the
//! warnings stop for more than twice the current interval (the condition ended), the next one
//! starts the series again.

use std::time::{Duration, Instant};

/// Gap after the first warning.
pub const FIRST_INTERVAL: Duration = Duration::from_secs(10);
/// Widest gap between two warnings.
pub const MAX_INTERVAL: Duration = Duration::from_secs(600);

/// When the next warning of one series may be logged.
#[derive(Debug, Clone)]
pub struct WarnBackoff {
    last: Option<Instant>,
    interval: Duration,
}

impl Default for WarnBackoff {
    fn default() -> Self {
        WarnBackoff::new()
    }
}

impl WarnBackoff {
    /// A series with nothing logged yet.
    pub fn new() -> WarnBackoff {
        WarnBackoff {
            last: None,
            interval: FIRST_INTERVAL,
        }
    }

    /// True when a warning may be logged at `now`; it then counts as logged.
    pub fn allow(&mut self, now: Instant) -> bool {
        if let Some(last) = self.last {
            let since = now.saturating_duration_since(last);
            if since < self.interval {
                return false;
            }
            self.interval = if since < self.interval * 2 {
                (self.interval * 2).min(MAX_INTERVAL)
            } else {
                FIRST_INTERVAL
            };
        }
        self.last = Some(now);
        true
    }

    /// Starts a new series with a warning logged at `now` (the next one after
    /// [`FIRST_INTERVAL`]).
    pub fn restart(&mut self, now: Instant) {
        self.last = Some(now);
        self.interval = FIRST_INTERVAL;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seconds (of `0..seconds`) at which a condition lasting the whole time is logged, asked
    /// every second.
    fn logged_at(backoff: &mut WarnBackoff, t0: Instant, seconds: u64) -> Vec<u64> {
        (0..seconds)
            .filter(|&s| backoff.allow(t0 + Duration::from_secs(s)))
            .collect()
    }

    #[test]
    fn a_lasting_condition_is_logged_ever_further_apart_up_to_the_cap() {
        let t0 = Instant::now();
        let mut backoff = WarnBackoff::new();
        assert_eq!(
            logged_at(&mut backoff, t0, 320),
            vec![0, 10, 30, 70, 150, 310]
        );
        let mut day = WarnBackoff::new();
        let count = logged_at(&mut day, t0, 86_400).len();
        // 0..=310 s: 6 lines, then one per 10 min for the rest of the day.
        assert!((140..=150).contains(&count), "{count} lines in a day");
    }

    #[test]
    fn a_condition_that_returns_after_a_quiet_time_starts_again() {
        let t0 = Instant::now();
        let mut backoff = WarnBackoff::new();
        assert_eq!(logged_at(&mut backoff, t0, 40), vec![0, 10, 30]);
        // Quiet for ten minutes (more than twice the 40 s interval), then failing again.
        let later = t0 + Duration::from_secs(640);
        assert!(backoff.allow(later));
        assert!(!backoff.allow(later + Duration::from_secs(9)));
        assert!(backoff.allow(later + Duration::from_secs(10)));
    }
}
