//! The built 3D ribbon: a dense table of samples along the lap and the queries on it
//! (locate a world point in track coordinates, ground height and normal, barriers).
//!
//! Geometry model: the road is a height field over track coordinates `(s, d)` where `s` is the
//! distance along the centreline and `d` the *horizontal* lateral offset (positive left). The
//! height is the centreline height, minus `d * tan(bank)`, plus crown, kerbs, long-wave bumps
//! the ISO 8608 road profile (where the document asks for one, [`super::road_profile`]) and
//! surface roughness. Between samples, positions and heights are cubic Hermite
//! interpolated (exact tangents and grades at the samples) and every slope ingredient is
//! linearly interpolated, so the normal is continuous across sample joins (the interpolated
//! normals of seed 003): a wheel rolling over a join feels no step.
//!
//! Barriers are vertical half-spaces beyond the barrier lines: any point beyond is inside
//! with a depth, so nothing can tunnel through however far it moves in one step.
//!
//! Queries are O(1) with a [`TrackHint`]: a short walk from the remembered segment; only a
//! hint that is far off (the first query) costs a scan of the samples. No query allocates.
//! A body-level barrier broad phase ([`Ribbon::clear_of_barriers`]) reads per-segment minima
//! of the barrier distances (and maxima of the curvature) over [`BROAD_PHASE_WINDOW_M`]
//! precomputed at build, so a car well inside the barriers needs no per-point query.
//!
//! Cost (every wheel, every step): the Hermite pieces are stored as per-segment power-basis
//! cubics ([`SegmentCubic`]), the walk hands its end distances to the foot-point refinement,
//! a car's four wheels are refined side by side in lanes ([`Ribbon::ground4`]: the foot
//! point's time is its chain's latency, so four chains at once cost about one), and a
//! barrier query whose point is certainly short of both barriers stops after the walk.
//! The `oracle` test module keeps the straightforward implementation these must match to
//! round-off.

use super::bumps::{BumpField, BumpValue};
use super::centreline::{self, CentreSample};
use super::profile::{self, ProfileSample};
use super::road_profile::RoadProfile;
use super::spec::{SpecProblem, TrackSpec};
use super::surface::{self, SurfaceSample, KERB_BAND, NO_KERB, RUNOFF_BAND, TRACK_BAND};
use super::{BarrierHit, GroundHit, Surface, TrackCoord, TrackHint, TrackSection};
use crate::math::F64x4;
use crate::telemetry::SurfaceKind;

/// Target distance between samples, m.
pub(crate) const SAMPLE_SPACING_M: f64 = 1.0;
/// Longest walk from a hint before falling back to a scan, segments.
const MAX_WALK: usize = 48;
/// A located point further than this beyond a barrier means the hint was far off.
const PLAUSIBLE_BEYOND_BARRIER_M: f64 = 25.0;
/// Width over which run-off roughness fades in beyond the edge (or kerb), m.
const RUNOFF_LATERAL_FADE_M: f64 = 0.5;
/// Half length of the stretch (each way along the lap) the barrier broad phase summarises, m.
const BROAD_PHASE_WINDOW_M: f64 = 30.0;
/// Safety margin of the barrier broad phase, m (covers the locate's round-off).
const BROAD_PHASE_MARGIN_M: f64 = 0.05;
/// Extra curvature allowed for in the barrier early-out (the Hermite centreline's curvature
/// between samples is not exactly the interpolated one), 1/m.
const BARRIER_EARLY_OUT_CURVATURE_PER_M: f64 = 0.01;
/// Safety margin of the barrier early-out (covers the refined foot point's round-off), m.
const BARRIER_EARLY_OUT_MARGIN_M: f64 = 0.01;
/// The nearest-sample scan skips only samples at least this much farther than the best so far
/// (covers the distances' round-off), m.
const SCAN_SKIP_MARGIN_M: f64 = 1e-6;
/// How far behind the start line the first grid slot is, m.
const FIRST_SLOT_BEHIND_M: f64 = 6.0;
/// A barrier on the inside of a turn must stay this fraction of the radius away from the
/// turn's centre (so every point up to the barrier has a unique track position).
const MAX_INSIDE_FRACTION: f64 = 0.9;

/// Everything known at one sample.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Sample {
    centre: CentreSample,
    profile: ProfileSample,
    surface: SurfaceSample,
}

/// A point located in track coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Located {
    /// Segment index (between samples `i` and `i + 1`).
    i: usize,
    /// Fraction along the segment, 0 ..= 1.
    t: f64,
    /// Distance along the lap, m.
    s: f64,
    /// Horizontal lateral offset, m (positive left).
    d: f64,
    /// Unit horizontal tangent of the centreline there.
    tangent: [f64; 2],
}

/// One segment's centreline and centreline height as power-basis cubics in the segment
/// fraction `t`, built from the same Hermite data (sample positions and tangents, heights and
/// grades) as the samples: the same curve, evaluated with a few multiply-adds instead of the
/// Hermite basis. Positions are relative to the segment's first sample (small numbers, so the
/// evaluation keeps its precision far from the origin).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct SegmentCubic {
    /// Coefficients of `t`, `t^2`, `t^3` of `x - x_a` and of `y - y_a`, m.
    xy: [[f64; 3]; 2],
    /// Coefficients of `1`, `t`, `t^2`, `t^3` of the centreline height, m.
    height: [f64; 4],
    /// Heading of the centreline at the first sample, rad (`atan2` of its tangent).
    heading_rad: f64,
}

