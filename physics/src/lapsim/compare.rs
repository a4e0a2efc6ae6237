//! Where one run loses time against another: the difference per sector and the stretches of
//! the lap (fixed lengths of centreline) with the largest loss, from the two runs' time at
//! each course point. The runs may use different lines on the same track (two cars of
//! different widths): points are matched by their centreline distance.

use super::{Course, Lap};

/// Time gained or lost on one stretch of the lap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    /// Centreline distance where the stretch starts, m.
    pub from_m: f64,
    /// Where it ends, m.
    pub to_m: f64,
    /// Time of the second run less the first's over the stretch, s (positive: the second is
    /// slower there).
    pub delta_s: f64,
    /// Least speed of the first run on the stretch, m/s.
    pub min_speed_a_mps: f64,
    /// Least speed of the second run, m/s.
    pub min_speed_b_mps: f64,
}

/// Two runs compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// Lap time of the second run less the first's, s.
    pub lap_delta_s: f64,
    /// Per-sector difference, s.
    pub sector_deltas_s: [f64; 3],
    /// Every stretch of the lap in order.
    pub stretches: Vec<Stretch>,
}

/// Time at centreline distance `distance_m` in `lap` on `course` (linear between points).
fn time_at(course: &Course, lap: &Lap, distance_m: f64) -> f64 {
    let points = &course.points;
    let above = points.partition_point(|point| point.distance_m <= distance_m);
    if above == 0 {
        return 0.0;
    }
    let j = above - 1;
    let (t0, d0) = (lap.times_s[j], points[j].distance_m);
    let (t1, d1) = if above < points.len() {
        (lap.times_s[above], points[above].distance_m)
    } else if course.closed {
        (lap.time_s, d0 + points[j].step_m)
    } else {
        return lap.times_s[j];
    };
    if d1 <= d0 {
        return t0;
    }
    t0 + (t1 - t0) * ((distance_m - d0) / (d1 - d0)).clamp(0.0, 1.0)
}

/// Least speed of `lap` between centreline distances `from_m` and `to_m`.
fn min_speed(course: &Course, lap: &Lap, from_m: f64, to_m: f64) -> f64 {
    course
        .points
        .iter()
        .zip(&lap.speeds_mps)
        .filter(|(point, _)| point.distance_m >= from_m && point.distance_m < to_m)
        .map(|(_, speed)| *speed)
        .fold(f64::INFINITY, f64::min)
}

/// Compares run `b` on `course_b` with run `a` on `course_a` in stretches of `stretch_m`.
pub fn compare(
    course_a: &Course,
    a: &Lap,
    course_b: &Course,
    b: &Lap,
    stretch_m: f64,
) -> Comparison {
    let length_m = course_a
        .points
        .last()
        .map_or(0.0, |point| point.distance_m + point.step_m);
    let count = (length_m / stretch_m).ceil().max(1.0) as usize;
    let stretches = (0..count)
        .map(|i| {
            let from_m = i as f64 * stretch_m;
            let to_m = ((i + 1) as f64 * stretch_m).min(length_m);
            let span = |course: &Course, lap: &Lap| {
                time_at(course, lap, to_m) - time_at(course, lap, from_m)
            };
            Stretch {
                from_m,
                to_m,
                delta_s: span(course_b, b) - span(course_a, a),
                min_speed_a_mps: min_speed(course_a, a, from_m, to_m),
                min_speed_b_mps: min_speed(course_b, b, from_m, to_m),
            }
        })
        .collect();
    let mut sector_deltas_s = [0.0; 3];
    for (delta, (sa, sb)) in sector_deltas_s
        .iter_mut()
        .zip(a.sector_times_s.iter().zip(&b.sector_times_s))
    {
        *delta = sb - sa;
    }
    Comparison {
        lap_delta_s: b.time_s - a.time_s,
        sector_deltas_s,
        stretches,
    }
}
