//! The `rigd` command line: parses arguments, sets up logging, runs the subcommand
//! ([`rigd::cli::dispatch`]) and maps errors to exit codes (0 ok, 2 bad config, 1 anything
//! else) in one place.

use clap::Parser;
use rigd::cli::dispatch::{dispatch, shows_display};
use rigd::cli::{exit_code, Cli};
use rigd::logging::{self, LogTarget};

fn main() {
    // Before any thread exists, so every thread inherits the blocked mask.
    rigd::signals::block_handled_signals();
    let cli = Cli::parse();
    let display = shows_display(&cli);
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
        let code = exit_code(&err);
        for line in format!("{err:#}").lines() {
            log.target.tell(line);
        }
        std::process::exit(code);
    }
}
