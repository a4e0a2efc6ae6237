//! Phase 5, wheel spin: the drivetrain's implicit update of the engine and the four wheels'
//! spin rates, then each wheel's new spin rate committed to the state with its tyre slip
//! state and the longitudinal force corrected to the new spin rate (linearised).
//!
//! Inputs: the controls, the [`WheelSpinInput`]s, each [`WheelWork`]'s slip and force
//! slope. Outputs: the new state's `wheel_omega` and `slip` (the first writes to the new
//! state); each [`WheelWork`]'s `forces.fx`. A drivetrain fault (its quarantine check
//! point) is recorded in the car's report.

use super::WheelWork;
use crate::car::Car;
use crate::controls::Controls;
use crate::drivetrain::WheelSpinInput;
use crate::quarantine::StepPhase;

impl Car {
    /// Runs the drivetrain; returns the new wheel spin rates (finite: the drivetrain replaces
    /// bad ones with rest and records what it replaced).
    pub(in crate::car) fn drivetrain_step(
        &mut self,
        controls: &Controls,
        spin: &[WheelSpinInput; 4],
        dt: f64,
    ) -> [f64; 4] {
        let new_omega = self.drivetrain.step(controls, spin, dt);
        if let Some((quantity, wheel)) = self.drivetrain.take_fault() {
            self.record_fault(StepPhase::Drivetrain, quantity, wheel, false);
        }
        new_omega
    }

    /// Commits the new spin rates and slip states to the new state.
    pub(in crate::car) fn commit_wheel_spin(
        &mut self,
        work: &mut [WheelWork; 4],
        new_omega: [f64; 4],
        dt: f64,
    ) {
        for (i, w) in work.iter_mut().enumerate() {
            let omega1 = new_omega[i];
            let omega0 = self.state.wheel_omega[i];
            self.state.wheel_omega[i] = omega1;
            if w.load > 0.0 {
                w.forces.fx += w.dfx_domega * (omega1 - omega0);
                // On the slip state's scaled velocities (see the contact phase).
                let (vx, omega) = (w.vx * w.relaxation_inverse, omega1 * w.relaxation_inverse);
                self.state.slip[i].commit(&self.tyre, &w.slip, vx, omega, w.radius, dt);
            } else {
                self.state.slip[i] = Default::default();
            }
        }
    }
}
