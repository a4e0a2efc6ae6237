//! Gamepads through gilrs (cargo feature `gamepad`, on by default): left stick X steers, right and left
//! analogue triggers are throttle and brake, the bumpers shift up and down, Select resets the
//! car, Start toggles the ignition. Rumble plays what [`super::rumble::RumbleStage`] computes.
//!
//! Every change is published at once, so the hub counts each bumper press as one shift even
//! when press and release fall between two ticks, and a held bumper shifts once
//! ([`super::player_input::ShiftLevel`]). A pad has no clutch: with the default
//! `[devices] auto_clutch` rigd works it ([`super::auto_clutch`]).
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

/// What one gamepad event changes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum PadChange {
    /// Left stick X, -1 (left) ..= 1 (right).
    Steer(f64),
    /// Right trigger, 0 ..= 1.
    Throttle(f64),
    /// Left trigger, 0 ..= 1.
    Brake(f64),
    /// Right bumper held.
    ShiftUp(bool),
    /// Left bumper held.
    ShiftDown(bool),
    /// Select held.
    Reset(bool),
    /// Start pressed.
    ToggleIgnition,
}

impl PadChange {
    /// The change a gilrs event makes (`None`: an input rigd does not use).
    fn of(event: EventType) -> Option<PadChange> {
        Some(match event {
            EventType::AxisChanged(Axis::LeftStickX, v, _) => PadChange::Steer(f64::from(v)),
            EventType::ButtonChanged(Button::RightTrigger2, v, _) => {
                PadChange::Throttle(f64::from(v))
            }
            EventType::ButtonChanged(Button::LeftTrigger2, v, _) => PadChange::Brake(f64::from(v)),
            EventType::ButtonPressed(Button::RightTrigger, _) => PadChange::ShiftUp(true),
            EventType::ButtonReleased(Button::RightTrigger, _) => PadChange::ShiftUp(false),
            EventType::ButtonPressed(Button::LeftTrigger, _) => PadChange::ShiftDown(true),
            EventType::ButtonReleased(Button::LeftTrigger, _) => PadChange::ShiftDown(false),
            EventType::ButtonPressed(Button::Select, _) => PadChange::Reset(true),
            EventType::ButtonReleased(Button::Select, _) => PadChange::Reset(false),
            EventType::ButtonPressed(Button::Start, _) => PadChange::ToggleIgnition,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy)]
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
    /// A pad at rest with the ignition on.
    fn new() -> PadState {
        PadState {
            stick_x: 0.0,
            throttle: 0.0,
            brake: 0.0,
            up: false,
            down: false,
            reset: false,
            ignition: true,
        }
    }

    fn apply(&mut self, change: PadChange) {
        match change {
            PadChange::Steer(x) => self.stick_x = x,
            PadChange::Throttle(v) => self.throttle = v,
            PadChange::Brake(v) => self.brake = v,
            PadChange::ShiftUp(held) => self.up = held,
            PadChange::ShiftDown(held) => self.down = held,
            PadChange::Reset(held) => self.reset = held,
            PadChange::ToggleIgnition => self.ignition = !self.ignition,
        }
    }

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
    let mut state = PadState::new();
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
            let Some(change) = PadChange::of(ev.event) else {
                continue;
            };
            state.apply(change);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::player_input::ShiftEdges;
    use crate::rt::handoff::LatestReader;
    use crate::runtime::simulation::Simulation;
    use rig_config::sim::SimConfig;
    use rig_physics::drivetrain::ShiftRefusal;
    use rig_physics::CarTelemetry;

    /// A pad, the hub it publishes into (each change at once, as the gamepad thread does) and
    /// the RT loop's side: each tick reads the slot, turns new shift presses into a one-tick
    /// request and runs one 1 kHz physics step.
    struct PadRig {
        pad: PadState,
        hub: Arc<InputHub>,
        slot: LatestReader<PlayerInput>,
        edges: ShiftEdges,
        sim: Simulation,
    }

    impl PadRig {
        /// `car` at rest on the default track; rigd works the clutch when `auto_clutch`.
        fn new(car: &str, auto_clutch: bool) -> PadRig {
            let (hub, slot) = InputHub::new();
            hub.set_auto_clutch(auto_clutch);
            let sim = SimConfig {
                car: car.into(),
                ..SimConfig::default()
            };
            let mut rig = PadRig {
                pad: PadState::new(),
                hub,
                slot,
                edges: ShiftEdges::default(),
                sim: Simulation::build(&sim, 1000).expect("a built-in car"),
            };
            rig.change(PadChange::Steer(0.0));
            rig
        }

        fn change(&mut self, change: PadChange) {
            self.pad.apply(change);
            self.hub.publish_devices(
                self.pad
                    .player_input(GamepadConfig::default().stick_deadzone),
            );
        }

        /// A bumper press and release both between two ticks.
        fn tap(&mut self, bumper: fn(bool) -> PadChange) {
            self.change(bumper(true));
            self.change(bumper(false));
        }

        fn run_s(&mut self, seconds: f64) {
            for _ in 0..(seconds * 1000.0).round() as usize {
                let mut input = self.slot.read();
                self.edges.apply(&mut input);
                self.sim.step(&input);
            }
        }

        fn car(&self) -> CarTelemetry {
            self.sim.player_telemetry()
        }
    }

    #[test]
    fn a_bumper_tap_shorter_than_a_tick_shifts_once_and_a_held_bumper_shifts_once() {
        // The race car's sequential box needs no clutch: every shift here is the pad's own.
        let mut rig = PadRig::new("race", true);
        rig.run_s(0.1);
        assert_eq!(rig.car().drivetrain.gear, 0);
        rig.tap(PadChange::ShiftUp);
        rig.run_s(0.3);
        assert_eq!(rig.car().drivetrain.gear, 1, "the tap is not lost");
        rig.tap(PadChange::ShiftUp);
        rig.run_s(0.3);
        assert_eq!(rig.car().drivetrain.gear, 2);
        let refusals = rig.car().drivetrain.shift_refusal_count;

        // Held for 1.5 s: 30 shift times of this box, one downshift.
        rig.change(PadChange::ShiftDown(true));
        rig.run_s(1.5);
        rig.change(PadChange::ShiftDown(false));
        rig.run_s(0.3);
        let car = rig.car();
        assert_eq!(car.drivetrain.gear, 1, "one gear for one held press");
        assert_eq!(
            car.drivetrain.shift_refusal_count, refusals,
            "a held bumper sends no repeated requests for the box to refuse"
        );
    }

    #[test]
    fn a_pad_puts_the_road_car_in_first_and_drives_off() {
        // The road car's H-pattern box needs the clutch, and a pad has none: with the default
        // config rigd works it.
        let mut rig = PadRig::new("road", true);
        rig.run_s(0.1);
        rig.tap(PadChange::ShiftUp);
        rig.run_s(0.5);
        let car = rig.car();
        assert_eq!((car.drivetrain.gear, car.drivetrain.shifting), (1, false));
        assert!(
            car.speed_mps < 0.05,
            "in gear at idle the car waits for the throttle"
        );
        rig.change(PadChange::Throttle(0.6));
        rig.run_s(4.0);
        let car = rig.car();
        assert_eq!(car.drivetrain.gear, 1);
        assert!(car.drivetrain.engine_running, "no stall on the launch");
        assert!(car.speed_mps > 8.0, "{} m/s after 4 s", car.speed_mps);

        // Second gear on the move: the clutch is pressed for it and let out again.
        rig.tap(PadChange::ShiftUp);
        rig.run_s(1.0);
        let car = rig.car();
        assert_eq!((car.drivetrain.gear, car.drivetrain.shifting), (2, false));
        assert!(car.drivetrain.clutch_locked, "the clutch is out again");
        assert!(car.speed_mps > 10.0, "{} m/s", car.speed_mps);
    }

    #[test]
    fn without_the_auto_clutch_the_road_car_refuses_the_pads_gear() {
        let mut rig = PadRig::new("road", false);
        rig.run_s(0.1);
        rig.tap(PadChange::ShiftUp);
        rig.change(PadChange::Throttle(0.6));
        rig.run_s(2.0);
        let car = rig.car();
        assert_eq!(car.drivetrain.gear, 0);
        assert_eq!(car.drivetrain.shift_refusal, ShiftRefusal::ClutchRequired);
        assert!(car.speed_mps < 0.05);
    }
}
