//! The telemetry sender thread: drains the frames the RT thread handed over, decides per
//! output which frames are due (decimation by simulation time), encodes each due frame once
//! and sends it to every destination of that output with non-blocking UDP sockets.
//!
//! Invariants: a send never blocks (sockets are non-blocking; a full socket buffer is an
//! `EAGAIN`/`ENOBUFS` counted like any other error); errors are counted per destination and
//! logged per destination: the first at once, then at most one summary a minute with the
//! count since the last line and the latest error ([`ErrorLog`]); the
//! thread ends when the stage (the channel's sender) is dropped. On the physics core
//! ([`SlackPacer`]) a send starts only in the loop's idle time, early enough to end before the
//! next deadline.

use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, TryRecvError};
use rig_config::realtime::RT_CORE_SENDER_SLACK_TENTHS;
use rig_protocols::telemetry::{Format, MAX_PACKET_LEN};
use rig_protocols::Frame;

use super::error_log::{ErrorLine, ErrorLog};
use super::mmsg::send_each;
use super::stats::TelemetryStats;
use crate::rt::clock::{now_ns, sleep_between_ticks};

/// Shortest sleep once the channel ran dry. With a 1 kHz output the sender wakes this often
/// and sends the two due frames as one batch; rates stay exact (frames queue meanwhile).
pub const MIN_SLEEP: Duration = Duration::from_millis(2);
/// Longest sleep: bounds the frames queued meanwhile (20 of the channel's 256 at 1 kHz) and how
/// long the thread takes to notice that the stage is gone.
pub const MAX_SLEEP: Duration = Duration::from_millis(20);
/// How long after a packet's due time the sender wakes for it: the frame of that simulation
/// time is then surely in the channel (the loop publishes it one tick of 1 ms later at most).
const WAKE_AFTER_DUE_S: f64 = 0.001;
/// Slack when comparing simulation times, s (absorbs float rounding of tick sums).
const TIME_SLACK_S: f64 = 1e-6;

/// Decides which frames of a stream are due at a fixed rate, by simulation time.
#[derive(Debug, Clone)]
pub struct Decimator {
    period_s: f64,
    next_due_s: Option<f64>,
}

impl Decimator {
    /// Simulation time of the next due frame (`None` before the first frame).
    pub fn next_due_s(&self) -> Option<f64> {
        self.next_due_s
    }

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
    error_log: ErrorLog,
    errors_at_last_line: u64,
}

impl Destination {
    /// A destination sending through `socket`.
    pub fn new(stats_index: usize, addr: SocketAddr, socket: UdpSocket) -> Destination {
        Destination {
            stats_index,
            addr,
            socket,
            error_log: ErrorLog::new(),
            errors_at_last_line: 0,
        }
    }

    /// The same, for counters that already hold `errors` (continued over a reload): the first
    /// warning counts the errors after those.
    pub fn counting_errors_after(mut self, errors: u64) -> Destination {
        self.errors_at_last_line = errors;
        self
    }
}

/// Keeps the sender inside the loop's idle time when it shares the physics core. It wakes on
/// the instants between ticks, half a period after a deadline and half a period before the
/// next ([`crate::rt::clock::between_ticks_ns`]); a send (one `sendmmsg` of at most
/// [`BATCH_FRAMES`] packets to one destination, tens of microseconds) may start until
/// [`RT_CORE_SENDER_SLACK_TENTHS`] tenths of a period after that instant, later ones wait for
/// the next. A loop tick that overruns into that time simply runs first: the loop thread is
/// SCHED_FIFO and the sender is not.
#[derive(Debug)]
pub struct SlackPacer {
    period_ns: u64,
    shares_rt_core: bool,
    slack_end_ns: u64,
}

impl SlackPacer {
    /// A pacer for a loop of `period_ns`; it only holds sends back when `shares_rt_core`.
    pub fn new(period_ns: u64, shares_rt_core: bool) -> SlackPacer {
        SlackPacer {
            period_ns,
            shares_rt_core,
            slack_end_ns: 0,
        }
    }

    /// The last instant a send may start after the sender woke at `between_ticks_ns`.
    pub fn slack_end_ns(between_ticks_ns: u64, period_ns: u64) -> u64 {
        between_ticks_ns + period_ns * u64::from(RT_CORE_SENDER_SLACK_TENTHS) / 10
    }

    /// Call before each send: on the physics core and past the slack, sleeps to the next
    /// instant between ticks.
    pub fn before_send(&mut self) {
        if self.shares_rt_core && now_ns() >= self.slack_end_ns {
            self.woke_at(sleep_between_ticks(Duration::ZERO, self.period_ns));
        }
    }

    /// The sender woke at the between-ticks instant `between_ticks_ns`.
    pub fn woke_at(&mut self, between_ticks_ns: u64) {
        self.slack_end_ns = Self::slack_end_ns(between_ticks_ns, self.period_ns);
    }
}

