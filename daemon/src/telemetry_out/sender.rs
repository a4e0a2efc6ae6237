//! The telemetry sender thread: drains the frames the RT thread handed over, decides per
//! output which frames are due (decimation by simulation time), encodes each due frame once
//! and sends it to every destination of that output with non-blocking UDP sockets.
//!
//! Invariants: a send never blocks (sockets are non-blocking; a full socket buffer is an
//! `EAGAIN`/`ENOBUFS` counted like any other error); errors are counted per destination and
//! logged at most once per [`WARN_INTERVAL`] per destination with the count since the last
//! warning; the thread ends when the stage (the channel's sender) is dropped.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, TryRecvError};
use rig_protocols::telemetry::{Format, MAX_PACKET_LEN};
use rig_protocols::Frame;

use super::stats::TelemetryStats;

/// How long the sender sleeps when no frame is waiting. Frames queue meanwhile (two ticks of
/// a 1 kHz loop) and are all sent on waking, so rates are exact; the cost is up to 2 ms of
/// extra latency, against half the wake-ups of a 1 ms poll (each wake-up costs CPU, and
/// receivers of 60 Hz formats do not notice 2 ms).
pub const POLL_INTERVAL: Duration = Duration::from_millis(2);
/// At most one warning per destination in this interval.
pub const WARN_INTERVAL: Duration = Duration::from_secs(10);
/// Slack when comparing simulation times, s (absorbs float rounding of tick sums).
const TIME_SLACK_S: f64 = 1e-6;

/// Decides which frames of a stream are due at a fixed rate, by simulation time.
#[derive(Debug, Clone)]
pub struct Decimator {
    period_s: f64,
    next_due_s: Option<f64>,
}

impl Decimator {
    /// A decimator for `rate_hz` packets per simulated second.
    pub fn new(rate_hz: u32) -> Decimator {
        Decimator {
            period_s: 1.0 / f64::from(rate_hz.max(1)),
            next_due_s: None,
        }
    }

    /// True when the frame at simulation time `time_s` should be sent. The first frame is
    /// always due; a jump backwards (reset) or a gap longer than a period restarts the
    /// schedule at `time_s`, so the long-run rate stays exact without bursts.
    pub fn is_due(&mut self, time_s: f64) -> bool {
        let Some(due) = self.next_due_s else {
            self.next_due_s = Some(time_s + self.period_s);
            return true;
        };
        if time_s < due - self.period_s - TIME_SLACK_S {
            self.next_due_s = Some(time_s + self.period_s);
            return true;
        }
        if time_s + TIME_SLACK_S < due {
            return false;
        }
        let next = due + self.period_s;
        self.next_due_s = Some(if next <= time_s {
            time_s + self.period_s
        } else {
            next
        });
        true
    }
}

/// One destination of an output.
#[derive(Debug)]
pub struct Destination {
    /// Index into [`TelemetryStats::destinations`].
    pub stats_index: usize,
    /// Where to send.
    pub addr: SocketAddr,
    /// A non-blocking socket connected to `addr` (connected, so the kernel reports ICMP
    /// port-unreachable as `ECONNREFUSED` on a later send and the error is counted).
    pub socket: UdpSocket,
    last_warning: Option<Instant>,
    errors_at_last_warning: u64,
}

impl Destination {
    /// A destination sending through `socket`.
    pub fn new(stats_index: usize, addr: SocketAddr, socket: UdpSocket) -> Destination {
        Destination {
            stats_index,
            addr,
            socket,
            last_warning: None,
            errors_at_last_warning: 0,
        }
    }
}

/// One configured output: a format, its rate and its destinations.
#[derive(Debug)]
pub struct Output {
    /// The wire layout.
    pub format: Format,
    /// Which frames are due.
    pub decimator: Decimator,
    /// Where packets go.
    pub destinations: Vec<Destination>,
}

/// Runs until the RT side drops its end of `frames`.
pub fn run(frames: Receiver<Frame>, mut outputs: Vec<Output>, stats: Arc<TelemetryStats>) {
    let mut packet = [0u8; MAX_PACKET_LEN];
    loop {
        match frames.try_recv() {
            Ok(frame) => send_due(&frame, &mut outputs, &stats, &mut packet),
            Err(TryRecvError::Empty) => std::thread::sleep(POLL_INTERVAL),
            Err(TryRecvError::Disconnected) => return,
        }
    }
}

fn send_due(frame: &Frame, outputs: &mut [Output], stats: &TelemetryStats, packet: &mut [u8]) {
    for output in outputs.iter_mut() {
        if !output.decimator.is_due(frame.car.time_s) {
            continue;
        }
        let Ok(len) = output.format.encode(frame, packet) else {
            // MAX_PACKET_LEN fits every format, so this cannot happen; skip rather than panic.
            continue;
        };
        for destination in &mut output.destinations {
            let counters = &stats.destinations[destination.stats_index];
            match destination.socket.send(&packet[..len]) {
                Ok(_) => counters.record_sent(),
                Err(err) => {
                    let errors = counters.record_error(&err);
                    warn_rate_limited(destination, output.format, errors, &err);
                }
            }
        }
    }
}

fn warn_rate_limited(
    destination: &mut Destination,
    format: Format,
    errors: u64,
    err: &std::io::Error,
) {
    let now = Instant::now();
    if destination
        .last_warning
        .is_some_and(|at| now.duration_since(at) < WARN_INTERVAL)
    {
        return;
    }
    let new_errors = errors - destination.errors_at_last_warning;
    destination.last_warning = Some(now);
    destination.errors_at_last_warning = errors;
    tracing::warn!(
        "telemetry {} to {}: {} send error(s) since the last warning, latest: {}; sending \
         continues (fix: check that the receiving app runs and listens on that address, or \
         remove the destination from [[telemetry]])",
        format.name(),
        destination.addr,
        new_errors,
        err
    );
}

#[cfg(test)]
mod tests {
    use super::Decimator;

    fn count_due(rate_hz: u32, loop_hz: u32, seconds: u32) -> u32 {
        let mut decimator = Decimator::new(rate_hz);
        (0..loop_hz * seconds)
            .filter(|tick| decimator.is_due(f64::from(*tick) / f64::from(loop_hz)))
            .count() as u32
    }

    #[test]
    fn decimation_gives_the_exact_rate_from_a_1khz_loop() {
        assert_eq!(count_due(60, 1000, 10), 600);
        assert_eq!(count_due(1000, 1000, 10), 10_000);
        assert_eq!(count_due(333, 1000, 3), 999);
        assert_eq!(count_due(250, 1000, 2), 500);
    }

    #[test]
    fn a_reset_restarts_the_schedule() {
        let mut decimator = Decimator::new(10);
        assert!(decimator.is_due(5.0));
        assert!(!decimator.is_due(5.05));
        assert!(decimator.is_due(0.0), "time went back: send at once");
        assert!(!decimator.is_due(0.05));
        assert!(decimator.is_due(0.1));
    }
}
