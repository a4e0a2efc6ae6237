//! Phase 3, ground contact: for each wheel, the ground under its centre, the tyre's
//! deflection and radial load, the contact frame (forward, lateral, normal), the contact
//! patch velocity and the slip prediction at the start-of-step spin rate.
//!
//! Inputs: the start state, the body frame, the road-wheel steer angles, the track (one
//! query for the four wheels, [`Track::ground4`]; the wheels' ground hints are updated). Outputs: each [`WheelWork`]'s contact fields, load,
//! slip, and the Magic Formula's four-wheel inputs ([`TyreInputs`]) with the surface's effect
//! on grip, peak slip and relaxation ([`crate::surface`]), among them each tyre's
//! inclination to the ground: its camber relative to the body (static plus gain with travel)
//! plus the body's lean over the ground there.

use super::{StepFrame, WheelWork, MOUNT_MIRROR};
use crate::car::Car;
use crate::math::{self, Vec3};
use crate::surface::SurfaceEffect;
use crate::track::Track;

/// The four wheels' Magic Formula inputs (zero for a wheel off the ground).
pub(in crate::car) struct TyreInputs {
    pub kappa: [f64; 4],
    pub tan_alpha: [f64; 4],
    pub loads: [f64; 4],
    /// Inclination angle in the tyre's own (mirrored for the right side) ISO frame, rad.
    pub gamma: [f64; 4],
    pub surface_grip: [f64; 4],
    pub rolling_coefficient: [f64; 4],
}

impl Car {
    pub(in crate::car) fn wheel_contacts(
        &mut self,
        track: &Track,
        frame: &StepFrame,
        steer_sin_cos: [(f64, f64); 4],
        work: &mut [WheelWork; 4],
        dt: f64,
    ) -> TyreInputs {
        let st = &self.state;
        let (xb, yb, zb, omega_w) = (frame.xb, frame.yb, frame.zb, frame.omega_w);
        let mut inputs = TyreInputs {
            kappa: [0.0; 4],
            tan_alpha: [0.0; 4],
            loads: [0.0; 4],
            gamma: [0.0; 4],
            surface_grip: [0.0; 4],
            rolling_coefficient: [0.0; 4],
        };
        // The wheel centre is `travel` along body z from the droop hardpoint. The four
        // wheels' ground comes from one query (the same as four single ones, cheaper).
        let r_wcs = [0, 1, 2, 3].map(|i| frame.hardpoints[i] + zb * st.travel[i]);
        let centres = r_wcs.map(|r_wc| st.position + r_wc);
        let grounds = track.ground4(centres.map(|c| [c.x, c.y]), &mut self.wheel_hints);
        for i in 0..4 {
            let w = &mut work[i];
            let (r_wc, centre, ground) = (r_wcs[i], centres[i], &grounds[i]);
            let n = Vec3::from_array(ground.normal);
            let distance = (centre.z - ground.height_m) * n.z;
            // The tyre is a disc in the wheel plane, not a sphere: leaned over by `lean` (the
            // ground normal along the body's y axis; steer ignored) its lowest point is nearer
            // the centre, so a car on its side rests on its body, not on tyres pressed sideways
            // into the ground. Below 3 degrees of lean a series replaces the square root
            // (error under 1e-6 of the radius).
            let lean = n.dot(yb);
            let lean2 = lean * lean;
            let reach = if lean2 < 0.0025 {
                1.0 - 0.5 * lean2
            } else {
                (1.0 - lean2).sqrt()
            };
            let deflection = self.tyre.radius_m * reach - distance;
            let v_body_wc = st.velocity + omega_w.cross(r_wc);
            let v_wc = v_body_wc + zb * (st.wheel_vertical_velocity[i] - v_body_wc.dot(zb));
            w.normal = n;
            w.surface = ground.surface.kind;
            w.radius = self.tyre.radius_m - deflection.max(0.0);
            let (sin_d, cos_d) = steer_sin_cos[i];
            let heading = xb * cos_d + yb * sin_d;
            w.forward = (heading - n * heading.dot(n)).normalized_or(xb);
            w.lateral = n.cross(w.forward);
            w.contact_offset = r_wc - n * distance;
            if deflection > 0.0 {
                let rate = -v_wc.dot(n);
                let stiffness = st.tyres[i].stiffness_scale;
                w.load = self
                    .tyre
                    .radial_load_scaled(i / 2, deflection, rate, stiffness);
            }
            inputs.surface_grip[i] = ground.surface.grip_scale;
            inputs.rolling_coefficient[i] =
                self.tyre.rolling_resistance + ground.surface.rolling_resistance;
            if w.load > 0.0 {
                let v_cp = st.velocity + omega_w.cross(w.contact_offset);
                w.vx = v_cp.dot(w.forward);
                w.vy = v_cp.dot(w.lateral);
                // The ground's effect (crate::surface): grip with water and hydroplaning, the
                // force curve stretched along the slips by the peak-slip scale, and relaxation
                // lengths scaled, which is the slip state's law run on velocities divided by
                // the scale (so the spin-rate slope is divided by both).
                let pressure = self.tyre_pressure_kpa(i);
                let effect = SurfaceEffect::of(&ground.surface, w.vx.abs(), pressure);
                let (relax, stretch) = (effect.relaxation_inverse, effect.slip_stretch_inverse);
                let omega = st.wheel_omega[i] * relax;
                let (vx, vy) = (w.vx * relax, w.vy * relax);
                let mut pred = st.slip[i].predict(&self.tyre, i / 2, [vx, vy], omega, w.radius, dt);
                pred.dkappa_domega *= relax * stretch;
                w.slip = pred;
                w.relaxation_inverse = relax;
                inputs.surface_grip[i] = effect.grip_scale;
                inputs.kappa[i] = pred.kappa_at_omega0 * stretch;
                inputs.tan_alpha[i] = MOUNT_MIRROR[i] * pred.alpha * stretch;
                inputs.loads[i] = w.load;
                // ISO inclination: the body's lean (+ rolls the top of a wheel fixed to the
                // body to the right) minus the vehicle camber on the left, plus it on the
                // right; mirrored for the right-side tyre: lean * mirror - camber.
                // (A car exactly on its side has reach 0, or NaN from rounding past |lean| = 1:
                // the floor keeps the angle finite; the Magic Formula clamps it to its range.)
                let lean_angle = math::atan(lean / reach.max(1e-9));
                let camber = self.corners[i].alignment.camber_at(st.travel[i]);
                inputs.gamma[i] = MOUNT_MIRROR[i] * lean_angle - camber;
            }
        }
        inputs
    }
}
