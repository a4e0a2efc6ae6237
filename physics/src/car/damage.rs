//! Damage plumbing of one car: after the barrier response (impulses per collision point) and
//! the contact phase (tyre loads) it asks [`crate::damage::breaks`] what broke and applies the
//! consequence in place: a wing's share of its axle's downforce area removed, a link's toe-out
//! and camber added to its corner's alignment, a rack's steering offset added as opposite toe
//! on the two front wheels (both turn the same way). [`Car::repair`] undoes all of it.
//! The record of broken parts is the telemetry's `damage` field (kept between steps; a reset
//! clears it).

use super::Car;
use crate::damage::{breaks, DamageTelemetry};

impl Car {
    /// Breaks what the barrier impulses on the collision points (N s, this step) and the tyre
    /// loads (N) exceed, when damage is on.
    #[inline]
    pub(super) fn take_damage(&mut self, point_impulse_ns: &[f64; 8], tyre_load_n: &[f64; 4]) {
        let Some(spec) = self.damage else {
            return;
        };
        let before = self.telemetry.damage;
        let after = breaks(&spec, &before, point_impulse_ns, tyre_load_n);
        if after != before {
            self.apply_breaks(&before, &after);
        }
    }

    /// Applies the consequences of the parts broken between `before` and `after`.
    #[cold]
    fn apply_breaks(&mut self, before: &DamageTelemetry, after: &DamageTelemetry) {
        let Some(spec) = self.damage else {
            return;
        };
        if after.front_wing && !before.front_wing {
            self.aero.downforce_area_front_m2 =
                self.start_aero.downforce_area_front_m2 * (1.0 - spec.front_wing_downforce_share);
        }
        if after.rear_wing && !before.rear_wing {
            self.aero.downforce_area_rear_m2 =
                self.start_aero.downforce_area_rear_m2 * (1.0 - spec.rear_wing_downforce_share);
        }
        for corner in 0..4 {
            if after.links[corner] && !before.links[corner] {
                let alignment = &mut self.corners[corner].alignment;
                alignment.toe_rad -= spec.broken_link_toe_out_deg.to_radians();
                alignment.camber_rad += spec.broken_link_camber_deg.to_radians();
            }
        }
        if after.steering_rack && !before.steering_rack {
            // Toe-in turns a left wheel right and a right wheel left: a left offset is toe-out
            // on the left wheel and toe-in on the right.
            let offset = spec.broken_rack_offset_deg.to_radians();
            self.corners[0].alignment.toe_rad -= offset;
            self.corners[1].alignment.toe_rad += offset;
        }
        self.has_toe = self.corners.iter().any(|c| c.alignment.has_toe());
        self.telemetry.damage = *after;
    }

    /// Repairs every broken part (the reset's first act).
    pub(super) fn repair(&mut self) {
        self.corners = self.start_corners;
        self.aero = self.start_aero.clone();
        self.has_toe = self.corners.iter().any(|c| c.alignment.has_toe());
        self.telemetry.damage = DamageTelemetry::default();
    }
}