/// Frames taken from the channel per batch (and so packets per `sendmmsg` per destination).
pub const BATCH_FRAMES: usize = super::mmsg::MAX_BATCH;

/// One configured output: a format, its rate, its destinations and its packet buffers.
#[derive(Debug)]
pub struct Output {
    /// The wire layout.
    pub format: Format,
    /// Which frames are due.
    pub decimator: Decimator,
    /// Where packets go.
    pub destinations: Vec<Destination>,
    /// Encoded packets of the current batch (allocated once, reused).
    packets: Box<[[u8; MAX_PACKET_LEN]; BATCH_FRAMES]>,
}

impl Output {
    /// An output of `format` at `rate_hz` to `destinations`.
    pub fn new(format: Format, rate_hz: u32, destinations: Vec<Destination>) -> Output {
        Output {
            format,
            decimator: Decimator::new(rate_hz),
            destinations,
            packets: Box::new([[0; MAX_PACKET_LEN]; BATCH_FRAMES]),
        }
    }

    /// Encodes the due frames of `batch` and sends them to every destination, each send when
    /// `pacer` lets it start.
    fn send_batch(&mut self, batch: &[Frame], stats: &TelemetryStats, pacer: &mut SlackPacer) {
        let mut count = 0;
        for frame in batch.iter().take(BATCH_FRAMES) {
            if !self.decimator.is_due(frame.car.time_s) {
                continue;
            }
            // MAX_PACKET_LEN fits every format, so encoding cannot fail; skip rather than panic.
            if self.format.encode(frame, &mut self.packets[count]).is_ok() {
                count += 1;
            }
        }
        if count == 0 {
            return;
        }
        let len = self.format.packet_len();
        let mut packets: [&[u8]; BATCH_FRAMES] = [&[]; BATCH_FRAMES];
        for (slot, packet) in packets.iter_mut().zip(self.packets.iter()).take(count) {
            *slot = &packet[..len];
        }
        let format = self.format;
        for destination in &mut self.destinations {
            pacer.before_send();
            let counters = &stats.destinations[destination.stats_index];
            let mut first_error: Option<(u64, std::io::Error)> = None; // (errors so far, error)
            send_each(
                &destination.socket,
                &packets[..count],
                |result| match result {
                    None => counters.record_sent(),
                    Some(err) => {
                        let errors = counters.record_error(err);
                        // io::Error is not Clone: keep an equivalent one for the warning.
                        let copy = err.raw_os_error().map_or_else(
                            || std::io::Error::from(err.kind()),
                            std::io::Error::from_raw_os_error,
                        );
                        first_error.get_or_insert((errors, copy));
                    }
                },
            );
            if let Some((errors, err)) = first_error {
                warn_rate_limited(destination, format, errors, &err);
            }
        }
    }
}

/// How long to sleep once the channel ran dry, the newest frame being of simulation time
/// `newest_s`: until just after the earliest output's next packet is due, within
/// [`MIN_SLEEP`] ..= [`MAX_SLEEP`]. Simulation time runs with wall time (the loop is locked to
/// it), so a 60 Hz output wakes the thread about 60 times a second, not 500: every wake-up of
/// this thread is activity on the other cores that the RT core's wake-ups can feel (measured
/// on the VM in docs/BENCHMARKS.md).
pub fn sleep_after(outputs: &[Output], newest_s: Option<f64>) -> Duration {
    let (Some(newest_s), Some(due_s)) = (
        newest_s,
        outputs
            .iter()
            .filter_map(|o| o.decimator.next_due_s())
            .min_by(f64::total_cmp),
    ) else {
        return MIN_SLEEP;
    };
    let wait_s = due_s - newest_s + WAKE_AFTER_DUE_S;
    if wait_s.is_finite() && wait_s > 0.0 {
        Duration::from_secs_f64(wait_s.min(MAX_SLEEP.as_secs_f64())).max(MIN_SLEEP)
    } else {
        MIN_SLEEP
    }
}

/// Runs until the RT side drops its end of `frames`: takes up to [`BATCH_FRAMES`] waiting
/// frames, sends what is due, and once the channel ran dry sleeps until the next packet is
/// due ([`sleep_after`]), waking half a tick period away from the loop's deadlines
/// ([`sleep_between_ticks`]); `pacer` holds the tick period and keeps sends in the loop's
/// idle time when the thread shares the physics core.
pub fn run(
    frames: Receiver<Frame>,
    mut outputs: Vec<Output>,
    stats: Arc<TelemetryStats>,
    mut pacer: SlackPacer,
) {
    let mut batch = [Frame::default(); BATCH_FRAMES];
    let mut newest_s = None;
    loop {
        let mut taken = 0;
        let mut disconnected = false;
        while taken < BATCH_FRAMES {
            match frames.try_recv() {
                Ok(frame) => {
                    batch[taken] = frame;
                    taken += 1;
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    disconnected = true;
                    break;
                }
            }
        }
        for output in &mut outputs {
            output.send_batch(&batch[..taken], &stats, &mut pacer);
        }
        if disconnected {
            return;
        }
        if let Some(last) = batch[..taken].last() {
            newest_s = Some(last.car.time_s);
        }
        if taken < BATCH_FRAMES {
            let woke = sleep_between_ticks(sleep_after(&outputs, newest_s), pacer.period_ns);
            pacer.woke_at(woke);
        }
    }
}

