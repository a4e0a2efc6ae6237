//! The line search against the analytic answers (issue 22), on two test tracks defined here.
//!
//! **A 90-degree corner between straights** (a rounded square: four identical left corners
//! of centreline radius `Rc` = 20 m joined by 80 m straights, 10 m wide). The widest arc
//! through a corner of angle `theta` for a car whose centre may come within `d` of the
//! centreline (half the width less half the car) is tangent to the outside edge on both
//! straights and touches the inside edge at the apex. Its centre lies on the corner's
//! bisector, `s` behind the centreline arc's centre `O`; tangency to the outside edge (at
//! `Rc + d` from `O`, at `theta/2` to the bisector) and touching the inside edge (`Rc - d`
//! from `O`, on the bisector) give `R = Rc + d + s cos(theta/2)` and `R = s + Rc - d`, so
//!
//! ```text
//! R_max = Rc + d (1 + cos(theta/2)) / (1 - cos(theta/2)),   s = R_max - Rc + d
//! ```
//!
//! (44.04 m here: `d` = 4.125 m for the road car; 180 degrees gives `Rc + d`, a sharp inside
//! corner `Rc = d` gives the textbook `2d / (1 - cos(theta/2))`). The straights must reach
//! `s sin(theta/2)` (19.8 m) past each end of the arc. The test builds that line from the
//! track's geometry, checks its radius, drives it, and checks the search's line against it.
//!
//! **A circle** (radius 40 m, 10 m wide): on a constant-radius corner at the grip limit a lap
//! of radius `r` takes `2 pi r / sqrt(mu g r)`, so the lap time goes as `sqrt(r)` and the
//! inside line is the fastest constant-offset line. The test drives constant-offset lines,
//! checks the `sqrt(r)` law and that the search started on the best of them stays there.

use rig_physics::line_search::drive::{run_full, Course, Runner};
use rig_physics::line_search::{Search, Settings};
use rig_physics::robot::line::from_offsets;
use rig_physics::spec;
use rig_physics::track::Track;
use std::f64::consts::{FRAC_PI_2, PI};

/// Centreline radius of the square's corners, m.
const CORNER_RADIUS_M: f64 = 20.0;
/// Length of the square's straights, m.
const STRAIGHT_M: f64 = 80.0;
/// The constructed arc keeps this far from the edges (the robot's tracking error: with 0.3 m
/// its wheels leave the track at the exit), m.
const ARC_MARGIN_M: f64 = 0.6;

fn square() -> Track {
    let side = format!(
        "[[piece]]\nkind = \"straight\"\nlength_m = {STRAIGHT_M}\n\n[[piece]]\nkind = \"arc\"\n\
         radius_m = {CORNER_RADIUS_M}\nangle_deg = 90.0\nturn = \"left\"\n\n"
    );
    let text = format!(
        "name = \"Square\"\nseed = 1\nstart_heading_deg = 0.0\nhalf_width_m = 5.0\n\
         runoff_m = 8.0\ncrown_m = 0.0\nrunoff_surface = \"grass\"\n\n{}",
        side.repeat(4)
    );
    Track::from_toml(&text, "test:square").unwrap()
}

fn circle() -> Track {
    Track::from_toml(
        "name = \"Circle\"\nseed = 1\nstart_heading_deg = 0.0\nhalf_width_m = 5.0\n\
         runoff_m = 8.0\ncrown_m = 0.0\nrunoff_surface = \"grass\"\n\n[[piece]]\n\
         kind = \"arc\"\nradius_m = 40.0\nangle_deg = 360.0\nturn = \"left\"\n",
        "test:circle",
    )
    .unwrap()
}

/// The widest arc's radius through a corner of angle `theta` (rad), centreline radius `rc`,
/// for a car centre allowed `d` either side of the centreline.
fn max_radius_m(theta: f64, rc: f64, d: f64) -> f64 {
    let c = (0.5 * theta).cos();
    rc + d * (1.0 + c) / (1.0 - c)
}

/// Centreline distance of the middle of the square's corner `k`, m.
fn corner_middle_m(k: usize) -> f64 {
    let arc = CORNER_RADIUS_M * FRAC_PI_2;
    k as f64 * (STRAIGHT_M + arc) + STRAIGHT_M + 0.5 * arc
}

/// The square's stations inside corner `k`'s centreline arc.
fn corner_stations(course: &Course, k: usize) -> Vec<usize> {
    let half = 0.5 * CORNER_RADIUS_M * FRAC_PI_2;
    (0..course.station_count())
        .filter(|&j| (j as f64 * course.spacing_m() - corner_middle_m(k)).abs() < half)
        .collect()
}

