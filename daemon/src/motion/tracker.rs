//! Rate-limited actuator command tracker: moves every actuator's commanded position toward
//! its target without ever exceeding the position range, the top speed or the acceleration.
//!
//! The tracker is a discrete double integrator: each step of `dt` picks a new velocity `v`
//! (changed by at most `a_max dt`, at most `v_max`) and moves by `v dt`. Its exact discrete
//! stopping distance from `v = (m + f) a_max dt` (integer `m`, `0 <= f < 1`) decelerating by
//! `a_max dt` per step is `D(v) = a_max dt^2 ((m + 1) f + m (m + 1) / 2)`; the inverse,
//! [`stopping_speed`], is the fastest velocity that still stops within a distance. Per
//! actuator and step:
//! 1. target clamped to the usable range (a non-finite target holds the position);
//! 2. desired speed relative to the target: `stopping_speed(|error|)` toward it, plus the
//!    target's own velocity when it moves ([`Tracker::follow`], which closes on a quarter of
//!    the acceleration so the rest can match the target's), so it lands on the target
//!    without overshoot;
//! 3. velocity change limited to `a_max dt`, velocity to `v_max`;
//! 4. end-of-travel braking: toward either end of the usable range the velocity never
//!    exceeds `stopping_speed(distance to that end)`. Because `D(v) = v dt + D(v - a_max dt)`
//!    this bound is always reachable within `a_max dt` of the previous velocity, so the
//!    actuator arrives at the end of travel with zero velocity: position, velocity AND
//!    acceleration limits hold on every step, whatever the target does.
//!
//! Units are the actuator's own (m or rad). The tracker is `Copy`: the output writer takes
//! over the final parking ramp from the RT thread's last state, stepping at the same `dt`.

use rig_config::motion::ActuatorLimits;

use super::kinematics::MAX_ACTUATORS;

/// Share of the acceleration limit [`Tracker::follow`] closes a gap with (measured: joining
/// a 1.8 m/s^2 sine with a 2 m/s^2 limit locks in 0.53 s at 1/4, 2.1 s at 1/2, never at 1).
pub const FOLLOW_CLOSING_SHARE: f64 = 0.25;

