//! The horizontal centreline: pieces (straights, arcs, clothoids) -> curvature along distance
//! -> heading and position samples at a uniform spacing, closed exactly.
//!
//! Curvature is piecewise linear in distance (constant on arcs, linear on clothoids), so the
//! heading is integrated analytically; positions are integrated with Simpson's rule on
//! sub-steps of at most [`SUBSTEP_M`]. A closed lap must turn +-360 degrees and come back to
//! the start within [`CLOSURE_TOLERANCE`] of its length; the small residual is then removed
//! by a constant curvature offset (heading) and a linear position shear, so the samples close
//! exactly (sample `n` equals sample `0`).

use std::f64::consts::TAU;

use super::spec::{PieceKind, PieceSpec, SpecProblem, Turn};

/// Longest integration sub-step, m.
const SUBSTEP_M: f64 = 0.1;
/// Largest closure gap accepted (and removed), as a fraction of the lap length.
pub(crate) const CLOSURE_TOLERANCE: f64 = 0.01;
/// Largest heading mismatch at closure accepted (and removed), rad (2 degrees).
const HEADING_TOLERANCE_RAD: f64 = 2.0 * std::f64::consts::PI / 180.0;

/// One piece reduced to its curvature law.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CurvatureSegment {
    /// Distance of its start along the lap, m.
    pub start_m: f64,
    /// Length, m.
    pub length_m: f64,
    /// Curvature at the start and at the end, 1/m (positive left).
    pub curvature: [f64; 2],
}

impl CurvatureSegment {
    fn curvature_at(&self, u: f64) -> f64 {
        let t = (u / self.length_m).clamp(0.0, 1.0);
        self.curvature[0] + (self.curvature[1] - self.curvature[0]) * t
    }

    /// Heading change from the segment start to `u` metres into it.
    fn heading_change(&self, u: f64) -> f64 {
        let u = u.clamp(0.0, self.length_m);
        let rate = (self.curvature[1] - self.curvature[0]) / self.length_m;
        self.curvature[0] * u + 0.5 * rate * u * u
    }
}

/// Curvature segments of `pieces` and the total length.
pub(crate) fn segments(pieces: &[PieceSpec]) -> (Vec<CurvatureSegment>, f64) {
    let mut out = Vec::with_capacity(pieces.len());
    let mut start = 0.0;
    let mut curvature = 0.0;
    for piece in pieces {
        let sign = match piece.turn {
            Some(Turn::Right) => -1.0,
            _ => 1.0,
        };
        let (length, k0, k1) = match piece.kind {
            PieceKind::Straight => (piece.length_m.unwrap_or(0.0), 0.0, 0.0),
            PieceKind::Arc => {
                let radius = piece.radius_m.unwrap_or(f64::INFINITY);
                let angle = piece.angle_deg.unwrap_or(0.0).to_radians();
                (radius * angle, sign / radius, sign / radius)
            }
            PieceKind::Spiral => {
                let end = piece.end_radius_m.map_or(0.0, |r| sign / r);
                (piece.length_m.unwrap_or(0.0), curvature, end)
            }
        };
        out.push(CurvatureSegment {
            start_m: start,
            length_m: length,
            curvature: [k0, k1],
        });
        start += length;
        curvature = k1;
    }
    (out, start)
}

/// A centreline sample.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct CentreSample {
    /// Position, m.
    pub xy: [f64; 2],
    /// Unit tangent (cos, sin of the heading).
    pub tangent: [f64; 2],
    /// Curvature, 1/m (positive left).
    pub curvature: f64,
}

