//! Shared helpers of the runtime tests that drive the real `rigd` binary: a temp directory,
//! a fake systemd notify socket, starting `rigd run` until it reports READY=1, running
//! `rigd line` for a line file, and [`KillOnDrop`], the one guard every child process a test
//! starts goes through, so that a failing assertion or an early return never leaves a rigd
//! running (a stray rigd at 1 kHz breaks the tests that come after it).

#![allow(dead_code)] // each test binary uses its own subset

use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh directory under the target dir's tmp, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("rigd-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A datagram socket standing in for systemd's notify socket.
pub struct NotifySocket {
    pub path: PathBuf,
    socket: UnixDatagram,
}

impl NotifySocket {
    pub fn bind(dir: &Path) -> NotifySocket {
        let path = dir.join("notify.sock");
        let socket = UnixDatagram::bind(&path).unwrap();
        NotifySocket { path, socket }
    }

    /// The next message within `timeout`.
    pub fn recv(&self, timeout: Duration) -> Option<String> {
        self.socket
            .set_read_timeout(Some(timeout.max(Duration::from_millis(1))))
            .unwrap();
        let mut buf = [0u8; 4096];
        let n = self.socket.recv(&mut buf).ok()?;
        Some(String::from_utf8_lossy(&buf[..n]).into_owned())
    }

    /// Waits for a message containing `needle`; returns every message seen (with its
    /// arrival time) up to and including it.
    pub fn wait_for(&self, needle: &str, timeout: Duration) -> Vec<(Instant, String)> {
        let end = Instant::now() + timeout;
        let mut seen = Vec::new();
        while Instant::now() < end {
            if let Some(msg) = self.recv(end - Instant::now()) {
                let done = msg.contains(needle);
                seen.push((Instant::now(), msg));
                if done {
                    return seen;
                }
            }
        }
        panic!("no `{needle}` notification within {timeout:?}; saw {seen:?}");
    }

    /// Every message arriving during `window`.
    pub fn collect(&self, window: Duration) -> Vec<(Instant, String)> {
        let end = Instant::now() + window;
        let mut seen = Vec::new();
        while Instant::now() < end {
            if let Some(msg) = self.recv(end - Instant::now()) {
                seen.push((Instant::now(), msg));
            }
        }
        seen
    }
}

/// A UDP port on loopback that was free a moment ago.
pub fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A config for tests: the defaults, without PM QoS, memory locking and the final spin (the
/// test machine is shared, and every test daemon spinning on the last core would take it),
/// and with the robot driving at the full rate (the tests watch a lapping car and its loop;
/// the idle default has its own tests, with [`IDLE_TEST_CONFIG`]).
pub const TEST_CONFIG: &str = "[loop]\npm_qos = \"off\"\nlock_memory = false\nspin_us = 0\n\
                               when_nobody_drives = \"robot\"\n";

/// [`TEST_CONFIG`] with the default `when_nobody_drives` (idle).
pub const IDLE_TEST_CONFIG: &str = "[loop]\npm_qos = \"off\"\nlock_memory = false\nspin_us = 0\n";

/// `rigd run` with `config`, notifying `notify`, plus `extra` args and env; killed when the
/// guard drops.
pub fn spawn_rigd(
    config: &Path,
    notify: &NotifySocket,
    extra_args: &[&str],
    env: &[(&str, &str)],
) -> KillOnDrop {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rigd"));
    command
        .args(["--config", config.to_str().unwrap(), "run", "--no-display"])
        .args(extra_args)
        .env("NOTIFY_SOCKET", &notify.path)
        .env_remove("WATCHDOG_USEC")
        .env_remove("WATCHDOG_PID")
        .env_remove("JOURNAL_STREAM")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    KillOnDrop::spawn(&mut command)
}

/// Sends `signal` to `child`.
pub fn signal(child: &Child, signal: i32) {
    // SAFETY: kill with a valid pid and signal number.
    let rc = unsafe { libc::kill(child.id() as i32, signal) };
    assert_eq!(rc, 0);
}

/// Waits for `child` to exit within `timeout`; kills it (and fails) otherwise.
pub fn wait_exit(child: &mut Child, timeout: Duration) -> std::process::ExitStatus {
    let end = Instant::now() + timeout;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("rigd did not exit within {timeout:?}");
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Everything `child` wrote to stderr (after it exited).
pub fn stderr_of(child: &mut Child) -> String {
    use std::io::Read;
    let mut text = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut text);
    }
    text
}

/// A child process that cannot outlive its test: killed (SIGKILL) and reaped when the guard
/// drops, which is at the end of its scope, on an early return, and while a failing assertion
/// unwinds. When it drops during a panic, what the child wrote to a piped stderr that nobody
/// read yet is printed (rigd's log says why the test failed). Every test that starts a process
/// which could keep running (rigd, its tools) starts it through [`KillOnDrop::spawn`] (or
/// [`spawn_rigd`]); the processes in tmux panes have their own guard (`tests/support/tmux.rs`).
pub struct KillOnDrop(pub Child);

impl KillOnDrop {
    /// Starts `command`, guarded from the moment it runs.
    pub fn spawn(command: &mut Command) -> KillOnDrop {
        KillOnDrop(command.spawn().unwrap())
    }
}

impl std::ops::Deref for KillOnDrop {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for KillOnDrop {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
        if std::thread::panicking() && self.0.stderr.is_some() {
            let pid = self.0.id();
            eprintln!("child {pid}'s stderr:\n{}", stderr_of(&mut self.0));
        }
    }
}

/// Every `.rs` file below `dir`, recursively (the source-shape tests read them as text).
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Runs the real `rigd` binary with `args` to completion: exit code, stdout, stderr.
pub fn rigd(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rigd"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `rigd line` for the road car on the short `corners` track, one iteration (a few
/// seconds), into `dir/line.toml`; asserts it succeeded. The line file's path, stdout, stderr.
pub fn line_for_road_on_corners(dir: &TempDir) -> (PathBuf, String, String) {
    let line = dir.0.join("line.toml");
    let (code, out, err) = rigd(&[
        "line",
        "--car",
        "road",
        "--track",
        "corners",
        "--iterations",
        "1",
        "--out",
        line.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "rigd line: {err}");
    (line, out, err)
}
