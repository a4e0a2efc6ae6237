//! Differentials: how much torque each type can hold between its two outputs.
//!
//! Every type reduces to one *coupling* between the outputs' speed difference:
//! - open: none; spool: rigid; viscous: `c x delta omega` (applied implicitly by the solver);
//! - clutch-pack LSD, Salisbury and torque-bias (Torsen): a friction coupling whose capacity is
//!   Racer's *locking torque* `L = max(preload, (TBR - 1) x T_low)`, where `T_low` is the smaller
//!   road reaction torque of the two outputs and TBR the bias ratio of the current regime
//!   (power or coast). The diff stays locked while the reactions' difference fits `L`; beyond
//!   it, `|T_a - T_b| - L` accelerates the outputs apart. Preload and ramps do not add: the
//!   preload spring sits in the same clamp as the ramps, so the larger one rules.
//!
//! Torques here are *differences between the outputs*. The friction element itself carries
//! half of that (`L / 2` moved from the faster output to the slower one), which is the
//! transfer torque reported in telemetry; a viscous coupling's transfer torque is `c x delta
//! omega`.
//!
//! Salisbury ratios follow Grand Prix Legends: `TBR = cos(ramp) x (1 + clutches)` where GPL
//! counts two clutches per clutch pack, so `1 + clutches = 1 + 2 x packs`; "60/30/2" gives
//! 1.5 on power and 2.598 on coast. A ratio below 1 means the ramps never lock (TBR 1).

use super::spec::DifferentialSpec;

/// Racer's preload + torque-bias-ratio locking rule for one regime.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BiasLock {
    /// Torque difference the preload spring holds on its own, N m.
    pub preload_nm: f64,
    /// Highest ratio of the high to the low output torque held locked (>= 1).
    pub bias_ratio: f64,
}

impl BiasLock {
    /// The output torque difference the diff can sustain given the road reaction torques of
    /// its outputs, N m.
    pub fn locking_torque_nm(&self, reaction_a_nm: f64, reaction_b_nm: f64) -> f64 {
        let low = reaction_a_nm.abs().min(reaction_b_nm.abs());
        self.preload_nm.max((self.bias_ratio - 1.0) * low)
    }

    /// Torque accelerating the outputs apart when the reactions exceed the locking torque
    /// (0 while locked), N m.
    pub fn excess_torque_nm(&self, reaction_a_nm: f64, reaction_b_nm: f64) -> f64 {
        let difference = (reaction_a_nm - reaction_b_nm).abs();
        (difference - self.locking_torque_nm(reaction_a_nm, reaction_b_nm)).max(0.0)
    }
}

/// Torque bias ratio of a Salisbury ramp: `cos(ramp) x (1 + clutches)`, at least 1.
pub fn salisbury_bias_ratio(ramp_deg: f64, clutches: u32) -> f64 {
    (ramp_deg.to_radians().cos() * (1.0 + f64::from(clutches))).max(1.0)
}

/// What holds the two outputs of a differential together.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Coupling {
    /// Nothing: equal torques, free speeds.
    Open,
    /// Rigid: equal speeds.
    Spool,
    /// Viscous: transfer torque = coefficient x speed difference, N m s/rad.
    Viscous(f64),
    /// Friction lock with separate power and coast rules.
    Bias {
        /// Rule while the engine drives the outputs.
        power: BiasLock,
        /// Rule while the outputs drive the engine (lifting off, braking).
        coast: BiasLock,
    },
}

