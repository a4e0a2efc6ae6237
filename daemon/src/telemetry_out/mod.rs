//! UDP telemetry out of the daemon: the `[[telemetry]]` outputs, sent off the RT thread.
//!
//! Data flow: the RT thread runs [`TelemetryStage`] (a [`crate::rt::stage::RtStage`]) which
//! only copies each frame into a bounded lock-free channel; the `rigd-telemetry` thread
//! ([`sender`]) decimates per output by simulation time, encodes with rig-protocols and sends
//! to every destination. Per-destination counters ([`stats`]) are atomics readable at any time
//! through [`TelemetryHandle::snapshot`] or, for the running daemon, [`TelemetryCounters`];
//! [`report`] turns them into the daemon's health output (`STATUS=`, log, dashboard). A
//! reload's new sender continues the counters of every destination it keeps (same format and
//! address); the others start at zero.
//!
//! Placement ([`SenderPlacement`], `[loop] telemetry_sender_core`): by default the sender
//! thread runs off the physics core; with `rt-core` it shares the physics core, paced into
//! the loop's idle time between ticks ([`sender::SlackPacer`]), so rigd wakes no other core
//! for telemetry.
//!
//! Lifetime: dropping the stage disconnects the channel; the sender thread then exits and
//! closes its sockets (no join needed on the RT thread).

pub mod error_log;
pub mod mmsg;
pub mod report;
pub mod sender;
pub mod stage;
pub mod stats;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::sync::{Arc, Mutex};

use rig_config::realtime::{LoopConfig, TelemetrySenderCore};
use rig_config::telemetry::{effective_outputs, TelemetryOutput};
use rig_config::Config;

pub use stage::TelemetryStage;
pub use stats::{
    DestinationSnapshot, ErrorCounts, SendErrorKind, TelemetrySnapshot, TelemetryStats,
};

use crate::rt::stage::RtStage;
use sender::{Destination, Output};
use stats::DestinationStats;

/// Frames buffered between the RT thread and the sender (about a quarter second at 1 kHz).
pub const FRAME_QUEUE_LEN: usize = 256;

/// Why telemetry could not start.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// An output's settings do not form a wire format (validation normally catches this).
    #[error(
        "telemetry[{index}]: {message} (fix: correct this [[telemetry]] entry; \
         `rigd check-config` lists every problem)"
    )]
    InvalidOutput {
        /// Index of the entry.
        index: usize,
        /// What is wrong.
        message: String,
    },
    /// A socket could not be opened or configured.
    #[error(
        "telemetry to {destination}: cannot set up the UDP socket: {error} (fix: check the \
         address is reachable from this machine and the network is up)"
    )]
    Socket {
        /// The destination.
        destination: SocketAddr,
        /// The OS error (in the message, so not also a `source` that would print it twice).
        error: std::io::Error,
    },
    /// The sender thread could not be started.
    #[error("cannot start the telemetry sender thread: {0} (fix: check process limits)")]
    Thread(std::io::Error),
}

/// The non-RT side of a running telemetry sender: counters and the thread.
#[derive(Debug)]
pub struct TelemetryHandle {
    stats: Arc<TelemetryStats>,
    thread: std::thread::JoinHandle<()>,
}

impl TelemetryHandle {
    /// A copy of every counter.
    pub fn snapshot(&self) -> TelemetrySnapshot {
        self.stats.snapshot()
    }

    /// The shared counters.
    pub fn stats(&self) -> Arc<TelemetryStats> {
        Arc::clone(&self.stats)
    }

    /// Waits for the sender thread to finish (it does once the stage is dropped).
    pub fn join(self) {
        // A panic in the sender has already been reported by the panic hook.
        let _ = self.thread.join();
    }
}

fn open_socket(addr: SocketAddr, multicast_ttl: u32) -> Result<UdpSocket, TelemetryError> {
    let err = |error| TelemetryError::Socket {
        destination: addr,
        error,
    };
    let local: SocketAddr = match addr.ip() {
        IpAddr::V4(_) => (Ipv4Addr::UNSPECIFIED, 0).into(),
        IpAddr::V6(_) => (Ipv6Addr::UNSPECIFIED, 0).into(),
    };
    let socket = UdpSocket::bind(local).map_err(err)?;
    socket.set_nonblocking(true).map_err(err)?;
    if let IpAddr::V4(ip) = addr.ip() {
        // Broadcast addresses depend on the netmask, so allow broadcast on every IPv4 socket;
        // it only matters when the destination is one.
        socket.set_broadcast(true).map_err(err)?;
        if ip.is_multicast() {
            socket.set_multicast_ttl_v4(multicast_ttl).map_err(err)?;
        }
    }
    socket.connect(addr).map_err(err)?;
    Ok(socket)
}

