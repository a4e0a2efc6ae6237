//! The track: a 3D ribbon built from a centreline, queried per wheel for ground height, normal
//! and surface, and per car for along/across-track coordinates and barrier contact.
//!
//! Two shapes exist: an infinite inclined plane ([`Track::flat`], [`Track::plane`],
//! [`Track::plane_of`] for a plane of another surface) for manoeuvre tests, and the ribbon built from a [`TrackSpec`] document (see [`ribbon`] for the
//! geometry model). Every query takes a [`TrackHint`] that the caller keeps per wheel / per car:
//! with it queries are O(1) and never allocate, so they run inside `World::step`.
//!
//! Conventions: world frame `z` up; distances along the lap start at the start line and grow
//! in the driving direction; lateral offsets are horizontal, positive left.

mod builtin;
mod bumps;
mod centreline;
mod profile;
mod ribbon;
pub mod road_profile;
pub mod spec;
mod surface;

use crate::data::DataError;
use crate::telemetry::SurfaceKind;

pub use crate::surface::Surface;
pub use builtin::{builtin, builtin_text, BUILTIN_NAMES};
pub use road_profile::{RoadClass, RoughnessSpec};
pub use spec::TrackSpec;

/// Per-query cache (e.g. the last segment index) so repeated queries near the same place are
/// O(1). Each wheel and each car keeps its own.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TrackHint {
    /// Index of the centreline sample found last time.
    pub segment: usize,
}

/// The ground under a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroundHit {
    /// Ground height at the queried (x, y), m.
    pub height_m: f64,
    /// Smooth (interpolated) unit surface normal.
    pub normal: [f64; 3],
    /// Surface properties.
    pub surface: Surface,
}

/// Along/across-track coordinates of a point.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TrackCoord {
    /// Distance along the centreline from the start line, m, in `0 .. length`.
    pub distance_m: f64,
    /// Lateral offset from the centreline, m (positive left).
    pub lateral_m: f64,
    /// Heading of the centreline at that point, rad (world yaw).
    pub heading_rad: f64,
    /// Signed curvature of the centreline, 1/m (positive turning left).
    pub curvature_per_m: f64,
    /// Half width to the left edge of the racing surface, m.
    pub half_width_left_m: f64,
    /// Half width to the right edge, m.
    pub half_width_right_m: f64,
}

/// A point of a body pushed into a barrier.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarrierHit {
    /// Unit normal pointing from the barrier back towards the track.
    pub normal: [f64; 3],
    /// Penetration depth, m (> 0).
    pub depth_m: f64,
}

/// The track's cross-section at one distance along the lap (for robots, tools and tests).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TrackSection {
    /// Distance along the lap, m.
    pub distance_m: f64,
    /// Centreline point on the ground (without crown and bumps), m.
    pub centre_m: [f64; 3],
    /// Heading of the centreline, rad (world yaw).
    pub heading_rad: f64,
    /// Signed curvature, 1/m (positive turning left).
    pub curvature_per_m: f64,
    /// Bank angle, rad (positive: left edge lower).
    pub bank_rad: f64,
    /// Grade along the lap, rise over run.
    pub grade: f64,
    /// Half width of the racing surface to the left, m.
    pub half_width_left_m: f64,
    /// Half width to the right, m.
    pub half_width_right_m: f64,
    /// Lateral distance of the left barrier from the centreline, m.
    pub barrier_left_m: f64,
    /// Lateral distance of the right barrier, m.
    pub barrier_right_m: f64,
}

#[derive(Debug, Clone)]
enum Shape {
    /// `z = grade * x`, no barriers, one surface.
    Plane { grade: f64, surface: Surface },
    /// A closed ribbon built from a document.
    Ribbon(Box<ribbon::Ribbon>),
}

/// The plane's ground at `x` (the same everywhere across).
fn plane_ground(grade: f64, surface: Surface, x: f64) -> GroundHit {
    let norm = (1.0 + grade * grade).sqrt();
    GroundHit {
        height_m: grade * x,
        normal: [-grade / norm, 0.0, 1.0 / norm],
        surface,
    }
}

