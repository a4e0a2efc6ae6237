//! The one colour theme, as a `const` of styles. Colour always doubles a text or symbol cue
//! (`CLIP`, `NO DATA`, `!`, filled shift lights), so the screen reads without colour too.

use ratatui::style::{Color, Modifier, Style};

/// Named styles for every part of the screen.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    /// Base style of the whole screen.
    pub root: Style,
    /// Panel borders.
    pub border: Style,
    /// Panel titles.
    pub title: Style,
    /// Labels next to values.
    pub label: Style,
    /// Live values.
    pub value: Style,
    /// Big numbers (speed, gear).
    pub big_value: Style,
    /// Values that are missing or stale.
    pub dim: Style,
    /// The selected tab.
    pub tab_selected: Style,
    /// Unselected tabs.
    pub tab: Style,
    /// The "NO DATA" badge and overlay.
    pub no_data: Style,
    /// The "FROZEN" badge.
    pub frozen: Style,
    /// The "LIVE" badge.
    pub live: Style,
    /// Good state.
    pub ok: Style,
    /// Attention (near a limit).
    pub warn: Style,
    /// Over a limit (clipping, late ticks, garbage).
    pub bad: Style,
    /// Throttle bar.
    pub throttle: Style,
    /// Brake bar.
    pub brake: Style,
    /// Clutch bar.
    pub clutch: Style,
    /// Handbrake bar.
    pub handbrake: Style,
    /// RPM bar below the shift window.
    pub rpm: Style,
    /// Shift lights, first (green) stage.
    pub shift_green: Style,
    /// Shift lights, second (amber) stage.
    pub shift_amber: Style,
    /// Shift lights, last (red) stage and the SHIFT cue.
    pub shift_red: Style,
    /// Unlit shift lights and empty bar cells.
    pub unlit: Style,
    /// Track trace on the map.
    pub map_trace: Color,
    /// The racing line the robots drive, on the map.
    pub map_line: Color,
    /// The car on the map and the current g-g point.
    pub marker: Color,
    /// The g-g trail.
    pub gg_trail: Color,
    /// Reference circles and axes.
    pub grid: Color,
    /// Key names in the binding bar and help.
    pub key: Style,
    /// Key descriptions in the binding bar and help.
    pub key_description: Style,
}

/// The dashboard's theme.
pub const THEME: Theme = Theme {
    root: Style::new(),
    border: Style::new().fg(Color::DarkGray),
    title: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
    label: Style::new().fg(Color::Gray),
    value: Style::new().fg(Color::White),
    big_value: Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
    dim: Style::new().fg(Color::DarkGray),
    tab_selected: Style::new()
        .fg(Color::Black)
        .bg(Color::Cyan)
        .add_modifier(Modifier::BOLD),
    tab: Style::new().fg(Color::Gray),
    no_data: Style::new()
        .fg(Color::White)
        .bg(Color::Red)
        .add_modifier(Modifier::BOLD),
    frozen: Style::new()
        .fg(Color::Black)
        .bg(Color::Yellow)
        .add_modifier(Modifier::BOLD),
    live: Style::new()
        .fg(Color::Black)
        .bg(Color::Green)
        .add_modifier(Modifier::BOLD),
    ok: Style::new().fg(Color::Green),
    warn: Style::new().fg(Color::Yellow),
    bad: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
    throttle: Style::new().fg(Color::Green),
    brake: Style::new().fg(Color::Red),
    clutch: Style::new().fg(Color::Blue),
    handbrake: Style::new().fg(Color::Magenta),
    rpm: Style::new().fg(Color::White),
    shift_green: Style::new().fg(Color::Green),
    shift_amber: Style::new().fg(Color::Yellow),
    shift_red: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
    unlit: Style::new().fg(Color::DarkGray),
    map_trace: Color::Gray,
    map_line: Color::Green,
    marker: Color::Yellow,
    gg_trail: Color::Cyan,
    grid: Color::DarkGray,
    key: Style::new().fg(Color::Black).bg(Color::Gray),
    key_description: Style::new().fg(Color::Gray),
};
