//! The condition effects the base runs itself (spring, damper, friction, inertia), as levels
//! for [`super::stage::FfbCommand::conditions`]: a centring spring and damper while the car is
//! parked, paused, being reset or driven by the robot, and optional friction/damper/inertia feel
//! terms for direct-drive bases. Pure and allocation-free: the FFB stage runs it on the RT
//! thread once per tick, after the constant-force chain.
//!
//! Why on the base: a condition effect reacts to the rim inside the base's own control loop
//! (kHz, no USB round trip), which the streamed constant force cannot; for centring a parked
//! car it also keeps working if the stream stops updating.
//!
//! Units: levels are shares of the base's maximum (0 ..= 32767). The spring's coefficient is
//! the share of the maximum reached at half the rotation range (the axis end, where HID PID
//! and evdev put coefficient 1), so `centring_spring_nm_per_deg` becomes
//! `k * range / 2 / base_max`. Damper and inertia coefficients are shares of the base's own
//! full coefficient (the base decides what speed is "full"), friction is a torque.
//!
//! Autocentre: a base without an autocentre of its own (no FF_AUTOCENTER: every base on the
//! hidraw PID backend, and hid-pidff bases whose autocentre method the kernel does not know)
//! gets `autocentre_percent` from here, as part of the spring: coefficient that share of the
//! full coefficient, largest force that share of the torque cap, whether driving or parked
//! (the writer says which bases need it through the link). Where both run, the spring is the
//! stronger of the centring spring and the autocentre in each part.
//!
//! Safety: every coefficient and saturation is scaled by the constant force's safety ramp
//! (so both restart from zero after a resume, reconnect or e-stop re-arm), each saturation is
//! at most `torque_cap_nm / base_max_torque_nm`, and the saturations together never exceed
//! that share either. The centring terms blend in and out over [`CENTRING_BLEND_S`] when the
//! car stops or starts (no step). The stage sends all zero whenever it stops the force.
//! The direction is the base's own: a centred, symmetric condition needs no sign, so
//! `invert` does not apply.

use rig_config::devices::{FfbConfig, SteeringConfig};

use super::stage::{ConditionLevel, Conditions};

/// Time for the centring spring and damper to blend fully in or out, s.
pub const CENTRING_BLEND_S: f64 = 0.5;

/// Who drives the player car and whether it is being reset (written by the RT loop into the
/// FFB link each tick, read by the stage).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DriveState {
    /// The robot drives the player car (no input device connected).
    pub robot_drives: bool,
    /// The player holds the reset request (the car is being put back on the track).
    pub resetting: bool,
    /// The simulation is paused (the player's pause button).
    pub paused: bool,
}

/// The condition terms derived once from the config, as shares of the base's maximum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConditionParams {
    /// Centring spring coefficient at full blend.
    pub spring_coefficient: f64,
    /// Largest force of the centring spring and of the centring damper.
    pub centring_saturation: f64,
    /// Centring damper coefficient at full blend.
    pub centring_damper: f64,
    /// Parked below this speed, m/s.
    pub parked_below_mps: f64,
    /// Friction (coefficient and saturation).
    pub friction: f64,
    /// Feel damper coefficient.
    pub feel_damper: f64,
    /// Feel inertia coefficient.
    pub feel_inertia: f64,
    /// Torque cap as a share of the base's maximum.
    pub cap: f64,
    /// `autocentre_percent` as a share, for bases that have no autocentre of their own.
    pub autocentre: f64,
}

