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

/// The running input readers for the runtime; dropping this stops them.
#[derive(Debug)]
pub struct Inputs {
    _wheel: Option<InputThread>,
    #[cfg(feature = "gamepad")]
    _gamepad: Option<gamepad::GamepadThread>,
}

/// Starts the player's input for `config`, publishing into `publish`: the evdev reader when
/// `[devices]` maps any axis or button, else the first gamepad when `[devices.gamepad]` is
/// enabled (feature `gamepad`), else nothing (the slot stays disconnected and the robot
/// drives).
pub fn start(
    config: &rig_config::Config,
    publish: crate::handoff::LatestWriter<crate::runtime::player_input::PlayerInput>,
) -> anyhow::Result<Inputs> {
    let devices = &config.devices;
    if !devices.axis.is_empty() || !devices.button.is_empty() {
        let thread = InputThread::spawn_into(devices, crate::ffb::player_link(), publish)?;
        return Ok(Inputs {
            _wheel: Some(thread),
            #[cfg(feature = "gamepad")]
            _gamepad: None,
        });
    }
    #[cfg(feature = "gamepad")]
    if devices.gamepad.enabled {
        let pad = gamepad::spawn_into(&devices.gamepad, rumble::player_rumble(), publish)
            .map_err(|e| anyhow::anyhow!("cannot start gilrs for the gamepad: {e} (fix: give the daemon access to udev and the joystick event nodes, or set devices.gamepad.enabled = false)"))?;
        return Ok(Inputs {
            _wheel: None,
            _gamepad: Some(pad),
        });
    }
    drop(publish);
    Ok(Inputs {
        _wheel: None,
        #[cfg(feature = "gamepad")]
        _gamepad: None,
    })
}
