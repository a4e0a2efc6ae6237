//! The engine: torque curve, internal drag, idle control, rev limiter, stall and starting.
//!
//! Torques at the crank, N m; speeds in rad/s inside, rpm at the spec boundary.
//! - Combustion torque (explicit in the step): `throttle x (curve(rpm) + drag(rpm, full))`, so a
//!   full-throttle engine nets exactly the dyno curve. It fades linearly to zero over the last
//!   [`LIMITER_BAND_RPM`] below the limiter (a smooth limiter: no bounce, no chatter at 1 kHz).
//! - Drag `friction + friction/krpm + (1 - throttle) x engine_brake/krpm` is a friction torque
//!   the driveline solver applies with velocity reversal, so a stopped engine stays stopped and
//!   holds a parked car in gear.
//! - Idle control: a running engine gets at least the throttle that balances drag at idle
//!   (feed-forward) plus [`IDLE_GAIN_PER_RPM`] per rpm below idle. Its torque gain is far
//!   below inertia/dt, so it is stable at 1 kHz.
//! - A running engine below `stall_rpm` stalls; with the ignition on, an engine turning at or
//!   above `stall_rpm` fires (starter or bump start). Ignition off stops combustion.

use super::spec::EngineSpec;

/// Width of the soft rev limiter, rpm.
pub const LIMITER_BAND_RPM: f64 = 150.0;
/// Idle controller's extra throttle per rpm below idle.
pub const IDLE_GAIN_PER_RPM: f64 = 1.0 / 200.0;

/// rad/s per rpm.
pub const RADPS_PER_RPM: f64 = std::f64::consts::PI / 30.0;

/// The engine's parameters and state.
#[derive(Debug, Clone)]
pub struct Engine {
    spec: EngineSpec,
    idle_feed_forward: f64,
    /// Torque-curve segment of the last step (see [`Engine::curve_segment`]): speeds change
    /// little per step, so it is checked before searching.
    last_segment: usize,
    /// Crank speed, rad/s.
    pub omega_radps: f64,
    /// Combustion enabled (not stalled, ignition on).
    pub running: bool,
}

/// The engine's torques for one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineTorques {
    /// Combustion plus starter torque, N m (applied explicitly).
    pub drive_nm: f64,
    /// Magnitude of the internal drag, N m (a friction torque for the solver).
    pub drag_nm: f64,
}

impl Engine {
    /// A running engine at idle.
    pub fn new(spec: &EngineSpec) -> Engine {
        let mut engine = Engine {
            spec: spec.clone(),
            idle_feed_forward: 0.0,
            last_segment: 0,
            omega_radps: spec.idle_rpm * RADPS_PER_RPM,
            running: true,
        };
        let idle = spec.idle_rpm;
        let drag = engine.drag_nm(idle, 0.0);
        let gross = engine.curve_nm(idle) + engine.drag_nm(idle, 1.0);
        // Throttle t with t * gross - drag(t) = 0, drag(t) linear in t.
        let brake = spec.engine_brake_nm_per_krpm * idle / 1000.0;
        engine.idle_feed_forward = (drag / (gross + brake).max(1e-9)).clamp(0.0, 1.0);
        engine
    }

    /// Puts the engine back into `start`'s state, keeping its own (equal) spec: no allocation.
    pub fn restart_from(&mut self, start: &Engine) {
        let Engine {
            spec: _,
            idle_feed_forward,
            last_segment,
            omega_radps,
            running,
        } = start;
        self.idle_feed_forward = *idle_feed_forward;
        self.last_segment = *last_segment;
        self.omega_radps = *omega_radps;
        self.running = *running;
    }

    /// Crank speed, rpm.
    pub fn rpm(&self) -> f64 {
        self.omega_radps / RADPS_PER_RPM
    }

    /// The spec this engine was built from.
    pub fn spec(&self) -> &EngineSpec {
        &self.spec
    }

    /// Full-throttle net torque at `rpm`, linearly interpolated, held flat past the ends.
    pub fn curve_nm(&self, rpm: f64) -> f64 {
        self.curve_on_segment(self.curve_segment(rpm), rpm)
    }

    /// The curve segment `rpm` falls on: 0 at or below the first point, `i` for
    /// `(rpm_{i-1}, rpm_i]`, the point count above the last point (and for NaN).
    fn curve_segment(&self, rpm: f64) -> usize {
        let xs = &self.spec.torque_curve_rpm;
        xs.iter().position(|&x| rpm <= x).unwrap_or(xs.len())
    }

    /// [`Engine::curve_segment`], trying `hint` (an interior segment) first: the same answer
    /// because the speeds strictly increase.
    fn curve_segment_near(&self, rpm: f64, hint: usize) -> usize {
        let xs = &self.spec.torque_curve_rpm;
        if hint > 0 && hint < xs.len() && xs[hint - 1] < rpm && rpm <= xs[hint] {
            hint
        } else {
            self.curve_segment(rpm)
        }
    }

    /// The curve at `rpm` on its `segment` (from [`Engine::curve_segment`]).
    fn curve_on_segment(&self, segment: usize, rpm: f64) -> f64 {
        let xs = &self.spec.torque_curve_rpm;
        let ys = &self.spec.torque_curve_nm;
        if segment == 0 {
            ys[0]
        } else if segment < xs.len() {
            let i = segment;
            let t = (rpm - xs[i - 1]) / (xs[i] - xs[i - 1]);
            ys[i - 1] + t * (ys[i] - ys[i - 1])
        } else {
            ys[ys.len() - 1]
        }
    }

