//! `rigd lapsim`: the quasi-steady-state lap-time simulation (`rig_physics::lapsim`) of a car
//! on a track, for tuners judging a setup before driving it.
//!
//! The line is the robot's (`rig_physics::robot::line`, relaxed for the car's width) or, with
//! `--line`, a line file from `rigd line`; the envelope is estimated from the car data
//! (`Envelope::estimate`) or, with `--envelope`, a measured file from `rigd envelope`. Both
//! files are checked against --car (and the line against --track): a file made for another
//! car or track, or a malformed one, exits 2 with the fix. `--compare-car` always runs its
//! own robot line and estimated envelope. Prints the lap and sector times, with `--compare-car` the second car's
//! and where it gains or loses time (per sector and the five stretches of 100 m that differ
//! most), and with `--csv` the speed traces. `--repeat N` times N runs (the benchmark in
//! docs/BENCHMARKS.md). Bad input (unknown car or track, a margin outside (0, 1]) exits 2.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};
use rig_physics::envelope::{file as envelope_file, Envelope};
use rig_physics::lapsim::{compare, Course, Lap, LapSim};
use rig_physics::line_search::drive::Course as LineCourse;
use rig_physics::line_search::file::LineFile;
use rig_physics::robot::{line, DriverLimits};
use rig_physics::track::Track;
use rig_physics::CarSpec;

use crate::cli::{BadInvocation, LapsimArgs};
use crate::runtime::simulation::{load_car, load_track};

/// Length of the stretches the comparison reports, m.
const STRETCH_M: f64 = 100.0;
/// Stretches listed in the comparison.
const STRETCHES_SHOWN: usize = 5;

/// One car's run on the track.
struct Run {
    name: String,
    course: Course,
    lap: Lap,
}

fn bad(problem: rig_config::FieldProblem) -> BadInvocation {
    BadInvocation(format!(
        "{}: {} (fix: {})",
        problem.field, problem.message, problem.fix
    ))
}

/// The envelope and line to run a car with: a measured envelope and a line file when given.
#[derive(Default)]
struct Inputs {
    envelope: Option<Envelope>,
    line_offsets_m: Option<Vec<f64>>,
}

/// Reads `--envelope` and `--line` for `car` on `track`; a file that is malformed or made for
/// another car or track is a bad invocation (exit 2) with the file's own message and fix.
fn read_inputs(args: &LapsimArgs, track: &Track, car: &CarSpec) -> Result<Inputs, BadInvocation> {
    let envelope = match &args.envelope {
        Some(path) => Some(
            envelope_file::load(path, car)
                .map_err(|e| BadInvocation(format!("--envelope: {e}")))?,
        ),
        None => None,
    };
    let line_offsets_m = match &args.line {
        Some(path) => {
            let origin = path.display().to_string();
            let text = std::fs::read_to_string(path).map_err(|e| {
                BadInvocation(format!(
                    "--line: {origin} cannot be read: {e} (fix: give the path of a line file                      written by `rigd line --out FILE`)"
                ))
            })?;
            let course = LineCourse::new(track.clone(), car.clone());
            let offsets = LineFile::parse(&text, &origin)
                .and_then(|file| file.check(&course, &origin))
                .map_err(|e| BadInvocation(format!("--line: {e}")))?;
            Some(offsets)
        }
        None => None,
    };
    Ok(Inputs {
        envelope,
        line_offsets_m,
    })
}

/// The course of `car`'s line on `track` and its lap on its envelope (the robot's line and the
/// estimate unless `inputs` give them).
fn run_car(track: &Track, car: &CarSpec, inputs: &Inputs, margin: f64, repeat: u32) -> (Run, f64) {
    let limits = DriverLimits::from_car(car);
    let stations = match &inputs.line_offsets_m {
        Some(offsets) => line::from_offsets(track, limits.half_width_m, offsets),
        None => line::build(track, limits.half_width_m, true),
    };
    let course = Course::from_stations(track, &stations);
    let envelope = inputs
        .envelope
        .clone()
        .unwrap_or_else(|| Envelope::estimate(car));
    let mut sim = LapSim::new();
    let started = Instant::now();
    for _ in 1..repeat {
        sim.run(&course, &envelope, margin);
    }
    let lap = sim.run(&course, &envelope, margin).clone();
    let per_lap_s = started.elapsed().as_secs_f64() / f64::from(repeat);
    (
        Run {
            name: car.name.clone(),
            course,
            lap,
        },
        per_lap_s,
    )
}

