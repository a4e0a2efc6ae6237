//! Per-corner tyre panel: load, slip ratio, slip angle and temperature for FL, FR, RL, RR, as a
//! table with a column per corner. Slip past [`SLIP_RATIO_WARN`] or [`SLIP_ANGLE_WARN_DEG`] is
//! coloured and marked `!`. Channels the source does not send show `--`.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::text::{plain, signed, MISSING};
use super::{panel, View};
use crate::sample::{TyreSample, CORNER_NAMES};
use crate::theme::THEME;

/// Slip ratio magnitude past which a tyre is marked (locking or spinning up).
pub const SLIP_RATIO_WARN: f64 = 0.10;
/// Slip angle magnitude past which a tyre is marked (past the usual peak), degrees.
pub const SLIP_ANGLE_WARN_DEG: f64 = 8.0;

const LABEL_WIDTH: usize = 7;
/// Each corner column: a space, the value right-aligned in this many cells, then the mark.
const VALUE_WIDTH: usize = 5;

fn cell(text: String, warn: bool, base: Style) -> Vec<Span<'static>> {
    if warn {
        vec![
            Span::styled(format!(" {text:>VALUE_WIDTH$}"), THEME.warn),
            Span::styled("!", THEME.warn),
        ]
    } else {
        vec![Span::styled(format!(" {text:>VALUE_WIDTH$} "), base)]
    }
}

/// The tyre panel.
#[derive(Debug, Clone, Copy)]
pub struct Tyres<'a>(pub &'a View<'a>);

impl Widget for Tyres<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let block = panel("Tyres");
        let Some(sample) = view.sample() else {
            Paragraph::new(Line::styled(MISSING, THEME.dim))
                .block(block)
                .render(area, buf);
            return;
        };
        if !sample.tyres.iter().any(TyreSample::has_any) {
            Paragraph::new(Line::styled(
                format!("no tyre data in {}", sample.format),
                THEME.dim,
            ))
            .block(block)
            .render(area, buf);
            return;
        }
        let base = view.value_style();
        let mut header = vec![Span::raw(" ".repeat(LABEL_WIDTH))];
        header.extend(
            CORNER_NAMES
                .iter()
                .map(|name| Span::styled(format!(" {name:>VALUE_WIDTH$} "), THEME.label)),
        );
        type Channel = fn(&TyreSample) -> (String, bool);
        let channels: [(&str, Channel); 4] = [
            ("load kN", |t| {
                (plain(t.load_n.map(|n| n / 1000.0), 2), false)
            }),
            ("slip", |t| {
                let warn = t.slip_ratio.is_some_and(|s| s.abs() > SLIP_RATIO_WARN);
                (signed(t.slip_ratio, 2), warn)
            }),
            ("angle °", |t| {
                let degrees = t.slip_angle_rad.map(f64::to_degrees);
                let warn = degrees.is_some_and(|d| d.abs() > SLIP_ANGLE_WARN_DEG);
                (signed(degrees, 1), warn)
            }),
            ("temp °C", |t| (plain(t.temperature_c, 0), false)),
        ];
        let mut lines = vec![Line::from(header)];
        for (label, channel) in channels {
            let mut spans = vec![Span::styled(format!("{label:<LABEL_WIDTH$}"), THEME.label)];
            spans.extend(sample.tyres.iter().flat_map(|tyre| {
                let (text, warn) = channel(tyre);
                cell(text, warn && !view.no_data(), base)
            }));
            lines.push(Line::from(spans));
        }
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn one_column_per_corner() {
        let (state, now) = live_state();
        let view = View {
            state: &state,
            now,
            map_zoom: 0,
        };
        let rows = rows(&render(Tyres(&view), 37, 7));
        assert_eq!(rows[1], "│           FL     FR     RL     RR │");
        assert_eq!(rows[2], "│load kN  3.10   4.90   2.80   4.40 │");
        assert_eq!(rows[3], "│slip    +0.02  +0.03  +0.18! +0.05 │");
        assert_eq!(rows[4], "│angle °  -3.5   -4.0   -2.5   -3.0 │");
        assert_eq!(rows[5], "│temp °C    85     85     85     85 │");
        insta::assert_snapshot!(terminal(Tyres(&view), 37, 7).backend());
    }

    #[test]
    fn formats_without_tyres_say_so() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.format = "outgauge";
            sample.tyres = Default::default();
        }
        let view = View {
            state: &state,
            now,
            map_zoom: 0,
        };
        let rows = rows(&render(Tyres(&view), 37, 7));
        assert!(rows[1].contains("no tyre data in outgauge"), "{rows:?}");
    }
}
