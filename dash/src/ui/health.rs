//! rigd's loop health (tick rate, wake-latency percentiles, tick work and physics step time,
//! late ticks) and the telemetry source's statistics (addresses, format, packets, garbage, drops, age). Loop health
//! exists only in native packets; for other formats the panel says so. Figures measured over
//! rigd's last second (rate, percentiles) read `--` until its first second has passed, not 0;
//! the counters since start are numbers from the first packet. Nothing here is cut at the
//! panel's edge: fields and labels give way whole ([`super::fit`]).

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, Widget};

use super::fit::{fit, label_value, Field};
use super::text::{plain, MISSING};
use super::{note_panel, panel, View};
use crate::sample::{motion_hold_cause, motion_state};
use crate::state::Garbage;
use crate::theme::THEME;
use rig_protocols::LoopHealth;

/// Wake-latency p99 above which the figure is marked as a concern, microseconds.
pub const WAKE_P99_WARN_US: f64 = 250.0;

/// True once rigd's health window has closed for the first time: before that its rate and
/// percentiles are zeros standing for "not measured yet".
pub fn first_window_closed(health: &LoopHealth) -> bool {
    health.tick_rate_hz > 0.0
}

/// A windowed figure with its unit (`45µs`, `1000 Hz`), or `--` before the first window.
fn windowed(health: &LoopHealth, value: f64, decimals: usize, unit: &str) -> String {
    if first_window_closed(health) {
        format!("{}{unit}", plain(Some(value), decimals))
    } else {
        MISSING.to_owned()
    }
}

/// `1.2 ms`, `850 ms`, `3.4 s`: a compact age.
pub fn age_text(age: Duration) -> String {
    let ms = age.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// One line of loop health, for the drive page: "work" is the tick's whole work (physics and
/// every stage), "step" the physics step alone, both p99 over the last second. The worst wake
/// latency is left out when the line would not fit.
#[derive(Debug, Clone, Copy)]
pub struct LoopHealthLine<'a>(pub &'a View<'a>);

impl Widget for LoopHealthLine<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let Some(sample) = view.sample() else {
            Line::styled("loop health: waiting for rigd", THEME.dim).render(area, buf);
            return;
        };
        let Some(health) = sample.health else {
            Line::styled(
                format!(
                    "loop health: only from rigd (source sends {})",
                    sample.format
                ),
                THEME.dim,
            )
            .render(area, buf);
            return;
        };
        let value = view.value_style();
        let wake_style =
            if first_window_closed(&health) && health.wake_latency_p99_us > WAKE_P99_WARN_US {
                THEME.warn
            } else {
                value
            };
        let late_style = if health.late_ticks_1ms > 0 {
            THEME.bad
        } else if health.late_ticks_250us > 0 {
            THEME.warn
        } else {
            value
        };
        let label = |text: &'static str| Span::styled(text, THEME.label);
        let fields = vec![
            Field::new(
                9,
                vec![
                    label("loop "),
                    Span::styled(windowed(&health, health.tick_rate_hz, 0, " Hz"), value),
                ],
            ),
            Field::new(
                8,
                vec![
                    label(" │ wake p99 "),
                    Span::styled(
                        windowed(&health, health.wake_latency_p99_us, 0, "µs"),
                        wake_style,
                    ),
                ],
            ),
            // The worst wake latency goes first: the panel on the rig page has it.
            Field::new(
                2,
                vec![
                    label(" max "),
                    Span::styled(
                        windowed(&health, health.wake_latency_max_us, 0, "µs"),
                        value,
                    ),
                ],
            ),
            Field::new(
                5,
                vec![
                    label(" │ work p99 "),
                    Span::styled(windowed(&health, health.tick_work_p99_us, 0, "µs"), value),
                ],
            ),
            Field::new(
                4,
                vec![
                    label(" step "),
                    Span::styled(
                        windowed(&health, health.physics_step_p99_us, 0, "µs"),
                        value,
                    ),
                ],
            ),
            Field::new(
                7,
                vec![
                    label(" │ late >250µs "),
                    Span::styled(health.late_ticks_250us.to_string(), late_style),
                    label(" >1ms "),
                    Span::styled(health.late_ticks_1ms.to_string(), late_style),
                ],
            ),
        ];
        fit(fields, usize::from(area.width)).render(area, buf);
    }
}

fn garbage_reason(garbage: Garbage) -> String {
    match garbage {
        Garbage::Unrecognised { len } => format!("{len} B, no known format"),
        Garbage::Malformed { format, len } => format!("{len} B, bad {format}"),
    }
}

/// The source statistics panel, for the rig page.
#[derive(Debug, Clone, Copy)]
pub struct SourcePanel<'a>(pub &'a View<'a>);