/// Samples at `i * spacing` for `i in 0..=n` (the last equals the first), closed exactly.
pub(crate) fn sample(
    segments: &[CurvatureSegment],
    length_m: f64,
    n: usize,
    start_heading_rad: f64,
) -> Result<Vec<CentreSample>, SpecProblem> {
    let spacing = length_m / n as f64;
    let total_turn = segments
        .iter()
        .map(|s| s.heading_change(s.length_m))
        .sum::<f64>();
    let laps = (total_turn / TAU).round();
    let heading_error = total_turn - laps * TAU;
    if laps.abs() != 1.0 || heading_error.abs() > HEADING_TOLERANCE_RAD {
        return Err(SpecProblem::new(
            "piece",
            format!(
                "the centreline turns {:.2} degrees in total; a closed lap must turn 360 (all \
                 left) or -360 (all right): adjust the arcs' angle_deg or the spirals",
                total_turn.to_degrees()
            ),
        ));
    }
    // Remove the heading residual with a constant curvature offset.
    let curvature_offset = -heading_error / length_m;
    let heading_at = |s: f64, seg: &CurvatureSegment, base: f64| {
        start_heading_rad + base + seg.heading_change(s - seg.start_m) + curvature_offset * s
    };

    // Integrate positions along the whole lap, sampling at the grid.
    let mut raw = Vec::with_capacity(n + 1);
    let mut xy = [0.0, 0.0];
    let mut seg_index = 0;
    let mut base_heading = 0.0; // heading change accumulated before segment `seg_index`
    let mut s = 0.0;
    let direction = |h: f64| [h.cos(), h.sin()];
    for i in 0..=n {
        let target = (i as f64 * spacing).min(length_m);
        while s < target {
            let seg_end = segments[seg_index].start_m + segments[seg_index].length_m;
            let step_end = target.min(seg_end).min(s + SUBSTEP_M);
            if step_end <= s {
                break;
            }
            let seg = &segments[seg_index];
            let h0 = heading_at(s, seg, base_heading);
            let hm = heading_at(0.5 * (s + step_end), seg, base_heading);
            let h1 = heading_at(step_end, seg, base_heading);
            let (d0, dm, d1) = (direction(h0), direction(hm), direction(h1));
            let w = (step_end - s) / 6.0;
            xy[0] += w * (d0[0] + 4.0 * dm[0] + d1[0]);
            xy[1] += w * (d0[1] + 4.0 * dm[1] + d1[1]);
            s = step_end;
            if s >= seg_end && seg_index + 1 < segments.len() {
                base_heading += seg.heading_change(seg.length_m);
                seg_index += 1;
            }
        }
        // Segment containing `target` (the first one when it starts exactly there).
        let seg = &segments[seg_index];
        let heading = heading_at(target, seg, base_heading);
        raw.push((xy, heading, seg.curvature_at(target - seg.start_m)));
    }

    let gap = [raw[n].0[0] - raw[0].0[0], raw[n].0[1] - raw[0].0[1]];
    let gap_len = gap[0].hypot(gap[1]);
    if gap_len > CLOSURE_TOLERANCE * length_m {
        return Err(SpecProblem::new(
            "piece",
            format!(
                "the centreline does not close: it ends {:.1} m east and {:.1} m north of the \
                 start line (more than {:.0} % of the {:.0} m lap); adjust straight length_m or \
                 arc angle_deg so the lap comes back to its start",
                gap[0] + 0.0,
                gap[1] + 0.0,
                CLOSURE_TOLERANCE * 100.0,
                length_m
            ),
        ));
    }
    // Shear the positions linearly so the end meets the start; the tangent follows the
    // sheared derivative.
    let shear = [gap[0] / length_m, gap[1] / length_m];
    let mut out: Vec<CentreSample> = raw
        .iter()
        .enumerate()
        .map(|(i, &(p, heading, curvature))| {
            let s = i as f64 * spacing;
            let d = [heading.cos() - shear[0], heading.sin() - shear[1]];
            let norm = d[0].hypot(d[1]);
            CentreSample {
                xy: [p[0] - shear[0] * s, p[1] - shear[1] * s],
                tangent: [d[0] / norm, d[1] / norm],
                curvature: curvature + curvature_offset,
            }
        })
        .collect();
    out[n] = out[0];
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arc(radius: f64, angle: f64) -> PieceSpec {
        PieceSpec::arc(radius, angle, Turn::Left)
    }

    #[test]
    fn a_full_circle_closes_on_itself() {
        let (segs, length) = segments(&[arc(50.0, 360.0)]);
        assert!((length - TAU * 50.0).abs() < 1e-9);
        let samples = sample(&segs, length, 400, 0.0).unwrap();
        // Quarter way round a left circle starting east: at (50, 50), heading north.
        let q = samples[100];
        assert!(
            (q.xy[0] - 50.0).abs() < 1e-6 && (q.xy[1] - 50.0).abs() < 1e-6,
            "{q:?}"
        );
        assert!(q.tangent[0].abs() < 1e-9 && (q.tangent[1] - 1.0).abs() < 1e-9);
    }
}
