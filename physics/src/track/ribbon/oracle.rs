//! The query implementation as it was before the per-segment cubics, the cheaper walk, the
//! barrier early-out and the skipping scan: the Hermite basis evaluated per call, refine
//! recomputing the walk's distances, every barrier query fully refined, every sample scanned.
//! Kept only for tests, as the oracle the fast queries must match to round-off.

use super::super::bumps::BumpValue;
use super::super::surface::{KERB_BAND, NO_KERB};
use super::super::{BarrierHit, GroundHit, TrackCoord, TrackHint};
use super::{lerp, smoothstep_with_slope, Located, Ribbon, MAX_WALK, RUNOFF_LATERAL_FADE_M};

fn hermite(t: f64) -> ([f64; 4], [f64; 4]) {
    let (t2, t3) = (t * t, t * t * t);
    (
        [
            2.0 * t3 - 3.0 * t2 + 1.0,
            t3 - 2.0 * t2 + t,
            -2.0 * t3 + 3.0 * t2,
            t3 - t2,
        ],
        [
            6.0 * t2 - 6.0 * t,
            3.0 * t2 - 4.0 * t + 1.0,
            -6.0 * t2 + 6.0 * t,
            3.0 * t2 - 2.0 * t,
        ],
    )
}

impl Ribbon {
    /// Centreline position and unit tangent at fraction `t` of segment `i` (Hermite).
    fn oracle_centre_at(&self, i: usize, t: f64) -> ([f64; 2], [f64; 2]) {
        let (a, b) = (&self.samples[i].centre, &self.samples[i + 1].centre);
        let (h, dh) = hermite(t);
        let ds = self.spacing_m;
        let mut p = [0.0; 2];
        let mut v = [0.0; 2];
        for k in 0..2 {
            p[k] = h[0] * a.xy[k]
                + h[1] * ds * a.tangent[k]
                + h[2] * b.xy[k]
                + h[3] * ds * b.tangent[k];
            v[k] = dh[0] * a.xy[k]
                + dh[1] * ds * a.tangent[k]
                + dh[2] * b.xy[k]
                + dh[3] * ds * b.tangent[k];
        }
        // Plain sqrt, not hypot: the derivative is about one spacing long (no overflow) and
        // this runs several times per query.
        let norm = (v[0] * v[0] + v[1] * v[1]).sqrt();
        (p, [v[0] / norm, v[1] / norm])
    }

    /// Walks from segment `start` to the segment whose end normals enclose `p`.
    fn oracle_walk(&self, start: usize, p: [f64; 2]) -> Option<usize> {
        let mut i = start % self.n;
        for _ in 0..MAX_WALK {
            if self.ahead_of(i, p) < 0.0 {
                i = (i + self.n - 1) % self.n;
            } else if self.ahead_of(i + 1, p) >= 0.0 {
                i = (i + 1) % self.n;
            } else {
                return Some(i);
            }
        }
        None
    }

    /// The sample nearest to `p` by a full scan (only for a far-off hint).
    pub(super) fn oracle_nearest_sample(&self, p: [f64; 2]) -> usize {
        let mut best = (f64::INFINITY, 0);
        for (i, s) in self.samples[..self.n].iter().enumerate() {
            let d2 = (p[0] - s.centre.xy[0]).powi(2) + (p[1] - s.centre.xy[1]).powi(2);
            if d2 < best.0 {
                best = (d2, i);
            }
        }
        best.1
    }

    fn oracle_refine(&self, i: usize, p: [f64; 2]) -> Located {
        let fa = self.ahead_of(i, p);
        let fb = self.ahead_of(i + 1, p);
        let mut t = if fa - fb > 0.0 { fa / (fa - fb) } else { 0.5 };
        let (ka, kb) = (
            self.samples[i].centre.curvature,
            self.samples[i + 1].centre.curvature,
        );
        // Two Newton steps on the Hermite centreline; at offset d the foot point moves
        // (1 - curvature * d) times slower than the point. The centreline is not evaluated
        // again after the second step: that step moves the foot point by about a micrometre,
        // which changes the lateral offset only to second order (~1e-14 m) and the tangent
        // by ~1e-8 rad, while an evaluation is a third of the query.
        let (mut c, mut tangent) = self.oracle_centre_at(i, t);
        for newton in 0..2 {
            let along = (p[0] - c[0]) * tangent[0] + (p[1] - c[1]) * tangent[1];
            let d = (p[1] - c[1]) * tangent[0] - (p[0] - c[0]) * tangent[1];
            let stretch = (1.0 - lerp(ka, kb, t) * d).max(0.1);
            t = (t + along / (self.spacing_m * stretch)).clamp(0.0, 1.0);
            if newton == 0 {
                (c, tangent) = self.oracle_centre_at(i, t);
            }
        }
        let d = (p[1] - c[1]) * tangent[0] - (p[0] - c[0]) * tangent[1];
        Located {
            i,
            t,
            s: (i as f64 + t) * self.spacing_m,
            d,
            tangent,
        }
    }