/// `distance_m.rem_euclid(length_m)` (the same value, bit for bit) without the library's
/// `fmod` for the common cases: a distance at most one lap outside `0 .. length` (`x - L` is
/// exact there, and `x + L` rounds exactly as `rem_euclid`'s own correction does; `-L` itself
/// gives `-0.0` there, so it takes the library path). Per car and step the projection, the
/// lap timer and the robot wrap several distances.
#[inline]
pub(crate) fn wrap_into_lap(distance_m: f64, length_m: f64) -> f64 {
    if (0.0..length_m).contains(&distance_m) {
        distance_m
    } else if (length_m..2.0 * length_m).contains(&distance_m) {
        distance_m - length_m
    } else if distance_m > -length_m && distance_m < 0.0 {
        distance_m + length_m
    } else {
        distance_m.rem_euclid(length_m)
    }
}

/// Lap length reported by the plane (its along-track distance is `x` modulo this), m.
const PLANE_LAP_M: f64 = 1000.0;

/// Air temperature of a track that states none (and of the planes), degrees C.
pub const DEFAULT_AIR_TEMP_C: f64 = 20.0;
/// Road temperature of a track that states none (and of the planes), degrees C.
pub const DEFAULT_TRACK_TEMP_C: f64 = 25.0;

/// A built track, ready for queries.
#[derive(Debug, Clone)]
pub struct Track {
    name: String,
    shape: Shape,
    /// Air and road temperature, degrees C.
    temperatures_c: [f64; 2],
}

impl Track {
    /// A flat, infinite asphalt plane without barriers.
    pub fn flat() -> Track {
        Track::plane(0.0)
    }

    /// An infinite asphalt plane without barriers rising along +x with `grade` (rise over run,
    /// 0.10 for a 10 % slope): height `z = grade * x`. For slope and hill-hold tests.
    pub fn plane(grade: f64) -> Track {
        Track::plane_of(grade, Surface::of(SurfaceKind::Asphalt))
    }

    /// An infinite plane like [`Track::plane`] all of `surface` (a flooded or gravel plane
    /// for surface tests).
    pub fn plane_of(grade: f64, surface: Surface) -> Track {
        let surface = surface.prepared();
        let ground = if surface.kind == SurfaceKind::Asphalt {
            String::new()
        } else {
            format!(" of {:?}", surface.kind).to_lowercase()
        };
        Track {
            name: if grade == 0.0 {
                format!("flat{ground}")
            } else {
                format!("plane {:.1} %{ground}", grade * 100.0)
            },
            shape: Shape::Plane { grade, surface },
            temperatures_c: [DEFAULT_AIR_TEMP_C, DEFAULT_TRACK_TEMP_C],
        }
    }

    /// Builds a validated document. Geometry errors (a lap that does not close, a barrier past
    /// a turn's centre) carry the field but no line; [`Track::from_toml`] adds the line.
    pub fn from_spec(spec: &TrackSpec) -> Result<Track, DataError> {
        Track::build(spec).map_err(|problem| DataError {
            origin: spec.name.clone(),
            line: 0,
            column: 0,
            field: problem.field,
            message: problem.message,
        })
    }

    /// Parses, validates and builds a track document; `origin` names it in errors (a path or
    /// `builtin:<name>`).
    pub fn from_toml(text: &str, origin: &str) -> Result<Track, DataError> {
        let spec = TrackSpec::from_toml(text, origin)?;
        Track::build(&spec).map_err(|problem| problem.into_error(text, origin))
    }

    fn build(spec: &TrackSpec) -> Result<Track, spec::SpecProblem> {
        spec.validate()?;
        Ok(Track {
            name: spec.name.clone(),
            shape: Shape::Ribbon(Box::new(ribbon::Ribbon::build(spec)?)),
            temperatures_c: [spec.air_temp_c, spec.track_temp_c],
        })
    }

    /// Air and road temperature, degrees C (what the tyres cool to).
    pub fn temperatures_c(&self) -> [f64; 2] {
        self.temperatures_c
    }

