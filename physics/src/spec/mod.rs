//! The car document: a TOML file with units in every field name, parsed with unknown fields
//! rejected and then range-checked, so a bad file fails with origin, line, column, field and
//! what was expected (never a panic, never a silently odd car).
//!
//! Tables: `[chassis]`, `[suspension.front]`, `[suspension.rear]`, `[steering]`, `[brakes]`,
//! `[aero]`, `[tyre]`, `[drivetrain]` (owned by the drivetrain module), `[performance]`
//! (declared 0-100 km/h band the acceleration tests hold the car to), and the optional
//! `[damage]` (breakable parts and their strengths, [`crate::damage`]; none without it).

pub mod builtin;

use crate::aero::AeroSpec;
use crate::brakes::BrakeSpec;
use crate::damage::DamageSpec;
use crate::data::{invalid, parse_toml, DataError};
use crate::drivetrain::DrivetrainSpec;
use crate::steering::SteeringSpec;
use crate::suspension::SuspensionSpec;
use crate::tyre::TyreSpec;
use serde::Deserialize;

/// Standard gravity used throughout, m/s^2.
pub const GRAVITY_MPS2: f64 = 9.81;

/// A complete car document.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarSpec {
    /// Short name (`road`, `race`, ...).
    pub name: String,
    /// One line for humans.
    #[serde(default)]
    pub description: String,
    /// Mass, inertia and geometry.
    pub chassis: ChassisSpec,
    /// Front and rear corners.
    pub suspension: SuspensionPair,
    /// Steering geometry.
    pub steering: SteeringSpec,
    /// Brakes.
    pub brakes: BrakeSpec,
    /// Aerodynamics.
    pub aero: AeroSpec,
    /// Tyres (same on all wheels).
    pub tyre: TyreSpec,
    /// Engine, clutch, gearbox, differentials.
    pub drivetrain: DrivetrainSpec,
    /// Declared performance (checked by tests).
    pub performance: PerformanceSpec,
    /// Breakable parts (none without the table; `enabled = false` turns them off).
    #[serde(default)]
    pub damage: Option<DamageSpec>,
}

/// The `[chassis]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChassisSpec {
    /// Total mass including wheels and driver, kg.
    pub mass_kg: f64,
    /// Principal moments about the centre of gravity: roll (x), pitch (y), yaw (z), kg m^2.
    pub inertia_kgm2: [f64; 3],
    /// Products of inertia Ixy, Ixz, Iyz, kg m^2 (default 0).
    #[serde(default)]
    pub inertia_products_kgm2: [f64; 3],
    /// Height of the centre of gravity above the ground at rest, m.
    pub cog_height_m: f64,
    /// Wheelbase, m.
    pub wheelbase_m: f64,
    /// Distance from the centre of gravity forward to the front axle, m.
    pub cog_to_front_axle_m: f64,
    /// Front track width, m.
    pub track_front_m: f64,
    /// Rear track width, m.
    pub track_rear_m: f64,
    /// Body length for barrier contact, m.
    pub body_length_m: f64,
    /// Body width for barrier contact, m.
    pub body_width_m: f64,
    /// Height of the body's underside (sills, bumpers) above flat ground at rest, m: the lower
    /// corners of the box the body touches the ground with when the car is off its wheels.
    pub body_floor_height_m: f64,
    /// Height of the roof above flat ground at rest, m: the upper corners of that box (what an
    /// inverted car rests on).
    pub body_roof_height_m: f64,
}

/// `[suspension.front]` and `[suspension.rear]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuspensionPair {
    /// Front corners.
    pub front: SuspensionSpec,
    /// Rear corners.
    pub rear: SuspensionSpec,
}

/// The `[performance]` table: what the car is declared to do.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerformanceSpec {
    /// Fastest acceptable 0-100 km/h time, s.
    pub zero_to_100_kph_s_min: f64,
    /// Slowest acceptable 0-100 km/h time, s.
    pub zero_to_100_kph_s_max: f64,
}

impl CarSpec {
    /// Parses and validates a car document. `origin` names it in errors (a path or
    /// `builtin:<name>`).
    pub fn from_toml(text: &str, origin: &str) -> Result<CarSpec, DataError> {
        let mut spec: CarSpec = parse_toml(text, origin)?;
        spec.tyre.resolve(text, origin)?;
        spec.validate(text, origin)?;
        Ok(spec)
    }

