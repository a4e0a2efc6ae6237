//! Who drives, from the real daemon: `rigd run` with examples/g29.toml on a machine without the
//! wheel (this one has no input devices at all) warns once that the configured wheel is not
//! connected, says who drives in the log and in systemd's `STATUS=` (nobody, so the loop
//! idles: its physics step count stands still; or the robot with `--robot`, at the full rate),
//! and keeps quiet about it afterwards.

mod support;

use std::time::Duration;

use support::*;

const MISSING: &str = "wheel 'wheel' (046d:c24f) not found; plug it in";

/// examples/g29.toml with the test machine's `[loop]` settings (`loop` is the `[loop]` text).
fn g29_config(dir: &TempDir, loop_settings: &str) -> std::path::PathBuf {
    let g29 = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/g29.toml"))
        .unwrap();
    dir.file("g29.toml", &format!("{loop_settings}\n{g29}"))
}

/// The `STATUS=` messages of `messages`, without the prefix.
fn statuses(messages: &[(std::time::Instant, String)]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|(_, m)| m.strip_prefix("STATUS=").map(str::to_owned))
        .collect()
}

/// The physics step count of an idle `STATUS=` (`... no physics (N steps since start)`).
fn idle_steps(status: &str) -> Option<u64> {
    let after = status.split("no physics (").nth(1)?;
    after.split(' ').next()?.parse().ok()
}

#[test]
fn a_missing_wheel_is_warned_once_and_nobody_drives_so_the_loop_idles() {
    let dir = TempDir::new("who-drives-idle");
    let config = g29_config(&dir, IDLE_TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&config, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(20));
    let messages = notify.collect(Duration::from_millis(4500));
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");

    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("wheel 'wheel'"))
        .collect();
    assert_eq!(
        warnings.len(),
        1,
        "one warning for the missing wheel:\n{stderr}"
    );
    assert!(
        warnings[0].contains(
            "input device wheel 'wheel' (046d:c24f) is configured but not connected; plug it in"
        ),
        "{}",
        warnings[0]
    );
    assert!(
        stderr.contains(&format!("who drives: nobody: {MISSING}")),
        "{stderr}"
    );
    assert!(
        stderr.contains("nobody drives: the car is parked and the loop idles"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("who drives").count(),
        1,
        "the driver never changed:\n{stderr}"
    );

    let idle: Vec<String> = statuses(&messages)
        .into_iter()
        .filter(|s| s.starts_with("idle: nobody drives"))
        .collect();
    assert!(idle.len() >= 3, "STATUS= says the loop idles: {messages:?}");
    for status in &idle {
        assert!(
            status.contains(&format!("| driver: nobody: {MISSING}")),
            "{status}"
        );
    }
    let first = idle_steps(&idle[0]).expect("step count");
    let last = idle_steps(&idle[idle.len() - 1]).expect("step count");
    assert_eq!(first, last, "no physics step while idle: {idle:?}");
}

#[test]
fn with_the_robot_switch_the_robot_drives_and_says_why() {
    let dir = TempDir::new("who-drives-robot");
    let config = g29_config(&dir, IDLE_TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&config, &notify, &["--robot"], &[]);
    notify.wait_for("READY=1", Duration::from_secs(20));
    let messages = notify.collect(Duration::from_millis(3500));
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");

    assert!(
        stderr.contains(&format!("who drives: robot: {MISSING}")),
        "{stderr}"
    );
    let warnings = stderr
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("wheel 'wheel'"))
        .count();
    assert_eq!(warnings, 1, "{stderr}");
    let live: Vec<String> = statuses(&messages)
        .into_iter()
        .filter(|s| s.contains(" Hz, wake p99"))
        .collect();
    assert!(!live.is_empty(), "the loop runs at its rate: {messages:?}");
    for status in &live {
        assert!(
            status.contains(&format!("| driver: robot: {MISSING}")),
            "{status}"
        );
        let rate: f64 = status.split(" Hz").next().unwrap().parse().unwrap();
        assert!(rate > 500.0, "{status}");
    }
}