impl Coupling {
    /// The coupling a differential spec describes.
    pub fn from_spec(spec: &DifferentialSpec) -> Coupling {
        match *spec {
            DifferentialSpec::Open {} => Coupling::Open,
            DifferentialSpec::Spool {} => Coupling::Spool,
            DifferentialSpec::Viscous {
                coefficient_nm_s_per_rad,
            } => Coupling::Viscous(coefficient_nm_s_per_rad),
            DifferentialSpec::ClutchLsd {
                preload_nm,
                power_bias_ratio,
                ways,
            } => {
                let coast_share = ways - 1.0;
                Coupling::Bias {
                    power: BiasLock {
                        preload_nm,
                        bias_ratio: power_bias_ratio,
                    },
                    coast: BiasLock {
                        preload_nm,
                        bias_ratio: 1.0 + coast_share * (power_bias_ratio - 1.0),
                    },
                }
            }
            DifferentialSpec::Salisbury {
                preload_nm,
                power_ramp_deg,
                coast_ramp_deg,
                clutches,
            } => Coupling::Bias {
                power: BiasLock {
                    preload_nm,
                    bias_ratio: salisbury_bias_ratio(power_ramp_deg, clutches),
                },
                coast: BiasLock {
                    preload_nm,
                    bias_ratio: salisbury_bias_ratio(coast_ramp_deg, clutches),
                },
            },
            DifferentialSpec::TorqueBias {
                bias_ratio,
                coast_bias_ratio,
                preload_nm,
            } => Coupling::Bias {
                power: BiasLock {
                    preload_nm,
                    bias_ratio,
                },
                coast: BiasLock {
                    preload_nm,
                    bias_ratio: coast_bias_ratio.unwrap_or(bias_ratio),
                },
            },
        }
    }

    /// Capacity of the friction element between the outputs this step, N m (half the
    /// sustainable output torque difference; infinite for a spool, 0 for open and viscous,
    /// whose torque the solver applies implicitly).
    ///
    /// `reaction_*_nm` are the road torques on each output side at the start of the step;
    /// `carrier_omega_radps` is the input's speed. Power regime: the road resists the
    /// direction of rotation (the engine drives); coast otherwise.
    pub fn friction_capacity_nm(
        &self,
        reaction_a_nm: f64,
        reaction_b_nm: f64,
        carrier_omega_radps: f64,
    ) -> f64 {
        match self {
            Coupling::Open | Coupling::Viscous(_) => 0.0,
            Coupling::Spool => f64::INFINITY,
            Coupling::Bias { power, coast } => {
                let direction = if carrier_omega_radps < 0.0 { -1.0 } else { 1.0 };
                let rule = if (reaction_a_nm + reaction_b_nm) * direction <= 0.0 {
                    power
                } else {
                    coast
                };
                0.5 * rule.locking_torque_nm(reaction_a_nm, reaction_b_nm)
            }
        }
    }

    /// Viscous coefficient, N m s/rad (0 for other types).
    pub fn viscous_coefficient(&self) -> f64 {
        match self {
            Coupling::Viscous(c) => *c,
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clutch_lsd_ways_scale_the_coast_ratio() {
        let lsd = |ways| {
            Coupling::from_spec(&DifferentialSpec::ClutchLsd {
                preload_nm: 30.0,
                power_bias_ratio: 3.0,
                ways,
            })
        };
        for (ways, coast) in [(1.0, 1.0), (1.5, 2.0), (2.0, 3.0)] {
            match lsd(ways) {
                Coupling::Bias { power, coast: c } => {
                    assert_eq!(power.bias_ratio, 3.0);
                    assert_eq!(c.bias_ratio, coast, "ways {ways}");
                    assert_eq!(c.preload_nm, 30.0);
                }
                other => panic!("clutch LSD became {other:?}"),
            }
        }
    }

    #[test]
    fn capacity_uses_power_rule_when_road_resists_rotation() {
        let c = Coupling::Bias {
            power: BiasLock {
                preload_nm: 0.0,
                bias_ratio: 3.0,
            },
            coast: BiasLock {
                preload_nm: 0.0,
                bias_ratio: 1.0,
            },
        };
        // Driving forward: road torques negative on a forward-turning carrier.
        assert_eq!(c.friction_capacity_nm(-100.0, -200.0, 10.0), 100.0);
        // Braking forward: road torques positive -> coast, ratio 1, no lock.
        assert_eq!(c.friction_capacity_nm(100.0, 200.0, 10.0), 0.0);
        // Driving in reverse: road torques positive on a backward-turning carrier.
        assert_eq!(c.friction_capacity_nm(100.0, 200.0, -10.0), 100.0);
    }

    #[test]
    fn salisbury_ratio_never_below_one() {
        assert_eq!(salisbury_bias_ratio(85.0, 1), 1.0);
        assert!((salisbury_bias_ratio(45.0, 1) - 2f64.sqrt()).abs() < 1e-12);
    }
}
