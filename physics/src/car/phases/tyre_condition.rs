//! Phase 5b, tyre condition: each tyre's temperatures, pressure and wear advanced by the
//! step's slip and rolling power ([`crate::tyre::thermal`]); the next step's forces and
//! vertical springs read the grip and stiffness factors this leaves in the state.
//!
//! Inputs: each [`WheelWork`]'s forces (with the longitudinal force at the new spin rate),
//! contact-patch velocities, load and radius; the new spin rates; the car's speed; the
//! track's air and road temperatures. Outputs: the new state's `tyres`.

use super::WheelWork;
use crate::car::Car;
use crate::track::Track;
use crate::tyre::thermal::HeatInput;

impl Car {
    pub(in crate::car) fn update_tyre_condition(
        &mut self,
        track: &Track,
        work: &[WheelWork; 4],
        speed_mps: f64,
        dt: f64,
    ) {
        let model = &self.tyre.thermal;
        if !model.enabled {
            return;
        }
        let air = model.air_conductances_w_per_k(speed_mps);
        let temperatures = track.temperatures_c();
        for (i, w) in work.iter().enumerate() {
            // Slip velocities: the contact patch's speed over the road relative to the
            // tread's (omega r - vx forward, vy sideways).
            let slip_long = self.state.wheel_omega[i] * w.radius - w.vx;
            let input = HeatInput {
                slip_power_w: (w.forces.fx * slip_long).abs() + (w.forces.fy * w.vy).abs(),
                rolling_power_w: self.tyre.rolling_resistance * w.load * w.vx.abs(),
                in_contact: w.load > 0.0,
            };
            model.update(&mut self.state.tyres[i], &input, air, temperatures, dt);
        }
    }
}
