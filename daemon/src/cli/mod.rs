//! The `rigd` command line (clap derive; doc comments are the help text), its subcommands
//! ([`dispatch`] runs the parsed one: `run` through [`crate::runtime::service`], the others
//! in [`check`], [`maneuver`], [`envelope`], [`lapsim`], [`line`], [`bench`], [`devices_watch`],
//! [`motion_test`] and [`calibrate`] (which writes through [`calibrate_config`])) and the one
//! place errors become exit codes: 0 ok, 2 for anything the user must fix before rigd can act
//! (a bad configuration, an unusable recording, an unusable envelope file or car to measure,
//! a [`BadInvocation`]; clap's own usage errors exit 2 as well), 1 anything else.
//! The outermost layer: nothing else in the crate imports it.

pub mod bench;
pub mod calibrate;
pub mod calibrate_config;
pub mod check;
pub mod devices_watch;
pub mod dispatch;
pub mod envelope;
pub mod lapsim;
pub mod line;
pub mod maneuver;
pub mod motion_test;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueHint};

/// rigd: real-time sim-racing rig daemon (1000 Hz physics on a pinned core, wheel and pedal
/// input, force feedback, motion platforms, UDP telemetry).
#[derive(Debug, Parser)]
#[command(name = "rigd", version)]
pub struct Cli {
    /// Configuration file (TOML). Without it rigd runs on the embedded defaults (see
    /// examples/rigd.toml for every key).
    #[arg(short = 'c', long, global = true, value_hint = ValueHint::FilePath)]
    pub config: Option<PathBuf>,
    /// What to do (default: run).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the daemon (the default): physics loop, devices, outputs, until SIGTERM/Ctrl-C or
    /// until the terminal it runs in closes. SIGHUP reloads the configuration.
    Run(RunArgs),
    /// Check a configuration file and report every problem (file:line:column: field:
    /// message, and the fix). Exit 0 when valid, 2 when not.
    CheckConfig {
        /// The file to check (default: the --config file).
        #[arg(value_hint = ValueHint::FilePath)]
        file: Option<PathBuf>,
        /// Print the configuration's JSON schema instead (for editors).
        #[arg(long)]
        schema: bool,
    },
    /// Print the configuration's JSON schema (for editor completion and checks).
    Schema,
    /// List input devices (wheels, pedals, shifters) with their ids, axes and force feedback;
    /// with --watch, show every axis and button live, raw and as the config maps it.
    Devices(DevicesArgs),
    /// Calibrate the wheel and pedals step by step (turn lock to lock, press each pedal) and
    /// write the [devices] mapping into the --config file, keeping its comments. Answers are
    /// lines on stdin (Enter: done, s: skip), so a script can drive it.
    Calibrate(CalibrateArgs),
    /// Replay a recording (`rigd run --record FILE`): re-run its physics without devices,
    /// check that every frame matches bit for bit, and feed the dashboard and the configured
    /// telemetry outputs. Exit 0 when it matches, 1 when it diverged, 2 for an unusable file.
    Replay(ReplayArgs),
    /// Run a scripted driving maneuver on the physics alone and print its trace as CSV.
    Maneuver(ManeuverArgs),
    /// Measure the car's g-g-v envelope by driving it on the flat track (steady circles,
    /// braking, full throttle per gear, coast-down, braking and driving in turns; seconds to
    /// half a minute) and write the envelope file for lap simulation and the robot (docs/envelope.md).
    Envelope(EnvelopeArgs),
    /// Find a faster racing line for a car on a track by driving it (the line-finding robot):
    /// progress on stderr, the line written to a file for `[sim] robot_line`.
    Line(LineArgs),
    /// Quasi-steady-state lap-time simulation: the car's g-g-v envelope along the robot's line
    /// on a track; prints lap and sector times, where time is lost against a second car, and
    /// writes the speed trace as CSV.
    Lapsim(LapsimArgs),
    /// Motion platforms: `rigd motion test` checks the rig's wiring and directions.
    Motion {
        /// What to do.
        #[command(subcommand)]
        which: MotionCommand,
    },
    /// Benchmarks.
    Bench {
        /// Which benchmark.
        #[command(subcommand)]
        which: BenchCommand,
    },
    /// Packaging hook: write rigd's man pages and bash/zsh/fish completions under DIR
    /// (scripts/build-deb.sh).
    #[command(hide = true)]
    GenerateAssets {
        /// Output directory (man/, bash/, zsh/, fish/ are created below it).
        #[arg(value_hint = ValueHint::DirPath)]
        dir: PathBuf,
    },
}

