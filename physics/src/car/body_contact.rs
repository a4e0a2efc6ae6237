//! Body-to-ground contact: what a car off its wheels (on its roof, its side, its nose) rests
//! and slides on, so an inverted car no longer sinks onto its inverted tyres.
//!
//! The body is a box (length and width from the chassis spec, from the floor to the roof
//! height) whose eight corners are contact points. A point below the ground gets a penalty
//! normal force, a stiff spring on the depth plus a damper on the depth rate, the sum clamped at
//! zero so the ground never pulls the body down, and Coulomb friction (`mu`
//! [`SLIDING_FRICTION`]) opposing the point's sliding velocity, regularised below
//! [`FRICTION_REGULARISATION_MPS`] so a car on its roof comes to rest without stick-slip jitter.
//! Forces join the step's force and torque sums before integration.
//!
//! Stiffness: the body resting on four points sinks [`STATIC_SINK_M`], so the stiffness scales
//! with the car's mass and the contact's natural frequency is `sqrt(g / sink)` ~ 44 rad/s for
//! every car (well resolved at 1-2 ms steps); the damper makes it [`DAMPING_RATIO`] of critical
//! for a quarter of the mass.
//!
//! Cost (why the broad phase): while the car is on its wheels no point is near the ground. Each
//! point is first tested against the tangent plane of the ground under its nearest wheel (from
//! the wheel's ground query this step, no new query); only a point within [`MARGIN_M`] of that
//! plane queries the track's ground. Upright, that is one rotation per wheel, one dot product
//! per point and no query.
//! Units: m, m/s, N, N m; vectors in world axes relative to the centre of gravity.

use super::Car;
use crate::math::{Mat3, Vec3};
use crate::spec::{CarSpec, GRAVITY_MPS2};
use crate::track::{Track, TrackHint};

/// Depth at which four body points carry the car's weight, m.
pub const STATIC_SINK_M: f64 = 0.005;
/// Damping of one point against a quarter of the car's mass, fraction of critical.
pub const DAMPING_RATIO: f64 = 0.8;
/// Sliding friction coefficient between body and ground.
pub const SLIDING_FRICTION: f64 = 0.5;
/// Sliding speed below which friction falls linearly to zero, m/s (a car on its roof on a
/// 10 % slope creeps at about 2 cm/s).
pub const FRICTION_REGULARISATION_MPS: f64 = 0.1;
/// A point further than this above its wheel's ground plane skips the ground query, m.
pub const MARGIN_M: f64 = 0.05;

/// Number of body contact points (the box corners).
const POINTS: usize = 8;

/// The ground under one wheel this step: a point on it and its normal.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct GroundPlane {
    /// A ground point, relative to the centre of gravity, world, m.
    pub offset: Vec3,
    /// Unit ground normal.
    pub normal: Vec3,
}

/// The body's contact points and contact law.
#[derive(Debug, Clone)]
pub(crate) struct BodyContact {
    /// Box corners, body frame (origin at the centre of gravity), m: floor corners first
    /// (FL FR RL RR), then roof corners in the same order, so point `i` lies over wheel `i % 4`.
    points: [Vec3; POINTS],
    /// Height of the roof points above the floor points, m.
    roof_above_floor_m: f64,
    /// Normal stiffness per point, N/m.
    stiffness: f64,
    /// Normal damping per point, N s/m.
    damping: f64,
    /// Deepest point below the ground in the last step, m (0 when clear).
    depth_m: f64,
    /// Elastic energy in the contact springs in the last step, J.
    energy_j: f64,
}

impl BodyContact {
    /// The body box of `spec` (centred on the wheelbase, like the barrier points).
    pub(super) fn new(spec: &CarSpec) -> BodyContact {
        let c = &spec.chassis;
        let a = c.cog_to_front_axle_m;
        let b = c.wheelbase_m - a;
        let hl = 0.5 * c.body_length_m;
        let hw = 0.5 * c.body_width_m;
        let front = 0.5 * (a - b) + hl;
        let rear = 0.5 * (a - b) - hl;
        let floor = c.body_floor_height_m - c.cog_height_m;
        let roof = c.body_roof_height_m - c.cog_height_m;
        let mut points = [Vec3::ZERO; POINTS];
        for (level, z) in [floor, roof].into_iter().enumerate() {
            points[4 * level] = Vec3::new(front, hw, z);
            points[4 * level + 1] = Vec3::new(front, -hw, z);
            points[4 * level + 2] = Vec3::new(rear, hw, z);
            points[4 * level + 3] = Vec3::new(rear, -hw, z);
        }
        let quarter_mass = 0.25 * c.mass_kg;
        let stiffness = quarter_mass * GRAVITY_MPS2 / STATIC_SINK_M;
        BodyContact {
            points,
            roof_above_floor_m: roof - floor,
            stiffness,
            damping: 2.0 * DAMPING_RATIO * (stiffness * quarter_mass).sqrt(),
            depth_m: 0.0,
            energy_j: 0.0,
        }
    }

