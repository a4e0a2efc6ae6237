//! Phase 1, driver inputs: the steering rim angle and the front road-wheel angles from the
//! steering control, and the four brake torques from the pedal and handbrake.
//!
//! Inputs: the controls, the last step's wheel telemetry (the brakes read wheel speeds), the
//! speed. Outputs: [`DriverInputs`]; updates the steering's cached angles and the brakes'
//! line pressure.

use crate::car::Car;
use crate::controls::Controls;

/// What the driver's controls give the later phases.
pub(in crate::car) struct DriverInputs {
    /// Steering rim angle, rad.
    pub rim_rad: f64,
    /// Per wheel (FL FR RL RR), sine and cosine of the road-wheel steer angle.
    pub steer_sin_cos: [(f64, f64); 4],
    /// Speed of the centre of gravity at the start of the step, m/s.
    pub speed_mps: f64,
    /// Brake torque per wheel, N m.
    pub brake_nm: [f64; 4],
}

impl Car {
    pub(in crate::car) fn driver_inputs(&mut self, controls: &Controls, dt: f64) -> DriverInputs {
        let rim_rad = self.steering.rim_angle(controls.steering);
        self.steering
            .update_front_angles(rim_rad, &mut self.front_angles);
        let [front_l, front_r] = self.front_angles.sin_cos;
        let speed_mps = self.state.velocity.length();
        let brake_nm = self.brakes.step(
            controls.brake,
            controls.handbrake,
            &self.telemetry.wheels,
            speed_mps,
            dt,
        );
        DriverInputs {
            rim_rad,
            steer_sin_cos: [front_l, front_r, (0.0, 1.0), (0.0, 1.0)],
            speed_mps,
            brake_nm,
        }
    }
}
