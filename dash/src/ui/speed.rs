//! Speed (km/h) and gear, the two numbers a driver reads first.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::text::MISSING;
use super::{panel, View};
use crate::theme::THEME;

/// Metres per second to kilometres per hour.
pub const MPS_TO_KMH: f64 = 3.6;

/// The speed and gear panel.
#[derive(Debug, Clone, Copy)]
pub struct SpeedGear<'a>(pub &'a View<'a>);

impl Widget for SpeedGear<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let sample = view.sample();
        let value_style = if view.no_data() {
            THEME.dim
        } else {
            THEME.big_value
        };
        let speed = sample
            .and_then(|s| s.speed_mps)
            .filter(|v| v.is_finite())
            .map_or_else(
                || MISSING.to_owned(),
                |v| format!("{:.0}", v.abs() * MPS_TO_KMH),
            );
        let gear = sample
            .and_then(|s| s.gear)
            .map_or_else(|| MISSING.to_owned(), |g| g.label());
        let lines = vec![
            Line::from(vec![
                Span::styled(format!("{speed:>4}"), value_style),
                Span::styled(" km/h", THEME.label),
            ]),
            Line::from(vec![
                Span::styled("gear ", THEME.label),
                Span::styled(format!("{gear:>3}"), value_style),
            ]),
        ];
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .block(panel("Speed"))
            .render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn shows_kmh_and_gear() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let rows = rows(&render(SpeedGear(&view), 20, 4));
        // 34 m/s = 122.4 km/h.
        assert!(rows[1].contains(" 122 km/h"), "{rows:?}");
        assert!(rows[2].contains("gear   3"), "{rows:?}");
        insta::assert_snapshot!(terminal(SpeedGear(&view), 20, 4).backend());
    }

    #[test]
    fn shows_placeholders_without_data() {
        let (state, now) = empty_state();
        let view = view_at(&state, now);
        let rows = rows(&render(SpeedGear(&view), 20, 4));
        assert!(rows[1].contains("  -- km/h"), "{rows:?}");
        assert!(rows[2].contains("gear  --"), "{rows:?}");
    }
}
