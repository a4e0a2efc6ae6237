//! The frame around the pages: the title bar (name, page tabs, who drives when an embedding
//! rigd says so, LIVE / NO DATA / FROZEN badge), the source status line (format, sender,
//! packet rate, age, counters, the embedder's notice; fields that do not fit are left out
//! whole, see [`super::fit`]; the rate reads `--` until its first one-second window has
//! passed) and the key-binding bar.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::fit::{fit, Field};
use super::health::age_text;
use super::pages::Page;
use super::text::plain;
use super::View;
use crate::keys::KEY_BAR;
use crate::theme::THEME;

/// The title bar.
#[derive(Debug, Clone, Copy)]
pub struct TitleBar<'a> {
    /// What is shown.
    pub view: &'a View<'a>,
    /// The selected page.
    pub page: Page,
    /// True while the display is frozen.
    pub frozen: bool,
}

impl Widget for TitleBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let mut badges = Vec::new();
        if self.frozen {
            badges.push(Span::styled(" FROZEN (f) ", THEME.frozen));
        }
        if self.view.no_data() {
            badges.push(Span::styled(" NO DATA ", THEME.no_data));
        } else if !self.frozen {
            badges.push(Span::styled(" LIVE ", THEME.live));
        }
        let badge_width: u16 = badges.iter().map(|s| s.width() as u16).sum();
        let [tabs_area, badge_area] =
            Layout::horizontal([Constraint::Min(0), Constraint::Length(badge_width)]).areas(area);

        let mut tabs = vec![Span::styled("rig-dash ", THEME.title)];
        for page in Page::ALL {
            let style = if page == self.page {
                THEME.tab_selected
            } else {
                THEME.tab
            };
            let label = if page == self.page {
                format!("[{}]", page.title())
            } else {
                format!(" {} ", page.title())
            };
            tabs.push(Span::styled(label, style));
        }
        let tabs = Line::from(tabs);
        let tabs_width = tabs.width() as u16;
        tabs.render(tabs_area, buf);
        Line::from(badges)
            .alignment(Alignment::Right)
            .render(badge_area, buf);
        if let Some(driver) = &self.view.state.host.driver {
            // Between the tabs and the badge, a space either side, cut with `…` (no numbers to
            // lose: the vid:pid comes after the name and is the first thing cut).
            let room = tabs_area.width.saturating_sub(tabs_width + 2) as usize;
            let text = fit_with_ellipsis(driver, room);
            let area = Rect {
                x: tabs_area.x + tabs_width + 1,
                width: room as u16,
                ..tabs_area
            };
            let style = if driver.starts_with("robot:") || driver.starts_with("nobody:") {
                THEME.warn
            } else {
                THEME.value
            };
            Line::styled(text, style)
                .alignment(Alignment::Right)
                .render(area, buf);
        }
    }
}

/// `text` in at most `room` characters, its end replaced by `…` when cut.
fn fit_with_ellipsis(text: &str, room: usize) -> String {
    if text.chars().count() <= room {
        return text.to_owned();
    }
    if room == 0 {
        return String::new();
    }
    let mut cut: String = text.chars().take(room - 1).collect();
    cut.push('…');
    cut
}

/// The source status line.
#[derive(Debug, Clone, Copy)]
pub struct StatusLine<'a>(pub &'a View<'a>);

impl Widget for StatusLine<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let source = &view.state.source;
        let separator = || Span::styled(" │ ", THEME.border);
        let field = |priority, text: String, style| {
            Field::new(priority, vec![separator(), Span::styled(text, style)])
        };
        let mut fields = Vec::new();
        match (source.format, source.last_from, source.age(view.now)) {
            (Some(format), Some(from), Some(age)) => {
                fields.push(Field::text(
                    STATUS_IDENTITY,
                    format!("{format} from {from}"),
                    THEME.value,
                ));
                fields.push(field(
                    STATUS_RATE,
                    format!("{} pkt/s", plain(source.rate_hz(), 0)),
                    THEME.value,
                ));
                fields.push(field(
                    STATUS_AGE,
                    format!("age {}", age_text(age)),
                    if view.no_data() {
                        THEME.bad
                    } else {
                        THEME.value
                    },
                ));
            }
            _ => {
                let listening = source.listening_text();
                fields.push(Field::text(
                    STATUS_IDENTITY,
                    format!("listening {listening}"),
                    THEME.value,
                ));
                fields.push(field(STATUS_AGE, "no packet yet".to_owned(), THEME.bad));
            }
        }
        fields.push(field(
            STATUS_COUNTERS,
            format!("pkts {}", source.packets),
            THEME.label,
        ));
        fields.push(if source.garbage > 0 {
            field(
                STATUS_PROBLEM,
                format!("garbage {}", source.garbage),
                THEME.warn,
            )
        } else {
            field(STATUS_COUNTERS, "garbage 0".to_owned(), THEME.label)
        });
        if source.dropped > 0 {
            fields.push(field(
                STATUS_PROBLEM,
                format!("dropped {}", source.dropped),
                THEME.warn,
            ));
        }
        if let Some(notice) = &view.state.host.notice {
            fields.push(Field::prose(
                STATUS_NOTICE,
                separator(),
                Span::styled(notice.clone(), THEME.warn),
            ));
        }
        fit(fields, usize::from(area.width)).render(area, buf);
    }
}

