//! Key bindings: the one table the help screen and the binding bar are drawn from, and the
//! mapping from key presses to actions. Only `Press` events count, so terminals that report
//! releases and repeats do not double every action.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key press asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave the dashboard (and, inside rigd, stop rigd).
    Quit,
    /// Show or hide the help.
    ToggleHelp,
    /// Freeze or unfreeze the displayed values.
    ToggleFreeze,
    /// Next page.
    NextPage,
    /// Previous page.
    PreviousPage,
    /// Zoom the track map in.
    ZoomIn,
    /// Zoom the track map out.
    ZoomOut,
}

/// `(keys, what they do)`, in the order the help shows them.
pub const KEY_BINDINGS: &[(&str, &str)] = &[
    ("q Esc Ctrl-C", "quit (inside rigd: stop rigd)"),
    ("?", "show or hide this help"),
    ("f", "freeze or unfreeze the display"),
    ("Tab l →", "next page"),
    ("S-Tab h ←", "previous page"),
    ("+ =", "zoom the track map in"),
    ("-", "zoom the track map out"),
];

/// The short form shown in the binding bar at the bottom of the screen.
pub const KEY_BAR: &[(&str, &str)] = &[
    ("q", "quit"),
    ("?", "help"),
    ("f", "freeze"),
    ("Tab", "page"),
    ("+/-", "zoom"),
];

/// Maps a key event to an action; `None` for releases, repeats and unbound keys.
pub fn action_for(key: KeyEvent) -> Option<Action> {
    if key.kind != KeyEventKind::Press {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return (key.code == KeyCode::Char('c')).then_some(Action::Quit);
    }
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc => Some(Action::Quit),
        KeyCode::Char('?') => Some(Action::ToggleHelp),
        KeyCode::Char('f') => Some(Action::ToggleFreeze),
        KeyCode::Tab | KeyCode::Char('l') | KeyCode::Right => Some(Action::NextPage),
        KeyCode::BackTab | KeyCode::Char('h') | KeyCode::Left => Some(Action::PreviousPage),
        KeyCode::Char('+') | KeyCode::Char('=') => Some(Action::ZoomIn),
        KeyCode::Char('-') => Some(Action::ZoomOut),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventState;

    fn key(code: KeyCode, kind: KeyEventKind) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind,
            state: KeyEventState::NONE,
        }
    }

    #[test]
    fn only_presses_act() {
        let q = KeyCode::Char('q');
        assert_eq!(action_for(key(q, KeyEventKind::Press)), Some(Action::Quit));
        assert_eq!(action_for(key(q, KeyEventKind::Release)), None);
        assert_eq!(action_for(key(q, KeyEventKind::Repeat)), None);
    }

    #[test]
    fn ctrl_c_quits_because_raw_mode_swallows_sigint() {
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action_for(ctrl_c), Some(Action::Quit));
        let ctrl_f = KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL);
        assert_eq!(action_for(ctrl_f), None);
    }

    #[test]
    fn every_documented_key_has_an_action() {
        for (code, expected) in [
            (KeyCode::Char('?'), Action::ToggleHelp),
            (KeyCode::Char('f'), Action::ToggleFreeze),
            (KeyCode::Tab, Action::NextPage),
            (KeyCode::BackTab, Action::PreviousPage),
            (KeyCode::Char('+'), Action::ZoomIn),
            (KeyCode::Char('-'), Action::ZoomOut),
        ] {
            assert_eq!(action_for(key(code, KeyEventKind::Press)), Some(expected));
        }
    }
}
