//! `rigd replay FILE`: re-runs a recording's physics without devices (no input threads, no
//! force feedback, no motion) from the recorded car, track, rate and per-step inputs, checks
//! every checkpoint's frame digest, and feeds each step's frame to the configured telemetry
//! outputs and the dashboard, at full speed or in real time.
//!
//! A file from a different build is replayed with a warning (the checkpoints then tell
//! whether the physics still agrees: that is how a fix is checked against a user's recording);
//! a damaged file is refused with exit code 2.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rig_config::sim::SimConfig;
use rig_physics::track::Track;
use rig_physics::{CarSpec, CarTelemetry};
use rig_protocols::Frame;

use super::build_id::{self, BuildMatch};
use super::digest::{physics_digest, WindowDigest};
use super::format::{self, FormatError, Header, Recording};
use crate::input::player_input::{PlayerInput, ShiftPresses};
use crate::logging::NoticeFeed;
use crate::rt::clock;
use crate::rt::stage::StopReason;
use crate::runtime::display::{self, StopRequest};
use crate::runtime::simulation::{robot_line_of_text, Simulation};
use crate::signals::{self, ControllingTerminal, Signal};
use crate::telemetry_out::TelemetryCounters;

/// How `rigd replay` was asked to run.
#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// The recording.
    pub file: PathBuf,
    /// Pace the steps at the recorded rate instead of as fast as possible.
    pub realtime: bool,
    /// Show the dashboard (the caller decides: stdout is a terminal).
    pub display: bool,
    /// The configuration whose telemetry outputs the frames go to (`None`: the defaults).
    pub config_path: Option<PathBuf>,
    /// The newest logged warning, shown by the display.
    pub notices: NoticeFeed,
}

/// A recording that cannot be replayed, or a replay that did not reproduce it.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file could not be read (exit 2).
    #[error(
        "recording {path} {} (fix: check the path and its permissions; `rigd run --record FILE` \
         writes one)",
        rig_toml::plain::io_words(.cause)
    )]
    Read {
        /// The file.
        path: String,
        /// Why (shown in the message, not chained, so it is said once).
        cause: std::io::Error,
    },
    /// The file is not an intact recording (exit 2).
    #[error("{path}: {problem} (fix: {})", fix_for(.problem))]
    Damaged {
        /// The file.
        path: String,
        /// What is wrong.
        problem: FormatError,
    },
    /// The recorded car, track or robot line does not load in this build (exit 2).
    #[error("{path}: the recorded {what} cannot be built by this rigd: {message} (fix: replay with the rigd build that recorded it, {build})")]
    Data {
        /// The file.
        path: String,
        /// `car`, `track` or `robot line`.
        what: &'static str,
        /// The data error.
        message: String,
        /// The recording's build.
        build: String,
    },
    /// The replay's frames differ from the recording's (exit 1).
    #[error("{path}: the replay diverged from the recording: the frames of steps {from_step}..={to_step} differ (checkpoint {checkpoint} of {checkpoints}){note} (fix: {fix})")]
    Diverged {
        /// The file.
        path: String,
        /// First step of the first window whose digest differs.
        from_step: u64,
        /// Its last step.
        to_step: u64,
        /// 1-based index of that checkpoint.
        checkpoint: usize,
        /// Checkpoints in the file.
        checkpoints: usize,
        /// Why it may differ (another build).
        note: String,
        /// What to do.
        fix: String,
    },
}

impl ReplayError {
    /// True for a file this build cannot use (exit 2, like a bad configuration).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, ReplayError::Diverged { .. })
    }
}

fn fix_for(problem: &FormatError) -> &'static str {
    match problem {
        FormatError::NotARecording => "give a file that `rigd run --record` wrote",
        FormatError::UnsupportedVersion { .. } => {
            "replay it with the rigd release that recorded it"
        }
        FormatError::Truncated => {
            "copy the whole file again from the machine that recorded it; a recording rigd \
             could not finish (killed, power lost) cannot be replayed"
        }
        FormatError::Checksum { .. } => {
            "copy the file again from the machine that recorded it, unmodified"
        }
        FormatError::Malformed { .. } => {
            "report it with the file: it passed its checksum, so the rigd that wrote it has a bug"
        }
    }
}

/// Reads and decodes the recording at `path`.
pub fn read(path: &Path) -> Result<Recording, ReplayError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|cause| ReplayError::Read {
        path: shown.clone(),
        cause,
    })?;
    format::decode(&bytes).map_err(|problem| ReplayError::Damaged {
        path: shown,
        problem,
    })
}

