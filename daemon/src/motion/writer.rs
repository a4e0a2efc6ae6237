//! The writer of one motion controller output: owns the serial port (or UDP socket) through
//! its [`Link`], encodes the actuator commands the RT stage hands over and writes them; owns
//! its own parking ramp and its own return into the platform's motion; reconnects after
//! errors. An [`OutputWriter`] never waits: the one writer thread ([`super::writers`]) steps
//! every output of the run in turn, and each step does what is due and says when it is next
//! due (the delays below are deadlines, not sleeps).
//!
//! Every output has its own state and recovers on its own: a dead serial port never stops
//! the other outputs (its platform's UDP copy, the other platforms), and a port that takes
//! nothing never delays their frames (its frames are skipped until it takes data again or
//! its 200 ms write timeout drops the link, [`super::link`]); the stage keeps running as long
//! as one of its links is up.
//!
//! Link life cycle: open -> post-open delay (opening a port resets Arduino boards) -> start
//! string -> start delay -> ready -> stream; a write error drops the link and reopens it
//! every 500 ms. While streaming, the writer is in one [`WriterMode`]:
//!
//! ```text
//! Parked  --a live command-->  Joining --locked onto the command--> Following
//! Following / Joining --park_now | watchdog | shutdown | panic--> Parking --at park--> Parked
//! every open: Parking from where the controller is (see below), unless that is the park
//! position already
//! ```
//! Where the controller is after an open: a board that resets on open (SMC3's Uno) is at its
//! firmware's boot position (SMC3: every target 512, the rig drove to centre during the
//! post-open wait); one that does not holds the last position written, and on the first open
//! its boot position. When neither is known (no boot position in the preset) the writer
//! assumes the park position and moves at the homing speed (`homing_speed_percent`) until
//! it is parked or locked onto the live command, so a wrong guess moves the rig slowly.
//! - Following: every command's position goes out as it is (the stage's tracker already
//!   keeps every limit).
//! - Parking: the writer's own [`Tracker`] ramps from the last written state to the park
//!   position at the actuator limits, stepping at the loop's `dt` (`every_ticks` sub-steps per
//!   frame, so the ramp is the same trajectory the RT stage would have commanded), even when
//!   the RT loop has stopped; its frames go out on an absolute schedule at the output's rate
//!   (a late wake-up sends the frames due at once), so the park takes the time it should.
//! - Joining (the writer's "Raising"): the tracker follows the live command as a moving target
//!   (position and velocity) at the actuator limits until it sits on it, then hands over to
//!   Following. Motion therefore never resumes on a controller without a ramp from where it is.
//!
//! On shutdown it parks, waits the stop delay, sends the stop string and closes.
//!
//! Due times: the next park frame while Parking, the watchdog while moving, the rest of a
//! part-written frame or a busy port's retry (1 ms), the link's delays; the thread wakes for
//! the earliest of all outputs' or for a command or shutdown (module docs of
//! [`super::writers`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rig_config::motion::ActuatorLimits;
use rig_protocols::motion::{Encoder, FrameBuffer, FrameValues};

use super::kinematics::{Actuators, Platform, Pose, MAX_ACTUATORS};
use super::link::Link;
use super::panic_park::PanicPark;
use super::tracker::Tracker;
use crate::rt::handoff::LatestWriter;

/// What the RT stage hands the writer (`Copy`, through a wait-free ring).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutputCommand {
    /// Commanded actuator positions, m or rad from neutral.
    pub position: [f64; MAX_ACTUATORS],
    /// Commanded actuator velocities, m/s or rad/s.
    pub velocity: [f64; MAX_ACTUATORS],
    /// Park now from this state; the stage sends nothing more until it resumes.
    pub park_now: bool,
}

/// What a writer is doing with its controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WriterMode {
    /// At the park position; nothing to send.
    #[default]
    Parked,
    /// Ramping to park on its own.
    Parking,
    /// Ramping from where the controller is onto the live command.
    Joining,
    /// Passing the stage's commands through.
    Following,
}

