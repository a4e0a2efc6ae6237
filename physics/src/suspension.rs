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
    /// Camber relative to the body at rest, deg (negative: the wheel's top leans inward).
    /// Default 0.
    #[serde(default)]
    pub static_camber_deg: f64,
    /// Camber change per metre of compression from rest, deg/m (negative: more negative
    /// camber in bump, as a double wishbone gives). In roll the two sides' travels differ,
    /// so this is also the axle's camber change with body roll. Default 0: the wheel plane
    /// stays parallel to the body, leaning with it.
    #[serde(default)]
    pub camber_gain_deg_per_m: f64,
    /// Toe at rest, deg (positive: toe-in, the wheel's front points inward). Default 0.
    #[serde(default)]
    pub static_toe_deg: f64,
    /// Toe-in change per metre of compression from rest (bump steer), deg/m. Default 0.
    #[serde(default)]
    pub toe_gain_deg_per_m: f64,
    /// Height of the axle's roll centre above the ground, m: the lateral tyre forces reach
    /// the body there, so the share `height / cog height` of the lateral load transfer goes
    /// through the links (geometric, at once) and the rest through springs and bars
    /// (elastic, with roll). Default 0: all of it elastic.
    #[serde(default)]
    pub roll_centre_height_m: f64,
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
        let geometry = [
            ("static_camber_deg", self.static_camber_deg, 10.0),
            ("camber_gain_deg_per_m", self.camber_gain_deg_per_m, 300.0),
            ("static_toe_deg", self.static_toe_deg, 5.0),
            ("toe_gain_deg_per_m", self.toe_gain_deg_per_m, 100.0),
        ];
        for (name, value, limit) in geometry {
            check_range(text, origin, &f(name), value, -limit, limit)?;
        }
        check_range(
            text,
            origin,
            &f("roll_centre_height_m"),
            self.roll_centre_height_m,
            -0.3,
            1.0,
        )?;
        Ok(())
    }
}

/// A corner's wheel alignment and its change with travel, ready for the step (vehicle
/// convention: camber negative with the top leaning inward, toe positive inward).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Alignment {
    /// Camber relative to the body at rest, rad.
    pub camber_rad: f64,
    /// Camber change per metre of compression, rad/m.
    pub camber_gain_rad_per_m: f64,
    /// Toe-in at rest, rad.
    pub toe_rad: f64,
    /// Toe-in change per metre of compression, rad/m.
    pub toe_gain_rad_per_m: f64,
    /// Compression at rest (from full droop), m: where the gains start.
    pub rest_travel_m: f64,
    /// Roll-centre height above the ground, m.
    pub roll_centre_height_m: f64,
}

impl Alignment {
    /// The alignment of `spec`'s corners.
    pub fn new(spec: &SuspensionSpec) -> Alignment {
        Alignment {
            camber_rad: spec.static_camber_deg.to_radians(),
            camber_gain_rad_per_m: spec.camber_gain_deg_per_m.to_radians(),
            toe_rad: spec.static_toe_deg.to_radians(),
            toe_gain_rad_per_m: spec.toe_gain_deg_per_m.to_radians(),
            rest_travel_m: spec.static_compression_m,
            roll_centre_height_m: spec.roll_centre_height_m,
        }
    }

    /// Camber relative to the body at compression `travel_m`, rad.
    #[inline]
    pub fn camber_at(&self, travel_m: f64) -> f64 {
        self.camber_rad + self.camber_gain_rad_per_m * (travel_m - self.rest_travel_m)
    }

    /// Toe-in at compression `travel_m`, rad.
    #[inline]
    pub fn toe_at(&self, travel_m: f64) -> f64 {
        self.toe_rad + self.toe_gain_rad_per_m * (travel_m - self.rest_travel_m)
    }

    /// Whether the corner has any toe (static or with travel).
    pub fn has_toe(&self) -> bool {
        self.toe_rad != 0.0 || self.toe_gain_rad_per_m != 0.0
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
        // With c dt <= m_u / 2 the limit is at least twice |force| at every s_dot, a margin
        // no rounding of the three products can close, so the clamp would return `force`
        // itself (zero, infinite and NaN rates included): skip its division. That holds for
        // every road damper at millisecond steps; stiffer ones or longer steps clamp.
        if c * dt_s <= 0.5 * self.unsprung_mass_kg {
            return force;
        }
        let limit = s_dot.abs() * self.unsprung_mass_kg / dt_s;
        force.clamp(-limit, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suspension(bump_ns_per_m: f64, rebound_ns_per_m: f64) -> Suspension {
        Suspension {
            preload_n: 2000.0,
            rate: 30_000.0,
            progression: 0.0,
            travel_m: 0.15,
            bump_stop_engage_m: 0.12,
            bump_stop_rate: 200_000.0,
            damping: [bump_ns_per_m, rebound_ns_per_m],
            unsprung_mass_kg: 40.0,
        }
    }

    /// The clamp written out in full, the reference for the shortcut.
    fn clamped(s: &Suspension, s_dot: f64, dt_s: f64) -> f64 {
        let c = s.damping[if s_dot >= 0.0 { 0 } else { 1 }];
        let limit = s_dot.abs() * s.unsprung_mass_kg / dt_s;
        (c * s_dot).clamp(-limit, limit)
    }

    #[test]
    fn damper_shortcut_matches_the_full_clamp_bit_for_bit() {
        // Soft dampers at 1 and 2 ms take the shortcut (c dt <= m_u / 2); a stiff one at a
        // long step clamps. Rates from subnormal to huge, both signs, and zero.
        let cases = [
            (3000.0, 5000.0, 0.001),
            (9000.0, 12_000.0, 0.002),
            (20_000.0, 30_000.0, 0.005),
        ];
        let mut rates = vec![0.0, -0.0, 5e-324, -5e-324, 1e-310, f64::MAX, -f64::MAX];
        for k in -30..=30 {
            rates.push(1.7f64.powi(k));
            rates.push(-(1.3f64.powi(k)));
        }
        for (bump, rebound, dt_s) in cases {
            let s = suspension(bump, rebound);
            for &s_dot in &rates {
                let ours = s.damper_force(s_dot, dt_s);
                assert_eq!(
                    ours.to_bits(),
                    clamped(&s, s_dot, dt_s).to_bits(),
                    "{s_dot} at {dt_s}"
                );
            }
        }
        // The stiff case really clamps: the damper at most stops the wheel in one step.
        let stiff = suspension(20_000.0, 30_000.0);
        assert_eq!(stiff.damper_force(1.0, 0.005), 40.0 / 0.005);
    }
}
