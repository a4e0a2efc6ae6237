//! What the real binary says when it cannot act, and its exit code: every config, car, track
//! and recording problem said once, in plain words (no Rust type names, no Rust list syntax,
//! no OS error numbers), with its fix; exit 2 for every bad configuration and bad command line
//! (clap's usage errors included); under the display, a bad config is said before (and
//! instead of) any line about where the log goes.

use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::{rigd, KillOnDrop, TempDir};

#[path = "../src/test_pty.rs"]
mod test_pty;

fn repo(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Lines of `err` that say `rigd: `.
fn told(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.starts_with("rigd: ")).collect()
}

/// Nothing of Rust's own wording: type names, `Debug` lists, OS error numbers.
fn assert_plain(text: &str) {
    for rust in [
        "expected u",
        "expected i",
        "expected f",
        "struct ",
        "[\"",
        "os error",
        "No such file",
        "unknown variant",
        "a sequence",
    ] {
        assert!(!text.contains(rust), "`{rust}` in:\n{text}");
    }
}

/// Runs `rigd args` with its stdout and stderr on a fresh terminal (so it shows its display and
/// logs to a file under `state`) and returns its exit code and everything the terminal showed.
fn rigd_on_a_terminal(args: &[&str], state: &Path) -> (Option<i32>, String) {
    let (master, slave) = test_pty::pty_pair();
    let out = std::fs::File::from(slave);
    let mut child = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_rigd"))
            .args(args)
            .env("XDG_STATE_HOME", state)
            .env_remove("JOURNAL_STREAM")
            .env_remove("NOTIFY_SOCKET")
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "rigd did not exit: {args:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    // Every writer is gone: read what the terminal holds until it says so (EIO).
    // SAFETY: reading and setting the flags of a descriptor this function owns.
    unsafe {
        let flags = libc::fcntl(master.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(master.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
    }
    let mut master = std::fs::File::from(master);
    let mut shown = Vec::new();
    let mut buffer = [0u8; 4096];
    while let Ok(n) = master.read(&mut buffer) {
        if n == 0 {
            break;
        }
        shown.extend_from_slice(&buffer[..n]);
    }
    (
        status.code(),
        String::from_utf8_lossy(&shown).replace('\r', ""),
    )
}

#[test]
fn a_bad_config_under_the_display_is_said_once_before_anything_about_the_log() {
    let state = TempDir::new("msg-display");
    let file = repo("rig-config/tests/invalid/many-problems.toml");
    let (code, shown) = rigd_on_a_terminal(&["--config", &file, "run"], &state.0);
    assert_eq!(code, Some(2), "{shown}");
    let lines = told(&shown);
    assert_eq!(lines.len(), 5, "each of the five problems once:\n{shown}");
    for (line, place) in lines.iter().zip(["10:1", "11:1", "12:11", "15:1", "17:1"]) {
        assert!(
            line.starts_with(&format!("rigd: {file}:{place}: "))
                && line.matches(&file).count() == 1,
            "{line}"
        );
    }
    assert!(!shown.contains("log"), "nothing ran, so no log:\n{shown}");
    assert!(!state.0.join("rigd/rigd.log").exists());
    assert_plain(&shown);
}

#[test]
fn a_missing_config_file_is_one_plain_line_with_the_fix_and_exit_2() {
    let expected = "rigd: config file /nonexistent/rigd.toml does not exist (fix: create it \
                    (examples/rigd.toml lists every key with its default), or run rigd without \
                    --config to use the defaults)";
    for args in [
        &["--config", "/nonexistent/rigd.toml", "run", "--no-display"][..],
        &["check-config", "/nonexistent/rigd.toml"],
        &["--config", "/nonexistent/rigd.toml", "bench", "loop"],
    ] {
        let (code, _, err) = rigd(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert_eq!(told(&err), vec![expected], "{args:?}:\n{err}");
    }
}

#[test]
fn every_bad_command_line_exits_2_with_the_fix() {
    let (code, _, err) = rigd(&["check-config"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("no file to check (fix: `rigd check-config FILE`"),
        "{err}"
    );
    let (code, _, err) = rigd(&["maneuver", "loop-the-loop"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("use one of steady-circle, step-steer"),
        "{err}"
    );
    let (code, _, err) = rigd(&["maneuver"]);
    assert_eq!(code, Some(2), "{err}");
    // clap's own usage errors.
    for args in [
        &["--no-such-flag"][..],
        &["check-config", "a.toml", "b.toml"],
        &["teleport"],
    ] {
        let (code, _, err) = rigd(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains("Usage:"), "{args:?}: {err}");
    }
    let (code, _, _) = rigd(&["--help"]);
    assert_eq!(code, Some(0));
}

#[test]
fn config_values_of_the_wrong_kind_are_said_in_plain_words() {
    let dir = TempDir::new("msg-words");
    let file = dir.file(
        "words.toml",
        "[loop]\nrate_hz = \"fast\"\npriority = 300\npm_qos = \"always\"\n\n[sim]\ncar = \"hovercraft\"\n",
    );
    let (code, _, err) = rigd(&["check-config", file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    for words in [
        ":2:11: loop.rate_hz: expected a whole number from 0 to 4294967295, found the text \"fast\"",
        ":3:12: loop.priority: 300 is not a whole number from 0 to 255",
        ":4:10: loop.pm_qos: \"always\" is not one of off, dma-latency or rt-core",
        ":7:1: sim.car: no built-in car named \"hovercraft\" (fix: name one of road, race or rally",
    ] {
        assert!(err.contains(words), "`{words}` missing:\n{err}");
    }
    assert_eq!(told(&err).len(), 4, "{err}");
    assert_plain(&err);
}

#[test]
fn a_missing_car_or_track_file_says_where_relative_paths_start_and_the_built_in_names() {
    let dir = TempDir::new("msg-car");
    let file = dir.file(
        "rigd.toml",
        "[sim]\ncar = \"cars/mine.toml\"\ntrack = \"tracks/home.toml\"\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_rigd"))
        .args(["check-config", file.to_str().unwrap()])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let from = format!(
        "(a relative path is resolved from the directory rigd runs in, {})",
        dir.0.display()
    );
    let car = format!("rigd.toml:2:1: sim.car: car file `cars/mine.toml` does not exist {from}");
    let track =
        format!("rigd.toml:3:1: sim.track: track file `tracks/home.toml` does not exist {from}");
    assert!(err.contains(&car), "`{car}` missing:\n{err}");
    assert!(err.contains(&track), "`{track}` missing:\n{err}");
    assert!(
        err.contains("name a built-in car: road, race or rally)"),
        "{err}"
    );
    assert!(
        err.contains("name a built-in track: circuit, oval, skidpad, gravel or corners)"),
        "{err}"
    );
    assert_eq!(told(&err).len(), 2, "{err}");

    // The same words where the car is read for a manoeuvre.
    let out = Command::new(env!("CARGO_BIN_EXE_rigd"))
        .args(["maneuver", "braking", "--car", "cars/mine.toml"])
        .current_dir(&dir.0)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "--car: car file `cars/mine.toml` does not exist {from}"
        )),
        "{err}"
    );
    assert_plain(&err);
}

#[test]
fn a_car_file_value_of_the_wrong_kind_is_said_in_plain_words() {
    let dir = TempDir::new("msg-car-words");
    let road = std::fs::read_to_string(repo("physics/data/cars/road.toml")).unwrap();
    let car = dir.file(
        "heavy.toml",
        &road.replacen("mass_kg = 1300.0", "mass_kg = \"heavy\"", 1),
    );
    let (code, _, err) = rigd(&["maneuver", "braking", "--car", car.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(":7:11: ") && err.contains("expected a number, found the text \"heavy\""),
        "{err}"
    );
    assert_plain(&err);
}

#[test]
fn a_missing_recording_is_one_plain_line_with_exit_2() {
    let (code, _, err) = rigd(&["replay", "/nonexistent/session.rigrec", "--no-display"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        told(&err),
        vec![
            "rigd: recording /nonexistent/session.rigrec does not exist (fix: check the path and \
             its permissions; `rigd run --record FILE` writes one)"
        ],
        "{err}"
    );
}