fn share(value: f64) -> f64 {
    if value.is_finite() {
        value.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

impl ConditionParams {
    /// From `[devices.ffb]`; the rotation range is `rotation_range_deg` when set, else the
    /// steering axis range. Everything is clamped to 0 ..= 1 and to the cap, validated or not.
    pub fn from_config(ffb: &FfbConfig, steering: &SteeringConfig) -> ConditionParams {
        let base = ffb.base_max_torque_nm.max(1e-9);
        let cap = share(ffb.torque_cap_nm / base);
        let range_deg = ffb.rotation_range_deg.map_or(steering.range_deg, f64::from);
        ConditionParams {
            spring_coefficient: share(ffb.centring_spring_nm_per_deg * range_deg / 2.0 / base),
            centring_saturation: share(ffb.centring_max_nm / base).min(cap),
            centring_damper: share(ffb.centring_damper_percent / 100.0),
            parked_below_mps: ffb.parked_below_mps,
            friction: share(ffb.feel_friction_nm / base).min(cap),
            feel_damper: share(ffb.feel_damper_percent / 100.0),
            feel_inertia: share(ffb.feel_inertia_percent / 100.0),
            cap,
            autocentre: share(ffb.autocentre_percent / 100.0),
        }
    }
}

/// The blend state between ticks.
#[derive(Debug, Clone)]
pub struct ConditionShaper {
    params: ConditionParams,
    blend_step: f64,
    blend: f64,
    spring_autocentre: bool,
}

/// A level in device units (rounded down, so never above the share); all zero when either
/// part is zero, because such an effect gives no force.
fn level(coefficient: f64, saturation: f64) -> ConditionLevel {
    let to_i16 = |x: f64| (share(x) * f64::from(i16::MAX)).floor() as i16;
    let (coefficient, saturation) = (to_i16(coefficient), to_i16(saturation));
    if coefficient == 0 || saturation == 0 {
        return ConditionLevel::default();
    }
    ConditionLevel {
        coefficient,
        saturation,
    }
}

impl ConditionShaper {
    /// A shaper ticking every `dt_s` seconds, centring terms blended out.
    pub fn new(params: ConditionParams, dt_s: f64) -> ConditionShaper {
        ConditionShaper {
            params,
            blend_step: (dt_s / CENTRING_BLEND_S).clamp(0.0, 1.0),
            blend: 0.0,
            spring_autocentre: false,
        }
    }

    /// Whether the open base needs the autocentre run as a spring (it has none of its own).
    pub fn set_spring_autocentre(&mut self, by_stage: bool) {
        self.spring_autocentre = by_stage;
    }

    /// How far the centring terms are blended in, 0 ..= 1.
    pub fn blend(&self) -> f64 {
        self.blend
    }

    /// One tick: the car's `speed_mps`, who drives, and the safety `ramp` (0 ..= 1) of the
    /// constant force this tick.
    pub fn step(&mut self, speed_mps: f64, drive: DriveState, ramp: f64) -> Conditions {
        let p = self.params;
        // A speed that is not a number counts as parked: centring is the safe side.
        let parked = speed_mps.is_nan() || speed_mps.abs() < p.parked_below_mps;
        let target = if parked || drive.robot_drives || drive.resetting || drive.paused {
            1.0
        } else {
            0.0
        };
        self.blend += (target - self.blend).clamp(-self.blend_step, self.blend_step);
        let blend = self.blend;
        let ramp = share(ramp);

        let autocentre = if self.spring_autocentre {
            p.autocentre
        } else {
            0.0
        };
        let spring = (
            (p.spring_coefficient * blend).max(autocentre),
            (p.centring_saturation * blend).max(autocentre * p.cap),
        );
        let damper_coefficient = (p.feel_damper + p.centring_damper * blend).min(1.0);
        let damper_saturation = if p.feel_damper > 0.0 {
            p.cap
        } else if p.centring_damper > 0.0 {
            p.centring_saturation * blend
        } else {
            0.0
        };
        let inertia = (
            p.feel_inertia,
            if p.feel_inertia > 0.0 { p.cap } else { 0.0 },
        );
        let friction = (p.friction, p.friction);

        let saturations = [spring.1, damper_saturation, friction.1, inertia.1];
        let total: f64 = saturations.iter().sum();
        // Together the conditions never push harder than the cap.
        let fit = if total > p.cap { p.cap / total } else { 1.0 };
        let scaled = |(coefficient, saturation): (f64, f64)| {
            level(coefficient * ramp, saturation * ramp * fit)
        };
        Conditions {
            spring: scaled(spring),
            damper: scaled((damper_coefficient, damper_saturation)),
            friction: scaled(friction),
            inertia: scaled(inertia),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DT: f64 = 0.001;
    const PARKED: DriveState = DriveState {
        robot_drives: false,
        resetting: false,
        paused: false,
    };

    fn dd_config() -> FfbConfig {
        FfbConfig {
            base_max_torque_nm: 20.0,
            torque_cap_nm: 10.0,
            ..FfbConfig::default()
        }
    }

    fn shaper(ffb: &FfbConfig) -> ConditionShaper {
        ConditionShaper::new(
            ConditionParams::from_config(ffb, &SteeringConfig::default()),
            DT,
        )
    }

    fn run(s: &mut ConditionShaper, speed: f64, drive: DriveState, ticks: usize) -> Conditions {
        let mut c = Conditions::default();
        for _ in 0..ticks {
            c = s.step(speed, drive, 1.0);
        }
        c
    }

    #[test]
    fn parked_car_gets_the_centring_spring_and_damper_after_the_blend() {
        let mut s = shaper(&dd_config());
        let c = run(&mut s, 0.0, PARKED, 600);
        // 0.02 N m/deg over half of 900 deg on a 20 N m base: 9 N m = 0.45 of the maximum.
        assert_eq!(c.spring.coefficient, (0.45 * 32767.0f64).floor() as i16);
        // Centring limited to 1 N m = 0.05 of the maximum.
        assert_eq!(c.spring.saturation, (0.05 * 32767.0f64).floor() as i16);
        assert_eq!(c.damper.coefficient, (0.1 * 32767.0f64).floor() as i16);
        assert_eq!(c.damper.saturation, c.spring.saturation);
        assert_eq!(c.friction, ConditionLevel::default(), "feel terms off");
        assert_eq!(c.inertia, ConditionLevel::default());
    }

    #[test]
    fn driving_blends_the_centring_out_smoothly_and_keeps_it_out() {
        let mut s = shaper(&dd_config());
        let parked = run(&mut s, 0.0, PARKED, 600);
        let mut last = parked.spring.coefficient;
        for _ in 0..600 {
            let c = s.step(20.0, PARKED, 1.0);
            // At most 1/500 of the full coefficient per 1 ms tick: no step.
            assert!(
                i32::from(last) - i32::from(c.spring.coefficient)
                    <= i32::from(parked.spring.coefficient) / 500 + 1
            );
            last = c.spring.coefficient;
        }
        let driving = s.step(20.0, PARKED, 1.0);
        assert_eq!(driving, Conditions::default());
        // Robot driving, a reset or a pause brings it back even at speed.
        let robot = DriveState {
            robot_drives: true,
            ..PARKED
        };
        assert_eq!(run(&mut s, 20.0, robot, 600).spring, parked.spring);
        assert_eq!(run(&mut s, 20.0, PARKED, 600), Conditions::default());
        let paused = DriveState {
            paused: true,
            ..PARKED
        };
        assert_eq!(run(&mut s, 20.0, paused, 600).spring, parked.spring);
    }

    #[test]
    fn the_ramp_scales_everything_from_zero() {
        let cfg = FfbConfig {
            feel_friction_nm: 0.5,
            ..dd_config()
        };
        let mut s = shaper(&cfg);
        run(&mut s, 0.0, PARKED, 600);
        let c = s.step(0.0, PARKED, 0.0);
        assert_eq!(c, Conditions::default());
        let half = s.step(0.0, PARKED, 0.5);
        let full = s.step(0.0, PARKED, 1.0);
        assert!(
            (i32::from(full.friction.saturation) - 2 * i32::from(half.friction.saturation)).abs()
                <= 1
        );
        // 0.5 N m of 20: 0.025 of the maximum.
        assert_eq!(
            full.friction.coefficient,
            (0.025 * 32767.0f64).floor() as i16
        );
    }

    #[test]
    fn feel_terms_fit_under_the_cap_together() {
        let cfg = FfbConfig {
            feel_damper_percent: 50.0,
            feel_inertia_percent: 20.0,
            feel_friction_nm: 2.0,
            ..dd_config()
        };
        let mut s = shaper(&cfg);
        let c = run(&mut s, 0.0, PARKED, 600);
        let cap = 0.5 * 32767.0;
        let total: i32 = [c.spring, c.damper, c.friction, c.inertia]
            .iter()
            .map(|l| i32::from(l.saturation))
            .sum();
        assert!(f64::from(total) <= cap + 1.0, "{total} > {cap}");
        assert!(c.inertia.coefficient > 0 && c.damper.coefficient > 0);
    }

    #[test]
    fn a_base_without_its_own_autocentre_gets_it_as_the_spring_driving_or_parked() {
        let cfg = FfbConfig {
            autocentre_percent: 30.0,
            centring_spring_nm_per_deg: 0.0,
            ..dd_config()
        };
        let mut s = shaper(&cfg);
        // The base does it itself (FF_AUTOCENTER): nothing here while driving.
        assert_eq!(
            run(&mut s, 20.0, PARKED, 10).spring,
            ConditionLevel::default()
        );
        s.set_spring_autocentre(true);
        let driving = run(&mut s, 20.0, PARKED, 10);
        // 30 % of the full coefficient, and at most 30 % of the 10 N m cap (0.5 of 20 N m).
        assert_eq!(
            driving.spring.coefficient,
            (0.3 * 32767.0f64).floor() as i16
        );
        assert_eq!(
            driving.spring.saturation,
            (0.15 * 32767.0f64).floor() as i16
        );
        // It rides the safety ramp like every other term.
        assert_eq!(s.step(20.0, PARKED, 0.0).spring, ConditionLevel::default());
        // Parked, the stronger of the two springs in each part (centring: 1 N m = 0.05).
        let parked_cfg = FfbConfig {
            autocentre_percent: 30.0,
            ..dd_config()
        };
        let mut s = shaper(&parked_cfg);
        s.set_spring_autocentre(true);
        let parked = run(&mut s, 0.0, PARKED, 600);
        assert_eq!(
            parked.spring.coefficient,
            (0.45 * 32767.0f64).floor() as i16
        );
        assert!(
            i32::from(parked.spring.saturation) + i32::from(parked.damper.saturation)
                <= (0.5 * 32767.0f64) as i32 + 1
        );
    }

    proptest! {
        #[test]
        fn saturations_never_exceed_the_cap_share(
            base in 0.5f64..50.0,
            cap_share in 0.01f64..1.0,
            spring in 0.0f64..1.0,
            centring_max in 0.0f64..50.0,
            damper in 0.0f64..100.0,
            friction in 0.0f64..50.0,
            feel_damper in 0.0f64..100.0,
            inertia in 0.0f64..100.0,
            autocentre in 0.0f64..100.0,
            spring_autocentre in any::<bool>(),
            speeds in proptest::collection::vec(prop_oneof![any::<f64>(), 0.0f64..5.0], 1..200),
            ramp in prop_oneof![any::<f64>(), 0.0f64..1.0],
            robot in any::<bool>(),
        ) {
            let cfg = FfbConfig {
                base_max_torque_nm: base,
                torque_cap_nm: base * cap_share,
                centring_spring_nm_per_deg: spring,
                centring_max_nm: centring_max,
                centring_damper_percent: damper,
                feel_friction_nm: friction,
                feel_damper_percent: feel_damper,
                feel_inertia_percent: inertia,
                autocentre_percent: autocentre,
                ..FfbConfig::default()
            };
            let mut s = shaper(&cfg);
            s.set_spring_autocentre(spring_autocentre);
            let cap = cap_share * 32767.0 + 1.0;
            for speed in speeds {
                let drive = DriveState { robot_drives: robot, resetting: false, paused: false };
                let c = s.step(speed, drive, ramp);
                let levels = [c.spring, c.damper, c.friction, c.inertia];
                let total: i32 = levels.iter().map(|l| i32::from(l.saturation)).sum();
                prop_assert!(f64::from(total) <= cap, "{:?}", c);
                for l in levels {
                    prop_assert!(l.coefficient >= 0 && l.saturation >= 0);
                    prop_assert_eq!(l.coefficient == 0, l.saturation == 0);
                }
                prop_assert!((0.0..=1.0).contains(&s.blend()));
            }
        }
    }
}
