//! What the RT thread asks of the operating system, and one clear warning when it is not
//! granted: core pinning, SCHED_FIFO, memory locking, PM QoS.
//!
//! Each request returns what was refused instead of logging, because the thread promotion
//! runs on the RT thread itself (which never logs); the spawner logs one warning naming every
//! refused request and how to grant it, then the daemon runs on.

use std::fs::File;
use std::io::Write;

use rig_config::realtime::PmQos;

/// A request the system refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotGranted {
    /// What was asked for, e.g. `SCHED_FIFO priority 80`.
    pub what: String,
    /// The error the kernel gave.
    pub error: String,
}

/// How to grant the requests rigd makes (part of the one warning).
pub const HOW_TO_GRANT: &str = "grant it with the systemd unit (systemd/rigd.service sets \
LimitRTPRIO=98 and LimitMEMLOCK=infinity), or `sudo setcap cap_sys_nice,cap_ipc_lock+ep \
$(command -v rigd)`, or `rtprio 98` and `memlock unlimited` for your user in \
/etc/security/limits.conf (then log in again); rtkit is not used: it only hands out SCHED_RR \
with an RLIMIT_RTTIME budget and demotes threads it considers busy";

/// The one warning listing every refused request, or `None` when everything was granted.
pub fn warning(refused: &[NotGranted]) -> Option<String> {
    if refused.is_empty() {
        return None;
    }
    let list: Vec<String> = refused
        .iter()
        .map(|r| format!("{} ({})", r.what, r.error))
        .collect();
    Some(format!(
        "real-time setup not granted: {}; the physics loop runs on with worse timing; {}",
        list.join(", "),
        HOW_TO_GRANT
    ))
}

fn last_os_error() -> String {
    std::io::Error::last_os_error().to_string()
}

/// The last online core.
pub fn last_core() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    (online.max(1) - 1) as usize
}

/// The core the RT thread runs on for `config`: `[loop] core`, else the last online core.
pub fn rt_core(config: &rig_config::realtime::LoopConfig) -> usize {
    config.core.map_or_else(last_core, |c| c as usize)
}

/// The online cores other than `rt_core`, or `None` when there is nothing to keep off it (a
/// single-core machine, or an RT core that is not online).
fn cores_other_than(rt_core: usize) -> Option<impl Iterator<Item = usize> + Clone> {
    let online = last_core() + 1;
    (online >= 2 && rt_core < online).then(|| (0..online).filter(move |&c| c != rt_core))
}

/// Restricts thread `tid` of this process (0: the calling thread, and threads it spawns later)
/// to `cores`; `what` names the request in the warning when it is refused.
fn set_thread_affinity(
    tid: libc::pid_t,
    cores: impl Iterator<Item = usize>,
    what: String,
) -> Result<(), NotGranted> {
    let max = libc::CPU_SETSIZE as usize;
    // SAFETY: an all-zero cpu_set_t is valid; CPU_SET is only called for cores below
    // CPU_SETSIZE, so it stays inside the set.
    let rc = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for core in cores {
            if core >= max {
                return Err(NotGranted {
                    what,
                    error: "core number too large".into(),
                });
            }
            libc::CPU_SET(core, &mut set);
        }
        libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(NotGranted {
            what,
            error: last_os_error(),
        })
    }
}

/// Pins the calling thread to `core`.
pub fn pin_current_thread(core: usize) -> Result<(), NotGranted> {
    set_thread_affinity(0, std::iter::once(core), format!("pinning to core {core}"))
}

/// Lets the calling thread (and threads it spawns afterwards) run on every online core again,
/// undoing [`keep_off_core`] for it: for threads that are not rigd's, such as a benchmark's
/// stand-ins for a game and a controller (`daemon/benches/bridge.rs`).
pub fn run_on_every_core() -> Result<(), NotGranted> {
    set_thread_affinity(0, 0..=last_core(), "running on every core".into())
}

/// Keeps the calling thread, and every thread it spawns afterwards, off the RT core: they may
/// run on any other online core. Called on the main thread before anything else is spawned,
/// so input, display and tokio threads never share the RT core (on a kernel without full
/// preemption a system call in progress there delays the RT wake-up until it returns). The
/// one exception is the telemetry sender with `telemetry_sender_core = "rt-core"`, which moves
/// itself onto the RT core and paces its sends into the loop's idle time
/// (`telemetry_out::sender::SlackPacer`).
/// On a single-core machine this does nothing.
pub fn keep_off_core(rt_core: usize) -> Result<(), NotGranted> {
    let Some(cores) = cores_other_than(rt_core) else {
        return Ok(());
    };
    set_thread_affinity(
        0,
        cores,
        format!("keeping other threads off core {rt_core}"),
    )
}

/// Moves every thread the process has now off `rt_core`, as [`keep_off_core`] does for the
/// caller and the threads it spawns later. For a reload that changes the RT core: call it
/// while no RT thread runs (after the old loop stopped, before the new one starts), so the
/// display, watchdog and other long-lived threads leave the new RT core and may use the old.
pub fn keep_process_off_core(rt_core: usize) -> Result<(), NotGranted> {
    let Some(cores) = cores_other_than(rt_core) else {
        return Ok(());
    };
    let what = || format!("moving every thread off core {rt_core}");
    let tasks = std::fs::read_dir("/proc/self/task").map_err(|e| NotGranted {
        what: what(),
        error: e.to_string(),
    })?;
    for tid in tasks.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok()) {
        if let Err(refused) = set_thread_affinity(tid, cores.clone(), what()) {
            // A thread that ended since the directory was read is no failure.
            let still_running = std::path::Path::new(&format!("/proc/self/task/{tid}")).exists();
            if still_running {
                return Err(refused);
            }
        }
    }
    Ok(())
}