    pub(super) fn oracle_locate(&self, p: [f64; 2], hint: &mut TrackHint) -> Located {
        let local = self
            .oracle_walk(hint.segment, p)
            .map(|i| self.oracle_refine(i, p))
            .filter(|loc| self.plausible(loc));
        let loc = match local {
            Some(loc) if self.inside_barriers(&loc) => loc,
            local => {
                let start = self.oracle_nearest_sample(p);
                let i = self.oracle_walk(start, p).unwrap_or(start);
                let global = self.oracle_refine(i, p);
                match local {
                    Some(loc) if loc.d.abs() <= global.d.abs() => loc,
                    _ => global,
                }
            }
        };
        hint.segment = loc.i;
        loc
    }

    pub(super) fn oracle_ground(&self, x: f64, y: f64, hint: &mut TrackHint) -> GroundHit {
        let loc = self.oracle_locate([x, y], hint);
        let (a, b) = (&self.samples[loc.i], &self.samples[loc.i + 1]);
        let (t, d, ds) = (loc.t, loc.d, self.spacing_m);
        let (h, dh) = hermite(t);
        let (pa, pb) = (&a.profile, &b.profile);
        let centre_height =
            h[0] * pa.height_m + h[1] * ds * pa.grade + h[2] * pb.height_m + h[3] * ds * pb.grade;
        let grade = (dh[0] * pa.height_m
            + dh[1] * ds * pa.grade
            + dh[2] * pb.height_m
            + dh[3] * ds * pb.grade)
            / ds;
        let tan_bank = lerp(pa.tan_bank, pb.tan_bank, t);
        let tan_bank_rate = lerp(pa.tan_bank_rate, pb.tan_bank_rate, t);
        let curvature = lerp(a.centre.curvature, b.centre.curvature, t);

        let across = self.across(&loc);
        let (side, half_width, beyond_edge) = (across.side, across.half_width, across.beyond_edge);
        let sign = if d >= 0.0 { 1.0 } else { -1.0 };
        let abs_d = d.abs();

        let mut height = centre_height - d * tan_bank;
        let mut dz_ds = grade - d * tan_bank_rate;
        let mut dz_dd = -tan_bank;

        // Crown: a parabola on the racing surface continued by its edge slope beyond.
        if self.crown_m > 0.0 {
            let (c, slope) = if abs_d <= half_width {
                let r = abs_d / half_width;
                (
                    self.crown_m * (1.0 - r * r),
                    -2.0 * self.crown_m * r / half_width,
                )
            } else {
                let slope = -2.0 * self.crown_m / half_width;
                (slope * (abs_d - half_width), slope)
            };
            height += c;
            dz_dd += slope * sign;
        }

        let bump = self.bumps.at_reference(loc.s, d);
        height += bump.height_m;
        dz_ds += bump.d_ds;
        dz_dd += bump.d_dd;
        if let Some(road) = &self.road {
            let v = road.at(loc.s, d);
            height += v.height_m;
            dz_ds += v.d_ds;
            dz_dd += v.d_dd;
        }

        // Surface band and its kerb height / roughness.
        let ids = a.surface.ids;
        let kerb_id = ids[KERB_BAND * 2 + side];
        let id = across.id;
        if across.on_kerb {
            let fade = lerp(a.surface.kerb_fade[side], b.surface.kerb_fade[side], t);
            let fade_rate = (b.surface.kerb_fade[side] - a.surface.kerb_fade[side]) / ds;
            let u = beyond_edge / self.kerb_width_m;
            let angle = std::f64::consts::PI * u;
            let shape = angle.sin().powi(2);
            let shape_rate = std::f64::consts::PI * (2.0 * angle).sin() / self.kerb_width_m;
            height += self.kerb_height_m * fade * shape;
            dz_ds += self.kerb_height_m * fade_rate * shape;
            dz_dd += self.kerb_height_m * fade * shape_rate * sign;
            let amp = self.surface_of(kerb_id).roughness_m;
            self.oracle_add_roughness(
                kerb_id,
                &loc,
                [
                    amp * fade * shape,
                    amp * fade_rate * shape,
                    amp * fade * shape_rate * sign,
                ],
                (&mut height, &mut dz_ds, &mut dz_dd),
            );
        } else if beyond_edge > 0.0 {
            let runoff_id = id;
            let inner = if kerb_id != NO_KERB {
                self.kerb_width_m
            } else {
                0.0
            };
            let fade = lerp(a.surface.runoff_fade[side], b.surface.runoff_fade[side], t);
            let fade_rate = (b.surface.runoff_fade[side] - a.surface.runoff_fade[side]) / ds;
            let (lateral, lateral_rate) =
                smoothstep_with_slope((beyond_edge - inner) / RUNOFF_LATERAL_FADE_M);
            let amp = self.surface_of(runoff_id).roughness_m;
            self.oracle_add_roughness(
                runoff_id,
                &loc,
                [
                    amp * fade * lateral,
                    amp * fade_rate * lateral,
                    amp * fade * lateral_rate / RUNOFF_LATERAL_FADE_M * sign,
                ],
                (&mut height, &mut dz_ds, &mut dz_dd),
            );
        }

        // World gradient: along-track slope per metre of ground travelled at offset d.
        let stretch = (1.0 - curvature * d).max(0.1);
        let along = dz_ds / stretch;
        let left = [-loc.tangent[1], loc.tangent[0]];
        let gx = along * loc.tangent[0] + dz_dd * left[0];
        let gy = along * loc.tangent[1] + dz_dd * left[1];
        let norm = (gx * gx + gy * gy + 1.0).sqrt();
        GroundHit {
            height_m: height,
            normal: [-gx / norm, -gy / norm, 1.0 / norm],
            surface: *self.surface_of(id),
        }
    }

