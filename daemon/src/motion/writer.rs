//! The output writer thread of one motion controller: owns the serial port (or UDP socket),
//! encodes the actuator commands the RT stage hands over and writes them; owns its own
//! parking ramp and its own return into the platform's motion; reconnects after errors.
//!
//! Every output of a platform has its own writer and recovers on its own: a dead serial port
//! never stops the platform's other outputs (its UDP copy keeps streaming), and the stage
//! keeps running as long as one link is up.
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
//! Waiting: between frames the writer sleeps in [`std::thread::park_timeout`] until its next
//! own deadline (the next park frame while Parking, the watchdog while moving, at most
//! [`LONGEST_WAIT`] otherwise, the bound on noticing a panic's park request). The RT stage
//! wakes it after each command it pushes with [`std::thread::Thread::unpark`] (an atomic swap,
//! and one futex wake when the writer sleeps: no allocation, no lock, never blocks), and the
//! stage's drop wakes it for the shutdown. A writer therefore wakes once per frame it sends,
//! not on a polling interval.

use std::io::Write;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rig_config::motion::ActuatorLimits;
use rig_protocols::motion::{Encoder, FrameBuffer, FrameValues};

use super::kinematics::{Actuators, Platform, Pose, MAX_ACTUATORS};
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

enum Link {
    Serial(Box<dyn serialport::SerialPort>),
    Udp(UdpSocket),
}

impl Link {
    fn open(target: &LinkTarget) -> std::io::Result<Link> {
        match target {
            LinkTarget::Serial {
                path,
                baud,
                data_bits,
                parity,
                stop_bits,
            } => {
                let port = serialport::new(path, *baud)
                    .data_bits(match data_bits {
                        5 => serialport::DataBits::Five,
                        6 => serialport::DataBits::Six,
                        7 => serialport::DataBits::Seven,
                        _ => serialport::DataBits::Eight,
                    })
                    .parity(match parity {
                        rig_protocols::motion::Parity::None => serialport::Parity::None,
                        rig_protocols::motion::Parity::Odd => serialport::Parity::Odd,
                        rig_protocols::motion::Parity::Even => serialport::Parity::Even,
                    })
                    .stop_bits(if *stop_bits == 2 {
                        serialport::StopBits::Two
                    } else {
                        serialport::StopBits::One
                    })
                    .timeout(Duration::from_millis(200))
                    .open()
                    .map_err(std::io::Error::other)?;
                Ok(Link::Serial(port))
            }
            LinkTarget::Udp(addr) => {
                let bind = if addr.is_ipv4() {
                    "0.0.0.0:0"
                } else {
                    "[::]:0"
                };
                let socket = UdpSocket::bind(bind)?;
                socket.connect(addr)?;
                Ok(Link::Udp(socket))
            }
        }
    }

    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        match self {
            Link::Serial(port) => {
                port.write_all(bytes)?;
                port.flush()
            }
            // A refused datagram (no listener yet) is not a broken link.
            Link::Udp(socket) => match socket.send(bytes) {
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => Ok(()),
                other => other.map(|_| ()),
            },
        }
    }
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
}

impl std::fmt::Debug for WriterEnds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WriterEnds")
    }
}

struct Writer {
    setup: WriterSetup,
    ends: WriterEnds,
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
}

/// Longest sleep of a streaming writer with no deadline of its own: how late it may notice a
/// panic's park request (the panic hook only sets a flag; a shutdown and every command wake
/// the writer at once).
pub const LONGEST_WAIT: Duration = Duration::from_millis(20);

/// Largest position difference, in units of the half travel, at which a joining writer counts
/// as sitting on the live command.
const JOIN_TOLERANCE: f64 = 1e-6;

/// Runs a writer until shutdown (the body of its thread).
pub fn run_writer(setup: WriterSetup, ends: WriterEnds) {
    let park = Tracker::park_position(&setup.limits);
    let tracker = Tracker::new(setup.limits, setup.count, setup.tick_dt_s, park);
    let mut writer = Writer {
        status: WriterStatus {
            last_sent: park,
            ..WriterStatus::default()
        },
        setup,
        ends,
        frame: FrameBuffer::new(),
        park,
        tracker,
        pose: Pose::NEUTRAL,
        counted_unparked: false,
        opened_before: false,
        homing: false,
    };
    writer.run();
    writer.set_mode(WriterMode::Parked);
}

/// How streaming on a link ended.
enum StreamEnd {
    /// Parked at shutdown: send the stop string and close.
    Shutdown,
    /// A write failed: reopen the link.
    WriteError(std::io::Error),
}

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

impl Writer {
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

