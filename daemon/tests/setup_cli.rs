//! The set-up commands as a user runs them on a machine without a wheel (this one: no
//! `/dev/input`; the real devices are driven in the vmrig guest, `tests/vmrig/setup_checks.rs`):
//! `rigd devices --watch` says it is waiting for devices and ends cleanly on SIGTERM (piped)
//! or on `q` in a real terminal (a private tmux server), leaving the terminal as it found it;
//! `rigd calibrate` writes nothing when its answers stop or its config is broken, with the
//! exit code and message that say so.

mod support;
#[path = "../../tests/support/tmux.rs"]
mod tmux;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use support::*;
use tmux::Tmux;

fn rigd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rigd"))
}

#[test]
fn watch_without_devices_says_it_waits_and_ends_on_sigterm_with_exit_0() {
    let mut child = KillOnDrop::spawn(
        rigd()
            .args(["devices", "--watch"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    let out = child.stdout.take().unwrap();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    let header = lines.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(
        header.starts_with("rigd devices --watch (no --config: raw values only)"),
        "{header}"
    );
    let waiting = lines.recv_timeout(Duration::from_secs(20)).unwrap();
    assert!(
        waiting.starts_with("no input devices yet: plug in the wheel"),
        "{waiting}"
    );
    signal(&child, libc::SIGTERM);
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            sent.elapsed() < Duration::from_secs(5),
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

#[test]
fn watch_on_a_terminal_quits_on_q_and_gives_the_terminal_back() {
    let command = format!(
        "{} devices --watch; echo watch-exited-$?; sleep 60",
        env!("CARGO_BIN_EXE_rigd")
    );
    let tmux = Tmux::start("rigd-watch", (100, 30), &command);
    let screen = tmux.wait_for("the watch view", |s| {
        s.contains("rigd devices --watch") && s.contains("(q quits)")
    });
    assert!(screen.contains("no input devices yet"), "{screen}");
    tmux.send_keys("q");
    let screen = tmux.wait_for("the shell after the watch", |s| {
        s.contains("watch-exited-0")
    });
    // The alternate screen is gone: none of the view is left on the terminal.
    assert!(!screen.contains("(q quits)"), "{screen}");
    let echo = tmux
        .command()
        .args([
            "display-message",
            "-p",
            "-t",
            tmux::SESSION,
            "#{cursor_flag}",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&echo.stdout).trim(),
        "1",
        "the cursor is visible again"
    );
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rigd-setup-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn calibrate_whose_answers_stop_writes_nothing_and_says_where_it_stopped() {
    let dir = scratch("eof");
    let path = dir.join("rig.toml");
    let text = "# my rig\n[devices]\ndisconnect_brake = 0.2\n";
    std::fs::write(&path, text).unwrap();
    let out = rigd()
        .args(["--config", path.to_str().unwrap(), "calibrate"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("Hands off"),
        "the first step was asked: {stdout}"
    );
    assert!(
        stderr.contains("stdin closed at the step") && stderr.contains("nothing was written"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn calibrate_refuses_a_broken_config_with_exit_2_before_asking_anything() {
    let dir = scratch("bad");
    let path = dir.join("rig.toml");
    let text = "[devices.ffb]\ntorque_cap_nm = 9.0\n";
    std::fs::write(&path, text).unwrap();
    let out = rigd()
        .args(["--config", path.to_str().unwrap(), "calibrate", "--yes"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("devices.ffb.torque_cap_nm"), "{stderr}");
    assert!(!stdout.contains("Hands off"), "{stdout}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    std::fs::remove_dir_all(&dir).unwrap();
}