/// What the process holds for the RT loop while it runs: the core it uses, the PM QoS
/// request, and every request the system refused (for the one warning).
#[derive(Debug)]
pub struct ProcessSetup {
    /// The core the RT thread is pinned to.
    pub core: usize,
    /// The PM QoS request, released on drop.
    pub pm_qos: PmQosGuard,
    /// What was refused so far.
    pub refused: Vec<NotGranted>,
}

impl ProcessSetup {
    /// Locks memory (when configured), keeps the calling thread off the RT core and makes the
    /// PM QoS request. Call on the main thread before any other thread is spawned.
    pub fn prepare(config: &rig_config::realtime::LoopConfig) -> ProcessSetup {
        let mut refused = Vec::new();
        if config.lock_memory {
            if let Err(e) = lock_memory() {
                refused.push(e);
            }
        }
        let core = rt_core(config);
        if let Err(e) = keep_off_core(core) {
            refused.push(e);
        }
        let pm_qos = PmQosGuard::request(config.pm_qos, config.pm_qos_latency_us, core)
            .unwrap_or_else(|e| {
                refused.push(e);
                PmQosGuard::None
            });
        ProcessSetup {
            core,
            pm_qos,
            refused,
        }
    }
}

/// Makes the calling thread SCHED_FIFO at `priority`. When refused, removes the thread's
/// timer slack instead (SCHED_OTHER threads otherwise wake up to 50 us late by design).
pub fn make_current_thread_fifo(priority: u8) -> Result<(), NotGranted> {
    let param = libc::sched_param {
        sched_priority: i32::from(priority),
    };
    // SAFETY: pthread_self is always valid for the calling thread; `param` is initialised.
    let rc = unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
    if rc == 0 {
        return Ok(());
    }
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer argument.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    Err(NotGranted {
        what: format!("SCHED_FIFO priority {priority}"),
        error: std::io::Error::from_raw_os_error(rc).to_string(),
    })
}

/// Locks the process's memory: pages present now, and every page as it is first touched
/// (MCL_ONFAULT keeps thread stacks and reserved heap from being populated up front, which
/// keeps the resident size small).
pub fn lock_memory() -> Result<(), NotGranted> {
    // SAFETY: mlockall has no memory-safety preconditions.
    let rc = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE | libc::MCL_ONFAULT) };
    if rc == 0 {
        Ok(())
    } else {
        Err(NotGranted {
            what: "memory locking (mlockall)".into(),
            error: last_os_error(),
        })
    }
}

/// Undoes [`lock_memory`] (a reload that turned `lock_memory` off).
pub fn unlock_memory() {
    // SAFETY: munlockall has no memory-safety preconditions; it cannot fail for a process
    // that may call mlockall.
    unsafe { libc::munlockall() };
}

/// Touches 256 KiB of the calling thread's stack so the RT loop never page-faults on it.
pub fn prefault_stack() {
    const PREFAULT_BYTES: usize = 256 * 1024;
    let mut block = [0u8; PREFAULT_BYTES];
    for chunk in block.chunks_mut(4096) {
        chunk[0] = 1;
    }
    std::hint::black_box(&block);
}

/// A PM QoS request held for as long as this value lives.
#[derive(Debug)]
pub enum PmQosGuard {
    /// No request.
    None,
    /// `/dev/cpu_dma_latency` held open (the kernel drops the request on close, even on a
    /// crash).
    DmaLatency(File),
    /// The RT core's `pm_qos_resume_latency_us`, with the value to restore.
    RtCore {
        /// The sysfs file.
        path: String,
        /// Its previous content.
        previous: String,
    },
}

impl PmQosGuard {
    /// Makes the request `mode` asks for (for `rt-core`, on `core`).
    pub fn request(mode: PmQos, latency_us: u32, core: usize) -> Result<PmQosGuard, NotGranted> {
        match mode {
            PmQos::Off => Ok(PmQosGuard::None),
            PmQos::DmaLatency => {
                let refused = |e: std::io::Error| NotGranted {
                    what: "PM QoS (/dev/cpu_dma_latency)".into(),
                    error: e.to_string(),
                };
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/cpu_dma_latency")
                    .map_err(refused)?;
                file.write_all(&(latency_us as i32).to_ne_bytes())
                    .map_err(refused)?;
                Ok(PmQosGuard::DmaLatency(file))
            }
            PmQos::RtCore => {
                let path =
                    format!("/sys/devices/system/cpu/cpu{core}/power/pm_qos_resume_latency_us");
                let refused = |e: std::io::Error| NotGranted {
                    what: format!("PM QoS ({path})"),
                    error: e.to_string(),
                };
                let previous = std::fs::read_to_string(&path).map_err(refused)?;
                std::fs::write(&path, "n/a").map_err(refused)?;
                Ok(PmQosGuard::RtCore { path, previous })
            }
        }
    }
}

impl Drop for PmQosGuard {
    fn drop(&mut self) {
        if let PmQosGuard::RtCore { path, previous } = self {
            // Best effort on the way out: the value only costs power if it stays.
            let _ = std::fs::write(path, previous.trim());
        }
    }
}