fn warn_rate_limited(
    destination: &mut Destination,
    format: Format,
    errors: u64,
    err: &std::io::Error,
) {
    let line = destination.error_log.on_error(Instant::now());
    if line == ErrorLine::Quiet {
        return;
    }
    let new_errors = errors - destination.errors_at_last_line;
    destination.errors_at_last_line = errors;
    let fix = "fix: check that the receiving app runs and listens on that address, or remove \
               the destination from [[telemetry]]";
    if line == ErrorLine::First {
        tracing::warn!(
            "telemetry {} to {}: {new_errors} send error(s), the first: {err}; sending \
             continues, and further errors are summarised at most once a minute ({fix})",
            format.name(),
            destination.addr,
        );
    } else {
        tracing::warn!(
            "telemetry {} to {}: {new_errors} send error(s) since the last line, latest: \
             {err}; sending continues ({fix})",
            format.name(),
            destination.addr,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{sleep_after, Decimator, Output, SlackPacer, MAX_SLEEP, MIN_SLEEP};
    use crate::rt::clock::{first_deadline_ns, now_ns};
    use rig_protocols::telemetry::Format;
    use std::time::Duration;

    const MS: u64 = 1_000_000;

    #[test]
    fn on_the_physics_core_a_send_starts_early_enough_to_end_before_the_next_deadline() {
        // Woken at 7 ms: the loop's deadlines are 6.5 and 7.5 ms.
        let end = SlackPacer::slack_end_ns(7 * MS, MS);
        assert_eq!(end, 7 * MS + 300_000);
        assert_eq!(first_deadline_ns(7 * MS, MS) - end, 200_000);
        // 500 Hz: woken at 8 ms, the next deadline is 9 ms.
        assert_eq!(
            first_deadline_ns(8 * MS, 2 * MS) - SlackPacer::slack_end_ns(8 * MS, 2 * MS),
            400_000
        );
    }

    #[test]
    fn past_its_slack_the_pacer_sleeps_to_the_next_instant_between_ticks() {
        let mut pacer = SlackPacer::new(MS, true);
        let before = now_ns();
        pacer.before_send();
        let after = now_ns();
        let woke = pacer.slack_end_ns - 300_000;
        assert_eq!(woke % MS, 0, "between ticks is on whole milliseconds");
        assert!(
            before <= woke && woke <= after,
            "{before} <= {woke} <= {after}"
        );
    }

    #[test]
    fn off_the_physics_core_the_pacer_never_holds_a_send_back() {
        let mut pacer = SlackPacer::new(MS, false);
        let before = now_ns();
        pacer.before_send();
        assert!(now_ns() - before < MS / 2, "no sleep");
        assert_eq!(pacer.slack_end_ns, 0);
    }

    /// An output at `rate_hz` that has just sent the frame of simulation time `sent_s`.
    fn output_that_sent(rate_hz: u32, sent_s: f64) -> Output {
        let mut output = Output::new(Format::Native, rate_hz, Vec::new());
        assert!(output.decimator.is_due(sent_s));
        output
    }

    #[test]
    fn the_sender_sleeps_until_just_after_the_next_packet_is_due() {
        // 60 Hz: next due 16.7 ms after the frame just sent, woken 1 ms after that.
        let wait = sleep_after(&[output_that_sent(60, 1.0)], Some(1.0));
        assert!(
            (wait.as_secs_f64() - (1.0 / 60.0 + 0.001)).abs() < 1e-6,
            "{wait:?}"
        );
        // The earliest of several outputs decides.
        let outputs = [output_that_sent(10, 1.0), output_that_sent(100, 1.0)];
        assert_eq!(sleep_after(&outputs, Some(1.0)), Duration::from_millis(11));
        // 1 kHz: never less than the minimum; 1 Hz: never more than the maximum.
        assert_eq!(
            sleep_after(&[output_that_sent(1000, 1.0)], Some(1.0)),
            MIN_SLEEP
        );
        assert_eq!(
            sleep_after(&[output_that_sent(1, 1.0)], Some(1.0)),
            MAX_SLEEP
        );
        // Nothing sent or received yet, or already late: the minimum.
        assert_eq!(
            sleep_after(&[Output::new(Format::Native, 60, Vec::new())], Some(1.0)),
            MIN_SLEEP
        );
        assert_eq!(sleep_after(&[output_that_sent(60, 1.0)], None), MIN_SLEEP);
        assert_eq!(
            sleep_after(&[output_that_sent(60, 1.0)], Some(1.5)),
            MIN_SLEEP
        );
    }

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