    /// This track with the air at `air_c` and the road at `track_c`, degrees C.
    pub fn with_temperatures_c(mut self, air_c: f64, track_c: f64) -> Track {
        self.temperatures_c = [air_c, track_c];
        self
    }

    /// Display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Lap length, m.
    pub fn length_m(&self) -> f64 {
        match &self.shape {
            Shape::Plane { .. } => PLANE_LAP_M,
            Shape::Ribbon(r) => r.length_m(),
        }
    }

    /// Ground under (x, y).
    pub fn ground(&self, x: f64, y: f64, hint: &mut TrackHint) -> GroundHit {
        match &self.shape {
            Shape::Plane { grade, surface } => plane_ground(*grade, *surface, x),
            Shape::Ribbon(r) => r.ground(x, y, hint),
        }
    }

    /// Ground under four points (a car's wheels), each with its own hint: the same bits as
    /// four [`Track::ground`] calls, with the ribbon's bump waves computed for the four at
    /// once.
    pub fn ground4(&self, points: [[f64; 2]; 4], hints: &mut [TrackHint; 4]) -> [GroundHit; 4] {
        match &self.shape {
            Shape::Plane { grade, surface } => points.map(|p| plane_ground(*grade, *surface, p[0])),
            Shape::Ribbon(r) => r.ground4(points, hints),
        }
    }

    /// Along/across coordinates of a world point.
    pub fn project(&self, p: [f64; 3], hint: &mut TrackHint) -> TrackCoord {
        match &self.shape {
            Shape::Plane { .. } => TrackCoord {
                distance_m: p[0].rem_euclid(PLANE_LAP_M),
                lateral_m: p[1],
                half_width_left_m: 1e9,
                half_width_right_m: 1e9,
                ..TrackCoord::default()
            },
            Shape::Ribbon(r) => r.project(p, hint),
        }
    }

    /// [`Track::project`] plus the kind of surface under the point, from one locate (a car's
    /// per-step body query: lap position and the surface it is on).
    pub fn project_with_surface(
        &self,
        p: [f64; 3],
        hint: &mut TrackHint,
    ) -> (TrackCoord, SurfaceKind) {
        match &self.shape {
            Shape::Plane { surface, .. } => (self.project(p, hint), surface.kind),
            Shape::Ribbon(r) => r.project_with_surface(p, hint),
        }
    }

    /// Barrier broad phase: true when no point within `reach_m` (horizontal distance) of the
    /// point last projected with `hint` (giving `coord`) can be in contact with a barrier, so
    /// per-point [`Track::barrier_contact`] queries can be skipped. Conservative: false only
    /// means "test the points". Always true on the plane (no barriers).
    pub fn clear_of_barriers(&self, coord: &TrackCoord, hint: &TrackHint, reach_m: f64) -> bool {
        match &self.shape {
            Shape::Plane { .. } => true,
            Shape::Ribbon(r) => r.clear_of_barriers(hint.segment, coord.lateral_m, reach_m),
        }
    }

    /// Barrier contact of a sphere at `p` with `radius_m`, if any. Barriers are solid
    /// half-spaces: a point anywhere beyond a barrier line is in contact, with its depth.
    pub fn barrier_contact(
        &self,
        p: [f64; 3],
        radius_m: f64,
        hint: &mut TrackHint,
    ) -> Option<BarrierHit> {
        match &self.shape {
            Shape::Plane { .. } => None,
            Shape::Ribbon(r) => r.barrier_contact(p, radius_m, hint),
        }
    }

    /// Start position (centre of the car on the ground) and yaw of grid slot `slot`: behind
    /// the start line, one slot every grid spacing, alternating left and right.
    pub fn start_pose(&self, slot: usize) -> ([f64; 3], f64) {
        match &self.shape {
            Shape::Plane { grade, .. } => {
                let x = -(slot as f64) * 8.0;
                ([x, 0.0, grade * x], 0.0)
            }
            Shape::Ribbon(r) => r.start_pose(slot),
        }
    }

