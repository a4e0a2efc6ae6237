//! The application state around the view model: which page is shown, help, freeze and map
//! zoom, and how key actions change them. `impl Widget for &App` draws one whole screen
//! (title bar, status line, page, key bar, and the NO DATA / help overlays) without cloning.
//!
//! Freezing copies the live state once; the live state keeps ingesting underneath, so
//! unfreezing shows current values at once.

use std::time::Instant;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Widget;

use crate::keys::Action;
use crate::state::DashState;
use crate::theme::THEME;
use crate::ui::chrome::{KeyBar, StatusLine, TitleBar};
use crate::ui::map::MAX_MAP_ZOOM;
use crate::ui::overlay::{HelpBox, NoDataBox};
use crate::ui::pages::{Page, PageView};
use crate::ui::View;

/// What the caller should do after an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Keep running.
    Continue,
    /// The user asked to quit.
    Quit,
}

/// The dashboard application.
#[derive(Debug, Clone)]
pub struct App {
    live: DashState,
    frozen: Option<(DashState, Instant)>,
    page: Page,
    show_help: bool,
    map_zoom: u8,
    now: Instant,
}

impl App {
    /// An app showing `state` as seen at `now`, on the drive page.
    pub fn new(state: DashState, now: Instant) -> Self {
        Self {
            live: state,
            frozen: None,
            page: Page::default(),
            show_help: false,
            map_zoom: 0,
            now,
        }
    }

    /// The live state (receives packets even while frozen).
    pub fn live_mut(&mut self) -> &mut DashState {
        &mut self.live
    }

    /// Sets the frame clock and advances the live state's time-based statistics.
    pub fn set_now(&mut self, now: Instant) {
        self.now = now;
        self.live.tick(now);
    }

    /// The page shown.
    pub fn page(&self) -> Page {
        self.page
    }

    /// True while frozen.
    pub fn is_frozen(&self) -> bool {
        self.frozen.is_some()
    }

    /// Applies a key action.
    pub fn apply(&mut self, action: Action) -> Flow {
        match action {
            Action::Quit => return Flow::Quit,
            Action::ToggleHelp => self.show_help = !self.show_help,
            Action::ToggleFreeze => {
                self.frozen = match self.frozen.take() {
                    Some(_) => None,
                    None => Some((self.live.clone(), self.now)),
                }
            }
            Action::NextPage => self.page = self.page.next(),
            Action::PreviousPage => self.page = self.page.previous(),
            Action::ZoomIn => self.map_zoom = (self.map_zoom + 1).min(MAX_MAP_ZOOM),
            Action::ZoomOut => self.map_zoom = self.map_zoom.saturating_sub(1),
        }
        Flow::Continue
    }

