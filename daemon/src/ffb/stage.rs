//! The force-feedback output stage on the RT thread: runs the [`FfbChain`] on each frame's
//! steering torque and the [`ConditionShaper`] on the car's speed and who drives (from the
//! link), and hands the device command to the writer thread through a wait-free latest-value
//! slot; when the command differs from the previous one (anything but its sequence) it also
//! rings the writer's doorbell ([`FfbLink::ring_writer`]) so the write follows the tick at
//! once. Also computes the shift-light LED mask from the engine rpm.
//!
//! Safety rules enforced here (the writer enforces its own on top): zero force and all
//! condition effects off in the same tick as any `safe_stop` (exit, reload, fault, e-stop),
//! while the e-stop latch is set, and for any tick whose physics torque is not finite; the
//! ramp, which scales the condition effects too, restarts after every resume, reconnect and
//! e-stop re-arm. Every zero publishes why ([`FfbHold`] in the status: stopping, fault,
//! e-stop; no device while the writer has none open) for the log, `STATUS=` and the dashboard.
//! Nothing here allocates, blocks or logs (the doorbell is a non-blocking futex wake).

use std::sync::Arc;

use rig_config::devices::{DevicesConfig, ShiftLightsConfig};
use rig_protocols::{FfbHold, FfbStatus, Frame};

use super::chain::{ChainParams, FfbChain};
use super::conditions::{ConditionParams, ConditionShaper};
use super::link::FfbLink;
use crate::rt::handoff::LatestWriter;
use crate::rt::stage::{RtStage, StopReason};

/// What the RT thread asks of the FFB writer thread (latest value wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FfbCommand {
    /// Advances every tick; a writer that sees it stand still knows the loop stalled.
    pub sequence: u64,
    /// The loop idles (nobody drives; it ticks about 20 times a second and `play` is false):
    /// a slowly advancing `sequence` is then no stall.
    pub loop_idle: bool,
    /// Constant-force level for the device, -32767 ..= 32767 (positive pulls left).
    pub level: i16,
    /// False: stop the effect now (safe stop, e-stop, fault).
    pub play: bool,
    /// Shift-light LED mask, bit 0 = first (outermost) LED, 5 LEDs.
    pub leds: u8,
    /// Device-side condition effects; all off whenever `play` is false.
    pub conditions: Conditions,
}

/// Strength of one device-side condition effect (spring, damper, friction or inertia), as
/// shares of the device's maximum so every backend can scale it to its own units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConditionLevel {
    /// Coefficient, 0 ..= 32767 (0 = the effect is off); the same for both directions.
    pub coefficient: i16,
    /// Largest force the effect may give, 0 ..= 32767 (ramp and torque cap already applied).
    pub saturation: i16,
}

/// The condition effects a command asks the device to run, centred on the rim's centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Conditions {
    /// Centring spring (force against the rim angle).
    pub spring: ConditionLevel,
    /// Damper (force against the rim speed).
    pub damper: ConditionLevel,
    /// Friction (constant force against the direction of motion).
    pub friction: ConditionLevel,
    /// Inertia (force against the rim acceleration).
    pub inertia: ConditionLevel,
}

/// Number of shift-light LEDs on a G27/G29/G923.
pub const SHIFT_LEDS: u8 = 5;

/// LED mask for `rpm` against the rev limit `max_rpm`: none below the first threshold, all
/// five at or above the last, evenly filled in between.
pub fn shift_light_mask(lights: &ShiftLightsConfig, rpm: f64, max_rpm: f64) -> u8 {
    if !(lights.enabled && rpm.is_finite() && max_rpm.is_finite()) || max_rpm <= 0.0 {
        return 0;
    }
    let share = rpm / max_rpm;
    let first = lights.first_led_rpm_fraction;
    let span = (lights.all_leds_rpm_fraction - first).max(1e-6);
    if share < first {
        return 0;
    }
    let lit = 1 + ((share - first) / span * f64::from(SHIFT_LEDS - 1)).floor() as i64;
    let lit = lit.clamp(0, i64::from(SHIFT_LEDS)) as u32;
    ((1u32 << lit) - 1) as u8
}

