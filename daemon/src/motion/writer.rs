//! The output writer thread of one motion controller: owns the serial port (or UDP socket),
//! encodes the actuator commands the RT stage hands over and writes them; owns the final
//! parking ramp; reconnects after errors.
//!
//! Life cycle: open -> post-open delay (opening a port resets Arduino boards) -> start string
//! -> start delay -> ready (a new *epoch*) -> stream commands of that epoch. It parks on its
//! own, at the actuator limits and the output rate, when
//! - the stage asks for it (`park_now`: SIGTERM, fault, e-stop, reload), or
//! - the stage has gone silent for `writer_watchdog_ms` (RT thread stalled or died), or
//! - the process panics ([`install_panic_park`]), or it is shut down (stage dropped).
//!
//! After parking (or reconnecting after a write error) it starts a new epoch and reports its
//! last sent position, so the stage resynchronises and goes Parking/Parked -> Raising before
//! any motion resumes. Commands of an old epoch are ignored. On shutdown it parks, waits the
//! stop delay, sends the stop string and closes.

use std::io::Write;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rig_config::motion::ActuatorLimits;
use rig_protocols::motion::{Encoder, FrameBuffer};

use super::kinematics::MAX_ACTUATORS;
use super::safety::SafetyState;
use super::tracker::Tracker;
use crate::handoff::LatestWriter;

/// What the RT stage hands the writer (`Copy`, through a wait-free ring).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OutputCommand {
    /// The writer epoch this command was computed for.
    pub epoch: u32,
    /// Commanded actuator positions, m or rad from neutral.
    pub position: [f64; MAX_ACTUATORS],
    /// Commanded actuator velocities, m/s or rad/s.
    pub velocity: [f64; MAX_ACTUATORS],
    /// The stage's safety state.
    pub state: SafetyState,
    /// Park now from this state; the stage sends nothing more until the next epoch.
    pub park_now: bool,
}

/// What the writer reports back (`Copy`, through a latest-value slot).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WriterStatus {
    /// The link is up and streaming commands of `epoch`.
    pub ready: bool,
    /// Increments on every (re)start of streaming.
    pub epoch: u32,
    /// The last position written to the controller, m or rad (park position before the
    /// first frame).
    pub last_sent: [f64; MAX_ACTUATORS],
    /// Frames written.
    pub frames_sent: u64,
    /// Failed writes or opens.
    pub errors: u64,
    /// True while the controller rests at the park position.
    pub parked: bool,
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
    /// Frames per second.
    pub rate_hz: f64,
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
    /// Park on its own after this long without commands.
    pub watchdog: Duration,
}

/// Set by the panic hook: every writer parks and stays parked.
static PANIC_PARK: AtomicBool = AtomicBool::new(false);
/// Writers whose controller is not known to be parked.
static UNPARKED_WRITERS: AtomicUsize = AtomicUsize::new(0);

/// Installs (once) a panic hook that parks every motion platform before the panic goes on:
/// it tells the writers to park and waits up to 10 s for them.
pub fn install_panic_park() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            PANIC_PARK.store(true, Ordering::SeqCst);
            let start = Instant::now();
            while UNPARKED_WRITERS.load(Ordering::SeqCst) > 0
                && start.elapsed() < Duration::from_secs(10)
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            previous(info);
        }));
    });
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
    counted_unparked: bool,
}

/// Runs a writer until shutdown (the body of its thread).
pub fn run_writer(setup: WriterSetup, ends: WriterEnds) {
    let park = Tracker::park_position(&setup.limits);
    let mut writer = Writer {
        status: WriterStatus {
            last_sent: park,
            parked: true,
            ..WriterStatus::default()
        },
        setup,
        ends,
        frame: FrameBuffer::new(),
        park,
        counted_unparked: false,
    };
    writer.run();
    writer.set_parked(true);
}

impl Writer {
    fn shutting_down(&self) -> bool {
        self.ends.shutdown.load(Ordering::SeqCst) || PANIC_PARK.load(Ordering::SeqCst)
    }

