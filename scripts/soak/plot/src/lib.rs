//! The soak run's plot: reads `series.csv` as `scripts/soak/monitor.py` writes it (a header
//! of column names, `minute` first, then one row of numbers per sample) and draws every other
//! column as its own panel against minutes, with plotters' SVG backend, so a drift in memory,
//! descriptors, threads, CPU or loop timing shows at a glance. Pure: text in, SVG text out.

use std::fmt::Display;

use plotters::prelude::*;

/// Width of the drawing, pixels.
const WIDTH_PX: u32 = 900;
/// Height of one panel, pixels.
const PANEL_HEIGHT_PX: u32 = 170;

/// What a `series.csv` can be wrong with, with the line it is on.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SeriesError {
    #[error("the file is empty (fix: give the series.csv a soak run wrote)")]
    Empty,
    #[error("the first column is `{0}`, not `minute` (fix: give the series.csv a soak run wrote)")]
    NoMinuteColumn(String),
    #[error("line {line}: {found} values for {expected} columns (fix: the file was cut off; re-run the soak or delete the line)")]
    Width {
        line: usize,
        found: usize,
        expected: usize,
    },
    #[error("line {line}: `{text}` is not a number")]
    NotANumber { line: usize, text: String },
    #[error("no samples after the header (fix: run the soak for at least one sample interval)")]
    NoSamples,
}

/// The series of a soak run: minutes, and each column's name and values.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Minutes since rigd started, one per sample.
    pub minutes: Vec<f64>,
    /// Every other column: its name and one value per sample.
    pub columns: Vec<(String, Vec<f64>)>,
}

/// Parses `series.csv`'s text.
pub fn parse(text: &str) -> Result<Series, SeriesError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or(SeriesError::Empty)?;
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    if names[0] != "minute" {
        return Err(SeriesError::NoMinuteColumn(names[0].to_string()));
    }
    let mut series = Series {
        minutes: Vec::new(),
        columns: names[1..]
            .iter()
            .map(|n| (n.to_string(), Vec::new()))
            .collect(),
    };
    for (index, line) in lines {
        let values: Vec<&str> = line.split(',').map(str::trim).collect();
        if values.len() != names.len() {
            return Err(SeriesError::Width {
                line: index + 1,
                found: values.len(),
                expected: names.len(),
            });
        }
        let mut numbers = values.iter().map(|text| {
            text.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| SeriesError::NotANumber {
                    line: index + 1,
                    text: text.to_string(),
                })
        });
        series.minutes.push(numbers.next().expect("minute column")?);
        for (column, value) in series.columns.iter_mut().zip(numbers) {
            column.1.push(value?);
        }
    }
    if series.minutes.is_empty() {
        return Err(SeriesError::NoSamples);
    }
    Ok(series)
}

/// A column's panel title: what it measures and in which unit.
pub fn title(column: &str) -> String {
    match column {
        "rss_mb" => "RSS, MB",
        "fds" => "open fds",
        "threads" => "threads",
        "cpu_percent" => "CPU, % of one core",
        "tick_hz" => "loop rate, Hz",
        "wake_p99_us" => "loop wake p99, us",
        "late_1ms" => "late ticks > 1 ms (since start)",
        "dropped_ms" => "dropped time, ms (since start)",
        "motion_frames_per_s" => "motion frames written per s",
        "native_received" => "native packets received (listener that stays)",
        other => other,
    }
    .to_string()
}

/// A range that shows `values` with a little room, and a flat series as a band around it.
fn span(values: &[f64]) -> std::ops::Range<f64> {
    let low = values.iter().copied().fold(f64::INFINITY, f64::min);
    let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if high - low < 1e-9 {
        return low - 1.0..high + 1.0;
    }
    let room = (high - low) * 0.08;
    low - room..high + room
}

