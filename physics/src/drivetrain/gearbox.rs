//! The gearbox: gear selection (sequential or H-pattern), shift timing with torque cut, and
//! refused shifts reported as events with a reason.
//!
//! Gears: -1 reverse, 0 neutral, 1..=N forward. The total ratio (engine turns per wheel turn)
//! is `gear ratio x final drive`, negative in reverse, and 0 while in neutral or shifting.
//! A shift (other than into neutral, which is immediate) disengages the box for `shift_time_s`;
//! a sequential upshift also cuts the ignition for that time (flat shift). Requests are edge
//! events; a refused one leaves the gear unchanged and produces a [`GearEvent::Refused`].

use super::clutch::PRESSED_PEDAL;
use super::spec::{GearboxSpec, ShiftMode};
use crate::controls::GearRequest;
pub use crate::telemetry::ShiftRefusal;

/// What happened to a gear request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GearEvent {
    /// The change started (completes after the shift time).
    Shifted {
        /// Gear before.
        from: i8,
        /// Gear being engaged.
        to: i8,
    },
    /// The change was refused; the gear stays.
    Refused {
        /// Gear asked for.
        requested: i8,
        /// Why not.
        reason: ShiftRefusal,
    },
}

/// Gearbox parameters and state.
#[derive(Debug, Clone)]
pub struct Gearbox {
    spec: GearboxSpec,
    gear: i8,
    shift_remaining_s: f64,
    upshift_cut: bool,
}

impl Gearbox {
    /// Puts the gearbox back into `start`'s state, keeping its own (equal) spec: no
    /// allocation.
    pub fn restart_from(&mut self, start: &Gearbox) {
        let Gearbox {
            spec: _,
            gear,
            shift_remaining_s,
            upshift_cut,
        } = start;
        self.gear = *gear;
        self.shift_remaining_s = *shift_remaining_s;
        self.upshift_cut = *upshift_cut;
    }

    /// A gearbox in neutral.
    pub fn new(spec: &GearboxSpec) -> Gearbox {
        Gearbox {
            spec: spec.clone(),
            gear: 0,
            shift_remaining_s: 0.0,
            upshift_cut: false,
        }
    }

    /// Selected gear (the target while shifting).
    pub fn gear(&self) -> i8 {
        self.gear
    }

    /// Number of forward gears.
    pub fn forward_gears(&self) -> u8 {
        self.spec.forward_ratios.len() as u8
    }

    /// True while a change is in progress (no torque through the box).
    pub fn shifting(&self) -> bool {
        self.shift_remaining_s > 0.0
    }

    /// True while the ignition is cut for a sequential upshift.
    pub fn torque_cut(&self) -> bool {
        self.shifting() && self.upshift_cut
    }

    /// Mechanical efficiency.
    pub fn efficiency(&self) -> f64 {
        self.spec.efficiency
    }

    /// Signed engine turns per wheel turn, 0 in neutral or while shifting.
    pub fn total_ratio(&self) -> f64 {
        if self.shifting() {
            return 0.0;
        }
        self.ratio_of(self.gear)
    }

    /// Signed engine turns per wheel turn in `gear` (0 for neutral).
    pub fn ratio_of(&self, gear: i8) -> f64 {
        match gear {
            0 => 0.0,
            -1 => -self.spec.reverse_ratio * self.spec.final_drive_ratio,
            g => self.spec.forward_ratios[(g - 1) as usize] * self.spec.final_drive_ratio,
        }
    }

    /// Handles one request. `clutch_pedal` 0..1, `speed_mps` the driven wheels' rolling speed
    /// (positive forward). Returns the event, if the request asked for anything.
    pub fn request(
        &mut self,
        request: GearRequest,
        clutch_pedal: f64,
        speed_mps: f64,
    ) -> Option<GearEvent> {
        let top = self.forward_gears() as i8;
        let (wanted, one_step) = match request {
            GearRequest::None => return None,
            GearRequest::Up => (self.gear.saturating_add(1), true),
            GearRequest::Down => (self.gear.saturating_sub(1), true),
            GearRequest::Select(g) => (g, (i16::from(g) - i16::from(self.gear)).abs() <= 1),
        };
        if wanted == self.gear && !self.shifting() {
            return None;
        }
        let refuse = |reason| {
            Some(GearEvent::Refused {
                requested: wanted,
                reason,
            })
        };
        if wanted < -1 || wanted > top {
            return refuse(ShiftRefusal::NoSuchGear);
        }
        if self.shifting() {
            return refuse(ShiftRefusal::ShiftInProgress);
        }
        if self.spec.mode == ShiftMode::Sequential && !one_step {
            return refuse(ShiftRefusal::OneGearAtATime);
        }
        if wanted != 0 && self.spec.requires_clutch && clutch_pedal < PRESSED_PEDAL {
            return refuse(ShiftRefusal::ClutchRequired);
        }
        if wanted == -1 && speed_mps.abs() > self.spec.reverse_max_speed_mps {
            return refuse(ShiftRefusal::ReverseTooFast);
        }
        let from = self.gear;
        self.gear = wanted;
        if wanted != 0 {
            self.shift_remaining_s = self.spec.shift_time_s;
            self.upshift_cut = self.spec.mode == ShiftMode::Sequential && wanted > from;
        } else {
            self.shift_remaining_s = 0.0;
        }
        Some(GearEvent::Shifted { from, to: wanted })
    }