impl SegmentCubic {
    /// The cubics of the segment from sample `a` to sample `b`, `ds` apart.
    fn new(a: &Sample, b: &Sample, ds: f64) -> SegmentCubic {
        // Hermite data (end values p0, p1 and end derivatives m0, m1 per unit t) in the power
        // basis: p0 + m0 t + (3 (p1 - p0) - 2 m0 - m1) t^2 + (2 (p0 - p1) + m0 + m1) t^3.
        let cubic = |delta: f64, m0: f64, m1: f64| {
            [m0, 3.0 * delta - 2.0 * m0 - m1, -2.0 * delta + m0 + m1]
        };
        let (ca, cb) = (&a.centre, &b.centre);
        let xy = [0, 1].map(|k| cubic(cb.xy[k] - ca.xy[k], ds * ca.tangent[k], ds * cb.tangent[k]));
        let (pa, pb) = (&a.profile, &b.profile);
        let [h1, h2, h3] = cubic(pb.height_m - pa.height_m, ds * pa.grade, ds * pb.grade);
        SegmentCubic {
            xy,
            height: [pa.height_m, h1, h2, h3],
            heading_rad: ca.tangent[1].atan2(ca.tangent[0]),
        }
    }

    /// Centreline point relative to the first sample, and unit tangent, at fraction `t`.
    #[inline]
    fn centre(&self, t: f64) -> ([f64; 2], [f64; 2]) {
        let mut p = [0.0; 2];
        let mut v = [0.0; 2];
        for k in 0..2 {
            let [c1, c2, c3] = self.xy[k];
            p[k] = t * (c1 + t * (c2 + t * c3));
            v[k] = c1 + t * (2.0 * c2 + t * (3.0 * c3));
        }
        // Plain sqrt, not hypot: the derivative is about one spacing long (no overflow).
        let inv_norm = 1.0 / (v[0] * v[0] + v[1] * v[1]).sqrt();
        (p, [v[0] * inv_norm, v[1] * inv_norm])
    }

    /// Centreline height and its derivative per unit `t` at fraction `t`.
    #[inline]
    fn height(&self, t: f64) -> (f64, f64) {
        let [h0, h1, h2, h3] = self.height;
        (
            h0 + t * (h1 + t * (h2 + t * h3)),
            h1 + t * (2.0 * h2 + t * (3.0 * h3)),
        )
    }
}

/// The segment a walk ended in, with the point's distances ahead of its end samples.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Walked {
    /// Segment index.
    i: usize,
    /// Distance ahead of sample `i` along its tangent, m.
    ahead_a: f64,
    /// Distance ahead of sample `i + 1` along its tangent, m.
    ahead_b: f64,
}

/// The barrier distances and curvature around one segment, for the broad phase.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct BarrierWindow {
    /// Smallest barrier distance, left and right, within the window, m.
    min_barrier_m: [f64; 2],
    /// Largest |curvature| within the window, 1/m.
    max_abs_curvature: f64,
}

/// Where a located point lies across the track.
#[derive(Debug, Clone, Copy)]
struct Across {
    /// 0 left, 1 right.
    side: usize,
    /// Half width of the racing surface on that side, m.
    half_width: f64,
    /// Distance beyond the edge of the racing surface (negative on it), m.
    beyond_edge: f64,
    /// Surface id (see `surface::kind_of`).
    id: u8,
    /// True on a kerb (beyond the edge, inside the kerb width).
    on_kerb: bool,
}

/// The built ribbon.
#[derive(Debug, Clone)]
pub(crate) struct Ribbon {
    samples: Vec<Sample>,
    /// Centreline and height cubics per segment (`0..n`).
    cubics: Vec<SegmentCubic>,
    /// Broad-phase summary per segment (`0..n`).
    barrier_windows: Vec<BarrierWindow>,
    /// Longest straight distance between neighbouring samples (a little more), m.
    max_chord_m: f64,
    n: usize,
    spacing_m: f64,
    length_m: f64,
    crown_m: f64,
    kerb_width_m: f64,
    kerb_height_m: f64,
    bumps: BumpField,
    /// Unit-amplitude roughness fields per surface id.
    roughness: [BumpField; 5],
    /// Properties of each surface kind (built-in values with the document's overrides).
    surfaces: [Surface; 5],
    /// The ISO 8608 road profile, if the document asks for roughness.
    road: Option<RoadProfile>,
    sector_starts_m: [f64; 2],
    grid_spacing_m: f64,
}

/// The broad-phase summary of every segment `0..n`: barrier minima and curvature maxima over
/// the samples within [`BROAD_PHASE_WINDOW_M`] each way (wrapping round the lap).
fn barrier_windows(samples: &[Sample], n: usize, spacing_m: f64) -> Vec<BarrierWindow> {
    let reach = (BROAD_PHASE_WINDOW_M / spacing_m).ceil() as usize + 1;
    (0..n)
        .map(|i| {
            let mut window = BarrierWindow {
                min_barrier_m: [f64::INFINITY; 2],
                max_abs_curvature: 0.0,
            };
            for k in 0..=2 * reach {
                let j = (i + n * (reach / n + 1) + k - reach) % n;
                let sample = &samples[j];
                for side in 0..2 {
                    window.min_barrier_m[side] =
                        window.min_barrier_m[side].min(sample.profile.barrier_m[side]);
                }
                window.max_abs_curvature =
                    window.max_abs_curvature.max(sample.centre.curvature.abs());
            }
            window
        })
        .collect()
}

/// One value per lane: `f(k)` in lane `k`.
#[inline(always)]
fn lane_each(f: impl Fn(usize) -> f64) -> F64x4 {
    F64x4::from_array([0, 1, 2, 3].map(f))
}

fn lerp(a: f64, b: f64, t: f64) -> f64 {
    a + (b - a) * t
}

fn smoothstep_with_slope(x: f64) -> (f64, f64) {
    if x <= 0.0 {
        (0.0, 0.0)
    } else if x >= 1.0 {
        (1.0, 0.0)
    } else {
        (x * x * (3.0 - 2.0 * x), 6.0 * x * (1.0 - x))
    }
}

