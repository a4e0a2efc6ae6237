//! The track: a 3D ribbon built from a centreline, queried per wheel for ground height, normal
//! and surface, and per car for along/across-track coordinates and barrier contact.
//!
//! CONTRACT SKELETON (a flat infinite asphalt plane): the track work replaces the bodies; the
//! signatures are what the car, the robots and lap timing call.

use crate::telemetry::SurfaceKind;

/// Grip and feel of a surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    /// What it is.
    pub kind: SurfaceKind,
    /// Friction scale on the tyre's peak forces (asphalt 1.0).
    pub grip_scale: f64,
    /// Rolling resistance coefficient added to the tyre's own.
    pub rolling_resistance: f64,
    /// Amplitude of the deterministic roughness, m.
    pub roughness_m: f64,
}

impl Surface {
    /// Dry asphalt.
    pub const ASPHALT: Surface = Surface {
        kind: SurfaceKind::Asphalt,
        grip_scale: 1.0,
        rolling_resistance: 0.0,
        roughness_m: 0.0,
    };
}

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

/// A built track, ready for queries.
#[derive(Debug, Clone)]
pub struct Track {
    length_m: f64,
    /// Rise per metre along +x (0 for the flat plane).
    grade: f64,
}

impl Track {
    /// A flat plane (skeleton).
    pub fn flat() -> Track {
        Track::plane(0.0)
    }

    /// An infinite asphalt plane without barriers rising along +x with `grade` (rise over run,
    /// 0.10 for a 10 % slope): height `z = grade * x`. For slope and hill-hold tests.
    pub fn plane(grade: f64) -> Track {
        Track {
            length_m: 1000.0,
            grade,
        }
    }

    /// Lap length, m.
    pub fn length_m(&self) -> f64 {
        self.length_m
    }

    /// Ground under (x, y).
    pub fn ground(&self, x: f64, _y: f64, _hint: &mut TrackHint) -> GroundHit {
        let norm = (1.0 + self.grade * self.grade).sqrt();
        GroundHit {
            height_m: self.grade * x,
            normal: [-self.grade / norm, 0.0, 1.0 / norm],
            surface: Surface::ASPHALT,
        }
    }

    /// Along/across coordinates of a world point.
    pub fn project(&self, p: [f64; 3], _hint: &mut TrackHint) -> TrackCoord {
        TrackCoord {
            distance_m: p[0].rem_euclid(self.length_m),
            lateral_m: p[1],
            half_width_left_m: 1e9,
            half_width_right_m: 1e9,
            ..TrackCoord::default()
        }
    }

    /// Barrier contact of a sphere at `p` with `radius_m`, if any.
    pub fn barrier_contact(
        &self,
        _p: [f64; 3],
        _radius_m: f64,
        _hint: &mut TrackHint,
    ) -> Option<BarrierHit> {
        None
    }

    /// Start position (centre of the car on the ground) and yaw of grid slot `slot`.
    pub fn start_pose(&self, slot: usize) -> ([f64; 3], f64) {
        let x = -(slot as f64) * 8.0;
        ([x, 0.0, self.grade * x], 0.0)
    }

    /// Distances along the centreline where sectors 2 and 3 begin, m.
    pub fn sector_starts_m(&self) -> [f64; 2] {
        [self.length_m / 3.0, 2.0 * self.length_m / 3.0]
    }
}