/// What the writer reports back (`Copy`, through a latest-value slot).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WriterStatus {
    /// The link is up (port open, start string sent).
    pub ready: bool,
    /// What the writer is doing.
    pub mode: WriterMode,
    /// The last position written to the controller, m or rad (park position before the
    /// first frame).
    pub last_sent: [f64; MAX_ACTUATORS],
    /// Frames written.
    pub frames_sent: u64,
    /// Failed writes or opens.
    pub errors: u64,
}

/// Where the frames go.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkTarget {
    /// A serial port.
    Serial {
        /// Device path.
        path: String,
        /// Bit/s.
        baud: u32,
        /// Data bits.
        data_bits: u8,
        /// Parity.
        parity: rig_protocols::motion::Parity,
        /// Stop bits.
        stop_bits: u8,
    },
    /// A UDP destination.
    Udp(std::net::SocketAddr),
}

/// Everything a writer thread needs (built off the RT thread).
#[derive(Debug, Clone)]
pub struct WriterSetup {
    /// Log name.
    pub name: String,
    /// Destination.
    pub target: LinkTarget,
    /// Frame encoder.
    pub encoder: Encoder,
    /// The platform's kinematics: pose frames ([`Encoder::uses_pose`]) carry the forward
    /// kinematics of the commanded actuator positions, so parking and joining ramps (which
    /// run in actuator space, at the actuator limits) reach pose-mode controllers too.
    pub platform: Platform,
    /// The RT loop's step, s (the parking and joining ramps step at it).
    pub tick_dt_s: f64,
    /// Loop ticks per frame (the stage sends a command every this many ticks).
    pub every_ticks: u32,
    /// Wait after opening, before the start string.
    pub post_open_delay: Duration,
    /// Sent after the post-open delay.
    pub start: Vec<u8>,
    /// Wait after the start string.
    pub start_delay: Duration,
    /// Sent on shutdown after parking.
    pub stop: Vec<u8>,
    /// Wait before the stop string.
    pub stop_delay: Duration,
    /// Actuator limits.
    pub limits: ActuatorLimits,
    /// Number of actuators.
    pub count: usize,
    /// Per-actuator direction reversal.
    pub reverse: [bool; MAX_ACTUATORS],
    /// The board's targets after boot, axis values (`None`: unknown, move at homing speed).
    pub boot_position: Option<f64>,
    /// Opening the port resets the board to `boot_position`.
    pub resets_on_open: bool,
    /// Park on its own after this long without commands.
    pub watchdog: Duration,
}

/// The writer's side of the hand-off.
pub struct WriterEnds {
    /// Commands from the stage.
    pub commands: rtrb::Consumer<OutputCommand>,
    /// Status to the stage.
    pub status: LatestWriter<WriterStatus>,
    /// Set when the stage is dropped: park, stop string, close, end the thread.
    pub shutdown: Arc<AtomicBool>,
    /// The run's park-on-panic state (parks like a shutdown once a panic sets it).
    pub panic_park: Arc<PanicPark>,
    /// Dropped when the writer has finished (parked, stop string sent, link closed): the
    /// stage's drop waits for every sender of its outputs to be gone.
    pub finished: Sender<()>,
}

impl std::fmt::Debug for WriterEnds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WriterEnds")
    }
}

/// Where an output's link is in its life cycle (module docs).
enum Phase {
    /// No link: open at `retry_at`.
    Closed { retry_at: Instant },
    /// Open; the start string goes at `start_at`, after the post-open delay.
    Opened { link: Link, start_at: Instant },
    /// Start string sent; streaming begins at `stream_at`, after the start delay.
    Starting { link: Link, stream_at: Instant },
    /// Streaming frames.
    Streaming { link: Link },
    /// Parked at shutdown; the stop string goes at `stop_at`, after the stop delay
    /// (`stop_sent`: it went out, or its head did and the rest is queued).
    Stopping {
        link: Link,
        stop_at: Instant,
        stop_sent: bool,
    },
    /// Done: parked (or given up), stop string sent, link closed.
    Finished,
}

