//! Joining a thread with a deadline, for the stop path: every wait between a stop request
//! (SIGTERM, a closed terminal, `q`) and the process exit is bounded, so a thread stuck in the
//! kernel (a write to a terminal that stopped reading, a loop that no longer checks its
//! command) cannot keep rigd alive unseen. A thread that misses the deadline is detached
//! (never joined) and ends with the process.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the deadline wait looks at the thread (short against every deadline used).
const CHECK_EVERY: Duration = Duration::from_millis(1);

/// Joins `handle` if its thread finishes within `timeout`: `Ok` with what `join` returns, or
/// `Err(handle)` when it is still running (the caller says why and lets it go).
pub fn join_within<T>(
    handle: JoinHandle<T>,
    timeout: Duration,
) -> Result<std::thread::Result<T>, JoinHandle<T>> {
    let deadline = Instant::now() + timeout;
    while !handle.is_finished() {
        if Instant::now() >= deadline {
            return Err(handle);
        }
        std::thread::sleep(CHECK_EVERY);
    }
    Ok(handle.join())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_thread_is_joined_with_its_value() {
        let handle = std::thread::spawn(|| 42);
        let joined = join_within(handle, Duration::from_secs(10));
        assert_eq!(joined.ok().and_then(Result::ok), Some(42));
    }

    #[test]
    fn a_stuck_thread_is_given_up_at_the_deadline() {
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let handle = std::thread::spawn(move || blocked.recv().is_ok());
        let start = Instant::now();
        let still_running = join_within(handle, Duration::from_millis(100))
            .expect_err("the thread waits on a channel nobody sends to");
        let waited = start.elapsed();
        assert!(waited >= Duration::from_millis(100), "{waited:?}");
        // Generous upper bound: a loaded 2-core machine may delay the waiting thread.
        assert!(waited < Duration::from_secs(5), "{waited:?}");
        release.send(()).unwrap();
        assert_eq!(
            join_within(still_running, Duration::from_secs(10))
                .ok()
                .and_then(Result::ok),
            Some(true)
        );
    }
}
