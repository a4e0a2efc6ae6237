//! The robot's line: lateral offsets from the centreline at stations every few metres, relaxed
//! so the line's curvature varies as linearly as the track's edges allow (wide entry, apex,
//! wide exit), then its curvature, banking, the length between stations and the grip of the
//! ground under it.
//!
//! The relaxation moves each station sideways until its curvature is the mean of its
//! neighbours' (curvature that varies linearly is what a smooth, fast line looks like),
//! coarse-to-fine over strides 32 .. 1 so long corners converge in a few hundred sweeps. Every
//! offset stays inside the racing surface less the car's half width and a safety margin.
//! Built once at construction (allocates); read-only while driving.
//!
//! A line can also be given as offsets ([`from_offsets`]: a line found by
//! [`crate::line_search`] or read from a line file), and a robot can carry on mid-lap on
//! another plan ([`continue_with_plan`]: how the line search re-drives a changed stretch).

use crate::track::{Track, TrackHint};

/// Target spacing of stations along the centreline, m.
pub const STATION_SPACING_M: f64 = 4.0;
/// Clearance kept between the car's side and the track edge, m.
const EDGE_MARGIN_M: f64 = 0.6;
/// Sweeps per stride.
const SWEEPS: usize = 60;

/// One station of the line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Station {
    /// Centreline distance of the station, m.
    pub distance_m: f64,
    /// Position of the line, m (horizontal).
    pub xy: [f64; 2],
    /// Lateral offset from the centreline, m (positive left).
    pub offset_m: f64,
    /// Signed curvature of the line, 1/m (positive turning left).
    pub curvature_per_m: f64,
    /// Bank angle of the track there, rad (positive: left edge lower).
    pub bank_rad: f64,
    /// Length of the line to the next station, m.
    pub step_m: f64,
    /// Friction scale of the ground under the line at low speed (its dry grip times its
    /// thin-film wet share; 1 on dry asphalt, 0.5 on gravel).
    pub grip_scale: f64,
}

impl Default for Station {
    fn default() -> Station {
        Station {
            distance_m: 0.0,
            xy: [0.0; 2],
            offset_m: 0.0,
            curvature_per_m: 0.0,
            bank_rad: 0.0,
            step_m: 0.0,
            grip_scale: 1.0,
        }
    }
}

