//! `rigd maneuver`: scripted driving on the physics alone, printed as CSV for vehicle tuners.
//!
//! The manoeuvres (ISO 4138 steady-state circle and constant-speed steer ramp, ISO 7401 step
//! steer, straight-line braking, full-throttle acceleration, coast-down) live in
//! `rig_physics::maneuver`; this module maps the command line onto them and loads the car with
//! the same loader as `[sim] car` (a built-in name or a path to a car TOML file). The CSV
//! trace goes to standard output, the characteristic values (steady values, response times,
//! overshoot, understeer gradient) to standard error as `# name = value unit` lines.
//! Columns: docs/maneuvers.md.

use anyhow::{Context, Result};
use rig_physics::maneuver::Maneuver;

use crate::cli::{BadInvocation, ManeuverArgs};

/// The manoeuvre names and what each does, for `--list` and error messages.
const MANEUVERS: [(&str, &str); 6] = [
    ("steady-circle", "ISO 4138 constant radius with slowly rising speed (--radius-m, --speed-kph to --speed-end-kph, --duration-s)"),
    ("step-steer", "ISO 7401 step steer at held speed (--speed-kph, --steer-deg, --duration-s)"),
    ("steer-ramp", "ISO 4138 constant speed, slow steering ramp; prints the understeer gradient (--speed-kph, --steer-rate-deg-per-s, --steer-deg)"),
    ("braking", "straight-line braking to rest (--speed-kph, --pedal)"),
    ("acceleration", "full throttle from rest with gear changes (--duration-s)"),
    ("coast-down", "rolling in neutral with no input (--speed-kph, --duration-s)"),
];

/// Runs the manoeuvre `args` names and writes its CSV trace to standard output.
pub fn run(args: &ManeuverArgs) -> Result<()> {
    if args.list {
        for (name, what) in MANEUVERS {
            println!("{name:14} {what}");
        }
        return Ok(());
    }
    let Some(name) = args.name.as_deref() else {
        return Err(BadInvocation(format!("no manoeuvre named (fix: give one of {}, e.g. `rigd maneuver step-steer --car road --speed-kph 80 --steer-deg 30`)", names())).into());
    };
    let maneuver = match name {
        "steady-circle" => Maneuver::SteadyStateCircle {
            radius_m: args.radius_m,
            speed_start_kph: args.speed_kph.unwrap_or(20.0),
            speed_end_kph: args.speed_end_kph,
            duration_s: args.duration_s.unwrap_or(60.0),
        },
        "step-steer" => Maneuver::StepSteer {
            speed_kph: args.speed_kph.unwrap_or(80.0),
            steer_deg: args.steer_deg,
            duration_s: args.duration_s.unwrap_or(4.0),
        },
        "steer-ramp" => Maneuver::SteerRamp {
            speed_kph: args.speed_kph.unwrap_or(80.0),
            steer_rate_deg_per_s: args.steer_rate_deg_per_s,
            max_steer_deg: args.steer_deg,
        },
        "braking" => Maneuver::Braking {
            speed_kph: args.speed_kph.unwrap_or(100.0),
            pedal: args.pedal,
        },
        "acceleration" => Maneuver::Acceleration {
            duration_s: args.duration_s.unwrap_or(20.0),
        },
        "coast-down" => Maneuver::CoastDown {
            speed_kph: args.speed_kph.unwrap_or(100.0),
            duration_s: args.duration_s.unwrap_or(120.0),
        },
        other => return Err(BadInvocation(format!("unknown manoeuvre `{other}` (fix: use one of {}; `rigd maneuver --list` describes them)", names())).into()),
    };
    let car = crate::runtime::simulation::load_car("--car", &args.car)
        .map_err(|p| BadInvocation(format!("{}: {} (fix: {})", p.field, p.message, p.fix)))?;
    let rows = rig_physics::maneuver::simulate(&car, &maneuver)
        .map_err(|e| BadInvocation(format!("{name}: {e}")))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    rig_physics::maneuver::write_csv(&rows, &mut out).context("writing the manoeuvre trace")?;
    for figure in rig_physics::maneuver::summary(&car, &maneuver, &rows) {
        eprintln!("# {} = {:.4} {}", figure.name, figure.value, figure.unit);
    }
    Ok(())
}

fn names() -> String {
    MANEUVERS.map(|(name, _)| name).join(", ")
}
