//! `rigd line`: the line-finding robot on the command line. Loads the car and track like
//! `[sim]` does, runs `rig_physics::line_search` until the wall-clock budget, an iteration
//! count or convergence, shows progress (iteration, best lap, time gained, ETA) on one
//! updating line when stderr is a terminal and as plain lines otherwise, and writes the line
//! file (`[sim] robot_line`). The search has no clock of its own: the budget is kept here.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use rig_physics::line_search::drive::{Course, DT_S};
use rig_physics::line_search::file::{LineFile, Provenance};
use rig_physics::line_search::{Search, Settings, Strategy};

use crate::cli::{BadInvocation, LineArgs};
use crate::runtime::simulation::{load_car, load_track};

/// Runs the search `args` describes and writes its line file.
pub fn run(args: &LineArgs) -> Result<()> {
    if !(args.budget_s.is_finite() && args.budget_s > 0.0) {
        return Err(BadInvocation(format!(
            "--budget-s {} is not a positive number of seconds (fix: e.g. --budget-s 600)",
            args.budget_s
        ))
        .into());
    }
    if !(1..=64).contains(&args.threads) {
        return Err(BadInvocation(format!(
            "--threads {} is outside 1 ..= 64 (fix: the number of cores, e.g. --threads 2)",
            args.threads
        ))
        .into());
    }
    let problem = |p: rig_config::FieldProblem| {
        BadInvocation(format!("{}: {} (fix: {})", p.field, p.message, p.fix))
    };
    let car = load_car("--car", &args.car).map_err(problem)?;
    let track = load_track("--track", &args.track).map_err(problem)?;
    if !track.is_closed() {
        return Err(BadInvocation(format!(
            "--track {}: not a closed lap; a line is searched for a lap (fix: a circuit track)",
            args.track
        ))
        .into());
    }
    let out = args.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!(
            "line-{}-{}.toml",
            file_stem(&args.car),
            file_stem(&args.track)
        ))
    });
    let strategy = Strategy::from_name(&args.search).ok_or_else(|| {
        BadInvocation(format!(
            "--search {} is not a search (fix: --search random or --search sections)",
            args.search
        ))
    })?;
    let settings = Settings {
        seed: args.seed,
        threads: args.threads,
        strategy,
        ..Settings::default()
    };
    let started = Instant::now();
    let mut search = Search::new(Course::new(track, car), settings)
        .map_err(|e| BadInvocation(format!("{e}")))?;
    let terminal = std::io::stderr().is_terminal();
    let mut progress = Progress {
        terminal,
        started,
        budget_s: args.budget_s,
        iterations: args.iterations,
    };
    progress.show(&search);
    loop {
        if let Some(limit) = args.iterations {
            if search.iterations() >= limit {
                break;
            }
        } else if started.elapsed().as_secs_f64() >= args.budget_s {
            break;
        }
        if search.converged() {
            break;
        }
        search.iterate();
        progress.show(&search);
    }
    if terminal {
        eprintln!();
    }
    let file = LineFile::new(
        search.course(),
        search.offsets_m(),
        search.best_lap_s(),
        Provenance {
            tool: format!("rigd {} line", env!("CARGO_PKG_VERSION")),
            seed: args.seed,
            iterations: search.iterations(),
            start_lap_s: search.start_lap_s(),
            search: strategy.name().to_string(),
        },
    );
    std::fs::write(&out, file.to_toml()).with_context(|| {
        format!(
            "cannot write the line file {} (fix: a writable path for --out)",
            out.display()
        )
    })?;
    println!(
        "line: {} iterations{}, flying lap {:.3} s (planned line {:.3} s, {:.3} s gained), written to {}",
        search.iterations(),
        if search.converged() { " (converged)" } else { "" },
        search.best_lap_s(),
        search.start_lap_s(),
        search.start_lap_s() - search.best_lap_s(),
        out.display()
    );
    Ok(())
}

/// The name part of a built-in name or a file path, for the default output name.
fn file_stem(name: &str) -> String {
    std::path::Path::new(name)
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string())
}

/// The progress display.
struct Progress {
    terminal: bool,
    started: Instant,
    budget_s: f64,
    iterations: Option<u64>,
}

impl Progress {
    fn show(&mut self, search: &Search) {
        let elapsed = self.started.elapsed().as_secs_f64();
        let done = search.iterations();
        let eta_s = match self.iterations {
            Some(limit) if done > 0 => elapsed / done as f64 * limit.saturating_sub(done) as f64,
            Some(_) => f64::NAN,
            None => (self.budget_s - elapsed).max(0.0),
        };
        let laps_per_s =
            search.simulated_steps() as f64 * DT_S / search.start_lap_s() / elapsed.max(1e-9);
        let text = format!(
            "iteration {done}  best lap {:.3} s  gained {:.3} s  tweak {:.2} m  elapsed {elapsed:.1} s  ETA {eta_s:.0} s  {laps_per_s:.2} laps/s",
            search.best_lap_s(),
            search.start_lap_s() - search.best_lap_s(),
            search.tweak_m(),
        );
        let mut err = std::io::stderr().lock();
        // Progress is best effort: a closed stderr does not stop the search.
        let _ = if self.terminal {
            write!(err, "\r\x1b[K{text}")
        } else {
            writeln!(err, "{text}")
        };
        let _ = err.flush();
    }
}
