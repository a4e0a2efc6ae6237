//! Rate-limited actuator command tracker: moves every actuator's commanded position toward
//! its target without ever exceeding the position range, the top speed or the acceleration.
//!
//! Per actuator and step of `dt`: target clamped to the usable range (a non-finite target
//! holds the position), desired speed `sign(e) * min(v_max, v_brake(|e|), |e| / dt)` where
//! `v_brake` is the discrete-time braking speed (stops at the target without overshoot),
//! velocity change limited to `a_max dt`, velocity limited to `v_max`. So no step is ever
//! larger than `v_max dt`.
//!
//! Units are the actuator's own (m or rad). The tracker is `Copy`: the output writer takes
//! over the final parking ramp from the RT thread's last state.

use rig_config::motion::ActuatorLimits;

use super::kinematics::MAX_ACTUATORS;

/// Commanded positions and velocities of a platform's actuators.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tracker {
    /// Commanded positions, m or rad from neutral.
    pub position: [f64; MAX_ACTUATORS],
    /// Commanded velocities, m/s or rad/s.
    pub velocity: [f64; MAX_ACTUATORS],
    /// Actuators in use.
    pub count: usize,
    /// Limits shared by all actuators.
    pub limits: ActuatorLimits,
    /// Step, s.
    pub dt_s: f64,
}

impl Tracker {
    /// A tracker at rest at `position`.
    pub fn new(
        limits: ActuatorLimits,
        count: usize,
        dt_s: f64,
        position: [f64; MAX_ACTUATORS],
    ) -> Tracker {
        Tracker {
            position,
            velocity: [0.0; MAX_ACTUATORS],
            count,
            limits,
            dt_s,
        }
    }

    /// The park position of every actuator, inside the usable range.
    pub fn park_position(limits: &ActuatorLimits) -> [f64; MAX_ACTUATORS] {
        let park = (limits.park_position * limits.half_travel)
            .clamp(-limits.usable_half_travel, limits.usable_half_travel);
        [park; MAX_ACTUATORS]
    }

    /// One step toward `target`.
    pub fn step(&mut self, target: &[f64; MAX_ACTUATORS]) {
        let range = self.limits.usable_half_travel;
        let (v_max, a_max, dt) = (self.limits.max_speed, self.limits.max_accel, self.dt_s);
        for (i, &wanted_position) in target.iter().enumerate().take(self.count) {
            let goal = if wanted_position.is_finite() {
                wanted_position.clamp(-range, range)
            } else {
                self.position[i]
            };
            let error = goal - self.position[i];
            // Fastest speed from which a discrete deceleration of a_max per step still stops
            // at the goal: v = a dt (sqrt(1/4 + 2 |e| / (a dt^2)) - 1/2).
            let a_dt = a_max * dt;
            let braking = a_dt * ((0.25 + 2.0 * error.abs() / (a_dt * dt)).sqrt() - 0.5);
            let speed = v_max.min(braking).min(error.abs() / dt);
            let wanted = speed.copysign(error);
            let dv = (wanted - self.velocity[i]).clamp(-a_max * dt, a_max * dt);
            self.velocity[i] = (self.velocity[i] + dv).clamp(-v_max, v_max);
            let next = self.position[i] + self.velocity[i] * dt;
            if next.abs() > range {
                self.position[i] = next.clamp(-range, range);
                self.velocity[i] = 0.0;
            } else {
                self.position[i] = next;
            }
        }
    }

    /// True when every actuator is within `tolerance` of `target` and nearly still.
    pub fn reached(&self, target: &[f64; MAX_ACTUATORS], tolerance: f64) -> bool {
        let range = self.limits.usable_half_travel;
        (0..self.count).all(|i| {
            (self.position[i] - target[i].clamp(-range, range)).abs() <= tolerance
                && self.velocity[i].abs() <= self.limits.max_accel * self.dt_s * 2.0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ActuatorLimits {
        ActuatorLimits {
            half_travel: 0.05,
            usable_half_travel: 0.0475,
            max_speed: 0.2,
            max_accel: 2.0,
            park_position: -1.0,
        }
    }

    #[test]
    fn steps_respect_speed_and_acceleration_and_arrive() {
        let mut t = Tracker::new(limits(), 2, 0.001, Tracker::park_position(&limits()));
        assert_eq!(t.position[0], -0.0475);
        let target = [0.04, -0.01, 0.0, 0.0, 0.0, 0.0];
        let mut previous = t;
        for _ in 0..2000 {
            t.step(&target);
            for i in 0..2 {
                let step = t.position[i] - previous.position[i];
                assert!(step.abs() <= 0.2 * 0.001 + 1e-15);
                let accel = (t.velocity[i] - previous.velocity[i]) / 0.001;
                assert!(accel.abs() <= 2.0 + 1e-9);
            }
            previous = t;
        }
        assert!(t.reached(&target, 1e-9));
    }

    #[test]
    fn coarse_steps_do_not_overshoot() {
        // The writer's 100 Hz parking ramp: 10 ms steps.
        let mut t = Tracker::new(limits(), 1, 0.01, [0.04; MAX_ACTUATORS]);
        let target = Tracker::park_position(&limits());
        for _ in 0..500 {
            t.step(&target);
            assert!(
                t.position[0] >= target[0] - 1e-12,
                "overshoot to {}",
                t.position[0]
            );
        }
        assert!(t.reached(&target, 1e-9));
    }

    #[test]
    fn garbage_targets_hold_and_range_is_never_left() {
        let mut t = Tracker::new(limits(), 1, 0.001, [0.0; MAX_ACTUATORS]);
        for k in 0..3000 {
            let v = [f64::NAN, f64::INFINITY, 10.0, -10.0][k / 750];
            t.step(&[v; MAX_ACTUATORS]);
            assert!(t.position[0].is_finite() && t.position[0].abs() <= 0.0475);
        }
    }
}
