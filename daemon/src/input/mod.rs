//! Player input: evdev wheels and pedals (axis mapping [`mapping`], the control state built
//! from several devices [`state`], the reading thread with hot-plug [`reader`]), gamepads
//! through gilrs ([`gamepad`], default cargo feature `gamepad`, with its [`rumble`] output)
//! and DIY serial devices ([`serial`]), all merged by the session's [`hub::InputHub`] into
//! the one [`player_input::PlayerInput`] slot. A player without a clutch axis gets rigd's
//! clutch ([`auto_clutch`], applied by the simulation on the RT thread).
//!
//! The RT thread sees only that slot (wait-free); the FFB stage sees the rim motion and the
//! e-stop latch through the [`crate::ffb::FfbLink`] the session hands to [`start`].
//!
//! For setting devices up: [`device_events`] reads every wheel, pedal set, shifter and
//! gamepad at once (`rigd devices --watch`, `rigd calibrate`) and [`calibration`] is the
//! calibration's pure state machine.

pub mod auto_clutch;
pub mod calibration;
pub mod device_events;
#[cfg(feature = "gamepad")]
pub mod gamepad;
pub mod hub;
pub mod mapping;
pub mod player_input;
pub mod reader;
pub mod rumble;
pub mod serial;
pub mod state;

use std::sync::Arc;

pub use reader::InputThread;
pub use state::{Bindings, ControlState, MappingError};

use crate::ffb::FfbLink;
use crate::rt::handoff::LatestReader;
use player_input::PlayerInput;
use rumble::RumbleLink;

/// The running input readers of one session; dropping this stops them.
#[derive(Debug)]
pub struct PlayerInputs {
    hub: Arc<hub::InputHub>,
    _wheel: Option<InputThread>,
    #[cfg(feature = "gamepad")]
    _gamepad: Option<gamepad::GamepadThread>,
    _serial: Vec<serial::SerialInputReader>,
}

impl PlayerInputs {
    /// What the session's input sources have found now (for who-drives reports).
    pub fn presence(&self) -> hub::Presence {
        self.hub.presence()
    }
}

/// What the player's input keeps from one session to the next (reloads): the gilrs context.
#[derive(Debug, Default)]
pub struct InputKeep {
    #[cfg(feature = "gamepad")]
    gilrs: Arc<gamepad::GilrsSlot>,
}

/// Starts the player's input for `config` and returns the slot the RT thread reads: the
/// evdev reader when `[devices]` maps any axis or button, else the first gamepad when
/// `[devices.gamepad]` is enabled (feature `gamepad`, rumbling from `rumble`), else no
/// steering device (the slot stays disconnected and the robot drives); plus every
/// `[[motion.serial_inputs]]` device. The wheel reader publishes the rim motion and e-stop
/// latch into `ffb`. Runs off the RT thread at start and on every reload (the previous
/// [`PlayerInputs`] is dropped first); `keep` carries what outlives a session.
#[cfg_attr(not(feature = "gamepad"), allow(unused_variables))]
pub fn start(
    config: &rig_config::Config,
    ffb: &Arc<FfbLink>,
    rumble: &Arc<RumbleLink>,
    keep: &InputKeep,
) -> anyhow::Result<(PlayerInputs, LatestReader<PlayerInput>)> {
    let devices = &config.devices;
    let (hub, slot) = hub::InputHub::new();
    hub.set_auto_clutch(auto_clutch::applies(config));
    let mut inputs = PlayerInputs {
        hub: Arc::clone(&hub),
        _wheel: None,
        #[cfg(feature = "gamepad")]
        _gamepad: None,
        _serial: Vec::new(),
    };
    if !devices.axis.is_empty() || !devices.button.is_empty() {
        inputs._wheel = Some(InputThread::spawn_into(
            devices,
            Arc::clone(ffb),
            Arc::clone(&hub),
        )?);
    } else if cfg!(feature = "gamepad") && devices.gamepad.enabled {
        #[cfg(feature = "gamepad")]
        {
            inputs._gamepad = Some(
                gamepad::spawn(
                    &devices.gamepad,
                    Arc::clone(rumble),
                    Arc::clone(&hub),
                    Arc::clone(&keep.gilrs),
                )
                    .map_err(|e| anyhow::anyhow!("cannot start gilrs for the gamepad: {e} (fix: give the daemon access to udev and the joystick event nodes, or set devices.gamepad.enabled = false)"))?,
            );
        }
    }
    inputs._serial = serial::start_all(config, &hub)?;
    Ok((inputs, slot))
}
