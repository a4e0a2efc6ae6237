//! Parking every motion platform when rigd panics: the state a `rigd run` shares with its
//! motion writers (a "park now" flag and the count of writers not known to be parked), and
//! the panic hook that sets the flag and waits up to [`PANIC_PARK_WAIT`] for the count to
//! reach zero before the panic goes on (the default hook prints it; the process then ends).
//!
//! The state is owned by whoever builds the stages (the run, across its reloads; a test or
//! `rigd bench` its own) and captured by the hook; nothing here is a module-level static. The
//! hook itself is process-global by nature (`std::panic::set_hook`): [`PanicPark::hook_once`]
//! installs it at most once per [`PanicPark`], chaining to the hook that was there before.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Longest wait of the panic hook for the writers to park.
pub const PANIC_PARK_WAIT: Duration = Duration::from_secs(10);

/// The park-on-panic state shared by a run's motion writers.
#[derive(Debug, Default)]
pub struct PanicPark {
    /// Set by the panic hook: every writer parks and stays parked.
    parking: AtomicBool,
    /// Writers whose controller is not known to be parked.
    unparked_writers: AtomicUsize,
    /// The hook capturing this state is installed.
    hooked: AtomicBool,
}

impl PanicPark {
    /// Fresh state: not parking, no writer counted, no hook.
    pub fn new() -> Arc<PanicPark> {
        Arc::new(PanicPark::default())
    }

    /// Installs (once for this state) the panic hook that parks this state's writers.
    pub fn hook_once(self: &Arc<PanicPark>) {
        if self.hooked.swap(true, Ordering::SeqCst) {
            return;
        }
        let park = Arc::clone(self);
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            park.parking.store(true, Ordering::SeqCst);
            let start = Instant::now();
            while park.unparked_writers.load(Ordering::SeqCst) > 0
                && start.elapsed() < PANIC_PARK_WAIT
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            previous(info);
        }));
    }

    /// True once a panic asked every writer to park.
    pub fn parking(&self) -> bool {
        self.parking.load(Ordering::SeqCst)
    }

    /// A writer's controller left the park position (`true`) or reached it (`false`); each
    /// writer reports a change once.
    pub fn count_unparked(&self, unparked: bool) {
        if unparked {
            self.unparked_writers.fetch_add(1, Ordering::SeqCst);
        } else {
            self.unparked_writers.fetch_sub(1, Ordering::SeqCst);
        }
    }
}
