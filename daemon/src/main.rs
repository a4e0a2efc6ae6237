//! The `rigd` command line: parses arguments, sets up logging, dispatches to the library and
//! maps errors to exit codes (0 ok, 2 bad config, 1 anything else) in one place.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::Result;
use clap::Parser;
use rigd::cli::logging::{self, LogTarget};
use rigd::cli::{exit_code, BenchCommand, Cli, Command, RunArgs};
use rigd::replay::player::ReplayOptions;
use rigd::runtime::service::{self, RunOptions};

fn main() {
    // Before any thread exists, so every thread inherits the blocked mask.
    rigd::signals::block_handled_signals();
    let cli = Cli::parse();
    let display = shows_display(&cli);
    let (log_target, log_problem) = logging::init(display);
    if let Some(problem) = log_problem {
        log_target.tell(&problem);
    }
    if let LogTarget::File { path, .. } = &log_target {
        log_target.tell(&format!(
            "the live display uses this terminal, so the log goes to {}",
            path.display()
        ));
    }
    let result = dispatch(cli, display);
    if let LogTarget::File { path, .. } = &log_target {
        if let Err(err) = &result {
            tracing::error!("{err:#}");
        }
        log_target.restore_stderr();
        log_target.tell(&format!("the log of this run is in {}", path.display()));
    }
    if let Err(err) = result {
        let code = exit_code(&err);
        for line in format!("{err:#}").lines() {
            log_target.tell(line);
        }
        std::process::exit(code);
    }
}

/// True when `rigd run` will draw its display in this terminal (stdout is one and
/// `--no-display` was not given).
fn shows_display(cli: &Cli) -> bool {
    let no_display = match &cli.command {
        None => false,
        Some(Command::Run(args)) => args.no_display,
        Some(Command::Replay(args)) => args.no_display,
        Some(_) => return false,
    };
    !no_display && std::io::stdout().is_terminal()
}

fn dispatch(cli: Cli, display: bool) -> Result<()> {
    match cli.command.unwrap_or(Command::Run(RunArgs::default())) {
        Command::Run(args) => {
            let options = RunOptions {
                config_path: cli.config,
                display,
                stall_after: args.test_stall_rt_after_ms.map(Duration::from_millis),
                step_observer: Some(rigd::replay::recorder::factory(args.record)),
            };
            service::run(options)?;
        }
        Command::Replay(args) => rigd::replay::player::run(&ReplayOptions {
            file: args.file,
            realtime: args.realtime,
            display,
            config_path: cli.config,
        })?,
        Command::CheckConfig { file, schema } => {
            if schema {
                println!("{}", rig_config::json_schema());
                return Ok(());
            }
            let path = file.or(cli.config).ok_or_else(|| {
                anyhow::anyhow!("no file to check (fix: `rigd check-config FILE` or `rigd --config FILE check-config`)")
            })?;
            rigd::check::check_config(&path)?;
        }
        Command::Schema => println!("{}", rig_config::json_schema()),
        Command::Devices => {
            let devices = rigd::devices::list();
            rigd::devices::print(&devices, &mut std::io::stdout())?;
        }
        Command::Maneuver(args) => rigd::maneuver::run(&args)?,
        Command::Bench { which } => match which {
            BenchCommand::Loop {
                seconds,
                robots,
                core,
                priority,
            } => {
                let mut config = service::load_config(cli.config.as_deref())?;
                if let Some(robots) = robots {
                    config.sim.robots = robots;
                }
                if core.is_some() {
                    config.realtime.core = core;
                }
                if let Some(priority) = priority {
                    config.realtime.priority = priority;
                }
                rigd::bench::run_loop(&config, seconds)?;
            }
        },
    }
    Ok(())
}
