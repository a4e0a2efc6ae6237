//! Gamepad rumble from the car: the strong motor follows tyre slip past the grip peak, the weak
//! motor buzzes on kerbs. Pure and allocation-free ([`rumble_for`]), plus the RT stage that
//! publishes it each tick through one atomic ([`RumbleStage`]) for the gamepad thread. The
//! [`RumbleLink`] is built per session and handed to both.
//!
//! Scale: slip is measured against typical peak-grip values (slip ratio 0.1, slip angle
//! 0.12 rad); the strong motor starts at the peak and reaches full at three times it. Kerb
//! buzz grows with speed up to 30 m/s. Both are multiplied by the configured gain.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use rig_config::devices::DevicesConfig;

use rig_physics::{CarTelemetry, SurfaceKind};
use rig_protocols::Frame;

use crate::rt::stage::{RtStage, StopReason};

/// Slip ratio at which a tyre is at its grip peak (typical road tyre).
const PEAK_SLIP_RATIO: f64 = 0.1;
/// Slip angle at the grip peak, rad.
const PEAK_SLIP_ANGLE_RAD: f64 = 0.12;
/// Speed at which the kerb buzz is full, m/s.
const KERB_FULL_SPEED_MPS: f64 = 30.0;

/// Motor magnitudes `(strong, weak)`, 0 ..= 0xFFFF.
pub fn rumble_for(car: &CarTelemetry, gain: f64) -> (u16, u16) {
    let gain = if gain.is_finite() {
        gain.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let slip = car
        .wheels
        .iter()
        .filter(|w| w.in_contact)
        .map(|w| {
            (w.slip_ratio.abs() / PEAK_SLIP_RATIO).max(w.slip_angle_rad.abs() / PEAK_SLIP_ANGLE_RAD)
        })
        .filter(|s| s.is_finite())
        .fold(0.0, f64::max);
    let strong = ((slip - 1.0) / 2.0).clamp(0.0, 1.0);
    let on_kerb = car
        .wheels
        .iter()
        .any(|w| w.in_contact && w.surface == SurfaceKind::Kerb);
    let speed = if car.speed_mps.is_finite() {
        car.speed_mps
    } else {
        0.0
    };
    let weak = if on_kerb && speed > 2.0 {
        0.4 + 0.6 * (speed / KERB_FULL_SPEED_MPS).min(1.0)
    } else {
        0.0
    };
    let to_u16 = |x: f64| (x * gain * f64::from(u16::MAX)).round() as u16;
    (to_u16(strong), to_u16(weak))
}

/// Packs `(strong, weak)` into one atomic word.
fn pack(strong: u16, weak: u16) -> u32 {
    (u32::from(strong) << 16) | u32::from(weak)
}

/// The shared rumble command (RT stage writes, gamepad thread reads).
#[derive(Debug, Default)]
pub struct RumbleLink(AtomicU32);

impl RumbleLink {
    /// The latest `(strong, weak)`.
    pub fn get(&self) -> (u16, u16) {
        let v = self.0.load(Ordering::Relaxed);
        ((v >> 16) as u16, v as u16)
    }

    fn set(&self, strong: u16, weak: u16) {
        self.0.store(pack(strong, weak), Ordering::Relaxed);
    }
}

/// The rumble stage when a gamepad drives (feature `gamepad`, `[devices.gamepad]` enabled
/// with a rumble gain, and no evdev axis mapped), writing into the session's `link`.
pub fn stage(devices: &DevicesConfig, link: &Arc<RumbleLink>) -> Option<RumbleStage> {
    let gamepad_rumble = devices.gamepad.enabled && devices.gamepad.rumble_gain > 0.0;
    (cfg!(feature = "gamepad") && gamepad_rumble && devices.axis.is_empty())
        .then(|| RumbleStage::new(Arc::clone(link), devices.gamepad.rumble_gain))
}

/// RT stage computing the rumble each tick.
#[derive(Debug)]
pub struct RumbleStage {
    link: Arc<RumbleLink>,
    gain: f64,
    stopped: bool,
}

impl RumbleStage {
    /// A stage writing into `link` with the configured gain.
    pub fn new(link: Arc<RumbleLink>, gain: f64) -> RumbleStage {
        RumbleStage {
            link,
            gain,
            stopped: false,
        }
    }
}

impl RtStage for RumbleStage {
    fn name(&self) -> &'static str {
        "rumble"
    }
    fn on_tick(&mut self, frame: &Frame) {
        if self.stopped {
            return self.link.set(0, 0);
        }
        let (strong, weak) = rumble_for(&frame.car, self.gain);
        self.link.set(strong, weak);
    }

    fn safe_stop(&mut self, _reason: StopReason) {
        self.stopped = true;
        self.link.set(0, 0);
    }

    fn resume(&mut self) {
        self.stopped = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn car() -> CarTelemetry {
        let mut c = CarTelemetry::default();
        for w in &mut c.wheels {
            w.in_contact = true;
        }
        c.speed_mps = 20.0;
        c
    }

    #[test]
    fn grip_below_the_peak_is_quiet_and_sliding_rumbles() {
        let mut c = car();
        c.wheels[0].slip_ratio = 0.08;
        assert_eq!(rumble_for(&c, 1.0), (0, 0));
        c.wheels[2].slip_ratio = 0.2; // twice the peak: half strength
        let (strong, weak) = rumble_for(&c, 1.0);
        assert!((i32::from(strong) - 32768).abs() <= 1 && weak == 0);
        c.wheels[2].slip_angle_rad = f64::NAN;
        c.wheels[2].slip_ratio = f64::NAN;
        assert_eq!(rumble_for(&c, 1.0), (0, 0));
    }

    #[test]
    fn kerbs_buzz_with_speed_and_gain_scales() {
        let mut c = car();
        c.wheels[1].surface = SurfaceKind::Kerb;
        let (_, weak) = rumble_for(&c, 1.0);
        assert_eq!(weak, (0.8 * 65535.0f64).round() as u16);
        let (_, half) = rumble_for(&c, 0.5);
        assert_eq!(half, (0.4 * 65535.0f64).round() as u16);
        c.speed_mps = 1.0;
        assert_eq!(rumble_for(&c, 1.0), (0, 0));
    }

    /// Gamepads work out of the box (issue 19): the default build has gilrs and the default
    /// config reads and rumbles the first gamepad; a mapped wheel takes over from it.
    #[test]
    fn the_default_build_and_config_rumble_a_gamepad_until_a_wheel_is_mapped() {
        let link = Arc::new(RumbleLink::default());
        let mut devices = DevicesConfig::default();
        assert!(devices.gamepad.enabled && devices.gamepad.rumble_gain == 0.5);
        assert!(
            stage(&devices, &link).is_some(),
            "no rumble stage: the default features must include `gamepad` (daemon/Cargo.toml)"
        );
        let g29: rig_config::Config = toml::from_str(include_str!("../../../examples/g29.toml"))
            .expect("examples/g29.toml parses");
        devices.axis = g29.devices.axis;
        assert!(!devices.axis.is_empty());
        assert!(stage(&devices, &link).is_none());
    }

    #[test]
    fn safe_stop_silences_the_motors() {
        let link = Arc::new(RumbleLink::default());
        let mut stage = RumbleStage::new(link.clone(), 1.0);
        let mut f = Frame {
            car: car(),
            ..Frame::default()
        };
        f.car.wheels[0].slip_ratio = 1.0;
        stage.on_tick(&f);
        assert!(link.get().0 > 0);
        stage.safe_stop(StopReason::Exit);
        assert_eq!(link.get(), (0, 0));
        stage.on_tick(&f);
        assert_eq!(link.get(), (0, 0));
    }
}