impl Widget for SourcePanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let source = &view.state.source;
        let value = THEME.value;
        let width = usize::from(panel("").inner(area).width);
        let row = |label: &'static str, text: String, style| {
            label_value(label, 10, THEME.label, text, style, width)
        };
        let listening = source.listening_text();
        let lines = vec![
            row("listening", listening, value),
            row(
                "sender",
                source
                    .last_from
                    .map_or_else(|| MISSING.to_owned(), |a| a.to_string()),
                value,
            ),
            row("format", source.format.unwrap_or(MISSING).to_owned(), value),
            row(
                "packets",
                format!("{} ({}/s)", source.packets, plain(source.rate_hz(), 0)),
                value,
            ),
            row(
                "garbage",
                match source.last_garbage {
                    Some(g) => format!("{} (last: {})", source.garbage, garbage_reason(g)),
                    None => "0".to_owned(),
                },
                if source.garbage > 0 {
                    THEME.warn
                } else {
                    value
                },
            ),
            row(
                "dropped",
                source.dropped.to_string(),
                if source.dropped > 0 {
                    THEME.warn
                } else {
                    value
                },
            ),
            row(
                "age",
                source
                    .age(view.now)
                    .map_or_else(|| "no packet yet".to_owned(), age_text),
                if view.no_data() { THEME.bad } else { value },
            ),
        ];
        Paragraph::new(lines)
            .block(panel("Source"))
            .render(area, buf);
    }
}

/// Loop health and force-feedback state in full, for the rig page.
#[derive(Debug, Clone, Copy)]
pub struct HealthPanel<'a>(pub &'a View<'a>);

impl Widget for HealthPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let block = panel("rigd loop");
        let Some(health) = view.sample().and_then(|s| s.health) else {
            let text = match view.sample() {
                Some(sample) => format!("only from rigd (source sends {})", sample.format),
                None => "waiting for rigd".to_owned(),
            };
            return note_panel(block, text, area, buf);
        };
        let value = view.value_style();
        let width = usize::from(block.inner(area).width);
        let row = |label: &'static str, text: String| {
            label_value(label, 14, THEME.label, text, value, width)
        };
        let measured =
            |value: f64, decimals: usize, unit: &str| windowed(&health, value, decimals, unit);
        let wake_p50_p99 = if first_window_closed(&health) {
            format!(
                "{:.0} / {:.0} µs",
                health.wake_latency_p50_us, health.wake_latency_p99_us
            )
        } else {
            MISSING.to_owned()
        };
        let mut lines = vec![
            row("ticks", health.ticks.to_string()),
            row("tick rate", measured(health.tick_rate_hz, 1, " Hz")),
            row("wake p50/p99", wake_p50_p99),
            row("wake max", measured(health.wake_latency_max_us, 0, " µs")),
            row("tick work p99", measured(health.tick_work_p99_us, 0, " µs")),
            row(
                "physics p99",
                measured(health.physics_step_p99_us, 0, " µs"),
            ),
            row(
                "late ticks",
                format!(
                    "{} >250µs, {} >1ms",
                    health.late_ticks_250us, health.late_ticks_1ms
                ),
            ),
            row("dropped time", format!("{:.1} ms", health.dropped_time_ms)),
        ];
        if let Some(m) = view.sample().and_then(|s| s.motion_holds) {
            let state = match m.cause {
                0 => motion_state(m.state).to_owned(),
                cause => format!("{} ({})", motion_state(m.state), motion_hold_cause(cause)),
            };
            lines.push(row("motion", state));
            let stale = match m.stale_holds {
                0 => String::new(),
                n => format!(", stale {n}"),
            };
            lines.push(row(
                "motion holds",
                format!(
                    "{} (fault {}, e-stop {}{stale})",
                    m.holds, m.fault_holds, m.estop_holds
                ),
            ));
        }
        if let Some(torque) = view.sample().and_then(|s| s.steering_torque) {
            lines.push(row(
                "ffb output",
                torque.ffb_output.map_or_else(
                    || torque.ffb_hold.unwrap_or("no device").to_owned(),
                    |o| {
                        format!(
                            "{:+.0}%{}",
                            o * 100.0,
                            if torque.clipping { " CLIP" } else { "" }
                        )
                    },
                ),
            ));
        }
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

/// The embedding program's extra lines (rigd: its telemetry destinations), for the rig page:
/// a titled rule and one row per line. When there are more lines than rows the last row says
/// how many are left out.
#[derive(Debug, Clone, Copy)]
pub struct HostPanel<'a>(pub &'a View<'a>);

