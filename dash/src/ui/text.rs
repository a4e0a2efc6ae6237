//! Text building blocks shared by the widgets: bars made of block characters (readable without
//! colour and in `tmux capture-pane`), lap-time and signed-number formatting, and the `--`
//! placeholder for channels a source does not send.

/// Shown in place of a channel the source does not send.
pub const MISSING: &str = "--";

const PARTIAL_BLOCKS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const FULL_BLOCK: char = '█';
const EMPTY_CELL: char = '·';

/// A left-to-right bar `width` cells wide filled to `ratio` (clamped to 0 ..= 1), with
/// eighth-cell resolution; the unfilled part is dotted so the scale stays visible.
pub fn bar(ratio: f64, width: usize) -> String {
    let ratio = if ratio.is_finite() {
        ratio.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let eighths = (ratio * width as f64 * 8.0).round() as usize;
    let (full, partial) = (eighths / 8, eighths % 8);
    let mut out = String::with_capacity(width * 3);
    out.extend(std::iter::repeat_n(FULL_BLOCK, full));
    if full < width {
        if partial > 0 {
            out.push(PARTIAL_BLOCKS[partial]);
        } else {
            out.push(EMPTY_CELL);
        }
        out.extend(std::iter::repeat_n(EMPTY_CELL, width - full - 1));
    }
    out
}

/// A bar centred in `width` cells: positive `fraction` (clamped to -1 ..= 1) fills leftwards,
/// negative rightwards, matching the left-positive steering convention. The centre is `│`.
pub fn centred_bar(fraction: f64, width: usize) -> String {
    let fraction = if fraction.is_finite() {
        fraction.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let half = width.saturating_sub(1) / 2;
    let filled = (fraction.abs() * half as f64).round() as usize;
    let mut cells = vec![EMPTY_CELL; half * 2 + 1];
    cells[half] = '│';
    for i in 1..=filled {
        let index = if fraction > 0.0 { half - i } else { half + i };
        cells[index] = FULL_BLOCK;
    }
    cells.into_iter().collect()
}

/// `m:ss.mmm`, or `-:--.---` when the time is zero (not set) or not finite.
pub fn lap_time(seconds: f64) -> String {
    if !(seconds.is_finite() && seconds > 0.0) {
        return "-:--.---".to_owned();
    }
    let millis = (seconds * 1000.0).round() as u64;
    format!(
        "{}:{:02}.{:03}",
        millis / 60_000,
        (millis / 1000) % 60,
        millis % 1000
    )
}

/// `ss.mmm` for sector times, or `--.---` when not set.
pub fn sector_time(seconds: f64) -> String {
    if !(seconds.is_finite() && seconds > 0.0) {
        return "--.---".to_owned();
    }
    format!("{seconds:.3}")
}

/// A value with an explicit sign and `decimals` digits, or [`MISSING`].
pub fn signed(value: Option<f64>, decimals: usize) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:+.decimals$}"),
        _ => MISSING.to_owned(),
    }
}

/// A value with `decimals` digits, or [`MISSING`].
pub fn plain(value: Option<f64>, decimals: usize) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => MISSING.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_fills_in_eighths_and_keeps_its_width() {
        assert_eq!(bar(0.0, 4), "····");
        assert_eq!(bar(0.5, 4), "██··");
        assert_eq!(bar(1.0, 4), "████");
        assert_eq!(bar(0.625, 4), "██▌·");
        assert_eq!(bar(0.5 + 1.0 / 32.0, 4), "██▏·");
        assert_eq!(bar(2.0, 4), "████", "clamped");
        assert_eq!(bar(f64::NAN, 4), "····");
        assert_eq!(bar(0.3, 10).chars().count(), 10);
    }

    #[test]
    fn centred_bar_grows_left_for_positive() {
        assert_eq!(centred_bar(0.0, 7), "···│···");
        assert_eq!(centred_bar(1.0, 7), "███│···");
        assert_eq!(centred_bar(-2.0 / 3.0, 7), "···│██·");
    }

    #[test]
    fn times_format_like_a_timing_screen() {
        assert_eq!(lap_time(83.456), "1:23.456");
        assert_eq!(lap_time(0.0), "-:--.---");
        assert_eq!(lap_time(59.9996), "1:00.000");
        assert_eq!(sector_time(28.1234), "28.123");
        assert_eq!(sector_time(0.0), "--.---");
        assert_eq!(signed(Some(0.215), 3), "+0.215");
        assert_eq!(signed(None, 3), "--");
        assert_eq!(plain(Some(f64::INFINITY), 1), "--");
    }
}
