//! Quiet logs, from the real daemon headless: telemetry to a port nobody listens on
//! (`Connection refused` on loopback, about every other packet at 500 Hz) for 12 s gives one
//! error line for that destination (the summaries come at most once a minute), and the loop
//! health goes to the log at info at most once per 10 s (the per-second line is at debug).

mod support;

use std::net::UdpSocket;
use std::time::Duration;

use support::*;

#[test]
fn a_refused_destination_logs_one_line_and_health_is_at_info_every_ten_seconds() {
    let dir = TempDir::new("quiet-log");
    let closed_port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port(); // closed again here: nothing listens on it
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{TEST_CONFIG}\n[[telemetry]]\nformat = \"outgauge\"\nrate_hz = 500\n\
             destinations = [\"127.0.0.1:{closed_port}\"]\n"
        ),
    );
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&config, &notify, &[], &[("RUST_LOG", "info")]);
    notify.wait_for("READY=1", Duration::from_secs(20));
    let messages = notify.collect(Duration::from_secs(12));
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");

    // The errors went on all along (STATUS= counts them) ...
    let errors_at_end = messages
        .iter()
        .rev()
        .find_map(|(_, m)| {
            let after = m.split(&format!("127.0.0.1:{closed_port}: sent ")).nth(1)?;
            after
                .split(", errors ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .expect("the destination's counters in STATUS=");
    assert!(errors_at_end > 1000, "{errors_at_end} errors counted");
    // ... and the log has one line about them.
    let error_lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(&format!("127.0.0.1:{closed_port}")) && l.contains("WARN"))
        .collect();
    assert_eq!(error_lines.len(), 1, "one error line:\n{stderr}");
    assert!(
        error_lines[0].contains("Connection refused")
            && error_lines[0].contains("summarised at most once a minute")
            && error_lines[0].contains("fix:"),
        "{}",
        error_lines[0]
    );
    let health_lines = stderr
        .lines()
        .filter(|l| l.contains("INFO") && l.contains("loop health:"))
        .count();
    assert!(
        (1..=2).contains(&health_lines),
        "health at info once at start and every 10 s over 12 s: {health_lines} lines\n{stderr}"
    );
    assert!(
        stderr.lines().count() < 25,
        "a quiet log over 12 s:\n{stderr}"
    );
}