/// One output's writer: its link, its ramps and its own recovery, stepped by the writer
/// thread ([`super::writers`]) without ever waiting.
pub struct OutputWriter {
    setup: WriterSetup,
    ends: WriterEnds,
    phase: Phase,
    status: WriterStatus,
    frame: FrameBuffer,
    park: [f64; MAX_ACTUATORS],
    /// The writer's idea of the controller: last written position and its velocity.
    tracker: Tracker,
    /// The pose of the last frame (pose frames; the Newton guess for the next one).
    pose: Pose,
    counted_unparked: bool,
    /// The port was opened before (a board that does not reset holds the last position).
    opened_before: bool,
    /// Moving from an assumed position: the tracker's top speed is the homing speed.
    homing: bool,
    /// When the last command came (the watchdog's start).
    last_command: Instant,
    /// When the next park frame is due (frames on an absolute schedule at the output's rate).
    next_park_frame: Instant,
    /// How long a shutdown may try to park through a link that is down.
    shutdown_deadline: Option<Instant>,
}

impl std::fmt::Debug for OutputWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputWriter")
            .field("name", &self.setup.name)
            .field("mode", &self.status.mode)
            .finish()
    }
}

/// Longest sleep of the writer thread with no deadline of its own: how late it may notice a
/// panic's park request (the panic hook only sets a flag; a shutdown and every command wake
/// the thread at once).
pub const LONGEST_WAIT: Duration = Duration::from_millis(20);

/// Largest position difference, in units of the half travel, at which a joining writer counts
/// as sitting on the live command.
const JOIN_TOLERANCE: f64 = 1e-6;

/// How long a shutdown keeps trying to reopen a lost link to park the controller.
const SHUTDOWN_PARK_WAIT: Duration = Duration::from_secs(2);

/// Wait between attempts to open a link.
const REOPEN_WAIT: Duration = Duration::from_millis(500);

/// Wait after a write error before reopening.
const AFTER_ERROR_WAIT: Duration = Duration::from_millis(200);

/// Retry interval while a port takes nothing (the rest of a frame, the start or stop string).
const BUSY_RETRY: Duration = Duration::from_millis(1);

/// One frame (`every_ticks` loop steps) of `tracker` joining the live command: it follows
/// the command as a moving target (position and velocity, the velocity extrapolated back
/// over the frame) at the actuator limits. True when it sits on the command (position within
/// [`JOIN_TOLERANCE`] of the half travel, velocity within `2 a_max dt`).
fn join_frame(tracker: &mut Tracker, command: &OutputCommand, every_ticks: u32) -> bool {
    let dt = tracker.dt_s;
    for j in 1..=every_ticks {
        let lead = f64::from(every_ticks - j) * dt;
        let target: [f64; MAX_ACTUATORS] =
            std::array::from_fn(|i| command.position[i] - command.velocity[i] * lead);
        tracker.follow(&target, &command.velocity);
    }
    let tolerance = JOIN_TOLERANCE * tracker.limits.half_travel;
    let speed_tolerance = 2.0 * tracker.limits.max_accel * dt;
    (0..tracker.count).all(|i| {
        (tracker.position[i] - command.position[i]).abs() <= tolerance
            && (tracker.velocity[i] - command.velocity[i]).abs() <= speed_tolerance
    })
}

/// What one streaming step ended with.
enum StreamStep {
    /// Keep streaming; step again by this time.
    Next(Instant),
    /// Parked at shutdown: the stop string is next.
    Parked,
}

impl OutputWriter {
    /// A writer for `setup`, its link closed (it opens on the first step).
    pub fn new(setup: WriterSetup, ends: WriterEnds) -> OutputWriter {
        let park = Tracker::park_position(&setup.limits);
        let tracker = Tracker::new(setup.limits, setup.count, setup.tick_dt_s, park);
        let now = Instant::now();
        OutputWriter {
            status: WriterStatus {
                last_sent: park,
                ..WriterStatus::default()
            },
            setup,
            ends,
            phase: Phase::Closed { retry_at: now },
            frame: FrameBuffer::new(),
            park,
            tracker,
            pose: Pose::NEUTRAL,
            counted_unparked: false,
            opened_before: false,
            homing: false,
            last_command: now,
            next_park_frame: now,
            shutdown_deadline: None,
        }
    }

