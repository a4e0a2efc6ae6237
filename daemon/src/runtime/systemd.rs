//! systemd integration written against the protocol (no libsystemd): `sd_notify` datagrams
//! to `$NOTIFY_SOCKET`, and the watchdog thread that pets systemd only while the RT thread's
//! heartbeat advances.
//!
//! Messages: `READY=1` once devices are open and the loop ticks, `RELOADING=1` / `READY=1`
//! around a SIGHUP reload, `STOPPING=1` on exit, `STATUS=...` once a second, `WATCHDOG=1`
//! from the watchdog thread. Without `$NOTIFY_SOCKET` every send is a no-op.

use std::os::unix::net::{SocketAddr, UnixDatagram};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::rt_loop::{Command, LoopShared};
use crate::rt::clock::sleep_between_ticks;

/// Sends notifications to the service manager.
#[derive(Debug)]
pub struct Notifier {
    target: Option<(UnixDatagram, SocketAddr)>,
}

impl Notifier {
    /// A notifier for `$NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace).
    pub fn from_env() -> Notifier {
        let target = std::env::var_os("NOTIFY_SOCKET").and_then(|path| {
            let path = path.to_string_lossy().into_owned();
            let addr = if let Some(name) = path.strip_prefix('@') {
                use std::os::linux::net::SocketAddrExt;
                SocketAddr::from_abstract_name(name.as_bytes()).ok()?
            } else {
                SocketAddr::from_pathname(&path).ok()?
            };
            let socket = UnixDatagram::unbound().ok()?;
            // A service manager that stops reading must never stall the daemon: a full
            // socket drops the message instead of blocking.
            socket.set_nonblocking(true).ok()?;
            Some((socket, addr))
        });
        Notifier { target }
    }

    /// True when a service manager listens.
    pub fn enabled(&self) -> bool {
        self.target.is_some()
    }

    /// Sends `state` (newline-separated `KEY=VALUE` lines). Errors are ignored: the service
    /// manager going away must not stop the rig.
    pub fn send(&self, state: &str) {
        if let Some((socket, addr)) = &self.target {
            let _ = socket.send_to_addr(state.as_bytes(), addr);
        }
    }
}

/// The watchdog interval systemd asked for (`$WATCHDOG_USEC`, for this process when
/// `$WATCHDOG_PID` is set).
pub fn watchdog_interval() -> Option<Duration> {
    if let Ok(pid) = std::env::var("WATCHDOG_PID") {
        if pid.trim() != std::process::id().to_string() {
            return None;
        }
    }
    let usec: u64 = std::env::var("WATCHDOG_USEC").ok()?.trim().parse().ok()?;
    (usec > 0).then(|| Duration::from_micros(usec))
}

/// The thread that watches the RT heartbeat: pets systemd (`WATCHDOG=1`) at half the
/// watchdog interval while the heartbeat advances, stops petting once it has not advanced
/// for `stall_timeout`, and logs each stall and recovery. While a stop or reload is in
/// progress ([`Command`] not `Run`) the loop has returned on purpose: no stall is said.
#[derive(Debug)]
pub struct Watchdog {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts watching `shared.heartbeat`, checking it between the loop's ticks of
    /// `tick_period_ns` (see [`sleep_between_ticks`]).
    pub fn start(
        shared: Arc<LoopShared>,
        notifier: Arc<Notifier>,
        stall_timeout: Duration,
        tick_period_ns: u64,
    ) -> std::io::Result<Watchdog> {
        let stop = Arc::new(AtomicBool::new(false));
        let stop_flag = stop.clone();
        let pet_every = watchdog_interval().map(|i| i / 2);
        // At most 100 ms: dropping the watchdog (on the way out) waits for one check.
        let check_every =
            (stall_timeout / 10).clamp(Duration::from_millis(10), Duration::from_millis(100));
        let handle = std::thread::Builder::new()
            .name("rigd-watchdog".into())
            .spawn(move || {
                let mut last_beat = shared.heartbeat.load(Ordering::Relaxed);
                let mut last_advance = Instant::now();
                let mut last_pet: Option<Instant> = None;
                let mut stalled = false;
                while !stop_flag.load(Ordering::Relaxed) {
                    sleep_between_ticks(check_every, tick_period_ns);
                    let beat = shared.heartbeat.load(Ordering::Relaxed);
                    // A stop or reload in progress (the loop has returned, the outputs park)
                    // is no stall: the heartbeat counts as advancing until it is over.
                    if beat != last_beat || shared.command() != Command::Run {
                        last_beat = beat;
                        last_advance = Instant::now();
                        if stalled {
                            stalled = false;
                            tracing::warn!("physics loop ticks again; watchdog petting resumed");
                        }
                    }
                    let since = last_advance.elapsed();
                    if since >= stall_timeout {
                        if !stalled {
                            stalled = true;
                            tracing::error!(
                                "physics loop stalled: no tick for {} ms; the systemd watchdog is no longer petted (systemd restarts rigd); outputs rely on their device-side timeouts",
                                since.as_millis()
                            );
                        }
                        continue;
                    }
                    if let Some(every) = pet_every {
                        if last_pet.is_none_or(|t| t.elapsed() >= every) {
                            notifier.send("WATCHDOG=1");
                            last_pet = Some(Instant::now());
                        }
                    }
                }
            })?;
        Ok(Watchdog {
            stop,
            handle: Some(handle),
        })
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}
