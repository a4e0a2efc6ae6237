//! Profiles along the lap: centreline height, banking, half widths and run-off widths as
//! smooth functions of distance, sampled on the same grid as the centreline.
//!
//! Knots sit at piece ends. The start line (s = 0 and s = length) carries the track-level
//! values (height 0, `start_bank_deg`, `half_width_m`, `runoff_m`), so the lap is periodic: a piece that
//! names no value keeps the previous one, and the last piece always blends back to the start
//! line's values. Height is a monotone cubic Hermite spline (C1: the grade never jumps, so the
//! ground normal is continuous); the other values blend with a smoothstep inside each piece
//! (C1 as well, flat at the knots).

use super::centreline::CurvatureSegment;
use super::spec::{PieceSpec, SpecProblem, TrackSpec};

/// Steepest grade accepted, rise over run.
const MAX_GRADE: f64 = 0.35;

/// Profile values at one sample.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct ProfileSample {
    /// Centreline height, m.
    pub height_m: f64,
    /// d(height)/d(distance).
    pub grade: f64,
    /// tan(bank angle); positive lowers the left edge.
    pub tan_bank: f64,
    /// d(tan bank)/d(distance), 1/m.
    pub tan_bank_rate: f64,
    /// Half widths of the racing surface, left and right, m.
    pub half_width_m: [f64; 2],
    /// Lateral distance of the barriers from the centreline, left and right, m (> 0).
    pub barrier_m: [f64; 2],
}

/// Values at one knot (a piece end).
#[derive(Debug, Clone, Copy)]
struct Knot {
    s: f64,
    height: f64,
    bank_rad: f64,
    half_width: [f64; 2],
    runoff: [f64; 2],
}

fn knots(spec: &TrackSpec, segments: &[CurvatureSegment]) -> Result<Vec<Knot>, SpecProblem> {
    let start = Knot {
        s: 0.0,
        height: 0.0,
        bank_rad: spec.start_bank_deg.to_radians(),
        half_width: [spec.half_width_m; 2],
        runoff: [spec.runoff_m; 2],
    };
    let mut out = Vec::with_capacity(spec.pieces.len() + 1);
    out.push(start);
    let last = spec.pieces.len() - 1;
    for (i, (piece, seg)) in spec.pieces.iter().zip(segments).enumerate() {
        let prev = out[i];
        let mut knot = Knot {
            s: seg.start_m + seg.length_m,
            height: piece.end_height_m.unwrap_or(prev.height),
            bank_rad: piece.bank_deg.map_or(prev.bank_rad, f64::to_radians),
            half_width: [
                piece.half_width_left_m.unwrap_or(prev.half_width[0]),
                piece.half_width_right_m.unwrap_or(prev.half_width[1]),
            ],
            runoff: [
                piece.runoff_left_m.unwrap_or(prev.runoff[0]),
                piece.runoff_right_m.unwrap_or(prev.runoff[1]),
            ],
        };
        if i == last {
            check_last_piece(i, piece, &start)?;
            knot = Knot { s: knot.s, ..start };
        }
        out.push(knot);
    }
    Ok(out)
}

/// The last piece ends on the start line: it may only name the start line's values.
fn check_last_piece(i: usize, piece: &PieceSpec, start: &Knot) -> Result<(), SpecProblem> {
    let mismatch = |name: &str, given: Option<f64>, start_value: f64, what: &str| match given {
        Some(v) if (v - start_value).abs() > 1e-9 => Err(SpecProblem::new(
            format!("piece[{i}].{name}"),
            format!(
                "the last piece ends on the start line, where {what} is {start_value}; \
                     remove {name} here or change the start-line value"
            ),
        )),
        _ => Ok(()),
    };
    mismatch(
        "end_height_m",
        piece.end_height_m,
        start.height,
        "the height",
    )?;
    mismatch(
        "bank_deg",
        piece.bank_deg,
        start.bank_rad.to_degrees(),
        "the banking (start_bank_deg)",
    )?;
    mismatch(
        "half_width_left_m",
        piece.half_width_left_m,
        start.half_width[0],
        "half_width_m",
    )?;
    mismatch(
        "half_width_right_m",
        piece.half_width_right_m,
        start.half_width[1],
        "half_width_m",
    )?;
    mismatch(
        "runoff_left_m",
        piece.runoff_left_m,
        start.runoff[0],
        "runoff_m",
    )?;
    mismatch(
        "runoff_right_m",
        piece.runoff_right_m,
        start.runoff[1],
        "runoff_m",
    )
}

