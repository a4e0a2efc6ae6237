//! `rigd run` with its dashboard in a real terminal (a private tmux server): while the
//! dashboard owns the terminal the log goes to `$XDG_STATE_HOME/rigd/rigd.log`, so no log line
//! is ever drawn over it, even ones logged while it runs (the telemetry counters a second
//! after start); the newest warning shows in the dashboard's status line, the per-destination
//! telemetry counters on its rig page; on exit the terminal says where the log is.
//!
//! Closing the terminal (ending the tmux server) stops rigd safely instead of leaving it
//! running unseen, with the dashboard or without it (then only the hang-up's SIGHUP can tell
//! it); an operator's SIGHUP while the terminal is open stays a reload, and under `nohup` the
//! hang-up leaves rigd running (docs/runtime.md, "SIGHUP: reload or hang-up").
//!
//! The config sends the native format to the dashboard's port and OutGauge to a closed port,
//! so there is a warning to show and an error counter that grows. Waits poll the screen with
//! generous deadlines (a loaded 2-core machine); nothing here measures speed.

mod support;
#[path = "../../tests/support/tmux.rs"]
mod tmux;

use std::path::Path;
use std::time::{Duration, Instant};

use support::*;
use tmux::{exited, Tmux};

/// The pane's size, columns x rows.
const SIZE: (u16, u16) = (120, 35);

/// The pid of rigd in the pane: the pane's process, or its shell's child.
fn rigd_pid(tmux: &Tmux) -> i32 {
    let pane = tmux.pane_pid();
    let comm = std::fs::read_to_string(format!("/proc/{pane}/comm")).unwrap_or_default();
    if comm.trim() == "rigd" {
        return pane;
    }
    *tmux::children(pane)
        .first()
        .unwrap_or_else(|| panic!("no rigd under pane process {pane}"))
}

/// True when `text` holds a log line's timestamp (`2026-11-22T`).
fn has_log_timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(11).any(|w| {
        w[..4].iter().all(u8::is_ascii_digit)
            && w[4] == b'-'
            && w[5..7].iter().all(u8::is_ascii_digit)
            && w[7] == b'-'
            && w[8..10].iter().all(u8::is_ascii_digit)
            && w[10] == b'T'
    })
}

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// The shell command that runs `rigd --config CONFIG run` in the pane, without the test
/// runner's systemd variables: `before` goes in front of the binary (environment, `nohup`),
/// `after` after `run` (arguments, redirections, what the shell does next).
fn rigd_command(before: &str, config: &Path, after: &str) -> String {
    format!(
        "env -u NOTIFY_SOCKET -u JOURNAL_STREAM {before} {} --config {} run{after}",
        shell_quote(Path::new(env!("CARGO_BIN_EXE_rigd"))),
        shell_quote(config),
    )
}

/// A config sending the native format at 60 Hz to the dashboard's port, then `more`.
fn dashboard_config(dash_port: u16, more: &str) -> String {
    format!(
        "{TEST_CONFIG}\n[[telemetry]]\nformat = \"native\"\nrate_hz = 60\n\
         destinations = [\"127.0.0.1:{dash_port}\"]\n{more}"
    )
}

