//! `DashState`: the dashboard's view model. It folds received packets into the latest sample,
//! the short histories the widgets draw (g-g trail, track trace) and the source statistics
//! (packet rate, garbage, staleness). Packets come from UDP sockets or, in a dashboard embedded
//! in rigd, from rigd itself ([`Origin`]); both are folded the same way.
//!
//! Invariants: the render path only reads this struct; every clock reading comes in as an
//! argument (`now`), so a test can build any state, including stale and no-data ones, with
//! fixed instants. Histories are bounded: memory does not grow with run time.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use crate::sample::Sample;

/// Data older than this is shown as "NO DATA".
pub const STALE_AFTER: Duration = Duration::from_secs(1);
/// Points kept in the g-g trail (about 1.5 s at 30 fps).
pub const GG_TRAIL_LEN: usize = 45;
/// Points kept in the track trace (several laps of a long circuit at [`TRACE_SPACING_M`]).
pub const TRACE_CAPACITY: usize = 8192;
/// Minimum distance between two stored track-trace points, m.
pub const TRACE_SPACING_M: f64 = 2.0;
/// A jump larger than this between two samples starts a new trace (new session, teleport), m.
pub const TRACE_RESET_JUMP_M: f64 = 250.0;
/// Window over which the packet rate is measured.
pub const RATE_WINDOW: Duration = Duration::from_secs(1);

/// Why a datagram was not shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Garbage {
    /// No known format has this size and magic.
    Unrecognised {
        /// Datagram length, bytes.
        len: usize,
    },
    /// The size or magic matched a format but the content did not decode.
    Malformed {
        /// The format it looked like.
        format: &'static str,
        /// Datagram length, bytes.
        len: usize,
    },
}

/// Where packets come from (a packet's sender, or what the dashboard listens on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// UDP: the sender's address, or a socket the dashboard bound.
    Udp(SocketAddr),
    /// Handed over inside the embedding program: rigd's own frames as its native packets,
    /// with no socket in between.
    InProcess,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Udp(addr) => addr.fmt(f),
            Origin::InProcess => f.write_str("rigd, in-process"),
        }
    }
}

/// `ADDR:PORT` as a UDP origin.
impl std::str::FromStr for Origin {
    type Err = std::net::AddrParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        text.parse().map(Origin::Udp)
    }
}

/// One received datagram after decoding, as handed from a receiver thread to the render loop.
#[derive(Debug, Clone, Copy)]
pub struct Packet {
    /// Where it came from.
    pub from: Origin,
    /// When the datagram was received.
    pub received_at: Instant,
    /// The decoded sample, or why the datagram was garbage.
    pub decoded: Result<Sample, Garbage>,
}

/// Packet rate over a sliding window; unknown until the first window has passed.
#[derive(Debug, Clone)]
struct RateMeter {
    window_start: Instant,
    count: u64,
    rate_hz: Option<f64>,
}

impl RateMeter {
    fn new(now: Instant) -> Self {
        Self {
            window_start: now,
            count: 0,
            rate_hz: None,
        }
    }

    fn roll(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.window_start);
        if elapsed >= RATE_WINDOW {
            self.rate_hz = Some(self.count as f64 / elapsed.as_secs_f64());
            self.count = 0;
            self.window_start = now;
        }
    }
}

/// Counters and identity of the telemetry source.
#[derive(Debug, Clone)]
pub struct SourceStats {
    /// What the dashboard listens on: local addresses, or rigd in-process.
    pub listening: Vec<Origin>,
    /// Sender of the newest valid packet.
    pub last_from: Option<Origin>,
    /// Format of the newest valid packet.
    pub format: Option<&'static str>,
    /// When the newest valid packet arrived.
    pub last_packet_at: Option<Instant>,
    /// Valid packets received since start.
    pub packets: u64,
    /// Garbage datagrams (unknown or malformed) since start.
    pub garbage: u64,
    /// Why the newest garbage datagram was rejected.
    pub last_garbage: Option<Garbage>,
    /// Datagrams dropped because the render loop fell behind (bounded hand-off full).
    pub dropped: u64,
    rate: RateMeter,
}

impl SourceStats {
    /// Valid packets per second over the last window; `None` until the first window (one
    /// [`RATE_WINDOW`]) has passed, since a rate counted over part of it would read low.
    pub fn rate_hz(&self) -> Option<f64> {
        self.rate.rate_hz
    }

    /// Time since the newest valid packet, or `None` when none has arrived.
    pub fn age(&self, now: Instant) -> Option<Duration> {
        self.last_packet_at
            .map(|at| now.saturating_duration_since(at))
    }

