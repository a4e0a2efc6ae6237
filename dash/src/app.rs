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

    #[test]
    fn tiny_terminals_do_not_panic() {
        let app = live_app();
        for (w, h) in [(1, 1), (10, 3), (40, 10), (79, 23)] {
            screen(&app, w, h);
        }
    }
}
