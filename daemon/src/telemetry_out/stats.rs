//! Per-destination send counters shared between the telemetry sender thread (writer) and
//! health reporting (readers): plain atomics, so reading never blocks the sender and the
//! sender never blocks on a reader. Failed sends are also counted by kind
//! ([`SendErrorKind`]: refused, no buffer space, unreachable, other), so health output can say
//! whether a receiver is missing or the network is saturated.
//!
//! A destination's counters live as long as the destination stays configured: a SIGHUP reload
//! rebuilds the sender, and a destination with the same format and address in the new
//! configuration shares the counters of the old one ([`DestinationStats::continuing`]), so
//! they go on from where they were (the old sender's last packets, sent while it winds down,
//! land in them too). Only a new or changed destination starts at zero.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;

use rig_protocols::telemetry::Format;

/// `last_error` value meaning "no error yet".
const NO_ERROR: i32 = 0;
/// `last_error` value for an error without an OS error number.
const NON_OS_ERROR: i32 = -1;

/// What a failed send means for the user, for the per-kind counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendErrorKind {
    /// `ECONNREFUSED`: the port was unreachable (nothing listens there); ICMP reported it on
    /// the connected socket.
    Refused,
    /// `ENOBUFS` / `EAGAIN`: the socket or device queue was full; the packet was dropped.
    NoBufferSpace,
    /// `ENETUNREACH`, `EHOSTUNREACH`, `ENETDOWN`, `EHOSTDOWN`: no route to the destination.
    Unreachable,
    /// Anything else.
    Other,
}

impl SendErrorKind {
    /// Every kind, in the order of [`ErrorCounts`].
    pub const ALL: [SendErrorKind; 4] = [
        SendErrorKind::Refused,
        SendErrorKind::NoBufferSpace,
        SendErrorKind::Unreachable,
        SendErrorKind::Other,
    ];

    /// The kind of `err`.
    pub fn of(err: &std::io::Error) -> SendErrorKind {
        match err.raw_os_error() {
            Some(libc::ECONNREFUSED) => SendErrorKind::Refused,
            Some(libc::ENOBUFS) => SendErrorKind::NoBufferSpace,
            Some(code) if code == libc::EAGAIN || code == libc::EWOULDBLOCK => {
                SendErrorKind::NoBufferSpace
            }
            Some(libc::ENETUNREACH | libc::EHOSTUNREACH | libc::ENETDOWN | libc::EHOSTDOWN) => {
                SendErrorKind::Unreachable
            }
            _ => SendErrorKind::Other,
        }
    }

