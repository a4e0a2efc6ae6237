//! `rigd run`: starts everything around the RT thread, then turns signals into safe stops and
//! reloads.
//!
//! Start: config -> memory lock and PM QoS -> input threads, output stages, world -> RT thread
//! (pinned, SCHED_FIFO) -> once it ticks: `READY=1`, watchdog, display. The main thread then
//! waits for signals and, once a second, reports health (reading a latest-value slot and the
//! telemetry sender's atomic counters, never touching the RT thread): `STATUS=` with the loop
//! figures (or that it idles), who drives ([`super::who_drives`]), why the force feedback is
//! held (if it is) and every telemetry destination's counters; each FFB hold logged once
//! ([`crate::ffb::hold_log`]), the loop-health line (debug, at info every 10 s and on a change
//! of state: [`super::health_log`]), missing and hot-plugged devices and driver changes, the
//! per-destination counters in the log when a set of destinations starts, and the counters,
//! driver and newest warning on the dashboard. SIGTERM/SIGINT: the loop safe-stops
//! every stage (`Exit`) within one tick and hands everything back; it is dropped here and the
//! process exits. A closed terminal (the hang-up's SIGHUP, or the display seeing it) and the
//! dashboard's `q` do the same. Every wait on the way out is bounded (RT thread
//! [`super::rt_thread::STOP_TIMEOUT`], display [`display::DISPLAY_STOP_TIMEOUT`], watchdog one
//! check period). SIGHUP from an operator: a valid new file safe-stops the stages (`Reload`),
//! rebuilds them (the world too when `[sim]` or the rate changed) and restarts the loop; an
//! invalid one is logged and the running configuration stays; a valid one that cannot start
//! here (an address or device that is not there) is logged and the previous configuration is
//! started again on the same world. A changed `[loop] core` is applied in between,
//! while no RT thread runs: every existing thread moves off the new core (see
//! `apply_process_changes`).
//!
//! With `[source] kind = "game"` each session also starts the game bridge's receiver
//! ([`crate::game_source`]; its sockets are closed when the session stops, so a reload binds
//! them again) and hands its RT end to the loop; the health thread then puts the source's
//! stream, packet rate and age in `STATUS=` and the health line, logs each change of its
//! condition once (why motion is held), and the game takes the driver's place.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rig_config::realtime::{LoopConfig, WhenNobodyDrives};
use rig_config::Config;
use rig_protocols::Frame;

use super::display::{self, Display, StopCause, StopRequest};
use super::health_log::HealthLog;
use super::planted_panic::{self, PanicPlan};
use super::rt_loop::{Command, FrameSlots, LoopMode, LoopParts, LoopShared, LoopTiming};
use super::rt_thread::RtThread;
use super::session_links::SessionLinks;
use super::simulation::{QuarantineLog, Simulation};
use super::stages::build_output_stages;
use super::systemd::{Notifier, Watchdog};
use super::who_drives::DriverLog;
use crate::ffb::hold_log::HoldLog;
use crate::ffb::FfbLink;
use crate::game_source::{self, GameReceiver, SourceFeed, SourceStatus};
use crate::input::{self, PlayerInputs};
use crate::logging::NoticeFeed;
use crate::motion::hold::MotionHolds;
use crate::motion::panic_park::PanicPark;
use crate::rt::clock;
use crate::rt::handoff::LatestReader;
use crate::rt::setup::{self, NotGranted, PmQosGuard};
use crate::signals::{self, ControllingTerminal, Signal};
use crate::telemetry_out::{self, report::ReportLog, TelemetryCounters, TelemetrySnapshot};

