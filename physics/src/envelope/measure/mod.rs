//! Measuring a car's g-g-v [`Envelope`] by driving it in the full simulation on the flat
//! track (`rigd envelope`): what is run, in which order, and how the runs' numbers become the
//! envelope's points and shape. The runs themselves are in [`runs`]; [`parallel`] spreads
//! independent runs over threads without changing any result.
//!
//! Three phases, each a set of independent runs:
//! 1. a full-throttle pull in every gear ([`runs::gear_pull`]) and the full-throttle
//!    acceleration manoeuvre with gear changes: acceleration per gear against speed, top
//!    speed, power-optimal upshift speeds, shift time; the speed grid follows from the top
//!    speed ([`speed_grid`]);
//! 2. at every grid speed: the largest held steady circle (bisection on the lateral
//!    acceleration asked, [`LATERAL_RESOLUTION_MPS2`]), straight-line braking (ABS cars full
//!    pedal, others the best pedal of [`PEDALS_WITHOUT_ABS`]); one coast-down through all;
//! 3. the most brake pedal, and the most throttle, with which the car keeps
//!    [`COMBINED_SHARES`] of the lateral limit at [`COMBINED_SPEED_MPS`]
//!    ([`runs::combined`]): one point of the g-g diagram each, and the superellipse exponent
//!    through it ([`exponent_through`]); each exponent is the mean of its two points.
//!
//! Deterministic: every run starts from a new world, results are kept in the order the runs
//! were planned, whichever thread finished first. Allocates; not for the RT loop.

pub mod parallel;
pub mod runs;

use super::{Envelope, EnvelopePoint, EnvelopeSource, Provenance};
use crate::identity::digest_of;
use crate::maneuver::{self, Maneuver, ManeuverError};
use crate::spec::CarSpec;
use parallel::Job;
use runs::{Longitudinal, Pull};

/// Lowest speed of the grid, m/s (below it a steady circle needs nearly full lock).
pub const LOWEST_SPEED_MPS: f64 = 8.0;
/// Grid spacing above [`LOWEST_SPEED_MPS`], m/s (the grid is 8, 10, 15, 20, ...).
pub const SPEED_STEP_MPS: f64 = 5.0;
/// The grid ends at least this far below the top speed, m/s (where the car still has power
/// to hold its speed on a circle).
pub const TOP_SPEED_MARGIN_MPS: f64 = 2.5;
/// The lateral limit's bisection stops when the held and the lost lateral acceleration are
/// this close, m/s^2.
pub const LATERAL_RESOLUTION_MPS2: f64 = 0.02;
/// Lateral accelerations the bisection starts between, m/s^2.
pub const LATERAL_BRACKET_MPS2: (f64, f64) = (1.0, 20.0);
/// Braking runs start this far above the grid speed, and are measured over the speed
/// falling from 1 m/s above it to 1 m/s below, m/s (the pedal is fully built by then).
pub const BRAKING_RUN_UP_MPS: f64 = 5.0;
/// Pedals tried for a car without ABS (the one giving the most deceleration is kept).
pub const PEDALS_WITHOUT_ABS: [f64; 13] = [
    0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0,
];
/// Speed of the combined runs, m/s (the grid speed nearest it is used).
pub const COMBINED_SPEED_MPS: f64 = 20.0;
/// Shares of the lateral limit the combined runs hold.
pub const COMBINED_SHARES: [f64; 2] = [0.5, 0.8];
/// Bisection steps on the brake pedal or throttle of a combined run.
pub const COMBINED_STEPS: usize = 7;
/// Superellipse exponents are kept within these bounds.
pub const EXPONENT_BOUNDS: (f64, f64) = (1.0, 8.0);

/// A measurement that could not be completed: what failed and the fix.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeasureError {
    /// A run could not start (the car did not settle at a speed).
    #[error("{what}: {source} (fix: check the car data; `rigd maneuver` runs single manoeuvres to see what the car does)")]
    Run {
        /// Which run.
        what: String,
        /// Why.
        source: ManeuverError,
    },
    /// The car holds no circle at a grid speed, or has too low a top speed for two speeds.
    #[error("{0} (fix: check the car's tyres, steering and engine data; `rigd maneuver steady-circle` shows what the car does)")]
    Unmeasurable(String),
}