#[test]
fn the_dashboard_owns_the_terminal_and_the_log_goes_to_a_file() {
    let dir = TempDir::new("dash-log");
    let (dash_port, closed_port) = (free_port(), free_port());
    let config = dir.file(
        "rigd.toml",
        &dashboard_config(
            dash_port,
            &format!(
                "\n[[telemetry]]\nformat = \"outgauge\"\nrate_hz = 100\n\
                 destinations = [\"127.0.0.1:{closed_port}\"]\n"
            ),
        ),
    );
    let state = dir.0.join("state");
    let log = state.join("rigd").join("rigd.log");
    let command = rigd_command(
        &format!("XDG_STATE_HOME={} RUST_LOG=info", shell_quote(&state)),
        &config,
        "; echo rigd-exited-$?; sleep 60",
    );
    let tmux = Tmux::start("rigd-dash-log", SIZE, &command);

    tmux.wait_for("the dashboard with live data", |s| {
        s.contains("rig-dash") && s.contains("LIVE")
    });
    // The counters line is logged a second after start, while the dashboard is up; watch
    // the screen for three seconds.
    let watch_until = Instant::now() + Duration::from_secs(3);
    while Instant::now() < watch_until {
        let screen = tmux.capture();
        assert!(
            !screen.contains("INFO")
                && !screen.contains("telemetry counters")
                && !has_log_timestamp(&screen),
            "log text on the dashboard:\n{screen}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let drive = tmux.wait_for("the newest warning in the status line", |s| {
        s.contains("WARN telemetry")
    });
    assert!(drive.contains("rig-dash"), "{drive}");

    tmux.send_keys("h"); // previous page: the rig page
    let rig = tmux.wait_for("the telemetry counters on the rig page", |s| {
        s.contains("rigd telemetry out") && s.contains(&format!("127.0.0.1:{closed_port}: sent"))
    });
    assert!(rig.contains("(refused "), "{rig}");
    assert!(
        rig.contains(&format!("rigd native to 127.0.0.1:{dash_port}: sent")),
        "{rig}"
    );

    tmux.send_keys("q");
    let end = tmux.wait_for("rigd to exit", |s| s.contains("rigd-exited-"));
    assert!(end.contains("rigd-exited-0"), "{end}");
    let flat = end.split_whitespace().collect::<Vec<_>>().join(" ");
    let log_text = log.display().to_string();
    assert!(
        flat.contains("the log goes to") && flat.contains("the log of this run is in"),
        "the terminal says where the log is, on start and on exit:\n{end}"
    );
    assert!(
        flat.replace(' ', "").contains(&log_text.replace(' ', "")),
        "names {log_text}:\n{end}"
    );
    let written = std::fs::read_to_string(&log).expect("the log file exists");
    assert!(
        written.contains("rigd running:"),
        "startup line:\n{written}"
    );
    assert!(written.contains("telemetry counters:"), "{written}");
    assert!(
        written.contains("every output is in its safe state"),
        "{written}"
    );
}

/// rigd's own dashboard takes no socket: a rig-dash listening on the native output's port
/// (rig-dash's own receiver, bound after rigd's dashboard is up, as a user starting `rig-dash`
/// in a second terminal would) binds it and receives rigd's packets while rigd's dashboard
/// keeps showing live data. rigd's dashboard used to listen on that port itself, so the second
/// one failed with "Address already in use".
#[test]
fn a_separate_rig_dash_listens_next_to_the_dashboard() {
    let dir = TempDir::new("dash-beside");
    let dash_port = free_port();
    let config = dir.file("rigd.toml", &dashboard_config(dash_port, ""));
    let state = dir.0.join("state");
    let command = rigd_command(
        &format!("XDG_STATE_HOME={} RUST_LOG=info", shell_quote(&state)),
        &config,
        "; echo rigd-exited-$?; sleep 60",
    );
    let tmux = Tmux::start("rigd-dash-beside", SIZE, &command);
    let first = tmux.wait_for("rigd's dashboard with live data, fed in-process", |s| {
        s.contains("rig-dash") && s.contains("LIVE") && s.contains("from rigd, in-process")
    });
    assert!(first.contains("rigd native"), "{first}");

    let listen: std::net::SocketAddr = format!("127.0.0.1:{dash_port}").parse().unwrap();
    let receivers = rig_dash::net::Receivers::bind(&[listen], rig_dash::FormatChoice::Auto).expect(
        "a separate rig-dash can listen on rigd's native port while rigd shows its dashboard",
    );
    let mut native = 0usize;
    let deadline = Instant::now() + Duration::from_secs(10);
    while native < 30 && Instant::now() < deadline {
        native += receivers
            .drain()
            .filter(|packet| {
                packet
                    .decoded
                    .is_ok_and(|sample| sample.format == "rigd native" && sample.health.is_some())
            })
            .count();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        native >= 30,
        "the separate rig-dash received {native} native packets"
    );
    let both = tmux.wait_for("rigd's dashboard still live", |s| {
        s.contains("LIVE") && s.contains("from rigd, in-process")
    });
    assert!(!both.contains("NO DATA"), "{both}");
    drop(receivers);

    tmux.send_keys("q");
    let end = tmux.wait_for("rigd to exit", |s| s.contains("rigd-exited-"));
    assert!(end.contains("rigd-exited-0"), "{end}");
}

