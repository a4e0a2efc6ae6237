//! When the loop-health line goes to the log at info level: the main thread builds it once a
//! second (debug level), and [`HealthLog`] lifts it to info every [`INFO_EVERY`] and at once on
//! a change of state (the loop stalled or ticking again, idle or at its full rate), so a
//! service's journal gets six health lines a minute, not sixty, and never misses a change.

use std::time::{Duration, Instant};

/// How often the health line is logged at info while nothing changes.
pub const INFO_EVERY: Duration = Duration::from_secs(10);

/// The last health line logged at info, and the state it showed.
#[derive(Debug, Default)]
pub struct HealthLog<S> {
    last: Option<(Instant, S)>,
}

impl<S: PartialEq + Copy> HealthLog<S> {
    /// True when the line for `state` at `now` goes to the log at info (it then counts as
    /// logged); false: at debug.
    pub fn at_info(&mut self, now: Instant, state: S) -> bool {
        let due = match self.last {
            None => true,
            Some((at, was)) => was != state || now.saturating_duration_since(at) >= INFO_EVERY,
        };
        if due {
            self.last = Some((now, state));
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_every_ten_seconds_and_at_once_on_a_change() {
        let t0 = Instant::now();
        let mut log = HealthLog::default();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let info: Vec<u64> = (0..35)
            .filter(|&s| log.at_info(at(s), if (15..17).contains(&s) { 'x' } else { 'a' }))
            .collect();
        // 0, 10; the change at 15 and back at 17; then ten seconds after that.
        assert_eq!(info, vec![0, 10, 15, 17, 27]);
    }
}
