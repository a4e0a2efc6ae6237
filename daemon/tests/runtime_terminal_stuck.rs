//! rigd with its dashboard in a terminal that stops taking output (output suspended with
//! `tcflow(TCOOFF)`, as a stalled terminal or ssh session would): SIGTERM still ends rigd
//! within a few seconds, and the terminal is out of raw mode afterwards, although the
//! dashboard's thread never got to restore it.

mod support;

#[path = "../src/test_pty.rs"]
mod test_pty;

use std::io::Read;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::*;
use test_pty::pty_pair;

fn termios(fd: &OwnedFd) -> libc::termios {
    // SAFETY: a zeroed termios is a valid buffer for tcgetattr to fill.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is an open terminal descriptor; `t` is writable.
    assert_eq!(unsafe { libc::tcgetattr(fd.as_raw_fd(), &mut t) }, 0);
    t
}

fn is_raw(fd: &OwnedFd) -> bool {
    termios(fd).c_lflag & (libc::ICANON | libc::ECHO) == 0
}

fn output_flow(fd: &OwnedFd, action: libc::c_int) {
    // SAFETY: `fd` is an open terminal descriptor; TCOOFF/TCOON only suspend/resume output.
    assert_eq!(unsafe { libc::tcflow(fd.as_raw_fd(), action) }, 0);
}

#[test]
fn a_terminal_that_takes_no_output_still_gets_its_raw_mode_back() {
    let dir = TempDir::new("terminal-stuck");
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{TEST_CONFIG}\n[[telemetry]]\nformat = \"native\"\nrate_hz = 60\n\
             destinations = [\"127.0.0.1:{}\"]\n",
            free_port()
        ),
    );
    let (master, slave) = pty_pair();
    let stdio = || Stdio::from(slave.try_clone().unwrap());
    let mut command = Command::new(env!("CARGO_BIN_EXE_rigd"));
    command
        .args(["--config", config.to_str().unwrap(), "run"])
        .env_remove("NOTIFY_SOCKET")
        .env_remove("JOURNAL_STREAM")
        .stdin(stdio())
        .stdout(stdio())
        .stderr(stdio());
    // SAFETY: only async-signal-safe calls between fork and exec: a new session whose
    // controlling terminal is the pty (stdin), as in a terminal window.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = KillOnDrop::spawn(&mut command);
    // Drain the terminal so the dashboard draws until output is suspended.
    let mut reader = std::fs::File::from(master.try_clone().unwrap());
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while reader.read(&mut buf).is_ok_and(|n| n > 0) {}
    });

    let end = Instant::now() + Duration::from_secs(20);
    while !is_raw(&slave) {
        assert!(
            Instant::now() < end,
            "the dashboard never took the terminal"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let it draw, then suspend the terminal's output: the next frame's write blocks.
    std::thread::sleep(Duration::from_millis(500));
    output_flow(&slave, libc::TCOOFF);
    std::thread::sleep(Duration::from_millis(300));

    let asked = Instant::now();
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let took = asked.elapsed();
    let raw_after_exit = is_raw(&slave);
    output_flow(&slave, libc::TCOON);

    assert_eq!(status.code(), Some(0), "{status:?}");
    assert!(
        took >= Duration::from_millis(900),
        "the display's write was not stuck (rigd exited in {took:?}), so this test proved nothing"
    );
    assert!(
        !raw_after_exit,
        "rigd left the terminal in raw mode: the shell would have no echo and no line editing"
    );
}
