//! Gamepads through gilrs (cargo feature `gamepad`, on by default): left stick X steers, right and left
//! analogue triggers are throttle and brake, the bumpers shift up and down, Select resets the
//! car, Start toggles the ignition. Rumble plays what [`super::rumble::RumbleStage`] computes.
//!
//! gilrs's default filters are off (its jitter filter drops changes under 1 % of travel and its
//! deadzone comes from the kernel's `flat`); the stick deadzone is rigd's own. Hot-plug comes
//! from gilrs: a disconnect publishes `PlayerInput::DISCONNECTED` (throttle 0, brake on), a
//! reconnect resumes. Rumble is rebuilt at most every 50 ms, matching gilrs's own FF tick.
//!
//! One gilrs context serves the whole process ([`GilrsSlot`]): gilrs starts threads of its own
//! (hot-plug, force feedback) that it never stops, so a context built per session would leave
//! two threads and their file descriptors behind on every reload (the soak run found it,
//! docs/reliability.md). The gamepad thread takes the context from the slot and puts it back
//! when it stops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use gilrs::ff::{BaseEffect, BaseEffectType, Effect, EffectBuilder, Replay, Ticks};
use gilrs::{Axis, Button, EventType, GamepadId, GilrsBuilder};
use rig_config::devices::GamepadConfig;
use rig_physics::{Controls, GearRequest};

use super::hub::InputHub;
use super::player_input::PlayerInput;
use super::rumble::RumbleLink;

/// Rumble refresh period (gilrs ticks FF every 50 ms).
const RUMBLE_PERIOD: Duration = Duration::from_millis(50);

/// The process's gilrs context while no gamepad thread holds it (kept across reloads).
#[derive(Default)]
pub struct GilrsSlot(Mutex<Option<gilrs::Gilrs>>);

impl std::fmt::Debug for GilrsSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GilrsSlot")
    }
}

impl GilrsSlot {
    /// The kept context, or a new one the first time.
    fn take(&self) -> Result<gilrs::Gilrs, Box<gilrs::Error>> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        match kept {
            Some(gilrs) => Ok(gilrs),
            None => GilrsBuilder::new()
                .with_default_filters(false)
                .build()
                .map_err(Box::new),
        }
    }

    fn put_back(&self, gilrs: gilrs::Gilrs) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(gilrs);
    }
}

