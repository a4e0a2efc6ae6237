//! The seed's question on a track (docs/line-search.md): per corner, the section times of the
//! robot's planned line, the classic line (outside, late apex, outside), the tight inside line
//! and a found line (a `rigd line` file), each driven as a whole lap by the same robot, plus
//! an SVG of the lines. Regenerate the tables and the plot with
//! `cargo run --profile test -p rig-physics --example line_compare -- corners road LINE.toml docs/line-search-corners.svg`.

use rig_physics::line_search::drive::{run_full, Course, Runner, Trace};
use rig_physics::line_search::file::LineFile;
use rig_physics::robot::line::from_offsets;
use rig_physics::{spec, track};

/// Kept between the car's side and the edge on the constructed lines (tracking error), m.
const MARGIN_M: f64 = 1.0;

/// One corner: its arc's stations (first, last past the end), direction (+1 left), tightest
/// radius, and its section: from the middle of the straight before to the middle of the
/// straight after (station numbers unwrapped around the corner, so `from` may be negative and
/// `to` past the lap's station count).
struct Corner {
    first: usize,
    end: usize,
    sign: f64,
    radius_m: f64,
    from: isize,
    to: isize,
}

impl Corner {
    /// Stations of the straight before the arc that belong to this corner's section.
    fn room_in(&self) -> f64 {
        (self.first as isize - self.from) as f64
    }

    /// Stations of the straight after the arc that belong to this corner's section.
    fn room_out(&self) -> f64 {
        (self.to - self.end as isize) as f64
    }
}

/// The corners of the course (runs of curvature of one sign), each with its section.
fn corners(course: &Course) -> Vec<Corner> {
    let m = course.station_count();
    let curvature: Vec<f64> = (0..m)
        .map(|j| {
            course
                .track()
                .section(j as f64 * course.spacing_m())
                .curvature_per_m
        })
        .collect();
    let mut arcs: Vec<(usize, usize)> = Vec::new();
    let mut j = 0;
    while j < m {
        if curvature[j].abs() > 1e-4 {
            let start = j;
            while j < m
                && curvature[j].abs() > 1e-4
                && curvature[j].signum() == curvature[start].signum()
            {
                j += 1;
            }
            arcs.push((start, j));
        } else {
            j += 1;
        }
    }
    let count = arcs.len();
    (0..count)
        .map(|i| {
            let (first, end) = arcs[i];
            // Half of each neighbouring straight belongs to this corner.
            let before = if i == 0 {
                arcs[count - 1].1 as isize - m as isize
            } else {
                arcs[i - 1].1 as isize
            };
            let after = if i + 1 == count {
                (arcs[0].0 + m) as isize
            } else {
                arcs[i + 1].0 as isize
            };
            Corner {
                first,
                end,
                sign: curvature[first].signum(),
                radius_m: 1.0
                    / curvature[first..end]
                        .iter()
                        .fold(0.0f64, |a, k| a.max(k.abs())),
                from: (first as isize + before) / 2,
                to: (end as isize + after) / 2,
            }
        })
        .collect()
}

/// Raised-cosine blend from 0 (at `a`) to 1 (at `b`).
fn blend(j: f64, a: f64, b: f64) -> f64 {
    if b <= a {
        return 1.0;
    }
    let t = ((j - a) / (b - a)).clamp(0.0, 1.0);
    0.5 - 0.5 * (std::f64::consts::PI * t).cos()
}