/// Every thread of `pid` as "name state wait-channel", one per line: what a process that
/// does not exit is waiting for.
fn thread_states(pid: i32) -> String {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return "(no /proc entry)".into();
    };
    let read = |path: std::path::PathBuf| {
        std::fs::read_to_string(path).map_or_else(|_| "?".into(), |s| s.trim().to_string())
    };
    tasks
        .filter_map(Result::ok)
        .map(|task| {
            let dir = task.path();
            let stat = read(dir.join("stat"));
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("?")
                .split_whitespace()
                .next();
            format!(
                "  {} {} {}",
                read(dir.join("comm")),
                state.unwrap_or("?"),
                read(dir.join("wchan"))
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The log of a rigd run with `XDG_STATE_HOME=state`.
fn read_log(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("(no log file: {e})"))
}

/// Waits up to 10 s for `rigd` to exit after `what`; otherwise kills it and fails with its
/// threads and its log (what a rigd that does not exit is waiting for).
fn assert_exits_after(rigd: i32, log: &Path, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !exited(rigd) {
        if Instant::now() > deadline {
            let threads = thread_states(rigd);
            // SAFETY: kill with the pid of the rigd this test started.
            unsafe { libc::kill(rigd, libc::SIGKILL) };
            panic!(
                "rigd still runs 10 s after {what}\n\
                 its threads (name state wait-channel):\n{threads}\nits log:\n{}",
                read_log(log)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Polls the log file until it contains `needle`; fails with the log after 30 s.
fn wait_for_log(log: &Path, needle: &str) -> String {
    let deadline = Instant::now() + tmux::DEADLINE;
    loop {
        let text = read_log(log);
        if text.contains(needle) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "no `{needle}` in the log:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// SIGTERM to a rigd still running when the test ends (an assertion failed, or it was meant
/// to outlive its terminal): no rigd outlives its test.
struct StopOnDrop(i32);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        if !exited(self.0) {
            // SAFETY: kill with the pid of the rigd this test started.
            unsafe { libc::kill(self.0, libc::SIGTERM) };
        }
    }
}

const TERMINAL_CLOSED: &str = "the terminal running rigd closed: stopping safely";
const SAFE_STATE: &str = "every output is in its safe state";

/// rigd with its dashboard in a tmux pane, sending the native format to it, its log in a
/// private state directory; `after` is what the pane's shell does once rigd exits. Fields drop
/// in order: rigd is stopped before the pane and the directory go.
struct DashboardRun {
    _stop: StopOnDrop,
    tmux: Tmux,
    rigd: i32,
    log: std::path::PathBuf,
    _dir: TempDir,
}

/// Starts a [`DashboardRun`] named `name` and waits until its dashboard shows live data.
fn start_with_dashboard(name: &str, after: &str) -> DashboardRun {
    let dir = TempDir::new(name);
    let config = dir.file("rigd.toml", &dashboard_config(free_port(), ""));
    let state = dir.0.join("state");
    let log = state.join("rigd").join("rigd.log");
    let command = rigd_command(
        &format!("XDG_STATE_HOME={}", shell_quote(&state)),
        &config,
        after,
    );
    let tmux = Tmux::start(&format!("rigd-{name}"), SIZE, &command);
    tmux.wait_for("the dashboard with live data", |s| {
        s.contains("rig-dash") && s.contains("LIVE")
    });
    let rigd = rigd_pid(&tmux);
    DashboardRun {
        _stop: StopOnDrop(rigd),
        tmux,
        rigd,
        log,
        _dir: dir,
    }
}

/// The dashboard sees the hang-up (its key wait, or a frame being drawn fails with `EIO`) and
/// the kernel's SIGHUP finds the terminal hung up: either stops rigd. Before the SIGHUP was
/// told apart, a frame drawn at the wrong moment left rigd reloading and running on unseen
/// (about 1 run in 40 with both cores busy).
#[test]
fn closing_the_terminal_stops_rigd_safely() {
    let run = start_with_dashboard("dash-hangup", "");
    run.tmux.kill_server();
    assert_exits_after(run.rigd, &run.log, "its terminal closed");
    let text = read_log(&run.log);
    assert!(text.contains(TERMINAL_CLOSED), "{text}");
    assert_eq!(
        text.matches(TERMINAL_CLOSED).count(),
        1,
        "said once:\n{text}"
    );
    assert!(text.contains(SAFE_STATE), "{text}");
}

/// Without the dashboard nothing reads the terminal: only the SIGHUP can tell rigd its
/// terminal is gone, and it must be a stop, not a reload.
#[test]
fn closing_the_terminal_stops_rigd_without_a_dashboard_too() {
    let dir = TempDir::new("hangup-no-display");
    let config = dir.file("rigd.toml", TEST_CONFIG);
    let log = dir.0.join("rigd.log");
    let command = rigd_command(
        "",
        &config,
        &format!(" --no-display 2>{}", shell_quote(&log)),
    );
    let tmux = Tmux::start("rigd-hangup-no-display", SIZE, &command);
    wait_for_log(&log, "rigd running:");
    let rigd = rigd_pid(&tmux);
    let _stop = StopOnDrop(rigd);
    tmux.kill_server();
    assert_exits_after(rigd, &log, "its terminal closed");
    let text = read_log(&log);
    assert!(text.contains(TERMINAL_CLOSED), "{text}");
    assert!(text.contains(SAFE_STATE), "{text}");
    assert!(
        !text.contains("configuration reloaded"),
        "the hang-up is no reload:\n{text}"
    );
}

/// An operator's SIGHUP while the terminal is open is a reload, as under systemd: rigd and
/// its dashboard run on, and `q` still stops it.
#[test]
fn a_sighup_with_the_terminal_open_reloads() {
    let run = start_with_dashboard("dash-reload", "; echo rigd-exited-$?; sleep 60");
    // SAFETY: kill with the pid of the rigd this test started.
    assert_eq!(unsafe { libc::kill(run.rigd, libc::SIGHUP) }, 0);
    wait_for_log(&run.log, "configuration reloaded");
    // The reloaded loop feeds the same dashboard: its packet counter keeps moving.
    let packets = |screen: &str| -> Option<u64> {
        let start = screen.find("pkts ")? + "pkts ".len();
        screen[start..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    let before = packets(&run.tmux.capture()).expect("packet counter on the dashboard");
    run.tmux.wait_for("packets after the reload", |s| {
        packets(s).is_some_and(|now| now > before + 60)
    });
    assert!(!exited(run.rigd), "rigd stopped on an operator's SIGHUP");
    let text = read_log(&run.log);
    assert!(!text.contains(TERMINAL_CLOSED), "{text}");

    run.tmux.send_keys("q");
    let end = run
        .tmux
        .wait_for("rigd to exit", |s| s.contains("rigd-exited-"));
    assert!(end.contains("rigd-exited-0"), "{end}");
    assert!(read_log(&run.log).contains(SAFE_STATE));
}

/// Under `nohup` the user asked rigd to outlive its terminal: the hang-up's SIGHUP is a
/// reload like any other, and rigd runs on until SIGTERM.
#[test]
fn under_nohup_closing_the_terminal_leaves_rigd_running() {
    let dir = TempDir::new("hangup-nohup");
    let config = dir.file("rigd.toml", TEST_CONFIG);
    let log = dir.0.join("rigd.log");
    let command = rigd_command("nohup", &config, &format!(" >{} 2>&1", shell_quote(&log)));
    let tmux = Tmux::start("rigd-hangup-nohup", SIZE, &command);
    wait_for_log(&log, "rigd running:");
    let rigd = rigd_pid(&tmux);
    let _stop = StopOnDrop(rigd);
    tmux.kill_server();
    let text = wait_for_log(&log, "configuration reloaded");
    assert!(!text.contains(TERMINAL_CLOSED), "{text}");
    std::thread::sleep(Duration::from_millis(500));
    assert!(!exited(rigd), "rigd stopped:\n{}", read_log(&log));
    // SAFETY: kill with the pid of the rigd this test started.
    assert_eq!(unsafe { libc::kill(rigd, libc::SIGTERM) }, 0);
    assert_exits_after(rigd, &log, "SIGTERM");
    assert!(read_log(&log).contains(SAFE_STATE));
}