/// Draws `series` as SVG: one panel per column, stacked, minutes on every x axis.
pub fn svg(series: &Series) -> Result<String, String> {
    let mut out = String::new();
    let height = PANEL_HEIGHT_PX * series.columns.len().max(1) as u32;
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH_PX, height)).into_drawing_area();
        root.fill(&WHITE).map_err(text)?;
        let panels = root.split_evenly((series.columns.len().max(1), 1));
        let minutes = span(&series.minutes);
        for (panel, (name, values)) in panels.iter().zip(&series.columns) {
            let mut chart = ChartBuilder::on(panel)
                .caption(title(name), ("sans-serif", 14))
                .margin(6)
                .x_label_area_size(28)
                .y_label_area_size(64)
                .build_cartesian_2d(minutes.clone(), span(values))
                .map_err(text)?;
            chart
                .configure_mesh()
                .x_desc("minutes")
                .x_labels(8)
                .y_labels(4)
                .light_line_style(WHITE)
                .draw()
                .map_err(text)?;
            let points = series.minutes.iter().copied().zip(values.iter().copied());
            chart
                .draw_series(LineSeries::new(points.clone(), BLUE.stroke_width(2)))
                .map_err(text)?;
            chart
                .draw_series(points.map(|p| Circle::new(p, 2, BLUE.filled())))
                .map_err(text)?;
        }
        root.present().map_err(text)?;
    }
    Ok(out)
}

fn text(error: impl Display) -> String {
    error.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str =
        "minute,rss_mb,fds,late_1ms\n0.25,12.5,40,0\n0.5,12.75,40,3\n0.75,12.75,41,3\n";

    #[test]
    fn a_small_series_parses_column_by_column() {
        let series = parse(SMALL).unwrap();
        assert_eq!(series.minutes, vec![0.25, 0.5, 0.75]);
        assert_eq!(series.columns.len(), 3);
        assert_eq!(
            series.columns[0],
            ("rss_mb".to_string(), vec![12.5, 12.75, 12.75])
        );
        assert_eq!(series.columns[2].1, vec![0.0, 3.0, 3.0]);
    }

    #[test]
    fn a_cut_off_or_foreign_file_is_refused_with_its_line() {
        assert_eq!(parse(""), Err(SeriesError::Empty));
        assert_eq!(parse("minute,fds\n"), Err(SeriesError::NoSamples));
        assert_eq!(
            parse("time,fds\n1,2\n"),
            Err(SeriesError::NoMinuteColumn("time".into()))
        );
        assert_eq!(
            parse("minute,fds\n1,2\n2\n"),
            Err(SeriesError::Width {
                line: 3,
                found: 1,
                expected: 2
            })
        );
        assert_eq!(
            parse("minute,fds\n1,nan\n"),
            Err(SeriesError::NotANumber {
                line: 2,
                text: "nan".into()
            })
        );
    }

    #[test]
    fn the_svg_has_a_titled_panel_with_every_sample_per_column() {
        let drawing = svg(&parse(SMALL).unwrap()).unwrap();
        assert!(drawing.starts_with("<svg"), "{}", &drawing[..80]);
        assert!(drawing.contains(&format!("height=\"{}\"", 3 * PANEL_HEIGHT_PX)));
        for title in ["RSS, MB", "open fds", "late ticks &gt; 1 ms (since start)"] {
            assert!(drawing.contains(title), "panel titled {title}");
        }
        // The series are the blue lines (the axes and ticks are black ones).
        let series: Vec<&str> = drawing
            .split("<polyline")
            .filter(|element| element.contains("stroke=\"#0000FF\""))
            .collect();
        assert_eq!(series.len(), 3, "one line per series");
        assert_eq!(drawing.matches("<circle").count(), 9, "a mark per sample");
        // The rise of the late count is drawn: its line's points are not all at one height.
        let points = series[2]
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let heights: Vec<&str> = points
            .split_whitespace()
            .map(|p| p.split(',').nth(1).unwrap())
            .collect();
        assert_eq!(heights.len(), 3);
        assert_ne!(heights[0], heights[1]);
        assert_eq!(heights[1], heights[2]);
    }
}