/// How far a measurement has got, for a progress display.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Phase number (1..=3) and its name.
    pub phase: (usize, &'static str),
    /// Runs of the phase finished.
    pub done: usize,
    /// Runs in the phase.
    pub total: usize,
    /// The run just finished and what it gave.
    pub finished: String,
}

/// The largest held circle at one speed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LimitCircle {
    /// Speed, m/s.
    pub speed_mps: f64,
    /// Radius of the largest held circle, m.
    pub radius_m: f64,
    /// Gear it was driven in.
    pub gear: i8,
    /// Its result (the envelope's lateral limit at this speed).
    pub result: runs::CircleResult,
}

/// A measured envelope and the figures it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The envelope.
    pub envelope: Envelope,
    /// Top speed, m/s (the highest speed of the full-throttle pulls).
    pub top_speed_mps: f64,
    /// Coast-down fit `a = rolling + drag * v^2`: (rolling m/s^2, drag 1/m).
    pub coast_fit: (f64, f64),
    /// The largest held circle at each grid speed.
    pub circles: Vec<LimitCircle>,
    /// The combined runs' points of the g-g diagram.
    pub combined: Vec<CombinedPoint>,
}

/// One point of the g-g diagram between the axes, from a combined run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CombinedPoint {
    /// Braking (else driving).
    pub braking: bool,
    /// Share of the lateral limit asked.
    pub share: f64,
    /// Longitudinal acceleration over the axis limit at the run's speed.
    pub x: f64,
    /// Lateral acceleration over the lateral limit at the run's speed.
    pub y: f64,
    /// Exponent of the superellipse through (x, y).
    pub exponent: f64,
}

/// The speeds measured for a car of `top_speed_mps`: [`LOWEST_SPEED_MPS`], then multiples of
/// [`SPEED_STEP_MPS`] up to [`TOP_SPEED_MARGIN_MPS`] below the top speed.
pub fn speed_grid(top_speed_mps: f64) -> Vec<f64> {
    let mut grid = vec![LOWEST_SPEED_MPS];
    let mut speed = (LOWEST_SPEED_MPS / SPEED_STEP_MPS).floor() * SPEED_STEP_MPS + SPEED_STEP_MPS;
    while speed <= top_speed_mps - TOP_SPEED_MARGIN_MPS {
        grid.push(speed);
        speed += SPEED_STEP_MPS;
    }
    grid
}

/// Full-throttle acceleration in one pull at `speed_mps`, if the pull covers that speed.
fn pull_accel(pull: &Pull, speed_mps: f64) -> Option<f64> {
    let above = pull.iter().position(|&(speed, _)| speed >= speed_mps)?;
    if above == 0 {
        return (pull[0].0 == speed_mps).then_some(pull[0].1);
    }
    let (low, high) = (pull[above - 1], pull[above]);
    let t = (speed_mps - low.0) / (high.0 - low.0);
    Some(low.1 + (high.1 - low.1) * t)
}

