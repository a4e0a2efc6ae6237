//! The track map, drawn from the position trace the dashboard records (no track file needed),
//! with the car as `●`. Scales are equal on both axes. Zoom 0 fits the whole trace; each zoom
//! step halves the span and centres the view on the car.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::Span;
use ratatui::widgets::canvas::{Canvas, Points};
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
        let title = if view.map_zoom > 0 {
            format!("Map ×{}", 1u32 << view.map_zoom.min(MAX_MAP_ZOOM))
        } else {
            "Map".to_owned()
        };
        let block = panel(&title);
        let inner = block.inner(area);
        let trace = &view.state.trace;
        let (Some(bounds), Some(car)) = (trace.bounds(), trace.last()) else {
            return note_panel(block, "no position data yet", area, buf);
        };
        block.render(area, buf);
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
