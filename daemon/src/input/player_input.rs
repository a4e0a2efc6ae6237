//! What the input threads hand to the RT thread: the player's latest controls and the
//! safety-relevant requests, as one `Copy` value published through
//! [`crate::handoff::latest_value`].
//!
//! Invariant: when `connected` is false the RT thread ignores `controls` and the robot drives
//! the player car, so a wheel unplugged mid-lap never leaves the car with stale pedal values.

use rig_physics::Controls;

/// The player's input as last published by the input layer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayerInput {
    /// True while a configured input device is connected and delivering controls.
    pub connected: bool,
    /// The player's controls (only used while `connected`).
    pub controls: Controls,
    /// The player asked to reset the car to the track (level-triggered: the RT thread resets
    /// on the rising edge).
    pub reset_requested: bool,
    /// The emergency stop is pressed: every output goes to its safe state while true.
    pub estop: bool,
}

impl PlayerInput {
    /// No device: the robot drives, no requests.
    pub const DISCONNECTED: PlayerInput = PlayerInput {
        connected: false,
        controls: Controls::SAFE_STOP,
        reset_requested: false,
        estop: false,
    };
}

impl Default for PlayerInput {
    fn default() -> Self {
        PlayerInput::DISCONNECTED
    }
}

/// The running input threads; dropping this stops them.
pub struct InputThreads {
    _guards: Vec<Box<dyn Send>>,
}

impl std::fmt::Debug for InputThreads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InputThreads({} guards)", self._guards.len())
    }
}

/// Starts the threads that read the player's devices and publish [`PlayerInput`] through
/// `publish`. Runs off the RT thread at start and on every reload (the previous
/// [`InputThreads`] is dropped first).
///
/// Input features register with ONE entry below: a guard whose `Drop` stops their
/// threads. With nothing registered the slot keeps [`PlayerInput::DISCONNECTED`] and the robot
/// drives the player car.
pub fn start_input_threads(
    config: &rig_config::Config,
    publish: crate::handoff::LatestWriter<PlayerInput>,
) -> anyhow::Result<InputThreads> {
    // Input registrations: one entry per feature.
    let guards: Vec<Box<dyn Send>> = vec![
        Box::new(crate::input::start(config, publish)?),
        Box::new(crate::serial_input::start_all(config)?),
    ];
    Ok(InputThreads { _guards: guards })
}
