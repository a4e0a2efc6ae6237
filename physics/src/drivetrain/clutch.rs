//! The clutch: how much torque it can carry this step.
//!
//! Capacity = `max_torque x (1 - pedal)` (Racer: pedal x clutch torque), times the engagement
//! of the optional automatic (centrifugal) clutch, which grows linearly from zero at idle to
//! full at `auto_engage_rpm`. The locked/slipping state itself lives in the driveline solver
//! (seed 000's rule, as a friction joint): it locks when one step of clutch torque would carry
//! the engine across the driveline speed, and unlocks only when the torque it must transmit to
//! stay locked exceeds the capacity. A constant capacity therefore never chatters.

use super::spec::ClutchSpec;

/// Pedal travel from which the clutch counts as pressed for a gear change.
pub const PRESSED_PEDAL: f64 = 0.75;

/// The clutch's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Clutch {
    max_torque_nm: f64,
    auto: Option<(f64, f64)>,
}

impl Clutch {
    /// Builds the clutch; `idle_rpm` anchors the automatic clutch's engagement.
    pub fn new(spec: &ClutchSpec, idle_rpm: f64) -> Clutch {
        Clutch {
            max_torque_nm: spec.max_torque_nm,
            auto: spec.auto_engage_rpm.map(|full| (idle_rpm, full)),
        }
    }

    /// Torque capacity for a pedal position (0 released .. 1 pressed) at an engine speed, N m.
    pub fn capacity_nm(&self, pedal: f64, engine_rpm: f64) -> f64 {
        let engagement = match self.auto {
            Some((idle, full)) => ((engine_rpm - idle) / (full - idle)).clamp(0.0, 1.0),
            None => 1.0,
        };
        self.max_torque_nm * (1.0 - pedal) * engagement
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_scales_with_pedal_and_auto_engagement() {
        let manual = Clutch::new(
            &ClutchSpec {
                max_torque_nm: 400.0,
                auto_engage_rpm: None,
            },
            800.0,
        );
        assert_eq!(manual.capacity_nm(0.0, 0.0), 400.0);
        assert_eq!(manual.capacity_nm(0.25, 0.0), 300.0);
        assert_eq!(manual.capacity_nm(1.0, 3000.0), 0.0);
        let auto = Clutch::new(
            &ClutchSpec {
                max_torque_nm: 400.0,
                auto_engage_rpm: Some(2800.0),
            },
            800.0,
        );
        assert_eq!(auto.capacity_nm(0.0, 800.0), 0.0);
        assert_eq!(auto.capacity_nm(0.0, 1800.0), 200.0);
        assert_eq!(auto.capacity_nm(0.0, 5000.0), 400.0);
    }
}
