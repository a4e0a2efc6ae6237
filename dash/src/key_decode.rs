//! Raw-mode terminal bytes to key presses, for the few keys the dashboard binds.
//!
//! Why our own: the dashboard reads its terminal itself (see [`crate::tty`]) instead of
//! through crossterm's event reader, so it needs the byte-level decoding too. Scope: printable
//! characters (UTF-8), Tab, Enter, Backspace, Ctrl+letter (Ctrl-C is byte 3 in raw mode), a lone
//! Esc, and the escape sequences of the arrow keys and Shift-Tab (`ESC [ C/D/A/B/Z`,
//! `ESC O C/D/A/B`). Every other escape sequence (function keys, modified arrows, mouse, focus)
//! is consumed whole and yields nothing, so its bytes never turn into Esc (quit) or letters.
//! Alt+key (`ESC` then a character) yields nothing either.
//!
//! Invariant: a read from a terminal in raw mode delivers a key's whole sequence at once, so an
//! `ESC` at the very end of the bytes is the Esc key (the convention crossterm uses as well).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const ESC: u8 = 0x1b;

/// Appends the key presses encoded in `bytes` to `keys`.
pub fn decode_keys(bytes: &[u8], keys: &mut Vec<KeyEvent>) {
    let mut rest = bytes;
    while let Some((&first, tail)) = rest.split_first() {
        let (key, used) = match first {
            ESC => escape(tail),
            _ => single(first, rest),
        };
        keys.extend(key);
        rest = &rest[used.max(1)..];
    }
}

/// The key at the start of `bytes` that begins with the non-escape byte `first`, and how many
/// bytes it used.
fn single(first: u8, bytes: &[u8]) -> (Option<KeyEvent>, usize) {
    let plain = |code| Some(KeyEvent::new(code, KeyModifiers::NONE));
    match first {
        b'\t' => (plain(KeyCode::Tab), 1),
        b'\r' | b'\n' => (plain(KeyCode::Enter), 1),
        0x7f | 0x08 => (plain(KeyCode::Backspace), 1),
        0x01..=0x1a => {
            let letter = char::from(b'a' + first - 1);
            (
                Some(KeyEvent::new(KeyCode::Char(letter), KeyModifiers::CONTROL)),
                1,
            )
        }
        0x20..=0x7e => (plain(KeyCode::Char(char::from(first))), 1),
        0x80.. => utf8_char(bytes),
        // NUL and the remaining C0 controls (0x1c..=0x1f) bind nothing.
        _ => (None, 1),
    }
}

/// One UTF-8 encoded character; an invalid lead or truncated sequence skips one byte.
fn utf8_char(bytes: &[u8]) -> (Option<KeyEvent>, usize) {
    let len = match bytes[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return (None, 1),
    };
    match bytes
        .get(..len)
        .and_then(|encoded| std::str::from_utf8(encoded).ok())
        .and_then(|text| text.chars().next())
    {
        Some(c) => (
            Some(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
            len,
        ),
        None => (None, 1),
    }
}

/// The key for an `ESC` followed by `after`, and how many bytes it used including the `ESC`.
fn escape(after: &[u8]) -> (Option<KeyEvent>, usize) {
    let plain = |code| Some(KeyEvent::new(code, KeyModifiers::NONE));
    match after.first() {
        // A lone Esc, or Esc pressed twice (the second is decoded on its own).
        None | Some(&ESC) => (plain(KeyCode::Esc), 1),
        Some(b'[') => {
            let (key, used) = csi(&after[1..]);
            (key, 2 + used)
        }
        Some(b'O') => match after.get(1) {
            Some(&final_byte) => (arrow(final_byte).and_then(plain), 3),
            None => (None, 2),
        },
        // Alt + a key: not bound; consume the key with it.
        Some(_) => {
            let (_, used) = single(after[0], after);
            (None, 1 + used)
        }
    }
}

/// A control sequence after `ESC [`: parameter bytes, intermediate bytes, one final byte.
/// Only unmodified arrows and Shift-Tab are keys; a truncated sequence is dropped whole.
fn csi(bytes: &[u8]) -> (Option<KeyEvent>, usize) {
    let body = bytes
        .iter()
        .take_while(|b| (0x20..=0x3f).contains(*b))
        .count();
    let Some(&final_byte) = bytes.get(body) else {
        return (None, bytes.len());
    };
    if !(0x40..=0x7e).contains(&final_byte) {
        // Not a well-formed sequence: drop what was read as its body, keep the odd byte.
        return (None, body);
    }
    let unmodified = matches!(&bytes[..body], b"" | b"1");
    let key = match final_byte {
        b'Z' if unmodified => Some(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)),
        _ if unmodified => arrow(final_byte).map(|code| KeyEvent::new(code, KeyModifiers::NONE)),
        _ => None,
    };
    (key, body + 1)
}

