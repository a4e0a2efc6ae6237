//! Steering: wheel angle, and the torque at the rim with a clipping indicator. The torque bar
//! is centred (left pull fills leftwards) and scaled to the force-feedback output when rigd
//! drives a device, else to [`TORQUE_FULL_SCALE_NM`].
//!
//! Sources without a wheel angle but with a steering input (Forza, Codemasters) show the input
//! as a percentage of full lock instead; without rim torque the bar row says `--` rather than
//! drawing an empty (zero) bar.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::text::{centred_bar, signed, MISSING};
use super::{panel, View};
use crate::sample::SteeringTorque;
use crate::theme::THEME;

/// Rim torque drawn as a full bar when no device output is known, N m (a strong direct-drive
/// base's sustained torque).
pub const TORQUE_FULL_SCALE_NM: f64 = 20.0;

/// Bar fraction (-1 ..= 1 at full scale) and whether the torque is clipping.
pub fn torque_fraction(torque: &SteeringTorque) -> (f64, bool) {
    match torque.ffb_output {
        Some(output) => (output, torque.clipping),
        None => {
            let fraction = torque.torque_nm / TORQUE_FULL_SCALE_NM;
            (fraction, torque.clipping || fraction.abs() >= 1.0)
        }
    }
}

/// The steering panel.
#[derive(Debug, Clone, Copy)]
pub struct Steering<'a>(pub &'a View<'a>);

impl Widget for Steering<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let block = panel("Steering");
        let width = block.inner(area).width as usize;
        let sample = view.sample();
        let value_style = view.value_style();

        let angle_deg = sample
            .and_then(|s| s.steering_angle_rad)
            .filter(|a| a.is_finite())
            .map(f64::to_degrees);
        let input = sample
            .and_then(|s| s.steering_input)
            .filter(|i| i.is_finite());
        let side = |value: Option<f64>, dead_band: f64| match value {
            Some(v) if v > dead_band => " L",
            Some(v) if v < -dead_band => " R",
            _ => "",
        };
        let angle = match (angle_deg, input) {
            (None, Some(input)) => {
                let percent = Some(input * 100.0);
                Line::from(vec![
                    Span::styled("input  ", THEME.label),
                    Span::styled(
                        format!("{:>7}%{}", signed(percent, 0), side(percent, 0.5)),
                        value_style,
                    ),
                ])
            }
            _ => Line::from(vec![
                Span::styled("angle  ", THEME.label),
                Span::styled(
                    format!("{:>7}°{}", signed(angle_deg, 1), side(angle_deg, 0.5)),
                    value_style,
                ),
            ]),
        };

        let torque = sample.and_then(|s| s.steering_torque);
        let (fraction, clipping) = torque.as_ref().map_or((0.0, false), torque_fraction);
        let mut torque_line = vec![
            Span::styled("torque ", THEME.label),
            Span::styled(
                format!("{:>7} Nm", signed(torque.map(|t| t.torque_nm), 1)),
                value_style,
            ),
        ];
        if let Some(output) = torque.and_then(|t| t.ffb_output) {
            torque_line.push(Span::styled(
                format!(" {:>4.0}%", output.abs() * 100.0),
                value_style,
            ));
        }
        torque_line.push(if clipping {
            Span::styled(" CLIP", THEME.bad)
        } else {
            Span::raw("")
        });

        let bar_style = if view.no_data() {
            THEME.dim
        } else if clipping {
            THEME.bad
        } else if fraction.abs() > 0.9 {
            THEME.warn
        } else {
            THEME.ok
        };
        let share = torque
            .and_then(|t| t.clipping_share)
            .filter(|s| s.is_finite());
        let share_line = Line::from(vec![
            Span::styled("clipped ", THEME.label),
            Span::styled(
                share.map_or_else(
                    || MISSING.to_owned(),
                    |s| format!("{:.1}% of ticks", s * 100.0),
                ),
                if share.is_some_and(|s| s > 0.05) {
                    THEME.warn
                } else {
                    value_style
                },
            ),
        ]);
        let bar_line = if torque.is_some() {
            Line::styled(centred_bar(fraction, width), bar_style)
        } else {
            Line::styled(format!("{MISSING:^width$}"), THEME.dim)
        };
        let lines = vec![angle, Line::from(torque_line), bar_line, share_line];
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn angle_torque_and_bar() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let rows = rows(&render(Steering(&view), 31, 6));
        assert!(rows[1].contains("angle    +45.0° L"), "{rows:?}");
        assert!(rows[2].contains("torque    +6.5 Nm   65%"), "{rows:?}");
        assert!(!rows[2].contains("CLIP"));
        // 29 cells: half = 14, 65 % of 14 = 9 cells left of the centre.
        assert!(
            rows[3].contains(&format!("·····{}│", "█".repeat(9))),
            "{rows:?}"
        );
        assert!(rows[4].contains("clipped 1.2% of ticks"), "{rows:?}");
        insta::assert_snapshot!(terminal(Steering(&view), 31, 6).backend());
    }

    #[test]
    fn clipping_is_spelled_out() {
        let (mut state, now) = live_state();
        if let Some(torque) = state
            .latest
            .as_mut()
            .and_then(|s| s.steering_torque.as_mut())
        {
            torque.ffb_output = Some(-1.0);
            torque.clipping = true;
        }
        let view = view_at(&state, now);
        let rows = rows(&render(Steering(&view), 31, 6));
        assert!(rows[2].contains(" 100% CLIP"), "{rows:?}");
        insta::assert_snapshot!(terminal(Steering(&view), 31, 6).backend());
    }

    #[test]
    fn sources_without_angle_or_torque_show_the_input_and_no_bar() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.steering_angle_rad = None;
            sample.steering_torque = None;
            sample.steering_input = Some(-0.25);
        }
        let view = view_at(&state, now);
        let rows = rows(&render(Steering(&view), 31, 6));
        assert!(rows[1].contains("input      -25% R"), "{rows:?}");
        assert!(rows[2].contains("torque      -- Nm"), "{rows:?}");
        assert!(rows[3].contains("--"), "{rows:?}");
        assert_eq!(
            rows[3].matches('│').count(),
            2,
            "only the borders: {rows:?}"
        );
        assert!(rows[4].contains("clipped --"), "{rows:?}");
    }

    #[test]
    fn without_a_device_the_torque_scale_decides_clipping() {
        let over = SteeringTorque {
            torque_nm: -25.0,
            ..SteeringTorque::default()
        };
        assert_eq!(torque_fraction(&over), (-1.25, true));
        let under = SteeringTorque {
            torque_nm: 10.0,
            ..SteeringTorque::default()
        };
        assert_eq!(torque_fraction(&under), (0.5, false));
    }
}