    /// The view drawn this frame: the frozen copy at its freeze instant, or the live state now.
    pub fn view(&self) -> View<'_> {
        let (state, now) = match &self.frozen {
            Some((state, at)) => (state, *at),
            None => (&self.live, self.now),
        };
        View {
            state,
            now,
            map_zoom: self.map_zoom,
        }
    }
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        buf.set_style(area, THEME.root);
        let view = self.view();
        let [title, status, body, keys] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(area);
        TitleBar {
            view: &view,
            page: self.page,
            frozen: self.is_frozen(),
        }
        .render(title, buf);
        StatusLine(&view).render(status, buf);
        PageView {
            page: self.page,
            view: &view,
        }
        .render(body, buf);
        KeyBar.render(keys, buf);
        if view.no_data() {
            NoDataBox(&view).render(body, buf);
        }
        if self.show_help {
            HelpBox.render(body, buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use ratatui::backend::TestBackend;
    use ratatui::Terminal;

    use super::*;
    use crate::state::Packet;
    use crate::ui::test_support::*;

    fn screen(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal
            .draw(|frame| frame.render_widget(app, frame.area()))
            .unwrap();
        terminal
    }

    fn text(terminal: &Terminal<TestBackend>) -> String {
        rows(terminal.backend().buffer()).join("\n")
    }

    fn live_app() -> App {
        let (state, now) = live_state();
        App::new(state, now)
    }

    #[test]
    fn every_page_at_80x24() {
        let mut app = live_app();
        for page in Page::ALL {
            assert_eq!(app.page(), page);
            let terminal = screen(&app, 80, 24);
            let shown = text(&terminal);
            assert!(shown.contains(&format!("[{}]", page.title())), "{shown}");
            assert!(!shown.contains("NO DATA"), "{shown}");
            insta::assert_snapshot!(format!("page_{}_80x24", page.title()), terminal.backend());
            app.apply(Action::NextPage);
        }
        assert_eq!(app.page(), Page::Drive, "tab wraps");
    }

    #[test]
    fn drive_page_shows_the_driver_numbers() {
        let shown = text(&screen(&live_app(), 80, 24));
        for expected in [
            " 122 km/h",
            "gear   3",
            " 6800 / 7500",
            "THR",
            "+45.0° L",
            "lap 4",
        ] {
            assert!(shown.contains(expected), "{expected:?} missing:\n{shown}");
        }
    }

    #[test]
    fn scales_up_with_the_map_on_the_drive_page() {
        let terminal = screen(&live_app(), 140, 40);
        assert!(text(&terminal).contains("Map"));
        insta::assert_snapshot!("page_Drive_140x40", terminal.backend());
    }

    #[test]
    fn no_data_is_unmistakable() {
        let (state, now) = empty_state();
        let terminal = screen(&App::new(state, now), 80, 24);
        let shown = text(&terminal);
        assert!(shown.contains(" NO DATA "), "badge:\n{shown}");
        assert!(shown.contains("!! NO DATA !!"), "overlay:\n{shown}");
        insta::assert_snapshot!("no_data_80x24", terminal.backend());
    }

    #[test]
    fn stale_data_turns_into_no_data() {
        let (state, now) = live_state();
        let mut app = App::new(state, now);
        app.set_now(now + Duration::from_secs(3));
        let terminal = screen(&app, 80, 24);
        let shown = text(&terminal);
        assert!(shown.contains("last packet 3.0 s ago"), "{shown}");
        assert!(shown.contains(" NO DATA "), "{shown}");
        insta::assert_snapshot!("stale_80x24", terminal.backend());
    }

    #[test]
    fn frozen_keeps_the_picture_while_packets_arrive() {
        let (state, now) = live_state();
        let mut app = App::new(state, now);
        app.apply(Action::ToggleFreeze);
        let mut faster = native_sample();
        faster.speed_mps = Some(50.0);
        let later = now + Duration::from_millis(100);
        app.live_mut().ingest([Packet {
            from: SENDER.parse().unwrap(),
            received_at: later,
            decoded: Ok(faster),
        }]);
        app.set_now(later);
        let terminal = screen(&app, 80, 24);
        let shown = text(&terminal);
        assert!(shown.contains("FROZEN"), "{shown}");
        assert!(shown.contains(" 122 km/h"), "frozen value:\n{shown}");
        insta::assert_snapshot!("frozen_80x24", terminal.backend());
        app.apply(Action::ToggleFreeze);
        let shown = text(&screen(&app, 80, 24));
        assert!(shown.contains(" 180 km/h"), "live again:\n{shown}");
        assert!(!shown.contains("FROZEN"));
    }

    #[test]
    fn help_overlay() {
        let mut app = live_app();
        app.apply(Action::ToggleHelp);
        let terminal = screen(&app, 80, 24);
        assert!(text(&terminal).contains("help (? to close)"));
        insta::assert_snapshot!("help_80x24", terminal.backend());
        app.apply(Action::ToggleHelp);
        assert!(!text(&screen(&app, 80, 24)).contains("help (? to close)"));
    }

    #[test]
    fn zoom_is_bounded_and_quit_is_reported() {
        let mut app = live_app();
        for _ in 0..20 {
            app.apply(Action::ZoomIn);
        }
        assert_eq!(app.view().map_zoom, MAX_MAP_ZOOM);
        for _ in 0..20 {
            app.apply(Action::ZoomOut);
        }
        assert_eq!(app.view().map_zoom, 0);
        assert_eq!(app.apply(Action::Quit), Flow::Quit);
    }

    /// Draws `app` at 80x24 and at 120x40, snapshots both as `{name}_{w}x{h}` and returns
    /// their text.
    fn both_sizes(app: &App, name: &str) -> [String; 2] {
        [(80, 24), (120, 40)].map(|(width, height)| {
            let terminal = screen(app, width, height);
            insta::assert_snapshot!(format!("{name}_{width}x{height}"), terminal.backend());
            text(&terminal)
        })
    }

    /// The live app with its newest sample changed by `change`.
    fn app_with(change: impl FnOnce(&mut crate::sample::Sample)) -> App {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            change(sample);
        }
        App::new(state, now)
    }

    #[test]
    fn the_running_sector_shows_its_time_not_its_time_minus_the_best() {
        let app = app_with(|sample| {
            if let Some(lap) = sample.lap.as_mut() {
                lap.sector = 1;
                lap.sector_times_s = [28.123, 10.962, 0.0];
                lap.best_sector_times_s = [28.018, 34.259, 27.07];
            }
        });
        for shown in both_sizes(&app, "running_sector") {
            assert!(shown.contains("▸S2 10.962  (34.259)"), "{shown}");
            assert!(!shown.contains("-23.297"), "{shown}");
            assert!(shown.contains(" S1 28.123 +0.105"), "{shown}");
        }
    }

    #[test]
    fn numbers_are_never_cut_and_the_rig_page_keeps_its_lights() {
        let mut app = app_with(|sample| {
            if let Some(health) = sample.health.as_mut() {
                health.wake_latency_p99_us = 1234.0;
                health.wake_latency_max_us = 21755.0;
                health.tick_work_p99_us = 1187.0;
                health.physics_step_p99_us = 1179.0;
                health.late_ticks_250us = 219;
                health.late_ticks_1ms = 4920;
            }
        });
        app.live_mut().host = crate::host::HostInfo {
            notice: Some(
                "00:12:03Z WARN telemetry rigd native to 127.0.0.1:29777: 219 send error(s)"
                    .to_owned(),
            ),
            title: "rigd telemetry out".to_owned(),
            lines: vec!["rigd native to 127.0.0.1:29777: sent 683, errors 0".to_owned()],
            driver: None,
            racing_line_m: None,
        };
        let [narrow, wide] = both_sizes(&app, "long_numbers_drive");
        for shown in [&narrow, &wide] {
            let health = shown.lines().rev().nth(1).unwrap_or_default();
            assert!(health.contains("late >250µs 219 >1ms 4920"), "{shown}");
            assert!(shown.contains("garbage 7"), "{shown}");
        }
        assert!(
            !narrow.contains("max 21755µs"),
            "the field given up first:\n{narrow}"
        );
        app.apply(Action::PreviousPage);
        let [narrow, wide] = both_sizes(&app, "long_numbers_rig");
        for shown in [&narrow, &wide] {
            assert!(shown.contains("lights    --"), "{shown}");
            assert!(shown.contains("position  --"), "{shown}");
            assert!(shown.contains("sent 683, errors 0"), "{shown}");
            assert!(shown.contains("219 >250µs, 4920 >1ms"), "{shown}");
        }
        // Every number in the status line is whole: the notice gave way by words.
        let status = narrow.lines().nth(1).unwrap_or_default().trim_end();
        assert!(status.ends_with("rigd…"), "{status}");
        let wide_status = wide.lines().nth(1).unwrap_or_default();
        assert!(
            wide_status.contains("121 pkt/s │ age 5.0 ms │ pkts 121 │ garbage 7 │ 00:12:03Z WARN"),
            "{wide_status}"
        );
    }

    #[test]
    fn before_the_first_window_the_rates_read_dashes_not_zeros() {
        let t0 = Instant::now();
        let mut state = DashState::new(vec![LISTEN.parse().unwrap()], t0);
        let mut sample = native_sample();
        sample.health = Some(rig_protocols::LoopHealth {
            ticks: 55,
            ..rig_protocols::LoopHealth::default()
        });
        state.ingest([Packet {
            from: SENDER.parse().unwrap(),
            received_at: t0,
            decoded: Ok(sample),
        }]);
        let now = t0 + Duration::from_millis(400);
        state.tick(now);
        let mut app = App::new(state, now);
        for shown in both_sizes(&app, "first_window_drive") {
            assert!(shown.contains("│ -- pkt/s │"), "{shown}");
            assert!(!shown.contains("0 pkt/s"), "{shown}");
            assert!(
                shown.contains("loop -- │ wake p99 --"),
                "no 0 Hz or 0µs before rigd measured:\n{shown}"
            );
            assert!(!shown.contains(" 0µs"), "{shown}");
        }
        app.apply(Action::PreviousPage);
        for shown in both_sizes(&app, "first_window_rig") {
            assert!(shown.contains("packets   1 (--/s)"), "{shown}");
            assert!(shown.contains("tick rate     --"), "{shown}");
            assert!(shown.contains("wake p50/p99  --"), "{shown}");
            assert!(shown.contains("ticks         55"), "{shown}");
        }
    }

    #[test]
    fn tiny_terminals_do_not_panic() {
        let app = live_app();
        for (w, h) in [(1, 1), (10, 3), (40, 10), (79, 23)] {
            screen(&app, w, h);
        }
    }
}
