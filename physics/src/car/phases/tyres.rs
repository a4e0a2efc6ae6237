//! Phase 4, tyre forces: the Magic Formula for the four wheels side by side (their
//! independent chains overlap), mirrored for the right-side tyres, and from them each wheel's
//! spin-rate input for the drivetrain (road torque and its slope, brake plus rolling
//! resistance torque).
//!
//! Inputs: [`TyreInputs`] and the contact fields of each [`WheelWork`], the brake torques,
//! each tyre's condition grip (temperature, pressure, wear: `state.tyres`).
//! Outputs: each [`WheelWork`]'s `alpha`, `forces`, `dfx_domega`; the [`WheelSpinInput`]s.

use super::contact::TyreInputs;
use super::{WheelWork, MOUNT_MIRROR};
use crate::car::Car;
use crate::drivetrain::WheelSpinInput;
use crate::math;

impl Car {
    pub(in crate::car) fn tyre_forces(
        &self,
        inputs: &TyreInputs,
        work: &mut [WheelWork; 4],
        brake_nm: [f64; 4],
    ) -> [WheelSpinInput; 4] {
        // Surface grip times each tyre's condition (temperature, pressure, wear).
        let grip: [f64; 4] =
            std::array::from_fn(|i| inputs.surface_grip[i] * self.state.tyres[i].grip);
        let forces = self.tyre.forces4(
            inputs.kappa,
            inputs.tan_alpha,
            inputs.gamma,
            inputs.loads,
            grip,
        );
        let mut spin = [WheelSpinInput::default(); 4];
        for i in 0..4 {
            let w = &mut work[i];
            let omega0 = self.state.wheel_omega[i];
            let mut road_torque = 0.0;
            let mut slope = 0.0;
            if w.load > 0.0 {
                w.alpha = math::atan(w.slip.alpha);
                w.forces = forces[i];
                w.forces.fy *= MOUNT_MIRROR[i];
                w.forces.mz *= MOUNT_MIRROR[i];
                w.dfx_domega = w.forces.dfx_dkappa.max(0.0) * w.slip.dkappa_domega;
                road_torque = -w.forces.fx * w.radius;
                slope = -w.dfx_domega * w.radius;
            }
            let rolling = inputs.rolling_coefficient[i] * w.load * w.radius;
            spin[i] = WheelSpinInput {
                omega_radps: omega0,
                inertia_kgm2: self.tyre.spin_inertia,
                road_torque_nm: road_torque,
                road_torque_slope: slope,
                brake_torque_nm: brake_nm[i] + rolling,
            };
        }
        spin
    }
}