    /// The listening addresses as shown: comma separated.
    pub fn listening_text(&self) -> String {
        self.listening
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// True when there is nothing current to show: no packet yet, or the newest is older
    /// than [`STALE_AFTER`].
    pub fn no_data(&self, now: Instant) -> bool {
        self.age(now).is_none_or(|age| age > STALE_AFTER)
    }
}

/// The bounded track trace and its bounds, for the map.
#[derive(Debug, Clone, Default)]
pub struct TrackTrace {
    points: VecDeque<[f64; 2]>,
}

impl TrackTrace {
    /// Stored points, oldest first.
    pub fn points(&self) -> impl ExactSizeIterator<Item = [f64; 2]> + '_ {
        self.points.iter().copied()
    }

    /// The newest point.
    pub fn last(&self) -> Option<[f64; 2]> {
        self.points.back().copied()
    }

    /// `[min_x, max_x, min_y, max_y]` of the stored points.
    pub fn bounds(&self) -> Option<[f64; 4]> {
        let first = self.points.front()?;
        Some(self.points.iter().fold(
            [first[0], first[0], first[1], first[1]],
            |[x0, x1, y0, y1], p| [x0.min(p[0]), x1.max(p[0]), y0.min(p[1]), y1.max(p[1])],
        ))
    }

    /// Adds a position, skipping points closer than [`TRACE_SPACING_M`] to the newest and
    /// starting over after a jump larger than [`TRACE_RESET_JUMP_M`].
    pub fn push(&mut self, p: [f64; 2]) {
        if !(p[0].is_finite() && p[1].is_finite()) {
            return;
        }
        if let Some(last) = self.last() {
            let distance = (p[0] - last[0]).hypot(p[1] - last[1]);
            if distance < TRACE_SPACING_M {
                return;
            }
            if distance > TRACE_RESET_JUMP_M {
                self.points.clear();
            }
        }
        if self.points.len() == TRACE_CAPACITY {
            self.points.pop_front();
        }
        self.points.push_back(p);
    }
}

/// Everything the screen shows.
#[derive(Debug, Clone)]
pub struct DashState {
    /// The newest valid sample (kept after the source goes quiet, shown dimmed as stale).
    pub latest: Option<Sample>,
    /// Source identity and counters.
    pub source: SourceStats,
    /// Recent horizontal accelerations, m/s^2 `[long, lat]`, oldest first.
    pub gg_trail: VecDeque<[f64; 2]>,
    /// Positions for the track map.
    pub trace: TrackTrace,
    /// What an embedding program shows besides the packets (empty for a standalone rig-dash).
    pub host: crate::host::HostInfo,
}

impl DashState {
    /// An empty state listening on `listening`, with the rate window starting at `now`.
    pub fn new(listening: Vec<Origin>, now: Instant) -> Self {
        Self {
            latest: None,
            source: SourceStats {
                listening,
                last_from: None,
                format: None,
                last_packet_at: None,
                packets: 0,
                garbage: 0,
                last_garbage: None,
                dropped: 0,
                rate: RateMeter::new(now),
            },
            gg_trail: VecDeque::with_capacity(GG_TRAIL_LEN),
            trace: TrackTrace::default(),
            host: crate::host::HostInfo::default(),
        }
    }

    /// Folds a batch of packets (everything pending since the last frame): every packet is
    /// counted, only the newest valid one is shown and added to the histories.
    pub fn ingest<I: IntoIterator<Item = Packet>>(&mut self, packets: I) {
        let mut newest: Option<(Sample, Origin, Instant)> = None;
        for packet in packets {
            match packet.decoded {
                Ok(sample) => {
                    self.source.packets += 1;
                    self.source.rate.count += 1;
                    newest = Some((sample, packet.from, packet.received_at));
                }
                Err(garbage) => {
                    self.source.garbage += 1;
                    self.source.last_garbage = Some(garbage);
                }
            }
        }
        if let Some((sample, from, at)) = newest {
            self.apply(sample, from, at);
        }
    }

    /// Adds datagrams the receivers had to drop.
    pub fn count_dropped(&mut self, dropped: u64) {
        self.source.dropped += dropped;
    }

    /// Advances time-based statistics (packet rate) to `now`; call once per frame.
    pub fn tick(&mut self, now: Instant) {
        self.source.rate.roll(now);
    }

