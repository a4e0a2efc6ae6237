//! The game bridge's frame source (issue 20): with `[source] kind = "game"` the player car's
//! state comes from a game's UDP telemetry instead of the built-in simulation.
//!
//! - [`receiver`]: a non-RT thread reads the `listen` sockets, decodes each datagram
//!   (`rig_protocols::game`), counts garbage, and hands decoded samples with their arrival
//!   time to the RT thread through a wait-free ring; [`confirm`] holds back a stream without
//!   a magic (LFS OutSim) until its samples continue each other.
//! - [`frames`]: turns the samples into one [`CarTelemetry`] per tick and says whether the
//!   stream may move a platform ([`SourceCondition`]).
//! - [`GameSource`]: the RT thread's end: each tick it drains the ring into the frame builder
//!   and builds the tick's car (no allocation, no lock, no logging).
//! - [`SourceStatus`]: the health thread's view for `STATUS=` and the log (rate, age, why
//!   motion is held).
//!
//! The runtime (`runtime::rt_loop`) publishes the built frame to every stage and slot exactly
//! as it does the simulation's, and safe-stops every stage with `StopReason::Source` while the
//! condition is not Live (resuming with the stages' ramps when it is again).

pub mod confirm;
pub mod frames;
pub mod receiver;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Result;
use rig_config::frame_source::SourceConfig;
use rig_physics::CarTelemetry;
use rig_protocols::telemetry::OutSimOptions;

pub use frames::{GameFrameSettings, GameFrames, SourceCondition};
pub use receiver::{GameReceiver, SourceFeed};

/// A car position step larger than this between samples is a teleport or a restart, m.
pub const JUMP_M: f64 = 3.0;

/// The RT thread's end of a game source.
pub struct GameSource {
    frames: GameFrames,
    samples: rtrb::Consumer<receiver::Arrival>,
    feed: Arc<SourceFeed>,
    car: CarTelemetry,
}

impl std::fmt::Debug for GameSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameSource")
            .field("frames", &self.frames)
            .field("waiting", &self.samples.slots())
            .finish()
    }
}

impl GameSource {
    /// Takes every sample that arrived and builds the car of the tick at `now_ns` (RT: no
    /// allocation, no lock, no logging); the condition is stored for the health thread.
    pub fn frame(&mut self, now_ns: u64) -> (CarTelemetry, SourceCondition) {
        while let Ok((arrival_ns, sample)) = self.samples.pop() {
            self.frames.push(arrival_ns, &sample);
        }
        let condition = self.frames.frame_at(now_ns, &mut self.car);
        self.feed.set_condition_code(condition_code(condition));
        (self.car, condition)
    }
}

/// A running game source: the receiver thread (dropping it closes the sockets), the RT end
/// and the shared counters.
#[derive(Debug)]
pub struct StartedSource {
    /// The receiver thread.
    pub receiver: GameReceiver,
    /// What the RT thread owns.
    pub source: GameSource,
    /// The counters and condition, for the health thread.
    pub feed: Arc<SourceFeed>,
}

/// Binds `config`'s listen addresses and starts the receiver, with the frame builder for a
/// loop ticking every `tick_period_ns` (set-up: allocates).
pub fn start(config: &SourceConfig, tick_period_ns: u64) -> Result<StartedSource> {
    let listen: Vec<SocketAddr> = config.listen_addrs();
    let lfs_options = config.lfs_outsim_options.and_then(OutSimOptions::new);
    let (receiver, samples, feed) = receiver::start(
        &listen,
        config.format.game_format(),
        lfs_options,
        config.console_ip(),
    )?;
    let settings = GameFrameSettings {
        lost_after_ns: u64::from(config.lost_after_ms) * 1_000_000,
        jump_m: JUMP_M,
        tick_period_ns,
    };
    Ok(StartedSource {
        receiver,
        source: GameSource {
            frames: GameFrames::new(&settings),
            samples,
            feed: feed.clone(),
            car: CarTelemetry::default(),
        },
        feed,
    })
}

fn condition_code(condition: SourceCondition) -> u8 {
    match condition {
        SourceCondition::Waiting => 0,
        SourceCondition::Live => 1,
        SourceCondition::Paused => 2,
        SourceCondition::Lost => 3,
        SourceCondition::Jumped => 4,
    }
}

fn condition_of_code(code: u8) -> SourceCondition {
    match code {
        1 => SourceCondition::Live,
        2 => SourceCondition::Paused,
        3 => SourceCondition::Lost,
        4 => SourceCondition::Jumped,
        _ => SourceCondition::Waiting,
    }
}