/// The max-radius line on the square for a car centre allowed `d` from the centreline: the
/// outside edge on the straights and, through each corner, the arc of radius `R_max`
/// centred `s` behind the corner's centre on its bisector. Offsets per station and `R_max`.
fn max_radius_line(course: &Course, d: f64) -> (Vec<f64>, f64) {
    let theta = FRAC_PI_2;
    let radius = max_radius_m(theta, CORNER_RADIUS_M, d);
    let back = radius - CORNER_RADIUS_M + d;
    let track = course.track();
    // Each corner's arc centre and bisector (unit, from the corner's centre outwards).
    let arcs: Vec<([f64; 2], [f64; 2])> = (0..4)
        .map(|k| {
            let middle = track.section(corner_middle_m(k));
            let (sin, cos) = middle.heading_rad.sin_cos();
            let outwards = [sin, -cos]; // right of the heading: away from a left corner
            let o = [
                middle.centre_m[0] - CORNER_RADIUS_M * outwards[0],
                middle.centre_m[1] - CORNER_RADIUS_M * outwards[1],
            ];
            (
                [o[0] - back * outwards[0], o[1] - back * outwards[1]],
                outwards,
            )
        })
        .collect();
    let offsets = (0..course.station_count())
        .map(|j| {
            let section = track.section(j as f64 * course.spacing_m());
            let (sin, cos) = section.heading_rad.sin_cos();
            let left = [-sin, cos];
            let p = section.centre_m;
            let mut offset = -d; // the outside edge (right) on the straights
            for (centre, bisector) in &arcs {
                let from = [p[0] - centre[0], p[1] - centre[1]];
                let length = from[0].hypot(from[1]);
                // Inside the arc's angular span (theta/2 either side of the bisector), the
                // line is where the station's normal crosses the circle on the outer side.
                if (from[0] * bisector[0] + from[1] * bisector[1]) / length >= (0.5 * theta).cos() {
                    let b = from[0] * left[0] + from[1] * left[1];
                    let discriminant = b * b - (length * length - radius * radius);
                    if discriminant >= 0.0 {
                        offset = -b - discriminant.sqrt();
                    }
                }
            }
            offset
        })
        .collect();
    (offsets, radius)
}

