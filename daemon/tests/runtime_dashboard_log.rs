//! `rigd run` with its dashboard in a real terminal (a private tmux server): while the
//! dashboard owns the terminal the log goes to `$XDG_STATE_HOME/rigd/rigd.log`, so no log line
//! is ever drawn over it, even ones logged while it runs (the telemetry counters a second
//! after start); the newest warning shows in the dashboard's status line, the per-destination
//! telemetry counters on its rig page; on exit the terminal says where the log is.
//!
//! Closing the terminal (ending the tmux server) stops rigd safely instead of leaving it
//! running unseen.
//!
//! The config sends the native format to the dashboard's port and OutGauge to a closed port,
//! so there is a warning to show and an error counter that grows. Waits poll the screen with
//! generous deadlines (a loaded 2-core machine); nothing here measures speed.

mod support;

use std::net::UdpSocket;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

const DEADLINE: Duration = Duration::from_secs(30);

/// A private tmux server (its own socket name), killed on drop with everything in it.
/// rigd takes the SIGHUP that ending the server sends as a reload, so on drop the pane
/// shell's children (rigd, if a failed assertion left it running) get SIGTERM first.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// A server named after `test` (tests run in parallel threads of one process).
    fn start(test: &str, command: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("rigd-{test}-{}", std::process::id()),
        };
        let status = tmux
            .command()
            .args(["new-session", "-d", "-s", "rigd", "-x", "120", "-y", "35"])
            .arg(command)
            .status()
            .expect("tmux must be installed to run this test (apt-get install tmux)");
        assert!(status.success(), "tmux new-session failed");
        tmux
    }

    fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command.args(["-L", &self.socket]);
        command
    }

    fn capture(&self) -> String {
        let output = self
            .command()
            .args(["capture-pane", "-p", "-t", "rigd"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn send_keys(&self, keys: &str) {
        let status = self
            .command()
            .args(["send-keys", "-t", "rigd", keys])
            .status()
            .expect("tmux send-keys");
        assert!(status.success());
    }

    /// The pid of rigd in the pane: the pane's process, or its shell's child.
    fn rigd_pid(&self) -> i32 {
        let output = self
            .command()
            .args(["display-message", "-p", "-t", "rigd", "#{pane_pid}"])
            .output()
            .expect("tmux display-message");
        let pane: i32 = String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .unwrap();
        let comm = std::fs::read_to_string(format!("/proc/{pane}/comm")).unwrap_or_default();
        if comm.trim() == "rigd" {
            return pane;
        }
        let children = std::fs::read_to_string(format!("/proc/{pane}/task/{pane}/children"))
            .unwrap_or_default();
        children
            .split_whitespace()
            .find_map(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no rigd under pane process {pane}"))
    }

    fn wait_for(&self, what: &str, predicate: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let screen = self.capture();
            if predicate(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let pane_pid = self
            .command()
            .args(["display-message", "-p", "-t", "rigd", "#{pane_pid}"])
            .output()
            .ok()
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .parse::<i32>()
                    .ok()
            });
        if let Some(shell) = pane_pid {
            let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
                .unwrap_or_default();
            for child in children
                .split_whitespace()
                .filter_map(|c| c.parse::<i32>().ok())
            {
                // SAFETY: kill with a pid read from the kernel and a valid signal number.
                unsafe { libc::kill(child, libc::SIGTERM) };
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = self
            .command()
            .arg("kill-server")
            .stderr(Stdio::null())
            .status();
    }
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

fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

#[test]
fn the_dashboard_owns_the_terminal_and_the_log_goes_to_a_file() {
    let dir = TempDir::new("dash-log");
    let (dash_port, closed_port) = (free_port(), free_port());
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{TEST_CONFIG}\n[[telemetry]]\nformat = \"native\"\nrate_hz = 60\n\
             destinations = [\"127.0.0.1:{dash_port}\"]\n\n\
             [[telemetry]]\nformat = \"outgauge\"\nrate_hz = 100\n\
             destinations = [\"127.0.0.1:{closed_port}\"]\n"
        ),
    );
    let state = dir.0.join("state");
    let log = state.join("rigd").join("rigd.log");
    let command = format!(
        "env -u NOTIFY_SOCKET -u JOURNAL_STREAM XDG_STATE_HOME={} RUST_LOG=info {} --config {} run; \
         echo rigd-exited-$?; sleep 60",
        shell_quote(&state),
        shell_quote(Path::new(env!("CARGO_BIN_EXE_rigd"))),
        shell_quote(&config),
    );
    let tmux = Tmux::start("dash-log", &command);

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

/// True once `pid` has exited (gone, or a zombie waiting for its new parent to reap it).
fn exited(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with(['Z', 'X']))
    })
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

#[test]
fn closing_the_terminal_stops_rigd_safely() {
    let dir = TempDir::new("dash-hangup");
    let dash_port = free_port();
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{TEST_CONFIG}\n[[telemetry]]\nformat = \"native\"\nrate_hz = 60\n\
             destinations = [\"127.0.0.1:{dash_port}\"]\n"
        ),
    );
    let state = dir.0.join("state");
    let command = format!(
        "env -u NOTIFY_SOCKET -u JOURNAL_STREAM XDG_STATE_HOME={} {} --config {} run",
        shell_quote(&state),
        shell_quote(Path::new(env!("CARGO_BIN_EXE_rigd"))),
        shell_quote(&config),
    );
    let tmux = Tmux::start("dash-hangup", &command);
    tmux.wait_for("the dashboard with live data", |s| {
        s.contains("rig-dash") && s.contains("LIVE")
    });
    let rigd = tmux.rigd_pid();
    let _ = tmux
        .command()
        .arg("kill-server")
        .stderr(Stdio::null())
        .status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !exited(rigd) {
        if Instant::now() > deadline {
            let threads = thread_states(rigd);
            // SAFETY: kill with the pid of the rigd this test started.
            unsafe { libc::kill(rigd, libc::SIGKILL) };
            let log = std::fs::read_to_string(state.join("rigd").join("rigd.log"))
                .unwrap_or_else(|e| format!("(no log file: {e})"));
            panic!(
                "rigd still runs 10 s after its terminal closed\n\
                 its threads (name state wait-channel):\n{threads}\nits log:\n{log}"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let log = std::fs::read_to_string(state.join("rigd").join("rigd.log")).unwrap();
    assert!(
        log.contains("the terminal running rigd closed: stopping safely"),
        "{log}"
    );
    assert!(log.contains("every output is in its safe state"), "{log}");
}