    /// True when no command waits to be streamed (a link that is not streaming yet leaves
    /// its ring alone: those commands are old news once it streams, and the thread must not
    /// spin on them).
    pub fn no_command_waiting(&self) -> bool {
        !matches!(self.phase, Phase::Streaming { .. }) || self.ends.commands.is_empty()
    }

    fn shutting_down(&self) -> bool {
        self.ends.shutdown.load(Ordering::SeqCst) || self.ends.panic_park.parking()
    }

    fn parked(&self) -> bool {
        self.status.mode == WriterMode::Parked
    }

    fn set_mode(&mut self, mode: WriterMode) {
        // Homing ends where the controller's position is known again: locked onto the live
        // command, or at park after a move there.
        let arrived = mode == WriterMode::Following
            || (mode == WriterMode::Parked && self.status.mode == WriterMode::Parking);
        if self.homing && arrived {
            self.homing = false;
            self.tracker.limits.max_speed = self.setup.limits.max_speed;
        }
        self.status.mode = mode;
        let parked = mode == WriterMode::Parked;
        if parked == self.counted_unparked {
            self.ends.panic_park.count_unparked(!parked);
            self.counted_unparked = !parked;
        }
    }

    fn publish(&mut self) {
        self.ends.status.write(self.status);
    }

    /// Does whatever is due at `now` without waiting; the time it is next due (the thread
    /// may be woken earlier by a command or a shutdown), or `None` once finished (parked at
    /// shutdown, stop string sent, link closed).
    pub fn step(&mut self, now: Instant) -> Option<Instant> {
        if self.shutting_down() && self.shutdown_deadline.is_none() {
            self.shutdown_deadline = Some(now + SHUTDOWN_PARK_WAIT);
        }
        // A shutdown with the controller parked (or never moved) ends a link that is not
        // streaming at once, as it ended the waits of the old blocking writer.
        let done_waiting = self.shutting_down() && self.parked();
        let phase = std::mem::replace(&mut self.phase, Phase::Finished);
        let (phase, next) = match phase {
            Phase::Finished => (Phase::Finished, now),
            Phase::Closed { .. } | Phase::Opened { .. } | Phase::Starting { .. }
                if done_waiting =>
            {
                (Phase::Finished, now)
            }
            Phase::Closed { retry_at } => self.closed(retry_at, now),
            Phase::Opened { link, start_at } => self.opened(link, start_at, now),
            Phase::Starting { link, stream_at } => self.starting(link, stream_at, now),
            Phase::Streaming { mut link } => match self.stream(&mut link, now) {
                Ok(StreamStep::Next(next)) => (Phase::Streaming { link }, next),
                Ok(StreamStep::Parked) => {
                    let stop_at = now + self.setup.stop_delay;
                    let stop_sent = false;
                    (
                        Phase::Stopping {
                            link,
                            stop_at,
                            stop_sent,
                        },
                        stop_at,
                    )
                }
                Err(e) => {
                    self.status.errors += 1;
                    self.status.ready = false;
                    self.publish();
                    tracing::warn!(output = %self.setup.name, "motion controller write failed: {e}; reconnecting, this output parks when it is back (the platform's other outputs carry on)");
                    drop(link);
                    let retry_at = now + AFTER_ERROR_WAIT;
                    (Phase::Closed { retry_at }, retry_at)
                }
            },
            Phase::Stopping {
                link,
                stop_at,
                stop_sent,
            } => self.stopping(link, stop_at, stop_sent, now),
        };
        self.phase = phase;
        if matches!(self.phase, Phase::Finished) {
            // The panic hook must not wait for a writer that is gone.
            self.set_mode(WriterMode::Parked);
            return None;
        }
        Some(next)
    }

