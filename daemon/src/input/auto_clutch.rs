//! rigd's clutch for a player who has none (`[devices] auto_clutch`): a gamepad, or a wheel
//! with two pedals, must still be able to drive a car whose gearbox needs the clutch (the
//! road car's H-pattern box refuses a gear while the pedal is up).
//!
//! [`applies`] decides per session from the config (the input hub stamps the answer on every
//! [`PlayerInput`](super::player_input::PlayerInput)); [`ClutchAssist`] works the pedal on the
//! RT thread, step by step, from the player's controls and the car's telemetry after the last
//! step, as a driver's left foot would:
//! - **a shift:** a request for a gear that needs the clutch presses it fully in the same step
//!   (the gearbox takes the request at once), holds it while the box changes gear, then lets
//!   it out over [`RELEASE_S`]. A downshift blips the throttle while the engine turns slower
//!   than the lower gear will turn it, so letting the clutch out does not brake the driven
//!   wheels;
//! - **launch and stall prevention:** in gear, while the driven wheels would turn the engine
//!   below the launch speed (idle + [`LAUNCH_FRACTION`] of the rev range), the clutch slips in
//!   proportion to how far the engine is below that speed: fully pressed at idle (standing
//!   still in gear, or braking to a stop, does not stall), engaging as the throttle raises
//!   the revs; not for a car whose clutch engages by itself (centrifugal);
//! - **a stalled engine** with the ignition on is cranked with the clutch pressed (a pad has
//!   no starter button).
//!
//! The player's own clutch pedal, if any, still works: the deeper press wins. The controls
//! the physics consumed (with rigd's pedal) are what a recording keeps, so a replay needs no
//! assist. Plain state, no allocation per step.

use rig_config::devices::{AutoClutch, AxisFunction};
use rig_config::motion::SerialAxisFunction;
use rig_physics::drivetrain::Layout;
use rig_physics::{CarSpec, CarTelemetry, Controls, GearRequest};

/// Clutch let-out ramp after the gearbox has the new gear, s.
pub const RELEASE_S: f64 = 0.2;
/// Launch speed: idle plus this share of the range from idle to the rev limit.
pub const LAUNCH_FRACTION: f64 = 0.35;
/// rpm per rad/s.
const RPM_PER_RADPS: f64 = 30.0 / std::f64::consts::PI;

/// Whether rigd works the clutch for the player of `config`: `auto_clutch` says so, or says
/// `when_no_clutch_axis` and neither `[[devices.axis]]` nor any serial input maps a clutch.
pub fn applies(config: &rig_config::Config) -> bool {
    let clutch_axis = config
        .devices
        .axis
        .iter()
        .any(|axis| axis.function == AxisFunction::Clutch)
        || config.motion.serial_inputs.iter().any(|input| {
            input
                .axes
                .iter()
                .any(|axis| axis.function == SerialAxisFunction::Clutch)
        });
    match config.devices.auto_clutch {
        AutoClutch::WhenNoClutchAxis => !clutch_axis,
        AutoClutch::Always => true,
        AutoClutch::Never => false,
    }
}

/// What the assist needs to know about the car (from its document, at set-up).
#[derive(Debug, Clone)]
struct ClutchFacts {
    /// A gear change (other than into neutral) needs the pedal.
    shift_needs_clutch: bool,
    /// The clutch engages by itself with engine speed (no launch slip needed).
    centrifugal: bool,
    idle_rpm: f64,
    launch_rpm: f64,
    /// Which wheels the engine drives (FL, FR, RL, RR).
    driven: [bool; 4],
    /// Engine turns per wheel turn in each forward gear.
    forward_ratios: Vec<f64>,
    /// Engine turns per wheel turn in reverse (negative).
    reverse_ratio: f64,
}

impl ClutchFacts {
    fn of(car: &CarSpec) -> ClutchFacts {
        let drivetrain = &car.drivetrain;
        let gearbox = &drivetrain.gearbox;
        let engine = &drivetrain.engine;
        let (front, rear) = match drivetrain.layout {
            Layout::Fwd => (true, false),
            Layout::Rwd => (false, true),
            Layout::Awd => (true, true),
        };
        ClutchFacts {
            shift_needs_clutch: gearbox.requires_clutch,
            centrifugal: drivetrain.clutch.auto_engage_rpm.is_some(),
            idle_rpm: engine.idle_rpm,
            launch_rpm: engine.idle_rpm
                + LAUNCH_FRACTION * (engine.rev_limit_rpm - engine.idle_rpm),
            driven: [front, front, rear, rear],
            forward_ratios: gearbox
                .forward_ratios
                .iter()
                .map(|ratio| ratio * gearbox.final_drive_ratio)
                .collect(),
            reverse_ratio: -gearbox.reverse_ratio * gearbox.final_drive_ratio,
        }
    }

