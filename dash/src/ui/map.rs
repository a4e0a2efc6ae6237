//! The track map, drawn from the position trace the dashboard records (no track file needed),
//! with the car as `●`. Scales are equal on both axes. Zoom 0 fits the whole trace; each zoom
//! step halves the span and centres the view on the car.
//!
//! When the embedder gives a racing line (rigd with `[sim] robot_line`:
//! [`crate::host::HostInfo::racing_line_m`]) it is drawn as a closed path in its own colour
//! over the trace (so the trace shows where the car is off the line), the fit covers it too,
//! and the title says "Map + line".

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::canvas::{Canvas, Line, Points};
use ratatui::widgets::Widget;

use super::{note_panel, panel, View};
use crate::theme::THEME;

/// Highest zoom level (span / 2^level).
pub const MAX_MAP_ZOOM: u8 = 6;
/// Smallest span shown at zoom 0, m (so a car standing still is not a single blown-up dot).
pub const MIN_SPAN_M: f64 = 50.0;

/// `[x_min, x_max, y_min, y_max]` in metres for a plot of `width` x `height` cells.
pub fn view_bounds(
    trace_bounds: [f64; 4],
    car: [f64; 2],
    zoom: u8,
    width: u16,
    height: u16,
) -> [f64; 4] {
    let [x0, x1, y0, y1] = trace_bounds;
    let span_x = ((x1 - x0) * 1.1).max(MIN_SPAN_M);
    let span_y = ((y1 - y0) * 1.1).max(MIN_SPAN_M);
    // A cell is about twice as tall as wide: metres per "width unit" must match on both axes.
    let (w, h) = (f64::from(width.max(1)), 2.0 * f64::from(height.max(1)));
    let metres_per_unit = (span_x / w).max(span_y / h) / f64::from(1u32 << zoom.min(MAX_MAP_ZOOM));
    let centre = if zoom == 0 {
        [(x0 + x1) / 2.0, (y0 + y1) / 2.0]
    } else {
        car
    };
    let (half_x, half_y) = (metres_per_unit * w / 2.0, metres_per_unit * h / 2.0);
    [
        centre[0] - half_x,
        centre[0] + half_x,
        centre[1] - half_y,
        centre[1] + half_y,
    ]
}

/// The map panel.
#[derive(Debug, Clone, Copy)]
pub struct TrackMap<'a>(pub &'a View<'a>);

