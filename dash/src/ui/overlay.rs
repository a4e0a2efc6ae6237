//! Pop-ups drawn over the page: the NO DATA box (unmissable, with what the dashboard listens on
//! and how long it has been silent) and the help table built from [`KEY_BINDINGS`].

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Row, Table, Widget};

use super::health::age_text;
use super::View;
use crate::keys::KEY_BINDINGS;
use crate::theme::THEME;

/// A `width` x `height` rectangle centred in `area` (clipped to it).
pub fn centred(area: Rect, width: u16, height: u16) -> Rect {
    let [row] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [cell] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(row);
    cell
}

/// The NO DATA box.
#[derive(Debug, Clone, Copy)]
pub struct NoDataBox<'a>(pub &'a View<'a>);

impl Widget for NoDataBox<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let source = &view.state.source;
        let listening = source.listening_text();
        let silence = match source.age(view.now) {
            Some(age) => format!("last packet {} ago", age_text(age)),
            None => "no packet received yet".to_owned(),
        };
        let lines = vec![
            Line::styled("!! NO DATA !!", THEME.no_data).centered(),
            Line::raw(format!("listening on {listening}")).centered(),
            Line::raw(silence).centered(),
            Line::raw(format!("garbage datagrams: {}", source.garbage)).centered(),
        ];
        let width = lines.iter().map(Line::width).max().unwrap_or(0) as u16 + 4;
        let rect = centred(area, width, lines.len() as u16 + 2);
        Clear.render(rect, buf);
        Paragraph::new(lines)
            .block(
                Block::bordered()
                    .border_type(BorderType::Double)
                    .border_style(THEME.bad),
            )
            .render(rect, buf);
    }
}

/// The help table.
#[derive(Debug, Clone, Copy, Default)]
pub struct HelpBox;

impl Widget for HelpBox {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let key_width = KEY_BINDINGS.iter().map(|(k, _)| k.len()).max().unwrap_or(0) as u16;
        let description_width = KEY_BINDINGS.iter().map(|(_, d)| d.len()).max().unwrap_or(0) as u16;
        let rect = centred(
            area,
            key_width + description_width + 5,
            KEY_BINDINGS.len() as u16 + 2,
        );
        let rows = KEY_BINDINGS.iter().map(|(key, description)| {
            Row::new([
                Span::styled(*key, THEME.title),
                Span::styled(*description, THEME.key_description),
            ])
        });
        Clear.render(rect, buf);
        Table::new(
            rows,
            [
                Constraint::Length(key_width),
                Constraint::Min(description_width),
            ],
        )
        .block(
            Block::bordered()
                .border_type(BorderType::Rounded)
                .border_style(THEME.title)
                .title(" help (? to close) "),
        )
        .render(rect, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn no_data_box_says_where_it_listens() {
        let (state, now) = empty_state();
        let view = view_at(&state, now);
        let rows = rows(&render(NoDataBox(&view), 50, 8));
        assert!(rows.iter().any(|r| r.contains("!! NO DATA !!")), "{rows:?}");
        assert!(rows
            .iter()
            .any(|r| r.contains("listening on 127.0.0.1:20999")));
        assert!(rows.iter().any(|r| r.contains("no packet received yet")));
        insta::assert_snapshot!(terminal(NoDataBox(&view), 50, 8).backend());
    }

    #[test]
    fn help_lists_every_binding() {
        let rows = rows(&render(HelpBox, 60, 12));
        for (key, description) in KEY_BINDINGS {
            assert!(
                rows.iter()
                    .any(|r| r.contains(key) && r.contains(description)),
                "{key} missing: {rows:?}"
            );
        }
        insta::assert_snapshot!(terminal(HelpBox, 60, 12).backend());
    }
}