    /// Parked at shutdown: the stop string after the stop delay, then close. Best effort:
    /// it goes out unless the port takes nothing for the write timeout.
    fn stopping(
        &mut self,
        mut link: Link,
        stop_at: Instant,
        stop_sent: bool,
        now: Instant,
    ) -> (Phase, Instant) {
        if now < stop_at {
            let phase = Phase::Stopping {
                link,
                stop_at,
                stop_sent,
            };
            return (phase, stop_at);
        }
        let sent = if stop_sent {
            link.push_rest(now).map(|()| true)
        } else {
            let stop = std::mem::take(&mut self.setup.stop);
            let sent = link.write_frame(&stop, now);
            self.setup.stop = stop;
            sent
        };
        match sent {
            Ok(true) if !link.has_rest() => (Phase::Finished, now),
            Ok(sent) => {
                let phase = Phase::Stopping {
                    link,
                    stop_at,
                    stop_sent: stop_sent || sent,
                };
                (phase, now + BUSY_RETRY)
            }
            Err(_) => (Phase::Finished, now),
        }
    }

    /// No link: open it when due (a shutdown gives up once its deadline passed).
    fn closed(&mut self, retry_at: Instant, now: Instant) -> (Phase, Instant) {
        if self
            .shutdown_deadline
            .is_some_and(|deadline| now > deadline)
        {
            return (Phase::Finished, now);
        }
        if now < retry_at {
            return (Phase::Closed { retry_at }, retry_at);
        }
        match Link::open(&self.setup.target) {
            Ok(link) => {
                let start_at = now + self.setup.post_open_delay;
                (Phase::Opened { link, start_at }, start_at)
            }
            Err(e) => {
                self.status.errors += 1;
                self.publish();
                if self.status.errors == 1 || self.status.errors % 60 == 0 {
                    tracing::warn!(output = %self.setup.name, "cannot open the motion controller: {e} (retrying every 500 ms; check the cable and serial_port)");
                }
                let retry_at = now + REOPEN_WAIT;
                (Phase::Closed { retry_at }, retry_at)
            }
        }
    }

    /// Open: the start string after the post-open delay (opening resets Arduino boards).
    fn opened(&mut self, mut link: Link, start_at: Instant, now: Instant) -> (Phase, Instant) {
        if now < start_at {
            return (Phase::Opened { link, start_at }, start_at);
        }
        let start = std::mem::take(&mut self.setup.start);
        let sent = link.write_frame(&start, now);
        self.setup.start = start;
        match sent {
            Ok(true) => {
                let stream_at = now + self.setup.start_delay;
                (Phase::Starting { link, stream_at }, stream_at)
            }
            Ok(false) => (Phase::Opened { link, start_at }, now + BUSY_RETRY),
            Err(_) => {
                self.status.errors += 1;
                (Phase::Closed { retry_at: now }, now)
            }
        }
    }

    /// Start string sent: after the start delay, start from where the controller is.
    fn starting(&mut self, mut link: Link, stream_at: Instant, now: Instant) -> (Phase, Instant) {
        if link.push_rest(now).is_err() {
            self.status.errors += 1;
            return (Phase::Closed { retry_at: now }, now);
        }
        if now < stream_at {
            let next = if link.has_rest() {
                stream_at.min(now + BUSY_RETRY)
            } else {
                stream_at
            };
            return (Phase::Starting { link, stream_at }, next);
        }
        // Commands queued while the link was down are old news.
        while self.ends.commands.pop().is_ok() {}
        // Start from where the controller is, at rest, and park before anything else
        // unless it is parked already. Never carry on Following: the live command may
        // have moved anywhere while the link was down.
        self.start_from_controller();
        if self.tracker.reached(&self.park, 1e-9) {
            self.set_mode(WriterMode::Parked);
        } else {
            self.set_mode(WriterMode::Parking);
        }
        self.status.ready = true;
        self.publish();
        tracing::info!(output = %self.setup.name, mode = ?self.status.mode, "motion controller ready");
        self.last_command = now;
        self.next_park_frame = now;
        (Phase::Streaming { link }, now)
    }

