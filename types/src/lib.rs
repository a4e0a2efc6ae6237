//! rig-types: the plain data rigd's crates hand to each other.
//!
//! rig-physics produces a [`CarTelemetry`] per car per step from the [`Controls`] it is given;
//! the daemon wraps the player car's telemetry with its own loop health and force-feedback
//! state into a [`Frame`]; rig-protocols encodes frames into every telemetry format, and the
//! dashboard decodes them. Keeping these types here, with no dependencies and no behaviour
//! that needs the simulator, lets the protocol, config and dashboard crates build without
//! rig-physics.
//!
//! Everything is `Copy`, fixed-size and allocation-free, so the real-time thread can publish
//! it every tick. Units are SI and in the field names; axes are documented in [`telemetry`].
//!
//! Map: [`telemetry`] (a car's channels after a step), [`controls`] (what a driver asks of a
//! car for one step), [`frame`] (what rigd publishes per tick).
//!
//! ```
//! use rig_types::{Controls, Frame, GearRequest, WHEEL_FL};
//!
//! // A driver's request, clamped at the physics boundary.
//! let asked = Controls { throttle: 1.7, steering: f64::NAN, gear_request: GearRequest::Up, ..Controls::default() };
//! let applied = asked.sanitized();
//! assert_eq!((applied.throttle, applied.steering), (1.0, 0.0));
//!
//! // A published frame: the car's channels plus the loop's health.
//! let mut frame = Frame::default();
//! frame.car.controls = applied;
//! frame.car.wheels[WHEEL_FL].load_n = 3_500.0;
//! frame.health.tick_rate_hz = 1_000.0;
//! assert_eq!(frame.car.wheels[0].load_n, 3_500.0);
//! ```
#![deny(missing_docs)]

pub mod controls;
pub mod frame;
pub mod telemetry;

pub use controls::{Controls, GearRequest};
pub use frame::{FfbHold, FfbStatus, Frame, LoopHealth, MotionHoldTelemetry};
pub use telemetry::{
    CarTelemetry, DamageTelemetry, DiffTelemetry, DrivetrainTelemetry, LapTelemetry, ShiftRefusal,
    SurfaceKind, WheelTelemetry, DIFF_CENTRE, DIFF_FRONT, DIFF_REAR, WHEEL_FL, WHEEL_FR, WHEEL_RL,
    WHEEL_RR,
};
