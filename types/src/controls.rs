//! What a driver (human through rigd's input layer, or a robot) asks of one car in one step.
//!
//! Controls are plain `Copy` data so the input threads can hand the latest value to the
//! real-time thread through a latest-value slot. Every analogue value is normalised; the car's
//! own data turns them into angles and torques. Out-of-range or non-finite values are clamped
//! by [`Controls::sanitized`] at the physics boundary, never trusted.

/// A gear change request for this step. Requests are edge events: the input layer sends
/// `Up` once per button press, not while the button is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GearRequest {
    /// Keep the current gear.
    #[default]
    None,
    /// Sequential shift up.
    Up,
    /// Sequential shift down.
    Down,
    /// H-pattern: select this gear (-1 reverse, 0 neutral, 1.. forward gears).
    Select(i8),
}

/// The controls of one car for one step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Controls {
    /// Steering, -1 (full right lock) ..= +1 (full left lock). Positive turns left (ISO 8855).
    pub steering: f64,
    /// Throttle pedal, 0 ..= 1.
    pub throttle: f64,
    /// Brake pedal, 0 ..= 1.
    pub brake: f64,
    /// Clutch pedal, 0 (released, engaged) ..= 1 (pressed, disengaged).
    pub clutch: f64,
    /// Handbrake lever, 0 ..= 1.
    pub handbrake: f64,
    /// Gear change request for this step.
    pub gear_request: GearRequest,
    /// Ignition on.
    pub ignition: bool,
    /// Starter motor engaged (while held).
    pub starter: bool,
}

impl Controls {
    /// Controls that keep a car safe and still: no throttle, full brake, ignition on.
    pub const SAFE_STOP: Controls = Controls {
        steering: 0.0,
        throttle: 0.0,
        brake: 1.0,
        clutch: 0.0,
        handbrake: 0.0,
        gear_request: GearRequest::None,
        ignition: true,
        starter: false,
    };

    /// The same controls with every analogue value finite and inside its range
    /// (non-finite values become 0, the safe value for every pedal and the wheel).
    pub fn sanitized(self) -> Controls {
        fn clamp(v: f64, lo: f64, hi: f64) -> f64 {
            if v.is_finite() {
                v.clamp(lo, hi)
            } else {
                0.0
            }
        }
        Controls {
            steering: clamp(self.steering, -1.0, 1.0),
            throttle: clamp(self.throttle, 0.0, 1.0),
            brake: clamp(self.brake, 0.0, 1.0),
            clutch: clamp(self.clutch, 0.0, 1.0),
            handbrake: clamp(self.handbrake, 0.0, 1.0),
            ..self
        }
    }
}