fn print_run(run: &Run) {
    let [s1, s2, s3] = run.lap.sector_times_s;
    println!(
        "{}: lap {:.3} s  sectors {s1:.3} / {s2:.3} / {s3:.3} s  top {:.1} m/s",
        run.name,
        run.lap.time_s,
        run.lap.speeds_mps.iter().fold(0.0f64, |a, b| a.max(*b))
    );
}

fn write_csv(path: &std::path::Path, runs: &[&Run]) -> Result<()> {
    let file = std::fs::File::create(path)
        .with_context(|| format!("creating the CSV file {}", path.display()))?;
    let mut out = std::io::BufWriter::new(file);
    let mut header = String::from("distance_m");
    for run in runs {
        header.push_str(&format!(",{0}_speed_mps,{0}_time_s", run.name));
    }
    writeln!(out, "{header}")?;
    for (j, point) in runs[0].course.points.iter().enumerate() {
        write!(out, "{:.2}", point.distance_m)?;
        for run in runs {
            let k = j.min(run.lap.speeds_mps.len() - 1);
            write!(
                out,
                ",{:.3},{:.3}",
                run.lap.speeds_mps[k], run.lap.times_s[k]
            )?;
        }
        writeln!(out)?;
    }
    out.flush()
        .with_context(|| format!("writing the CSV file {}", path.display()))
}

/// Runs `rigd lapsim`.
pub fn run(args: &LapsimArgs) -> Result<()> {
    if !(args.margin > 0.0 && args.margin <= 1.0) {
        return Err(BadInvocation(format!(
            "--margin {} is outside (0, 1] (fix: give the fraction of the envelope to use, e.g. \
             --margin 0.96)",
            args.margin
        ))
        .into());
    }
    if args.repeat == 0 {
        return Err(BadInvocation("--repeat 0 runs nothing (fix: give 1 or more)".into()).into());
    }
    let track = load_track("--track", &args.track).map_err(bad)?;
    let car = load_car("--car", &args.car).map_err(bad)?;
    let other = match &args.compare_car {
        Some(name) => Some(load_car("--compare-car", name).map_err(bad)?),
        None => None,
    };
    let inputs = read_inputs(args, &track, &car)?;
    let (first, per_lap_s) = run_car(&track, &car, &inputs, args.margin, args.repeat);
    println!(
        "lapsim on {} ({} points, {} envelope, {} line, margin {}):",
        track.name(),
        first.course.points.len(),
        if inputs.envelope.is_some() {
            "measured"
        } else {
            "estimated"
        },
        if inputs.line_offsets_m.is_some() {
            "file"
        } else {
            "robot"
        },
        args.margin
    );
    print_run(&first);
    let second = other.map(|car| run_car(&track, &car, &Inputs::default(), args.margin, 1).0);
    if let Some(second) = &second {
        print_run(second);
        let comparison = compare::compare(
            &first.course,
            &first.lap,
            &second.course,
            &second.lap,
            STRETCH_M,
        );
        let [d1, d2, d3] = comparison.sector_deltas_s;
        println!(
            "{} against {}: lap {:+.3} s  sectors {d1:+.3} / {d2:+.3} / {d3:+.3} s",
            second.name, first.name, comparison.lap_delta_s
        );
        let mut stretches = comparison.stretches.clone();
        stretches.sort_by(|a, b| b.delta_s.abs().total_cmp(&a.delta_s.abs()));
        for stretch in stretches.iter().take(STRETCHES_SHOWN) {
            println!(
                "  {:6.0} - {:6.0} m: {:+.3} s  (least speed {:.1} vs {:.1} m/s)",
                stretch.from_m,
                stretch.to_m,
                stretch.delta_s,
                stretch.min_speed_a_mps,
                stretch.min_speed_b_mps
            );
        }
    }
    if args.repeat > 1 {
        println!(
            "time per lap: {:.3} ms over {} runs",
            per_lap_s * 1e3,
            args.repeat
        );
    }
    if let Some(path) = &args.csv {
        let mut runs = vec![&first];
        runs.extend(second.as_ref());
        write_csv(path, &runs)?;
    }
    Ok(())
}
