//! The `rig-dash` command line: parse options, stop cleanly on SIGTERM/SIGHUP/SIGINT, run the
//! dashboard, and map failures to exit codes (2 for bad arguments, through clap; 1 otherwise,
//! including a terminal that went away).
//!
//! The handlers (signal-hook's `flag::register`) only set the stop flag `main` owns; the
//! dashboard's key wait is a `poll(2)` that a signal interrupts, so the flag is seen at once
//! (within [`rig_dash::terminal::MAX_WAIT`] when the signal lands on a receiver thread
//! instead).

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::Parser;
use rig_dash::{DashOptions, FormatChoice, DEFAULT_FPS, DEFAULT_LISTEN};

/// Terminal dashboard for rigd and for games that send UDP telemetry.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// UDP address to listen on; repeat for several (default: rigd's native port on loopback).
    #[arg(long, value_name = "ADDR:PORT")]
    listen: Vec<SocketAddr>,
    /// Decode every datagram as this format instead of recognising it by size and magic.
    #[arg(long, value_enum, default_value_t = FormatChoice::Auto)]
    format: FormatChoice,
    /// Frames drawn per second.
    #[arg(long, default_value_t = DEFAULT_FPS, value_parser = clap::value_parser!(u32).range(1..=240))]
    fps: u32,
    /// Packaging hook: write rig-dash's man page and shell completions under DIR and exit
    /// (scripts/build-deb.sh).
    #[arg(long, hide = true, value_name = "DIR")]
    generate_assets: Option<std::path::PathBuf>,
}

/// Lets SIGTERM, SIGHUP and SIGINT set `stop` (the dashboard polls it every frame), so the
/// loop ends normally and the terminal is restored.
///
/// A signal that was ignored when the program started stays ignored (the `nohup` convention):
/// under `nohup` a hang-up still ends the dashboard, through the terminal reporting it.
fn install_stop_handlers(stop: &Arc<AtomicBool>) {
    for signal in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        // SAFETY: sigaction with a null new action only reads the current disposition into
        // `current`, a valid zeroed struct.
        let ignored = unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            libc::sigaction(signal, std::ptr::null(), &mut current) == 0
                && current.sa_sigaction == libc::SIG_IGN
        };
        if ignored {
            continue;
        }
        if let Err(error) = signal_hook::flag::register(signal, Arc::clone(stop)) {
            // Not `eprintln!`: it panics when stderr is a terminal that went away.
            let _ = writeln!(
                std::io::stderr(),
                "rig-dash: cannot handle signal {signal}: {error}; `q` still quits"
            );
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(dir) = &cli.generate_assets {
        use clap::CommandFactory;
        return match rig_dash::cli_assets::write(Cli::command(), "rig-dash", dir) {
            Ok(_) => ExitCode::SUCCESS,
            Err(error) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "rig-dash: cannot write to {}: {error}",
                    dir.display()
                );
                ExitCode::FAILURE
            }
        };
    }
    let options = DashOptions {
        listen: if cli.listen.is_empty() {
            vec![DEFAULT_LISTEN]
        } else {
            cli.listen
        },
        format: cli.format,
        fps: cli.fps,
    };
    let stop = Arc::new(AtomicBool::new(false));
    install_stop_handlers(&stop);
    match rig_dash::run_terminal(&options, &stop) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            // Not `eprintln!`: it panics when stderr is the terminal that just went away.
            let _ = writeln!(std::io::stderr(), "rig-dash: {error}");
            ExitCode::FAILURE
        }
    }
}
