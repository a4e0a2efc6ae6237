//! Spawning a real-time thread: pinned to its core, promoted to SCHED_FIFO, its stack
//! pre-faulted, before it runs its body. What the system refused comes back to the spawner
//! (the thread itself never logs), which waits only for the set-up, not for the body.

use std::sync::mpsc;
use std::thread::JoinHandle;

use super::setup::{self, NotGranted};

/// Stack of a real-time thread: the loop needs little; it is pre-faulted (and locked when
/// mlockall is granted).
pub const RT_STACK_BYTES: usize = 1024 * 1024;

/// Spawns the thread `name` on `core` at SCHED_FIFO `priority` and runs `body` there once it
/// has set itself up; returns its handle and the list of refused requests. Fails when the
/// thread cannot be spawned or ends during its set-up.
pub fn spawn_rt<T: Send + 'static>(
    name: &str,
    core: usize,
    priority: u8,
    body: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<(JoinHandle<T>, Vec<NotGranted>)> {
    let (report, refused) = mpsc::sync_channel(1);
    let handle = std::thread::Builder::new()
        .name(name.into())
        .stack_size(RT_STACK_BYTES)
        .spawn(move || {
            let mut not_granted = Vec::new();
            if let Err(e) = setup::pin_current_thread(core) {
                not_granted.push(e);
            }
            if let Err(e) = setup::make_current_thread_fifo(priority) {
                not_granted.push(e);
            }
            setup::prefault_stack();
            // The spawner may have given up waiting; the body runs regardless.
            let _ = report.send(not_granted);
            body()
        })?;
    let not_granted = refused
        .recv()
        .map_err(|_| std::io::Error::other("the thread ended during its set-up"))?;
    Ok((handle, not_granted))
}