/// The health thread's view of the source: once a second, the packet rate and age for
/// `STATUS=`, and a log line when the condition changes (each cause said once).
#[derive(Debug)]
pub struct SourceStatus {
    feed: Arc<SourceFeed>,
    last_packets: u64,
    last_garbage: u64,
    last_at: Instant,
    rate_hz: f64,
    logged: Option<SourceCondition>,
}

impl SourceStatus {
    /// The view of `feed`, from now.
    pub fn new(feed: Arc<SourceFeed>) -> SourceStatus {
        SourceStatus {
            feed,
            last_packets: 0,
            last_garbage: 0,
            last_at: Instant::now(),
            rate_hz: 0.0,
            logged: None,
        }
    }

    /// Measures the rate since the last call; returns the `source: ...` status text and the
    /// lines to log (a change of condition, new garbage).
    pub fn report(&mut self, now_ns: u64) -> (String, Vec<(bool, String)>) {
        let packets = self.feed.packets();
        let garbage = self.feed.garbage();
        let seconds = self.last_at.elapsed().as_secs_f64().max(1e-3);
        self.rate_hz = packets.saturating_sub(self.last_packets) as f64 / seconds;
        self.last_at = Instant::now();
        let mut lines = Vec::new();
        let condition = condition_of_code(self.feed.condition_code());
        // A Jumped tick is one tick long: the health thread rarely sees it, and says it as
        // the hold it is.
        if self.logged != Some(condition) && condition != SourceCondition::Jumped {
            lines.push(self.condition_line(condition));
            self.logged = Some(condition);
        }
        if garbage > self.last_garbage {
            lines.push((
                false,
                format!(
                    "game telemetry: {} datagram(s) dropped as garbage ({} in all, {} of them \
                     implausible; wrong size, wrong header, values no game sends or another \
                     game's format): check that only the game sends to [source] listen",
                    garbage - self.last_garbage,
                    garbage,
                    self.feed.implausible()
                ),
            ));
        }
        self.last_packets = packets;
        self.last_garbage = garbage;
        (self.status_text(condition, now_ns), lines)
    }

    fn stream_name(&self) -> &'static str {
        self.feed.stream().map_or("game", |s| s.name())
    }

    fn age_ms(&self, now_ns: u64) -> Option<u64> {
        self.feed
            .last_arrival_ns()
            .map(|t| now_ns.saturating_sub(t) / 1_000_000)
    }

    /// `source: <stream> <rate> Hz, age N ms`, or why the source holds motion.
    fn status_text(&self, condition: SourceCondition, now_ns: u64) -> String {
        let stream = self.stream_name();
        let age = self
            .age_ms(now_ns)
            .map_or(String::new(), |ms| format!(", age {ms} ms"));
        let garbage = match (self.feed.garbage(), self.feed.implausible()) {
            (0, _) => String::new(),
            (n, 0) => format!(", {n} garbage"),
            (n, implausible) => format!(", {n} garbage ({implausible} implausible)"),
        };
        let state = match condition {
            SourceCondition::Waiting => {
                let addresses: Vec<String> = self
                    .feed
                    .listeners
                    .iter()
                    .map(|l| l.address.to_string())
                    .collect();
                return format!(
                    "source: waiting for game telemetry on {}{garbage}",
                    addresses.join(", ")
                );
            }
            SourceCondition::Live | SourceCondition::Jumped => "",
            SourceCondition::Paused => " (paused)",
            SourceCondition::Lost => " (lost)",
        };
        format!(
            "source: {stream} {:.0} Hz{age}{state}{garbage}",
            self.rate_hz
        )
    }

    fn condition_line(&self, condition: SourceCondition) -> (bool, String) {
        let stream = self.stream_name();
        match condition {
            SourceCondition::Waiting => (
                false,
                format!(
                    "game telemetry: waiting for packets on {} (motion stays parked until the \
                     game sends; turn its telemetry output on: docs/games/README.md)",
                    self.feed
                        .listeners
                        .iter()
                        .map(|l| l.address.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            SourceCondition::Live | SourceCondition::Jumped => (
                false,
                format!("game telemetry: {stream} is live, motion follows it"),
            ),
            SourceCondition::Paused => (
                false,
                format!(
                    "motion held: {stream} says the game is paused or not racing (menu, \
                     replay); it resumes with a ramp when the race goes on"
                ),
            ),
            SourceCondition::Lost => (
                true,
                format!(
                    "motion held: no packet from {stream} for the lost_after_ms of [source] \
                     (game closed, paused with telemetry off, or the network); it resumes \
                     with a ramp when packets come back"
                ),
            ),
        }
    }
}
