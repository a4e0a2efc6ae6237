//! Starting the RT thread ([`crate::rt::thread::spawn_rt`]: pin it, promote it to SCHED_FIFO,
//! pre-fault its stack, report what the system refused; the spawner logs it), then run the
//! loop. Stopping it: the loop sees its
//! command within a tick; the join waits at most [`STOP_TIMEOUT`], so a loop that no longer
//! checks its command cannot keep the process alive (its outputs then rely on the process
//! exit: the kernel erases the force-feedback effects of a closed device).

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};

use super::bounded_join::join_within;
use super::rt_loop::{Command, LoopExit, LoopParts, LoopShared, LoopTiming, RtLoop};
use crate::rt::setup::{self, NotGranted};
use crate::rt::thread::spawn_rt;

/// Longest wait for the loop to return once asked to: it checks its command every tick
/// (1 ms at 1 kHz); this leaves room for a loaded machine where it runs without SCHED_FIFO.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(2);

/// The running RT thread. Dropping it without [`RtThread::join`] (an early error return or a
/// panic on the main thread) still asks the loop to exit and waits for its safe stop.
#[derive(Debug)]
pub struct RtThread {
    handle: Option<JoinHandle<LoopExit>>,
    shared: Arc<LoopShared>,
}

impl RtThread {
    /// Builds the loop from `parts` and `timing` and spawns it where `config` says (its core,
    /// else the last one; its SCHED_FIFO priority): the one way `rigd run` and `rigd bench`
    /// start the loop.
    pub fn start(
        parts: LoopParts,
        timing: LoopTiming,
        shared: Arc<LoopShared>,
        config: &rig_config::realtime::LoopConfig,
    ) -> Result<(RtThread, Vec<NotGranted>)> {
        let rt_loop = RtLoop::new(parts, timing, shared.clone());
        RtThread::spawn(rt_loop, shared, setup::rt_core(config), config.priority)
    }

    /// Spawns the thread for `rt_loop` on `core` at SCHED_FIFO `priority`; returns once the
    /// thread has set itself up, with the list of refused requests.
    pub fn spawn(
        rt_loop: RtLoop,
        shared: Arc<LoopShared>,
        core: usize,
        priority: u8,
    ) -> Result<(RtThread, Vec<NotGranted>)> {
        let (handle, not_granted) = spawn_rt("rigd-rt", core, priority, move || rt_loop.run())
            .context("cannot start the physics thread")?;
        Ok((
            RtThread {
                handle: Some(handle),
                shared,
            },
            not_granted,
        ))
    }

    /// True once the thread has returned (the loop only returns on its own after a panic).
    pub fn is_finished(&self) -> bool {
        self.handle.as_ref().is_none_or(|h| h.is_finished())
    }

    /// Waits up to [`STOP_TIMEOUT`] for the loop to return (after a command or a panic).
    pub fn join(mut self) -> Result<LoopExit> {
        let handle = self
            .handle
            .take()
            .context("the physics thread was already joined")?;
        join_within(handle, STOP_TIMEOUT)
            .map_err(|_| {
                anyhow::anyhow!(
                    "the physics thread did not stop within {} s of being asked to, so rigd \
                     exits without its safe stop: the kernel ends the force feedback of the \
                     wheel it closes, but a motion platform is not parked (park it from its \
                     controller); please report this with the log",
                    STOP_TIMEOUT.as_secs()
                )
            })?
            .map_err(|_| anyhow::anyhow!("the physics thread panicked outside its loop"))
    }
}

impl Drop for RtThread {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            self.shared.request(Command::Exit);
            // Bounded like `join`; a thread that misses it is left to end with the process.
            let _ = join_within(handle, STOP_TIMEOUT);
        }
    }
}