/// Options of `rigd run`.
#[derive(Debug, Default, clap::Args)]
pub struct RunArgs {
    /// Never draw the live display, even on a terminal.
    #[arg(long)]
    pub no_display: bool,
    /// Let the robot drive the player car at the full rate while no wheel or gamepad does
    /// (the demo), instead of idling; the same as `[loop] when_nobody_drives = "robot"`.
    #[arg(long)]
    pub robot: bool,
    /// Test hook: the physics thread stops ticking this many ms after start (it still exits
    /// on SIGTERM). Used by the watchdog test only.
    #[arg(long, hide = true)]
    pub test_stall_rt_after_ms: Option<u64>,
    /// Test hook (debug builds only): the output stage NAME (`telemetry`, `motion`, `ffb`,
    /// `rumble`) panics while running, to test rigd's panic path (docs/reliability.md).
    #[arg(long, hide = true, value_name = "NAME")]
    pub test_panic_stage: Option<String>,
    /// Test hook: how long the stage of `--test-panic-stage` runs before it panics.
    #[arg(long, hide = true, value_name = "MS", default_value_t = 1000)]
    pub test_panic_after_ms: u64,
    /// Record every physics step's input to FILE for `rigd replay` (overrides
    /// `[record] path`).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub record: Option<PathBuf>,
}

/// Options of `rigd devices`.
#[derive(Debug, Default, clap::Args)]
pub struct DevicesArgs {
    /// Show every axis and button of every wheel, pedal set, shifter and gamepad live: the
    /// raw value and what the --config mapping makes of it; q, Ctrl-C or SIGTERM end it.
    /// Not on a terminal it prints one line per change.
    #[arg(long)]
    pub watch: bool,
}

/// Options of `rigd calibrate`.
#[derive(Debug, Default, clap::Args)]
pub struct CalibrateArgs {
    /// Write the result without asking (for scripts).
    #[arg(long)]
    pub yes: bool,
}

/// Options of `rigd replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// The recording.
    #[arg(value_hint = ValueHint::FilePath)]
    pub file: PathBuf,
    /// Replay at the recorded rate (default: as fast as possible).
    #[arg(long)]
    pub realtime: bool,
    /// Never draw the dashboard, even on a terminal.
    #[arg(long)]
    pub no_display: bool,
}

/// Options of `rigd lapsim`.
#[derive(Debug, clap::Args)]
pub struct LapsimArgs {
    /// Car: a built-in name or a path to a car TOML file.
    #[arg(long, default_value = "road")]
    pub car: String,
    /// Track: a built-in name or a path to a track TOML file.
    #[arg(long, default_value = "circuit")]
    pub track: String,
    /// A second car (setup) to compare with: where it gains or loses time against --car.
    #[arg(long)]
    pub compare_car: Option<String>,
    /// Fraction of the envelope's lateral and braking limits to use, (0, 1].
    #[arg(long, default_value_t = 1.0)]
    pub margin: f64,
    /// A measured envelope for --car (written by `rigd envelope --car ...`) instead of the
    /// estimate from the car data.
    #[arg(long, value_hint = ValueHint::FilePath)]
    pub envelope: Option<PathBuf>,
    /// A line file for --car on --track (written by `rigd line`) instead of the robot's line.
    #[arg(long, value_hint = ValueHint::FilePath)]
    pub line: Option<PathBuf>,
    /// Write the speed trace (distance, speed, time, per run) as CSV to this file.
    #[arg(long, value_hint = ValueHint::FilePath)]
    pub csv: Option<PathBuf>,
    /// Run the simulation this many times and print the time per lap (a benchmark).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
}

/// Options of `rigd maneuver`.
#[derive(Debug, clap::Args)]
pub struct ManeuverArgs {
    /// Maneuver name (see `rigd maneuver --list`).
    pub name: Option<String>,
    /// List the maneuvers.
    #[arg(long)]
    pub list: bool,
    /// Car: a built-in name or a path to a car TOML file.
    #[arg(long, default_value = "road")]
    pub car: String,
    /// Speed held (step-steer), initial speed (braking, coast-down) or start of the ramp
    /// (steady-circle), km/h.
    #[arg(long)]
    pub speed_kph: Option<f64>,
    /// End of the speed ramp (steady-circle), km/h.
    #[arg(long, default_value_t = 90.0)]
    pub speed_end_kph: f64,
    /// Steering-wheel angle after the step (step-steer) or at the end of the ramp
    /// (steer-ramp), degrees, positive left.
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true)]
    pub steer_deg: f64,
    /// Steering-wheel rate of the ramp (steer-ramp), degrees per second.
    #[arg(long, default_value_t = 5.0)]
    pub steer_rate_deg_per_s: f64,
    /// Circle radius (steady-circle), m.
    #[arg(long, default_value_t = 100.0)]
    pub radius_m: f64,
    /// Brake pedal (braking), 0..1.
    #[arg(long, default_value_t = 1.0)]
    pub pedal: f64,
    /// Duration, s (each manoeuvre has its own default).
    #[arg(long)]
    pub duration_s: Option<f64>,
}

