//! Signals as ordinary events on the main thread: SIGINT, SIGTERM and SIGHUP are blocked in
//! every thread (the mask is set before any thread starts and inherited), and the main thread
//! takes them with `sigtimedwait`. No handler runs asynchronously, so nothing async-signal
//! unsafe can happen and the RT thread is never interrupted by them.
//!
//! SIGHUP means two things. Sent by an operator (`kill -HUP`, `systemctl reload`) it asks for a
//! configuration reload. Sent by the kernel because the controlling terminal hung up (window
//! closed, tmux server ended, ssh dropped) it means nobody can see or stop this rigd any more,
//! and a rig nobody watches must not keep driving a wheel: that is a safe stop. The two are
//! told apart by the terminal itself ([`ControllingTerminal`]): the kernel marks the terminal
//! hung up before it sends the signal, so a SIGHUP that finds it hung up is
//! [`Signal::TerminalClosed`]. Without a controlling terminal (under systemd) every SIGHUP is a
//! reload, and so it is under `nohup` (SIGHUP ignored when rigd started): the user asked for
//! rigd to outlive its terminal.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::time::Duration;

/// A signal the daemon acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT or SIGTERM: safe stop and exit.
    Stop,
    /// SIGHUP with the controlling terminal still there (or none at all): reload the
    /// configuration.
    Reload,
    /// SIGHUP because the controlling terminal hung up: safe stop and exit.
    TerminalClosed,
}

fn handled_set() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset initialise and fill a local sigset_t.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGHUP);
        set
    }
}

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and every thread it starts later.
/// Call first thing in `main`, before any thread exists.
pub fn block_handled_signals() {
    let set = handled_set();
    // SAFETY: `set` is initialised; a null old-set pointer is allowed.
    unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
}

/// The terminal whose hang-up stops rigd: the controlling terminal, held open from start so
/// its state can be read when a SIGHUP arrives (fd 2 may point at the log file by then, and
/// stdin or stdout may never have been the terminal).
#[derive(Debug)]
pub struct ControllingTerminal(Option<OwnedFd>);

impl ControllingTerminal {
    /// Opens `/dev/tty`: `None` inside when the process has no controlling terminal (a
    /// service) or SIGHUP was ignored when it started (`nohup`).
    pub fn open() -> ControllingTerminal {
        if sighup_ignored_at_start() {
            return ControllingTerminal(None);
        }
        let tty = std::fs::File::options()
            .read(true)
            .open("/dev/tty")
            .ok()
            .map(OwnedFd::from);
        ControllingTerminal(tty)
    }

    /// True when there is a terminal and it has hung up.
    pub fn hung_up(&self) -> bool {
        self.0.as_ref().is_some_and(|fd| hung_up(fd.as_fd()))
    }
}

/// True when the disposition of SIGHUP is "ignore", as `nohup` leaves it (rigd blocks the
/// signal but never changes its disposition, so this still reads what the parent set).
fn sighup_ignored_at_start() -> bool {
    // SAFETY: a zeroed sigaction is a valid out-parameter; a null new action only queries.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGHUP, std::ptr::null(), &mut current) == 0
            && current.sa_sigaction == libc::SIG_IGN
    }
}

/// True when the terminal `fd` refers to has hung up (or the descriptor is no longer valid):
/// `poll` reports `POLLHUP`/`POLLERR` for a hung-up terminal, never for a live one, and does
/// not wait.
pub fn hung_up(fd: BorrowedFd<'_>) -> bool {
    poll_one(fd, 0, 0) & HANG_UP_EVENTS != 0
}

/// The `poll` events that say a descriptor's other side is gone (or the descriptor is).
pub const HANG_UP_EVENTS: libc::c_short = libc::POLLHUP | libc::POLLERR | libc::POLLNVAL;

/// What `poll` reports for `fd` waiting up to `timeout_ms` for `events` (hang-ups are always
/// reported): the returned events, 0 when nothing happened in time or `poll` failed.
pub fn poll_one(fd: BorrowedFd<'_>, events: libc::c_short, timeout_ms: i32) -> libc::c_short {
    let mut poll_fd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events,
        revents: 0,
    };
    // SAFETY: `poll_fd` is a valid pollfd for the duration of the call; count is 1.
    let ready = unsafe { libc::poll(&mut poll_fd, 1, timeout_ms) };
    if ready > 0 {
        poll_fd.revents
    } else {
        0
    }
}

/// Waits up to `timeout` for a handled signal; a SIGHUP is [`Signal::TerminalClosed`] when
/// `terminal` has hung up, else [`Signal::Reload`].
pub fn wait(timeout: Duration, terminal: &ControllingTerminal) -> Option<Signal> {
    let set = handled_set();
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `set` and `ts` are initialised; a null siginfo pointer is allowed.
    let signal = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &ts) };
    match signal {
        libc::SIGINT | libc::SIGTERM => Some(Signal::Stop),
        libc::SIGHUP if terminal.hung_up() => Some(Signal::TerminalClosed),
        libc::SIGHUP => Some(Signal::Reload),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_pty::pty_pair;

    #[test]
    fn a_terminal_is_hung_up_once_its_other_side_closes() {
        let (master, slave) = pty_pair();
        assert!(!hung_up(slave.as_fd()), "a live terminal is not hung up");
        drop(master);
        assert!(hung_up(slave.as_fd()), "the master closed: hung up");
    }

    #[test]
    fn without_a_terminal_nothing_is_hung_up() {
        assert!(!ControllingTerminal(None).hung_up());
    }
}