    /// The engine speed the driven wheels give in `gear` (0 in neutral), rpm; negative when
    /// they turn against the gear.
    fn wheel_rpm(&self, gear: i8, car: &CarTelemetry) -> f64 {
        let ratio = match gear {
            0 => return 0.0,
            -1 => self.reverse_ratio,
            g => match self.forward_ratios.get(g as usize - 1) {
                Some(ratio) => *ratio,
                None => return 0.0,
            },
        };
        let (mut sum, mut count) = (0.0, 0.0);
        for (wheel, driven) in car.wheels.iter().zip(self.driven) {
            if driven {
                sum += wheel.angular_velocity_radps;
                count += 1.0;
            }
        }
        if count == 0.0 {
            return 0.0;
        }
        sum / count * ratio * RPM_PER_RADPS
    }

    /// The gear `request` asks for from `gear` when the change needs the clutch (`None`: it
    /// asks nothing, asks for neutral, or for a gear the box does not have).
    fn clutch_change(&self, request: GearRequest, gear: i8) -> Option<i8> {
        if !self.shift_needs_clutch {
            return None;
        }
        let wanted = match request {
            GearRequest::None => return None,
            GearRequest::Up => gear.saturating_add(1),
            GearRequest::Down => gear.saturating_sub(1),
            GearRequest::Select(g) => g,
        };
        let exists = wanted == -1 || (wanted >= 1 && wanted as usize <= self.forward_ratios.len());
        (wanted != gear && exists).then_some(wanted)
    }
}

/// Where the assist is in a shift.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shift {
    /// No shift of its own: only launch slip.
    None,
    /// Pedal down until the gearbox has `to` (`requested`: the request went out this step,
    /// the telemetry does not show the shift yet).
    Pressed { to: i8, down: bool, requested: bool },
    /// Letting the pedal out, `elapsed_s` into [`RELEASE_S`].
    Releasing { to: i8, down: bool, elapsed_s: f64 },
}

/// The player car's automatic clutch.
#[derive(Debug, Clone)]
pub struct ClutchAssist {
    facts: ClutchFacts,
    shift: Shift,
}

impl ClutchAssist {
    /// The assist for `car` (set-up: allocates).
    pub fn new(car: &CarSpec) -> ClutchAssist {
        ClutchAssist {
            facts: ClutchFacts::of(car),
            shift: Shift::None,
        }
    }

    /// Forgets a shift in progress (the car was reset, or the player's own controls drive).
    pub fn reset(&mut self) {
        self.shift = Shift::None;
    }

    /// The controls for the next step of `dt_s`: the player's `controls` with rigd's clutch
    /// (and a downshift's blip, a stalled engine's starter), given the car's telemetry after
    /// the last step.
    pub fn controls(&mut self, controls: Controls, car: &CarTelemetry, dt_s: f64) -> Controls {
        let drivetrain = &car.drivetrain;
        let gear = drivetrain.gear;
        let mut out = controls;
        if let Some(to) = self.facts.clutch_change(controls.gear_request, gear) {
            self.shift = Shift::Pressed {
                to,
                down: to > 0 && to < gear,
                requested: true,
            };
        }
        let mut pedal: f64 = 0.0;
        match self.shift {
            Shift::None => {}
            Shift::Pressed {
                to,
                down,
                requested,
            } => {
                pedal = 1.0;
                self.shift = if requested || drivetrain.shifting {
                    Shift::Pressed {
                        to,
                        down,
                        requested: false,
                    }
                } else {
                    Shift::Releasing {
                        to,
                        down,
                        elapsed_s: 0.0,
                    }
                };
                self.blip(&mut out, to, down, car);
            }
            Shift::Releasing {
                to,
                down,
                elapsed_s,
            } => {
                pedal = 1.0 - (elapsed_s / RELEASE_S).min(1.0);
                let elapsed_s = elapsed_s + dt_s;
                self.shift = if elapsed_s >= RELEASE_S {
                    Shift::None
                } else {
                    Shift::Releasing {
                        to,
                        down,
                        elapsed_s,
                    }
                };
                self.blip(&mut out, to, down, car);
            }
        }
        if drivetrain.engine_running {
            pedal = pedal.max(self.launch_slip(gear, drivetrain.engine_rpm, car));
        } else if controls.ignition {
            out.starter = true;
            pedal = 1.0;
        }
        out.clutch = out.clutch.max(pedal);
        out
    }

    /// Full throttle on a downshift to `to` while the engine turns slower than that gear will
    /// turn it.
    fn blip(&self, out: &mut Controls, to: i8, down: bool, car: &CarTelemetry) {
        if down && car.drivetrain.engine_rpm < self.facts.wheel_rpm(to, car) {
            out.throttle = 1.0;
        }
    }

