//! Breakable parts: front and rear wings, a suspension link per corner and the steering rack,
//! each with a break strength; what breaks them and what a broken one does to the car.
//!
//! Strengths (stated per car in its `[damage]` table, see [`DamageSpec`]):
//! - a wing breaks when the barrier's normal impulse on its bumper's three collision points
//!   (two corners and the middle) in one step exceeds its impulse strength (N s); a broken wing
//!   loses its share of its axle's downforce area;
//! - a suspension link breaks when the barrier's impulse on its corner's collision point in one
//!   step exceeds the link's impulse strength, or when its tyre's radial load exceeds the
//!   link's load strength (N: a kerb strike or a landing); the wheel is knocked to the stated
//!   toe-out and positive camber (top out);
//! - the steering rack breaks when the front bumper's impulse in one step exceeds its
//!   strength; both front wheels are then turned by the stated steering offset (left).
//!
//! A car without a `[damage]` table, or with `enabled = false`, has no breakable parts.
//! `Car::reset` repairs everything. Checks cost a few comparisons per step and nothing while
//! the car touches no barrier; a break itself changes a few numbers of the car in place (no
//! allocation).

use crate::data::DataError;
use crate::spec::check_range;
use serde::Deserialize;

pub use crate::telemetry::DamageTelemetry;

/// The `[damage]` table of a car document.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageSpec {
    /// Parts can break (false: the car is indestructible). Default true.
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    /// Barrier impulse on the front bumper in one step that breaks the front wing, N s.
    pub front_wing_break_impulse_ns: f64,
    /// Share of the front downforce area the front wing makes (lost when it breaks), 0..1.
    pub front_wing_downforce_share: f64,
    /// Barrier impulse on the rear bumper in one step that breaks the rear wing, N s.
    pub rear_wing_break_impulse_ns: f64,
    /// Share of the rear downforce area the rear wing makes, 0..1.
    pub rear_wing_downforce_share: f64,
    /// Barrier impulse on a corner in one step that breaks its suspension link, N s.
    pub link_break_impulse_ns: f64,
    /// Radial tyre load that breaks the corner's link (kerb strike, landing), N.
    pub link_break_load_n: f64,
    /// Toe-out of a wheel whose link broke, deg (added to its alignment).
    pub broken_link_toe_out_deg: f64,
    /// Camber of a wheel whose link broke, deg (added; positive: top of the wheel out).
    pub broken_link_camber_deg: f64,
    /// Barrier impulse on the front bumper in one step that breaks the steering rack, N s.
    pub steering_rack_break_impulse_ns: f64,
    /// Road-wheel steering offset of a broken rack, deg (positive: the car pulls left).
    pub broken_rack_offset_deg: f64,
}

fn enabled_by_default() -> bool {
    true
}

impl DamageSpec {
    /// Range checks.
    pub fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        let checks = [
            (
                "front_wing_break_impulse_ns",
                self.front_wing_break_impulse_ns,
                1.0,
                1e7,
            ),
            (
                "front_wing_downforce_share",
                self.front_wing_downforce_share,
                0.0,
                1.0,
            ),
            (
                "rear_wing_break_impulse_ns",
                self.rear_wing_break_impulse_ns,
                1.0,
                1e7,
            ),
            (
                "rear_wing_downforce_share",
                self.rear_wing_downforce_share,
                0.0,
                1.0,
            ),
            (
                "link_break_impulse_ns",
                self.link_break_impulse_ns,
                1.0,
                1e7,
            ),
            ("link_break_load_n", self.link_break_load_n, 1.0, 1e8),
            (
                "broken_link_toe_out_deg",
                self.broken_link_toe_out_deg,
                -30.0,
                30.0,
            ),
            (
                "broken_link_camber_deg",
                self.broken_link_camber_deg,
                -30.0,
                30.0,
            ),
            (
                "steering_rack_break_impulse_ns",
                self.steering_rack_break_impulse_ns,
                1.0,
                1e7,
            ),
            (
                "broken_rack_offset_deg",
                self.broken_rack_offset_deg,
                -30.0,
                30.0,
            ),
        ];
        for (name, value, lo, hi) in checks {
            check_range(text, origin, &format!("damage.{name}"), value, lo, hi)?;
        }
        Ok(())
    }
}

/// Collision points (see `Car::new`) on the front bumper: its corners and middle.
pub(crate) const FRONT_BUMPER_POINTS: [usize; 3] = [0, 1, 4];
/// Collision points on the rear bumper.
pub(crate) const REAR_BUMPER_POINTS: [usize; 3] = [2, 3, 5];

/// The parts a step broke, from the barrier's normal impulse on each collision point (N s)
/// and the tyres' radial loads (N), given what was broken before.
pub(crate) fn breaks(
    spec: &DamageSpec,
    before: &DamageTelemetry,
    point_impulse_ns: &[f64; 8],
    tyre_load_n: &[f64; 4],
) -> DamageTelemetry {
    let sum = |points: [usize; 3]| points.iter().map(|&k| point_impulse_ns[k]).sum::<f64>();
    let (front, rear) = (sum(FRONT_BUMPER_POINTS), sum(REAR_BUMPER_POINTS));
    let mut links = before.links;
    for (corner, broken) in links.iter_mut().enumerate() {
        // Collision points 0..4 are the body's corners, in wheel order.
        *broken |= point_impulse_ns[corner] > spec.link_break_impulse_ns
            || tyre_load_n[corner] > spec.link_break_load_n;
    }
    DamageTelemetry {
        front_wing: before.front_wing || front > spec.front_wing_break_impulse_ns,
        rear_wing: before.rear_wing || rear > spec.rear_wing_break_impulse_ns,
        links,
        steering_rack: before.steering_rack || front > spec.steering_rack_break_impulse_ns,
    }
}