/// Signed curvature of the circle through three points (positive turning left).
fn menger(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> f64 {
    let cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    let ab = (b[0] - a[0]).hypot(b[1] - a[1]);
    let bc = (c[0] - b[0]).hypot(c[1] - b[1]);
    let ca = (a[0] - c[0]).hypot(a[1] - c[1]);
    let denominator = ab * bc * ca;
    if denominator > 1e-12 {
        2.0 * cross / denominator
    } else {
        0.0
    }
}

struct Frame {
    centre: [f64; 2],
    left: [f64; 2],
    lo: f64,
    hi: f64,
}

fn at(frame: &Frame, offset: f64) -> [f64; 2] {
    [
        frame.centre[0] + frame.left[0] * offset,
        frame.centre[1] + frame.left[1] * offset,
    ]
}

/// Number of stations the robot places on `track` (one every [`STATION_SPACING_M`] or so).
pub fn station_count(track: &Track) -> usize {
    ((track.length_m() / STATION_SPACING_M).round() as usize).max(8)
}

/// The cross-section frames of `count` evenly spaced stations, with the offsets that keep a
/// car `keep_m` from its centre to its side plus margin inside the racing surface.
fn frames(track: &Track, count: usize, keep_m: f64) -> Vec<Frame> {
    let spacing = track.length_m() / count as f64;
    (0..count)
        .map(|j| {
            let section = track.section(j as f64 * spacing);
            let (sin, cos) = section.heading_rad.sin_cos();
            let (lo, hi) = (
                -(section.half_width_right_m - keep_m),
                section.half_width_left_m - keep_m,
            );
            let (lo, hi) = if lo <= hi { (lo, hi) } else { (0.0, 0.0) };
            Frame {
                centre: [section.centre_m[0], section.centre_m[1]],
                left: [-sin, cos],
                lo,
                hi,
            }
        })
        .collect()
}

/// The line for a car `half_width_m` wide: relaxed when `optimise`, the centreline otherwise.
pub fn build(track: &Track, half_width_m: f64, optimise: bool) -> Vec<Station> {
    let m = station_count(track);
    let frames = frames(track, m, half_width_m + EDGE_MARGIN_M);
    let mut offsets = vec![0.0; m];
    if optimise && track.is_closed() {
        relax(&frames, &mut offsets);
    }
    stations_at(track, &frames, &offsets)
}

/// The line through `offsets_m` (one per station, evenly spaced over the lap from the start
/// line; positive left), each clamped so a car `half_width_m` wide keeps its side on the
/// racing surface. A line found by search or read from a line file becomes the robot's
/// stations through here.
pub fn from_offsets(track: &Track, half_width_m: f64, offsets_m: &[f64]) -> Vec<Station> {
    let m = offsets_m.len().max(1);
    let frames = frames(track, m, half_width_m);
    let offsets: Vec<f64> = (0..m)
        .map(|j| {
            let offset = offsets_m.get(j).copied().unwrap_or(0.0);
            let offset = if offset.is_finite() { offset } else { 0.0 };
            offset.clamp(frames[j].lo, frames[j].hi)
        })
        .collect();
    stations_at(track, &frames, &offsets)
}

/// The stations of the line through `offsets` across `frames`.
fn stations_at(track: &Track, frames: &[Frame], offsets: &[f64]) -> Vec<Station> {
    let m = frames.len();
    let spacing = track.length_m() / m as f64;
    let point = |j: usize| at(&frames[j % m], offsets[j % m]);
    let mut hint = TrackHint::default();
    let mut stations: Vec<Station> = (0..m)
        .map(|j| {
            let section = track.section(j as f64 * spacing);
            let (prev, here, next) = (point(j + m - 1), point(j), point(j + 1));
            let surface = track.ground(here[0], here[1], &mut hint).surface;
            Station {
                distance_m: j as f64 * spacing,
                xy: here,
                offset_m: offsets[j],
                curvature_per_m: menger(prev, here, next),
                bank_rad: section.bank_rad,
                step_m: (next[0] - here[0]).hypot(next[1] - here[1]),
                grip_scale: surface.grip_scale * surface.water.film_ratio,
            }
        })
        .collect();
    // Light smoothing of the three-point curvature (it carries the stations' small kinks).
    for _ in 0..2 {
        let raw: Vec<f64> = stations.iter().map(|s| s.curvature_per_m).collect();
        for (j, station) in stations.iter_mut().enumerate() {
            station.curvature_per_m =
                0.25 * raw[(j + m - 1) % m] + 0.5 * raw[j] + 0.25 * raw[(j + 1) % m];
        }
    }
    stations
}

/// Coarse-to-fine relaxation of the offsets towards linearly varying curvature.
fn relax(frames: &[Frame], offsets: &mut [f64]) {
    let m = frames.len();
    let mut stride = 32;
    while stride > m / 8 && stride > 1 {
        stride /= 2;
    }
    loop {
        for _ in 0..SWEEPS {
            let mut j = 0;
            while j < m {
                adjust(frames, offsets, j, stride);
                j += stride;
            }
        }
        if stride == 1 {
            break;
        }
        // Fill the stations between the adjusted ones before refining.
        let mut j = 0;
        while j < m {
            let next = (j + stride) % m;
            for k in 1..stride {
                let idx = (j + k) % m;
                let t = k as f64 / stride as f64;
                let value = offsets[j] + (offsets[next] - offsets[j]) * t;
                offsets[idx] = value.clamp(frames[idx].lo, frames[idx].hi);
            }
            j += stride;
        }
        stride /= 2;
    }
}

/// Moves station `j` sideways so its curvature is the mean of its neighbours' at `stride`.
fn adjust(frames: &[Frame], offsets: &mut [f64], j: usize, stride: usize) {
    let m = frames.len();
    let idx = |k: isize| ((j as isize + k * stride as isize).rem_euclid(m as isize)) as usize;
    let p = |k: isize| at(&frames[idx(k)], offsets[idx(k)]);
    let (pp, prev, here, next, nn) = (p(-2), p(-1), p(0), p(1), p(2));
    let target = 0.5 * (menger(pp, prev, here) + menger(here, next, nn));
    let current = menger(prev, here, next);
    let nudge = 0.01;
    let moved = menger(prev, at(&frames[j], offsets[j] + nudge), next);
    let slope = (moved - current) / nudge;
    if slope.abs() > 1e-9 {
        let frame = &frames[j];
        offsets[j] = (offsets[j] + (target - current) / slope).clamp(frame.lo, frame.hi);
    }
}

/// `driving` carrying on, mid-lap, along the line and speeds `planned` has: the driving state
/// (track hint, gear logic, clock, learned understeer) is `driving`'s, the plan is
/// `planned`'s. The line search restores a saved car and robot at a point before a changed
/// stretch and drives the changed line from there, exactly as if the robot had always had it.
pub fn continue_with_plan(driving: &super::Robot, planned: super::Robot) -> super::Robot {
    super::Robot {
        hint: driving.hint,
        gears: driving.gears,
        last_time_s: driving.last_time_s,
        understeer_rad_per_mps2: driving.understeer_rad_per_mps2,
        ..planned
    }
}
