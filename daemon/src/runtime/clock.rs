//! CLOCK_MONOTONIC in nanoseconds, absolute-deadline sleeps and the final spin.
//!
//! Deadlines are absolute (`clock_nanosleep` with TIMER_ABSTIME), so a late wake-up never
//! shifts the following deadlines (no drift). None of these functions allocate.

/// Now on CLOCK_MONOTONIC, nanoseconds.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleeps until CLOCK_MONOTONIC reaches `deadline_ns` (returns at once when it has passed).
pub fn sleep_until_ns(deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: `ts` is a valid timespec; with TIMER_ABSTIME the remainder pointer is unused.
        let rc = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        // EINTR: a signal arrived; the absolute deadline is unchanged, so simply sleep again.
        if rc != libc::EINTR {
            return;
        }
    }
}

/// The first instant at or after `earliest_ns` that lies half a period after a tick deadline
/// (the RT loop's deadlines are whole multiples of `period_ns` on CLOCK_MONOTONIC). Threads
/// that wake periodically beside the loop wake there, as far as possible from the RT core's
/// wake-ups: on a virtual machine two vCPUs waking at the same instant wait on the host
/// together, which shows in the loop's late tail (docs/BENCHMARKS.md, session 4).
pub fn between_ticks_ns(earliest_ns: u64, period_ns: u64) -> u64 {
    let period_ns = period_ns.max(2);
    let candidate = earliest_ns / period_ns * period_ns + period_ns / 2;
    if candidate >= earliest_ns {
        candidate
    } else {
        candidate + period_ns
    }
}

/// Sleeps until `spin_ns` before `deadline_ns`, then busy-waits to the deadline.
pub fn wait_until_ns(deadline_ns: u64, spin_ns: u64) {
    if spin_ns == 0 {
        sleep_until_ns(deadline_ns);
        return;
    }
    sleep_until_ns(deadline_ns.saturating_sub(spin_ns));
    while now_ns() < deadline_ns {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::between_ticks_ns;

    #[test]
    fn between_ticks_is_the_next_half_period_point() {
        let ms = 1_000_000;
        assert_eq!(between_ticks_ns(7 * ms, ms), 7 * ms + ms / 2);
        assert_eq!(between_ticks_ns(7 * ms + ms / 2, ms), 7 * ms + ms / 2);
        assert_eq!(between_ticks_ns(7 * ms + ms / 2 + 1, ms), 8 * ms + ms / 2);
        // 500 Hz: deadlines at even milliseconds, so half way is the odd ones.
        assert_eq!(between_ticks_ns(8 * ms + 1, 2 * ms), 9 * ms);
    }
}
