//! The `rig-dash` command line: parse options, stop cleanly on SIGTERM/SIGHUP/SIGINT, run the
//! dashboard, and map failures to exit codes (2 for bad arguments, through clap; 1 otherwise,
//! including a terminal that went away).
//!
//! The handlers only set [`STOP`]; the dashboard's key wait is a `poll(2)` that a signal
//! interrupts, so the flag is seen at once (within [`rig_dash::terminal::MAX_WAIT`] when the
//! signal lands on a receiver thread instead).

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

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
}

/// Set by the signal handler; the dashboard polls it every frame.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn request_stop(_signal: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Lets SIGTERM, SIGHUP and SIGINT end the loop normally so the terminal is restored.
///
/// A signal that was ignored when the program started stays ignored (the `nohup` convention):
/// under `nohup` a hang-up still ends the dashboard, through the terminal reporting it.
fn install_stop_handlers() {
    for signal in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        // SAFETY: sigaction with a null new action only reads the current disposition into
        // `current`, a valid zeroed struct; the handler installed only stores to an atomic,
        // which is async-signal-safe.
        unsafe {
            let mut current: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut current) == 0
                && current.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            libc::signal(signal, request_stop as *const () as libc::sighandler_t);
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let options = DashOptions {
        listen: if cli.listen.is_empty() {
            vec![DEFAULT_LISTEN]
        } else {
            cli.listen
        },
        format: cli.format,
        fps: cli.fps,
    };
    install_stop_handlers();
    match rig_dash::run_terminal(&options, &STOP) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            // Not `eprintln!`: it panics when stderr is the terminal that just went away.
            let _ = writeln!(std::io::stderr(), "rig-dash: {error}");
            ExitCode::FAILURE
        }
    }
}