/// What a build comparison means for the user (`None`: the same build).
pub fn build_note(recording: &Recording) -> Option<String> {
    let h = &recording.header;
    match build_id::compare(&h.rigd_version, &h.build) {
        BuildMatch::Same => None,
        BuildMatch::Different => Some(format!(
            "recorded by rigd {} build {}, replayed by rigd {} build {}: the physics may differ",
            h.rigd_version,
            h.build,
            build_id::VERSION,
            build_id::FINGERPRINT
        )),
        BuildMatch::Unknown => Some(format!(
            "recorded by rigd {} build {}, replayed by rigd {} build {}: cannot tell whether \
             the builds are the same",
            h.rigd_version,
            h.build,
            build_id::VERSION,
            build_id::FINGERPRINT
        )),
    }
}

/// The world a recording was made in, built from its own car and track texts.
pub fn world_for(recording: &Recording, path: &str) -> Result<Simulation, ReplayError> {
    let h = &recording.header;
    world_from_header(h).map_err(|(what, e)| ReplayError::Data {
        path: path.to_string(),
        what,
        message: e,
        build: h.build.clone(),
    })
}

/// The world `header`'s car, track and line texts describe: what a replay steps, and what a
/// recorded run steps, so both run on exactly the texts the file holds (the robots drive the
/// embedded line when there is one, else plan their own). The error names which text
/// (`car`, `track` or `robot line`) did not load, and why.
pub fn world_from_header(h: &Header) -> Result<Simulation, (&'static str, String)> {
    let spec = CarSpec::from_toml(&h.car_toml, &h.car_name).map_err(|e| ("car", e.to_string()))?;
    let track =
        Track::from_toml(&h.track_toml, &h.track_name).map_err(|e| ("track", e.to_string()))?;
    let line = if h.robot_line_text.is_empty() {
        None
    } else {
        Some(
            robot_line_of_text(&h.robot_line_text, &h.robot_line_name, &track, &spec)
                .map_err(|e| ("robot line", e.to_string()))?,
        )
    };
    let sim = SimConfig {
        car: h.car_name.clone(),
        track: h.track_name.clone(),
        robots: h.robots,
        robot_line: line.as_ref().map(|_| h.robot_line_name.clone()),
    };
    Ok(Simulation::with_line(
        track,
        &spec,
        &sim,
        h.rate_hz,
        line.as_deref(),
    ))
}

/// The outcome of checking a replay against the recording's checkpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verification {
    /// Steps replayed.
    pub steps: u64,
    /// Checkpoints compared.
    pub checkpoints_checked: usize,
    /// The first checkpoint that differed: (its 1-based index, first step, last step).
    pub first_divergence: Option<(usize, u64, u64)>,
}

/// Replays every recorded step on `sim`, calling `on_step(step number from 1, player
/// telemetry)` after each; `on_step` returns false to stop early. Checks each checkpoint.
pub fn replay_steps(
    recording: &Recording,
    sim: &mut Simulation,
    mut on_step: impl FnMut(u64, &CarTelemetry) -> bool,
) -> Verification {
    let mut window = WindowDigest::new();
    let mut checkpoints = recording.checkpoints.iter().enumerate().peekable();
    let mut verification = Verification {
        steps: 0,
        checkpoints_checked: 0,
        first_divergence: None,
    };
    let mut window_start = 1;
    for (count, step) in &recording.runs {
        let input = PlayerInput {
            connected: step.connected,
            controls: step.controls,
            reset_requested: false,
            pause_requested: false,
            estop: false,
            shift_presses: ShiftPresses::default(),
            auto_clutch: false,
        };
        for _ in 0..*count {
            if step.reset {
                sim.reset_player();
            }
            sim.step(&input);
            verification.steps += 1;
            let car = sim.player_telemetry();
            window.add(physics_digest(&car));
            let done = verification.steps;
            if let Some((index, (_, digest))) = checkpoints.next_if(|(_, (at, _))| *at == done) {
                verification.checkpoints_checked += 1;
                if window.take() != *digest && verification.first_divergence.is_none() {
                    verification.first_divergence = Some((index + 1, window_start, done));
                }
                window_start = done + 1;
            }
            if !on_step(done, &car) {
                return verification;
            }
        }
    }
    verification
}

/// How a finished replay went.
#[derive(Debug, Clone)]
pub struct ReplaySummary {
    /// The check against the checkpoints.
    pub verification: Verification,
    /// Steps in the file.
    pub recorded_steps: u64,
    /// The recording's rate.
    pub rate_hz: u32,
    /// Wall time the replay took.
    pub elapsed: Duration,
    /// Stopped early by a signal or the dashboard's `q`.
    pub interrupted: bool,
}

