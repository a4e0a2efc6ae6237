//! Player input from evdev devices: axis mapping ([`mapping`]), the control state built from
//! several devices ([`state`]) and the reading thread with hot-plug ([`reader`]). Gamepads go
//! through gilrs instead ([`gamepad`], cargo feature `gamepad`).
//!
//! The RT thread sees only the latest [`crate::runtime::player_input::PlayerInput`] through a
//! wait-free slot; the FFB stage sees the rim motion and the e-stop latch through
//! [`crate::ffb::FfbLink`].

#[cfg(feature = "gamepad")]
pub mod gamepad;
pub mod mapping;
pub mod reader;
pub mod rumble;
pub mod state;

pub use reader::InputThread;
pub use state::{Bindings, ControlState, MappingError};
