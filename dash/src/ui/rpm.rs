//! Engine speed: the number, a bar scaled to the rev limit, and a row of shift lights that
//! fill from [`SHIFT_LIGHTS_START`] to [`SHIFT_POINT`] of the limit (green, amber, red), with a
//! `SHIFT` cue once the last one is lit.
//!
//! A source that sends its own shift light (OutGauge `DL_SHIFT`) decides the cue: all lights
//! and `SHIFT` when it is on. A source with neither a rev limit nor a shift light gets no light
//! row (`limit --`): lights drawn against an assumed limit would be made up. The bar then
//! uses [`FALLBACK_MAX_RPM`] only as a scale.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use rig_protocols::telemetry::lfs::outgauge::DL_SHIFT;

use super::text::{bar, MISSING};
use super::{panel, View};
use crate::theme::THEME;

/// Number of shift lights.
pub const SHIFT_LIGHTS: usize = 10;
/// Fraction of the rev limit where the first light comes on.
pub const SHIFT_LIGHTS_START: f64 = 0.80;
/// Fraction of the rev limit where every light is on and `SHIFT` shows.
pub const SHIFT_POINT: f64 = 0.97;
/// Below this inner width the rev limit is not printed, cells.
const NARROW_WIDTH: u16 = 30;
/// Rev limit assumed when the source does not send one, rpm.
pub const FALLBACK_MAX_RPM: f64 = 8000.0;

/// How many shift lights are lit at `rpm` for a limit of `max_rpm`.
pub fn lit_lights(rpm: f64, max_rpm: f64) -> usize {
    if !(rpm.is_finite() && max_rpm.is_finite() && max_rpm > 0.0) {
        return 0;
    }
    let step = (SHIFT_POINT - SHIFT_LIGHTS_START) / (SHIFT_LIGHTS - 1) as f64;
    let fraction = rpm / max_rpm;
    (0..SHIFT_LIGHTS)
        .take_while(|&i| fraction >= SHIFT_LIGHTS_START + i as f64 * step - 1e-12)
        .count()
}

fn light_style(index: usize) -> Style {
    match index {
        0..=3 => THEME.shift_green,
        4..=6 => THEME.shift_amber,
        _ => THEME.shift_red,
    }
}

/// The RPM panel.
#[derive(Debug, Clone, Copy)]
pub struct Rpm<'a>(pub &'a View<'a>);

impl Widget for Rpm<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let block = panel("RPM");
        let inner = block.inner(area);
        block.render(area, buf);
        let [top, bar_row] =
            Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(inner);
        let sample = view.sample();
        let rpm = sample.and_then(|s| s.rpm).filter(|v| v.is_finite());
        let max_rpm = sample
            .and_then(|s| s.max_rpm)
            .filter(|v| v.is_finite() && *v > 0.0);
        let scale = max_rpm.unwrap_or(FALLBACK_MAX_RPM);
        let source_shift_light = sample
            .and_then(|s| s.gauges.lights)
            .and_then(|lights| lights.state(DL_SHIFT));
        let lit = match (source_shift_light, max_rpm) {
            (Some(true), _) => Some(SHIFT_LIGHTS),
            (_, Some(limit)) => Some(rpm.map_or(0, |r| lit_lights(r, limit))),
            (Some(false), None) => Some(0),
            (None, None) => None,
        };

        let mut spans = vec![
            Span::styled(
                rpm.map_or_else(|| format!("{MISSING:>5}"), |r| format!("{r:>5.0}")),
                view.value_style(),
            ),
            Span::styled(
                match max_rpm {
                    // Narrow panels keep the lights and drop the limit.
                    Some(m) if inner.width >= NARROW_WIDTH => format!(" / {m:.0} "),
                    _ => " rpm ".to_owned(),
                },
                THEME.label,
            ),
        ];
        match lit {
            Some(lit) => {
                for i in 0..SHIFT_LIGHTS {
                    spans.push(if i < lit {
                        Span::styled("●", light_style(i))
                    } else {
                        Span::styled("○", THEME.unlit)
                    });
                }
                if lit == SHIFT_LIGHTS {
                    spans.push(Span::styled(" SHIFT", THEME.shift_red));
                }
            }
            None => spans.push(Span::styled(format!("limit {MISSING}"), THEME.dim)),
        }
        Line::from(spans).render(top, buf);

        let ratio = rpm.map_or(0.0, |r| r / scale);
        let style = if lit == Some(SHIFT_LIGHTS) {
            THEME.shift_red
        } else {
            THEME.rpm
        };
        Span::styled(bar(ratio, bar_row.width as usize), style).render(bar_row, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn lights_fill_between_start_and_shift_point() {
        assert_eq!(lit_lights(0.79 * 7500.0, 7500.0), 0);
        assert_eq!(lit_lights(0.80 * 7500.0, 7500.0), 1);
        assert_eq!(lit_lights(6800.0, 7500.0), 6, "90.7 % of the limit");
        assert_eq!(lit_lights(0.97 * 7500.0, 7500.0), SHIFT_LIGHTS);
        assert_eq!(lit_lights(9000.0, 7500.0), SHIFT_LIGHTS);
        assert_eq!(lit_lights(f64::NAN, 7500.0), 0);
        assert_eq!(lit_lights(5000.0, 0.0), 0);
    }

    #[test]
    fn shows_rpm_limit_lights_and_bar() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let rows = rows(&render(Rpm(&view), 40, 4));
        assert!(rows[1].contains(" 6800 / 7500 ●●●●●●○○○○"), "{rows:?}");
        assert!(!rows[1].contains("SHIFT"));
        // 6800 / 7500 of 38 cells = 34.45 cells.
        assert!(rows[2].contains(&"█".repeat(34)), "{rows:?}");
        insta::assert_snapshot!(terminal(Rpm(&view), 40, 4).backend());
    }

    #[test]
    fn shift_cue_at_the_shift_point() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.rpm = Some(7400.0);
        }
        let view = view_at(&state, now);
        let rows = rows(&render(Rpm(&view), 40, 4));
        assert!(rows[1].contains("●●●●●●●●●● SHIFT"), "{rows:?}");
    }
}