/// Runs `rigd replay`: prints the outcome on stdout, returns an error for an unusable file
/// or a divergence.
pub fn run(options: &ReplayOptions) -> anyhow::Result<()> {
    let path = options.file.display().to_string();
    let recording = read(&options.file)?;
    let note = build_note(&recording);
    if let Some(note) = &note {
        tracing::warn!("{path}: {note}");
    }
    if recording.lost_steps > 0 {
        tracing::warn!(
            "{path}: the recording is incomplete: {} steps were lost while recording; \
             replaying the {} recorded",
            recording.lost_steps,
            recording.steps
        );
    }
    let config = crate::runtime::config_load::load_config(options.config_path.as_deref())?;
    let mut sim = world_for(&recording, &path)?;
    let counters = TelemetryCounters::default();
    let mut stages = crate::telemetry_out::stages(&config, &counters)?;
    let (mut frames, frames_reader) = crate::rt::handoff::latest_value(Frame::default());
    let stop_request = StopRequest::default();
    let display = if options.display {
        let prepared = display::prepare(&config.telemetry);
        Some(display::start(
            prepared,
            frames_reader,
            stop_request.clone(),
            options.notices.clone(),
        )?)
    } else {
        drop(frames_reader);
        None
    };
    if let Some(display) = &display {
        display.show_racing_line(sim.racing_line_m());
    }
    let terminal = ControllingTerminal::open();
    let period_ns = 1_000_000_000 / u64::from(recording.header.rate_hz);
    let start = Instant::now();
    let start_ns = clock::now_ns();
    let mut interrupted = false;
    let verification = replay_steps(&recording, &mut sim, |step, car| {
        let frame = Frame {
            sequence: step as u32,
            car: *car,
            ..Frame::default()
        };
        for stage in &mut stages {
            stage.on_tick(&frame);
        }
        for stage in &mut stages {
            stage.end_of_tick();
        }
        frames.write(frame);
        let wait = if options.realtime {
            let now = clock::now_ns();
            Duration::from_nanos((start_ns + step * period_ns).saturating_sub(now))
        } else if step % 1000 == 0 {
            Duration::ZERO
        } else {
            return true;
        };
        let signalled = matches!(
            signals::wait(wait, &terminal),
            Some(Signal::Stop | Signal::TerminalClosed)
        );
        interrupted = signalled || stop_request.requested().is_some();
        !interrupted
    });
    for stage in &mut stages {
        stage.safe_stop(StopReason::Exit);
    }
    let summary = ReplaySummary {
        verification,
        recorded_steps: recording.steps,
        rate_hz: recording.header.rate_hz,
        elapsed: start.elapsed(),
        interrupted,
    };
    let outcome = outcome(&summary, &path, note.as_deref());
    if let Some(display) = display {
        if !interrupted {
            display.show(
                Some(format!(
                    "replay finished (press q to quit): {}",
                    headline(&summary)
                )),
                Vec::new(),
                None,
            );
            while stop_request.requested().is_none()
                && !matches!(
                    signals::wait(Duration::from_millis(100), &terminal),
                    Some(Signal::Stop | Signal::TerminalClosed)
                )
            {}
        }
        drop(display);
    }
    println!("{}", headline(&summary));
    outcome.map_err(Into::into)
}

fn headline(summary: &ReplaySummary) -> String {
    let v = &summary.verification;
    let verdict = match (v.first_divergence, v.checkpoints_checked) {
        (Some(_), _) => "the frames DIFFER from the recording".to_string(),
        (None, 0) => "no checkpoint to verify against (fewer steps than one checkpoint)".into(),
        (None, n) => format!("every frame matches the recording ({n} checkpoints verified)"),
    };
    format!(
        "replayed {} of {} steps ({:.3} s at {} Hz) in {:.3} s{}: {verdict}",
        v.steps,
        summary.recorded_steps,
        v.steps as f64 / f64::from(summary.rate_hz),
        summary.rate_hz,
        summary.elapsed.as_secs_f64(),
        if summary.interrupted {
            " (interrupted)"
        } else {
            ""
        },
    )
}

fn outcome(summary: &ReplaySummary, path: &str, note: Option<&str>) -> Result<(), ReplayError> {
    let Some((checkpoint, from_step, to_step)) = summary.verification.first_divergence else {
        return Ok(());
    };
    let (note, fix) = match note {
        Some(note) => (
            format!("; {note}"),
            "replay with the build that recorded it to reproduce the session; with this build, \
             the divergence is what changed"
                .to_string(),
        ),
        None => (
            String::new(),
            "the same build replayed different physics: report it with this file".to_string(),
        ),
    };
    Err(ReplayError::Diverged {
        path: path.to_string(),
        from_step,
        to_step,
        checkpoint,
        checkpoints: summary.verification.checkpoints_checked,
        note,
        fix,
    })
}
