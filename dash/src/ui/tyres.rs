//! Per-corner tyre panel for FL, FR, RL, RR, as a table with a column per corner and a row per
//! channel: load, slip ratio, slip angle, tread (surface) and carcass temperature, pressure,
//! tread wear, combined slip, wheel spin, patch speed, suspension travel and brake
//! temperature, most important first (a short
//! panel shows the top rows). Slip past [`SLIP_RATIO_WARN`], [`SLIP_ANGLE_WARN_DEG`] or
//! [`COMBINED_SLIP_WARN`] is coloured and marked `!`. Channels the source does not send show
//! `--`, never 0.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::text::{plain, signed, MISSING};
use super::{note_panel, panel, View};
use crate::sample::{TyreSample, CORNER_NAMES};
use crate::theme::THEME;

/// Slip ratio magnitude past which a tyre is marked (locking or spinning up).
pub const SLIP_RATIO_WARN: f64 = 0.10;
/// Slip angle magnitude past which a tyre is marked (past the usual peak), degrees.
pub const SLIP_ANGLE_WARN_DEG: f64 = 8.0;
/// Combined slip (normalised, 1 = grip limit) past which a tyre is marked.
pub const COMBINED_SLIP_WARN: f64 = 1.0;
/// Rows the panel can show: a header and one per channel.
pub const TYRE_ROWS: u16 = 1 + CHANNELS.len() as u16;

type Channel = fn(&TyreSample) -> (String, bool);

/// The rows, most important first: (label, value and whether to warn).
const CHANNELS: [(&str, Channel); 12] = [
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
    ("tread°C", |t| (plain(t.temperature_c, 0), false)),
    ("carc.°C", |t| (plain(t.carcass_temperature_c, 0), false)),
    ("kPa", |t| (plain(t.pressure_kpa, 0), false)),
    ("wear %", |t| (plain(t.wear.map(|w| w * 100.0), 1), false)),
    ("comb.", |t| {
        let warn = t
            .combined_slip
            .is_some_and(|s| s.abs() > COMBINED_SLIP_WARN);
        (plain(t.combined_slip, 2), warn)
    }),
    ("ω rad/s", |t| (plain(t.wheel_speed_radps, 0), false)),
    ("v km/h", |t| {
        (plain(t.patch_speed_mps.map(|v| v * 3.6), 0), false)
    }),
    ("susp mm", |t| {
        (plain(t.suspension_travel_m.map(|m| m * 1000.0), 0), false)
    }),
    ("brake°C", |t| (plain(t.brake_temperature_c, 0), false)),
];

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
            return note_panel(block, MISSING, area, buf);
        };
        if !sample.tyres.iter().any(TyreSample::has_any) {
            return note_panel(
                block,
                format!("no tyre data in {}", sample.format),
                area,
                buf,
            );
        }
        let base = view.value_style();
        let mut header = vec![Span::raw(" ".repeat(LABEL_WIDTH))];
        header.extend(
            CORNER_NAMES
                .iter()
                .map(|name| Span::styled(format!(" {name:>VALUE_WIDTH$} "), THEME.label)),
        );
        let mut lines = vec![Line::from(header)];
        for (label, channel) in CHANNELS {
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
        let view = view_at(&state, now);
        let rows = rows(&render(Tyres(&view), 37, 7));
        assert_eq!(rows[1], "│           FL     FR     RL     RR │");
        assert_eq!(rows[2], "│load kN  3.10   4.90   2.80   4.40 │");
        assert_eq!(rows[3], "│slip    +0.02  +0.03  +0.18! +0.05 │");
        assert_eq!(rows[4], "│angle °  -3.5   -4.0   -2.5   -3.0 │");
        assert_eq!(rows[5], "│tread°C    85     85     85     85 │");
        let tall = super::super::test_support::rows(&render(Tyres(&view), 37, 10));
        assert_eq!(tall[6], "│carc.°C    92     92     92     92 │");
        assert_eq!(tall[7], "│kPa       231    231    231    231 │");
        assert_eq!(tall[8], "│wear %    4.0    4.0    4.0    4.0 │");
        insta::assert_snapshot!(terminal(Tyres(&view), 37, 7).backend());
    }

    #[test]
    fn formats_without_tyres_say_so() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.format = "outgauge";
            sample.tyres = Default::default();
        }
        let view = view_at(&state, now);
        let rows = rows(&render(Tyres(&view), 37, 7));
        assert!(rows[1].contains("no tyre data in outgauge"), "{rows:?}");
    }
}