impl Ribbon {
    /// Builds the ribbon of a validated spec.
    pub(crate) fn build(spec: &TrackSpec) -> Result<Ribbon, SpecProblem> {
        let (segments, length_m) = centreline::segments(&spec.pieces);
        let n = ((length_m / SAMPLE_SPACING_M).ceil() as usize).max(16);
        let spacing_m = length_m / n as f64;
        let centre =
            centreline::sample(&segments, length_m, n, spec.start_heading_deg.to_radians())?;
        let profiles = profile::sample(spec, &segments, length_m, n)?;
        let surfaces = surface::sample(spec, &segments, length_m, n);
        let samples: Vec<Sample> = (0..=n)
            .map(|i| Sample {
                centre: centre[i],
                profile: profiles[i],
                surface: surfaces[i],
            })
            .collect();

        let piece_at = |s: f64| {
            segments
                .iter()
                .rposition(|seg| seg.start_m <= s)
                .unwrap_or(0)
        };
        for (i, sample) in samples.iter().enumerate() {
            let k = sample.centre.curvature;
            // Left turns have their centre on the left (side 0).
            let (side, name) = if k > 0.0 { (0, "left") } else { (1, "right") };
            let inside = sample.profile.barrier_m[side];
            if k != 0.0 && inside >= MAX_INSIDE_FRACTION / k.abs() {
                let piece = piece_at(i as f64 * spacing_m);
                return Err(SpecProblem::new(
                    format!("piece[{piece}].radius_m"),
                    format!(
                        "the {name} barrier is {inside:.1} m from the centreline but the turn's \
                         radius is {:.1} m: the barrier must stay inside {:.0} % of the radius; \
                         increase the radius or reduce half_width_{name}_m / runoff_{name}_m",
                        1.0 / k.abs(),
                        MAX_INSIDE_FRACTION * 100.0
                    ),
                ));
            }
        }

        let sector_starts_m = match spec.sector_starts_m {
            Some(starts) => {
                if !(starts[0] > 0.0 && starts[0] < starts[1] && starts[1] < length_m) {
                    return Err(SpecProblem::new(
                        "sector_starts_m",
                        format!(
                            "got {starts:?}; expected two increasing distances inside the \
                             {length_m:.1} m lap"
                        ),
                    ));
                }
                starts
            }
            None => [length_m / 3.0, 2.0 * length_m / 3.0],
        };
        for (i, zone) in spec.zones.iter().enumerate() {
            for (name, value) in [("from_m", zone.from_m), ("to_m", zone.to_m)] {
                if value > length_m {
                    return Err(SpecProblem::new(
                        format!("zone[{i}].{name}"),
                        format!("{value} m is beyond the {length_m:.1} m lap"),
                    ));
                }
            }
        }

        let roughness_field = |kind: SurfaceKind| {
            let wavelength = match kind {
                SurfaceKind::Kerb => 0.6,
                SurfaceKind::Grass => 2.3,
                SurfaceKind::Gravel => 0.9,
                SurfaceKind::Asphalt | SurfaceKind::Wet => 5.0,
            };
            BumpField::new(1.0, wavelength, length_m, spec.seed ^ (kind as u64 + 100))
        };
        let barrier_windows = barrier_windows(&samples, n, spacing_m);
        let cubics = samples
            .windows(2)
            .map(|pair| SegmentCubic::new(&pair[0], &pair[1], spacing_m))
            .collect();
        let max_chord_m = samples
            .windows(2)
            .map(|pair| {
                let (a, b) = (pair[0].centre.xy, pair[1].centre.xy);
                (b[0] - a[0]).hypot(b[1] - a[1])
            })
            .fold(0.0, f64::max)
            * (1.0 + 1e-9);
        Ok(Ribbon {
            samples,
            cubics,
            max_chord_m,
            barrier_windows,
            n,
            spacing_m,
            length_m,
            crown_m: spec.crown_m,
            kerb_width_m: spec.kerb_width_m,
            kerb_height_m: spec.kerb_height_m,
            bumps: BumpField::new(
                spec.bumps.amplitude_m,
                spec.bumps.wavelength_m,
                length_m,
                spec.seed,
            ),
            roughness: [
                roughness_field(SurfaceKind::Asphalt),
                roughness_field(SurfaceKind::Kerb),
                roughness_field(SurfaceKind::Grass),
                roughness_field(SurfaceKind::Gravel),
                roughness_field(SurfaceKind::Wet),
            ],
            surfaces: spec
                .surface
                .surfaces()
                .map_err(|(field, message)| SpecProblem::new(field, message))?,
            road: spec.roughness.map(|roughness| {
                RoadProfile::generate(roughness.iso8608_class, length_m, spec.seed)
            }),
            sector_starts_m,
            grid_spacing_m: spec.grid_spacing_m,
        })
    }

    /// The properties of the surface with stored id `id`.
    #[inline]
    fn surface_of(&self, id: u8) -> &Surface {
        &self.surfaces[surface::kind_of(id) as usize]
    }

    pub(crate) fn length_m(&self) -> f64 {
        self.length_m
    }

    pub(crate) fn sector_starts_m(&self) -> [f64; 2] {
        self.sector_starts_m
    }

    /// Signed distance of `p` ahead of sample `i` along its tangent.
    fn ahead_of(&self, i: usize, p: [f64; 2]) -> f64 {
        let c = &self.samples[i].centre;
        (p[0] - c.xy[0]) * c.tangent[0] + (p[1] - c.xy[1]) * c.tangent[1]
    }

