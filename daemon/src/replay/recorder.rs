//! `rigd run --record FILE` (or `[record] path`): the RT side ([`Recorder`], a
//! [`StepObserver`] on the world) pushes every physics step's input and, every
//! [`CHECKPOINT_EVERY_STEPS`] steps, a digest of the frames' physics bytes into a wait-free ring
//! sized at start-up; a writer thread drains it, merges identical steps into runs and streams
//! the records to the file. Dropping the recorder (the session stops, or a reload builds a new
//! world) finishes the file with its end record.
//!
//! The RT side never allocates, blocks or logs: a full ring is counted, and from then on the
//! recorder records nothing more (a recording with a hole cannot be replayed past it); the end
//! record says how many steps were lost and `rigd replay` reports the file as incomplete.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{Context, Result};
use rig_config::sim::SimConfig;
use rig_config::Config;
use rig_physics::CarTelemetry;

use super::digest::{physics_digest, WindowDigest};
use super::format::{self, Header, StepInput, CHECKPOINT_EVERY_STEPS, FNV_OFFSET};
use crate::input::player_input::PlayerInput;
use crate::runtime::service::RecordedWorldFactory;
use crate::runtime::simulation::StepObserver;

/// Seconds of steps the ring holds before the RT side must drop (the writer drains it every
/// [`DRAIN_EVERY`]).
pub const RING_SECONDS: u32 = 2;
const DRAIN_EVERY: Duration = Duration::from_millis(10);

/// What the RT side hands the writer.
#[derive(Debug, Clone, Copy)]
enum Event {
    Step(StepInput),
    Checkpoint { steps: u64, digest: u64 },
}

/// The RT side of a recording: a [`StepObserver`] attached to the world.
pub struct Recorder {
    ring: rtrb::Producer<Event>,
    steps: u64,
    window: WindowDigest,
    /// A push failed: nothing more is recorded.
    stopped: bool,
    lost_steps: Arc<AtomicU64>,
    finished: Arc<AtomicBool>,
    writer: Option<JoinHandle<WriteSummary>>,
    path: PathBuf,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("path", &self.path)
            .field("steps", &self.steps)
            .field("stopped", &self.stopped)
            .finish()
    }
}

/// How a finished recording went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteSummary {
    /// Steps in the file.
    pub steps: u64,
    /// Steps lost to a full ring.
    pub lost_steps: u64,
    /// Bytes written.
    pub bytes: u64,
    /// The first write error, if any (the file is then unusable).
    pub error: Option<String>,
}

impl Recorder {
    /// Creates `path` and starts the writer for a session described by `header`, with a ring
    /// of `capacity` events (set-up: allocates, opens the file).
    pub fn start(path: &Path, header: &Header, capacity: usize) -> Result<Recorder> {
        let file = File::create(path).with_context(|| {
            format!(
                "cannot create the recording file {} (fix: record to a writable directory, \
                 or correct [record] path / --record)",
                path.display()
            )
        })?;
        let (ring, consumer) = rtrb::RingBuffer::new(capacity.max(2));
        let lost_steps = Arc::new(AtomicU64::new(0));
        let finished = Arc::new(AtomicBool::new(false));
        let header_bytes = format::encode_header(header);
        let writer = {
            let (lost_steps, finished) = (lost_steps.clone(), finished.clone());
            std::thread::Builder::new()
                .name("rigd-recorder".into())
                .spawn(move || {
                    write_recording(
                        BufWriter::new(file),
                        &header_bytes,
                        consumer,
                        &finished,
                        &lost_steps,
                    )
                })
                .context("cannot start the recorder's writer thread")?
        };
        Ok(Recorder {
            ring,
            steps: 0,
            window: WindowDigest::new(),
            stopped: false,
            lost_steps,
            finished,
            writer: Some(writer),
            path: path.to_path_buf(),
        })
    }