/// The running gamepad thread; dropping it stops the thread.
#[derive(Debug)]
pub struct GamepadThread {
    quit: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for GamepadThread {
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct PadState {
    stick_x: f64,
    throttle: f64,
    brake: f64,
    up: bool,
    down: bool,
    reset: bool,
    ignition: bool,
}

impl PadState {
    fn player_input(&self, deadzone: f64) -> PlayerInput {
        let x = self.stick_x;
        let live = (1.0 - deadzone).max(1e-6);
        let shaped = ((x.abs() - deadzone) / live).clamp(0.0, 1.0) * x.signum();
        let gear_request = if self.up {
            GearRequest::Up
        } else if self.down {
            GearRequest::Down
        } else {
            GearRequest::None
        };
        PlayerInput {
            connected: true,
            controls: Controls {
                // Stick right is +x; rigd steering is positive to the left.
                steering: -shaped,
                throttle: self.throttle,
                brake: self.brake,
                gear_request,
                ignition: self.ignition,
                ..Controls::default()
            }
            .sanitized(),
            reset_requested: self.reset,
            estop: false,
            ..PlayerInput::DISCONNECTED
        }
    }
}

/// Starts reading the first gamepad with the context in `slot`, publishing into `hub`. Fails
/// when gilrs cannot start (no udev access).
pub fn spawn(
    config: &GamepadConfig,
    rumble: Arc<RumbleLink>,
    hub: Arc<InputHub>,
    slot: Arc<GilrsSlot>,
) -> Result<GamepadThread, Box<gilrs::Error>> {
    let gilrs = slot.take()?;
    let quit = Arc::new(AtomicBool::new(false));
    let stop = quit.clone();
    let config = config.clone();
    let thread = std::thread::Builder::new()
        .name("rigd-gamepad".into())
        .spawn(move || slot.put_back(run(gilrs, config, rumble, hub, stop)))
        .expect("spawning the gamepad thread");
    Ok(GamepadThread {
        quit,
        thread: Some(thread),
    })
}

/// Reads events until `quit`; hands the context back.
fn run(
    mut gilrs: gilrs::Gilrs,
    config: GamepadConfig,
    rumble: Arc<RumbleLink>,
    hub: Arc<InputHub>,
    quit: Arc<AtomicBool>,
) -> gilrs::Gilrs {
    let mut active: Option<GamepadId> = gilrs.gamepads().next().map(|(id, _)| id);
    let mut state = PadState {
        ignition: true,
        ..PadState::default()
    };
    let mut effect: Option<Effect> = None;
    let mut last_rumble = (0u16, 0u16);
    let mut next_rumble = Instant::now();
    let pad_name = |gilrs: &gilrs::Gilrs, id: GamepadId| Some(gilrs.gamepad(id).name().to_string());
    if let Some(id) = active {
        hub.publish_gamepad(pad_name(&gilrs, id));
        hub.publish_devices(state.player_input(config.stick_deadzone));
    }
    while !quit.load(Ordering::Acquire) {
        while let Some(ev) = gilrs.next_event_blocking(Some(Duration::from_millis(10))) {
            match ev.event {
                EventType::Connected if active.is_none() => {
                    active = Some(ev.id);
                    hub.publish_gamepad(pad_name(&gilrs, ev.id));
                    // Connected now, before its first event: an idle loop wakes at once.
                    hub.publish_devices(state.player_input(config.stick_deadzone));
                }
                EventType::Disconnected if active == Some(ev.id) => {
                    active = None;
                    hub.publish_gamepad(None);
                    drop(effect.take());
                    hub.publish_devices(PlayerInput::DISCONNECTED);
                    continue;
                }
                _ => {}
            }
            if active != Some(ev.id) {
                continue;
            }
            match ev.event {
                EventType::AxisChanged(Axis::LeftStickX, v, _) => state.stick_x = f64::from(v),
                EventType::ButtonChanged(Button::RightTrigger2, v, _) => {
                    state.throttle = f64::from(v)
                }
                EventType::ButtonChanged(Button::LeftTrigger2, v, _) => state.brake = f64::from(v),
                EventType::ButtonPressed(Button::RightTrigger, _) => state.up = true,
                EventType::ButtonReleased(Button::RightTrigger, _) => state.up = false,
                EventType::ButtonPressed(Button::LeftTrigger, _) => state.down = true,
                EventType::ButtonReleased(Button::LeftTrigger, _) => state.down = false,
                EventType::ButtonPressed(Button::Select, _) => state.reset = true,
                EventType::ButtonReleased(Button::Select, _) => state.reset = false,
                EventType::ButtonPressed(Button::Start, _) => state.ignition = !state.ignition,
                _ => continue,
            }
            hub.publish_devices(state.player_input(config.stick_deadzone));
            if quit.load(Ordering::Acquire) {
                break;
            }
        }
        let now = Instant::now();
        if now < next_rumble || config.rumble_gain <= 0.0 {
            continue;
        }
        next_rumble = now + RUMBLE_PERIOD;
        let Some(id) = active else { continue };
        let wanted = rumble.get();
        if wanted == last_rumble || !gilrs.gamepad(id).is_ff_supported() {
            continue;
        }
        last_rumble = wanted;
        // A short effect rebuilt on change: if this thread stops, the rumble ends by itself.
        let replay = Replay {
            play_for: Ticks::from_ms(200),
            ..Replay::default()
        };
        effect = EffectBuilder::new()
            .add_effect(BaseEffect {
                kind: BaseEffectType::Strong {
                    magnitude: wanted.0,
                },
                scheduling: replay,
                envelope: Default::default(),
            })
            .add_effect(BaseEffect {
                kind: BaseEffectType::Weak {
                    magnitude: wanted.1,
                },
                scheduling: replay,
                envelope: Default::default(),
            })
            .gamepads(&[id])
            .finish(&mut gilrs)
            .ok();
        if let Some(e) = &effect {
            let _ = e.play();
        }
    }
    gilrs
}