/// The FFB stage.
pub struct FfbStage {
    chain: FfbChain,
    conditions: ConditionShaper,
    lights: ShiftLightsConfig,
    link: Arc<FfbLink>,
    commands: LatestWriter<FfbCommand>,
    sequence: u64,
    /// The last command published (its sequence left at 0), to ring the writer on a change.
    last_sent: FfbCommand,
    halted: Option<StopReason>,
    seen_connections: u32,
}

impl std::fmt::Debug for FfbStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FfbStage")
            .field("halted", &self.halted)
            .field("ramp", &self.chain.ramp())
            .finish()
    }
}

impl FfbStage {
    /// A stage ticking every `dt_s` seconds that writes commands into `commands`.
    pub fn new(
        config: &DevicesConfig,
        dt_s: f64,
        link: Arc<FfbLink>,
        commands: LatestWriter<FfbCommand>,
    ) -> FfbStage {
        let params = ChainParams::from_config(&config.ffb, &config.steering);
        let conditions = ConditionParams::from_config(&config.ffb, &config.steering);
        FfbStage {
            chain: FfbChain::new(params, dt_s),
            conditions: ConditionShaper::new(conditions, dt_s),
            lights: config.shift_lights.clone(),
            seen_connections: link.connections(),
            link,
            commands,
            sequence: 0,
            last_sent: FfbCommand::default(),
            halted: None,
        }
    }

    /// Why the stage is holding zero force, if it is.
    pub fn halted(&self) -> Option<StopReason> {
        self.halted
    }

    fn send(&mut self, level: i16, play: bool, leds: u8, conditions: Conditions) {
        let command = FfbCommand {
            sequence: 0,
            loop_idle: self.halted == Some(StopReason::Idle),
            level,
            play,
            leds,
            conditions,
        };
        self.commands.write(FfbCommand {
            sequence: self.sequence,
            ..command
        });
        if command != self.last_sent {
            self.last_sent = command;
            self.link.ring_writer();
        }
    }

    fn zero(&mut self, leds: u8, hold: FfbHold) {
        self.chain.reset();
        self.send(0, false, leds, Conditions::default());
        let clip = self.link.status().clipping_share;
        self.link.publish_status(FfbStatus {
            active: false,
            output: 0.0,
            clipping: false,
            clipping_share: clip,
            hold,
        });
    }

    /// Why the stage holds zero force now, if it does (a safe stop first, then the e-stop).
    fn hold(&self) -> Option<FfbHold> {
        match self.halted {
            Some(StopReason::Exit | StopReason::Reload) => Some(FfbHold::Stopping),
            Some(StopReason::Fault) => Some(FfbHold::Fault),
            Some(StopReason::EmergencyStop) => Some(FfbHold::EmergencyStop),
            // Idle means no wheel or gamepad drives: usually the FFB device is unplugged too.
            Some(StopReason::Idle) => Some(FfbHold::NoDevice),
            // A game source's hold: the stage is not built in game mode (the game keeps the
            // force feedback), so no device is driven by rigd.
            Some(StopReason::Source) => Some(FfbHold::NoDevice),
            None => self.link.estop().then_some(FfbHold::EmergencyStop),
        }
    }
}

impl RtStage for FfbStage {
    fn on_tick(&mut self, frame: &Frame) {
        self.sequence += 1;
        let drivetrain = &frame.car.drivetrain;
        let leds = shift_light_mask(&self.lights, drivetrain.engine_rpm, drivetrain.max_rpm);
        let connections = self.link.connections();
        if connections != self.seen_connections || !self.link.device_connected() {
            // Reopened or gone: never resume the last torque, ramp in from zero.
            self.seen_connections = connections;
            self.chain.reset();
        }
        if let Some(hold) = self.hold() {
            self.zero(leds, hold);
            return;
        }
        let out = self
            .chain
            .step(frame.car.steering_torque_nm, self.link.rim());
        if out.fault {
            self.zero(leds, FfbHold::Fault);
            return;
        }
        let level = (out.fraction * f64::from(i16::MAX)).round() as i16;
        self.conditions
            .set_spring_autocentre(self.link.spring_autocentre());
        let conditions =
            self.conditions
                .step(frame.car.speed_mps, self.link.drive(), self.chain.ramp());
        self.send(level, true, leds, conditions);
        let connected = self.link.device_connected();
        self.link.publish_status(FfbStatus {
            active: connected,
            output: out.fraction,
            clipping: out.clipped,
            clipping_share: out.clipping_share,
            hold: if connected {
                FfbHold::None
            } else {
                FfbHold::NoDevice
            },
        });
    }