    /// Adds the ground's forces on the body to `force` and `torque` (world, about the centre of
    /// gravity) for the state `position`/`velocity`/`omega_world` with orientation `rot`.
    /// `plane(k)` (the ground under wheel `k`) and `wheel_hints` come from this step's wheel
    /// ground queries.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn apply(
        &mut self,
        track: &Track,
        rot: &Mat3,
        position: Vec3,
        velocity: Vec3,
        omega_world: Vec3,
        plane: impl Fn(usize) -> GroundPlane,
        wheel_hints: &[TrackHint; 4],
        force: &mut Vec3,
        torque: &mut Vec3,
    ) {
        self.depth_m = 0.0;
        self.energy_j = 0.0;
        // Broad phase: the floor and roof points over each wheel against the tangent plane
        // under it, with the plane normal in body axes (one rotation per wheel). All heights
        // first (straight-line arithmetic the compiler can pair up), then the narrow phase
        // in the same point order as before.
        let mut floor = [0.0; 4];
        let mut roof = [0.0; 4];
        for k in 0..4 {
            let plane = plane(k);
            let normal_body = rot.transpose_mul_vec(plane.normal);
            let plane_height = plane.offset.dot(plane.normal);
            // The roof point is the floor point raised along body z.
            floor[k] = self.points[k].dot(normal_body) - plane_height;
            roof[k] = floor[k] + self.roof_above_floor_m * normal_body.z;
        }
        for k in 0..4 {
            for (i, height) in [(k, floor[k]), (k + 4, roof[k])] {
                if height > MARGIN_M {
                    continue;
                }
                let state = PointState {
                    position,
                    velocity,
                    omega_world,
                    hint: wheel_hints[k],
                };
                self.touch(track, rot, i, &state, force, torque);
            }
        }
    }

    /// Narrow phase of point `i` (near the ground): queries the ground and adds its force.
    #[inline(never)]
    fn touch(
        &mut self,
        track: &Track,
        rot: &Mat3,
        i: usize,
        state: &PointState,
        force: &mut Vec3,
        torque: &mut Vec3,
    ) {
        let r = rot.mul_vec(self.points[i]);
        let p = state.position + r;
        // The wheel's hint is current; the point is at most a few metres from the wheel.
        let mut hint = state.hint;
        let ground = track.ground(p.x, p.y, &mut hint);
        let n = Vec3::from_array(ground.normal);
        let depth = (ground.height_m - p.z) * n.z;
        if depth <= 0.0 {
            return;
        }
        self.depth_m = self.depth_m.max(depth);
        self.energy_j += 0.5 * self.stiffness * depth * depth;
        let v = state.velocity + state.omega_world.cross(r);
        let vn = v.dot(n);
        let normal_force = (self.stiffness * depth - self.damping * vn).max(0.0);
        let sliding = v - n * vn;
        let speed = sliding.length();
        let mut f = n * normal_force;
        if speed > 0.0 {
            let friction =
                SLIDING_FRICTION * normal_force * (speed / FRICTION_REGULARISATION_MPS).min(1.0);
            f -= sliding * (friction / speed);
        }
        *force += f;
        *torque += r.cross(f);
    }
}

/// The body's motion and the nearest wheel's track hint, for one point's narrow phase.
struct PointState {
    position: Vec3,
    velocity: Vec3,
    omega_world: Vec3,
    hint: TrackHint,
}

impl Car {
    /// Deepest body contact point below the ground in the last step, m (0 while the body is
    /// clear of the ground, as on its wheels).
    pub fn body_ground_depth_m(&self) -> f64 {
        self.body_contact.depth_m
    }

    /// Elastic energy stored in the body's ground contact in the last step, J (what a landing
    /// body gives back as it rebounds; for energy balances).
    pub fn body_ground_energy_j(&self) -> f64 {
        self.body_contact.energy_j
    }
}