/// Options of `rigd envelope`.
#[derive(Debug, clap::Args)]
pub struct EnvelopeArgs {
    /// Car: a built-in name or a path to a car TOML file.
    #[arg(long, default_value = "road")]
    pub car: String,
    /// Write the envelope file here (default: standard output).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub out: Option<PathBuf>,
    /// Threads for the independent runs (default: one per core; the result is the same).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Measure nothing: check that the envelope FILE is well formed and was made for --car
    /// as it is now (exit 2 with the fix when not).
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with = "out")]
    pub check: Option<PathBuf>,
}

/// Options of `rigd line`.
#[derive(Debug, clap::Args)]
pub struct LineArgs {
    /// Car: a built-in name or a path to a car TOML file.
    #[arg(long, default_value = "road")]
    pub car: String,
    /// Track: a built-in name or a path to a track TOML file (a closed lap).
    #[arg(long, default_value = "circuit")]
    pub track: String,
    /// Wall-clock budget, s: the search stops after the iteration that passes it (or at
    /// convergence).
    #[arg(long, default_value_t = 600.0)]
    pub budget_s: f64,
    /// Stop after this many iterations instead (with --seed, reproduces a line bit for bit).
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Seed of the search's tweaks.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads that drive candidate lines.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// How tweaks are chosen: `random` (random bumps near corners, one shrinking size) or
    /// `sections` (coordinate descent: each section near a corner with its own adaptive
    /// size); docs/line-search.md compares them.
    #[arg(long, default_value = "random", value_parser = ["random", "sections"])]
    pub search: String,
    /// Line file to write (default: line-CAR-TRACK.toml in the current directory).
    #[arg(long, value_hint = ValueHint::FilePath)]
    pub out: Option<PathBuf>,
}

/// The motion platform commands.
#[derive(Debug, Subcommand)]
pub enum MotionCommand {
    /// Rig check: jog each configured platform (or the one named) through its axes one at a
    /// time (surge, sway, heave, roll, pitch, yaw, as the platform has them), slowly, to half
    /// its reach, printing which axis moves and which way, so you can check the wiring and
    /// directions. It raises from park first and parks at the end; Ctrl-C or SIGTERM park at
    /// once, at the actuators' speed and acceleration limits.
    Test {
        /// Only this platform (its `name` in the config).
        #[arg(long)]
        platform: Option<String>,
        /// Length of each move (out, back, out the other way, back), seconds.
        #[arg(long, default_value_t = 2.0)]
        move_seconds: f64,
    },
}

/// The benchmarks.
#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Run the real loop (the config's `[loop]` and `[sim]`) and print wake-latency percentiles,
    /// late-tick counts and tick-work percentiles.
    Loop {
        /// How long to run, seconds.
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Robot cars besides the player car (overrides `[sim] robots`).
        #[arg(long)]
        robots: Option<u32>,
        /// Core (overrides `[loop] core`).
        #[arg(long)]
        core: Option<u32>,
        /// SCHED_FIFO priority (overrides `[loop] priority`).
        #[arg(long)]
        priority: Option<u8>,
    },
}

/// A command line rigd cannot act on, found after clap parsed it (a missing file argument, an
/// unknown manoeuvre): what is wrong and the fix. Exit 2, like clap's usage errors.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadInvocation(pub String);

/// Exit code for an error (one place, so the systemd unit's RestartPreventExitStatus=2 holds):
/// 2 when the user must change the configuration, the recording or the command line.
pub fn exit_code(err: &anyhow::Error) -> i32 {
    let bad_config = err.chain().any(|cause| {
        cause.downcast_ref::<rig_config::ConfigError>().is_some()
            || cause.downcast_ref::<BadInvocation>().is_some()
            // An envelope file that is malformed, for another car or not writable, or a car
            // whose envelope cannot be measured.
            || cause
                .downcast_ref::<rig_physics::envelope::file::EnvelopeFileError>()
                .is_some()
            || cause
                .downcast_ref::<rig_physics::envelope::measure::MeasureError>()
                .is_some()
            || matches!(
                cause.downcast_ref::<crate::runtime::service::RunError>(),
                Some(crate::runtime::service::RunError::Config(_))
            )
            || cause
                .downcast_ref::<crate::replay::player::ReplayError>()
                .is_some_and(|e| e.is_bad_input())
    });
    if bad_config {
        2
    } else {
        1
    }
}
