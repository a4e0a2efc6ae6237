//! The FFB writer's doorbell: the RT thread rings it when it publishes a command that differs
//! from the last one, so the writer thread wakes at once instead of at its next poll (the
//! poll alone left up to a millisecond, half of one on average, between the tick and the
//! write: docs/BENCHMARKS.md, issue 18).
//!
//! A Linux futex on one atomic word. Ringing is a swap and, only when the bell was not already
//! rung, one `FUTEX_WAKE` system call: it never blocks, allocates or takes a lock another
//! thread holds, so the RT thread may ring. Waiting is `FUTEX_WAIT` with a timeout (the
//! writer's poll period), so a missed or absent ring costs at most one period, as before.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// A one-bit wake-up from one ringer (the RT thread) to one waiter (the writer thread).
#[derive(Debug, Default)]
pub struct Doorbell {
    /// 1 while rung and not yet taken by the waiter.
    rung: AtomicU32,
}

impl Doorbell {
    /// RT side: marks the bell rung and wakes the waiter if it sleeps (non-blocking).
    pub fn ring(&self) {
        if self.rung.swap(1, Ordering::Release) == 0 {
            // SAFETY: FUTEX_WAKE on a valid, aligned u32 that outlives the call; the kernel
            // only reads the address to find waiters.
            unsafe {
                libc::syscall(
                    libc::SYS_futex,
                    self.rung.as_ptr(),
                    libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                    1,
                );
            }
        }
    }

    /// Writer side: returns true at once when the bell was rung since the last call, else
    /// sleeps until it is rung (true) or `timeout` passes (false).
    pub fn wait(&self, timeout: Duration) -> bool {
        if self.rung.swap(0, Ordering::Acquire) == 1 {
            return true;
        }
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: FUTEX_WAIT on a valid, aligned u32 that outlives the call, with a relative
        // timeout; it returns at once (EAGAIN) if the word is no longer 0, so a ring between
        // the swap above and this call is never lost.
        unsafe {
            libc::syscall(
                libc::SYS_futex,
                self.rung.as_ptr(),
                libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                0u32,
                &ts as *const libc::timespec,
            );
        }
        self.rung.swap(0, Ordering::Acquire) == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Instant;

    #[test]
    fn a_ring_before_the_wait_is_kept_and_taken_once() {
        let bell = Doorbell::default();
        bell.ring();
        bell.ring();
        assert!(bell.wait(Duration::from_secs(1)));
        let began = Instant::now();
        assert!(
            !bell.wait(Duration::from_millis(20)),
            "taken by the first wait"
        );
        assert!(began.elapsed() >= Duration::from_millis(19));
    }

    #[test]
    fn a_ring_wakes_a_sleeping_waiter_long_before_its_timeout() {
        let bell = Arc::new(Doorbell::default());
        let waiter = {
            let bell = bell.clone();
            std::thread::spawn(move || {
                let began = Instant::now();
                (bell.wait(Duration::from_secs(10)), began.elapsed())
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        bell.ring();
        let (rung, took) = waiter.join().unwrap();
        assert!(rung);
        assert!(took < Duration::from_secs(5), "woken after {took:?}");
    }
}