/// Status-line priorities (higher stays longer when the line is too narrow): what the source
/// is, then the embedder's notice and any problem counter, the age, the rate, the plain
/// counters last.
const STATUS_IDENTITY: u8 = 9;
const STATUS_NOTICE: u8 = 8;
const STATUS_PROBLEM: u8 = 7;
const STATUS_AGE: u8 = 6;
const STATUS_RATE: u8 = 5;
const STATUS_COUNTERS: u8 = 3;

/// The key-binding bar at the bottom of the screen.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyBar;

impl Widget for KeyBar {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let spans: Vec<Span> = KEY_BAR
            .iter()
            .flat_map(|(key, description)| {
                [
                    Span::styled(format!(" {key} "), THEME.key),
                    Span::styled(format!(" {description}  "), THEME.key_description),
                ]
            })
            .collect();
        Line::from(spans).render(area, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn title_bar_badges() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let live = rows(&render(
            TitleBar {
                view: &view,
                page: Page::Drive,
                frozen: false,
            },
            80,
            1,
        ));
        assert_eq!(
            live[0],
            "rig-dash [Drive] Tyres  Track  Rig                                         LIVE "
        );
        let frozen = rows(&render(
            TitleBar {
                view: &view,
                page: Page::Rig,
                frozen: true,
            },
            80,
            1,
        ));
        assert!(
            frozen[0].contains(" Drive  Tyres  Track [Rig]"),
            "{frozen:?}"
        );
        assert!(frozen[0].ends_with(" FROZEN (f) "), "{frozen:?}");
        let (empty, later) = empty_state();
        let view = View {
            state: &empty,
            now: later,
            map_zoom: 0,
        };
        let none = rows(&render(
            TitleBar {
                view: &view,
                page: Page::Drive,
                frozen: false,
            },
            80,
            1,
        ));
        assert!(none[0].ends_with(" NO DATA "), "{none:?}");
    }

    #[test]
    fn the_title_bar_says_who_drives_and_cuts_it_to_fit() {
        let (mut state, now) = live_state();
        state.host.driver =
            Some("robot: wheel 'wheel' (046d:c24f) not found; plug it in".to_owned());
        let view = view_at(&state, now);
        let bar = |width| {
            rows(&render(
                TitleBar {
                    view: &view,
                    page: Page::Drive,
                    frozen: false,
                },
                width,
                1,
            ))[0]
                .clone()
        };
        assert_eq!(
            bar(120),
            format!(
                "rig-dash [Drive] Tyres  Track  Rig  {:>77}  LIVE ",
                "robot: wheel 'wheel' (046d:c24f) not found; plug it in"
            )
        );
        assert_eq!(
            bar(80),
            "rig-dash [Drive] Tyres  Track  Rig  robot: wheel 'wheel' (046d:c24f) not…  LIVE "
        );
    }

    #[test]
    fn status_line_live_and_empty() {
        let (state, now) = live_state();
        let view = view_at(&state, now);
        let live = rows(&render(StatusLine(&view), 80, 1));
        assert_eq!(
            live[0].trim_end(),
            "rigd native from 127.0.0.1:40000 │ 121 pkt/s │ age 5.0 ms │ pkts 121 │ garbage 7"
        );
        let (empty, later) = empty_state();
        let view = View {
            state: &empty,
            now: later,
            map_zoom: 0,
        };
        let none = rows(&render(StatusLine(&view), 80, 1));
        assert_eq!(
            none[0].trim_end(),
            "listening 127.0.0.1:20999 │ no packet yet │ pkts 0 │ garbage 0"
        );
    }

    #[test]
    fn key_bar_lists_the_short_bindings() {
        let bar = rows(&render(KeyBar, 80, 1));
        assert_eq!(
            bar[0].trim_end(),
            " q  quit   ?  help   f  freeze   Tab  page   +/-  zoom"
        );
    }
}
