//! When a lasting error goes to the log (a telemetry destination that keeps failing, e.g.
//! `Connection refused` while nothing listens): the first occurrence at once, with the error
//! and the fix; after that at most one summary a minute ([`SUMMARY_EVERY`]) while errors go on,
//! with how many there were since the last line and the latest one. A destination refused at
//! 1 kHz costs one line, then one a minute, never one per packet or per second.

use std::time::{Duration, Instant};

/// The shortest gap between two summaries of one destination's errors.
pub const SUMMARY_EVERY: Duration = Duration::from_secs(60);

/// Which line an error asks for now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorLine {
    /// The first error: log it with the fix.
    First,
    /// A summary is due: the count since the last line and the latest error.
    Summary,
    /// Nothing: the next summary is not due yet.
    Quiet,
}

/// The log's memory of one destination's errors.
#[derive(Debug, Clone, Default)]
pub struct ErrorLog {
    last_line: Option<Instant>,
}

impl ErrorLog {
    /// Nothing logged yet.
    pub fn new() -> ErrorLog {
        ErrorLog::default()
    }

    /// The line an error at `now` asks for (a line that is due counts as logged).
    pub fn on_error(&mut self, now: Instant) -> ErrorLine {
        let line = match self.last_line {
            None => ErrorLine::First,
            Some(at) if now.saturating_duration_since(at) >= SUMMARY_EVERY => ErrorLine::Summary,
            Some(_) => return ErrorLine::Quiet,
        };
        self.last_line = Some(now);
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_error_at_once_then_one_summary_a_minute() {
        let t0 = Instant::now();
        let mut log = ErrorLog::new();
        // An error every second for ten minutes.
        let lines: Vec<(u64, ErrorLine)> = (0..600)
            .map(|s| (s, log.on_error(t0 + Duration::from_secs(s))))
            .filter(|(_, line)| *line != ErrorLine::Quiet)
            .collect();
        assert_eq!(lines[0], (0, ErrorLine::First));
        assert_eq!(lines[1], (60, ErrorLine::Summary));
        assert_eq!(lines.len(), 10, "{lines:?}");
        assert!(lines[1..]
            .iter()
            .all(|(_, line)| *line == ErrorLine::Summary));
        // Errors that come back after a quiet time are summarised at once.
        assert_eq!(
            log.on_error(t0 + Duration::from_secs(900)),
            ErrorLine::Summary
        );
    }
}