fn arrow(final_byte: u8) -> Option<KeyCode> {
    match final_byte {
        b'A' => Some(KeyCode::Up),
        b'B' => Some(KeyCode::Down),
        b'C' => Some(KeyCode::Right),
        b'D' => Some(KeyCode::Left),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{action_for, Action};
    use proptest::prelude::*;

    fn decoded(bytes: &[u8]) -> Vec<KeyEvent> {
        let mut keys = Vec::new();
        decode_keys(bytes, &mut keys);
        keys
    }

    fn actions(bytes: &[u8]) -> Vec<Action> {
        decoded(bytes).into_iter().filter_map(action_for).collect()
    }

    #[test]
    fn every_bound_key_decodes_to_its_action() {
        use Action::*;
        for (bytes, expected) in [
            (&b"q"[..], Quit),
            (b"\x1b", Quit),
            (b"\x03", Quit),
            (b"?", ToggleHelp),
            (b"f", ToggleFreeze),
            (b"\t", NextPage),
            (b"l", NextPage),
            (b"\x1b[C", NextPage),
            (b"\x1bOC", NextPage),
            (b"\x1b[Z", PreviousPage),
            (b"h", PreviousPage),
            (b"\x1b[D", PreviousPage),
            (b"\x1bOD", PreviousPage),
            (b"+", ZoomIn),
            (b"=", ZoomIn),
            (b"-", ZoomOut),
        ] {
            assert_eq!(actions(bytes), vec![expected], "{bytes:?}");
        }
    }

    #[test]
    fn several_keys_in_one_read_all_count() {
        assert_eq!(
            actions(b"f\x1b[C+q"),
            vec![
                Action::ToggleFreeze,
                Action::NextPage,
                Action::ZoomIn,
                Action::Quit
            ]
        );
    }

    #[test]
    fn other_sequences_never_quit() {
        // F5, Ctrl-Right, Shift-Up, a mouse report, focus in, Alt-q, and a truncated CSI.
        for bytes in [
            &b"\x1b[15~"[..],
            b"\x1b[1;5C",
            b"\x1b[1;2A",
            b"\x1b[<0;10;5M",
            b"\x1b[I",
            b"\x1bq",
            b"\x1b[1;",
        ] {
            assert_eq!(actions(bytes), vec![], "{bytes:?}");
        }
    }

    #[test]
    fn utf8_characters_are_one_key() {
        assert_eq!(
            decoded("é".as_bytes()),
            vec![KeyEvent::new(KeyCode::Char('é'), KeyModifiers::NONE)]
        );
        assert_eq!(decoded(&[0xff, b'q']).len(), 1, "a stray byte is skipped");
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_and_never_invent_keys(
            bytes in proptest::collection::vec(any::<u8>(), 0..64)
        ) {
            let keys = decoded(&bytes);
            prop_assert!(keys.len() <= bytes.len());
        }

        #[test]
        fn printable_ascii_maps_one_to_one(text in "[ -~]{0,40}") {
            let keys = decoded(text.as_bytes());
            let chars: Vec<char> = keys
                .iter()
                .map(|k| match k.code {
                    KeyCode::Char(c) => c,
                    other => panic!("{other:?}"),
                })
                .collect();
            prop_assert_eq!(chars.into_iter().collect::<String>(), text);
        }
    }
}