/// Opens the sockets of `outputs` (each enabled entry as given; no defaults applied) and
/// starts the sender thread (beside a loop at the default rate). Returns the RT stage and the
/// handle to its counters.
pub fn start(
    outputs: &[TelemetryOutput],
) -> Result<(TelemetryStage, TelemetryHandle), TelemetryError> {
    let placement = SenderPlacement::off_rt_core(LoopConfig::default().period_ns());
    start_continuing(outputs, None, placement)
}

/// Where the sender thread runs beside the loop.
#[derive(Debug, Clone, Copy)]
pub struct SenderPlacement {
    /// The loop's tick period: the sender wakes half of it away from the loop's deadlines.
    pub tick_period_ns: u64,
    /// The physics core, when the sender shares it (in the loop's idle time, see
    /// [`sender::SlackPacer`]); `None`: the cores the spawning thread may use.
    pub rt_core: Option<usize>,
}

impl SenderPlacement {
    /// Off the physics core, beside a loop of `tick_period_ns`.
    pub const fn off_rt_core(tick_period_ns: u64) -> SenderPlacement {
        SenderPlacement {
            tick_period_ns,
            rt_core: None,
        }
    }

    /// The placement `[loop]` asks for.
    pub fn for_loop(config: &LoopConfig) -> SenderPlacement {
        SenderPlacement {
            tick_period_ns: config.period_ns(),
            rt_core: match config.telemetry_sender_core {
                TelemetrySenderCore::RtCore => Some(crate::rt::setup::rt_core(config)),
                TelemetrySenderCore::OtherCores => None,
            },
        }
    }
}

/// [`start`] in place of the sender whose counters are `previous` (a reload): each destination
/// with the same format and address as one of `previous` continues its counters (each
/// previous destination at most once, in order, so a destination listed twice keeps two
/// counters); the others start at zero. The sender runs where `placement` says.
pub fn start_continuing(
    outputs: &[TelemetryOutput],
    previous: Option<&TelemetryStats>,
    placement: SenderPlacement,
) -> Result<(TelemetryStage, TelemetryHandle), TelemetryError> {
    let previous = previous.map_or(&[][..], |stats| &stats.destinations[..]);
    let mut continued = vec![false; previous.len()];
    let mut runtime_outputs = Vec::new();
    let mut counters = Vec::new();
    for (index, output) in outputs.iter().enumerate().filter(|(_, o)| o.enabled) {
        let streams = output
            .wire_streams()
            .ok_or_else(|| TelemetryError::InvalidOutput {
                index,
                message: "outsim_options is not a valid OutSim Opts value".to_string(),
            })?;
        let mut addrs = Vec::new();
        for text in &output.destinations {
            let addr: SocketAddr = text.parse().map_err(|_| TelemetryError::InvalidOutput {
                index,
                message: format!("`{text}` is not an IP address and port"),
            })?;
            addrs.push(addr);
        }
        // One runtime output per packet stream (F1 sends several packet types, each at its
        // own rate), each with its own socket and counters per destination.
        for (format, rate_hz) in streams {
            let mut destinations = Vec::new();
            for &addr in &addrs {
                let socket = open_socket(addr, output.multicast_ttl)?;
                let kept = previous.iter().enumerate().position(|(i, old)| {
                    !continued[i] && old.format == format && old.destination == addr
                });
                let stats = match kept {
                    Some(i) => {
                        continued[i] = true;
                        DestinationStats::continuing(&previous[i], rate_hz)
                    }
                    None => DestinationStats::new(format, addr, rate_hz),
                };
                destinations.push(
                    Destination::new(counters.len(), addr, socket)
                        .counting_errors_after(stats.errors()),
                );
                counters.push(stats);
            }
            runtime_outputs.push(Output::new(format, rate_hz, destinations));
        }
    }
    let stats = Arc::new(TelemetryStats::new(counters));
    let (tx, rx) = crossbeam_channel::bounded(FRAME_QUEUE_LEN);
    let sender_stats = Arc::clone(&stats);
    let thread = std::thread::Builder::new()
        .name("rigd-telemetry".into())
        .spawn(move || {
            let shares_rt_core = placement.rt_core.is_some_and(move_onto_rt_core);
            let pacer = sender::SlackPacer::new(placement.tick_period_ns, shares_rt_core);
            sender::run(rx, runtime_outputs, sender_stats, pacer)
        })
        .map_err(TelemetryError::Thread)?;
    Ok((
        TelemetryStage::new(tx, Arc::clone(&stats)),
        TelemetryHandle { stats, thread },
    ))
}

