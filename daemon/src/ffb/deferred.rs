//! The writer for a force-feedback device that is not plugged in when the session starts
//! (direct-drive bases are often powered on after the PC): a `rigd-ffb-wait` thread looks for
//! the device every [`RESCAN`], picks the backend the moment it appears (so `auto` gets the
//! hidraw PID writer for a PID base plugged in late, and an explicit `hidraw` is honoured or
//! refused on the device itself), starts that writer sharing this thread's quit flag, and then
//! only waits for it to end. Stopping is one flag for both threads: the writer zeroes and
//! closes the device, then both end.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::devices::ffb_backend::Backend;

/// How often the missing device is looked for.
pub const RESCAN: Duration = Duration::from_millis(250);
/// How often the waiting thread checks its quit flag between looks.
const QUIT_CHECK: Duration = Duration::from_millis(20);

/// A writer thread the waiting thread started; [`StartedWriter::wait`] blocks until it ends
/// (it ends when the shared quit flag is set).
pub trait StartedWriter: Send {
    /// Waits for the writer thread to end, without asking it to.
    fn wait(self: Box<Self>);
}

/// The waiting thread (and, once the device appeared, the writer it started).
#[derive(Debug)]
pub struct DeferredWriter {
    quit: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl DeferredWriter {
    /// Starts waiting. `probe` is called every [`RESCAN`] and returns the backend for the
    /// device and why once it is plugged in; `start` then starts that backend's writer with the
    /// shared quit flag (None when it cannot or the backend is off, which ends the wait).
    pub fn spawn(
        mut probe: impl FnMut() -> Option<(Backend, String)> + Send + 'static,
        start: impl FnOnce(Backend, String, Arc<AtomicBool>) -> Option<Box<dyn StartedWriter>>
            + Send
            + 'static,
    ) -> std::io::Result<DeferredWriter> {
        let quit = Arc::new(AtomicBool::new(false));
        let stop = quit.clone();
        let thread = std::thread::Builder::new()
            .name("rigd-ffb-wait".into())
            .spawn(move || {
                let mut next_look = Instant::now();
                while !stop.load(Ordering::Acquire) {
                    if Instant::now() >= next_look {
                        next_look += RESCAN;
                        if let Some((backend, why)) = probe() {
                            if let Some(writer) = start(backend, why, stop.clone()) {
                                writer.wait();
                            }
                            return;
                        }
                    }
                    std::thread::sleep(QUIT_CHECK);
                }
            })?;
        Ok(DeferredWriter {
            quit,
            thread: Some(thread),
        })
    }

    /// Stops the waiting thread and its writer, waiting at most `within` for the writer's zero
    /// and clean-up.
    pub fn stop_within(&mut self, within: Duration) {
        super::stop_writer_within(&self.quit, &mut self.thread, within);
    }
}

impl Drop for DeferredWriter {
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;
    use std::sync::Mutex;

    /// A writer thread that runs until the shared flag is set, like the real ones.
    struct FlagWriter(JoinHandle<()>);

    impl StartedWriter for FlagWriter {
        fn wait(self: Box<Self>) {
            let _ = self.0.join();
        }
    }

    #[test]
    fn the_backend_is_chosen_when_the_device_appears_and_one_flag_stops_both() {
        let looks = Arc::new(AtomicU32::new(0));
        let counted = looks.clone();
        let started: Arc<Mutex<Option<(Backend, String)>>> = Arc::default();
        let seen = started.clone();
        let writer_ended = Arc::new(AtomicBool::new(false));
        let ended = writer_ended.clone();
        let mut deferred = DeferredWriter::spawn(
            move || {
                // Plugged in at the third look.
                (counted.fetch_add(1, Ordering::AcqRel) >= 2)
                    .then(|| (Backend::HidrawPid, "hidraw PID".to_string()))
            },
            move |backend, why, quit| {
                *seen.lock().unwrap() = Some((backend, why));
                let thread = std::thread::spawn(move || {
                    while !quit.load(Ordering::Acquire) {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    ended.store(true, Ordering::Release);
                });
                Some(Box::new(FlagWriter(thread)) as Box<dyn StartedWriter>)
            },
        )
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while started.lock().unwrap().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(
            started.lock().unwrap().as_ref().map(|(b, _)| *b),
            Some(Backend::HidrawPid)
        );
        assert_eq!(
            looks.load(Ordering::Acquire),
            3,
            "looks stop once it is found"
        );
        let t0 = Instant::now();
        deferred.stop_within(Duration::from_millis(500));
        assert!(
            writer_ended.load(Ordering::Acquire),
            "the writer ended first"
        );
        assert!(
            t0.elapsed() < Duration::from_millis(100),
            "{:?}",
            t0.elapsed()
        );
    }

    #[test]
    fn waiting_for_a_device_that_never_comes_stops_within_one_quit_check() {
        let mut deferred = DeferredWriter::spawn(|| None, |_, _, _| None).unwrap();
        std::thread::sleep(Duration::from_millis(30));
        let t0 = Instant::now();
        deferred.stop_within(Duration::from_millis(500));
        assert!(deferred.thread.is_none(), "joined");
        assert!(t0.elapsed() <= QUIT_CHECK * 3, "{:?}", t0.elapsed());
    }
}
