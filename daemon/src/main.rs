//! The `rigd` command line: parses arguments, sets up logging, dispatches to the library and
//! maps errors to exit codes (0 ok, 2 bad config, 1 anything else) in one place.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::Result;
use clap::Parser;
use rigd::cli::{exit_code, BenchCommand, Cli, Command, RunArgs};
use rigd::runtime::service::{self, RunOptions};

fn main() {
    // Before any thread exists, so every thread inherits the blocked mask.
    rigd::signals::block_handled_signals();
    let cli = Cli::parse();
    init_logging();
    if let Err(err) = dispatch(cli) {
        let code = exit_code(&err);
        for line in format!("{err:#}").lines() {
            eprintln!("rigd: {line}");
        }
        std::process::exit(code);
    }
}

/// Logs to stderr through tracing: colours only on a terminal, no timestamps under journald
/// (it adds its own), level from RUST_LOG (default info).
fn init_logging() {
    let journald = std::env::var_os("JOURNAL_STREAM").is_some();
    let ansi = std::io::stderr().is_terminal() && !journald;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_target(false);
    if journald {
        builder.without_time().init();
    } else {
        builder.init();
    }
}

fn dispatch(cli: Cli) -> Result<()> {
    match cli.command.unwrap_or(Command::Run(RunArgs::default())) {
        Command::Run(args) => {
            let options = RunOptions {
                config_path: cli.config,
                display: !args.no_display && std::io::stdout().is_terminal(),
                stall_after: args.test_stall_rt_after_ms.map(Duration::from_millis),
            };
            service::run(options)?;
        }
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