    /// Puts the tracker where the controller is after an open (module docs), at rest.
    fn start_from_controller(&mut self) {
        let boot = if self.setup.resets_on_open || !self.opened_before {
            self.setup.boot_position
        } else {
            // A board that keeps running holds the last position written.
            Some(f64::NAN)
        };
        self.opened_before = true;
        self.tracker.velocity = [0.0; MAX_ACTUATORS];
        match boot {
            Some(axis) if axis.is_finite() => {
                for i in 0..self.setup.count {
                    let p = axis * self.setup.limits.half_travel;
                    self.tracker.position[i] = if self.setup.reverse[i] { -p } else { p };
                }
            }
            Some(_) => {}
            None => {
                self.homing = true;
                self.tracker.limits.max_speed = self.setup.limits.homing_speed;
            }
        }
    }

    /// Encodes and writes `position` if the port takes it now; remembers it as the last
    /// sent when it went out.
    fn send(
        &mut self,
        link: &mut Link,
        position: &[f64; MAX_ACTUATORS],
        now: Instant,
    ) -> std::io::Result<()> {
        let mut axes = [0.0; MAX_ACTUATORS];
        for i in 0..self.setup.count {
            let p = position[i] / self.setup.limits.half_travel;
            axes[i] = if self.setup.reverse[i] { -p } else { p };
        }
        if self.setup.encoder.uses_pose() {
            let actuators = Actuators {
                values: *position,
                count: self.setup.count,
            };
            // A failed solve keeps the last pose: never a NaN on the wire.
            if let Ok((pose, _)) = self.setup.platform.forward(&actuators, self.pose) {
                self.pose = pose;
            }
        }
        let values = FrameValues {
            axes: &axes[..self.setup.count],
            pose: self.pose.to_array(),
        };
        self.setup.encoder.encode(&values, &mut self.frame);
        let frame = self.frame;
        if link.write_frame(frame.as_bytes(), now)? {
            self.status.last_sent = *position;
            self.status.frames_sent += 1;
        }
        Ok(())
    }

    /// One frame's worth of ramp to park; true when parked.
    fn park_step(&mut self) -> bool {
        for _ in 0..self.setup.every_ticks {
            self.tracker.step(&self.park);
        }
        self.tracker.reached(&self.park, 1e-9)
    }