    /// Walks from segment `start` to the segment whose end normals enclose `p`; returns it
    /// with `p`'s distances ahead of its two end samples (`>= 0` and `< 0`). Each move needs
    /// one new distance: the sample left behind is an end of the next segment (sample `n` is
    /// sample `0`, so wrapping round the lap keeps that true).
    fn walk(&self, start: usize, p: [f64; 2]) -> Option<Walked> {
        let n = self.n;
        let mut i = if start < n { start } else { start % n };
        let mut ahead_a = self.ahead_of(i, p);
        // Distance ahead of sample i + 1 when already known (NaN: not yet).
        let mut ahead_b = f64::NAN;
        for _ in 0..MAX_WALK {
            if ahead_a < 0.0 {
                ahead_b = ahead_a;
                i = if i == 0 { n - 1 } else { i - 1 };
                ahead_a = self.ahead_of(i, p);
                continue;
            }
            if ahead_b.is_nan() {
                ahead_b = self.ahead_of(i + 1, p);
            }
            if ahead_b >= 0.0 {
                i = if i + 1 == n { 0 } else { i + 1 };
                ahead_a = ahead_b;
                ahead_b = f64::NAN;
            } else {
                return Some(Walked {
                    i,
                    ahead_a,
                    ahead_b,
                });
            }
        }
        None
    }

    /// The sample nearest to `p` (the first of equals) by a scan of the lap (only for a far-off
    /// hint: a car's first query or a reset). The scan skips ahead past samples that cannot be
    /// nearer than the best so far: `k` samples on from one at distance `D` lie at least
    /// `D - k * max_chord` away (triangle inequality over the chords), so a hundred cars'
    /// first step costs a few hundred distances each, not a lap's worth.
    fn nearest_sample(&self, p: [f64; 2]) -> usize {
        let mut best = (f64::INFINITY, 0);
        let mut best_distance = f64::INFINITY;
        let mut i = 0;
        while i < self.n {
            let xy = self.samples[i].centre.xy;
            let d2 = (p[0] - xy[0]).powi(2) + (p[1] - xy[1]).powi(2);
            let distance = d2.sqrt();
            if d2 < best.0 {
                best = (d2, i);
                best_distance = distance;
            }
            let room = distance - best_distance - SCAN_SKIP_MARGIN_M;
            let skip = if room > 0.0 {
                (room / self.max_chord_m) as usize
            } else {
                0
            };
            i += 1 + skip;
        }
        best.1
    }

    /// The foot point of `p` on the centreline within the walked segment.
    fn refine(&self, walked: Walked, p: [f64; 2]) -> Located {
        let Walked {
            i,
            ahead_a: fa,
            ahead_b: fb,
        } = walked;
        let mut t = if fa - fb > 0.0 { fa / (fa - fb) } else { 0.5 };
        let (ka, kb) = (
            self.samples[i].centre.curvature,
            self.samples[i + 1].centre.curvature,
        );
        let cubic = &self.cubics[i];
        let origin = self.samples[i].centre.xy;
        let q = [p[0] - origin[0], p[1] - origin[1]];
        // Two Newton steps on the Hermite centreline; at offset d the foot point moves
        // (1 - curvature * d) times slower than the point. The centreline is not evaluated
        // again after the second step: that step moves the foot point by about a micrometre,
        // which changes the lateral offset only to second order (~1e-14 m) and the tangent
        // by ~1e-8 rad, while an evaluation is a third of the query.
        let (mut c, mut tangent) = cubic.centre(t);
        for newton in 0..2 {
            let along = (q[0] - c[0]) * tangent[0] + (q[1] - c[1]) * tangent[1];
            let d = (q[1] - c[1]) * tangent[0] - (q[0] - c[0]) * tangent[1];
            let stretch = (1.0 - lerp(ka, kb, t) * d).max(0.1);
            t = (t + along / (self.spacing_m * stretch)).clamp(0.0, 1.0);
            if newton == 0 {
                (c, tangent) = cubic.centre(t);
            }
        }
        let d = (q[1] - c[1]) * tangent[0] - (q[0] - c[0]) * tangent[1];
        Located {
            i,
            t,
            s: (i as f64 + t) * self.spacing_m,
            d,
            tangent,
        }
    }

    /// [`Ribbon::refine`] of four walked points (a car's wheels) side by side, one per lane:
    /// the same operations in the same order per lane, so the same bits. The foot point's
    /// time is the latency of its chain (two centreline evaluations, each with a square root
    /// and a division, and the Newton divisions), so four chains in lanes take about the time
    /// of one instead of four in a row.
    fn refine4(&self, walked: [Walked; 4], points: [[f64; 2]; 4]) -> [Located; 4] {
        let fa = lane_each(|k| walked[k].ahead_a);
        let fb = lane_each(|k| walked[k].ahead_b);
        let ka = lane_each(|k| self.samples[walked[k].i].centre.curvature);
        let kb = lane_each(|k| self.samples[walked[k].i + 1].centre.curvature);
        let q = [0, 1]
            .map(|axis| lane_each(|k| points[k][axis] - self.samples[walked[k].i].centre.xy[axis]));
        let coefficients = [0, 1]
            .map(|axis| [0, 1, 2].map(|c| lane_each(|k| self.cubics[walked[k].i].xy[axis][c])));
        // SegmentCubic::centre in lanes.
        let centre = |t: F64x4| {
            let p = coefficients.map(|[c1, c2, c3]| t * (c1 + t * (c2 + t * c3)));
            let v = coefficients.map(|[c1, c2, c3]| c1 + t * (2.0 * c2 + t * (3.0 * c3)));
            let inv_norm = 1.0 / (v[0] * v[0] + v[1] * v[1]).sqrt();
            (p, [v[0] * inv_norm, v[1] * inv_norm])
        };
        let span = fa - fb;
        let mut t = F64x4::select(
            span.greater_than(F64x4::splat(0.0)),
            fa / span,
            F64x4::splat(0.5),
        );
        let (mut c, mut tangent) = centre(t);
        for newton in 0..2 {
            let along = (q[0] - c[0]) * tangent[0] + (q[1] - c[1]) * tangent[1];
            let d = (q[1] - c[1]) * tangent[0] - (q[0] - c[0]) * tangent[1];
            let stretch = (1.0 - (ka + (kb - ka) * t) * d).max(0.1);
            t = (t + along / (self.spacing_m * stretch)).clamp(0.0, 1.0);
            if newton == 0 {
                (c, tangent) = centre(t);
            }
        }
        let d = ((q[1] - c[1]) * tangent[0] - (q[0] - c[0]) * tangent[1]).to_array();
        let (t, tangent) = (t.to_array(), tangent.map(F64x4::to_array));
        [0, 1, 2, 3].map(|k| {
            let i = walked[k].i;
            Located {
                i,
                t: t[k],
                s: (i as f64 + t[k]) * self.spacing_m,
                d: d[k],
                tangent: [tangent[0][k], tangent[1][k]],
            }
        })
    }