/// The best gear at `speed_mps` (1-based) and its full-throttle acceleration; below every
/// pull, first gear's first sample.
fn best_gear(pulls: &[Pull], speed_mps: f64) -> (i8, f64) {
    pulls
        .iter()
        .enumerate()
        .filter_map(|(index, pull)| Some((index as i8 + 1, pull_accel(pull, speed_mps)?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or((
            1,
            pulls.first().and_then(|p| p.first()).map_or(0.0, |s| s.1),
        ))
}

/// Road speed at which gear `gear + 1` first gives more acceleration than `gear` (0-based
/// index into `pulls`), else where `gear`'s pull ended (the rev limit).
fn upshift_speed(pulls: &[Pull], gear: usize) -> f64 {
    let (this, next) = (&pulls[gear], &pulls[gear + 1]);
    this.iter()
        .find(|&&(speed, accel)| pull_accel(next, speed).is_some_and(|higher| higher >= accel))
        .or(this.last())
        .map_or(0.0, |&(speed, _)| speed)
}

/// Mean time without drive over the upshifts of the full-throttle manoeuvre: per upshift, the
/// time within 1 s before to 2 s after the gear changed during which the acceleration (from
/// the speed over 30 ms) stayed below half of what the new gear gives at that speed.
fn shift_time_s(rows: &[maneuver::Row], pulls: &[Pull]) -> f64 {
    let mut times = Vec::new();
    for (index, pair) in rows.windows(2).enumerate() {
        let (from, to) = (pair[0].gear, pair[1].gear);
        if from < 1 || to != from + 1 || to as usize > pulls.len() {
            continue;
        }
        let Some(next_gear_accel) = pull_accel(&pulls[to as usize - 1], pair[1].speed_mps) else {
            continue;
        };
        let change_s = pair[1].time_s;
        let mut without_drive_s = 0.0;
        for window in rows[index.saturating_sub(200)..].windows(4) {
            let time_s = window[3].time_s;
            if time_s > change_s + 2.0 {
                break;
            }
            let accel =
                (window[3].speed_mps - window[0].speed_mps) / (window[3].time_s - window[0].time_s);
            if time_s >= change_s - 1.0 && accel < 0.5 * next_gear_accel {
                without_drive_s += window[3].time_s - window[2].time_s;
            }
        }
        times.push(without_drive_s);
    }
    if times.is_empty() {
        0.0
    } else {
        times.iter().sum::<f64>() / times.len() as f64
    }
}

/// Least-squares fit of `decel = rolling + drag * v^2` to coast-down points.
fn coast_fit(points: &[(f64, f64)]) -> (f64, f64) {
    let n = points.len() as f64;
    if n < 2.0 {
        return (points.first().map_or(0.0, |p| p.1), 0.0);
    }
    let (sx, sy) = points
        .iter()
        .fold((0.0, 0.0), |(sx, sy), &(v, a)| (sx + v * v, sy + a));
    let (mx, my) = (sx / n, sy / n);
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(sxy, sxx), &(v, a)| {
        let x = v * v - mx;
        (sxy + x * (a - my), sxx + x * x)
    });
    let drag = sxy / sxx;
    (my - drag * mx, drag)
}

/// Exponent `n` of the superellipse through (x, y) (shares of the axis limits):
/// `x^n + y^n = 1`, within [`EXPONENT_BOUNDS`].
pub fn exponent_through(x: f64, y: f64) -> f64 {
    let (mut low, mut high) = EXPONENT_BOUNDS;
    let excess = |n: f64| x.powf(n) + y.powf(n) - 1.0;
    if excess(low) <= 0.0 {
        return low;
    }
    if excess(high) >= 0.0 {
        return high;
    }
    for _ in 0..60 {
        let mid = 0.5 * (low + high);
        if excess(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
}

/// The largest held circle at `speed_mps` in `gear` (bisection on the lateral acceleration
/// asked, radius `v^2 / a`).
pub fn lateral_limit(
    spec: &CarSpec,
    speed_mps: f64,
    gear: i8,
) -> Result<Option<LimitCircle>, ManeuverError> {
    let (mut held, mut lost) = LATERAL_BRACKET_MPS2;
    let mut best = runs::circle(spec, speed_mps, speed_mps * speed_mps / held, gear)?;
    if !best.held {
        return Ok(None);
    }
    while lost - held > LATERAL_RESOLUTION_MPS2 {
        let asked = 0.5 * (held + lost);
        let result = runs::circle(spec, speed_mps, speed_mps * speed_mps / asked, gear)?;
        if result.held {
            held = asked;
            best = result;
        } else {
            lost = asked;
        }
    }
    Ok(Some(LimitCircle {
        speed_mps,
        radius_m: speed_mps * speed_mps / held,
        gear,
        result: best,
    }))
}

/// Straight-line braking limit at `speed_mps`: full pedal with ABS, else the best pedal of
/// [`PEDALS_WITHOUT_ABS`] (m/s^2, positive; 0 if no run got through the window).
pub fn braking_limit(spec: &CarSpec, speed_mps: f64) -> f64 {
    let pedals: &[f64] = if spec.brakes.abs {
        &[1.0]
    } else {
        &PEDALS_WITHOUT_ABS
    };
    let window = (speed_mps + 1.0, speed_mps - 1.0);
    pedals
        .iter()
        .filter_map(|&pedal| runs::braking(spec, speed_mps + BRAKING_RUN_UP_MPS, pedal, window))
        .fold(0.0, f64::max)
}

/// The largest brake pedal or throttle (bisection, [`COMBINED_STEPS`]) with which the car
/// keeps `lateral_mps2` at `speed_mps` ([`runs::combined`]); its result.
fn combined_limit(
    spec: &CarSpec,
    speed_mps: f64,
    lateral_mps2: f64,
    gear: i8,
    braking: bool,
) -> Result<runs::CombinedResult, ManeuverError> {
    let input = |amount: f64| {
        if braking {
            Longitudinal::Brake(amount)
        } else {
            Longitudinal::Throttle(amount)
        }
    };
    let full = runs::combined(spec, speed_mps, lateral_mps2, gear, input(1.0))?;
    if full.held {
        return Ok(full);
    }
    let (mut held, mut lost) = (0.0, 1.0);
    let mut best = runs::combined(spec, speed_mps, lateral_mps2, gear, input(0.0))?;
    for _ in 0..COMBINED_STEPS {
        let amount = 0.5 * (held + lost);
        let result = runs::combined(spec, speed_mps, lateral_mps2, gear, input(amount))?;
        if result.held {
            held = amount;
            best = result;
        } else {
            lost = amount;
        }
    }
    Ok(best)
}

/// Measures `spec`'s envelope on `threads` threads, calling `progress` after every run.
pub fn measure(
    spec: &CarSpec,
    threads: usize,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<Measurement, MeasureError> {
    let run_error = |what: String| move |source| MeasureError::Run { what, source };
    let gears = spec.drivetrain.gearbox.forward_ratios.len();

    // Phase 1: pulls per gear and the full-throttle manoeuvre.
    let mut jobs: Vec<Job<'_, Result<PhaseOne, MeasureError>>> = (1..=gears)
        .map(|gear| {
            let job: Job<'_, _> = (
                format!("full throttle in gear {gear}"),
                Box::new(move || {
                    runs::gear_pull(spec, gear as i8)
                        .map(PhaseOne::Pull)
                        .map_err(run_error(format!("full throttle in gear {gear}")))
                }),
            );
            job
        })
        .collect();
    jobs.push((
        "full-throttle acceleration with gear changes".into(),
        Box::new(move || {
            maneuver::simulate(spec, &Maneuver::Acceleration { duration_s: 60.0 })
                .map(PhaseOne::Acceleration)
                .map_err(run_error("the full-throttle acceleration".into()))
        }),
    ));
    let phase_one = parallel::run(threads, jobs, &|done, total, what| {
        progress(&Progress {
            phase: (1, "full throttle per gear"),
            done,
            total,
            finished: what.to_string(),
        })
    });
    let mut pulls = Vec::new();
    let mut acceleration_rows = Vec::new();
    for result in phase_one {
        match result? {
            PhaseOne::Pull(pull) => pulls.push(pull),
            PhaseOne::Acceleration(rows) => acceleration_rows = rows,
        }
    }
    let top_speed_mps = pulls
        .iter()
        .flatten()
        .map(|&(speed, _)| speed)
        .fold(0.0, f64::max);
    let grid = speed_grid(top_speed_mps);
    if grid.len() < 2 {
        return Err(MeasureError::Unmeasurable(format!(
            "the car's top speed is {top_speed_mps:.1} m/s: too low for two measured speeds \
             ({LOWEST_SPEED_MPS} m/s and {} m/s)",
            LOWEST_SPEED_MPS + SPEED_STEP_MPS
        )));
    }

    // Phase 2: lateral and braking limits per grid speed, one coast-down.
    let mut jobs: Vec<Job<'_, Result<PhaseTwo, MeasureError>>> = Vec::new();
    for &speed in &grid {
        let (gear, _) = best_gear(&pulls, speed);
        jobs.push((
            format!("steady circles at {speed} m/s"),
            Box::new(move || {
                let circle = lateral_limit(spec, speed, gear)
                    .map_err(run_error(format!("steady circles at {speed} m/s")))?;
                circle.map(PhaseTwo::Circle).ok_or_else(|| {
                    MeasureError::Unmeasurable(format!(
                        "the car holds no circle at {speed} m/s, even at {} m/s^2",
                        LATERAL_BRACKET_MPS2.0
                    ))
                })
            }),
        ));
        jobs.push((
            format!("braking at {speed} m/s"),
            Box::new(move || Ok(PhaseTwo::Braking(braking_limit(spec, speed)))),
        ));
    }
    let coast_from = grid[grid.len() - 1] + 2.0;
    let coast_speeds = grid.clone();
    jobs.push((
        "coast-down".into(),
        Box::new(move || {
            Ok(PhaseTwo::Coast(runs::coast_down(
                spec,
                coast_from,
                &coast_speeds,
            )))
        }),
    ));
    let phase_two = parallel::run(threads, jobs, &|done, total, what| {
        progress(&Progress {
            phase: (2, "lateral and braking limits"),
            done,
            total,
            finished: what.to_string(),
        })
    });
    let mut circles = Vec::new();
    let mut braking = Vec::new();
    let mut coast = Vec::new();
    for result in phase_two {
        match result? {
            PhaseTwo::Circle(circle) => circles.push(circle),
            PhaseTwo::Braking(decel) => braking.push(decel),
            PhaseTwo::Coast(points) => coast = points,
        }
    }
    let fit = coast_fit(&coast);
    let points: Vec<EnvelopePoint> = grid
        .iter()
        .enumerate()
        .map(|(index, &speed)| EnvelopePoint {
            speed_mps: speed,
            lateral_mps2: circles[index].result.lateral_mps2,
            braking_mps2: braking[index],
            drive_mps2: best_gear(&pulls, speed).1,
            coast_mps2: coast
                .iter()
                .find(|(at, _)| *at == speed)
                .map_or(fit.0 + fit.1 * speed * speed, |&(_, decel)| decel),
        })
        .collect();
    let mut envelope = Envelope {
        car_name: spec.name.clone(),
        car_digest: digest_of(spec),
        provenance: Provenance {
            source: EnvelopeSource::Measured,
            rigd_version: env!("CARGO_PKG_VERSION").to_string(),
            method: String::new(),
        },
        points,
        brake_exponent: 2.0,
        drive_exponent: 2.0,
        shift_time_s: shift_time_s(&acceleration_rows, &pulls),
        upshift_speeds_mps: (0..pulls.len().saturating_sub(1))
            .map(|gear| upshift_speed(&pulls, gear))
            .collect(),
    };

    // Phase 3: braking and driving on circles.
    let combined_speed = grid
        .iter()
        .copied()
        .min_by(|a, b| {
            (a - COMBINED_SPEED_MPS)
                .abs()
                .total_cmp(&(b - COMBINED_SPEED_MPS).abs())
        })
        .unwrap_or(COMBINED_SPEED_MPS);
    let (gear, _) = best_gear(&pulls, combined_speed);
    let lateral = envelope.lateral_limit_mps2(combined_speed);
    let mut jobs: Vec<Job<'_, Result<PhaseThree, MeasureError>>> = Vec::new();
    for braking in [true, false] {
        for share in COMBINED_SHARES {
            let what = format!(
                "{} on a circle at {:.0} % of the lateral limit",
                if braking { "braking" } else { "full throttle" },
                share * 100.0
            );
            let error = run_error(what.clone());
            jobs.push((
                what,
                Box::new(move || {
                    combined_limit(spec, combined_speed, share * lateral, gear, braking)
                        .map(|result| (braking, share, result))
                        .map_err(error)
                }),
            ));
        }
    }
    let phase_three = parallel::run(threads, jobs, &|done, total, what| {
        progress(&Progress {
            phase: (3, "combined braking and driving in turns"),
            done,
            total,
            finished: what.to_string(),
        })
    });
    let mut combined = Vec::new();
    for result in phase_three {
        let (braking, share, run) = result?;
        let speed = run.speed_mps;
        let axis = if braking {
            envelope.braking_limit_mps2(speed)
        } else {
            envelope.drive_limit_mps2(speed)
        };
        let x = (run.longitudinal_mps2.abs() / axis).clamp(0.0, 1.0);
        let y = (run.lateral_mps2 / envelope.lateral_limit_mps2(speed)).clamp(0.0, 1.0);
        combined.push(CombinedPoint {
            braking,
            share,
            x,
            y,
            exponent: exponent_through(x, y),
        });
    }
    let mean_exponent = |braking: bool| {
        let exponents: Vec<f64> = combined
            .iter()
            .filter(|point| point.braking == braking)
            .map(|point| point.exponent)
            .collect();
        exponents.iter().sum::<f64>() / exponents.len().max(1) as f64
    };
    envelope.brake_exponent = mean_exponent(true);
    envelope.drive_exponent = mean_exponent(false);
    envelope.provenance.method = format!(
        "measured in the full simulation on the flat track, step {dt} s; speeds {grid:?} m/s; \
         lateral: largest steady circle held at each speed (bisection to {res} m/s^2 on v^2/R, \
         {entry} s entry, {hold} s hold, judged over the last {judge} s: path curvature within \
         {curv} %, speed within {spd} %, steering off lock), in the best gear; braking: \
         straight-line, {pedal}, mean deceleration from 1 m/s above to 1 m/s below each speed; \
         drive: full-throttle pull per gear, best gear at each speed; coast: neutral \
         coast-down (fit a = {c0:.4} + {c2:.3e} v^2 m/s^2); shift time from the full-throttle \
         manoeuvre; exponents through the most brake pedal and throttle with which the car keeps \
         {shares:?} of the lateral limit at {vc} m/s (a spiral of constant lateral \
         acceleration, judged {w0}-{w1} s after the input)",
        dt = maneuver::DT_S,
        res = LATERAL_RESOLUTION_MPS2,
        entry = runs::CIRCLE_ENTRY_S,
        hold = runs::CIRCLE_HOLD_S,
        judge = runs::CIRCLE_JUDGE_S,
        curv = runs::CIRCLE_CURVATURE_TOLERANCE * 100.0,
        spd = runs::CIRCLE_SPEED_TOLERANCE * 100.0,
        pedal = if spec.brakes.abs {
            "full pedal (ABS)"
        } else {
            "the pedal giving the most deceleration"
        },
        c0 = fit.0,
        c2 = fit.1,
        shares = COMBINED_SHARES,
        vc = combined_speed,
        w0 = runs::COMBINED_WINDOW_START_S,
        w1 = runs::COMBINED_WINDOW_END_S,
    );
    Ok(Measurement {
        envelope,
        top_speed_mps,
        coast_fit: fit,
        circles,
        combined,
    })
}

/// What a phase-1 run gives.
enum PhaseOne {
    Pull(Pull),
    Acceleration(Vec<maneuver::Row>),
}

/// What a phase-3 run gives: braking (else driving), the share of the lateral limit, the
/// result.
type PhaseThree = (bool, f64, runs::CombinedResult);

/// What a phase-2 run gives.
enum PhaseTwo {
    Circle(LimitCircle),
    Braking(f64),
    Coast(Vec<(f64, f64)>),
}
