//! systemd integration on the real binary, against a notify socket bound here: READY=1 once
//! the loop ticks, STATUS= with tick rate and p99, WATCHDOG=1 while the RT thread ticks, and
//! no WATCHDOG=1 once it stalls (hidden test hook `--test-stall-rt-after-ms`).

mod support;

use std::time::Duration;

use support::*;

#[test]
fn watchdog_is_petted_while_ticking_and_not_once_the_loop_stalls() {
    let dir = TempDir::new("watchdog");
    let config = dir.file("rigd.toml", TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    // WATCHDOG_USEC 200 ms: petted every 100 ms. The loop stalls 1.5 s after start; the
    // default stall timeout is 250 ms.
    let mut child = spawn_rigd(
        &config,
        &notify,
        &["--test-stall-rt-after-ms", "1500"],
        &[("WATCHDOG_USEC", "200000")],
    );
    let before_ready = notify.wait_for("READY=1", Duration::from_secs(20));
    let ready_at = before_ready.last().unwrap().0;

    let ticking = notify.collect(Duration::from_millis(1300));
    let pets_while_ticking = ticking.iter().filter(|(_, m)| m == "WATCHDOG=1").count();
    assert!(
        pets_while_ticking >= 5,
        "petted every ~100 ms while ticking: {ticking:?}"
    );
    let status = ticking
        .iter()
        .find(|(_, m)| m.starts_with("STATUS="))
        .map(|(_, m)| m.clone())
        .unwrap_or_else(|| panic!("STATUS= once a second: {ticking:?}"));
    assert!(
        status.contains(" Hz") && status.contains("wake p99"),
        "{status}"
    );
    // Both timing channels, each under its own name (tick work is not the physics step).
    assert!(
        status.contains("tick work p99") && status.contains("physics step p99"),
        "{status}"
    );

    // From 1.5 s (stall) + 0.25 s (stall timeout) + margin on: no more pets.
    let quiet_from = ready_at + Duration::from_millis(2200);
    let later = notify.collect(Duration::from_millis(3200));
    let late_pets: Vec<_> = later
        .iter()
        .filter(|(at, m)| *at > quiet_from && m == "WATCHDOG=1")
        .collect();
    assert!(
        late_pets.is_empty(),
        "watchdog petted while the loop is stalled: {late_pets:?}"
    );
    let stalled_status = later
        .iter()
        .any(|(at, m)| *at > quiet_from && m.starts_with("STATUS=physics loop stalled"));
    assert!(stalled_status, "STATUS says the loop stalled: {later:?}");

    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    assert_eq!(
        status.code(),
        Some(0),
        "a stalled loop still exits on SIGTERM: {stderr}"
    );
    assert!(stderr.contains("physics loop stalled"), "{stderr}");
}
