//! Telemetry counters in the daemon's health output: the compact per-destination text that
//! goes into systemd's `STATUS=` and the dashboard, and [`ReportLog`], which decides when the
//! per-destination lines are worth a log line.
//!
//! Rate limit: the log gets the counters once when a set of destinations starts (so the log
//! says where telemetry goes), and not again until the set changes (a reload): errors are the
//! sender's to log (see [`super::sender`]: the first at once, then at most one summary a
//! minute), and `STATUS=` and the dashboard show the live counters.

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

/// Remembers which destinations the log last showed.
#[derive(Debug, Default)]
pub struct ReportLog {
    /// (destination identity, errors) as last logged.
    logged: Vec<(String, u64)>,
}

impl ReportLog {
    /// A log that has shown nothing yet.
    pub fn new() -> ReportLog {
        ReportLog::default()
    }

    /// The lines to log for `snapshot`, if they are due: once for each new set of destinations
    /// (first start, a reload that changed them or restarted their counters).
    pub fn due(&mut self, snapshot: &TelemetrySnapshot) -> Option<Vec<String>> {
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
        if same_set {
            // Keep the counts current, so a later restart (fewer errors) is seen.
            self.logged = current;
            return None;
        }
        let due = !current.is_empty() || !self.logged.is_empty();
        self.logged = current;
        due.then(|| destination_lines(snapshot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry_out::stats::{DestinationStats, TelemetryStats};
    use rig_protocols::telemetry::Format;

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
    fn the_log_reports_each_set_of_destinations_once_and_leaves_errors_to_the_sender() {
        let stats = stats();
        let mut log = ReportLog::new();
        let first = log.due(&stats.snapshot()).expect("new destinations");
        assert_eq!(first.len(), 2);
        // Errors at 1 kHz for 100 s, the health report asking every second: no more lines.
        for _ in 11..=100u64 {
            for _ in 0..1000 {
                stats.destinations[1].record_error(&refused());
            }
            stats.destinations[0].record_sent();
            assert_eq!(log.due(&stats.snapshot()), None);
        }
    }

    #[test]
    fn restarted_counters_are_a_new_set() {
        let mut log = ReportLog::new();
        let before = stats();
        before.destinations[1].record_error(&refused());
        assert!(log.due(&before.snapshot()).is_some());
        let after_reload = stats();
        assert!(log.due(&after_reload.snapshot()).is_some());
        assert!(log.due(&TelemetrySnapshot::default()).is_some());
        assert_eq!(log.due(&TelemetrySnapshot::default()), None);
    }
}
