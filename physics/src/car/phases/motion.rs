//! Phase 7, motion: semi-implicit (symplectic) Euler for the chassis (anisotropic
//! translational mass: the unsprung masses move with the body in its x/y plane, separately
//! along z; Euler's equations for rotation) and the unsprung masses, the barrier response on
//! the new velocities, then the new position, orientation and suspension travel (hard limits
//! carry the wheel with the body).
//!
//! Inputs: the body frame, [`ChassisLoads`], each [`WheelWork`]'s `at_limit`, the start
//! pose, the track. Outputs: the rest of the new state; [`Motion`].

use super::chassis_forces::ChassisLoads;
use super::{StartPose, StepFrame, WheelWork, GRAVITY};
use crate::car::Car;
use crate::math::Vec3;
use crate::track::Track;

/// What the motion phase tells the telemetry.
pub(in crate::car) struct Motion {
    /// Acceleration of the centre of gravity, world, m/s^2.
    pub accel: Vec3,
    /// A collision point touched a barrier.
    pub barrier: bool,
}

impl Car {
    pub(in crate::car) fn integrate_motion(
        &mut self,
        track: &Track,
        frame: &StepFrame,
        loads: &ChassisLoads,
        work: &[WheelWork; 4],
        start: &StartPose,
        dt: f64,
    ) -> Motion {
        let rot = &frame.rot;
        let w_body = frame.w_body;
        let f_body = rot.transpose_mul_vec(loads.force);
        let accel_body = Vec3::new(
            f_body.x / self.mass_kg,
            f_body.y / self.mass_kg,
            f_body.z / self.sprung_mass_kg,
        );
        let accel = rot.mul_vec(accel_body) + GRAVITY;
        let tau_body = rot.transpose_mul_vec(loads.torque);
        let gyro = w_body.cross(self.inertia.mul_vec(w_body));
        let alpha_body = self.inverse_inertia.mul_vec(tau_body - gyro);

        self.state.velocity = start.velocity + accel * dt;
        self.state.angular_velocity_body = w_body + alpha_body * dt;
        for (v, a) in self
            .state
            .wheel_vertical_velocity
            .iter_mut()
            .zip(loads.wheel_accel)
        {
            *v += a * dt;
        }
        let barrier = self.barrier_response(track, rot);
        // From the barrier-corrected position (the new state started at the start pose): a
        // penetration push must not be overwritten, or a car scraping a narrowing barrier
        // ends up beyond it.
        self.state.position += self.state.velocity * dt;
        self.state.orientation = start
            .orientation
            .integrate_body_rate(self.state.angular_velocity_body, dt);

        // Travel from the unsprung masses' motion relative to the body.
        let v_z1 = self.state.velocity.dot(frame.zb);
        let w_body1 = self.state.angular_velocity_body;
        for (i, w) in work.iter().enumerate() {
            let corner = &self.corners[i];
            let d = corner.droop_position;
            let body_z = v_z1 + (w_body1.x * d.y - w_body1.y * d.x);
            let s_dot = self.state.wheel_vertical_velocity[i] - body_z;
            let s = start.travel[i] + s_dot * dt;
            let travel_max = corner.suspension.travel_m;
            if w.at_limit {
                // Held by the limit: stays there, moving with the body (else it drifts off the
                // limit by micrometres and back, a two-step ripple of the body): its travel
                // is left as it was.
                self.state.wheel_vertical_velocity[i] = body_z;
            } else if s < 0.0 {
                self.state.travel[i] = 0.0;
                self.state.wheel_vertical_velocity[i] = body_z;
            } else if s > travel_max {
                self.state.travel[i] = travel_max;
                self.state.wheel_vertical_velocity[i] = body_z;
            } else {
                self.state.travel[i] = s;
            }
        }
        Motion { accel, barrier }
    }
}