/// Monotone (Fritsch-Butland) slopes of the periodic height spline at every knot.
fn height_slopes(knots: &[Knot], length_m: f64) -> Vec<f64> {
    let n = knots.len() - 1; // knots[n] is the start line again
    let secant = |a: usize, b: usize| {
        let ds = if b > a {
            knots[b].s - knots[a].s
        } else {
            knots[b].s + length_m - knots[a].s
        };
        (knots[b].height - knots[a].height) / ds
    };
    let mut slopes = vec![0.0; n + 1];
    for (k, slope) in slopes.iter_mut().enumerate().take(n) {
        let before = if k == 0 {
            secant(n - 1, n)
        } else {
            secant(k - 1, k)
        };
        let after = secant(k, k + 1);
        *slope = if before * after <= 0.0 {
            0.0
        } else {
            2.0 * before * after / (before + after)
        };
    }
    slopes[n] = slopes[0];
    slopes
}

fn smoothstep(t: f64) -> (f64, f64) {
    let t = t.clamp(0.0, 1.0);
    (t * t * (3.0 - 2.0 * t), 6.0 * t * (1.0 - t))
}

/// Profile samples at `i * length / n` for `i in 0..=n`.
pub(crate) fn sample(
    spec: &TrackSpec,
    segments: &[CurvatureSegment],
    length_m: f64,
    n: usize,
) -> Result<Vec<ProfileSample>, SpecProblem> {
    let knots = knots(spec, segments)?;
    let slopes = height_slopes(&knots, length_m);
    let spacing = length_m / n as f64;
    let mut out = Vec::with_capacity(n + 1);
    let mut k = 0; // the piece [knots[k], knots[k + 1]] holding s
    for i in 0..=n {
        let s = (i as f64 * spacing).min(length_m);
        while k + 2 < knots.len() && s > knots[k + 1].s {
            k += 1;
        }
        let (a, b) = (knots[k], knots[k + 1]);
        let len = b.s - a.s;
        let t = ((s - a.s) / len).clamp(0.0, 1.0);
        let (blend, blend_rate) = smoothstep(t);
        let mix = |x: f64, y: f64| x + (y - x) * blend;
        // Cubic Hermite height.
        let (t2, t3) = (t * t, t * t * t);
        let (h00, h10, h01, h11) = (
            2.0 * t3 - 3.0 * t2 + 1.0,
            t3 - 2.0 * t2 + t,
            -2.0 * t3 + 3.0 * t2,
            t3 - t2,
        );
        let (d00, d10, d01, d11) = (
            6.0 * t2 - 6.0 * t,
            3.0 * t2 - 4.0 * t + 1.0,
            -6.0 * t2 + 6.0 * t,
            3.0 * t2 - 2.0 * t,
        );
        let height =
            h00 * a.height + h10 * len * slopes[k] + h01 * b.height + h11 * len * slopes[k + 1];
        let grade =
            (d00 * a.height + d10 * len * slopes[k] + d01 * b.height + d11 * len * slopes[k + 1])
                / len;
        if grade.abs() > MAX_GRADE {
            let piece = k.min(spec.pieces.len() - 1);
            return Err(SpecProblem::new(
                format!("piece[{piece}].end_height_m"),
                format!(
                    "the climb reaches a {:.0} % grade at {s:.0} m; at most {:.0} % is \
                     drivable: spread the height change over a longer piece",
                    grade.abs() * 100.0,
                    MAX_GRADE * 100.0
                ),
            ));
        }
        let bank = mix(a.bank_rad, b.bank_rad);
        let bank_rate = (b.bank_rad - a.bank_rad) * blend_rate / len;
        let tan_bank = bank.tan();
        let half_width = [
            mix(a.half_width[0], b.half_width[0]),
            mix(a.half_width[1], b.half_width[1]),
        ];
        let runoff = [mix(a.runoff[0], b.runoff[0]), mix(a.runoff[1], b.runoff[1])];
        out.push(ProfileSample {
            height_m: height,
            grade,
            tan_bank,
            tan_bank_rate: (1.0 + tan_bank * tan_bank) * bank_rate,
            half_width_m: half_width,
            barrier_m: [half_width[0] + runoff[0], half_width[1] + runoff[1]],
        });
    }
    Ok(out)
}