impl Widget for HostPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let host = &self.0.state.host;
        let rows = usize::from(area.height.saturating_sub(1));
        let style = self.0.value_style();
        let mut lines: Vec<Line> = host
            .lines
            .iter()
            .take(rows)
            .map(|line| Line::styled(line.clone(), style))
            .collect();
        if host.lines.len() > rows && rows > 0 {
            lines.truncate(rows - 1);
            let hidden = host.lines.len() - lines.len();
            lines.push(Line::styled(format!("+{hidden} more"), THEME.dim));
        }
        let block = Block::new()
            .borders(Borders::TOP)
            .border_type(BorderType::Rounded)
            .border_style(THEME.border)
            .title(host.title.as_str())
            .title_style(THEME.title);
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn ages_are_compact() {
        assert_eq!(age_text(Duration::from_micros(1500)), "1.5 ms");
        assert_eq!(age_text(Duration::from_millis(850)), "850 ms");
        assert_eq!(age_text(Duration::from_millis(3400)), "3.4 s");
    }

    #[test]
    fn loop_health_line_when_native() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        // 80 columns: the worst wake latency gives way to both timing channels.
        let narrow = rows(&render(LoopHealthLine(&view), 80, 1));
        assert_eq!(
            narrow[0].trim_end(),
            "loop 1000 Hz │ wake p99 45µs │ work p99 120µs step 30µs │ late >250µs 3 >1ms 0"
        );
        let wide = rows(&render(LoopHealthLine(&view), 100, 1));
        assert_eq!(
            wide[0].trim_end(),
            "loop 1000 Hz │ wake p99 45µs max 230µs │ work p99 120µs step 30µs │ late >250µs 3 >1ms 0"
        );
    }

    #[test]
    fn loop_health_only_from_rigd() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.format = "forza";
            sample.health = None;
        }
        let view = view_at(&state, now);
        let rows = rows(&render(LoopHealthLine(&view), 80, 1));
        assert!(rows[0].starts_with("loop health: only from rigd (source sends forza)"));
        insta::assert_snapshot!(terminal(HealthPanel(&view), 40, 4).backend());
    }

    #[test]
    fn an_embedding_rigd_adds_its_lines_and_its_notice() {
        let (mut state, now) = live_state();
        state.host = crate::host::HostInfo {
            notice: Some("WARN telemetry to 127.0.0.1:4000 refused".to_owned()),
            title: "rigd telemetry out".to_owned(),
            lines: vec!["LFS OutGauge to 127.0.0.1:4000: sent 10, errors 5 (refused 5)".to_owned()],
            driver: None,
            racing_line_m: None,
        };
        let view = view_at(&state, now);
        let panel = rows(&render(HostPanel(&view), 70, 3));
        assert!(panel[0].contains("rigd telemetry out"), "{panel:?}");
        assert!(
            panel[1].contains("sent 10, errors 5 (refused 5)"),
            "{panel:?}"
        );
        let status = rows(&render(crate::ui::chrome::StatusLine(&view), 160, 1));
        assert!(
            status[0].contains("WARN telemetry to 127.0.0.1:4000 refused"),
            "{status:?}"
        );
        let page = rows(&render(
            crate::ui::pages::PageView {
                page: crate::ui::pages::Page::Rig,
                view: &view,
            },
            80,
            21,
        ));
        assert!(
            page.iter().any(|row| row.contains("errors 5 (refused 5)")),
            "the rig page at 80x24 shows the host panel: {page:?}"
        );
    }

    #[test]
    fn a_held_force_says_why() {
        let (mut state, now) = live_state();
        if let Some(torque) = state
            .latest
            .as_mut()
            .and_then(|s| s.steering_torque.as_mut())
        {
            torque.ffb_output = None;
            torque.ffb_hold = Some("fault hold");
        }
        let view = view_at(&state, now);
        let rows = rows(&render(HealthPanel(&view), 40, 11));
        assert!(
            rows.iter().any(|r| r.contains("ffb output    fault hold")),
            "{rows:?}"
        );
    }

    #[test]
    fn a_motion_hold_from_rigd_says_its_state_cause_and_counters() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.motion_holds = Some(rig_protocols::MotionHoldTelemetry {
                platforms: 1,
                held: 1,
                state: 6,
                cause: 3,
                latest: 3,
                holds: 2,
                fault_holds: 1,
                estop_holds: 1,
                stale_holds: 0,
            });
        }
        let view = view_at(&state, now);
        let rows = rows(&render(HealthPanel(&view), 40, 13));
        assert!(
            rows.iter()
                .any(|r| r.contains("motion        parking (loop fault)")),
            "{rows:?}"
        );
        assert!(
            rows.iter()
                .any(|r| r.contains("motion holds  2 (fault 1, e-stop 1)")),
            "{rows:?}"
        );
    }

    #[test]
    fn source_and_health_panels() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let rows = rows(&render(SourcePanel(&view), 44, 9));
        assert!(rows[4].contains("packets   121 (121/s)"), "{rows:?}");
        assert!(
            rows[5].contains("garbage   7 (last: 13 B, no known format)"),
            "{rows:?}"
        );
        assert!(rows[7].contains("age       5.0 ms"), "{rows:?}");
        insta::assert_snapshot!("source", terminal(SourcePanel(&view), 44, 9).backend());
        insta::assert_snapshot!("health", terminal(HealthPanel(&view), 40, 11).backend());
    }
}
