//! Phase 6, chassis forces: each wheel's tyre force (its in-plane part on the body at the
//! contact point, its lateral part raised to the axle's roll centre with the links' vertical
//! force between body and wheel, its body-z part on the unsprung mass) and suspension force (on the body at
//! the hardpoint, held at a travel limit by what holds the wheel there), aerodynamic drag and
//! downforce, and the body's own contact with the ground when the car is off its wheels.
//!
//! Inputs: the body frame, each [`WheelWork`], the start pose, the speed, the track.
//! Outputs: [`ChassisLoads`]; each [`WheelWork`]'s `suspension_force` and `at_limit` at a
//! travel limit; the body contact's depth and energy records.

use super::{StartPose, StepFrame, WheelWork, GRAVITY};
use crate::car::body_contact::GroundPlane;
use crate::car::Car;
use crate::math::Vec3;
use crate::track::Track;

/// Total force and torque on the chassis and the unsprung masses' accelerations.
pub(in crate::car) struct ChassisLoads {
    /// Force on the chassis, world, N.
    pub force: Vec3,
    /// Torque about the centre of gravity, world, N m.
    pub torque: Vec3,
    /// Acceleration of each unsprung mass along body z, m/s^2.
    pub wheel_accel: [f64; 4],
}

impl Car {
    pub(in crate::car) fn chassis_forces(
        &mut self,
        track: &Track,
        frame: &StepFrame,
        work: &mut [WheelWork; 4],
        start: &StartPose,
        speed: f64,
    ) -> ChassisLoads {
        let (xb, yb, zb) = (frame.xb, frame.yb, frame.zb);
        let mut force = Vec3::ZERO;
        let mut torque = Vec3::ZERO;
        let mut wheel_accel = [0.0; 4];
        let gravity_z = GRAVITY.dot(zb);
        for i in 0..4 {
            let w = &mut work[i];
            let tyre_force = w.forward * w.forces.fx + w.lateral * w.forces.fy + w.normal * w.load;
            let along_z = tyre_force.dot(zb);
            let in_plane = tyre_force - zb * along_z;
            force += in_plane;
            torque += w.contact_offset.cross(in_plane) + w.normal * w.forces.mz;
            // Roll centre `rc` above the ground: the links bring the tyre's lateral force into
            // the body there (its roll moment about the centre of gravity shrinks by rc times
            // the force), and its vertical part, the force along the link from the contact
            // patch to the roll centre, pushes body and wheel apart without the spring
            // (geometric load transfer; jacking where the two sides' forces differ).
            let corner = &self.corners[i];
            let rc = corner.alignment.roll_centre_height_m;
            let mut link_lift = 0.0;
            if rc != 0.0 {
                let lateral = in_plane.dot(yb);
                torque += xb * (-rc * lateral);
                link_lift = -rc * lateral / corner.droop_position.y;
                force += zb * link_lift;
                torque += yb * (-link_lift * corner.droop_position.x);
            }
            // At a travel limit the wheel rides with the body, so the limit passes on the
            // force that holds the wheel there (tyre load plus the wheel's weight), not the
            // spring's: at full bump a bottomed tyre then stops the body (not only the unsprung
            // mass, the body driving the wheel through the ground), and at full droop the
            // spring's preload no longer pushes an airborne body (energy from nowhere: the
            // wheel's reaction is discarded at the limit).
            let held = along_z + self.corners[i].suspension.unsprung_mass_kg * gravity_z;
            let travel_max = self.corners[i].suspension.travel_m;
            if (start.travel[i] >= travel_max && held > w.suspension_force)
                || (start.travel[i] <= 0.0 && held < w.suspension_force)
            {
                w.suspension_force = held;
                w.at_limit = true;
            }
            let r_hp = frame.hardpoints[i];
            let suspension = zb * w.suspension_force;
            force += suspension;
            torque += r_hp.cross(suspension);
            let m_u = self.corners[i].suspension.unsprung_mass_kg;
            wheel_accel[i] = (along_z - w.suspension_force - link_lift) / m_u + gravity_z;
        }

        // Aerodynamics: drag at the centre of gravity, downforce at the axles.
        if speed > 1e-6 {
            force += start.velocity * (-self.aero.drag_n(speed) / speed);
            let [df_front, df_rear] = self.aero.downforce_n(start.velocity.dot(xb));
            for (axle_x, df) in self.aero_axles_x_m.iter().zip([df_front, df_rear]) {
                force += zb * -df;
                // (xb axle_x) x (-zb df) = yb axle_x df: the axles lie on the body's x axis.
                torque += yb * (axle_x * df);
            }
        }

        // Body on the ground (a car off its wheels); free while it is on them. The planes are
        // read straight from the wheels' records (no gathered copy).
        let plane = |k: usize| GroundPlane {
            offset: work[k].contact_offset,
            normal: work[k].normal,
        };
        self.body_contact.apply(
            track,
            &frame.rot,
            start.position,
            start.velocity,
            frame.omega_w,
            plane,
            &self.wheel_hints,
            &mut force,
            &mut torque,
        );
        ChassisLoads {
            force,
            torque,
            wheel_accel,
        }
    }
}
