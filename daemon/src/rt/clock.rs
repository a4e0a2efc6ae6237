//! CLOCK_MONOTONIC in nanoseconds, absolute-deadline sleeps and the final spin, and where in
//! the period things wake: the loop's deadlines half a period off the kernel's tick grid
//! ([`first_deadline_ns`]), the other threads' timed wake-ups half a period from those
//! ([`between_ticks_ns`], [`sleep_between_ticks`]).
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

/// The loop's first deadline after `now_ns`: its deadlines lie half a period after the whole
/// multiples of `period_ns` on CLOCK_MONOTONIC. The kernel's scheduler tick fires at whole
/// multiples of its own period (1/HZ: 1, 3.33, 4 or 10 ms) on every CPU, and a deadline on
/// the same instant waits for the tick's work and the softirqs it raises in the same
/// interrupt; half a millisecond off, the two never meet (for 1 kHz, and for every rate whose
/// period is a whole number of milliseconds). Measured on this VM class: wake-up p50 as
/// cyclictest's instead of 2-3 us above, p99 ratio to cyclictest 0.93 instead of 1.08
/// (docs/BENCHMARKS.md, session 4).
pub fn first_deadline_ns(now_ns: u64, period_ns: u64) -> u64 {
    next_at_phase(now_ns + 1, period_ns, period_ns / 2)
}

/// The first instant at or after `earliest_ns` half a period away from the loop's deadlines
/// ([`first_deadline_ns`]), i.e. on a whole multiple of `period_ns`. Threads that wake
/// periodically beside the loop wake there, as far as possible from the RT core's wake-ups:
/// on a virtual machine two vCPUs waking at the same instant wait on the host together.
pub fn between_ticks_ns(earliest_ns: u64, period_ns: u64) -> u64 {
    next_at_phase(earliest_ns, period_ns, 0)
}

/// Sleeps at least `at_least`, then on to the next instant between the loop's ticks of
/// `period_ns` ([`between_ticks_ns`]); returns that instant.
pub fn sleep_between_ticks(at_least: std::time::Duration, period_ns: u64) -> u64 {
    let earliest_ns = now_ns() + at_least.as_nanos() as u64;
    let instant_ns = between_ticks_ns(earliest_ns, period_ns);
    sleep_until_ns(instant_ns);
    instant_ns
}

/// The first instant at or after `earliest_ns` that is `phase_ns` past a whole multiple of
/// `period_ns`.
fn next_at_phase(earliest_ns: u64, period_ns: u64, phase_ns: u64) -> u64 {
    let period_ns = period_ns.max(1);
    let candidate = earliest_ns.saturating_sub(phase_ns) / period_ns * period_ns + phase_ns;
    if candidate >= earliest_ns {
        candidate
    } else {
        candidate + period_ns
    }
}

/// Sleeps until `spin_ns` before `deadline_ns`, then busy-waits to the deadline. The spin
/// only ever shortens the sleep down to `min_sleep_ns` ([`spin_start_ns`]), so a long tick
/// eats into the spin, not into the time the thread leaves the core to everything else.
pub fn wait_until_ns(deadline_ns: u64, spin_ns: u64, min_sleep_ns: u64) {
    if spin_ns == 0 {
        sleep_until_ns(deadline_ns);
        return;
    }
    sleep_until_ns(spin_start_ns(now_ns(), deadline_ns, spin_ns, min_sleep_ns));
    while now_ns() < deadline_ns {
        std::hint::spin_loop();
    }
}

/// When a wait at `now_ns` for `deadline_ns` stops sleeping and starts spinning: `spin_ns`
/// before the deadline, but never less than `min_sleep_ns` after now (nor after the
/// deadline). A SCHED_FIFO thread that never sleeps starves the core's kernel threads until
/// the kernel throttles it for tens of milliseconds; the floor keeps its sleep in every
/// period however long the tick's work was. Past the deadline it is the deadline: no sleep.
pub fn spin_start_ns(now_ns: u64, deadline_ns: u64, spin_ns: u64, min_sleep_ns: u64) -> u64 {
    let floor = now_ns.saturating_add(min_sleep_ns).min(deadline_ns);
    deadline_ns.saturating_sub(spin_ns).max(floor)
}

#[cfg(test)]
mod tests {
    use super::{between_ticks_ns, first_deadline_ns, now_ns, spin_start_ns, wait_until_ns};

    const MS: u64 = 1_000_000;

    #[test]
    fn deadlines_lie_half_a_period_off_the_kernel_tick_grid() {
        assert_eq!(first_deadline_ns(7 * MS, MS), 7 * MS + MS / 2);
        assert_eq!(first_deadline_ns(7 * MS + MS / 2 - 1, MS), 7 * MS + MS / 2);
        // Strictly after now: a deadline that is now has already begun.
        assert_eq!(first_deadline_ns(7 * MS + MS / 2, MS), 8 * MS + MS / 2);
        assert_eq!(first_deadline_ns(0, MS), MS / 2);
        // 500 Hz: 1, 3, 5 ... ms, never on the 4 ms ticks of HZ=250.
        assert_eq!(first_deadline_ns(8 * MS, 2 * MS), 9 * MS);
    }

    #[test]
    fn between_ticks_is_half_a_period_from_every_deadline() {
        assert_eq!(between_ticks_ns(7 * MS, MS), 7 * MS);
        assert_eq!(between_ticks_ns(7 * MS + 1, MS), 8 * MS);
        for now in [0, 3, 7 * MS + 123_456, 999 * MS + MS / 2] {
            let deadline = first_deadline_ns(now, MS);
            let between = between_ticks_ns(now, MS);
            assert_eq!(deadline.abs_diff(between) % MS, MS / 2, "now {now}");
        }
    }

    #[test]
    fn the_spin_starts_its_length_before_the_deadline_when_the_tick_left_time() {
        // Tick work ended 100 us into the period: sleep to 300 us before the deadline.
        assert_eq!(spin_start_ns(100_000, MS, 300_000, 100_000), 700_000);
    }

    #[test]
    fn a_long_tick_shortens_the_spin_and_keeps_the_minimum_sleep() {
        // Work ended 850 us into the period: 100 us of sleep, then a 50 us spin.
        assert_eq!(spin_start_ns(850_000, MS, 300_000, 100_000), 950_000);
        // Work ended 950 us in: the floor lands past the deadline, so sleep to the deadline.
        assert_eq!(spin_start_ns(950_000, MS, 300_000, 100_000), MS);
    }

    #[test]
    fn a_late_wait_neither_sleeps_nor_spins() {
        assert_eq!(spin_start_ns(MS + 5, MS, 300_000, 100_000), MS);
    }

    #[test]
    fn a_spinning_wait_returns_at_its_deadline_not_before() {
        for spin in [MS / 2, 2 * MS] {
            let deadline = now_ns() + MS;
            wait_until_ns(deadline, spin, MS / 10);
            assert!(now_ns() >= deadline, "spin {spin} ns");
        }
    }
}