    /// [`Walked`] for segment `i` (whether or not its end normals enclose `p`).
    fn walked_at(&self, i: usize, p: [f64; 2]) -> Walked {
        Walked {
            i,
            ahead_a: self.ahead_of(i, p),
            ahead_b: self.ahead_of(i + 1, p),
        }
    }

    /// True when `loc` lies between its section's barriers.
    fn inside_barriers(&self, loc: &Located) -> bool {
        let p = &self.samples[loc.i].profile;
        let side = if loc.d >= 0.0 { 0 } else { 1 };
        loc.d.abs() <= p.barrier_m[side]
    }

    fn plausible(&self, loc: &Located) -> bool {
        let p = &self.samples[loc.i].profile;
        let side = if loc.d >= 0.0 { 0 } else { 1 };
        loc.d.abs() <= p.barrier_m[side] + PLAUSIBLE_BEYOND_BARRIER_M
    }

    fn locate(&self, p: [f64; 2], hint: &mut TrackHint) -> Located {
        let walked = self.walk(hint.segment, p);
        self.locate_walked(walked, p, hint)
    }

    /// [`Ribbon::locate`] after the walk from the hint (`walked`). Inlined into each query;
    /// the scan is out of line (only points past a barrier or a far-off hint take it), so
    /// the common path saves and restores few registers.
    #[inline(always)]
    fn locate_walked(&self, walked: Option<Walked>, p: [f64; 2], hint: &mut TrackHint) -> Located {
        self.locate_refined(walked.map(|w| self.refine(w, p)), p, hint)
    }

    /// The rest of [`Ribbon::locate_walked`] once the walked point is refined (`refined`:
    /// `None` when the walk gave up): the local foot point when it is plausible and between
    /// the barriers, else the scan's.
    #[inline(always)]
    fn locate_refined(
        &self,
        refined: Option<Located>,
        p: [f64; 2],
        hint: &mut TrackHint,
    ) -> Located {
        let local = refined.filter(|loc| self.plausible(loc));
        let loc = match local {
            Some(loc) if self.inside_barriers(&loc) => loc,
            local => self.locate_by_scan(local, p),
        };
        hint.segment = loc.i;
        loc
    }

    /// Beyond the hinted part's barrier the point may belong to another part of the track
    /// that runs close by (the straights either side of a hairpin): the nearer centreline
    /// wins between the hinted part's foot point (`local`, if plausible) and the scan's.
    #[cold]
    #[inline(never)]
    fn locate_by_scan(&self, local: Option<Located>, p: [f64; 2]) -> Located {
        let start = self.nearest_sample(p);
        let walked = self
            .walk(start, p)
            .unwrap_or_else(|| self.walked_at(start, p));
        let global = self.refine(walked, p);
        match local {
            Some(loc) if loc.d.abs() <= global.d.abs() => loc,
            _ => global,
        }
    }

    /// Interpolated profile value helper.
    fn profile_lerp(&self, loc: &Located, f: impl Fn(&ProfileSample) -> f64) -> f64 {
        lerp(
            f(&self.samples[loc.i].profile),
            f(&self.samples[loc.i + 1].profile),
            loc.t,
        )
    }

    pub(crate) fn ground(&self, x: f64, y: f64, hint: &mut TrackHint) -> GroundHit {
        let loc = self.locate([x, y], hint);
        let bump = self.bumps.at(loc.s, loc.d);
        self.ground_at(&loc, bump)
    }

    /// [`Ribbon::ground`] at four points (a car's wheels), each with its own hint: the same
    /// bits as four single queries, with the four foot points ([`Ribbon::refine4`]) and the
    /// bump field's sines of the four in lanes. A walk that gives up (far-off hint) sends all
    /// four through the single query's path.
    pub(crate) fn ground4(
        &self,
        points: [[f64; 2]; 4],
        hints: &mut [TrackHint; 4],
    ) -> [GroundHit; 4] {
        let [h0, h1, h2, h3] = hints;
        let walked = [
            self.walk(h0.segment, points[0]),
            self.walk(h1.segment, points[1]),
            self.walk(h2.segment, points[2]),
            self.walk(h3.segment, points[3]),
        ];
        let locs = if let [Some(w0), Some(w1), Some(w2), Some(w3)] = walked {
            let [l0, l1, l2, l3] = self.refine4([w0, w1, w2, w3], points);
            [
                self.locate_refined(Some(l0), points[0], h0),
                self.locate_refined(Some(l1), points[1], h1),
                self.locate_refined(Some(l2), points[2], h2),
                self.locate_refined(Some(l3), points[3], h3),
            ]
        } else {
            [
                self.locate_walked(walked[0], points[0], h0),
                self.locate_walked(walked[1], points[1], h1),
                self.locate_walked(walked[2], points[2], h2),
                self.locate_walked(walked[3], points[3], h3),
            ]
        };
        let bumps = self.bumps.at4(locs.map(|l| l.s), locs.map(|l| l.d));
        [0, 1, 2, 3].map(|k| self.ground_at(&locs[k], bumps[k]))
    }