    /// Sleeps `d` in small slices; false when shutdown came and nothing needs parking.
    fn pause(&self, d: Duration) -> bool {
        let end = Instant::now() + d;
        while Instant::now() < end {
            if self.shutting_down() && self.parked() {
                return false;
            }
            std::thread::sleep(
                Duration::from_millis(5).min(end.saturating_duration_since(Instant::now())),
            );
        }
        true
    }

    fn run(&mut self) {
        let mut shutdown_deadline: Option<Instant> = None;
        loop {
            if self.shutting_down() {
                // With the link down at shutdown, keep trying for a short while to park.
                let deadline = *shutdown_deadline
                    .get_or_insert_with(|| Instant::now() + Duration::from_secs(2));
                if self.parked() || Instant::now() > deadline {
                    return;
                }
            }
            let mut link = match Link::open(&self.setup.target) {
                Ok(link) => link,
                Err(e) => {
                    self.status.errors += 1;
                    self.publish();
                    if self.status.errors == 1 || self.status.errors % 60 == 0 {
                        tracing::warn!(output = %self.setup.name, "cannot open the motion controller: {e} (retrying every 500 ms; check the cable and serial_port)");
                    }
                    if !self.pause(Duration::from_millis(500)) {
                        return;
                    }
                    continue;
                }
            };
            if !self.pause(self.setup.post_open_delay) {
                return;
            }
            let start = self.setup.start.clone();
            if link.write(&start).is_err() {
                self.status.errors += 1;
                continue;
            }
            if !self.pause(self.setup.start_delay) {
                return;
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
            match self.stream(&mut link) {
                StreamEnd::Shutdown => {
                    std::thread::sleep(self.setup.stop_delay);
                    let stop = self.setup.stop.clone();
                    let _ = link.write(&stop);
                    return;
                }
                StreamEnd::WriteError(e) => {
                    self.status.errors += 1;
                    self.status.ready = false;
                    self.publish();
                    tracing::warn!(output = %self.setup.name, "motion controller write failed: {e}; reconnecting, this output parks when it is back (the platform's other outputs carry on)");
                    drop(link);
                    if !self.pause(Duration::from_millis(200)) {
                        return;
                    }
                }
            }
        }
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

    /// Encodes and writes `position`; remembers it as the last sent.
    fn send(&mut self, link: &mut Link, position: &[f64; MAX_ACTUATORS]) -> std::io::Result<()> {
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
        link.write(frame.as_bytes())?;
        self.status.last_sent = *position;
        self.status.frames_sent += 1;
        Ok(())
    }

    /// One frame's worth of ramp to park; true when parked.
    fn park_step(&mut self) -> bool {
        for _ in 0..self.setup.every_ticks {
            self.tracker.step(&self.park);
        }
        self.tracker.reached(&self.park, 1e-9)
    }

    /// Streams until shutdown has parked the controller or a write fails.
    fn stream(&mut self, link: &mut Link) -> StreamEnd {
        let period =
            Duration::from_secs_f64(self.setup.tick_dt_s * f64::from(self.setup.every_ticks));
        let mut last_command = Instant::now();
        let mut next_park_frame = Instant::now();
        loop {
            while let Ok(command) = self.ends.commands.pop() {
                last_command = Instant::now();
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
                            next_park_frame = Instant::now();
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
                if let Err(e) = self.send(link, &position) {
                    return StreamEnd::WriteError(e);
                }
                self.publish();
            }
            let silent = last_command.elapsed() > self.setup.watchdog;
            let moving = matches!(
                self.status.mode,
                WriterMode::Following | WriterMode::Joining
            );
            if moving && (self.shutting_down() || silent) {
                self.set_mode(WriterMode::Parking);
                next_park_frame = Instant::now();
            }
            // Every park frame due goes out (a late wake-up sends those it missed at once), so
            // the ramp keeps the output's rate and takes the time it was planned to.
            while self.status.mode == WriterMode::Parking && Instant::now() >= next_park_frame {
                let parked = self.park_step();
                let position = self.tracker.position;
                if let Err(e) = self.send(link, &position) {
                    return StreamEnd::WriteError(e);
                }
                next_park_frame += period;
                if parked {
                    self.set_mode(WriterMode::Parked);
                }
                self.publish();
            }
            if self.shutting_down() && self.parked() {
                return StreamEnd::Shutdown;
            }
            // Sleep until a command or a shutdown wakes the thread, or its own next deadline.
            let now = Instant::now();
            let deadline = match self.status.mode {
                WriterMode::Parking => next_park_frame,
                WriterMode::Following | WriterMode::Joining => last_command + self.setup.watchdog,
                WriterMode::Parked => now + LONGEST_WAIT,
            };
            let wait = deadline.saturating_duration_since(now).min(LONGEST_WAIT);
            if !wait.is_zero() && self.ends.commands.is_empty() && !self.shutting_down() {
                std::thread::park_timeout(wait);
            }
        }
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