    /// Advances the shift timer.
    pub fn advance(&mut self, dt_s: f64) {
        if self.shift_remaining_s > 0.0 {
            self.shift_remaining_s = (self.shift_remaining_s - dt_s).max(0.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(mode: ShiftMode, requires_clutch: bool) -> GearboxSpec {
        GearboxSpec {
            mode,
            forward_ratios: vec![3.0, 2.0, 1.5, 1.0],
            reverse_ratio: 3.2,
            final_drive_ratio: 4.0,
            efficiency: 0.95,
            shift_time_s: 0.05,
            requires_clutch,
            reverse_max_speed_mps: 1.5,
        }
    }

    fn shift_fully(g: &mut Gearbox) {
        for _ in 0..100 {
            g.advance(0.001);
        }
    }

    #[test]
    fn sequential_walks_one_gear_at_a_time_with_cut_on_upshift() {
        let mut g = Gearbox::new(&spec(ShiftMode::Sequential, false));
        assert_eq!(
            g.request(GearRequest::Up, 0.0, 0.0),
            Some(GearEvent::Shifted { from: 0, to: 1 })
        );
        assert!(g.shifting() && g.torque_cut());
        assert_eq!(g.total_ratio(), 0.0);
        assert_eq!(
            g.request(GearRequest::Up, 0.0, 0.0),
            Some(GearEvent::Refused {
                requested: 2,
                reason: ShiftRefusal::ShiftInProgress
            })
        );
        shift_fully(&mut g);
        assert_eq!(g.total_ratio(), 12.0);
        assert_eq!(
            g.request(GearRequest::Select(3), 0.0, 10.0),
            Some(GearEvent::Refused {
                requested: 3,
                reason: ShiftRefusal::OneGearAtATime
            })
        );
        g.request(GearRequest::Down, 0.0, 0.0);
        assert!(!g.torque_cut(), "no ignition cut on downshifts");
        shift_fully(&mut g);
        assert_eq!(
            g.request(GearRequest::Down, 0.0, 0.0),
            Some(GearEvent::Shifted { from: 0, to: -1 })
        );
        shift_fully(&mut g);
        assert!((g.total_ratio() + 12.8).abs() < 1e-12);
        assert_eq!(
            g.request(GearRequest::Down, 0.0, 0.0),
            Some(GearEvent::Refused {
                requested: -2,
                reason: ShiftRefusal::NoSuchGear
            })
        );
    }

    #[test]
    fn h_pattern_needs_the_clutch_except_into_neutral() {
        let mut g = Gearbox::new(&spec(ShiftMode::HPattern, true));
        assert_eq!(
            g.request(GearRequest::Select(3), 0.2, 0.0),
            Some(GearEvent::Refused {
                requested: 3,
                reason: ShiftRefusal::ClutchRequired
            })
        );
        assert_eq!(
            g.request(GearRequest::Select(3), 0.9, 0.0),
            Some(GearEvent::Shifted { from: 0, to: 3 })
        );
        shift_fully(&mut g);
        assert_eq!(
            g.request(GearRequest::Select(0), 0.0, 20.0),
            Some(GearEvent::Shifted { from: 3, to: 0 })
        );
        assert!(!g.shifting());
        assert_eq!(
            g.request(GearRequest::Select(5), 1.0, 0.0),
            Some(GearEvent::Refused {
                requested: 5,
                reason: ShiftRefusal::NoSuchGear
            })
        );
    }

    #[test]
    fn reverse_refused_above_walking_speed() {
        let mut g = Gearbox::new(&spec(ShiftMode::HPattern, true));
        assert_eq!(
            g.request(GearRequest::Select(-1), 1.0, 3.0),
            Some(GearEvent::Refused {
                requested: -1,
                reason: ShiftRefusal::ReverseTooFast
            })
        );
        assert_eq!(g.gear(), 0);
        assert_eq!(
            g.request(GearRequest::Select(-1), 1.0, 1.0),
            Some(GearEvent::Shifted { from: 0, to: -1 })
        );
    }
}