/// Pins the calling (sender) thread to the physics core `core`; true when it now runs there.
/// When the kernel refuses (a cpuset without that core), it warns once and stays where it is.
fn move_onto_rt_core(core: usize) -> bool {
    match crate::rt::setup::pin_current_thread(core) {
        Ok(()) => true,
        Err(refused) => {
            tracing::warn!(
                "telemetry: the sender cannot share the physics core: {} ({}); it runs on the \
                 other cores instead (set `[loop] telemetry_sender_core = \"other-cores\"` to \
                 ask for that)",
                refused.what,
                refused.error
            );
            false
        }
    }
}

/// The counters of the telemetry sender a `rigd run` runs now: built once per run and handed
/// to every (re)built set of [`stages`], so a reload continues them and health output reads
/// them. Never touched on the RT thread.
#[derive(Debug, Default)]
pub struct TelemetryCounters(Mutex<Option<Arc<TelemetryStats>>>);

impl TelemetryCounters {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Arc<TelemetryStats>>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A copy of the running sender's counters (`None` before the first start, and while no
    /// output is configured). A SIGHUP reload rebuilds the sender; the destinations it keeps
    /// continue their counters.
    pub fn snapshot(&self) -> Option<TelemetrySnapshot> {
        self.lock().as_ref().map(|stats| stats.snapshot())
    }
}

/// The telemetry stages for `config` (the runtime's registration point): the configured
/// enabled outputs, or the native format to the dashboard when there is no `[[telemetry]]`.
/// The new sender continues `counters` and becomes the one they show.
pub fn stages(
    config: &Config,
    counters: &TelemetryCounters,
) -> Result<Vec<Box<dyn RtStage>>, TelemetryError> {
    let outputs = effective_outputs(&config.telemetry);
    if outputs.is_empty() {
        // A reload that disabled every output must not leave the old counters in health.
        *counters.lock() = None;
        return Ok(Vec::new());
    }
    for output in &outputs {
        tracing::info!(
            "telemetry: {} at {} Hz to {}",
            output.format.config_name(),
            output.rate_hz,
            output.destinations.join(", ")
        );
    }
    let mut current = counters.lock();
    let (stage, handle) = start_continuing(
        &outputs,
        current.as_deref(),
        SenderPlacement::for_loop(&config.realtime),
    )?;
    *current = Some(handle.stats());
    drop(current);
    // The thread ends by itself when the stage is dropped; the handle is not needed for that.
    drop(handle);
    Ok(vec![Box::new(stage)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rig_protocols::telemetry::Format;

    const OFF_RT_CORE: SenderPlacement = SenderPlacement::off_rt_core(1_000_000);

    fn native_to(destinations: &[SocketAddr]) -> TelemetryOutput {
        let mut output = TelemetryOutput::default_native();
        output.destinations = destinations.iter().map(ToString::to_string).collect();
        output
    }

    #[test]
    fn each_kept_destination_continues_its_own_counters_and_new_ones_start_at_zero() {
        // Loopback ports that exist; nothing is sent in this test.
        let receivers: Vec<UdpSocket> = (0..2)
            .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
            .collect();
        let (twice, added) = (
            receivers[0].local_addr().unwrap(),
            receivers[1].local_addr().unwrap(),
        );
        // The same destination listed twice before the reload, with different counts.
        let previous = TelemetryStats::new(vec![
            DestinationStats::new(Format::Native, twice, 60),
            DestinationStats::new(Format::Native, twice, 60),
        ]);
        for _ in 0..3 {
            previous.destinations[0].record_sent();
        }
        for _ in 0..5 {
            previous.destinations[1].record_sent();
        }
        previous.destinations[1]
            .record_error(&std::io::Error::from_raw_os_error(libc::ECONNREFUSED));

        let (stage, handle) = start_continuing(
            &[native_to(&[twice, twice, added])],
            Some(&previous),
            OFF_RT_CORE,
        )
        .unwrap();
        let snapshot = handle.snapshot();
        let counts: Vec<(u64, u64)> = snapshot
            .destinations
            .iter()
            .map(|d| (d.sent, d.errors))
            .collect();
        assert_eq!(counts, vec![(3, 0), (5, 1), (0, 0)]);
        assert_eq!(snapshot.destinations[1].errors_by_kind.refused, 1);
        // Shared, not copied: what the previous sender still counts shows in the new one.
        previous.destinations[0].record_sent();
        assert_eq!(handle.snapshot().destinations[0].sent, 4);
        drop(stage);
        handle.join();
    }

    #[test]
    fn another_format_to_the_same_address_starts_at_zero() {
        let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
        let address = receiver.local_addr().unwrap();
        let previous = TelemetryStats::new(vec![DestinationStats::new(
            Format::OutGauge { id: None },
            address,
            60,
        )]);
        previous.destinations[0].record_sent();
        let (stage, handle) =
            start_continuing(&[native_to(&[address])], Some(&previous), OFF_RT_CORE).unwrap();
        assert_eq!(handle.snapshot().destinations[0].sent, 0);
        drop(stage);
        handle.join();
    }
}
