//! A private tmux server for end-to-end tests of programs that draw in a real terminal (rigd's
//! dashboard in `daemon/tests/runtime_dashboard_log.rs`, rig-dash in
//! `dash/tests/e2e_tmux.rs`); one file for both crates, included with
//! `#[path = "../../tests/support/tmux.rs"] mod tmux;`.
//!
//! Each server has its own socket name (tests run in parallel threads and processes) and one
//! session, [`SESSION`], whose pane runs the command under test. Screens are read with
//! `capture-pane -p` and polled with a generous deadline ([`DEADLINE`], a loaded 2-core
//! machine); nothing here measures speed. Killing the server closes the pane's pty, which the
//! kernel turns into a hang-up (SIGHUP to the session leader, end of file and `EIO` on the
//! terminal): the way a terminal window closes.

#![allow(dead_code)] // each test binary uses its own subset

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The name of the one session of every server.
pub const SESSION: &str = "test";

/// Longest wait for something to show on the screen.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A private tmux server, ended on drop with everything in it (and its socket file, which
/// tmux leaves behind).
pub struct Tmux {
    socket: String,
    socket_path: Option<std::path::PathBuf>,
}

impl Tmux {
    /// A server named after `name` running `command` in a pane of `columns` x `rows` cells.
    pub fn start(name: &str, (columns, rows): (u16, u16), command: &str) -> Tmux {
        let mut tmux = Tmux {
            socket: format!("{name}-{}", std::process::id()),
            socket_path: None,
        };
        let status = tmux
            .command()
            .args(["new-session", "-d", "-s", SESSION])
            .args(["-x", &columns.to_string(), "-y", &rows.to_string()])
            .arg(command)
            .status()
            .expect("tmux must be installed to run this test (apt-get install tmux)");
        assert!(status.success(), "tmux new-session failed");
        let socket_path = tmux.display("#{socket_path}");
        tmux.socket_path = (!socket_path.is_empty()).then(|| socket_path.into());
        tmux
    }

    /// `tmux` talking to this server.
    pub fn command(&self) -> Command {
        let mut command = Command::new("tmux");
        command.args(["-L", &self.socket]);
        command
    }

    /// The pane's screen as text.
    pub fn capture(&self) -> String {
        let output = self
            .command()
            .args(["capture-pane", "-p", "-t", SESSION])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Types `keys` (tmux key names: `q`, `Escape`, `C-c`) into the pane.
    pub fn send_keys(&self, keys: &str) {
        let status = self
            .command()
            .args(["send-keys", "-t", SESSION, keys])
            .status()
            .expect("tmux send-keys");
        assert!(status.success(), "tmux send-keys failed");
    }

    /// A tmux format evaluated for the pane (`#{pane_pid}`), or "" once the server is gone.
    pub fn display(&self, format: &str) -> String {
        self.command()
            .args(["display-message", "-p", "-t", SESSION, format])
            .stderr(Stdio::null())
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default()
    }

    /// The pid of the pane's process (the command itself when it was `exec`ed, else the
    /// shell running it).
    pub fn pane_pid(&self) -> i32 {
        self.display("#{pane_pid}")
            .parse()
            .expect("tmux reports the pane pid")
    }

    /// True while the session exists (its pane's process has not exited).
    pub fn session_alive(&self) -> bool {
        self.command()
            .args(["has-session", "-t", SESSION])
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success())
    }

    /// Ends the server: the pane's terminal hangs up, as when its window is closed.
    pub fn kill_server(&self) {
        let _ = self
            .command()
            .arg("kill-server")
            .stderr(Stdio::null())
            .status();
    }

    /// Polls the screen until `predicate` holds and returns it; panics with the last screen
    /// after [`DEADLINE`].
    pub fn wait_for(&self, what: &str, predicate: impl Fn(&str) -> bool) -> String {
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
    /// SIGTERM to the pane's process and its children first (a program that outlives a
    /// hang-up, or one a failed assertion left running, must not outlive the test), SIGKILL
    /// to any of them still running 2 s later, then the server goes. The processes are the
    /// tmux server's children, not the test's: the server (or init, once it is gone) reaps them.
    fn drop(&mut self) {
        if let Ok(pane) = self.display("#{pane_pid}").parse::<i32>() {
            let mut pids = children(pane);
            pids.push(pane);
            let signal_all = |signal: i32| {
                for &pid in pids.iter().filter(|&&pid| !exited(pid)) {
                    // SAFETY: kill(2) with a pid read from tmux or the kernel; no memory involved.
                    unsafe { libc::kill(pid, signal) };
                }
            };
            let wait_all = |bound: Duration| {
                let deadline = Instant::now() + bound;
                while !pids.iter().all(|&pid| exited(pid)) && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(20));
                }
            };
            signal_all(libc::SIGTERM);
            wait_all(Duration::from_secs(2));
            signal_all(libc::SIGKILL);
            wait_all(Duration::from_secs(2));
        }
        self.kill_server();
        if let Some(path) = &self.socket_path {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The children of process `parent`, oldest first (empty when it has none or is gone).
pub fn children(parent: i32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|pid| pid.parse().ok())
        .collect()
}

/// True once `pid` has exited (gone, or a zombie nobody has reaped yet).
pub fn exited(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        // The state follows the parenthesised command name.
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
    })
}
