//! rig-toml: where each field of a TOML document is written, taken from the TOML parser's
//! spans, so every rigd message about a TOML file (the config, car and track documents)
//! points at the same line and column whichever way the field was written: under a
//! `[table]` header, as a dotted key (`suspension.front.travel_m = 0.1`), inside an inline
//! table (`front = { travel_m = 0.1 }`) or in an array of tables (`[[piece]]`).
//!
//! Fields are named by dotted paths with array indices: `loop.rate_hz`,
//! `telemetry[1].port`, `piece[3].radius_m`. [`Places`] maps every path written in a
//! document to the byte offset of its key (an array element: of its start, the `[[name]]`
//! header for an array of tables); [`line_column`] turns an offset into a 1-based line and
//! column.
//!
//! [`plain`] says what serde and the file system report about these files in plain words
//! (`expected u32` -> "a whole number from 0 to 4294967295"), for the same messages.
//!
//! It depends on nothing of rigd, so rig-config and rig-physics both use it without
//! depending on each other. (It is small enough to fold into a shared types crate later.)
//!
//! ```
//! let text = "[chassis]\nmass_kg = 1300.0\nsuspension = { front = { travel_m = 0.1 } }\n";
//! let places = rig_toml::Places::parse(text);
//! assert_eq!(places.position(text, "chassis.mass_kg"), Some((2, 1)));
//! assert_eq!(places.position(text, "chassis.suspension.front.travel_m"), Some((3, 26)));
//! // A field that is not written points at the nearest enclosing one that is.
//! assert_eq!(places.position(text, "chassis.cog_height_m"), Some((1, 2)));
//! assert_eq!(places.position(text, "aero.drag"), None);
//! ```

pub mod plain;

use std::collections::HashMap;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Where each field of one TOML document is written: dotted path -> byte offset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Places {
    offsets: HashMap<String, usize>,
}

impl Places {
    /// Parses `text` (recovering from syntax errors: whatever parsed is indexed) and records
    /// where every field is written.
    pub fn parse(text: &str) -> Places {
        let (root, _) = DeTable::parse_recoverable(text);
        Places::of(root.get_ref())
    }

    /// Records where every field of an already parsed document is written.
    pub fn of(root: &DeTable<'_>) -> Places {
        let mut places = Places::default();
        places.add_table(root, "");
        places
    }

    fn add_table(&mut self, table: &DeTable<'_>, prefix: &str) {
        for (key, value) in table.iter() {
            let path = if prefix.is_empty() {
                key.get_ref().to_string()
            } else {
                format!("{prefix}.{}", key.get_ref())
            };
            self.offsets.insert(path.clone(), key.span().start);
            self.add_value(value, &path);
        }
    }

    fn add_value(&mut self, value: &Spanned<DeValue<'_>>, path: &str) {
        match value.get_ref() {
            DeValue::Table(table) => self.add_table(table, path),
            DeValue::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    let item_path = format!("{path}[{index}]");
                    self.offsets.insert(item_path.clone(), item.span().start);
                    self.add_value(item, &item_path);
                }
            }
            _ => {}
        }
    }

    /// Byte offset where `field` is written, or where its nearest enclosing table or array
    /// element is when `field` itself is not (a missing key); `None` when nothing on its
    /// path is written.
    pub fn offset(&self, field: &str) -> Option<usize> {
        let mut path = field;
        loop {
            if let Some(&offset) = self.offsets.get(path) {
                return Some(offset);
            }
            path = parent(path)?;
        }
    }

    /// 1-based line and column in `text` (the text these places were taken from) of
    /// [`Places::offset`].
    pub fn position(&self, text: &str, field: &str) -> Option<(usize, usize)> {
        self.offset(field).map(|offset| line_column(text, offset))
    }
}

/// The path one step up: `a.b[2].c` -> `a.b[2]` -> `a.b` -> `a`; `None` at the top.
fn parent(path: &str) -> Option<&str> {
    let cut = path.rfind(['.', '['])?;
    Some(&path[..cut])
}

/// 1-based line and column (in characters) of a byte offset in `text`; an offset past the
/// end or inside a character counts as the nearest character boundary before it.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_under_a_table_header_is_found_at_its_own_line() {
        let text = "[suspension.front]\ntravel_m = 0.1\n\n[suspension.rear]\ntravel_m = 0.2\n";
        let places = Places::parse(text);
        assert_eq!(
            places.position(text, "suspension.front.travel_m"),
            Some((2, 1))
        );
        assert_eq!(
            places.position(text, "suspension.rear.travel_m"),
            Some((5, 1))
        );
        // A header names the table at its key.
        assert_eq!(places.position(text, "suspension.rear"), Some((4, 13)));
    }

    #[test]
    fn dotted_keys_and_inline_tables_are_found_at_their_key() {
        let text = "name = \"x\"\nsuspension.rear.travel_m = 0.2\n\
                    [chassis]\nfront = { spring = 3.0, bump.fast = 4.0 }\n";
        let places = Places::parse(text);
        assert_eq!(
            places.position(text, "suspension.rear.travel_m"),
            Some((2, 17))
        );
        assert_eq!(places.position(text, "chassis.front.spring"), Some((4, 11)));
        assert_eq!(
            places.position(text, "chassis.front.bump.fast"),
            Some((4, 30))
        );
    }

    #[test]
    fn array_elements_are_found_at_their_header_and_missing_keys_at_their_element() {
        let text = "[[piece]]\nkind = \"straight\"\n\n[[piece]]\nkind = \"arc\"\nradius_m = 50.0\n\
                    sectors = [1.0, 2.0]\n";
        let places = Places::parse(text);
        assert_eq!(places.position(text, "piece[1]"), Some((4, 1)));
        assert_eq!(places.position(text, "piece[1].radius_m"), Some((6, 1)));
        assert_eq!(places.position(text, "piece[0].radius_m"), Some((1, 1)));
        assert_eq!(places.position(text, "piece[1].sectors[1]"), Some((7, 17)));
        assert_eq!(places.position(text, "piece[7].kind"), Some((1, 3)));
        assert_eq!(places.position(text, "zone[0].to_m"), None);
    }

    #[test]
    fn a_document_with_a_syntax_error_still_places_what_parsed() {
        let text = "[loop]\nrate_hz = 500\npriority = = 3\n";
        let places = Places::parse(text);
        assert_eq!(places.position(text, "loop.rate_hz"), Some((2, 1)));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let text = "name = \"Nürburgring\"\nseed = 3\n";
        assert_eq!(line_column(text, text.find("seed").unwrap()), (2, 1));
        assert_eq!(line_column(text, text.find("ring").unwrap()), (1, 16));
        assert_eq!(line_column(text, text.len() + 10), (3, 1));
        // Inside the two bytes of `ü`: the character's own column.
        assert_eq!(line_column(text, text.find('ü').unwrap() + 1), (1, 10));
    }
}
