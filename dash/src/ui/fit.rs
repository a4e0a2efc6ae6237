//! Lines that fit their width by leaving out whole fields, never by cutting one: a line cut at
//! the terminal's edge can turn `219` into `21` or a label into a different word, and a wrong
//! number is worse than a missing one. Each [`Field`] is a group of spans (its separator
//! included) with a priority; [`fit`] drops the lowest priority first (the rightmost among
//! equals) until the rest fits. One field may be prose ([`Field::prose`], rigd's notice): it
//! gives way by words, ending in `…`, so a number in it is shown whole or not at all.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Columns a prose field keeps at least before fields of lower priority give way to it.
pub const PROSE_MIN_WIDTH: usize = 24;

/// A part of a line that is shown whole or not at all.
#[derive(Debug, Clone)]
pub struct Field {
    spans: Vec<Span<'static>>,
    priority: u8,
    prose: bool,
}

impl Field {
    /// A field of `spans`; higher `priority` is kept longer.
    pub fn new(priority: u8, spans: Vec<Span<'static>>) -> Self {
        Self {
            spans,
            priority,
            prose: false,
        }
    }

    /// One styled text.
    pub fn text(priority: u8, text: impl Into<String>, style: Style) -> Self {
        Self::new(priority, vec![Span::styled(text.into(), style)])
    }

    /// Words that may be shortened at a word boundary (the first span is a separator kept
    /// whole, the second the words).
    pub fn prose(priority: u8, separator: Span<'static>, words: Span<'static>) -> Self {
        Self {
            spans: vec![separator, words],
            priority,
            prose: true,
        }
    }

    fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }

    /// The width this field needs at least to be shown.
    fn min_width(&self) -> usize {
        if self.prose {
            self.width().min(self.spans[0].width() + PROSE_MIN_WIDTH)
        } else {
            self.width()
        }
    }
}

/// `fields` in order, without the ones that do not fit in `width` columns.
pub fn fit(mut fields: Vec<Field>, width: usize) -> Line<'static> {
    while fields.iter().map(Field::min_width).sum::<usize>() > width {
        let Some(drop) = fields
            .iter()
            .enumerate()
            .min_by_key(|(index, field)| (field.priority, std::cmp::Reverse(*index)))
            .map(|(index, _)| index)
        else {
            break;
        };
        fields.remove(drop);
    }
    let fixed: usize = fields.iter().filter(|f| !f.prose).map(Field::width).sum();
    let mut room = width.saturating_sub(fixed);
    let mut spans = Vec::new();
    for field in fields {
        if field.prose {
            let separator = field.spans[0].clone();
            let words_room = room.saturating_sub(separator.width());
            let words = &field.spans[1];
            let shortened = shorten_words(&words.content, words_room);
            room = room.saturating_sub(separator.width() + shortened.chars().count());
            if !shortened.is_empty() {
                spans.push(separator);
                spans.push(Span::styled(shortened, words.style));
            }
        } else {
            spans.extend(field.spans);
        }
    }
    Line::from(spans)
}

/// `text` when it fits in `width` columns, else its leading whole words and `…` (empty when
/// not even one word fits).
pub fn shorten_words(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    for word in text.split(' ') {
        let extra = usize::from(!out.is_empty()) + word.chars().count();
        if out.chars().count() + extra + 1 > width {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        return out;
    }
    out.push('…');
    out
}

/// A label padded to `label_width` and a value; when both do not fit in `width`, the value
/// alone, and when that does not fit either, nothing (never a cut value).
pub fn label_value(
    label: &str,
    label_width: usize,
    label_style: Style,
    value: String,
    value_style: Style,
    width: usize,
) -> Line<'static> {
    fit(
        vec![
            Field::text(1, format!("{label:<label_width$}"), label_style),
            Field::text(2, value, value_style),
        ],
        width,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn fields_go_whole_lowest_priority_first() {
        let fields = || {
            vec![
                Field::text(9, "loop 1000 Hz", Style::new()),
                Field::text(2, " max 230µs", Style::new()),
                Field::text(7, " late 219", Style::new()),
            ]
        };
        assert_eq!(shown(&fit(fields(), 80)), "loop 1000 Hz max 230µs late 219");
        assert_eq!(shown(&fit(fields(), 25)), "loop 1000 Hz late 219");
        assert_eq!(shown(&fit(fields(), 20)), "loop 1000 Hz");
        assert_eq!(shown(&fit(fields(), 5)), "");
    }

    #[test]
    fn prose_shortens_by_words_and_never_cuts_a_number() {
        assert_eq!(
            shorten_words("sent 10, errors 219", 40),
            "sent 10, errors 219"
        );
        assert_eq!(shorten_words("sent 10, errors 219", 18), "sent 10, errors…");
        assert_eq!(shorten_words("sent 10, errors 219", 3), "");
        let line = fit(
            vec![
                Field::text(9, "status", Style::new()),
                Field::text(3, " │ pkts 12345", Style::new()),
                Field::prose(
                    8,
                    Span::raw(" │ "),
                    Span::raw("WARN telemetry to 127.0.0.1:4000 refused 219 times"),
                ),
            ],
            40,
        );
        assert_eq!(shown(&line), "status │ WARN telemetry to…");
    }

    #[test]
    fn a_value_loses_its_label_before_any_digit() {
        let line = |width| {
            shown(&label_value(
                "late ticks",
                14,
                Style::new(),
                "219 >250µs, 4920 >1ms".into(),
                Style::new(),
                width,
            ))
        };
        assert_eq!(line(40), "late ticks    219 >250µs, 4920 >1ms");
        assert_eq!(line(30), "219 >250µs, 4920 >1ms");
        assert_eq!(line(10), "");
    }
}