/// How `rigd run` was asked to run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// The configuration file (`None`: the embedded defaults).
    pub config_path: Option<PathBuf>,
    /// Show the live display (the caller decides: stdout is a terminal).
    pub display: bool,
    /// Test hook: the RT thread stops ticking this long after start.
    pub stall_after: Option<Duration>,
    /// Test hook: an output stage panics while running ([`super::planted_panic`]).
    pub panic_stage: Option<PanicPlan>,
    /// The newest logged warning, shown by the display.
    pub notices: NoticeFeed,
    /// Builds the first world with a step observer (the session recorder) attached; a reload
    /// that builds a new world leaves the new one unobserved.
    pub recorded_world: Option<RecordedWorldFactory>,
    /// `rigd run --robot`: the robot drives while no device does, whatever
    /// `[loop] when_nobody_drives` says (also after a reload).
    pub robot: bool,
}

/// What builds a session's first world with its recorder attached, for a configuration
/// (`Ok(None)`: nothing to record, the session builds its world as usual). Given by the CLI,
/// so the runtime does not depend on the recorder.
#[derive(Clone)]
#[allow(clippy::type_complexity)]
pub struct RecordedWorldFactory(
    pub Arc<dyn Fn(&Config) -> Result<Option<Simulation>> + Send + Sync>,
);

impl std::fmt::Debug for RecordedWorldFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RecordedWorldFactory")
    }
}