    /// Adds roughness of surface `id` with amplitude `[a, da/ds, da/dd]` to the height and its
    /// slopes.
    fn oracle_add_roughness(
        &self,
        id: u8,
        loc: &Located,
        amplitude: [f64; 3],
        (height, dz_ds, dz_dd): (&mut f64, &mut f64, &mut f64),
    ) {
        if amplitude == [0.0; 3] {
            return;
        }
        let field = &self.roughness[usize::from(id).min(4)];
        let BumpValue {
            height_m,
            d_ds,
            d_dd,
        } = field.at_reference(loc.s, loc.d);
        *height += amplitude[0] * height_m;
        *dz_ds += amplitude[0] * d_ds + amplitude[1] * height_m;
        *dz_dd += amplitude[0] * d_dd + amplitude[2] * height_m;
    }

    pub(super) fn oracle_coord(&self, loc: &Located) -> TrackCoord {
        let (a, b) = (&self.samples[loc.i], &self.samples[loc.i + 1]);
        TrackCoord {
            distance_m: loc.s.rem_euclid(self.length_m),
            lateral_m: loc.d,
            heading_rad: loc.tangent[1].atan2(loc.tangent[0]),
            curvature_per_m: lerp(a.centre.curvature, b.centre.curvature, loc.t),
            half_width_left_m: self.profile_lerp(loc, |p| p.half_width_m[0]),
            half_width_right_m: self.profile_lerp(loc, |p| p.half_width_m[1]),
        }
    }

    pub(super) fn oracle_barrier_contact(
        &self,
        p: [f64; 3],
        radius_m: f64,
        hint: &mut TrackHint,
    ) -> Option<BarrierHit> {
        let loc = self.oracle_locate([p[0], p[1]], hint);
        let left_barrier = self.profile_lerp(&loc, |p| p.barrier_m[0]);
        let right_barrier = self.profile_lerp(&loc, |p| p.barrier_m[1]);
        let left = [-loc.tangent[1], loc.tangent[0]];
        let into_left = loc.d + radius_m - left_barrier;
        let into_right = -loc.d + radius_m - right_barrier;
        if into_left > 0.0 && into_left >= into_right {
            Some(BarrierHit {
                normal: [-left[0], -left[1], 0.0],
                depth_m: into_left,
            })
        } else if into_right > 0.0 {
            Some(BarrierHit {
                normal: [left[0], left[1], 0.0],
                depth_m: into_right,
            })
        } else {
            None
        }
    }
}