impl Widget for TrackMap<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let racing_line = view.state.host.racing_line_m.as_deref().unwrap_or(&[]);
        let name = if racing_line.is_empty() {
            "Map"
        } else {
            "Map + line"
        };
        let title = if view.map_zoom > 0 {
            format!("{name} ×{}", 1u32 << view.map_zoom.min(MAX_MAP_ZOOM))
        } else {
            name.to_owned()
        };
        let block = panel(&title);
        let inner = block.inner(area);
        let trace = &view.state.trace;
        let (Some(bounds), Some(car)) = (trace.bounds(), trace.last()) else {
            return note_panel(block, "no position data yet", area, buf);
        };
        block.render(area, buf);
        let bounds = racing_line
            .iter()
            .fold(bounds, |[x0, x1, y0, y1], &[x, y]| {
                [x0.min(x), x1.max(x), y0.min(y), y1.max(y)]
            });
        let [x0, x1, y0, y1] = view_bounds(bounds, car, view.map_zoom, inner.width, inner.height);
        let points: Vec<(f64, f64)> = trace.points().map(|[x, y]| (x, y)).collect();
        let car_style = if view.no_data() {
            THEME.dim
        } else {
            Style::new().fg(THEME.marker)
        };
        Canvas::default()
            .marker(Marker::Braille)
            .x_bounds([x0, x1])
            .y_bounds([y0, y1])
            .paint(|ctx| {
                ctx.draw(&Points {
                    coords: &points,
                    color: THEME.map_trace,
                });
                ctx.layer();
                let next = racing_line.iter().cycle().skip(1);
                for (&[x1, y1], &[x2, y2]) in racing_line.iter().zip(next) {
                    ctx.draw(&Line {
                        x1,
                        y1,
                        x2,
                        y2,
                        color: THEME.map_line,
                    });
                }
                ctx.layer();
                ctx.print(car[0], car[1], Span::styled("●", car_style));
            })
            .render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn bounds_keep_equal_scales_and_zoom_centres_on_the_car() {
        // 400 x 200 m trace in a 40 x 10 cell plot (40 x 20 units): x decides the scale.
        let b = view_bounds([-200.0, 200.0, -100.0, 100.0], [200.0, 0.0], 0, 40, 10);
        assert!((b[1] - b[0] - 440.0).abs() < 1e-9, "{b:?}");
        assert!(((b[1] - b[0]) / 40.0 - (b[3] - b[2]) / 20.0).abs() < 1e-9);
        let zoomed = view_bounds([-200.0, 200.0, -100.0, 100.0], [200.0, 0.0], 2, 40, 10);
        assert!((zoomed[1] - zoomed[0] - 110.0).abs() < 1e-9);
        assert!(((zoomed[0] + zoomed[1]) / 2.0 - 200.0).abs() < 1e-9);
    }

    #[test]
    fn draws_the_trace_and_the_car() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let rows = rows(&render(TrackMap(&view), 40, 12));
        assert!(rows.iter().any(|r| r.contains('●')), "{rows:?}");
        insta::assert_snapshot!("map_fit", terminal(TrackMap(&view), 40, 12).backend());
        let zoomed = View {
            map_zoom: 2,
            ..view
        };
        let rows = rows_of_zoomed(&zoomed);
        assert!(rows[0].contains("Map ×4"), "{rows:?}");
        insta::assert_snapshot!("map_zoom_4", terminal(TrackMap(&zoomed), 40, 12).backend());
    }

    #[test]
    fn draws_a_given_racing_line_in_its_own_colour_and_fits_it() {
        let (mut state, now) = live_state();
        let colour_cells = |state: &crate::state::DashState, colour| {
            let buffer = render(TrackMap(&view_at(state, now)), 40, 12);
            let area = buffer.area;
            (area.top()..area.bottom())
                .flat_map(|y| (area.left()..area.right()).map(move |x| (x, y)))
                .filter(|&(x, y)| buffer[(x, y)].fg == colour && buffer[(x, y)].symbol() != " ")
                .collect::<Vec<_>>()
        };
        assert!(
            colour_cells(&state, THEME.map_line).is_empty(),
            "no line given"
        );
        // The trace is a 200 x 100 m ellipse; the line a circle of 60 m inside it, except
        // for one point 300 m out to the right that the fit must take in.
        let mut line: Vec<[f64; 2]> = (0..90)
            .map(|i| {
                let angle = f64::from(i) / 90.0 * std::f64::consts::TAU;
                [60.0 * angle.cos(), 60.0 * angle.sin()]
            })
            .collect();
        state.host.racing_line_m = Some(line.clone().into());
        let cells = colour_cells(&state, THEME.map_line);
        let titled = rows(&render(TrackMap(&view_at(&state, now)), 40, 12));
        assert!(titled[0].contains("Map + line"), "{titled:?}");
        // The circle spans about 120 of the ~440 m the 38 inner columns show: ~10 columns.
        let columns = |cells: &[(u16, u16)]| {
            let xs = cells.iter().map(|c| c.0);
            (xs.clone().min().unwrap(), xs.max().unwrap())
        };
        let (left, right) = columns(&cells);
        assert!(
            (8..=13).contains(&(right - left)),
            "{left}..{right} {titled:?}"
        );
        assert!(cells.len() >= 16, "{} line cells", cells.len());
        // The trace is still drawn where the line is not.
        assert!(!colour_cells(&state, THEME.map_trace).is_empty());
        line[0] = [300.0, 0.0];
        state.host.racing_line_m = Some(line.into());
        let (_, right_far) = columns(&colour_cells(&state, THEME.map_line));
        let shown = rows(&render(TrackMap(&view_at(&state, now)), 40, 12));
        assert!(
            right_far >= 36,
            "the far point is fitted in: {right_far} {shown:?}"
        );
    }

    fn rows_of_zoomed(view: &View) -> Vec<String> {
        rows(&render(TrackMap(view), 40, 12))
    }

    #[test]
    fn says_when_there_is_no_position() {
        let (state, now) = empty_state();
        let view = view_at(&state, now);
        let rows = rows(&render(TrackMap(&view), 40, 6));
        assert!(rows[1].contains("no position data yet"), "{rows:?}");
    }
}