    fn push(&mut self, event: Event) -> bool {
        if self.stopped || self.ring.push(event).is_err() {
            self.stopped = true;
            self.lost_steps.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Ends the recording: the writer drains the ring, writes the end record and closes the
    /// file; waits for it (off the RT thread, where the world is dropped).
    fn finish_writer(&mut self, writer: JoinHandle<WriteSummary>) -> WriteSummary {
        self.finished.store(true, Ordering::Release);
        writer.join().unwrap_or_else(|_| WriteSummary {
            steps: 0,
            lost_steps: 0,
            bytes: 0,
            error: Some("the writer thread panicked".into()),
        })
    }
}

impl StepObserver for Recorder {
    fn observe(&mut self, input: &PlayerInput, reset: bool, player: &CarTelemetry) {
        let step = StepInput {
            connected: input.connected,
            reset,
            controls: input.controls,
        };
        if !self.push(Event::Step(step)) {
            return;
        }
        self.steps += 1;
        self.window.add(physics_digest(player));
        if self.steps % CHECKPOINT_EVERY_STEPS == 0 {
            let digest = self.window.take();
            // A lost checkpoint stops the recording like a lost step: the step it covers is
            // the last one the file keeps.
            if !self.push(Event::Checkpoint {
                steps: self.steps,
                digest,
            }) {
                self.lost_steps.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let Some(writer) = self.writer.take() else {
            return;
        };
        let summary = self.finish_writer(writer);
        let path = self.path.display();
        if let Some(error) = &summary.error {
            tracing::error!(
                "recording {path} failed: {error} (fix: record to a disk with free space)"
            );
        } else if summary.lost_steps > 0 {
            tracing::warn!(
                "recording {path} is incomplete: {} steps recorded, then {} lost because the \
                 writer fell behind (fix: record to a faster disk or lighten the machine's I/O); \
                 rigd replay plays the recorded part",
                summary.steps,
                summary.lost_steps
            );
        } else {
            tracing::info!(
                "recording {path} written: {} steps, {} bytes",
                summary.steps,
                summary.bytes
            );
        }
    }
}

/// The writer thread: drains `ring` until `finished`, merging identical steps into runs,
/// then writes the end record.
fn write_recording(
    out: BufWriter<File>,
    header: &[u8],
    mut ring: rtrb::Consumer<Event>,
    finished: &AtomicBool,
    lost_steps: &AtomicU64,
) -> WriteSummary {
    let mut stream = RecordStream {
        checksum: FNV_OFFSET,
        bytes: 0,
        error: None,
        out,
    };
    stream.write(header);
    let mut run: Option<(u32, StepInput)> = None;
    let mut steps = 0u64;
    loop {
        // Read the flag before draining: everything pushed before it was set is then drained.
        let last = finished.load(Ordering::Acquire);
        while let Ok(event) = ring.pop() {
            match event {
                Event::Step(step) => {
                    steps += 1;
                    run = match run {
                        Some((count, same)) if count < u32::MAX && same.same_bits(&step) => {
                            Some((count + 1, same))
                        }
                        Some((count, other)) => {
                            stream.write(&format::encode_run(count, &other));
                            Some((1, step))
                        }
                        None => Some((1, step)),
                    };
                }
                Event::Checkpoint { steps: at, digest } => {
                    if let Some((count, step)) = run.take() {
                        stream.write(&format::encode_run(count, &step));
                    }
                    stream.write(&format::encode_checkpoint(at, digest));
                }
            }
        }
        if last {
            break;
        }
        std::thread::sleep(DRAIN_EVERY);
    }
    if let Some((count, step)) = run {
        stream.write(&format::encode_run(count, &step));
    }
    let lost = lost_steps.load(Ordering::Relaxed);
    stream.write(&format::encode_end(steps, lost, stream.checksum));
    let (bytes, error) = stream.close();
    WriteSummary {
        steps,
        lost_steps: lost,
        bytes,
        error,
    }
}

/// The file being written, the checksum and size so far; the first error stops writing.
struct RecordStream {
    checksum: u64,
    bytes: u64,
    error: Option<String>,
    out: BufWriter<File>,
}

impl RecordStream {
    fn write(&mut self, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        self.checksum = format::fnv1a(self.checksum, bytes);
        self.bytes += bytes.len() as u64;
        if let Err(e) = self.out.write_all(bytes) {
            self.error = Some(e.to_string());
        }
    }

    /// Flushes to the disk; the bytes written and the first error.
    fn close(mut self) -> (u64, Option<String>) {
        if self.error.is_none() {
            if let Err(e) = self
                .out
                .flush()
                .and_then(|()| self.out.get_ref().sync_all())
            {
                self.error = Some(e.to_string());
            }
        }
        (self.bytes, self.error)
    }
}

/// The header for recording a session of `config`: this build, the rate, the robots, and the
/// car and track texts read now (the recorded world is then built from these texts), the car's
/// with the text of any `.tir` tyre file it names embedded, so the file replays without them,
/// and the text of the `[sim] robot_line` file, so the replay's robots drive the same line.
pub fn header_for(config: &Config) -> Result<Header> {
    let sim = &config.sim;
    let car_text = data_text(&sim.car, "car", rig_physics::builtin::car_text)?;
    let robot_line_text = match &sim.robot_line {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the line file {path} to record it"))?,
        None => String::new(),
    };
    Ok(Header {
        rigd_version: super::build_id::VERSION.to_string(),
        build: super::build_id::FINGERPRINT.to_string(),
        rate_hz: config.realtime.rate_hz,
        robots: sim.robots,
        car_name: sim.car.clone(),
        car_toml: rig_physics::tyre::embed_property_files(&car_text, &sim.car)
            .with_context(|| format!("cannot record the car {}", sim.car))?,
        track_name: sim.track.clone(),
        track_toml: data_text(&sim.track, "track", rig_physics::track::builtin_text)?,
        robot_line_name: sim.robot_line.clone().unwrap_or_default(),
        robot_line_text,
    })
}

fn data_text(name: &str, kind: &str, builtin: fn(&str) -> Option<&'static str>) -> Result<String> {
    if SimConfig::is_path(name) {
        std::fs::read_to_string(name)
            .with_context(|| format!("cannot read the {kind} file {name} to record it"))
    } else {
        builtin(name).map(str::to_string).with_context(|| {
            format!("no built-in {kind} named `{name}` to record (fix: correct [sim] {kind})")
        })
    }
}

/// The recorded-world factory `rigd run` gets: records to `cli_path` (`--record`) or else to
/// `[record] path`, or nothing. The world it returns is built from the car and track texts
/// the recording holds (read once), so the file describes exactly what ran.
pub fn factory(cli_path: Option<PathBuf>) -> RecordedWorldFactory {
    RecordedWorldFactory(Arc::new(move |config: &Config| {
        let path = cli_path
            .clone()
            .or_else(|| config.record.path.as_ref().map(PathBuf::from));
        let Some(path) = path else { return Ok(None) };
        let header = header_for(config)?;
        let mut sim = super::player::world_from_header(&header)
            .map_err(|(what, e)| anyhow::anyhow!("cannot build the recorded {what}: {e}"))?;
        let capacity = (config.realtime.rate_hz * RING_SECONDS) as usize;
        let recorder = Recorder::start(&path, &header, capacity)?;
        sim.attach_observer(Box::new(recorder));
        tracing::info!("recording every physics step to {}", path.display());
        Ok(Some(sim))
    }))
}