    /// Internal drag magnitude at `rpm` and `throttle`, N m.
    pub fn drag_nm(&self, rpm: f64, throttle: f64) -> f64 {
        let krpm = rpm.abs() / 1000.0;
        self.spec.friction_nm
            + self.spec.friction_nm_per_krpm * krpm
            + (1.0 - throttle) * self.spec.engine_brake_nm_per_krpm * krpm
    }

    /// Throttle the idle control asks for at `rpm` (0 when not needed).
    pub fn idle_throttle(&self, rpm: f64) -> f64 {
        (self.idle_feed_forward + IDLE_GAIN_PER_RPM * (self.spec.idle_rpm - rpm)).clamp(0.0, 1.0)
    }

    /// Torques for this step from the driver's throttle, the ignition/starter and a torque cut
    /// (gear change). Changes no physical state (it remembers where on the curve it looked).
    pub fn torques(&mut self, throttle: f64, starter: bool, cut: bool) -> EngineTorques {
        let rpm = self.rpm();
        let effective = if self.running {
            throttle.max(self.idle_throttle(rpm))
        } else {
            0.0
        };
        let mut drive = 0.0;
        if self.running && !cut {
            let limiter = ((self.spec.rev_limit_rpm - rpm) / LIMITER_BAND_RPM).clamp(0.0, 1.0);
            self.last_segment = self.curve_segment_near(rpm, self.last_segment);
            let curve = self.curve_on_segment(self.last_segment, rpm);
            drive = effective * limiter * (curve + self.drag_nm(rpm, 1.0));
        }
        if starter && !self.running {
            let fade = (1.0 - rpm / self.spec.starter_max_rpm).clamp(0.0, 1.0);
            drive += self.spec.starter_torque_nm * fade;
        }
        EngineTorques {
            drive_nm: drive,
            drag_nm: self.drag_nm(rpm, effective),
        }
    }

    /// Updates running/stalled after the crank speed changed.
    pub fn update_running(&mut self, ignition: bool) {
        let rpm = self.rpm();
        self.running = ignition && rpm >= self.spec.stall_rpm;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> EngineSpec {
        EngineSpec {
            torque_curve_rpm: vec![0.0, 1000.0, 4000.0, 7000.0],
            torque_curve_nm: vec![80.0, 120.0, 200.0, 150.0],
            inertia_kgm2: 0.15,
            idle_rpm: 800.0,
            stall_rpm: 400.0,
            rev_limit_rpm: 6800.0,
            friction_nm: 10.0,
            friction_nm_per_krpm: 2.0,
            engine_brake_nm_per_krpm: 5.0,
            starter_torque_nm: 60.0,
            starter_max_rpm: 600.0,
        }
    }

    #[test]
    fn full_throttle_nets_the_curve() {
        let mut e = Engine::new(&spec());
        e.omega_radps = 2500.0 * RADPS_PER_RPM;
        let t = e.torques(1.0, false, false);
        assert!((t.drive_nm - t.drag_nm - 160.0).abs() < 1e-9, "{t:?}");
    }

    #[test]
    fn idle_feed_forward_balances_drag_at_idle() {
        let mut e = Engine::new(&spec());
        let t = e.torques(0.0, false, false);
        assert!((t.drive_nm - t.drag_nm).abs() < 1e-9, "{t:?}");
    }

    #[test]
    fn limiter_cuts_combustion_at_the_limit() {
        let mut e = Engine::new(&spec());
        e.omega_radps = 6800.0 * RADPS_PER_RPM;
        assert_eq!(e.torques(1.0, false, false).drive_nm, 0.0);
        e.omega_radps = (6800.0 - LIMITER_BAND_RPM / 2.0) * RADPS_PER_RPM;
        let half = e.torques(1.0, false, false).drive_nm;
        let expected = 0.5 * (e.curve_nm(e.rpm()) + e.drag_nm(e.rpm(), 1.0));
        assert!((half - expected).abs() < 1e-9);
    }

    #[test]
    fn stalled_engine_only_gets_the_starter() {
        let mut e = Engine::new(&spec());
        e.omega_radps = 0.0;
        e.update_running(true);
        assert!(!e.running);
        assert_eq!(e.torques(1.0, false, false).drive_nm, 0.0);
        assert_eq!(e.torques(1.0, true, false).drive_nm, 60.0);
        e.omega_radps = 450.0 * RADPS_PER_RPM;
        e.update_running(true);
        assert!(e.running);
        e.update_running(false);
        assert!(!e.running);
    }

    #[test]
    fn remembered_curve_segment_gives_the_searched_torque() {
        // Sweeps up past the last point and back down below the first, in steps that land on,
        // between and across the points; every torque equals a fresh search's bit for bit.
        let mut e = Engine::new(&spec());
        let mut rpms: Vec<f64> = (0..=160).map(|k| -500.0 + 50.0 * f64::from(k)).collect();
        rpms.extend(rpms.clone().iter().rev());
        rpms.extend([f64::NAN, 2500.0, 7000.0, 1000.0, 0.0, 999.999]);
        for rpm in rpms {
            e.omega_radps = rpm * RADPS_PER_RPM;
            let at = e.rpm();
            let drive = e.torques(1.0, false, false).drive_nm;
            let limiter = ((e.spec.rev_limit_rpm - at) / LIMITER_BAND_RPM).clamp(0.0, 1.0);
            let searched = limiter * (e.curve_nm(at) + e.drag_nm(at, 1.0));
            let same = drive.to_bits() == searched.to_bits() || drive.is_nan() && searched.is_nan();
            assert!(same, "at {at} rpm: {drive} vs {searched}");
        }
    }
}