    fn safe_stop(&mut self, reason: StopReason) {
        self.halted = Some(reason);
        let hold = self.hold().unwrap_or(FfbHold::Fault);
        self.zero(0, hold);
    }

    fn resume(&mut self) {
        self.halted = None;
        self.chain.reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rt::handoff::latest_value;

    fn frame(torque: f64) -> Frame {
        let mut f = Frame::default();
        f.car.steering_torque_nm = torque;
        f
    }

    #[test]
    fn safe_stop_zeroes_in_the_same_tick_and_resume_ramps_again() {
        let link = FfbLink::new();
        link.set_device_connected(true);
        let (w, mut r) = latest_value(FfbCommand::default());
        let mut stage = FfbStage::new(&DevicesConfig::default(), 0.001, link.clone(), w);
        for _ in 0..3000 {
            stage.on_tick(&frame(1.1));
        }
        let cmd = r.read();
        assert!(
            cmd.play && (i32::from(cmd.level) - 16384).abs() <= 1,
            "{cmd:?}"
        );
        assert!(link.status().active && (link.status().output - 0.5).abs() < 1e-6);
        stage.safe_stop(StopReason::Reload);
        let cmd = r.read();
        assert!(!cmd.play && cmd.level == 0);
        stage.on_tick(&frame(1.1));
        assert!(!r.read().play);
        stage.resume();
        stage.on_tick(&frame(1.1));
        let cmd = r.read();
        assert!(cmd.play && cmd.level.abs() < 50, "ramping again: {cmd:?}");
    }

    #[test]
    fn estop_latch_and_reconnect_restart_from_zero() {
        let link = FfbLink::new();
        link.set_device_connected(true);
        let (w, mut r) = latest_value(FfbCommand::default());
        let mut stage = FfbStage::new(&DevicesConfig::default(), 0.001, link.clone(), w);
        for _ in 0..3000 {
            stage.on_tick(&frame(-2.0));
        }
        assert!(r.read().level < -29000);
        link.set_estop(true);
        stage.on_tick(&frame(-2.0));
        assert_eq!(r.read().level, 0);
        link.set_estop(false);
        stage.on_tick(&frame(-2.0));
        assert!(r.read().level > -100);
        for _ in 0..3000 {
            stage.on_tick(&frame(-2.0));
        }
        link.set_device_connected(true); // a reconnect
        stage.on_tick(&frame(-2.0));
        assert!(r.read().level > -100, "reconnect ramps from zero");
    }

    #[test]
    fn every_hold_is_published_with_its_reason_and_counted_once() {
        let link = FfbLink::new();
        link.set_device_connected(true);
        let (w, _r) = latest_value(FfbCommand::default());
        let mut stage = FfbStage::new(&DevicesConfig::default(), 0.001, link.clone(), w);
        stage.on_tick(&frame(1.0));
        assert_eq!(link.hold(), FfbHold::None);
        assert_eq!(link.hold_starts().0, 0);
        // The start-up fault hold of issue 18: held for many ticks, counted once.
        stage.safe_stop(StopReason::Fault);
        for _ in 0..100 {
            stage.on_tick(&frame(1.0));
        }
        assert_eq!(link.hold(), FfbHold::Fault);
        assert_eq!(link.status().hold, FfbHold::Fault);
        assert_eq!(link.hold_starts(), (1, FfbHold::Fault));
        stage.resume();
        stage.on_tick(&frame(1.0));
        assert_eq!(link.hold(), FfbHold::None);
        link.set_estop(true);
        stage.on_tick(&frame(1.0));
        assert_eq!(link.hold_starts(), (2, FfbHold::EmergencyStop));
        link.set_estop(false);
        link.set_device_connected(false);
        stage.on_tick(&frame(1.0));
        assert_eq!(link.hold(), FfbHold::NoDevice);
        assert!(!link.status().active);
        link.set_loop_stalled(true);
        assert_eq!(link.hold(), FfbHold::LoopStalled);
        assert_eq!(link.hold_starts(), (4, FfbHold::LoopStalled));
    }

    #[test]
    fn parked_car_gets_centring_conditions_that_estop_and_faults_clear_the_same_tick() {
        let link = FfbLink::new();
        link.set_device_connected(true);
        let (w, mut r) = latest_value(FfbCommand::default());
        let mut stage = FfbStage::new(&DevicesConfig::default(), 0.001, link.clone(), w);
        let mut parked = frame(0.0);
        parked.car.speed_mps = 0.2;
        for _ in 0..3000 {
            stage.on_tick(&parked);
        }
        let cmd = r.read();
        // Defaults on the 2.2 N m base: the spring coefficient saturates (0.02 N m/deg over
        // 450 deg is 9 N m), the spring gives at most 1 N m, the damper is 10 %.
        assert_eq!(cmd.conditions.spring.coefficient, 32767);
        assert_eq!(
            cmd.conditions.spring.saturation,
            (1.0 / 2.2 * 32767.0f64).floor() as i16
        );
        assert_eq!(cmd.conditions.damper.coefficient, 3276);
        link.set_estop(true);
        stage.on_tick(&parked);
        let cmd = r.read();
        assert!(
            !cmd.play && cmd.conditions == Conditions::default(),
            "{cmd:?}"
        );
        link.set_estop(false);
        stage.on_tick(&parked);
        let cmd = r.read();
        assert!(
            cmd.play && cmd.conditions.spring.saturation < 20,
            "ramps in again: {cmd:?}"
        );
        for _ in 0..3000 {
            stage.on_tick(&parked);
        }
        stage.on_tick(&frame(f64::NAN));
        assert_eq!(r.read().conditions, Conditions::default());
    }

    #[test]
    fn driving_clears_the_centring_and_the_robot_brings_it_back() {
        let link = FfbLink::new();
        link.set_device_connected(true);
        let (w, mut r) = latest_value(FfbCommand::default());
        let mut stage = FfbStage::new(&DevicesConfig::default(), 0.001, link.clone(), w);
        let mut driving = frame(0.5);
        driving.car.speed_mps = 30.0;
        for _ in 0..3000 {
            stage.on_tick(&driving);
        }
        assert_eq!(r.read().conditions, Conditions::default());
        link.publish_drive(super::super::conditions::DriveState {
            robot_drives: true,
            resetting: false,
            paused: false,
        });
        for _ in 0..600 {
            stage.on_tick(&driving);
        }
        assert_eq!(r.read().conditions.spring.coefficient, 32767);
    }

    #[test]
    fn the_writer_is_rung_when_the_command_changes_and_only_then() {
        let link = FfbLink::new();
        link.set_device_connected(true);
        let (w, _r) = latest_value(FfbCommand::default());
        let mut stage = FfbStage::new(&DevicesConfig::default(), 0.001, link.clone(), w);
        let rung = || link.wait_for_command(std::time::Duration::ZERO);
        for _ in 0..3000 {
            stage.on_tick(&frame(1.1));
        }
        assert!(rung(), "the ramp changed the level");
        stage.on_tick(&frame(1.1));
        stage.on_tick(&frame(1.1));
        assert!(!rung(), "same level, only the sequence advanced: no ring");
        stage.on_tick(&frame(-1.1));
        assert!(rung(), "a new level rings");
        assert!(!rung());
        stage.safe_stop(StopReason::Exit);
        assert!(rung(), "the stop rings at once");
    }

    #[test]
    fn nan_torque_gives_zero_force_that_tick() {
        let link = FfbLink::new();
        let (w, mut r) = latest_value(FfbCommand::default());
        let mut stage = FfbStage::new(&DevicesConfig::default(), 0.001, link, w);
        stage.on_tick(&frame(f64::NAN));
        let cmd = r.read();
        assert!(!cmd.play && cmd.level == 0);
    }

    #[test]
    fn shift_lights_fill_between_the_thresholds() {
        let lights = ShiftLightsConfig::default();
        assert_eq!(shift_light_mask(&lights, 5000.0, 8000.0), 0);
        assert_eq!(shift_light_mask(&lights, 6000.0, 8000.0), 0b1);
        assert_eq!(shift_light_mask(&lights, 7600.0, 8000.0), 0b11111);
        assert_eq!(shift_light_mask(&lights, f64::NAN, 8000.0), 0);
        let mid = shift_light_mask(&lights, 6800.0, 8000.0);
        assert_eq!(mid, 0b111, "0.85 of the limit lights three LEDs");
    }
}