    /// One streaming step at `now`: the commands waiting, the watchdog, the park frames due.
    fn stream(&mut self, link: &mut Link, now: Instant) -> std::io::Result<StreamStep> {
        let period =
            Duration::from_secs_f64(self.setup.tick_dt_s * f64::from(self.setup.every_ticks));
        link.push_rest(now)?;
        while let Ok(command) = self.ends.commands.pop() {
            self.last_command = now;
            let position = match self.status.mode {
                WriterMode::Parking => continue,
                _ if command.park_now || self.shutting_down() => {
                    if self.status.mode == WriterMode::Following {
                        // Park from the stage's own last state (position and velocity).
                        self.tracker.position = command.position;
                        self.tracker.velocity = command.velocity;
                    }
                    if !self.parked() {
                        self.set_mode(WriterMode::Parking);
                        self.next_park_frame = now;
                    }
                    continue;
                }
                WriterMode::Following => {
                    self.tracker.position = command.position;
                    self.tracker.velocity = command.velocity;
                    command.position
                }
                WriterMode::Parked | WriterMode::Joining => {
                    let every_ticks = self.setup.every_ticks;
                    if join_frame(&mut self.tracker, &command, every_ticks) {
                        self.set_mode(WriterMode::Following);
                    } else if self.status.mode == WriterMode::Parked {
                        self.set_mode(WriterMode::Joining);
                    }
                    self.tracker.position
                }
            };
            self.send(link, &position, now)?;
            self.publish();
        }
        let silent = now.saturating_duration_since(self.last_command) > self.setup.watchdog;
        let moving = matches!(
            self.status.mode,
            WriterMode::Following | WriterMode::Joining
        );
        if moving && (self.shutting_down() || silent) {
            self.set_mode(WriterMode::Parking);
            self.next_park_frame = now;
        }
        // Every park frame due goes out (a late wake-up sends those it missed at once), so
        // the ramp keeps the output's rate and takes the time it was planned to.
        while self.status.mode == WriterMode::Parking && now >= self.next_park_frame {
            let parked = self.park_step();
            let position = self.tracker.position;
            self.send(link, &position, now)?;
            self.next_park_frame += period;
            if parked {
                self.set_mode(WriterMode::Parked);
            }
            self.publish();
        }
        if self.shutting_down() && self.parked() {
            return Ok(StreamStep::Parked);
        }
        let next = match self.status.mode {
            WriterMode::Parking => self.next_park_frame,
            WriterMode::Following | WriterMode::Joining => self.last_command + self.setup.watchdog,
            WriterMode::Parked => now + LONGEST_WAIT,
        };
        Ok(StreamStep::Next(if link.has_rest() {
            next.min(now + BUSY_RETRY)
        } else {
            next
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f64 = 0.001;
    const EVERY: u32 = 10;

    fn limits() -> ActuatorLimits {
        ActuatorLimits {
            half_travel: 0.05,
            usable_half_travel: 0.0475,
            max_speed: 0.2,
            max_accel: 2.0,
            park_position: -1.0,
            homing_speed: 0.02,
        }
    }

    /// Frames until a writer joining from park locks onto a stage command following the
    /// sine `amplitude sin(w t)` (None within 10 s). Every joining frame is checked against
    /// the speed and acceleration limits at frame resolution.
    fn frames_to_lock(amplitude: f64, w: f64) -> Option<u32> {
        let mut stage = Tracker::new(limits(), 1, DT, [0.0; MAX_ACTUATORS]);
        let mut writer = Tracker::new(limits(), 1, DT, Tracker::park_position(&limits()));
        let span = f64::from(EVERY) * DT;
        let mut last_sent = writer.position[0];
        let mut last_step: Option<f64> = None;
        for frame in 0..1000 {
            for k in 1..=EVERY {
                let t = f64::from(frame * EVERY + k) * DT;
                let cue = amplitude * (w * t).sin();
                let cue_velocity = amplitude * w * (w * t).cos();
                stage.follow(&[cue; MAX_ACTUATORS], &[cue_velocity; MAX_ACTUATORS]);
            }
            let command = OutputCommand {
                position: stage.position,
                velocity: stage.velocity,
                park_now: false,
            };
            let locked = join_frame(&mut writer, &command, EVERY);
            let step = writer.position[0] - last_sent;
            assert!(step.abs() <= 0.2 * span * (1.0 + 1e-9), "step {step}");
            if let Some(last) = last_step {
                let accel = (step - last) / (span * span);
                assert!(accel.abs() <= 2.0 * (1.0 + 1e-6), "accel {accel}");
            }
            (last_sent, last_step) = (writer.position[0], Some(step));
            if locked {
                return Some(frame + 1);
            }
        }
        None
    }

    #[test]
    fn joining_locks_onto_cue_like_motion_within_a_second() {
        // 30 mm at 0.3 Hz: 57 mm/s and 0.11 m/s^2 peaks.
        let frames = frames_to_lock(0.03, 2.0 * std::f64::consts::PI * 0.3).expect("locks");
        assert!(frames <= 100, "{frames} frames of 10 ms to lock");
    }

    #[test]
    fn joining_locks_onto_motion_near_the_acceleration_limit() {
        // 18 mm at 10 rad/s: 0.18 m/s and 1.8 m/s^2 peaks leave little acceleration to close
        // the gap; closing on a quarter of the limit still locks (0.53 s measured), and
        // every frame on the way keeps the speed and acceleration limits.
        let frames = frames_to_lock(0.018, 10.0).expect("locks");
        assert!(frames <= 100, "{frames} frames of 10 ms to lock");
    }
}