/// The fastest speed (>= 0) from which decelerating by `accel * dt` every step of `dt`
/// stops within `distance` (exact for the discrete integrator `x += v dt`).
pub fn stopping_speed(distance: f64, accel: f64, dt: f64) -> f64 {
    // Also 0 for a NaN distance.
    if distance.is_nan() || distance <= 0.0 {
        return 0.0;
    }
    let unit = accel * dt * dt;
    let u = distance / unit;
    // m: the largest integer with m (m + 1) / 2 <= u (corrected for rounding of the sqrt).
    let mut m = ((8.0 * u + 1.0).sqrt() * 0.5 - 0.5).floor().max(0.0);
    if m * (m + 1.0) * 0.5 > u {
        m -= 1.0;
    } else if (m + 1.0) * (m + 2.0) * 0.5 <= u {
        m += 1.0;
    }
    let f = ((u - m * (m + 1.0) * 0.5) / (m + 1.0)).clamp(0.0, 1.0);
    (m + f) * accel * dt
}

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

    /// One step toward a resting `target`.
    pub fn step(&mut self, target: &[f64; MAX_ACTUATORS]) {
        let closing_accel = self.limits.max_accel;
        self.track(target, &[0.0; MAX_ACTUATORS], closing_accel);
    }

    /// One step toward a target that is at `target` at the end of this step and moves at
    /// `target_velocity` (the tracker matches both position and velocity when it can). A
    /// non-finite target or velocity holds the position.
    ///
    /// The gap is closed on a braking curve of [`FOLLOW_CLOSING_SHARE`] of the acceleration
    /// limit; the rest is left to keep pace with the target's own acceleration (closing at
    /// the full limit overshoots a target that accelerates meanwhile, and the tracker then
    /// circles it without ever sitting on it).
    pub fn follow(
        &mut self,
        target: &[f64; MAX_ACTUATORS],
        target_velocity: &[f64; MAX_ACTUATORS],
    ) {
        let closing_accel = FOLLOW_CLOSING_SHARE * self.limits.max_accel;
        self.track(target, target_velocity, closing_accel);
    }

    /// One step toward a moving target, closing the gap on the braking curve of
    /// `closing_accel`.
    fn track(
        &mut self,
        target: &[f64; MAX_ACTUATORS],
        target_velocity: &[f64; MAX_ACTUATORS],
        closing_accel: f64,
    ) {
        let range = self.limits.usable_half_travel;
        let (v_max, a_max, dt) = (self.limits.max_speed, self.limits.max_accel, self.dt_s);
        for i in 0..self.count {
            let p = self.position[i];
            let (goal, goal_velocity) = if target[i].is_finite() && target_velocity[i].is_finite() {
                (
                    target[i].clamp(-range, range),
                    target_velocity[i].clamp(-v_max, v_max),
                )
            } else {
                (p, 0.0)
            };
            // Relative to the moving goal, where it was one step ago: landing on it this step
            // means closing that error at the relative speed error / dt.
            let error = goal - goal_velocity * dt - p;
            let closing = stopping_speed(error.abs(), closing_accel, dt).copysign(error);
            let wanted = goal_velocity + closing;
            let dv = (wanted - self.velocity[i]).clamp(-a_max * dt, a_max * dt);
            let upper = stopping_speed(range - p, a_max, dt).min(v_max);
            let lower = -stopping_speed(range + p, a_max, dt).min(v_max);
            let v = (self.velocity[i] + dv).clamp(lower, upper);
            // Rounding backstop only: the braking above already stops inside the range.
            let next = (p + v * dt).clamp(-range, range);
            self.velocity[i] = (next - p) / dt;
            self.position[i] = next;
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

    const DT: f64 = 0.001;
    const V_MAX: f64 = 0.2;
    const A_MAX: f64 = 2.0;
    const RANGE: f64 = 0.0475;

    fn limits() -> ActuatorLimits {
        ActuatorLimits {
            half_travel: 0.05,
            usable_half_travel: RANGE,
            max_speed: V_MAX,
            max_accel: A_MAX,
            park_position: -1.0,
            homing_speed: 0.02,
        }
    }

    /// Position, step (velocity) and second-difference (acceleration) limits on every
    /// sample of actuator 0 .. count, at step `dt`.
    struct Limits {
        previous: Tracker,
        previous_step: Option<[f64; MAX_ACTUATORS]>,
        dt: f64,
        peak_accel: f64,
    }

    impl Limits {
        fn new(t: &Tracker) -> Limits {
            Limits {
                previous: *t,
                previous_step: None,
                dt: t.dt_s,
                peak_accel: 0.0,
            }
        }

        fn check(&mut self, t: &Tracker, what: &str) {
            let mut steps = [0.0; MAX_ACTUATORS];
            for i in 0..t.count {
                let p = t.position[i];
                assert!(p.abs() <= RANGE, "{what}: actuator {i} at {p}");
                steps[i] = p - self.previous.position[i];
                assert!(
                    steps[i].abs() <= V_MAX * self.dt * (1.0 + 1e-9),
                    "{what}: step {}",
                    steps[i]
                );
                if let Some(previous) = self.previous_step {
                    let accel = (steps[i] - previous[i]) / (self.dt * self.dt);
                    self.peak_accel = self.peak_accel.max(accel.abs());
                    assert!(
                        accel.abs() <= A_MAX * (1.0 + 1e-6),
                        "{what}: actuator {i} accel {accel} at {p}"
                    );
                }
            }
            self.previous = *t;
            self.previous_step = Some(steps);
        }
    }

    /// The exact discrete stopping distance from `v` (the definition `stopping_speed`
    /// inverts): steps of v, v - a dt, ... while positive.
    fn stopping_distance(v: f64, a: f64, dt: f64) -> f64 {
        let mut d = 0.0;
        let mut v = v;
        while v > 0.0 {
            d += v * dt;
            v -= a * dt;
        }
        d
    }

    #[test]
    fn stopping_speed_inverts_the_discrete_stopping_distance() {
        for dt in [0.001, 0.01] {
            for k in 0..=400 {
                let v = f64::from(k) * 0.0005;
                let d = stopping_distance(v, A_MAX, dt);
                let s = stopping_speed(d, A_MAX, dt);
                assert!((s - v).abs() < 1e-9, "dt {dt} v {v}: d {d} -> {s}");
            }
        }
        assert_eq!(stopping_speed(0.0, A_MAX, DT), 0.0);
        assert_eq!(stopping_speed(-1.0, A_MAX, DT), 0.0);
        assert_eq!(stopping_speed(f64::NAN, A_MAX, DT), 0.0);
        // Continuous limit: sqrt(2 a d) - a dt / 2 for long distances.
        let s = stopping_speed(0.01, A_MAX, DT);
        assert!((s - ((2.0 * A_MAX * 0.01f64).sqrt() - A_MAX * DT / 2.0)).abs() < 1e-6);
    }

    #[test]
    fn steps_respect_speed_and_acceleration_and_arrive() {
        let mut t = Tracker::new(limits(), 2, DT, Tracker::park_position(&limits()));
        assert_eq!(t.position[0], -RANGE);
        let target = [0.04, -0.01, 0.0, 0.0, 0.0, 0.0];
        let mut check = Limits::new(&t);
        for _ in 0..2000 {
            t.step(&target);
            check.check(&t, "ramp");
        }
        assert!(t.reached(&target, 1e-9));
        // The ramp used the whole acceleration budget.
        assert!(check.peak_accel > 0.99 * A_MAX, "{}", check.peak_accel);
    }

    #[test]
    fn target_past_the_end_of_travel_brakes_into_the_end_with_zero_speed() {
        // At full speed toward +end, the target jumps far past the end: the tracker must
        // brake ahead (v <= stopping_speed(distance left)) and arrive at rest.
        let mut t = Tracker::new(limits(), 1, DT, [-RANGE; MAX_ACTUATORS]);
        let mut check = Limits::new(&t);
        for k in 0..3000 {
            let target = if k < 300 { 0.03 } else { 10.0 };
            t.step(&[target; MAX_ACTUATORS]);
            check.check(&t, "jump past the end");
        }
        assert_eq!(t.position[0], RANGE);
        assert_eq!(t.velocity[0], 0.0);
        // Then straight back past the other end.
        for _ in 0..3000 {
            t.step(&[-10.0; MAX_ACTUATORS]);
            check.check(&t, "jump past the other end");
        }
        assert_eq!(t.position[0], -RANGE);
    }

    #[test]
    fn a_target_racing_into_the_end_never_forces_a_hard_stop() {
        // The goal runs at full speed into (and past) the end of travel and still claims to
        // move on: locked onto it, the tracker must brake ahead of the end on its own and
        // arrive at rest within its acceleration limit.
        let mut t = Tracker::new(limits(), 1, DT, [-0.04; MAX_ACTUATORS]);
        let mut check = Limits::new(&t);
        for k in 1..=1000 {
            let goal = -0.04 + V_MAX * DT * f64::from(k);
            t.follow(&[goal; MAX_ACTUATORS], &[V_MAX; MAX_ACTUATORS]);
            check.check(&t, "racing into the end");
        }
        assert_eq!(t.position[0], RANGE);
        assert_eq!(t.velocity[0], 0.0);
    }

    #[test]
    fn follow_locks_onto_a_moving_target() {
        // Constant velocity: exact lock.
        let mut t = Tracker::new(limits(), 1, DT, [0.0; MAX_ACTUATORS]);
        let mut check = Limits::new(&t);
        for k in 1..=400 {
            let goal = -0.03 + 0.05 * f64::from(k) * DT;
            t.follow(&[goal; MAX_ACTUATORS], &[0.05; MAX_ACTUATORS]);
            check.check(&t, "constant velocity");
        }
        let goal = -0.03 + 0.05 * 400.0 * DT;
        assert!((t.position[0] - goal).abs() < 1e-12);
        assert!((t.velocity[0] - 0.05).abs() < 1e-9);
        // A cue-like sine (3 cm, 0.5 Hz): within 1 um and 1 mm/s after 3 s.
        let w = std::f64::consts::PI;
        for k in 0..3000 {
            let s = f64::from(k) * DT;
            t.follow(
                &[0.03 * (w * s).sin(); MAX_ACTUATORS],
                &[0.03 * w * (w * s).cos(); MAX_ACTUATORS],
            );
            check.check(&t, "sine");
        }
        let s = 2999.0 * DT;
        assert!((t.position[0] - 0.03 * (w * s).sin()).abs() < 1e-6);
        assert!((t.velocity[0] - 0.03 * w * (w * s).cos()).abs() < 1e-3);
    }

    #[test]
    fn coarse_steps_do_not_overshoot() {
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
        let mut t = Tracker::new(limits(), 1, DT, [0.0; MAX_ACTUATORS]);
        let mut check = Limits::new(&t);
        for k in 0..3000 {
            let v = [f64::NAN, f64::INFINITY, 10.0, -10.0][k / 750];
            t.step(&[v; MAX_ACTUATORS]);
            check.check(&t, "garbage");
        }
    }
}
