//! Barrier collision response: the body's collision points (bumper corners and side
//! mid-points at the height of the centre of gravity) are tested against the track's barriers;
//! each touching point that moves into the barrier gets an impulse cancelling its approach
//! speed (small restitution) with Coulomb friction along the barrier, and the body is pushed
//! back out of the penetration. Velocity-level, so a 60 m/s hit cannot tunnel or explode.
//! A broad phase on the body's track position skips the per-point queries while every point
//! is certainly clear of the barriers (the common case). The normal impulse on each point is
//! handed to the damage check (a hard enough hit breaks wings, links or the rack).

use super::Car;
use crate::math::{Mat3, Vec3};
use crate::track::Track;

/// Fraction of the approach speed returned after a hit.
const RESTITUTION: f64 = 0.2;
/// Friction coefficient between body and barrier.
const FRICTION: f64 = 0.5;
/// Radius of each collision sphere, m.
const POINT_RADIUS_M: f64 = 0.05;
/// Fraction of the penetration removed per step.
const POSITION_CORRECTION: f64 = 0.2;

impl Car {
    /// Applies barrier impulses to the new state's velocities (`self.state`, its position
    /// still the old one); returns true if any point touched.
    pub(super) fn barrier_response(&mut self, track: &Track, rot: &Mat3) -> bool {
        // Broad phase on the body's projection from the end of the last step (the position
        // the new state starts from), unless the state was replaced since.
        let fresh = self.body_coord_position == self.state.position;
        let reach = self.collision_reach_m + POINT_RADIUS_M;
        if fresh && track.clear_of_barriers(&self.body_coord, &self.body_hint, reach) {
            return false;
        }
        let mut touched = false;
        let mut impulses = [0.0; 8];
        let inv_mass = 1.0 / self.mass_kg;
        for (k, point) in self.collision_points.iter().enumerate() {
            let r = rot.mul_vec(*point);
            let p = self.state.position + r;
            if fresh {
                // The points' own hints went stale while the broad phase skipped them; the
                // body's is a few segments away at most.
                self.barrier_hints[k] = self.body_hint;
            }
            let Some(hit) =
                track.barrier_contact(p.to_array(), POINT_RADIUS_M, &mut self.barrier_hints[k])
            else {
                continue;
            };
            touched = true;
            let n = Vec3::from_array(hit.normal);
            // Push out of the penetration (position-level correction).
            self.state.position += n * (hit.depth_m * POSITION_CORRECTION);
            let omega_w = rot.mul_vec(self.state.angular_velocity_body);
            let v_point = self.state.velocity + omega_w.cross(r);
            let vn = v_point.dot(n);
            if vn >= 0.0 {
                continue;
            }
            let inv_inertia_world =
                |v: Vec3| rot.mul_vec(self.inverse_inertia.mul_vec(rot.transpose_mul_vec(v)));
            let effective = |dir: Vec3| {
                let rxn = r.cross(dir);
                inv_mass + inv_inertia_world(rxn).cross(r).dot(dir)
            };
            let jn = -(1.0 + RESTITUTION) * vn / effective(n);
            impulses[k] += jn;
            let tangential = v_point - n * vn;
            let vt = tangential.length();
            let mut impulse = n * jn;
            if vt > 1e-9 {
                let t = tangential * (1.0 / vt);
                let jt = (vt / effective(t)).min(FRICTION * jn);
                impulse -= t * jt;
            }
            self.state.velocity += impulse * inv_mass;
            let dw_world = inv_inertia_world(r.cross(impulse));
            self.state.angular_velocity_body += rot.transpose_mul_vec(dw_world);
        }
        if touched {
            self.take_damage(&impulses, &[0.0; 4]);
        }
        touched
    }
}
