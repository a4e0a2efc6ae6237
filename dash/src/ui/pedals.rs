//! Throttle, brake, clutch and handbrake as labelled bars with their percentage.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::text::{bar, MISSING};
use super::{panel, View};
use crate::theme::THEME;

/// Width of the label and percentage columns around each bar, cells.
const LABEL_WIDTH: usize = 4;
const PERCENT_WIDTH: usize = 5;

/// The pedals panel.
#[derive(Debug, Clone, Copy)]
pub struct Pedals<'a>(pub &'a View<'a>);

impl Widget for Pedals<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let block = panel("Pedals");
        let bar_width =
            (block.inner(area).width as usize).saturating_sub(LABEL_WIDTH + PERCENT_WIDTH);
        let sample = view.sample();
        let row = |label: &'static str, value: Option<f64>, style: Style| {
            let value = value.filter(|v| v.is_finite());
            let style = if view.no_data() { THEME.dim } else { style };
            Line::from(vec![
                Span::styled(format!("{label:<LABEL_WIDTH$}"), THEME.label),
                Span::styled(bar(value.unwrap_or(0.0), bar_width), style),
                Span::styled(
                    value.map_or_else(
                        || format!("{MISSING:>PERCENT_WIDTH$}"),
                        |v| format!("{:>4.0}%", v.clamp(0.0, 1.0) * 100.0),
                    ),
                    view.value_style(),
                ),
            ])
        };
        let lines = vec![
            row("THR", sample.and_then(|s| s.throttle), THEME.throttle),
            row("BRK", sample.and_then(|s| s.brake), THEME.brake),
            row("CLU", sample.and_then(|s| s.clutch), THEME.clutch),
            row("HBK", sample.and_then(|s| s.handbrake), THEME.handbrake),
        ];
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn bars_and_percentages() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let rows = rows(&render(Pedals(&view), 31, 6));
        // 20 cells of bar: 85 % is 17 cells.
        assert!(
            rows[1].contains(&format!("THR {}···  85%", "█".repeat(17))),
            "{rows:?}"
        );
        assert!(
            rows[2].contains(&format!("BRK {}   0%", "·".repeat(20))),
            "{rows:?}"
        );
        insta::assert_snapshot!(terminal(Pedals(&view), 31, 6).backend());
    }

    #[test]
    fn missing_pedals_show_placeholders() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.handbrake = None;
        }
        let view = view_at(&state, now);
        let rows = rows(&render(Pedals(&view), 31, 6));
        assert!(rows[4].ends_with("   --│"), "{rows:?}");
    }
}
