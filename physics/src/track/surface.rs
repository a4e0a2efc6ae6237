//! Surfaces across and along the track: which surface lies in each band (racing surface, kerb,
//! run-off) on each side at every sample, and how strongly its roughness and kerb height are
//! faded in near a change of surface so the ground height never steps.
//!
//! Zone boundaries snap to the sample grid: the surface of the stretch between samples `i` and
//! `i + 1` is the one recorded at sample `i`. Fades are smoothsteps over [`FADE_M`] of distance
//! to the nearest change along the lap (0 at the change, from both sides), interpolated
//! linearly between samples.

use super::centreline::CurvatureSegment;
use super::spec::{Band, SurfaceName, TrackSpec};
use crate::telemetry::SurfaceKind;

/// Length over which roughness and kerb height fade in after a change of surface, m.
pub(crate) const FADE_M: f64 = 1.5;
/// "No kerb here" in the kerb band.
pub(crate) const NO_KERB: u8 = u8::MAX;

/// Band indices into [`SurfaceSample::ids`] (times two, plus the side: 0 left, 1 right).
pub(crate) const TRACK_BAND: usize = 0;
/// The kerb band.
pub(crate) const KERB_BAND: usize = 1;
/// The run-off band.
pub(crate) const RUNOFF_BAND: usize = 2;

/// Surfaces at one sample.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct SurfaceSample {
    /// Surface kind (`SurfaceKind as u8`) per band and side: `[band * 2 + side]`.
    pub ids: [u8; 6],
    /// Kerb height and roughness factor, left and right.
    pub kerb_fade: [f64; 2],
    /// Run-off roughness factor, left and right.
    pub runoff_fade: [f64; 2],
}

/// Surface kind from its stored id.
pub(crate) fn kind_of(id: u8) -> SurfaceKind {
    match id {
        1 => SurfaceKind::Kerb,
        2 => SurfaceKind::Grass,
        3 => SurfaceKind::Gravel,
        4 => SurfaceKind::Wet,
        _ => SurfaceKind::Asphalt,
    }
}

fn id(name: SurfaceName) -> u8 {
    name.kind() as u8
}

/// Per-sample surfaces for samples `0..=n` of a lap of `length_m`.
pub(crate) fn sample(
    spec: &TrackSpec,
    segments: &[CurvatureSegment],
    length_m: f64,
    n: usize,
) -> Vec<SurfaceSample> {
    let spacing = length_m / n as f64;
    let index_of = |s: f64| ((s / spacing).round() as usize).min(n);
    let mut ids = vec![
        [
            id(spec.racing_surface),
            id(spec.racing_surface),
            NO_KERB,
            NO_KERB,
            id(spec.runoff_surface),
            id(spec.runoff_surface),
        ];
        n
    ];
    // Applies `surface` to `band` on `sides` for samples in [from, to), wrapping over the line.
    let mut lay = |from_m: f64, to_m: f64, band: usize, sides: [bool; 2], surface: u8| {
        let (a, b) = (index_of(from_m.rem_euclid(length_m)), index_of(to_m));
        let count = if b > a { b - a } else { b + n - a };
        for i in a..a + count {
            for (side, on) in sides.iter().enumerate() {
                if *on {
                    ids[i % n][band * 2 + side] = surface;
                }
            }
        }
    };
    for (piece, seg) in spec.pieces.iter().zip(segments) {
        let (from, to) = (seg.start_m, seg.start_m + seg.length_m);
        if let Some(kerbs) = piece.kerbs {
            let sides = [kerbs.includes(0), kerbs.includes(1)];
            lay(from, to, KERB_BAND, sides, id(SurfaceName::Kerb));
        }
        if let Some(surface) = piece.runoff_surface {
            lay(from, to, RUNOFF_BAND, [true, true], id(surface));
        }
    }
    for zone in &spec.zones {
        let band = match zone.band {
            Band::Track => TRACK_BAND,
            Band::Kerb => KERB_BAND,
            Band::Runoff => RUNOFF_BAND,
        };
        let sides = [zone.side.includes(0), zone.side.includes(1)];
        let to = if zone.to_m > length_m {
            length_m
        } else {
            zone.to_m
        };
        lay(zone.from_m, to, band, sides, id(zone.surface));
    }

    let change_distance = |slot: usize| -> Vec<f64> { distances_to_change(&ids, slot, spacing) };
    let fade = |d: f64| {
        let t = (d / FADE_M).clamp(0.0, 1.0);
        t * t * (3.0 - 2.0 * t)
    };
    let kerb = [
        change_distance(KERB_BAND * 2),
        change_distance(KERB_BAND * 2 + 1),
    ];
    let runoff = [
        change_distance(RUNOFF_BAND * 2),
        change_distance(RUNOFF_BAND * 2 + 1),
    ];
    let mut out: Vec<SurfaceSample> = (0..n)
        .map(|i| SurfaceSample {
            ids: ids[i],
            kerb_fade: [fade(kerb[0][i]), fade(kerb[1][i])],
            runoff_fade: [
                fade(runoff[0][i].min(kerb[0][i])),
                fade(runoff[1][i].min(kerb[1][i])),
            ],
        })
        .collect();
    out.push(out[0]);
    out
}

/// Distance from each sample to the nearest change of `ids[..][slot]` along the (circular)
/// lap, m; infinite when the whole lap is one surface.
fn distances_to_change(ids: &[[u8; 6]], slot: usize, spacing: f64) -> Vec<f64> {
    let n = ids.len();
    let changes_at = |i: usize| ids[i][slot] != ids[(i + n - 1) % n][slot];
    let mut out = vec![f64::INFINITY; n];
    if !(0..n).any(changes_at) {
        return out;
    }
    // Forward then backward sweeps, twice round so every sample sees the wrap.
    let mut since = f64::INFINITY;
    for k in 0..2 * n {
        let i = k % n;
        since = if changes_at(i) { 0.0 } else { since + spacing };
        out[i] = out[i].min(since);
    }
    let mut until = f64::INFINITY;
    for k in (0..2 * n).rev() {
        let i = k % n;
        // A change at i + 1 lies one spacing ahead of i.
        let next = (i + 1) % n;
        until = if changes_at(next) {
            spacing
        } else {
            until + spacing
        };
        out[i] = out[i].min(until);
    }
    out
}