    fn apply(&mut self, sample: Sample, from: Origin, at: Instant) {
        if let Some(accel) = sample
            .accel_mps2
            .filter(|a| a.iter().all(|v| v.is_finite()))
        {
            if self.gg_trail.len() == GG_TRAIL_LEN {
                self.gg_trail.pop_front();
            }
            self.gg_trail.push_back(accel);
        }
        if let Some(position) = sample.position_m {
            self.trace.push(position);
        }
        self.source.last_from = Some(from);
        self.source.format = Some(sample.format);
        self.source.last_packet_at = Some(at);
        self.latest = Some(sample);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sender() -> Origin {
        Origin::Udp("127.0.0.1:40000".parse().unwrap())
    }

    fn valid(at: Instant, speed: f64) -> Packet {
        Packet {
            from: sender(),
            received_at: at,
            decoded: Ok(Sample {
                format: "native",
                speed_mps: Some(speed),
                ..Sample::default()
            }),
        }
    }

    fn garbage(at: Instant) -> Packet {
        Packet {
            from: sender(),
            received_at: at,
            decoded: Err(Garbage::Unrecognised { len: 3 }),
        }
    }

    #[test]
    fn a_batch_counts_every_packet_and_shows_the_newest() {
        let t0 = Instant::now();
        let mut state = DashState::new(vec![], t0);
        state.ingest([valid(t0, 10.0), garbage(t0), valid(t0, 20.0), garbage(t0)]);
        assert_eq!(state.source.packets, 2);
        assert_eq!(state.source.garbage, 2);
        assert_eq!(state.latest.unwrap().speed_mps, Some(20.0));
        assert_eq!(state.source.last_from, Some(sender()));
    }

    #[test]
    fn garbage_alone_leaves_the_shown_sample_alone() {
        let t0 = Instant::now();
        let mut state = DashState::new(vec![], t0);
        state.ingest([valid(t0, 10.0)]);
        state.ingest([garbage(t0 + Duration::from_millis(5))]);
        assert_eq!(state.latest.unwrap().speed_mps, Some(10.0));
        assert_eq!(state.source.last_packet_at, Some(t0));
    }

    #[test]
    fn no_data_before_the_first_packet_and_after_a_second_of_silence() {
        let t0 = Instant::now();
        let mut state = DashState::new(vec![], t0);
        assert!(state.source.no_data(t0));
        state.ingest([valid(t0, 1.0)]);
        assert!(!state.source.no_data(t0 + Duration::from_millis(999)));
        assert!(state.source.no_data(t0 + Duration::from_millis(1001)));
    }

    #[test]
    fn rate_is_packets_per_second_over_the_window() {
        let t0 = Instant::now();
        let mut state = DashState::new(vec![], t0);
        for ms in 0..1000 {
            state.ingest([valid(t0 + Duration::from_millis(ms), 1.0)]);
        }
        state.tick(t0 + Duration::from_millis(500));
        assert_eq!(state.source.rate_hz(), None, "window not complete yet");
        state.tick(t0 + Duration::from_millis(1000));
        assert!((state.source.rate_hz().unwrap() - 1000.0).abs() < 1e-9);
        state.tick(t0 + Duration::from_millis(2000));
        assert_eq!(
            state.source.rate_hz(),
            Some(0.0),
            "silence brings the rate to zero"
        );
    }

    #[test]
    fn gg_trail_is_bounded_and_keeps_the_newest() {
        let t0 = Instant::now();
        let mut state = DashState::new(vec![], t0);
        for i in 0..(GG_TRAIL_LEN + 10) {
            let mut packet = valid(t0, 1.0);
            if let Ok(sample) = &mut packet.decoded {
                sample.accel_mps2 = Some([i as f64, 0.0]);
            }
            state.ingest([packet]);
        }
        assert_eq!(state.gg_trail.len(), GG_TRAIL_LEN);
        assert_eq!(
            state.gg_trail.back(),
            Some(&[(GG_TRAIL_LEN + 9) as f64, 0.0])
        );
    }

    #[test]
    fn trace_skips_close_points_resets_on_jumps_and_is_bounded() {
        let mut trace = TrackTrace::default();
        trace.push([0.0, 0.0]);
        trace.push([1.0, 0.0]);
        assert_eq!(trace.points().len(), 1, "1 m is closer than the spacing");
        trace.push([3.0, 0.0]);
        assert_eq!(trace.points().len(), 2);
        trace.push([f64::NAN, 0.0]);
        assert_eq!(trace.points().len(), 2, "non-finite positions are ignored");
        trace.push([1000.0, 0.0]);
        assert_eq!(trace.points().collect::<Vec<_>>(), vec![[1000.0, 0.0]]);
        for i in 0..(TRACE_CAPACITY + 5) {
            trace.push([1000.0 + 3.0 * i as f64, 0.0]);
        }
        assert_eq!(trace.points().len(), TRACE_CAPACITY);
        assert_eq!(
            trace.bounds().unwrap()[1],
            1000.0 + 3.0 * (TRACE_CAPACITY + 4) as f64
        );
    }
}