    /// Clutch pedal that keeps the engine at or above the launch speed while the wheels turn
    /// it slower than that (0 when they turn it faster, in neutral, or with a centrifugal
    /// clutch).
    fn launch_slip(&self, gear: i8, engine_rpm: f64, car: &CarTelemetry) -> f64 {
        let facts = &self.facts;
        if facts.centrifugal || gear == 0 || facts.wheel_rpm(gear, car) >= facts.launch_rpm {
            return 0.0;
        }
        let slip = (facts.launch_rpm - engine_rpm) / (facts.launch_rpm - facts.idle_rpm);
        if slip.is_finite() {
            slip.clamp(0.0, 1.0)
        } else {
            1.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::player_input::PlayerInput;
    use crate::runtime::simulation::Simulation;
    use rig_config::sim::SimConfig;

    fn example(name: &str, text: &str) -> rig_config::Config {
        rig_config::parse(text, name).expect("a valid example")
    }

    #[test]
    fn rigd_works_the_clutch_only_for_a_player_without_one() {
        let mut pad = rig_config::Config::default();
        assert!(applies(&pad), "the default config drives with a gamepad");
        pad.devices.auto_clutch = AutoClutch::Never;
        assert!(!applies(&pad));

        // A wheel with a clutch pedal keeps its own clutch.
        let mut wheel = example(
            "examples/g29.toml",
            include_str!("../../../examples/g29.toml"),
        );
        assert!(!applies(&wheel));
        wheel.devices.auto_clutch = AutoClutch::Always;
        assert!(applies(&wheel));
        // A two-pedal set has none.
        wheel.devices.auto_clutch = AutoClutch::WhenNoClutchAxis;
        wheel
            .devices
            .axis
            .retain(|axis| axis.function != AxisFunction::Clutch);
        assert!(applies(&wheel));

        // A DIY serial clutch counts as the player's clutch.
        let mut seat = example(
            "examples/motion-smc3-seat.toml",
            include_str!("../../../examples/motion-smc3-seat.toml"),
        );
        assert!(applies(&seat));
        seat.motion.serial_inputs[0].axes[0].function = SerialAxisFunction::Clutch;
        assert!(!applies(&seat));
    }

    /// The road car at 1 kHz driven with `controls` and rigd's clutch.
    struct Drive {
        sim: Simulation,
    }

    impl Drive {
        fn road() -> Drive {
            Drive {
                sim: Simulation::build(&SimConfig::default(), 1000).expect("the road car"),
            }
        }

        /// `seconds` of `controls`; a gear request goes out on the first step only.
        fn run_s(&mut self, controls: Controls, seconds: f64, mut each: impl FnMut(&CarTelemetry)) {
            let mut input = PlayerInput {
                connected: true,
                controls,
                auto_clutch: true,
                ..PlayerInput::DISCONNECTED
            };
            for _ in 0..(seconds * 1000.0).round() as usize {
                self.sim.step(&input);
                input.controls.gear_request = GearRequest::None;
                each(&self.sim.player_telemetry());
            }
        }

        fn car(&self) -> CarTelemetry {
            self.sim.player_telemetry()
        }
    }

    fn pedals(throttle: f64, brake: f64, gear_request: GearRequest) -> Controls {
        Controls {
            throttle,
            brake,
            gear_request,
            ignition: true,
            ..Controls::default()
        }
    }

    #[test]
    fn braking_to_a_stop_in_gear_does_not_stall_and_the_car_drives_off_again() {
        let mut drive = Drive::road();
        drive.run_s(pedals(0.0, 0.0, GearRequest::Up), 0.5, |_| {});
        drive.run_s(pedals(1.0, 0.0, GearRequest::None), 2.5, |_| {});
        let moving = drive.car();
        assert_eq!(moving.drivetrain.gear, 1);
        assert!(moving.speed_mps > 8.0, "{} m/s", moving.speed_mps);

        let mut lowest_rpm = f64::INFINITY;
        drive.run_s(pedals(0.0, 0.6, GearRequest::None), 6.0, |car| {
            lowest_rpm = lowest_rpm.min(car.drivetrain.engine_rpm);
        });
        let stopped = drive.car();
        assert!(stopped.speed_mps < 0.05, "{} m/s", stopped.speed_mps);
        assert_eq!(stopped.drivetrain.gear, 1, "still in gear");
        assert!(stopped.drivetrain.engine_running, "no stall");
        assert!(
            lowest_rpm > 700.0,
            "the engine stays near idle: {lowest_rpm} rpm"
        );

        drive.run_s(pedals(0.5, 0.0, GearRequest::None), 3.0, |_| {});
        assert!(drive.car().speed_mps > 5.0, "{} m/s", drive.car().speed_mps);
    }

    #[test]
    fn a_stalled_engine_is_cranked_and_runs_again() {
        let mut drive = Drive::road();
        let ignition_off = Controls {
            ignition: false,
            ..pedals(0.0, 0.0, GearRequest::None)
        };
        drive.run_s(ignition_off, 2.0, |_| {});
        assert!(!drive.car().drivetrain.engine_running);
        drive.run_s(pedals(0.0, 0.0, GearRequest::None), 2.0, |_| {});
        let car = drive.car();
        assert!(car.drivetrain.engine_running);
        assert!(
            car.drivetrain.engine_rpm > 700.0,
            "{} rpm",
            car.drivetrain.engine_rpm
        );
    }
}
