//! Aerodynamics: drag from a drag area (Cd A) against the air-relative velocity, and downforce
//! from front and rear lift areas (Cl A) acting at the axles. Still air, density 1.225 kg/m^3.

use crate::data::DataError;
use crate::spec::check_range;
use serde::Deserialize;

/// Air density, kg/m^3 (ISA sea level).
pub const AIR_DENSITY_KG_PER_M3: f64 = 1.225;

/// The `[aero]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AeroSpec {
    /// Drag area Cd x A, m^2.
    pub drag_area_m2: f64,
    /// Downforce area at the front axle, Cl x A, m^2 (positive pushes down).
    pub downforce_area_front_m2: f64,
    /// Downforce area at the rear axle, m^2.
    pub downforce_area_rear_m2: f64,
}

impl AeroSpec {
    /// Range checks.
    pub fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        check_range(
            text,
            origin,
            "aero.drag_area_m2",
            self.drag_area_m2,
            0.0,
            20.0,
        )?;
        check_range(
            text,
            origin,
            "aero.downforce_area_front_m2",
            self.downforce_area_front_m2,
            -5.0,
            20.0,
        )?;
        check_range(
            text,
            origin,
            "aero.downforce_area_rear_m2",
            self.downforce_area_rear_m2,
            -5.0,
            20.0,
        )?;
        Ok(())
    }

    /// Drag force magnitude at airspeed `v_mps`, N.
    pub fn drag_n(&self, v_mps: f64) -> f64 {
        0.5 * AIR_DENSITY_KG_PER_M3 * self.drag_area_m2 * v_mps * v_mps
    }

    /// Downforce at (front, rear) axle for a forward airspeed `vx_mps`, N.
    pub fn downforce_n(&self, vx_mps: f64) -> [f64; 2] {
        let q = 0.5 * AIR_DENSITY_KG_PER_M3 * vx_mps * vx_mps;
        [
            q * self.downforce_area_front_m2,
            q * self.downforce_area_rear_m2,
        ]
    }
}