/// A line built corner by corner: `shape(corner, station, outside, inside)` gives the offset
/// at each station of the corner's section (the station unwrapped as the corner's `from` and
/// `to` are; None: leave the planned line there).
fn line_of(
    course: &Course,
    planned: &[f64],
    list: &[Corner],
    shape: impl Fn(&Corner, f64, f64, f64) -> Option<f64>,
) -> Vec<f64> {
    let m = course.station_count();
    let mut line = planned.to_vec();
    for corner in list {
        for k in corner.from..corner.to {
            let j = k.rem_euclid(m as isize) as usize;
            let (lo, hi) = course.bounds_m(j);
            let (lo, hi) = (lo + MARGIN_M, hi - MARGIN_M);
            let (outside, inside) = if corner.sign > 0.0 {
                (lo, hi)
            } else {
                (hi, lo)
            };
            if let Some(offset) = shape(corner, k as f64, outside, inside) {
                line[j] = offset;
            }
        }
    }
    line
}

/// Classic: outside until the turn-in, a late apex (two thirds through the arc) on the inside,
/// and the whole straight after to drift back out.
fn classic_shape(c: &Corner, k: f64, outside: f64, inside: f64) -> Option<f64> {
    let (first, end) = (c.first as f64, c.end as f64);
    let apex = first + 0.66 * (end - first);
    let turn_in = first - 0.5 * (end - first).min(c.room_in());
    let track_out = end + c.room_out() * 0.8;
    let x = if k <= apex {
        blend(k, turn_in, apex)
    } else {
        1.0 - blend(k, apex, track_out)
    };
    Some(outside + (inside - outside) * x)
}

/// Inside: on the inside edge through the whole arc, from the middle of the road `lead`
/// stations before to as many after; corners tighter than `min_radius_m` keep the planned
/// line.
fn inside_shape(c: &Corner, k: f64, inside: f64, lead: f64, min_radius_m: f64) -> Option<f64> {
    if c.radius_m < min_radius_m {
        return None;
    }
    let (first, end) = (c.first as f64, c.end as f64);
    let x = if k <= first {
        blend(k, first - lead.min(c.room_in()), first)
    } else if k <= end {
        1.0
    } else {
        1.0 - blend(k, end, end + lead.min(c.room_out()))
    };
    Some(inside * x)
}

