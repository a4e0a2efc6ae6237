//! The g-g diagram: horizontal acceleration in g with a short trail. Lateral acceleration to
//! the left plots to the left, acceleration (forward) plots up, braking down. The scale is
//! [`GG_MIN_RANGE_G`] and grows in half-g steps when the car pulls more.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Circle, Line as CanvasLine, Points};
use ratatui::widgets::Widget;

use super::text::signed;
use super::{panel, View};
use crate::theme::THEME;

/// Standard gravity, m/s^2.
pub const STANDARD_GRAVITY: f64 = 9.80665;
/// Smallest half-range of both axes, g.
pub const GG_MIN_RANGE_G: f64 = 1.5;

/// Screen point of an acceleration `[long, lat]` in m/s^2: `(x = right, y = forward)` in g.
pub fn plot_point(accel_mps2: [f64; 2]) -> (f64, f64) {
    (
        -accel_mps2[1] / STANDARD_GRAVITY,
        accel_mps2[0] / STANDARD_GRAVITY,
    )
}

/// The g-g panel.
#[derive(Debug, Clone, Copy)]
pub struct GgDiagram<'a>(pub &'a View<'a>);

impl Widget for GgDiagram<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let block = panel("g-g");
        let inner = block.inner(area);
        block.render(area, buf);
        let [plot, label] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);

        let trail: Vec<(f64, f64)> = view
            .state
            .gg_trail
            .iter()
            .copied()
            .map(plot_point)
            .collect();
        let peak = trail
            .iter()
            .fold(0.0f64, |m, (x, y)| m.max(x.abs()).max(y.abs()));
        let range = GG_MIN_RANGE_G.max((peak * 2.0).ceil() / 2.0);
        let current = view.sample().and_then(|s| s.accel_mps2).map(plot_point);
        let no_data = view.no_data();

        // A cell is about twice as tall as wide: equal scales need x span / width to equal
        // y span / (2 * height).
        let aspect = plot.width as f64 / (2.0 * plot.height.max(1) as f64);
        let (x_range, y_range) = if aspect >= 1.0 {
            (range * aspect, range)
        } else {
            (range, range / aspect.max(f64::EPSILON))
        };
        Canvas::default()
            .marker(Marker::Braille)
            .x_bounds([-x_range, x_range])
            .y_bounds([-y_range, y_range])
            .paint(|ctx| {
                ctx.draw(&CanvasLine::new(-x_range, 0.0, x_range, 0.0, THEME.grid));
                ctx.draw(&CanvasLine::new(0.0, -y_range, 0.0, y_range, THEME.grid));
                ctx.draw(&Circle {
                    x: 0.0,
                    y: 0.0,
                    radius: 1.0,
                    color: THEME.grid,
                });
                ctx.layer();
                ctx.draw(&Points {
                    coords: &trail,
                    color: THEME.gg_trail,
                });
                if let (Some(point), false) = (current, no_data) {
                    ctx.layer();
                    ctx.print(
                        point.0,
                        point.1,
                        Span::styled("●", Style::new().fg(THEME.marker)),
                    );
                }
            })
            .render(plot, buf);

        let (lat, lon) = match current {
            Some((x, y)) => (Some(-x), Some(y)),
            None => (None, None),
        };
        Line::from(vec![
            Span::styled("lat", THEME.label),
            Span::styled(signed(lat, 2), view.value_style()),
            Span::styled(" lon", THEME.label),
            Span::styled(signed(lon, 2), view.value_style()),
        ])
        .render(label, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn left_is_left_and_forward_is_up() {
        let (x, y) = plot_point([STANDARD_GRAVITY, STANDARD_GRAVITY]);
        assert!((x + 1.0).abs() < 1e-12 && (y - 1.0).abs() < 1e-12);
    }

    #[test]
    fn plots_the_trail_and_reads_out_g() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let rows = rows(&render(GgDiagram(&view), 24, 10));
        // The newest accel is [-4.0, 9.0] m/s^2: 0.92 g left, 0.41 g braking.
        assert!(rows[8].contains("lat+0.92 lon-0.41"), "{rows:?}");
        assert!(rows.iter().any(|r| r.contains('●')), "current point shown");
        insta::assert_snapshot!(terminal(GgDiagram(&view), 24, 10).backend());
    }

    #[test]
    fn no_current_point_without_data() {
        let (state, now) = empty_state();
        let view = view_at(&state, now);
        let rows = rows(&render(GgDiagram(&view), 24, 10));
        assert!(!rows.iter().any(|r| r.contains('●')));
        assert!(rows[8].contains("lat-- lon--"), "{rows:?}");
    }
}
