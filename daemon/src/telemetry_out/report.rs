//! Telemetry counters in the daemon's health output: the compact per-destination text that
//! goes into systemd's `STATUS=` and the dashboard, and [`ReportLog`], which decides when the
//! per-destination lines are worth a log line.
//!
//! Rate limit: the log gets the counters once when a set of destinations starts (so the log
//! says where telemetry goes and that it flows), then only when some destination's error
//! count grew, spaced by [`WarnBackoff`] (10 s, then ever further apart up to 10 min while
//! the errors last). A destination that fails at 1 kHz therefore never costs a line per
//! packet or per second. The sender's own warning (see [`super::sender`]) is spaced the same.

use std::time::Instant;

use super::backoff::WarnBackoff;
use super::stats::{DestinationSnapshot, SendErrorKind, TelemetrySnapshot};

/// `LFS OutGauge to 127.0.0.1:4000: sent 1200, errors 600 (refused 600)`: one destination in
/// one line (the error breakdown only when there are errors).
pub fn destination_text(destination: &DestinationSnapshot) -> String {
    let mut text = format!(
        "{} to {}: sent {}, errors {}",
        destination.format.name(),
        destination.destination,
        destination.sent,
        destination.errors
    );
    if destination.errors > 0 {
        let kinds: Vec<String> = SendErrorKind::ALL
            .iter()
            .filter_map(|&kind| {
                let count = destination.errors_by_kind.get(kind);
                (count > 0).then(|| format!("{} {count}", kind.label()))
            })
            .collect();
        text += &format!(" ({})", kinds.join(", "));
    }
    text
}

/// Every destination, `; `-separated, plus the frames the sender could not keep up with
/// (when any): the telemetry part of `STATUS=`.
pub fn status_text(snapshot: &TelemetrySnapshot) -> String {
    let mut parts: Vec<String> = snapshot.destinations.iter().map(destination_text).collect();
    if snapshot.frames_dropped > 0 {
        parts.push(format!(
            "{} frame(s) dropped before the sender",
            snapshot.frames_dropped
        ));
    }
    parts.join("; ")
}

/// The lines for the log and the dashboard: one per destination, with the latest error.
pub fn destination_lines(snapshot: &TelemetrySnapshot) -> Vec<String> {
    snapshot
        .destinations
        .iter()
        .map(|destination| match &destination.last_error {
            Some(error) if destination.errors > 0 => {
                format!("{}, last: {error}", destination_text(destination))
            }
            _ => destination_text(destination),
        })
        .collect()
}

/// What [`ReportLog::due`] asks to log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// True when some destination's error count grew since the last report (log as warning).
    pub errors_grew: bool,
    /// One line per destination.
    pub lines: Vec<String>,
}

/// Remembers what the log last showed, to rate-limit the per-destination report.
#[derive(Debug, Default)]
pub struct ReportLog {
    /// (destination identity, errors) as last logged.
    logged: Vec<(String, u64)>,
    spacing: WarnBackoff,
}

impl ReportLog {
    /// A log that has shown nothing yet.
    pub fn new() -> ReportLog {
        ReportLog::default()
    }

    /// The report to log at `now` for `snapshot`, if one is due: at once for a new set of
    /// destinations (first start, reload), else when errors grew and the spacing allows.
    pub fn due(&mut self, snapshot: &TelemetrySnapshot, now: Instant) -> Option<Report> {
        let current: Vec<(String, u64)> = snapshot
            .destinations
            .iter()
            .map(|d| (format!("{} {}", d.format.name(), d.destination), d.errors))
            .collect();
        let same_set = current.len() == self.logged.len()
            && current
                .iter()
                .zip(&self.logged)
                // A reload restarts the counters: fewer errors than logged is a new set.
                .all(|((name, errors), (old_name, old_errors))| {
                    name == old_name && errors >= old_errors
                });
        let errors_grew = same_set
            && current
                .iter()
                .zip(&self.logged)
                .any(|((_, errors), (_, old))| errors > old);
        let due = if same_set {
            errors_grew && self.spacing.allow(now)
        } else {
            self.spacing.restart(now);
            !current.is_empty() || !self.logged.is_empty()
        };
        if !due {
            return None;
        }
        self.logged = current;
        Some(Report {
            errors_grew,
            lines: destination_lines(snapshot),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry_out::stats::{DestinationStats, TelemetryStats};
    use rig_protocols::telemetry::Format;
    use std::time::Duration;

    fn refused() -> std::io::Error {
        std::io::Error::from_raw_os_error(libc::ECONNREFUSED)
    }

    fn stats() -> TelemetryStats {
        TelemetryStats::new(vec![
            DestinationStats::new(Format::Native, "127.0.0.1:29777".parse().unwrap(), 60),
            DestinationStats::new(
                Format::OutGauge { id: None },
                "127.0.0.1:4000".parse().unwrap(),
                60,
            ),
        ])
    }

    #[test]
    fn destination_text_breaks_errors_down_by_kind() {
        let stats = stats();
        for _ in 0..3 {
            stats.destinations[0].record_sent();
        }
        stats.destinations[1].record_sent();
        stats.destinations[1].record_error(&refused());
        stats.destinations[1].record_error(&refused());
        stats.destinations[1].record_error(&std::io::Error::from_raw_os_error(libc::ENOBUFS));
        let snapshot = stats.snapshot();
        assert_eq!(
            status_text(&snapshot),
            "rigd native to 127.0.0.1:29777: sent 3, errors 0; \
             LFS OutGauge to 127.0.0.1:4000: sent 1, errors 3 (refused 2, no buffer 1)"
        );
        let lines = destination_lines(&snapshot);
        assert!(
            lines[1].ends_with("last: No buffer space available (os error 105)"),
            "{lines:?}"
        );
    }

    #[test]
    fn the_log_reports_once_at_start_then_only_when_errors_grow_ever_further_apart() {
        let stats = stats();
        let mut log = ReportLog::new();
        let t0 = Instant::now();
        let first = log.due(&stats.snapshot(), t0).expect("new destinations");
        assert!(!first.errors_grew);
        assert_eq!(first.lines.len(), 2);
        stats.destinations[0].record_sent();
        assert_eq!(
            log.due(&stats.snapshot(), t0 + Duration::from_secs(10)),
            None
        );

        let mut reported_at = Vec::new();
        // Errors at 1 kHz for 100 s, the health report asking every second.
        for second in 11..=100u64 {
            for _ in 0..1000 {
                stats.destinations[1].record_error(&refused());
            }
            if let Some(report) = log.due(&stats.snapshot(), t0 + Duration::from_secs(second)) {
                assert!(report.errors_grew);
                reported_at.push(second);
            }
        }
        assert_eq!(reported_at, vec![11, 31, 71], "ever further apart");
    }

    #[test]
    fn restarted_counters_are_a_new_set() {
        let mut log = ReportLog::new();
        let t0 = Instant::now();
        let before = stats();
        before.destinations[1].record_error(&refused());
        assert!(log.due(&before.snapshot(), t0).is_some());
        let after_reload = stats();
        assert!(log.due(&after_reload.snapshot(), t0).is_some());
        assert!(log.due(&TelemetrySnapshot::default(), t0).is_some());
        assert_eq!(log.due(&TelemetrySnapshot::default(), t0), None);
    }
}