/// Each corner's section time on the flying lap of `trace`, s.
fn section_times(trace: &Trace, course: &Course, list: &[Corner]) -> Vec<f64> {
    let m = course.station_count() as isize;
    list.iter()
        .map(|c| {
            let (from, to) = (c.from.rem_euclid(m) as usize, c.to.rem_euclid(m) as usize);
            let t = trace.crossings[to].time_s - trace.crossings[from].time_s;
            if to >= from {
                t
            } else {
                t + trace.lap_s
            }
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let track_name = args.get(1).map_or("corners", String::as_str);
    let car_name = args.get(2).map_or("road", String::as_str);
    let course = Course::new(
        track::builtin(track_name).expect("a built-in track"),
        spec::builtin::car(car_name).expect("a built-in car"),
    );
    let m = course.station_count();
    let list = corners(&course);
    let planned = course.planned_offsets();
    let classic = line_of(&course, &planned, &list, classic_shape);
    let lead = 40.0 / course.spacing_m();
    let inside_line = line_of(&course, &planned, &list, |c, k, _outside, inside| {
        inside_shape(c, k, inside, lead, 0.0)
    });
    // The same with the planned line through corners tighter than 15 m radius (the robot
    // cannot hold the inside line there).
    let inside_open = line_of(&course, &planned, &list, |c, k, _outside, inside| {
        inside_shape(c, k, inside, lead, 15.0)
    });
    let mut lines: Vec<(String, Vec<f64>)> = vec![
        ("planned".into(), planned.clone()),
        ("classic".into(), classic),
        ("inside".into(), inside_line),
        ("inside, planned in the hairpin".into(), inside_open),
    ];
    if let Some(path) = args.get(3).filter(|p| !p.is_empty()) {
        let text = std::fs::read_to_string(path).expect("the line file");
        let file = LineFile::parse(&text, path).expect("a line file");
        lines.push((
            "found".into(),
            file.check(&course, path).expect("a line for this course"),
        ));
    }
    let mut runner = Runner::new(&course);
    println!(
        "| line | lap s | {} |",
        (1..=list.len())
            .map(|i| format!("corner {i} s"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|---|{}", "---|".repeat(list.len()));
    for (name, line) in &lines {
        match run_full(&mut runner, course.robot(line)) {
            Ok(trace) => {
                // Three more laps after the flying lap: the line holds lap after lap.
                let mut laps = vec![trace.lap_s];
                let mut last = trace.crossings[m].time_s;
                let more = runner.drive_until(5 * m, last + 600.0, |k, crossing| {
                    if k % m == 0 {
                        laps.push(crossing.time_s - last);
                        last = crossing.time_s;
                    }
                    false
                });
                eprintln!(
                    "{name}: laps {laps:.3?} {}",
                    if more.is_ok() {
                        "inside the edges"
                    } else {
                        "LEFT THE TRACK"
                    }
                );
                let times = section_times(&trace, &course, &list);
                println!(
                    "| {name} | {:.3} | {} |",
                    trace.lap_s,
                    times
                        .iter()
                        .map(|t| format!("{t:.3}"))
                        .collect::<Vec<_>>()
                        .join(" | ")
                );
            }
            Err(why) => println!("| {name} | {why:?} | |"),
        }
    }
    for (i, c) in list.iter().enumerate() {
        println!(
            "corner {}: stations {}..{} ({:.0} .. {:.0} m), {}",
            i + 1,
            c.first,
            c.end,
            c.first as f64 * course.spacing_m(),
            c.end as f64 * course.spacing_m(),
            if c.sign > 0.0 { "left" } else { "right" }
        );
    }
    if let Some(svg_path) = args.get(4) {
        let colours = ["#888888", "#1f77b4", "#d62728", "#ff7f0e", "#2ca02c"];
        let half = course.car().chassis.body_width_m * 0.5;
        let polyline = |offsets: &[f64]| -> Vec<[f64; 2]> {
            from_offsets(course.track(), half, offsets)
                .iter()
                .map(|s| s.xy)
                .collect()
        };
        let edge = |side: f64| -> Vec<[f64; 2]> {
            (0..m)
                .map(|j| {
                    let s = course.track().section(j as f64 * course.spacing_m());
                    let w = if side > 0.0 {
                        s.half_width_left_m
                    } else {
                        -s.half_width_right_m
                    };
                    let (sin, cos) = s.heading_rad.sin_cos();
                    [s.centre_m[0] - sin * w, s.centre_m[1] + cos * w]
                })
                .collect()
        };
        let all: Vec<[f64; 2]> = edge(1.0).into_iter().chain(edge(-1.0)).collect();
        let (x0, x1) = all
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p[0]), b.max(p[0])));
        let (y0, y1) = all
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p[1]), b.max(p[1])));
        let scale = 2.0;
        let path = |points: &[[f64; 2]], colour: &str, width: f64| {
            let d: Vec<String> = points
                .iter()
                .map(|p| {
                    format!(
                        "{:.1},{:.1}",
                        (p[0] - x0 + 10.0) * scale,
                        (y1 - p[1] + 10.0) * scale
                    )
                })
                .collect();
            format!("<polygon points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"{width}\"/>\n", d.join(" "))
        };
        let mut svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{:.0}\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
            (x1 - x0 + 20.0) * scale,
            (y1 - y0 + 20.0) * scale
        );
        svg += &path(&edge(1.0), "black", 1.5);
        svg += &path(&edge(-1.0), "black", 1.5);
        for (i, (name, line)) in lines.iter().enumerate() {
            svg += &path(&polyline(line), colours[i % colours.len()], 1.0);
            svg += &format!(
                "<text x=\"10\" y=\"{}\" fill=\"{}\" font-family=\"sans-serif\" font-size=\"14\">{name}</text>\n",
                20 + 18 * i,
                colours[i % colours.len()]
            );
        }
        svg += "</svg>\n";
        std::fs::write(svg_path, svg).expect("write the SVG");
    }
}
