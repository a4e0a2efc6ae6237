//! The `rigd` command line: parses arguments, sets up logging, runs the subcommand
//! ([`rigd::cli::dispatch`]) and maps errors to exit codes (0 ok, 2 bad config or command
//! line, 1 anything else) in one place.
//!
//! When the display will take the terminal, the files `run` and `replay` need are checked
//! before the log is pointed at a file ([`check_inputs`]): a bad file is said alone, once,
//! and the lines saying where the log goes are printed only when rigd actually starts.

use clap::Parser;
use rigd::cli::dispatch::{check_inputs, dispatch, shows_display};
use rigd::cli::{exit_code, Cli};
use rigd::logging::{self, LogTarget};

fn main() {
    // Before any thread exists, so every thread inherits the blocked mask.
    rigd::signals::block_handled_signals();
    let cli = Cli::parse();
    let display = shows_display(&cli);
    if display {
        if let Err(err) = check_inputs(&cli) {
            fail(&err, |line| LogTarget::Stderr.tell(line));
        }
    }
    let log = logging::init(display);
    if let Some(problem) = &log.problem {
        log.target.tell(problem);
    }
    if let LogTarget::File { path, .. } = &log.target {
        log.target.tell(&format!(
            "the live display uses this terminal, so the log goes to {}",
            path.display()
        ));
    }
    let result = dispatch(cli, display, log.notices.clone());
    if let LogTarget::File { path, .. } = &log.target {
        if let Err(err) = &result {
            tracing::error!("{err:#}");
        }
        log.target.restore_stderr();
        log.target
            .tell(&format!("the log of this run is in {}", path.display()));
    }
    if let Err(err) = result {
        fail(&err, |line| log.target.tell(line));
    }
}

/// Says `err` (its causes joined by `: `, one line of the terminal per line of the text)
/// through `tell` and exits with its code.
fn fail(err: &anyhow::Error, tell: impl Fn(&str)) -> ! {
    for line in format!("{err:#}").lines() {
        tell(line);
    }
    std::process::exit(exit_code(err));
}
