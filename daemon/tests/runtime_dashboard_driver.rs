//! Who drives, on the dashboard in a real terminal (a private tmux server): the demo
//! (`rigd run --robot`, nothing plugged in) shows the robot and why in the title bar; a config
//! naming a wheel that is not connected (examples/g29.toml, on this machine without input
//! devices) shows that nobody drives and why in the title bar, the warning in the status line,
//! and the warning once in the log file.

mod support;
#[path = "../../tests/support/tmux.rs"]
mod tmux;

use std::path::Path;

use support::*;
use tmux::Tmux;

/// The pane's size, columns x rows.
const SIZE: (u16, u16) = (120, 35);

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// `rigd --config CONFIG run ARGS` in a tmux pane, its log in `state`.
fn start(name: &str, config: &Path, state: &Path, args: &str) -> Tmux {
    let command = format!(
        "env -u NOTIFY_SOCKET -u JOURNAL_STREAM XDG_STATE_HOME={} RUST_LOG=info {} --config {} \
         run {args}; echo rigd-exited-$?; sleep 60",
        shell_quote(state),
        shell_quote(Path::new(env!("CARGO_BIN_EXE_rigd"))),
        shell_quote(config),
    );
    Tmux::start(name, SIZE, &command)
}

/// Quits the dashboard and waits for rigd's exit status 0.
fn quit(tmux: &Tmux) {
    tmux.send_keys("q");
    let end = tmux.wait_for("rigd to exit", |s| s.contains("rigd-exited-"));
    assert!(end.contains("rigd-exited-0"), "{end}");
}

#[test]
fn the_demo_shows_that_the_robot_drives_and_why() {
    let dir = TempDir::new("dash-driver-demo");
    let dash_port = free_port();
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{IDLE_TEST_CONFIG}\n[[telemetry]]\nformat = \"native\"\nrate_hz = 60\n\
             destinations = [\"127.0.0.1:{dash_port}\"]\n"
        ),
    );
    let tmux = start(
        "rigd-dash-driver-demo",
        &config,
        &dir.0.join("state"),
        "--robot",
    );
    let screen = tmux.wait_for("who drives in the title bar", |s| {
        s.lines()
            .next()
            .is_some_and(|title| title.contains("rig-dash") && title.contains("robot: no wheel"))
    });
    assert!(
        screen.contains("LIVE"),
        "the robot drives the car:\n{screen}"
    );
    quit(&tmux);
}

#[test]
fn a_missing_wheel_is_on_screen_and_once_in_the_log_file() {
    let dir = TempDir::new("dash-driver-g29");
    let dash_port = free_port();
    let g29 = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/g29.toml"))
        .unwrap();
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{IDLE_TEST_CONFIG}\n[[telemetry]]\nformat = \"native\"\nrate_hz = 60\n\
             destinations = [\"127.0.0.1:{dash_port}\"]\n\n{g29}"
        ),
    );
    let state = dir.0.join("state");
    let tmux = start("rigd-dash-driver-g29", &config, &state, "");
    let screen = tmux.wait_for("nobody drives, and why, in the title bar", |s| {
        s.lines().next().is_some_and(|title| {
            title.contains("nobody: wheel 'wheel' (046d:c24f) not found; plug it in")
        })
    });
    // The status line shortens the newest warning at a word boundary to fit; the whole text
    // is in the log file (below).
    let screen = if screen.contains("WARN input device wheel") {
        screen
    } else {
        tmux.wait_for("the warning in the status line", |s| {
            s.contains("WARN input device wheel")
        })
    };
    assert!(screen.contains("rig-dash"), "{screen}");
    quit(&tmux);

    let log = std::fs::read_to_string(state.join("rigd").join("rigd.log")).unwrap();
    let warnings = log
        .lines()
        .filter(|l| {
            l.contains("WARN")
                && l.contains(
                    "input device wheel 'wheel' (046d:c24f) is configured but not connected",
                )
        })
        .count();
    assert_eq!(warnings, 1, "the warning once in the log file:\n{log}");
    assert!(
        log.contains("who drives: nobody: wheel 'wheel' (046d:c24f) not found; plug it in"),
        "{log}"
    );
}
