//! Runs the subcommand the command line names (`run` when none): the one place that maps
//! parsed arguments onto the library.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{Context, Result};

use super::{BadInvocation, BenchCommand, Cli, Command, MotionCommand, RunArgs};
use crate::logging::NoticeFeed;
use crate::replay::player::ReplayOptions;
use crate::runtime::planted_panic::PanicPlan;
use crate::runtime::service::{self, RunOptions};

/// True when `rigd run` will draw its display in this terminal (stdout is one and
/// `--no-display` was not given).
pub fn shows_display(cli: &Cli) -> bool {
    let no_display = match &cli.command {
        None => false,
        Some(Command::Run(args)) => args.no_display,
        Some(Command::Replay(args)) => args.no_display,
        Some(_) => return false,
    };
    !no_display && std::io::stdout().is_terminal()
}

/// Reads what `run` and `replay` need from files before anything starts: that the recording
/// can be read, and the configuration with every problem. `main` calls it before it points the
/// log at a file for the display, so a bad file is said alone, once, and nothing starts.
pub fn check_inputs(cli: &Cli) -> Result<()> {
    match &cli.command {
        None | Some(Command::Run(_)) => {}
        Some(Command::Replay(args)) => {
            std::fs::File::open(&args.file).map_err(|cause| {
                crate::replay::player::ReplayError::Read {
                    path: args.file.display().to_string(),
                    cause,
                }
            })?;
        }
        Some(_) => return Ok(()),
    }
    crate::runtime::config_load::load_config(cli.config.as_deref())?;
    Ok(())
}

/// Runs `cli`'s subcommand; `display` is [`shows_display`]'s answer and `notices` the log's
/// newest-warning feed (the display shows it).
pub fn dispatch(cli: Cli, display: bool, notices: NoticeFeed) -> Result<()> {
    match cli.command.unwrap_or(Command::Run(RunArgs::default())) {
        Command::Run(args) => {
            if args.test_panic_stage.is_some() && !cfg!(debug_assertions) {
                return Err(BadInvocation(
                    "--test-panic-stage is a test hook of debug builds (fix: leave it out, or \
                     run a debug build of rigd)"
                        .into(),
                )
                .into());
            }
            let options = RunOptions {
                config_path: cli.config,
                display,
                stall_after: args.test_stall_rt_after_ms.map(Duration::from_millis),
                panic_stage: args.test_panic_stage.map(|stage| PanicPlan {
                    stage,
                    after: Duration::from_millis(args.test_panic_after_ms),
                }),
                notices,
                recorded_world: Some(crate::replay::recorder::factory(args.record)),
                robot: args.robot,
            };
            service::run(options)?;
        }
        Command::Replay(args) => crate::replay::player::run(&ReplayOptions {
            file: args.file,
            realtime: args.realtime,
            display,
            config_path: cli.config,
            notices,
        })?,
        Command::CheckConfig { file, schema } => {
            if schema {
                println!("{}", rig_config::json_schema());
                return Ok(());
            }
            let path = file.or(cli.config).ok_or_else(|| {
                BadInvocation("no file to check (fix: `rigd check-config FILE` or `rigd --config FILE check-config`)".into())
            })?;
            super::check::check_config(&path)?;
        }
        Command::Schema => println!("{}", rig_config::json_schema()),
        Command::Devices(args) if args.watch => super::devices_watch::run(cli.config.as_deref())?,
        Command::Calibrate(args) => super::calibrate::run(cli.config.as_deref(), args.yes)?,
        Command::Devices(_) => {
            // The backend each wheel would get under the given config (default: auto).
            let backend = match &cli.config {
                Some(path) => {
                    crate::runtime::config_load::load_config(Some(path))?
                        .devices
                        .ffb
                        .backend
                }
                None => rig_config::devices::FfbBackend::Auto,
            };
            let devices = crate::devices::list();
            crate::devices::print_with_backend(&devices, backend, &mut std::io::stdout())?;
        }
        Command::Maneuver(args) => super::maneuver::run(&args)?,
        Command::Envelope(args) => super::envelope::run(&args)?,
        Command::Line(args) => super::line::run(&args)?,
        Command::Lapsim(args) => super::lapsim::run(&args)?,
        Command::Motion {
            which:
                MotionCommand::Test {
                    platform,
                    move_seconds,
                },
        } => super::motion_test::run(cli.config.as_deref(), platform.as_deref(), move_seconds)?,
        Command::GenerateAssets { dir } => {
            use clap::CommandFactory;
            rig_dash::cli_assets::write(Cli::command(), "rigd", &dir).with_context(|| {
                format!(
                    "cannot write the man pages and completions to {} (fix: a writable directory)",
                    dir.display()
                )
            })?;
        }
        Command::Bench { which } => match which {
            BenchCommand::Loop {
                seconds,
                robots,
                core,
                priority,
            } => {
                let mut config = crate::runtime::config_load::load_config(cli.config.as_deref())?;
                if let Some(robots) = robots {
                    config.sim.robots = robots;
                }
                if core.is_some() {
                    config.realtime.core = core;
                }
                if let Some(priority) = priority {
                    config.realtime.priority = priority;
                }
                super::bench::run_loop(&config, seconds)?;
            }
        },
    }
    Ok(())
}