/// A failure of `rigd run`, split by exit code.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The configuration is unusable (exit 2). Transparent: its problems are said once.
    #[error(transparent)]
    Config(#[from] rig_config::ConfigError),
    /// Anything else (exit 1).
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// Slots the RT thread publishes into: [0] health/status (main thread), [1] display.
/// How long a stopping session waits for each output writer to leave its device safe (FFB
/// zero, stop and clean-up) before the stages are dropped and the process may exit.
const WRITER_STOP_WAIT: Duration = Duration::from_millis(100);
const STATUS_SLOT: usize = 0;
const SLOT_COUNT: usize = 2;

/// What a run keeps across its sessions: the loop's atomics, the telemetry counters (a
/// reload's sender continues them) and the motion writers' park-on-panic state.
struct RunShared {
    shared: Arc<LoopShared>,
    telemetry: Arc<TelemetryCounters>,
    panic_park: Arc<PanicPark>,
    /// The input's parts that outlive a session (the gilrs context).
    input_keep: input::InputKeep,
}

/// What runs around one RT thread (rebuilt on reload).
struct Session {
    config: Config,
    /// The session's FFB link (the health thread reports its holds).
    ffb: Arc<FfbLink>,
    /// The session's motion platforms' holds (the health thread reports them).
    motion: Arc<MotionHolds>,
    rt: RtThread,
    inputs: PlayerInputs,
    /// The game bridge's receiver and counters (`[source] kind = "game"`).
    game: Option<(GameReceiver, Arc<SourceFeed>)>,
    /// The robots' found line (`[sim] robot_line`) as world points, for the dashboard's map.
    racing_line_m: Option<Arc<[[f64; 2]]>>,
}

/// A session that could not start, with what it was given back so that another configuration
/// can start on them (the world keeps its cars where they are; the slots keep their readers).
/// `slots` is `None` only when the RT thread itself could not be spawned and took them along.
struct StartFailure {
    error: anyhow::Error,
    sim: Option<Simulation>,
    slots: Option<FrameSlots>,
}

/// Builds the parts for `config` (reusing `previous_sim` when `[sim]` and the rate are
/// unchanged) and starts the RT thread. The fallible set-up (devices, outputs, a new world)
/// runs before anything is consumed, so a failure hands `previous_sim` and `slots` back.
fn start_session(
    config: Config,
    previous_sim: Option<Simulation>,
    slots: FrameSlots,
    run: &RunShared,
    stall_after: Option<Duration>,
    panic_stage: Option<&PanicPlan>,
) -> Result<(Session, Vec<NotGranted>), Box<StartFailure>> {
    let shared = &run.shared;
    let links = SessionLinks::new(run.telemetry.clone(), run.panic_park.clone());
    let fail = |error: anyhow::Error, sim: Option<Simulation>, slots: FrameSlots| {
        Box::new(StartFailure {
            error,
            sim,
            slots: Some(slots),
        })
    };
    let (inputs, input_reader) =
        match input::start(&config, &links.ffb, &links.rumble, &run.input_keep) {
            Ok(started) => started,
            Err(e) => {
                return Err(fail(
                    e.context("cannot start the input devices"),
                    previous_sim,
                    slots,
                ))
            }
        };
    let planted = |stages| match panic_stage {
        Some(plan) => planted_panic::plant(stages, plan, config.realtime.rate_hz),
        None => Ok(stages),
    };
    let stages = match build_output_stages(&config, &links).and_then(planted) {
        Ok(stages) => stages,
        Err(e) => {
            return Err(fail(
                e.context("cannot start the outputs"),
                previous_sim,
                slots,
            ))
        }
    };
    let game = if config.source.is_game() {
        match game_source::start(&config.source, config.realtime.period_ns()) {
            Ok(started) => Some(started),
            Err(e) => {
                return Err(fail(
                    e.context("cannot start the game telemetry source"),
                    previous_sim,
                    slots,
                ))
            }
        }
    } else {
        None
    };
    let (game_source, game) = match game {
        Some(started) => (Some(started.source), Some((started.receiver, started.feed))),
        None => (None, None),
    };
    let sim = match previous_sim {
        Some(sim) if sim.built_from(&config.sim, config.realtime.rate_hz) => sim,
        previous => match Simulation::build(&config.sim, config.realtime.rate_hz) {
            Ok(sim) => sim,
            Err(e) => return Err(fail(e.into(), previous, slots)),
        },
    };
    let ffb = links.ffb.clone();
    let motion = links.motion.clone();
    let racing_line_m = sim.racing_line_m();
    let parts = LoopParts {
        sim,
        stages,
        input: input_reader,
        slots,
        ffb: links.ffb,
        game: game_source,
    };
    let mut timing = LoopTiming::from_config(&config.realtime);
    timing.stall_after_ns = stall_after.map(|d| d.as_nanos() as u64);
    shared.request(Command::Run);
    // A thread that cannot be spawned takes the parts with it: nothing is left to fall back on.
    let (rt, refused) =
        RtThread::start(parts, timing, shared.clone(), &config.realtime).map_err(|error| {
            Box::new(StartFailure {
                error,
                sim: None,
                slots: None,
            })
        })?;
    Ok((
        Session {
            config,
            ffb,
            motion,
            rt,
            inputs,
            game,
            racing_line_m,
        },
        refused,
    ))
}

/// Stops the session's loop with `command` and hands back its world and slots (stages and
/// input threads are dropped here, after their safe stop).
fn stop_session(
    session: Session,
    shared: &LoopShared,
    command: Command,
) -> Result<(Simulation, FrameSlots, bool)> {
    session.ffb.begin_stopping();
    shared.request(command);
    let exit = session.rt.join()?;
    let LoopParts {
        sim,
        mut stages,
        slots,
        ..
    } = exit.parts;
    for stage in &mut stages {
        stage.wait_stopped(WRITER_STOP_WAIT);
    }
    drop(stages);
    drop(session.inputs);
    // Closes the game's sockets (a reload binds them again).
    drop(session.game);
    Ok((sim, slots, exit.panicked))
}

/// The CPU level this binary was built for (scripts/cpu-level.sh): `x86-64-v3` (AVX2, as
/// scripts/run-demo.sh builds on such a CPU) or the portable `x86-64`; the physics gives the
/// same bits either way, the step is faster on the first.
fn built_for_cpu() -> &'static str {
    if cfg!(all(
        target_arch = "x86_64",
        target_feature = "avx2",
        target_feature = "fma",
        target_feature = "bmi2"
    )) {
        "x86-64-v3"
    } else if cfg!(target_arch = "x86_64") {
        "x86-64"
    } else {
        std::env::consts::ARCH
    }
}

