//! Phase 1, driver inputs: the steering rim angle and the front road-wheel angles from the
//! steering control, each wheel's toe (static and with travel) added, and the four brake
//! torques from the pedal and handbrake.
//!
//! Inputs: the controls, the last step's wheel telemetry (the brakes read wheel speeds), the
//! speed, the start state's travel. Outputs: [`DriverInputs`]; updates the steering's cached angles and the brakes'
//! line pressure.

use super::MOUNT_MIRROR;
use crate::car::Car;
use crate::controls::Controls;
use crate::math;

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
        let mut steer_sin_cos = [front_l, front_r, (0.0, 1.0), (0.0, 1.0)];
        if self.has_toe {
            // Toe-in turns a left wheel to the right (negative yaw) and a right one to the left.
            for (i, (sin, cos)) in steer_sin_cos.iter_mut().enumerate() {
                let toe = self.corners[i].alignment.toe_at(self.state.travel[i]);
                let (sin_t, cos_t) = math::sin_cos(-MOUNT_MIRROR[i] * toe);
                (*sin, *cos) = (*sin * cos_t + *cos * sin_t, *cos * cos_t - *sin * sin_t);
            }
        }
        DriverInputs {
            rim_rad,
            steer_sin_cos,
            speed_mps,
            brake_nm,
        }
    }
}