    /// Distances along the centreline where sectors 2 and 3 begin, m.
    pub fn sector_starts_m(&self) -> [f64; 2] {
        match &self.shape {
            Shape::Plane { .. } => [PLANE_LAP_M / 3.0, 2.0 * PLANE_LAP_M / 3.0],
            Shape::Ribbon(r) => r.sector_starts_m(),
        }
    }

    /// The cross-section at `distance_m` along the lap (wrapped into the lap).
    pub fn section(&self, distance_m: f64) -> TrackSection {
        match &self.shape {
            Shape::Plane { grade, .. } => {
                let x = distance_m.rem_euclid(PLANE_LAP_M);
                TrackSection {
                    distance_m: x,
                    centre_m: [x, 0.0, grade * x],
                    grade: *grade,
                    half_width_left_m: 1e9,
                    half_width_right_m: 1e9,
                    barrier_left_m: f64::INFINITY,
                    barrier_right_m: f64::INFINITY,
                    ..TrackSection::default()
                }
            }
            Shape::Ribbon(r) => r.section(distance_m),
        }
    }

    /// True for a closed lap with barriers (a ribbon), false for the open plane.
    pub fn is_closed(&self) -> bool {
        matches!(self.shape, Shape::Ribbon(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast lap wrap gives `rem_euclid`'s value bit for bit, in and around its fast ranges.
    #[test]
    fn wrap_into_lap_is_rem_euclid() {
        let length: f64 = 3456.789;
        let mut x: f64 = -3.0 * length;
        while x < 3.0 * length {
            for v in [x, x.next_up(), x.next_down()] {
                assert_eq!(
                    wrap_into_lap(v, length).to_bits(),
                    v.rem_euclid(length).to_bits(),
                    "{v}"
                );
            }
            x += 0.937;
        }
        for v in [0.0, -0.0, length, -length, 2.0 * length, 1e-300, -1e-300] {
            assert_eq!(
                wrap_into_lap(v, length).to_bits(),
                v.rem_euclid(length).to_bits()
            );
        }
        assert!(wrap_into_lap(f64::NAN, length).is_nan());
    }

    /// The barrier broad phase is conservative: wherever it reports a body clear, no point
    /// within the reach of the body's centre touches a barrier (each point located on its own,
    /// starting from the body's segment as the car does).
    #[test]
    fn barrier_broad_phase_never_hides_a_contact() {
        let reach = 2.6;
        for name in BUILTIN_NAMES {
            let track = builtin(name).unwrap();
            let (mut clear, mut checked) = (0, 0);
            let mut body_hint = TrackHint::default();
            let mut s = 0.0;
            while s < track.length_m() {
                let section = track.section(s);
                let (sin, cos) = section.heading_rad.sin_cos();
                let left = [-sin, cos];
                let mut lateral = -section.barrier_right_m - 1.0;
                while lateral < section.barrier_left_m + 1.0 {
                    let centre = [
                        section.centre_m[0] + left[0] * lateral,
                        section.centre_m[1] + left[1] * lateral,
                        section.centre_m[2],
                    ];
                    let coord = track.project(centre, &mut body_hint);
                    checked += 1;
                    if track.clear_of_barriers(&coord, &body_hint, reach) {
                        clear += 1;
                        for k in 0..16 {
                            let angle = k as f64 * std::f64::consts::TAU / 16.0;
                            let point = [
                                centre[0] + (reach - 0.05) * angle.cos(),
                                centre[1] + (reach - 0.05) * angle.sin(),
                                centre[2],
                            ];
                            let mut hint = body_hint;
                            let hit = track.barrier_contact(point, 0.05, &mut hint);
                            assert!(hit.is_none(), "{name}: s {s} lateral {lateral}: {hit:?}");
                        }
                    }
                    lateral += 0.7;
                }
                s += 7.0;
            }
            // The broad phase must also be useful: most of the racing surface is clear.
            if track.is_closed() {
                assert!(
                    clear * 3 > checked,
                    "{name}: only {clear} of {checked} clear"
                );
            }
        }
    }
}
