//! Lap and sector timing: current, last and best lap; this lap's sector times with the
//! current sector marked `▸`; and a delta to the best (summed over this lap's completed
//! sectors against the best sectors, or last lap against best lap right after a line). The
//! race position, when the source sends one, is in the title (`Laps P3`).
//!
//! A completed sector shows its time and its delta to the best of that sector. The running
//! sector shows its elapsed time, which is not comparable with the best yet: beside it the
//! best in brackets, and a delta only once the elapsed time is past the best (the sector is
//! then surely lost by at least that much), never the elapsed time minus the best.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::text::{lap_time, sector_time, signed, MISSING};
use super::{note_panel, panel, View};
use crate::sample::LapSample;
use crate::theme::THEME;

/// What the delta compares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Delta {
    /// This lap's completed sectors against the best sectors, s (negative = faster).
    Sectors(f64),
    /// Last lap against the best lap, s.
    LastLap(f64),
}

/// The delta to show, if the source gave enough timing for one.
pub fn delta(lap: &LapSample) -> Option<Delta> {
    let completed = usize::from(lap.sector).min(lap.sector_times_s.len());
    let pairs: Vec<(f64, f64)> = lap.sector_times_s[..completed]
        .iter()
        .zip(&lap.best_sector_times_s)
        .map(|(&time, &best)| (time, best))
        .filter(|&(time, best)| time > 0.0 && best > 0.0)
        .collect();
    if completed > 0 && pairs.len() == completed {
        return Some(Delta::Sectors(pairs.iter().map(|(t, b)| t - b).sum()));
    }
    (lap.last_lap_s > 0.0 && lap.best_lap_s > 0.0)
        .then_some(Delta::LastLap(lap.last_lap_s - lap.best_lap_s))
}

/// The delta of one sector against its best, when the two are comparable: a completed sector
/// (`running` false) with both times, or the running sector once its elapsed `time` is past
/// the best (the loss so far; before that the elapsed time says nothing about the result).
pub fn sector_delta(time: f64, best: f64, running: bool) -> Option<f64> {
    let both = time > 0.0 && best > 0.0;
    (both && (!running || time > best)).then_some(time - best)
}

/// The laps panel.
#[derive(Debug, Clone, Copy)]
pub struct Laps<'a>(pub &'a View<'a>);

impl Widget for Laps<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let Some(lap) = view.sample().and_then(|s| s.lap) else {
            return note_panel(panel("Laps"), MISSING, area, buf);
        };
        let title = match lap.race_position {
            Some(position) => format!("Laps P{position}"),
            None => "Laps".to_owned(),
        };
        let block = panel(&title);
        let value = view.value_style();
        let row = |label: String, time: String| {
            Line::from(vec![
                Span::styled(format!("{label:<8}"), THEME.label),
                Span::styled(format!("{time:>9}"), value),
            ])
        };
        let mut lines = vec![
            row(
                format!("lap {}", lap.laps_completed.saturating_add(1)),
                lap_time(lap.current_lap_s),
            ),
            row("last".to_owned(), lap_time(lap.last_lap_s)),
            row("best".to_owned(), lap_time(lap.best_lap_s)),
        ];
        for (i, (&time, &best)) in lap
            .sector_times_s
            .iter()
            .zip(&lap.best_sector_times_s)
            .enumerate()
        {
            let current = i == usize::from(lap.sector);
            let mut spans = vec![
                Span::styled(if current { "▸" } else { " " }, THEME.title),
                Span::styled(format!("S{} ", i + 1), THEME.label),
                Span::styled(sector_time(time), value),
            ];
            spans.push(match sector_delta(time, best, current) {
                Some(diff) => {
                    let style = if diff <= 0.0 { THEME.ok } else { THEME.warn };
                    Span::styled(format!(" {}", signed(Some(diff), 3)), style)
                }
                None => Span::styled(format!("  ({})", sector_time(best)), THEME.dim),
            });
            lines.push(Line::from(spans));
        }
        let (label, diff) = match delta(&lap) {
            Some(Delta::Sectors(d)) => ("Δ sectors", Some(d)),
            Some(Delta::LastLap(d)) => ("Δ last", Some(d)),
            None => ("Δ", None),
        };
        let style = match diff {
            Some(d) if d <= 0.0 => THEME.ok,
            Some(_) => THEME.warn,
            None => THEME.dim,
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{label:<10}"), THEME.label),
            Span::styled(format!("{:>7}", signed(diff, 3)), style),
        ]));
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn delta_uses_completed_sectors_then_last_lap() {
        let mut lap = native_sample().lap.unwrap();
        // Sector 1 done in 28.123 against a best of 28.018.
        assert_eq!(delta(&lap), Some(Delta::Sectors(28.123 - 28.018)));
        lap.sector = 0;
        assert_eq!(delta(&lap), Some(Delta::LastLap(84.001 - 82.987)));
        lap.best_lap_s = 0.0;
        assert_eq!(delta(&lap), None);
    }

    #[test]
    fn a_running_sector_is_compared_only_once_it_is_past_the_best() {
        // Completed: faster or slower, the delta shows.
        assert_eq!(sector_delta(27.5, 27.9, false), Some(27.5 - 27.9));
        // Running 10.962 s into a sector whose best is 34.259 s: nothing to compare yet.
        assert_eq!(sector_delta(10.962, 34.259, true), None);
        // Running past the best: lost by at least the difference.
        assert_eq!(sector_delta(35.0, 34.259, true), Some(35.0 - 34.259));
        assert_eq!(sector_delta(0.0, 34.259, false), None);
        assert_eq!(sector_delta(10.0, 0.0, true), None);
    }

    #[test]
    fn timing_screen() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let rows = rows(&render(Laps(&view), 24, 9));
        assert_eq!(rows[1], "│lap 4    0:41.250     │");
        assert_eq!(rows[2], "│last     1:24.001     │");
        assert_eq!(rows[3], "│best     1:22.987     │");
        assert_eq!(rows[4], "│ S1 28.123 +0.105     │");
        assert_eq!(rows[5], "│▸S2 --.---  (27.900)  │");
        assert_eq!(rows[7], "│Δ sectors  +0.105     │");
        insta::assert_snapshot!(terminal(Laps(&view), 24, 9).backend());
    }
}