    /// Range and consistency checks.
    pub fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        let c = &self.chassis;
        check_range(text, origin, "chassis.mass_kg", c.mass_kg, 50.0, 50_000.0)?;
        for moment in c.inertia_kgm2 {
            check_range(text, origin, "chassis.inertia_kgm2", moment, 1.0, 1e6)?;
        }
        for p in c.inertia_products_kgm2 {
            check_range(text, origin, "chassis.inertia_products_kgm2", p, -1e5, 1e5)?;
        }
        let inertia = crate::math::Mat3::symmetric(c.inertia_kgm2, c.inertia_products_kgm2);
        let [a, b, d] = c.inertia_kgm2;
        let [ixy, ixz, iyz] = c.inertia_products_kgm2;
        let positive_definite =
            a * b - ixy * ixy > 0.0 && inertia.determinant() > 0.0 && d > 0.0 && iyz.is_finite();
        let triangle = a + b >= d && a + d >= b && b + d >= a && ixz.is_finite();
        if !positive_definite || !triangle {
            return Err(invalid(
                text,
                origin,
                "chassis.inertia_kgm2",
                "the inertia tensor is not physical (it must be positive definite and each \
                 principal moment no larger than the sum of the other two); check the moments \
                 and products of inertia",
            ));
        }
        check_range(
            text,
            origin,
            "chassis.cog_height_m",
            c.cog_height_m,
            0.05,
            3.0,
        )?;
        check_range(
            text,
            origin,
            "chassis.wheelbase_m",
            c.wheelbase_m,
            0.5,
            10.0,
        )?;
        check_range(
            text,
            origin,
            "chassis.cog_to_front_axle_m",
            c.cog_to_front_axle_m,
            0.01,
            c.wheelbase_m - 0.01,
        )?;
        check_range(
            text,
            origin,
            "chassis.track_front_m",
            c.track_front_m,
            0.3,
            4.0,
        )?;
        check_range(
            text,
            origin,
            "chassis.track_rear_m",
            c.track_rear_m,
            0.3,
            4.0,
        )?;
        check_range(
            text,
            origin,
            "chassis.body_length_m",
            c.body_length_m,
            c.wheelbase_m,
            20.0,
        )?;
        check_range(
            text,
            origin,
            "chassis.body_width_m",
            c.body_width_m,
            0.3,
            5.0,
        )?;
        check_range(
            text,
            origin,
            "chassis.body_floor_height_m",
            c.body_floor_height_m,
            0.02,
            c.cog_height_m,
        )?;
        check_range(
            text,
            origin,
            "chassis.body_roof_height_m",
            c.body_roof_height_m,
            c.cog_height_m,
            5.0,
        )?;
        self.tyre.validate(text, origin)?;
        let radius = self.tyre.unloaded_radius_m;
        check_range(
            text,
            origin,
            "chassis.cog_height_m",
            c.cog_height_m,
            radius * 0.5,
            3.0,
        )?;
        self.suspension
            .front
            .validate(text, origin, "suspension.front")?;
        self.suspension
            .rear
            .validate(text, origin, "suspension.rear")?;
        let unsprung =
            2.0 * (self.suspension.front.unsprung_mass_kg + self.suspension.rear.unsprung_mass_kg);
        if unsprung >= 0.5 * c.mass_kg {
            return Err(invalid(
                text,
                origin,
                "suspension.front.unsprung_mass_kg",
                format!(
                    "the four unsprung masses ({unsprung:.0} kg) must be less than half of \
                     chassis.mass_kg ({:.0} kg)",
                    c.mass_kg
                ),
            ));
        }
        self.steering.validate(text, origin)?;
        self.brakes.validate(text, origin)?;
        self.aero.validate(text, origin)?;
        if let Some(damage) = &self.damage {
            damage.validate(text, origin)?;
        }
        self.drivetrain.validate(text, origin)?;
        let p = &self.performance;
        check_range(
            text,
            origin,
            "performance.zero_to_100_kph_s_min",
            p.zero_to_100_kph_s_min,
            0.5,
            120.0,
        )?;
        check_range(
            text,
            origin,
            "performance.zero_to_100_kph_s_max",
            p.zero_to_100_kph_s_max,
            p.zero_to_100_kph_s_min,
            120.0,
        )?;
        Ok(())
    }

    /// Static load on one front and one rear tyre at rest on flat ground, N.
    pub fn static_wheel_loads_n(&self) -> [f64; 2] {
        let c = &self.chassis;
        let weight = c.mass_kg * GRAVITY_MPS2;
        let b = c.wheelbase_m - c.cog_to_front_axle_m;
        [
            0.5 * weight * b / c.wheelbase_m,
            0.5 * weight * c.cog_to_front_axle_m / c.wheelbase_m,
        ]
    }
}

/// Fails unless `lo <= value <= hi` and finite, naming the field and the expected range.
pub fn check_range(
    text: &str,
    origin: &str,
    field: &str,
    value: f64,
    lo: f64,
    hi: f64,
) -> Result<(), DataError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(invalid(
            text,
            origin,
            field,
            format!("expected a value between {lo} and {hi}, got {value}; change it to lie in that range"),
        ))
    }
}