fn wait_for_ticks(shared: &LoopShared, ticks: u64, timeout: Duration) -> bool {
    let start = Instant::now();
    let first = shared.heartbeat.load(std::sync::atomic::Ordering::Relaxed);
    while start.elapsed() < timeout {
        if shared.heartbeat.load(std::sync::atomic::Ordering::Relaxed) >= first + ticks {
            return true;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    false
}

/// The configuration at `path` (the embedded defaults without one), with `rigd run --robot`
/// applied when `robot`.
fn load_config(path: Option<&Path>, robot: bool) -> Result<Config, rig_config::ConfigError> {
    let mut config = super::config_load::load_config(path)?;
    if robot {
        config.realtime.when_nobody_drives = WhenNobodyDrives::Robot;
    }
    Ok(config)
}

/// The loop part of `STATUS=` and the health line: the loop's figures, or that it idles
/// (with the wake-ups it made per second, `wakes_per_s`, and its physics steps since start).
fn status_text(frame: &Frame, mode: LoopMode, wakes_per_s: f64) -> String {
    if mode == LoopMode::Idle {
        return format!(
            "idle: nobody drives, {wakes_per_s:.0} wake-ups/s, no physics ({} steps since \
             start)",
            frame.health.ticks
        );
    }
    let h = &frame.health;
    if !super::health::first_window_closed(h) {
        return format!(
            "loop started, {} ticks, first one-second measurement still running",
            h.ticks
        );
    }
    let paused = if mode == LoopMode::Paused {
        "paused (no physics), "
    } else {
        ""
    };
    format!(
        "{paused}{:.0} Hz, wake p99 {:.0} us, max {:.0} us, tick work p99 {:.0} us, physics step p99 {:.0} us, late >1 ms {}, dropped {:.0} ms",
        h.tick_rate_hz, h.wake_latency_p99_us, h.wake_latency_max_us, h.tick_work_p99_us, h.physics_step_p99_us, h.late_ticks_1ms, h.dropped_time_ms
    )
}

/// The telemetry part of `STATUS=` (empty without destinations).
fn telemetry_status(telemetry: &TelemetrySnapshot) -> String {
    if telemetry.destinations.is_empty() {
        String::new()
    } else {
        format!(
            " | telemetry: {}",
            telemetry_out::report::status_text(telemetry)
        )
    }
}

/// Logs the per-destination counters when [`ReportLog`] says they are due (a new set of
/// destinations; their errors are the sender's to log).
fn report_telemetry(log: &mut ReportLog, telemetry: &TelemetrySnapshot) {
    if let Some(lines) = log.due(telemetry) {
        if !lines.is_empty() {
            tracing::info!("telemetry counters: {}", lines.join("; "));
        }
    }
}

/// Says why rigd stops when its terminal went away (once, whichever path saw it first).
fn log_terminal_closed() {
    tracing::warn!(
        "the terminal running rigd closed: stopping safely (run rigd as the systemd service, \
         or under nohup, to keep it running without a terminal)"
    );
}

/// Runs the daemon until SIGTERM/SIGINT, its terminal closing, or a stop request from the
/// display.
pub fn run(options: RunOptions) -> Result<(), RunError> {
    let terminal = ControllingTerminal::open();
    let config = load_config(options.config_path.as_deref(), options.robot)?;
    let origin = options.config_path.as_ref().map_or_else(
        || rig_config::EMBEDDED_ORIGIN.to_string(),
        |p| p.display().to_string(),
    );

    let setup::ProcessSetup {
        core,
        mut pm_qos,
        mut refused,
    } = setup::ProcessSetup::prepare(&config.realtime);

    let run = RunShared {
        shared: Arc::new(LoopShared::default()),
        telemetry: Arc::default(),
        panic_park: PanicPark::new(),
        input_keep: input::InputKeep::default(),
    };
    let shared = &run.shared;
    let (slots, mut readers) = FrameSlots::new(SLOT_COUNT);
    let display_reader = readers.pop().context("display slot")?;
    let mut status_reader: LatestReader<Frame> = readers.swap_remove(STATUS_SLOT);

    let stall_timeout = Duration::from_millis(u64::from(config.realtime.stall_timeout_ms));
    let prepared_display = options.display.then(|| display::prepare(&config.telemetry));
    let first_sim = match &options.recorded_world {
        Some(factory) => (factory.0)(&config)?,
        None => None,
    };
    let (mut session, rt_refused) = start_session(
        config,
        first_sim,
        slots,
        &run,
        options.stall_after,
        options.panic_stage.as_ref(),
    )
    .map_err(|failure| failure.error)?;
    refused.extend(rt_refused);
    if let Some(warning) = setup::warning(&refused) {
        tracing::warn!("{warning}");
    }

    let notifier = Arc::new(Notifier::from_env());
    if !wait_for_ticks(shared, 10, Duration::from_secs(2)) {
        tracing::warn!(
            "the physics loop has not ticked within 2 s of starting; readiness is not reported"
        );
    } else {
        notifier.send("READY=1\nSTATUS=running");
    }
    let source = &session.config.source;
    if source.is_game() {
        tracing::info!(
            "rigd running: frames from game telemetry (format {}, listening on {}), {} Hz on \
             core {core}, config {origin}, built for {}",
            source.format.config_name(),
            source.listen.join(", "),
            session.config.realtime.rate_hz,
            built_for_cpu()
        );
    } else {
        tracing::info!(
            "rigd running: {} on {}, {} robot car(s), {} Hz on core {core}, config {origin}, \
             built for {}",
            session.config.sim.car,
            session.config.sim.track,
            session.config.sim.robots,
            session.config.realtime.rate_hz,
            built_for_cpu()
        );
    }
    let _watchdog = Watchdog::start(
        shared.clone(),
        notifier.clone(),
        stall_timeout,
        session.config.realtime.period_ns(),
    )
    .context("cannot start the watchdog thread")?;
    let stop_request = StopRequest::default();
    let display: Option<Display> = match prepared_display {
        Some(prepared) => Some(
            display::start(
                prepared,
                display_reader,
                stop_request.clone(),
                options.notices.clone(),
            )
            .context("cannot start the display")?,
        ),
        None => {
            drop(display_reader);
            None
        }
    };

    let mut last_report = Instant::now();
    let mut last_heartbeat = shared.heartbeat.load(std::sync::atomic::Ordering::Relaxed);
    let mut panicked = false;
    let mut telemetry_log = ReportLog::new();
    let mut quarantine_log = QuarantineLog::default();
    let mut hold_log = HoldLog::default();
    let mut driver_log = DriverLog::new(&session.config);
    let mut health_log: HealthLog<(bool, LoopMode)> = HealthLog::default();
    let mut source_status = session.source_status();
    loop {
        if let Some(cause) = stop_request.requested() {
            if cause == StopCause::TerminalClosed {
                log_terminal_closed();
            }
            break;
        }
        // Wake about every 50 ms, half a tick away from the loop's deadlines (see
        // `between_ticks_ns`).
        let now = clock::now_ns();
        let wake_at =
            clock::between_ticks_ns(now + 50_000_000, session.config.realtime.period_ns());
        match signals::wait(Duration::from_nanos(wake_at - now), &terminal) {
            Some(Signal::Stop) => break,
            Some(Signal::TerminalClosed) => {
                log_terminal_closed();
                break;
            }
            Some(Signal::Reload) => {
                session = reload(
                    session,
                    options.config_path.as_deref(),
                    options.robot,
                    &run,
                    &notifier,
                    &mut pm_qos,
                )?;
                // A new session has a new FFB link: its holds are counted from zero; and new
                // input threads, whose devices are reported afresh.
                hold_log = HoldLog::default();
                driver_log = DriverLog::new(&session.config);
                source_status = session.source_status();
                // The next report a full second after the new loop started, when its first
                // one-second health window has closed (not "loop started" again).
                last_report = Instant::now();
            }
            None => {}
        }
        if last_report.elapsed() >= Duration::from_secs(1) {
            let since_report = last_report.elapsed().as_secs_f64();
            last_report = Instant::now();
            let heartbeat = shared.heartbeat.load(std::sync::atomic::Ordering::Relaxed);
            let stalled = heartbeat == last_heartbeat;
            let mode = shared.mode();
            let status = if stalled {
                "physics loop stalled: no tick in the last second".to_string()
            } else {
                let wakes = heartbeat.saturating_sub(last_heartbeat) as f64;
                status_text(&status_reader.read(), mode, wakes / since_report.max(1e-3))
            };
            last_heartbeat = heartbeat;
            // The motion platforms' states and hold counters ride on the health line too.
            let status = format!("{status}{}", session.motion.status());
            let (status, source_text, source_lines) = match &mut source_status {
                Some(source) => {
                    let (text, lines) = source.report(clock::now_ns());
                    (format!("{status} | {text}"), Some(text), lines)
                }
                None => (status, None, Vec::new()),
            };
            for (warning, line) in source_lines {
                if warning {
                    tracing::warn!("{line}");
                } else {
                    tracing::info!("{line}");
                }
            }
            if health_log.at_info(Instant::now(), (stalled, mode)) {
                tracing::info!("loop health: {status}");
            } else {
                tracing::debug!("loop health: {status}");
            }
            if let Some(line) = quarantine_log.new_line(&shared.quarantine) {
                tracing::warn!("{line}");
            }
            if let Some(line) = hold_log.next_line(&session.ffb) {
                if line.warning {
                    tracing::warn!("{}", line.text);
                } else {
                    tracing::info!("{}", line.text);
                }
            }
            for line in session.motion.lines() {
                if line.warning {
                    tracing::warn!("{}", line.text);
                } else {
                    tracing::info!("{}", line.text);
                }
            }
            // After the FFB holds: a missing wheel's warning is the newest one the dashboard
            // shows, not the "no device" hold it causes.
            let presence = session.inputs.presence();
            let driver = if let Some(source) = &source_text {
                // The game drives the car (the input devices are there for the e-stop only):
                // the dashboard's title says which game, its rate and age.
                format!("game: {}", source.trim_start_matches("source: "))
            } else {
                for line in driver_log.lines(&presence, mode) {
                    if line.warning {
                        tracing::warn!("{}", line.text);
                    } else {
                        tracing::info!("{}", line.text);
                    }
                }
                driver_log.driver(&presence).text()
            };
            let telemetry = run.telemetry.snapshot().unwrap_or_default();
            // With a game source `status` already says it (`| source: ...`): no driver part.
            let driver_part = if source_text.is_some() {
                String::new()
            } else {
                format!(" | driver: {driver}")
            };
            notifier.send(&format!(
                "STATUS={status}{driver_part}{}{}{}",
                HoldLog::status(&session.ffb),
                QuarantineLog::status(&shared.quarantine),
                telemetry_status(&telemetry)
            ));
            report_telemetry(&mut telemetry_log, &telemetry);
            if let Some(display) = &display {
                let mut lines = session.motion.status_lines();
                lines.extend(telemetry_out::report::destination_lines(&telemetry));
                display.show(options.notices.latest(), lines, Some(driver));
                display.show_racing_line(session.racing_line_m.clone());
            }
        }
        if session.rt_finished() {
            panicked = true;
            break;
        }
    }

    notifier.send("STOPPING=1");
    let (_, _, loop_panicked) = stop_session(session, shared, Command::Exit)?;
    drop(display);
    if panicked || loop_panicked {
        return Err(RunError::Other(anyhow::anyhow!(
            "the physics loop panicked; every output was safe-stopped (fault); see the log above"
        )));
    }
    tracing::info!("stopped: every output is in its safe state");
    Ok(())
}

impl Session {
    fn rt_finished(&self) -> bool {
        self.rt.is_finished()
    }

    /// The health thread's view of this session's game source, if it has one.
    fn source_status(&self) -> Option<SourceStatus> {
        self.game
            .as_ref()
            .map(|(_, feed)| SourceStatus::new(feed.clone()))
    }
}

/// The process-wide part of a `[loop]` change, applied while no RT thread runs (the new one
/// is then pinned, promoted and pre-faulted by its own start): a new core moves every existing
/// thread off it (display, watchdog, dashboard receivers; threads started later inherit it
/// from the main thread) and moves the PM QoS request; memory locking follows `lock_memory`.
fn apply_process_changes(old: &LoopConfig, new: &LoopConfig, pm_qos: &mut PmQosGuard) {
    let (old_core, new_core) = (setup::rt_core(old), setup::rt_core(new));
    let mut refused = Vec::new();
    if new_core != old_core {
        match setup::keep_process_off_core(new_core) {
            Ok(()) => tracing::info!(
                "reload: the physics loop moves from core {old_core} to core {new_core}; \
                 every other thread now stays off core {new_core}"
            ),
            Err(e) => refused.push(e),
        }
    }
    if new.pm_qos != old.pm_qos
        || new.pm_qos_latency_us != old.pm_qos_latency_us
        || new_core != old_core
    {
        // Release the old request before making the new one (the same file for `rt-core`).
        *pm_qos = PmQosGuard::None;
        *pm_qos =
            PmQosGuard::request(new.pm_qos, new.pm_qos_latency_us, new_core).unwrap_or_else(|e| {
                refused.push(e);
                PmQosGuard::None
            });
    }
    if new.lock_memory && !old.lock_memory {
        if let Err(e) = setup::lock_memory() {
            refused.push(e);
        }
    } else if old.lock_memory && !new.lock_memory {
        setup::unlock_memory();
    }
    if let Some(warning) = setup::warning(&refused) {
        tracing::warn!("reload: {warning}");
    }
}

fn reload(
    session: Session,
    path: Option<&Path>,
    robot: bool,
    run: &RunShared,
    notifier: &Notifier,
    pm_qos: &mut PmQosGuard,
) -> Result<Session> {
    let new_config = match load_config(path, robot) {
        Ok(config) => config,
        Err(err) => {
            for problem in err.problems() {
                tracing::error!("reload rejected: {problem}");
            }
            tracing::warn!("reload rejected: keeping the running configuration; fix the file and send SIGHUP again");
            return Ok(session);
        }
    };
    notifier.send("RELOADING=1");
    let old_config = session.config.clone();
    let new_loop = new_config.realtime.clone();
    let (sim, slots, _) = stop_session(session, &run.shared, Command::Reload)?;
    apply_process_changes(&old_config.realtime, &new_loop, pm_qos);
    let mut status = "STATUS=reloaded";
    let (session, refused) = match start_session(new_config, Some(sim), slots, run, None, None) {
        Ok(started) => {
            tracing::info!("configuration reloaded");
            started
        }
        Err(failure) => {
            // The new file is valid but cannot run here (a device or address that is not
            // there): go back to the configuration that was running a moment ago.
            tracing::error!("reload failed: {:#}", failure.error);
            let Some(slots) = failure.slots else {
                return Err(failure.error);
            };
            apply_process_changes(&new_loop, &old_config.realtime, pm_qos);
            let restarted = start_session(old_config, failure.sim, slots, run, None, None)
                .map_err(|again| {
                    again.error.context(
                        "the previous configuration could not be restarted either after a \
                             failed reload",
                    )
                })?;
            tracing::warn!(
                "reload failed: running the previous configuration again; fix the file and \
                 send SIGHUP again"
            );
            status = "STATUS=reload failed, running the previous configuration";
            restarted
        }
    };
    if let Some(warning) = setup::warning(&refused) {
        tracing::warn!("{warning}");
    }
    notifier.send(&format!("READY=1\n{status}"));
    Ok(session)
}
