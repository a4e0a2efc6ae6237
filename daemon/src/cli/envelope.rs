//! `rigd envelope`: measures a car's g-g-v envelope by driving it in the full simulation
//! (`rig_physics::envelope::measure`: steady circles, braking, full throttle per gear,
//! coast-down, braking and driving in turns) and writes the envelope file
//! (`rig_physics::envelope::file`, docs/envelope.md) to `--out` or standard output.
//!
//! The car is loaded as `[sim] car` is (a built-in name or a path to a car TOML file); a bad
//! car is a [`BadInvocation`] (exit 2). The `--out` file is created before measuring, so an
//! unwritable path fails at once. Progress goes to standard error: one line redrawn in place
//! on a terminal, plain lines otherwise; a summary with the wall time at the end.
//! `--check FILE` measures nothing: it reads an envelope file and checks it was made for the
//! car (exit 2 with the fix when it is malformed or for another car or setup).

use std::io::{IsTerminal, Write};
use std::time::Instant;

use anyhow::{Context, Result};
use rig_physics::envelope::{file, measure};

use crate::cli::{BadInvocation, EnvelopeArgs};

/// Runs `rigd envelope` for `args`.
pub fn run(args: &EnvelopeArgs) -> Result<()> {
    let car = crate::runtime::simulation::load_car("--car", &args.car)
        .map_err(|p| BadInvocation(format!("{}: {} (fix: {})", p.field, p.message, p.fix)))?;
    if let Some(path) = &args.check {
        let envelope = file::load(path, &car)?;
        println!(
            "{}: a {} envelope of car `{}` (this setup), {} speeds from {} to {} m/s",
            path.display(),
            match envelope.provenance.source {
                rig_physics::envelope::EnvelopeSource::Measured => "measured",
                rig_physics::envelope::EnvelopeSource::Estimated => "estimated",
            },
            envelope.car_name,
            envelope.points.len(),
            envelope.points[0].speed_mps,
            envelope.points[envelope.points.len() - 1].speed_mps,
        );
        return Ok(());
    }
    let mut out_file =
        match &args.out {
            Some(path) => Some(std::fs::File::create(path).map_err(|cause| {
                file::EnvelopeFileError::Write {
                    path: path.display().to_string(),
                    cause: rig_toml::plain::io_words(&cause),
                }
            })?),
            None => None,
        };
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let start = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let report = |progress: &measure::Progress| {
        let (phase, name) = progress.phase;
        let line = format!(
            "envelope: [{:5.1} s] phase {phase}/3 {name}: {}/{} {}",
            start.elapsed().as_secs_f64(),
            progress.done,
            progress.total,
            progress.finished
        );
        let mut err = std::io::stderr().lock();
        // A progress line that cannot be shown is no reason to stop measuring.
        let _ = if terminal {
            write!(err, "\r{line}\x1b[K")
        } else {
            writeln!(err, "{line}")
        };
    };
    let measurement = measure::measure(&car, threads, &report)
        .with_context(|| format!("measuring the envelope of car `{}`", car.name))?;
    if terminal {
        eprintln!();
    }
    let envelope = &measurement.envelope;
    let text = file::to_toml(envelope);
    match (&mut out_file, &args.out) {
        (Some(out), Some(path)) => out
            .write_all(text.as_bytes())
            .and_then(|()| out.sync_all())
            .map_err(|cause| file::EnvelopeFileError::Write {
                path: path.display().to_string(),
                cause: rig_toml::plain::io_words(&cause),
            })?,
        _ => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .context("writing the envelope to standard output")?;
        }
    }
    let (rolling, drag) = measurement.coast_fit;
    eprintln!(
        "envelope: car `{}` measured in {:.1} s on {threads} thread(s): {} speeds from {} to {} m/s, \
         top speed {:.1} m/s, coast a = {rolling:.4} + {drag:.3e} v^2 m/s^2, exponents braking {:.2} \
         driving {:.2}, shift time {:.2} s{}",
        car.name,
        start.elapsed().as_secs_f64(),
        envelope.points.len(),
        envelope.points[0].speed_mps,
        envelope.points[envelope.points.len() - 1].speed_mps,
        measurement.top_speed_mps,
        envelope.brake_exponent,
        envelope.drive_exponent,
        envelope.shift_time_s,
        args.out
            .as_ref()
            .map_or(String::new(), |path| format!("; written to {}", path.display())),
    );
    Ok(())
}
