//! The motion writer thread: one thread steps every motion output of a run (every platform,
//! every output rate), each an [`OutputWriter`] that never waits; and each stage's hold on
//! it ([`StageWriters`]: shut its outputs down, wait until they have parked and closed).
//!
//! Why one thread: the bridge's CPU at 1 kHz was wake-ups, not work (docs/BENCHMARKS.md,
//! issue 20). With a thread per output, every tick woke one thread per platform, and each
//! wake-up cost some 10-20 us of CPU on the RT thread's side (the futex wake) and the
//! writer's. The stages push their commands and [`std::thread::Thread::unpark`] the one
//! thread in turn; an unpark that finds it awake or its token set is an atomic swap, no
//! futex call, and the thread pops every output's ring before it sleeps again. An unpark per
//! command was measured to wake it about twice per tick with two platforms (the second
//! platform's unpark mostly found it asleep again: docs/BENCHMARKS.md), so the stages only
//! ask for the wake-up ([`WriterThread::request_wake`]) and the first of them to reach the
//! end of the tick ([`crate::rt::stage::RtStage::end_of_tick`]) wakes it once for all: one
//! wake-up per tick that has a frame, whatever the number of platforms. A park command
//! (fault, shutdown) wakes it at once. Outputs at different rates share the thread too: it
//! wakes for the union of their frame times.
//!
//! Isolation without threads of their own: no output's step ever waits (writes that the port
//! does not take are skipped or queued in [`super::link`], opens and their delays are
//! deadlines), so a port that stops reading, a pulled cable or a reconnect never delays the
//! other outputs' frames. What an output step may still take is an `open()` of its serial
//! port (a few syscalls; a missing device fails at once) and a close (the kernel sends what
//! is queued first).
//!
//! Sleeping: after a round the thread sleeps in [`std::thread::park_timeout`] until the
//! earliest output's due time, at most [`LONGEST_WAIT`] (the bound on noticing a panic's park
//! request, which only sets a flag), unless a command waits in some ring; a command, a
//! shutdown or a stage's drop wakes it at once. It ends when every output has finished.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::thread::{JoinHandle, Thread};
use std::time::Instant;

use super::writer::{OutputWriter, LONGEST_WAIT};

/// The writer thread; joined when the last stage holding it is dropped.
#[derive(Debug)]
pub struct WriterThread {
    thread: Thread,
    handle: Option<JoinHandle<()>>,
    /// A command was pushed this tick and the thread is not yet woken for it.
    wake_requested: AtomicBool,
}

impl WriterThread {
    /// Starts the thread that steps `outputs` until each has finished.
    pub fn spawn(outputs: Vec<OutputWriter>) -> std::io::Result<Arc<WriterThread>> {
        let handle = std::thread::Builder::new()
            .name("rigd-motion".into())
            .spawn(move || run_writers(outputs))?;
        Ok(Arc::new(WriterThread {
            thread: handle.thread().clone(),
            handle: Some(handle),
            wake_requested: AtomicBool::new(false),
        }))
    }

    /// Wakes the thread now (`unpark`: an atomic swap and at most one futex wake; it neither
    /// allocates, locks nor blocks).
    pub fn wake(&self) {
        self.thread.unpark();
    }

    /// Asks for a wake-up at the end of the tick ([`Self::wake_if_requested`]): an atomic
    /// store, so every platform's stage can ask and the thread still wakes once.
    pub fn request_wake(&self) {
        self.wake_requested.store(true, Ordering::Release);
    }

    /// Wakes the thread if a stage asked for it since the last wake-up (the end of a tick).
    pub fn wake_if_requested(&self) {
        if self.wake_requested.swap(false, Ordering::AcqRel) {
            self.thread.unpark();
        }
    }
}

impl Drop for WriterThread {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// Steps every output until all have finished (the body of the writer thread).
fn run_writers(mut outputs: Vec<OutputWriter>) {
    loop {
        let mut next: Option<Instant> = None;
        // A finished output is dropped here: its `finished` sender goes with it.
        outputs.retain_mut(|out| match out.step(Instant::now()) {
            Some(due) => {
                next = Some(next.map_or(due, |n| n.min(due)));
                true
            }
            None => false,
        });
        let Some(next) = next else {
            return;
        };
        let wait = next
            .saturating_duration_since(Instant::now())
            .min(LONGEST_WAIT);
        if !wait.is_zero() && outputs.iter().all(OutputWriter::no_command_waiting) {
            std::thread::park_timeout(wait);
        }
    }
}

/// A stage's hold on the writer thread.
#[derive(Debug)]
pub struct StageWriters {
    /// The thread its outputs run on.
    pub thread: Arc<WriterThread>,
    /// Its outputs' shutdown flag.
    pub shutdown: Arc<AtomicBool>,
    /// Disconnected once every output of the stage has finished (each drops its sender).
    pub finished: Receiver<()>,
}

impl StageWriters {
    /// Shuts the stage's outputs down and waits until each has parked, sent its stop string
    /// and closed its link (or given up on a link that stayed down).
    pub fn shut_down(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        self.thread.wake();
        // Nothing is ever sent: this returns when the last sender is dropped.
        let _ = self.finished.recv();
    }
}
