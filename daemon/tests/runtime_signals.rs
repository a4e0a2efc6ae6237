//! Signals on the real binary: SIGTERM and SIGINT run the safe stop and the process is gone
//! within 100 ms; SIGHUP with a valid file reloads (RELOADING=1, READY=1 again), with an
//! invalid file logs every problem and keeps running on the old configuration; the telemetry
//! counters of a destination the reload keeps go on (real UDP on loopback), a new one's start
//! at zero; a valid file that cannot start goes back to the running configuration.

mod support;

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use support::*;

/// Budget from the issue: signal to process exit.
const EXIT_BUDGET: Duration = Duration::from_millis(100);

fn exit_time_after(signal_number: i32, name: &str) -> (Duration, String, Option<i32>) {
    let dir = TempDir::new(name);
    let config = dir.file("rigd.toml", TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&config, &notify, &[], &[]);
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
    let mut child = spawn_rigd(&config, &notify, &[], &[]);
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
        .filter(|(_, m)| m.starts_with("STATUS=") && !m.starts_with("STATUS=loop started"))
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

/// The number after `label` in `text` (`127.0.0.1:4000: sent ` -> the sent count).
fn number_after(text: &str, label: &str) -> Option<u64> {
    let start = text.find(label)? + label.len();
    text[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

/// The first `STATUS=` whose telemetry part satisfies `predicate`, within `timeout`.
fn status_where(
    notify: &NotifySocket,
    timeout: Duration,
    predicate: impl Fn(&str) -> bool,
) -> String {
    let end = Instant::now() + timeout;
    let mut last = String::new();
    while Instant::now() < end {
        if let Some(message) = notify.recv(end - Instant::now()) {
            if message.starts_with("STATUS=") && message.contains("| telemetry:") {
                if predicate(&message) {
                    return message;
                }
                last = message;
            }
        }
    }
    panic!("no such STATUS= within {timeout:?}; the last one: {last}");
}

#[test]
fn a_reload_continues_the_counters_of_the_destinations_it_keeps() {
    let dir = TempDir::new("sighup-counters");
    // Two listening receivers (sends succeed) and a port nobody listens on (refused).
    let kept = UdpSocket::bind("127.0.0.1:0").unwrap();
    let added = UdpSocket::bind("127.0.0.1:0").unwrap();
    let closed = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let (kept, added) = (kept.local_addr().unwrap(), added.local_addr().unwrap());
    let output = |format: &str, rate_hz: u32, to: std::net::SocketAddr| {
        format!(
            "[[telemetry]]\nformat = \"{format}\"\nrate_hz = {rate_hz}\n\
             destinations = [\"{to}\"]\n\n"
        )
    };
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{TEST_CONFIG}\n{}{}",
            output("native", 200, kept),
            output("outgauge", 100, closed)
        ),
    );
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&config, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(20));
    let kept_sent = format!("{kept}: sent ");
    let closed_errors = format!("{closed}: sent ");
    // About two seconds at 200 Hz.
    let before = status_where(&notify, Duration::from_secs(30), |s| {
        number_after(s, &kept_sent).is_some_and(|sent| sent >= 400)
    });
    let sent_before = number_after(&before, &kept_sent).unwrap();
    let errors_before = before
        .split(&closed_errors)
        .nth(1)
        .and_then(|rest| number_after(rest, "errors "))
        .expect("the closed port's errors in STATUS=");
    assert!(errors_before > 0, "{before}");

    // The kept native destination at another rate (same format and address: kept), the
    // OutGauge one unchanged, and a new native destination.
    std::fs::write(
        &config,
        format!(
            "{TEST_CONFIG}\n{}{}{}",
            output("native", 100, kept),
            output("outgauge", 100, closed),
            output("native", 100, added)
        ),
    )
    .unwrap();
    signal(&child, libc::SIGHUP);
    notify.wait_for("RELOADING=1", Duration::from_secs(10));
    notify.wait_for("READY=1", Duration::from_secs(10));
    let added_sent = format!("{added}: sent ");
    let after = status_where(&notify, Duration::from_secs(10), |s| {
        s.contains(&added_sent)
    });
    let sent_after = number_after(&after, &kept_sent).unwrap();
    let errors_after = after
        .split(&closed_errors)
        .nth(1)
        .and_then(|rest| number_after(rest, "errors "))
        .unwrap();
    assert!(
        sent_after >= sent_before,
        "the kept destination's count went on: {sent_before} before, {sent_after} after\n{after}"
    );
    assert!(
        errors_after >= errors_before,
        "the refused count went on: {errors_before} before, {errors_after} after\n{after}"
    );
    // The new destination started at zero: it has sent for as long as the kept one since
    // the reload, so it trails by the kept one's count from before.
    let added_count = number_after(&after, &added_sent).unwrap();
    assert!(
        added_count + sent_before <= sent_after + 50,
        "the new destination starts at zero: {added_count} sent\n{after}"
    );

    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    assert_eq!(status.code(), Some(0), "{}", stderr_of(&mut child));
}

#[test]
fn sighup_with_a_valid_file_that_cannot_start_goes_back_to_the_running_one() {
    let dir = TempDir::new("sighup-unstartable");
    let config = dir.file("rigd.toml", TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&config, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(20));

    // Valid (check-config passes it), but a link-local IPv6 address without an interface
    // cannot be sent to from any socket: the new outputs fail to start.
    std::fs::write(
        &config,
        format!(
            "{TEST_CONFIG}[[telemetry]]\nformat = \"native\"\ndestinations = [\"[fe80::1]:29999\"]\n"
        ),
    )
    .unwrap();
    signal(&child, libc::SIGHUP);
    notify.wait_for("RELOADING=1", Duration::from_secs(10));
    notify.wait_for(
        "STATUS=reload failed, running the previous configuration",
        Duration::from_secs(10),
    );
    let live = status_where(&notify, Duration::from_secs(5), |_| true);
    assert!(!live.starts_with("STATUS=loop started"), "{live}");
    assert!(
        child.0.try_wait().unwrap().is_none(),
        "rigd must keep running after a reload that could not start"
    );

    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("reload failed: cannot start the outputs"),
        "{stderr}"
    );
    assert!(
        stderr.contains("running the previous configuration again"),
        "{stderr}"
    );
    assert!(!stderr.contains("configuration reloaded"), "{stderr}");
}