    /// A short label for health output.
    pub fn label(self) -> &'static str {
        match self {
            SendErrorKind::Refused => "refused",
            SendErrorKind::NoBufferSpace => "no buffer",
            SendErrorKind::Unreachable => "unreachable",
            SendErrorKind::Other => "other",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Failed sends of one destination, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ErrorCounts {
    /// Port unreachable (nothing listens).
    pub refused: u64,
    /// Socket or device queue full.
    pub no_buffer: u64,
    /// No route to the host or network.
    pub unreachable: u64,
    /// Any other error.
    pub other: u64,
}

impl ErrorCounts {
    /// The count of one kind.
    pub fn get(&self, kind: SendErrorKind) -> u64 {
        match kind {
            SendErrorKind::Refused => self.refused,
            SendErrorKind::NoBufferSpace => self.no_buffer,
            SendErrorKind::Unreachable => self.unreachable,
            SendErrorKind::Other => self.other,
        }
    }
}

/// The counting part of [`DestinationStats`]: shared by the senders of successive reloads for
/// as long as the destination stays configured.
#[derive(Debug, Default)]
struct Counters {
    sent: AtomicU64,
    errors: AtomicU64,
    errors_by_kind: [AtomicU64; SendErrorKind::ALL.len()],
    /// `NO_ERROR` (the default), `NON_OS_ERROR` or an errno.
    last_error: AtomicI32,
}

/// Counters of one (output, destination) pair.
#[derive(Debug)]
pub struct DestinationStats {
    /// The wire format sent.
    pub format: Format,
    /// Where it goes.
    pub destination: SocketAddr,
    /// Packets per second configured.
    pub rate_hz: u32,
    counters: Arc<Counters>,
}

impl DestinationStats {
    /// Zeroed counters.
    pub fn new(format: Format, destination: SocketAddr, rate_hz: u32) -> DestinationStats {
        DestinationStats {
            format,
            destination,
            rate_hz,
            counters: Arc::default(),
        }
    }

    /// The same destination in a rebuilt sender (a reload), at `rate_hz`: its counters are
    /// `previous`'s and go on from where they are.
    pub fn continuing(previous: &DestinationStats, rate_hz: u32) -> DestinationStats {
        DestinationStats {
            format: previous.format,
            destination: previous.destination,
            rate_hz,
            counters: Arc::clone(&previous.counters),
        }
    }

    /// Counts one packet handed to the kernel.
    pub fn record_sent(&self) {
        self.counters.sent.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one failed send; returns the error count so far.
    pub fn record_error(&self, err: &std::io::Error) -> u64 {
        let counters = &self.counters;
        counters.last_error.store(
            err.raw_os_error().unwrap_or(NON_OS_ERROR),
            Ordering::Relaxed,
        );
        counters.errors_by_kind[SendErrorKind::of(err).index()].fetch_add(1, Ordering::Relaxed);
        counters.errors.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Failed sends so far.
    pub fn errors(&self) -> u64 {
        self.counters.errors.load(Ordering::Relaxed)
    }

    fn kind_count(&self, kind: SendErrorKind) -> u64 {
        self.counters.errors_by_kind[kind.index()].load(Ordering::Relaxed)
    }

    /// A consistent-enough copy for display (each counter is read atomically).
    pub fn snapshot(&self) -> DestinationSnapshot {
        let last_error = match self.counters.last_error.load(Ordering::Relaxed) {
            NO_ERROR => None,
            NON_OS_ERROR => Some("send failed".to_string()),
            errno => Some(std::io::Error::from_raw_os_error(errno).to_string()),
        };
        DestinationSnapshot {
            format: self.format,
            destination: self.destination,
            rate_hz: self.rate_hz,
            sent: self.counters.sent.load(Ordering::Relaxed),
            errors: self.errors(),
            errors_by_kind: ErrorCounts {
                refused: self.kind_count(SendErrorKind::Refused),
                no_buffer: self.kind_count(SendErrorKind::NoBufferSpace),
                unreachable: self.kind_count(SendErrorKind::Unreachable),
                other: self.kind_count(SendErrorKind::Other),
            },
            last_error,
        }
    }
}

/// A copy of one destination's counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DestinationSnapshot {
    /// The wire format sent.
    pub format: Format,
    /// Where it goes.
    pub destination: SocketAddr,
    /// Packets per second configured.
    pub rate_hz: u32,
    /// Packets handed to the kernel.
    pub sent: u64,
    /// Failed sends (refused, no buffer space, unreachable ...).
    pub errors: u64,
    /// The same failed sends, by kind.
    pub errors_by_kind: ErrorCounts,
    /// The most recent error, if any.
    pub last_error: Option<String>,
}

/// Every counter of the telemetry sender.
#[derive(Debug)]
pub struct TelemetryStats {
    /// One entry per (output, destination), in config order.
    pub destinations: Vec<DestinationStats>,
    frames_dropped: AtomicU64,
}

impl TelemetryStats {
    /// Stats for these destinations.
    pub fn new(destinations: Vec<DestinationStats>) -> TelemetryStats {
        TelemetryStats {
            destinations,
            frames_dropped: AtomicU64::new(0),
        }
    }

    /// Counts a frame the RT thread could not hand over (sender behind, ring full).
    pub fn record_frame_dropped(&self) {
        self.frames_dropped.fetch_add(1, Ordering::Relaxed);
    }

    /// A copy of every counter.
    pub fn snapshot(&self) -> TelemetrySnapshot {
        TelemetrySnapshot {
            frames_dropped: self.frames_dropped.load(Ordering::Relaxed),
            destinations: self.destinations.iter().map(|d| d.snapshot()).collect(),
        }
    }
}

/// A copy of every telemetry counter, for health output.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TelemetrySnapshot {
    /// Frames dropped between the RT thread and the sender.
    pub frames_dropped: u64,
    /// Per-destination counters.
    pub destinations: Vec<DestinationSnapshot>,
}