    /// The ground at a located point whose bump field value is `bump` (inlined into the
    /// queries: a call per wheel cost ~20 instructions of register saves and copies).
    #[inline(always)]
    fn ground_at(&self, loc: &Located, bump: BumpValue) -> GroundHit {
        let loc = *loc;
        let (a, b) = (&self.samples[loc.i], &self.samples[loc.i + 1]);
        let (t, d, ds) = (loc.t, loc.d, self.spacing_m);
        let (pa, pb) = (&a.profile, &b.profile);
        let (centre_height, height_rate) = self.cubics[loc.i].height(t);
        let grade = height_rate / ds;
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

        height += bump.height_m;
        dz_ds += bump.d_ds;
        dz_dd += bump.d_dd;
        // The ISO 8608 road profile, where the track has one.
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
            self.add_roughness(
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
            self.add_roughness(
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

    /// The band and surface under a located point.
    fn across(&self, loc: &Located) -> Across {
        let (a, b) = (&self.samples[loc.i], &self.samples[loc.i + 1]);
        let side = if loc.d >= 0.0 { 0 } else { 1 };
        let half_width = lerp(
            a.profile.half_width_m[side],
            b.profile.half_width_m[side],
            loc.t,
        );
        let ids = a.surface.ids;
        let kerb_id = ids[KERB_BAND * 2 + side];
        let beyond_edge = loc.d.abs() - half_width;
        let on_kerb = beyond_edge > 0.0 && kerb_id != NO_KERB && beyond_edge < self.kerb_width_m;
        let id = if beyond_edge <= 0.0 {
            ids[TRACK_BAND * 2 + side]
        } else if on_kerb {
            kerb_id
        } else {
            ids[RUNOFF_BAND * 2 + side]
        };
        Across {
            side,
            half_width,
            beyond_edge,
            id,
            on_kerb,
        }
    }

    /// Adds roughness of surface `id` with amplitude `[a, da/ds, da/dd]` to the height and its
    /// slopes.
    fn add_roughness(
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
        } = field.at(loc.s, loc.d);
        *height += amplitude[0] * height_m;
        *dz_ds += amplitude[0] * d_ds + amplitude[1] * height_m;
        *dz_dd += amplitude[0] * d_dd + amplitude[2] * height_m;
    }

    pub(crate) fn project(&self, p: [f64; 3], hint: &mut TrackHint) -> TrackCoord {
        let loc = self.locate([p[0], p[1]], hint);
        self.coord(&loc)
    }

    /// [`Ribbon::project`] and the surface kind there from one locate.
    pub(crate) fn project_with_surface(
        &self,
        p: [f64; 3],
        hint: &mut TrackHint,
    ) -> (TrackCoord, SurfaceKind) {
        let loc = self.locate([p[0], p[1]], hint);
        (self.coord(&loc), surface::kind_of(self.across(&loc).id))
    }

    /// True when no point within `reach_m` (horizontally) of a point at `lateral_m` from the
    /// centreline in segment `segment` can touch a barrier: the point's lateral offset
    /// changes at most as fast as it moves, and its distance along the lap at most
    /// `1 / (1 - curvature * offset)` times as fast, so the barrier minima over the window
    /// bound every barrier such a point can meet. Conservative: false means "test each point".
    pub(crate) fn clear_of_barriers(&self, segment: usize, lateral_m: f64, reach_m: f64) -> bool {
        let Some(window) = self.barrier_windows.get(segment) else {
            return false;
        };
        let stretch = 1.0 - window.max_abs_curvature * (lateral_m.abs() + reach_m);
        if !(stretch > 0.1 && reach_m / stretch + self.spacing_m < BROAD_PHASE_WINDOW_M) {
            return false;
        }
        let need = reach_m + BROAD_PHASE_MARGIN_M;
        lateral_m + need < window.min_barrier_m[0] && -lateral_m + need < window.min_barrier_m[1]
    }

    /// True when a sphere of `radius_m` at `p`, which lies between the end normals of
    /// segment `i`, certainly touches neither barrier: its offset measured along the first
    /// sample's normal differs from the refined one (along the foot point's normal) by at most
    /// the centreline's sideways drift over the segment plus the tilt of the normal, both
    /// bounded from the segment's curvature with a factor of two to spare, and the barriers
    /// there are at least the nearer of their two end distances.
    fn clear_of_barriers_in_segment(&self, i: usize, p: [f64; 2], radius_m: f64) -> bool {
        let (a, b) = (&self.samples[i], &self.samples[i + 1]);
        let (c, tangent) = (a.centre.xy, a.centre.tangent);
        let offset = (p[1] - c[1]) * tangent[0] - (p[0] - c[0]) * tangent[1];
        let curvature = 2.0 * a.centre.curvature.abs().max(b.centre.curvature.abs())
            + BARRIER_EARLY_OUT_CURVATURE_PER_M;
        let reach = 1.1 * self.spacing_m;
        let turn = curvature * reach;
        let slack = curvature * reach * reach
            + (offset.abs() + reach) * turn * turn
            + BARRIER_EARLY_OUT_MARGIN_M;
        let (pa, pb) = (&a.profile, &b.profile);
        let need = radius_m + slack;
        offset + need < pa.barrier_m[0].min(pb.barrier_m[0])
            && -offset + need < pa.barrier_m[1].min(pb.barrier_m[1])
    }

    /// Heading of the centreline at a located point, in `(-pi, pi]`: the segment's first
    /// heading plus the small turn from there to the located tangent (an `atan` of a small
    /// ratio, a short series) instead of a full `atan2` of the tangent.
    fn heading_rad(&self, loc: &Located) -> f64 {
        let first = self.samples[loc.i].centre.tangent;
        let cos = first[0] * loc.tangent[0] + first[1] * loc.tangent[1];
        let sin = first[0] * loc.tangent[1] - first[1] * loc.tangent[0];
        let turn = if cos > 0.0 {
            crate::math::atan(sin / cos)
        } else {
            sin.atan2(cos)
        };
        let heading = self.cubics[loc.i].heading_rad + turn;
        if heading > std::f64::consts::PI {
            heading - std::f64::consts::TAU
        } else if heading <= -std::f64::consts::PI {
            heading + std::f64::consts::TAU
        } else {
            heading
        }
    }

    fn coord(&self, loc: &Located) -> TrackCoord {
        let (a, b) = (&self.samples[loc.i], &self.samples[loc.i + 1]);
        TrackCoord {
            distance_m: super::wrap_into_lap(loc.s, self.length_m),
            lateral_m: loc.d,
            heading_rad: self.heading_rad(loc),
            curvature_per_m: lerp(a.centre.curvature, b.centre.curvature, loc.t),
            half_width_left_m: self.profile_lerp(loc, |p| p.half_width_m[0]),
            half_width_right_m: self.profile_lerp(loc, |p| p.half_width_m[1]),
        }
    }

    pub(crate) fn barrier_contact(
        &self,
        p: [f64; 3],
        radius_m: f64,
        hint: &mut TrackHint,
    ) -> Option<BarrierHit> {
        let xy = [p[0], p[1]];
        let walked = self.walk(hint.segment, xy);
        if let Some(w) = walked {
            if self.clear_of_barriers_in_segment(w.i, xy, radius_m) {
                // What the full query would conclude (the refined offset is plausible and
                // short of both barriers), without the foot point.
                hint.segment = w.i;
                return None;
            }
        }
        let loc = self.locate_walked(walked, xy, hint);
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

    /// The cross-section at `distance_m` along the lap.
    pub(crate) fn section(&self, distance_m: f64) -> TrackSection {
        let s = distance_m.rem_euclid(self.length_m);
        let i = ((s / self.spacing_m) as usize).min(self.n - 1);
        let t = (s / self.spacing_m - i as f64).clamp(0.0, 1.0);
        let cubic = &self.cubics[i];
        let (offset, tangent) = cubic.centre(t);
        let (a, b) = (&self.samples[i], &self.samples[i + 1]);
        let xy = [a.centre.xy[0] + offset[0], a.centre.xy[1] + offset[1]];
        let (height, _) = cubic.height(t);
        let (pa, pb) = (&a.profile, &b.profile);
        let mix = |f: fn(&ProfileSample) -> f64| lerp(f(pa), f(pb), t);
        TrackSection {
            distance_m: s,
            centre_m: [xy[0], xy[1], height],
            heading_rad: tangent[1].atan2(tangent[0]),
            curvature_per_m: lerp(a.centre.curvature, b.centre.curvature, t),
            bank_rad: mix(|p| p.tan_bank).atan(),
            grade: mix(|p| p.grade),
            half_width_left_m: mix(|p| p.half_width_m[0]),
            half_width_right_m: mix(|p| p.half_width_m[1]),
            barrier_left_m: mix(|p| p.barrier_m[0]),
            barrier_right_m: mix(|p| p.barrier_m[1]),
        }
    }

    /// Grid slot `slot`: behind the line, alternating left and right of the centreline.
    pub(crate) fn start_pose(&self, slot: usize) -> ([f64; 3], f64) {
        let behind = FIRST_SLOT_BEHIND_M + slot as f64 * self.grid_spacing_m;
        let section = self.section(self.length_m - behind);
        let offset = if slot % 2 == 0 {
            0.3 * section.half_width_left_m
        } else {
            -0.3 * section.half_width_right_m
        };
        let (sin, cos) = section.heading_rad.sin_cos();
        let x = section.centre_m[0] - sin * offset;
        let y = section.centre_m[1] + cos * offset;
        let mut hint = TrackHint {
            segment: ((section.distance_m / self.spacing_m) as usize).min(self.n - 1),
        };
        let ground = self.ground(x, y, &mut hint);
        ([x, y, ground.height_m], section.heading_rad)
    }
}

#[cfg(test)]
mod oracle;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::track::builtin_text;

    /// Deterministic uniform numbers in `0..1` (a 64-bit LCG's top 53 bits).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn ribbon(name: &str) -> Ribbon {
        let spec = TrackSpec::from_toml(builtin_text(name).unwrap(), name).unwrap();
        Ribbon::build(&spec).unwrap()
    }

    /// Largest difference of the fast queries from the oracle over random points, as
    /// (height m, normal, lateral m, distance m, heading rad, barrier depth m, barrier normal).
    fn worst_differences(r: &Ribbon, points: usize, seed: u64) -> [f64; 7] {
        let mut rng = Lcg(seed);
        let mut worst = [0.0f64; 7];
        let mut raise = |k: usize, a: f64, b: f64| worst[k] = worst[k].max((a - b).abs());
        // A warm hint that follows a wandering path (as a wheel's does) and a cold one per
        // point (the scan), each against the oracle with the same hint.
        let (mut fast_hint, mut oracle_hint) = (TrackHint::default(), TrackHint::default());
        let mut s = rng.next() * r.length_m;
        let mut lateral = 0.0;
        for k in 0..points {
            if k % 50 == 0 {
                // Jump somewhere new now and then (a hint far off: the fallback scan).
                s = rng.next() * r.length_m;
            }
            s += rng.next() * 0.2;
            let section = r.section(s);
            let reach = [section.barrier_left_m + 3.0, section.barrier_right_m + 3.0];
            lateral = (lateral + (rng.next() - 0.5) * 2.0).clamp(-reach[1], reach[0]);
            if k % 7 == 0 {
                lateral = -reach[1] + rng.next() * (reach[0] + reach[1]);
            }
            let (sin, cos) = section.heading_rad.sin_cos();
            let p = [
                section.centre_m[0] - sin * lateral,
                section.centre_m[1] + cos * lateral,
                section.centre_m[2],
            ];
            for cold in [false, true] {
                let (mut fh, mut oh) = if cold {
                    (TrackHint::default(), TrackHint::default())
                } else {
                    (fast_hint, oracle_hint)
                };
                let fast = r.ground(p[0], p[1], &mut fh);
                let oracle = r.oracle_ground(p[0], p[1], &mut oh);
                assert_eq!(fh, oh, "segment at {p:?}");
                assert_eq!(fast.surface, oracle.surface, "surface at {p:?}");
                raise(0, fast.height_m, oracle.height_m);
                for axis in 0..3 {
                    raise(1, fast.normal[axis], oracle.normal[axis]);
                }

                let (coord, kind) = r.project_with_surface(p, &mut fh);
                let oracle_loc = r.oracle_locate([p[0], p[1]], &mut oh);
                let oracle_coord = r.oracle_coord(&oracle_loc);
                assert_eq!(fh, oh, "segment at {p:?}");
                assert_eq!(kind, surface::kind_of(r.across(&oracle_loc).id));
                raise(2, coord.lateral_m, oracle_coord.lateral_m);
                let wrap = r.length_m;
                let dd = coord.distance_m - oracle_coord.distance_m;
                raise(3, dd - (dd / wrap).round() * wrap, 0.0);
                let dh = coord.heading_rad - oracle_coord.heading_rad;
                let tau = std::f64::consts::TAU;
                raise(4, dh - (dh / tau).round() * tau, 0.0);
                raise(2, coord.curvature_per_m, oracle_coord.curvature_per_m);
                raise(2, coord.half_width_left_m, oracle_coord.half_width_left_m);
                raise(2, coord.half_width_right_m, oracle_coord.half_width_right_m);

                for radius in [0.05, 0.5] {
                    let fast = r.barrier_contact(p, radius, &mut fh);
                    let oracle = r.oracle_barrier_contact(p, radius, &mut oh);
                    assert_eq!(fh, oh, "segment at {p:?}");
                    match (fast, oracle) {
                        (None, None) => {}
                        (Some(f), Some(o)) => {
                            raise(5, f.depth_m, o.depth_m);
                            for axis in 0..3 {
                                raise(6, f.normal[axis], o.normal[axis]);
                            }
                        }
                        _ => panic!("barrier contact at {p:?}: fast {fast:?}, oracle {oracle:?}"),
                    }
                }
                if !cold {
                    (fast_hint, oracle_hint) = (fh, oh);
                }
            }
        }
        worst
    }

    /// The skipping nearest-sample scan finds the sample the full scan finds, on and around
    /// the track and far from it.
    #[test]
    fn skipping_scan_finds_the_nearest_sample() {
        for (n, name) in crate::track::BUILTIN_NAMES.iter().enumerate() {
            let r = ribbon(name);
            let mut rng = Lcg(99 + n as u64);
            for k in 0..5_000 {
                let section = r.section(rng.next() * r.length_m);
                let spread = if k % 10 == 0 { 2_000.0 } else { 40.0 };
                let p = [
                    section.centre_m[0] + (rng.next() - 0.5) * spread,
                    section.centre_m[1] + (rng.next() - 0.5) * spread,
                ];
                assert_eq!(
                    r.nearest_sample(p),
                    r.oracle_nearest_sample(p),
                    "{name} {p:?}"
                );
            }
            // Exactly on samples (ties with neighbours are decided as the full scan does).
            for i in (0..r.n).step_by(7) {
                let p = r.samples[i].centre.xy;
                assert_eq!(r.nearest_sample(p), r.oracle_nearest_sample(p));
            }
        }
    }

    /// Four wheels' ground at once is four single queries, bit for bit, with the hints
    /// moving alike: warm hints following four points that wander about the track together
    /// (as a car's wheels do) and, now and then, cold ones (the scan).
    #[test]
    fn four_points_at_once_are_four_single_queries_bit_for_bit() {
        for (n, name) in crate::track::BUILTIN_NAMES.iter().enumerate() {
            let r = ribbon(name);
            let mut rng = Lcg(5 + n as u64);
            let (mut four_hints, mut single_hints) =
                ([TrackHint::default(); 4], [TrackHint::default(); 4]);
            let mut s = rng.next() * r.length_m;
            for k in 0..3_000 {
                s += rng.next() * 0.5;
                if k % 100 == 0 {
                    s = rng.next() * r.length_m;
                    four_hints = [TrackHint::default(); 4];
                    single_hints = four_hints;
                }
                let section = r.section(s);
                let (sin, cos) = section.heading_rad.sin_cos();
                let points = [0, 1, 2, 3].map(|w| {
                    let lateral = (rng.next() - 0.5) * 2.0 * (section.barrier_left_m + 2.0);
                    let along = [1.3, 1.3, -1.4, -1.4][w] + rng.next() * 0.1;
                    [
                        section.centre_m[0] + cos * along - sin * lateral,
                        section.centre_m[1] + sin * along + cos * lateral,
                    ]
                });
                let four = r.ground4(points, &mut four_hints);
                for w in 0..4 {
                    let one = r.ground(points[w][0], points[w][1], &mut single_hints[w]);
                    assert_eq!(four_hints[w], single_hints[w], "{name} wheel {w}");
                    assert_eq!(
                        four[w].height_m.to_bits(),
                        one.height_m.to_bits(),
                        "{name} {w}"
                    );
                    assert_eq!(
                        four[w].normal.map(f64::to_bits),
                        one.normal.map(f64::to_bits)
                    );
                    assert_eq!(four[w].surface, one.surface);
                }
            }
        }
    }

    /// The fast queries (segment cubics, the walk's reused distances, the barrier early-out)
    /// give what the straightforward implementation gives, to
    /// round-off: heights, normals, surfaces, track coordinates and barrier contacts at
    /// random points on and off every built-in track, with warm and cold hints.
    #[test]
    fn fast_queries_match_the_oracle_to_round_off() {
        for (n, name) in crate::track::BUILTIN_NAMES.iter().enumerate() {
            let r = ribbon(name);
            let worst = worst_differences(&r, 20_000, 17 + n as u64);
            let limits = [1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9];
            for (k, (w, limit)) in worst.iter().zip(limits).enumerate() {
                assert!(
                    w <= &limit,
                    "{name}: difference {k} is {w:e} (worst {worst:?})"
                );
            }
        }
    }
}
