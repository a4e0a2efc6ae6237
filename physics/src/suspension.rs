//! One corner's suspension: spring (linear plus optional progressive term) with a preload
//! that makes the car sit at its declared static compression, bump stop, droop and bump travel
//! limits, a damper with separate bump and rebound rates and Racer's overshoot clamp, and the
//! anti-roll bar of an axle.
//!
//! Travel `s` is compression from full droop (0) to full bump (`travel_m`), m; its rate is
//! positive compressing. Forces are along the body z axis, positive pushing body up and wheel
//! down.

use crate::data::DataError;
use crate::spec::check_range;
use serde::Deserialize;

/// `[suspension.front]` / `[suspension.rear]`: one corner of that axle.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuspensionSpec {
    /// Wheel rate of the spring, N/m.
    pub spring_rate_n_per_m: f64,
    /// Progressive term: extra force = this x travel^2, N/m^2 (default 0).
    #[serde(default)]
    pub spring_progression_n_per_m2: f64,
    /// Compression at rest on flat ground, m (sets the spring preload).
    pub static_compression_m: f64,
    /// Total travel from full droop to full bump, m.
    pub travel_m: f64,
    /// Compression where the bump stop starts to act, m.
    pub bump_stop_engage_m: f64,
    /// Bump stop rate, N/m.
    pub bump_stop_rate_n_per_m: f64,
    /// Damping when compressing, N s/m.
    pub damper_bump_ns_per_m: f64,
    /// Damping when extending, N s/m.
    pub damper_rebound_ns_per_m: f64,
    /// Anti-roll bar wheel rate: force per metre of left/right travel difference, N/m.
    pub anti_roll_bar_n_per_m: f64,
    /// Unsprung mass of one corner (wheel, tyre, upright, brake), kg.
    pub unsprung_mass_kg: f64,
}

impl SuspensionSpec {
    /// Range and ordering checks (`table` is `suspension.front` or `suspension.rear`).
    pub fn validate(&self, text: &str, origin: &str, table: &str) -> Result<(), DataError> {
        let f = |name: &str| format!("{table}.{name}");
        check_range(
            text,
            origin,
            &f("spring_rate_n_per_m"),
            self.spring_rate_n_per_m,
            1e3,
            1e7,
        )?;
        check_range(
            text,
            origin,
            &f("spring_progression_n_per_m2"),
            self.spring_progression_n_per_m2,
            0.0,
            1e9,
        )?;
        check_range(text, origin, &f("travel_m"), self.travel_m, 0.01, 1.0)?;
        check_range(
            text,
            origin,
            &f("bump_stop_engage_m"),
            self.bump_stop_engage_m,
            0.0,
            self.travel_m,
        )?;
        check_range(
            text,
            origin,
            &f("static_compression_m"),
            self.static_compression_m,
            0.0,
            self.bump_stop_engage_m,
        )?;
        check_range(
            text,
            origin,
            &f("bump_stop_rate_n_per_m"),
            self.bump_stop_rate_n_per_m,
            1e3,
            1e8,
        )?;
        check_range(
            text,
            origin,
            &f("damper_bump_ns_per_m"),
            self.damper_bump_ns_per_m,
            0.0,
            1e6,
        )?;
        check_range(
            text,
            origin,
            &f("damper_rebound_ns_per_m"),
            self.damper_rebound_ns_per_m,
            0.0,
            1e6,
        )?;
        check_range(
            text,
            origin,
            &f("anti_roll_bar_n_per_m"),
            self.anti_roll_bar_n_per_m,
            0.0,
            1e7,
        )?;
        check_range(
            text,
            origin,
            &f("unsprung_mass_kg"),
            self.unsprung_mass_kg,
            1.0,
            1000.0,
        )?;
        Ok(())
    }
}

/// A corner's suspension parameters, ready for the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Suspension {
    /// Spring force at zero travel (may be negative: the spring is then loose near droop), N.
    pub preload_n: f64,
    /// Linear rate, N/m.
    pub rate: f64,
    /// Progressive term, N/m^2.
    pub progression: f64,
    /// Full travel, m.
    pub travel_m: f64,
    /// Bump stop start, m.
    pub bump_stop_engage_m: f64,
    /// Bump stop rate, N/m.
    pub bump_stop_rate: f64,
    /// Damping in bump / rebound, N s/m.
    pub damping: [f64; 2],
    /// Unsprung mass, kg.
    pub unsprung_mass_kg: f64,
}

impl Suspension {
    /// Builds a corner whose spring carries `sprung_load_n` at the static compression.
    pub fn new(spec: &SuspensionSpec, sprung_load_n: f64) -> Suspension {
        let s0 = spec.static_compression_m;
        let preload = sprung_load_n
            - spec.spring_rate_n_per_m * s0
            - spec.spring_progression_n_per_m2 * s0 * s0;
        Suspension {
            preload_n: preload,
            rate: spec.spring_rate_n_per_m,
            progression: spec.spring_progression_n_per_m2,
            travel_m: spec.travel_m,
            bump_stop_engage_m: spec.bump_stop_engage_m,
            bump_stop_rate: spec.bump_stop_rate_n_per_m,
            damping: [spec.damper_bump_ns_per_m, spec.damper_rebound_ns_per_m],
            unsprung_mass_kg: spec.unsprung_mass_kg,
        }
    }

    /// Spring plus bump-stop force at travel `s`, N (never pulls).
    #[inline]
    pub fn spring_force(&self, s: f64) -> f64 {
        let spring = (self.preload_n + self.rate * s + self.progression * s * s).max(0.0);
        let stop = if s > self.bump_stop_engage_m {
            self.bump_stop_rate * (s - self.bump_stop_engage_m)
        } else {
            0.0
        };
        spring + stop
    }

    /// Damper force at travel rate `s_dot` (positive compressing), N, with Racer's overshoot
    /// clamp: the damper alone may at most stop the wheel's motion relative to the body within
    /// one step (`|F| <= |s_dot| m_u / dt`), so it can never add energy.
    #[inline]
    pub fn damper_force(&self, s_dot: f64, dt_s: f64) -> f64 {
        let c = if s_dot >= 0.0 {
            self.damping[0]
        } else {
            self.damping[1]
        };
        let force = c * s_dot;
        let limit = s_dot.abs() * self.unsprung_mass_kg / dt_s;
        force.clamp(-limit, limit)
    }
}