/// Least-squares (Kasa) circle through `points`: its radius, m.
fn fitted_radius_m(points: &[[f64; 2]]) -> f64 {
    let n = points.len() as f64;
    let mean = points
        .iter()
        .fold([0.0, 0.0], |m, p| [m[0] + p[0] / n, m[1] + p[1] / n]);
    let (mut suu, mut svv, mut suv, mut suuu, mut svvv, mut suvv, mut svuu) =
        (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for p in points {
        let (u, v) = (p[0] - mean[0], p[1] - mean[1]);
        suu += u * u;
        svv += v * v;
        suv += u * v;
        suuu += u * u * u;
        svvv += v * v * v;
        suvv += u * v * v;
        svuu += v * u * u;
    }
    let (b1, b2) = (0.5 * (suuu + suvv), 0.5 * (svvv + svuu));
    let det = suu * svv - suv * suv;
    let (uc, vc) = ((b1 * svv - b2 * suv) / det, (suu * b2 - suv * b1) / det);
    (uc * uc + vc * vc + (suu + svv) / n).sqrt()
}

/// The radius of the circle fitted to the line `offsets` through each corner's arc, m.
fn corner_radii_m(course: &Course, offsets: &[f64]) -> Vec<f64> {
    let stations = from_offsets(course.track(), 0.0, offsets);
    (0..4)
        .map(|k| {
            let points: Vec<[f64; 2]> = corner_stations(course, k)
                .iter()
                .map(|&j| stations[j].xy)
                .collect();
            fitted_radius_m(&points)
        })
        .collect()
}

#[test]
fn through_a_90_degree_corner_the_search_is_not_slower_than_the_widest_arc() {
    let course = Course::new(square(), spec::builtin::car("road").unwrap());
    let d = course.bounds_m(0).1;
    assert!((d - (5.0 - 0.875)).abs() < 1e-9, "d = {d}");
    let r_max = max_radius_m(FRAC_PI_2, CORNER_RADIUS_M, d);
    assert!((r_max - 44.042).abs() < 1e-3, "R_max {r_max}");
    // Special cases of the formula: a hairpin's widest arc is Rc + d; a sharp inside corner
    // (Rc = d) gives 2 d / (1 - cos(theta/2)).
    assert!((max_radius_m(PI, 30.0, 4.0) - 34.0).abs() < 1e-9);
    let c = (0.25 * PI).cos();
    assert!((max_radius_m(FRAC_PI_2, 4.0, 4.0) - 8.0 / (1.0 - c)).abs() < 1e-9);

    // The constructed line is that arc through every corner (so the formula and the
    // track's geometry agree), and it stays inside the edges everywhere.
    let (widest, r_line) = max_radius_line(&course, d - ARC_MARGIN_M);
    for radius in corner_radii_m(&course, &widest) {
        assert!(
            (radius - r_line).abs() < 1e-6,
            "{radius} m against {r_line} m"
        );
    }
    for (j, offset) in widest.iter().enumerate() {
        let (lo, hi) = course.bounds_m(j);
        assert!(
            (lo..=hi).contains(offset),
            "station {j}: {offset} outside {lo}..{hi}"
        );
    }
    let mut runner = Runner::new(&course);
    let arc_lap_s = run_full(&mut runner, course.robot(&widest))
        .expect("the robot holds the widest arc with its margin")
        .lap_s;

    // A few iterations from the robot's planned line.
    let mut search = Search::new(course.clone(), Settings::default()).unwrap();
    for _ in 0..3 {
        search.iterate();
    }
    let radii = corner_radii_m(&course, search.offsets_m());
    println!(
        "square: R_max {r_max:.2} m (widest arc the robot holds {r_line:.2} m, lap {arc_lap_s:.3} s); \
         planned line {:.3} s; found {:.3} s, corner radii {radii:.2?} m",
        search.start_lap_s(),
        search.best_lap_s()
    );
    // Not slower than the analytic line: the car cannot follow the arc's curvature step at
    // its ends, so a line with linearly varying curvature (tighter at the apex) is faster.
    assert!(
        search.best_lap_s() < arc_lap_s - 0.1,
        "found {} s against the widest arc's {arc_lap_s} s",
        search.best_lap_s()
    );
    // Its arc through every corner uses most of the width (the centreline's radius is
    // 0.45 R_max), and no line inside the edges is wider than the widest arc.
    for radius in radii {
        assert!(
            (0.7 * r_max..=r_max).contains(&radius),
            "corner radius {radius} m against R_max {r_max} m"
        );
    }
}

#[test]
fn on_a_circle_the_search_stays_on_the_fastest_constant_offset_line() {
    let course = Course::new(circle(), spec::builtin::car("road").unwrap());
    let m = course.station_count();
    let (_, inside) = course.bounds_m(0);
    let mut runner = Runner::new(&course);
    // Constant-offset lines from 3 m outside to the inside edge (the car's side 0.125 m
    // from it); further out the robot's tracking error takes a wheel off the track.
    let laps: Vec<(f64, f64)> = [-3.0, -1.0, 1.0, 3.0, inside - 0.125]
        .iter()
        .map(|&offset| {
            let lap = run_full(&mut runner, course.robot(&vec![offset; m]))
                .unwrap_or_else(|why| panic!("offset {offset}: {why:?}"))
                .lap_s;
            (40.0 - offset, lap)
        })
        .collect();
    println!("circle: (radius m, lap s) {laps:.3?}");
    // Lap time as sqrt(radius): every line against the outermost, within 0.3 %.
    let (r0, t0) = laps[0];
    for &(r, t) in &laps[1..] {
        let expected = t0 * (r / r0).sqrt();
        assert!(
            (t / expected - 1.0).abs() < 0.003,
            "radius {r}: {t} s, sqrt law {expected} s"
        );
    }
    let (best_radius, best_lap) = laps[laps.len() - 1];
    assert!(
        laps.iter().all(|&(_, t)| t >= best_lap),
        "the inside line is fastest"
    );

    // The search from the best constant line keeps its lap (within 0.05 %: the robot's
    // small tracking gains) and never gets worse.
    let offset = 40.0 - best_radius;
    let mut search = Search::from_line(course, Settings::default(), vec![offset; m]).unwrap();
    for _ in 0..4 {
        search.iterate();
    }
    println!("circle: search from it {:.4} s", search.best_lap_s());
    assert!(search.best_lap_s() <= best_lap);
    assert!(
        search.best_lap_s() > best_lap * (1.0 - 5e-4),
        "{} s against {best_lap} s",
        search.best_lap_s()
    );
}
