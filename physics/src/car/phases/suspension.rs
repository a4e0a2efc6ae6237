//! Phase 2, suspension: each corner's spring, bump-stop and damper force from its travel and
//! travel rate, then the anti-roll bars (force proportional to the left/right travel
//! difference).
//!
//! Inputs: the start state's travel and unsprung vertical velocities, the body frame.
//! Outputs: `travel_rate` and `suspension_force` set in each wheel's [`WheelWork`] (the
//! caller's fresh record, filled in place: returning the four records by value cost two
//! `memcpy` calls per step).

use super::{StepFrame, WheelWork};
use crate::car::Car;

impl Car {
    pub(in crate::car) fn suspension_forces(
        &self,
        frame: &StepFrame,
        work: &mut [WheelWork; 4],
        dt: f64,
    ) {
        let st = &self.state;
        // A hardpoint's velocity along body z is v.zb + (omega x r).zb, the latter in body
        // coordinates (rotations keep cross and dot products): no rotated vectors needed.
        let v_z = st.velocity.dot(frame.zb);
        let w_body = frame.w_body;
        for (i, w) in work.iter_mut().enumerate() {
            let corner = &self.corners[i];
            let d = corner.droop_position;
            let s_dot = st.wheel_vertical_velocity[i] - (v_z + (w_body.x * d.y - w_body.y * d.x));
            w.travel_rate = s_dot;
            w.suspension_force = corner.suspension.spring_force(st.travel[i])
                + corner.suspension.damper_force(s_dot, dt);
        }
        for axle in [0, 2] {
            let diff = st.travel[axle] - st.travel[axle + 1];
            let f = self.corners[axle].anti_roll_bar * diff;
            work[axle].suspension_force += f;
            work[axle + 1].suspension_force -= f;
        }
    }
}
