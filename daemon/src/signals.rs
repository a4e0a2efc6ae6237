//! Signals as ordinary events on the main thread: SIGINT, SIGTERM and SIGHUP are blocked in
//! every thread (the mask is set before any thread starts and inherited), and the main thread
//! takes them with `sigtimedwait`. No handler runs asynchronously, so nothing async-signal
//! unsafe can happen and the RT thread is never interrupted by them.

use std::time::Duration;

/// A signal the daemon acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGINT or SIGTERM: safe stop and exit.
    Stop,
    /// SIGHUP: reload the configuration.
    Reload,
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

/// Waits up to `timeout` for a handled signal.
pub fn wait(timeout: Duration) -> Option<Signal> {
    let set = handled_set();
    let ts = libc::timespec {
        tv_sec: timeout.as_secs() as libc::time_t,
        tv_nsec: timeout.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `set` and `ts` are initialised; a null siginfo pointer is allowed.
    let signal = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), &ts) };
    match signal {
        libc::SIGINT | libc::SIGTERM => Some(Signal::Stop),
        libc::SIGHUP => Some(Signal::Reload),
        _ => None,
    }
}
