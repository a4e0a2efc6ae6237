//! Signals on the real binary: SIGTERM and SIGINT run the safe stop and the process is gone
//! within 100 ms; SIGHUP with a valid file reloads (RELOADING=1, READY=1 again), with an
//! invalid file logs every problem and keeps running on the old configuration.

mod support;

use std::time::{Duration, Instant};

use support::*;

/// Budget from the issue: signal to process exit.
const EXIT_BUDGET: Duration = Duration::from_millis(100);

fn exit_time_after(signal_number: i32, name: &str) -> (Duration, String, Option<i32>) {
    let dir = TempDir::new(name);
    let config = dir.file("rigd.toml", TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = KillOnDrop(spawn_rigd(&config, &notify, &[], &[]));
    notify.wait_for("READY=1", Duration::from_secs(20));
    // Let it tick for a moment, as a running rig would.
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    signal(&child, signal_number);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let took = sent.elapsed();
    (took, stderr_of(&mut child), status.code())
}

#[test]
fn sigterm_safe_stops_and_exits_within_100_ms() {
    let (took, stderr, code) = exit_time_after(libc::SIGTERM, "sigterm");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("every output is in its safe state"),
        "{stderr}"
    );
    assert!(took < EXIT_BUDGET, "exit took {took:?}\n{stderr}");
}

#[test]
fn sigint_safe_stops_and_exits_within_100_ms() {
    let (took, stderr, code) = exit_time_after(libc::SIGINT, "sigint");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("every output is in its safe state"),
        "{stderr}"
    );
    assert!(took < EXIT_BUDGET, "exit took {took:?}\n{stderr}");
}

#[test]
fn sighup_applies_a_valid_file_and_keeps_running_on_an_invalid_one() {
    let dir = TempDir::new("sighup");
    let config = dir.file("rigd.toml", TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = KillOnDrop(spawn_rigd(&config, &notify, &[], &[]));
    notify.wait_for("READY=1", Duration::from_secs(20));

    // Valid: two robot cars more. The loop is stopped, rebuilt and ready again.
    std::fs::write(&config, format!("{TEST_CONFIG}[sim]\nrobots = 2\n")).unwrap();
    signal(&child, libc::SIGHUP);
    notify.wait_for("RELOADING=1", Duration::from_secs(10));
    notify.wait_for("READY=1", Duration::from_secs(10));

    // Invalid: rejected with its position, the daemon keeps ticking (STATUS keeps coming
    // with a live tick rate).
    std::fs::write(&config, "[loop]\nrate_hz = 7\n").unwrap();
    signal(&child, libc::SIGHUP);
    std::thread::sleep(Duration::from_millis(300));
    let statuses = notify.collect(Duration::from_millis(2500));
    assert!(
        !statuses.iter().any(|(_, m)| m.contains("RELOADING=1")),
        "an invalid file must not stop the loop: {statuses:?}"
    );
    let live = statuses
        .iter()
        .filter(|(_, m)| m.starts_with("STATUS=") && !m.starts_with("STATUS=0 Hz"))
        .count();
    assert!(
        live >= 1,
        "still running after the rejected reload: {statuses:?}"
    );

    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("configuration reloaded"), "{stderr}");
    assert!(
        stderr.contains("rigd.toml:2:1: loop.rate_hz: 7 is outside"),
        "{stderr}"
    );
    assert!(
        stderr.contains("keeping the running configuration"),
        "{stderr}"
    );
}