    fn set_parked(&mut self, parked: bool) {
        self.status.parked = parked;
        if parked == self.counted_unparked {
            if parked {
                UNPARKED_WRITERS.fetch_sub(1, Ordering::SeqCst);
            } else {
                UNPARKED_WRITERS.fetch_add(1, Ordering::SeqCst);
            }
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
            if self.shutting_down() && self.status.parked {
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
                if self.status.parked || Instant::now() > deadline {
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
            // Drop commands of the previous epoch, then announce the new one.
            while self.ends.commands.pop().is_ok() {}
            self.status.epoch = self.status.epoch.wrapping_add(1);
            self.status.ready = true;
            self.publish();
            tracing::info!(output = %self.setup.name, epoch = self.status.epoch, "motion controller ready");
            match self.stream(&mut link) {
                Ok(()) => {
                    // Shut down after parking: stop string, close.
                    self.pause_unconditionally(self.setup.stop_delay);
                    let stop = self.setup.stop.clone();
                    let _ = link.write(&stop);
                    return;
                }
                Err(e) => {
                    self.status.errors += 1;
                    self.status.ready = false;
                    self.publish();
                    tracing::warn!(output = %self.setup.name, "motion controller write failed: {e}; reconnecting, the platform parks when it is back");
                    drop(link);
                    if !self.pause(Duration::from_millis(200)) {
                        return;
                    }
                }
            }
        }
    }

    fn pause_unconditionally(&self, d: Duration) {
        std::thread::sleep(d);
    }

    fn send(&mut self, link: &mut Link, position: &[f64; MAX_ACTUATORS]) -> std::io::Result<()> {
        let mut axes = [0.0; MAX_ACTUATORS];
        for i in 0..self.setup.count {
            let p = position[i] / self.setup.limits.half_travel;
            axes[i] = if self.setup.reverse[i] { -p } else { p };
        }
        self.setup
            .encoder
            .encode(&axes[..self.setup.count], &mut self.frame);
        let frame = self.frame;
        link.write(frame.as_bytes())?;
        self.status.last_sent = *position;
        self.status.frames_sent += 1;
        Ok(())
    }

    /// Streams commands until shutdown has parked the platform (Ok) or a write fails (Err).
    fn stream(&mut self, link: &mut Link) -> std::io::Result<()> {
        let period = Duration::from_secs_f64(1.0 / self.setup.rate_hz);
        let mut last_command = Instant::now();
        let mut last_state = Tracker::new(
            self.setup.limits,
            self.setup.count,
            period.as_secs_f64(),
            self.status.last_sent,
        );
        let mut parking: Option<Tracker> = None;
        let mut next_park_frame = Instant::now();
        loop {
            while let Ok(command) = self.ends.commands.pop() {
                if command.epoch != self.status.epoch || parking.is_some() {
                    continue;
                }
                last_command = Instant::now();
                last_state.position = command.position;
                last_state.velocity = command.velocity;
                if command.park_now {
                    parking = Some(last_state);
                    next_park_frame = Instant::now();
                    break;
                }
                self.set_parked(command.state == SafetyState::Parked);
                self.send(link, &command.position)?;
                self.publish();
            }
            let silent = last_command.elapsed() > self.setup.watchdog;
            if parking.is_none() && !self.status.parked && (self.shutting_down() || silent) {
                parking = Some(last_state);
                next_park_frame = Instant::now();
            }
            if let Some(tracker) = parking.as_mut() {
                if Instant::now() >= next_park_frame {
                    tracker.step(&self.park);
                    let position = tracker.position;
                    self.send(link, &position)?;
                    next_park_frame += period;
                    if tracker.reached(&self.park, 1e-9) {
                        parking = None;
                        self.set_parked(true);
                        // A new epoch: the stage resynchronises from the park position.
                        self.status.epoch = self.status.epoch.wrapping_add(1);
                        last_state.position = position;
                        last_state.velocity = [0.0; MAX_ACTUATORS];
                        last_command = Instant::now();
                    }
                    self.publish();
                }
            } else if self.shutting_down() && self.status.parked {
                return Ok(());
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}
