//! The guards that keep the tests' processes from outliving their test (a stray rigd at 1 kHz
//! breaks the tests that run after it): a rigd started the way every test starts one
//! (`support::spawn_rigd`, guarded by `support::KillOnDrop`) is killed and reaped when its test
//! panics, or returns early, with it still running; a program in a tmux pane
//! (`tests/support/tmux.rs`) is ended when its test panics, even one that ignores SIGTERM.

mod support;
#[path = "../../tests/support/tmux.rs"]
mod tmux;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::time::Duration;

use support::*;
use tmux::Tmux;

/// True once no process `pid` exists, not even as a zombie waiting to be reaped.
fn gone(pid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 only checks that the pid exists; no memory involved.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

#[test]
fn a_panic_with_rigd_running_kills_and_reaps_it() {
    let dir = TempDir::new("guard-panic");
    let config = dir.file("rigd.toml", IDLE_TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let mut pid = 0;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let child = spawn_rigd(&config, &notify, &[], &[]);
        pid = child.id() as i32;
        notify.wait_for("READY=1", Duration::from_secs(30));
        assert!(!gone(pid), "rigd {pid} runs before the failure");
        panic!("a failing assertion with rigd running");
    }));
    assert!(outcome.is_err(), "the guarded scope panicked");
    assert!(pid > 0);
    assert!(gone(pid), "rigd {pid} outlived the panic of its test");
}

/// Starts rigd, waits for READY=1 and returns (as an early `return` or `?` would) with it
/// still running: its pid.
fn return_with_rigd_running(config: &Path, notify: &NotifySocket) -> i32 {
    let child = spawn_rigd(config, notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(30));
    let pid = child.id() as i32;
    assert!(!gone(pid), "rigd {pid} runs before the return");
    pid
}

#[test]
fn a_return_with_rigd_running_kills_and_reaps_it() {
    let dir = TempDir::new("guard-return");
    let config = dir.file("rigd.toml", IDLE_TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let pid = return_with_rigd_running(&config, &notify);
    assert!(
        gone(pid),
        "rigd {pid} outlived the function that started it"
    );
}

#[test]
fn a_panic_with_a_program_in_a_tmux_pane_ends_it_even_when_it_ignores_sigterm() {
    let mut pane = 0;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let tmux = Tmux::start(
            "rigd-guard-tmux",
            (80, 24),
            "trap '' TERM HUP; echo ignoring-sigterm; while :; do sleep 0.1; done",
        );
        tmux.wait_for("the pane's program", |s| s.contains("ignoring-sigterm"));
        pane = tmux.pane_pid();
        assert!(!tmux::exited(pane), "the pane's program {pane} runs");
        panic!("a failing assertion with a program in a tmux pane");
    }));
    assert!(outcome.is_err(), "the guarded scope panicked");
    assert!(pane > 0);
    assert!(
        tmux::exited(pane),
        "the pane's program {pane} outlived the panic of its test"
    );
}
