//! The player's control state, built from evdev events of several devices: which config
//! binding each (device, code) feeds, the latest raw values, held buttons and latches, and
//! the [`PlayerInput`] and rim motion derived from them.
//!
//! Safety: a device that is disconnected contributes its safe values (throttle 0, clutch 0,
//! handbrake 0, brake `disconnect_brake`, buttons released); the player counts as connected
//! only while the steering device is. Gear buttons are levels (held = request): the input hub
//! counts a held gear-up or gear-down once, on its rising edge (one shift per press), while an
//! H-pattern gate stays a level the gearbox engages when it can. The e-stop button toggles a
//! latch.

use rig_config::devices::{AxisFunction, ButtonFunction, DevicesConfig, SteeringConfig};
use rig_physics::{Controls, GearRequest};

use super::mapping::AxisMap;
use crate::devices::resolve_code;
use crate::ffb::RimMotion;
use crate::input::player_input::PlayerInput;

/// A mapping that names an axis or key the kernel does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("devices.{field}: unknown {kind} code \"{code}\": use a name printed by `rigd devices` (e.g. {example}) or a number")]
pub struct MappingError {
    /// Field path below `devices`.
    pub field: String,
    /// "axis" or "button".
    pub kind: &'static str,
    /// The code as written.
    pub code: String,
    /// An example of a valid code.
    pub example: &'static str,
}

/// An axis binding with its kernel code resolved.
#[derive(Debug, Clone)]
pub struct AxisBinding {
    /// Index into `DevicesConfig::device`.
    pub device: usize,
    /// Kernel axis code.
    pub code: u16,
    /// The mapping from the config.
    pub mapping: rig_config::devices::AxisMapping,
}

/// A button binding with its kernel code resolved.
#[derive(Debug, Clone, Copy)]
pub struct ButtonBinding {
    /// Index into `DevicesConfig::device`.
    pub device: usize,
    /// Kernel key code.
    pub code: u16,
    /// What it does.
    pub function: ButtonFunction,
}

/// Everything the state needs from the config, resolved.
#[derive(Debug, Clone)]
pub struct Bindings {
    /// Axis bindings.
    pub axes: Vec<AxisBinding>,
    /// Button bindings.
    pub buttons: Vec<ButtonBinding>,
    /// Steering range and lock.
    pub steering: SteeringConfig,
    /// Brake while pedals are missing.
    pub disconnect_brake: f64,
    /// Number of configured devices.
    pub device_count: usize,
}

impl Bindings {
    /// Resolves code names; device references were checked by `DevicesConfig::validate`.
    pub fn resolve(config: &DevicesConfig) -> Result<Bindings, MappingError> {
        let index = |id: &str| config.device.iter().position(|d| d.id == id).unwrap_or(0);
        let mut axes = Vec::new();
        for (i, a) in config.axis.iter().enumerate() {
            let code = resolve_code(&a.code, true).ok_or_else(|| MappingError {
                field: format!("axis[{i}].code"),
                kind: "axis",
                code: a.code.clone(),
                example: "ABS_X",
            })?;
            axes.push(AxisBinding {
                device: index(&a.device),
                code,
                mapping: a.clone(),
            });
        }
        let mut buttons = Vec::new();
        for (i, b) in config.button.iter().enumerate() {
            let code = resolve_code(&b.code, false).ok_or_else(|| MappingError {
                field: format!("button[{i}].code"),
                kind: "button",
                code: b.code.clone(),
                example: "BTN_TRIGGER_HAPPY1",
            })?;
            buttons.push(ButtonBinding {
                device: index(&b.device),
                code,
                function: b.function,
            });
        }
        Ok(Bindings {
            axes,
            buttons,
            steering: config.steering.clone(),
            disconnect_brake: config.disconnect_brake,
            device_count: config.device.len(),
        })
    }

    /// The axis codes a device feeds (to reset their kernel fuzz and flat).
    pub fn axis_codes_of(&self, device: usize) -> Vec<u16> {
        self.axes
            .iter()
            .filter(|a| a.device == device)
            .map(|a| a.code)
            .collect()
    }
}

/// Rim speed filter weight per event (smooths quantisation of the angle).
const RIM_VELOCITY_SMOOTHING: f64 = 0.3;
/// Events further apart than this restart the speed estimate, s.
const RIM_VELOCITY_GAP_S: f64 = 0.1;

/// The live control state.
#[derive(Debug, Clone)]
pub struct ControlState {
    bindings: Bindings,
    connected: Vec<bool>,
    maps: Vec<Option<AxisMap>>,
    raw: Vec<Option<i32>>,
    held: Vec<bool>,
    ignition: bool,
    estop: bool,
    rim: RimMotion,
    last_rim_time_s: Option<f64>,
}

impl ControlState {
    /// Nothing connected yet.
    pub fn new(bindings: Bindings) -> ControlState {
        ControlState {
            connected: vec![false; bindings.device_count],
            maps: vec![None; bindings.axes.len()],
            raw: vec![None; bindings.axes.len()],
            held: vec![false; bindings.buttons.len()],
            ignition: true,
            estop: false,
            rim: RimMotion {
                angle_rad: f64::NAN,
                velocity_radps: f64::NAN,
            },
            last_rim_time_s: None,
            bindings,
        }
    }

    /// The resolved bindings.
    pub fn bindings(&self) -> &Bindings {
        &self.bindings
    }

    /// Device `device` (re)appeared; `axis` gives `(min, max, current value)` of a kernel axis.
    pub fn on_connect(&mut self, device: usize, axis: impl Fn(u16) -> Option<(i32, i32, i32)>) {
        self.connected[device] = true;
        for (i, b) in self.bindings.axes.iter().enumerate() {
            if b.device != device {
                continue;
            }
            match axis(b.code) {
                Some((min, max, value)) => {
                    self.maps[i] = Some(AxisMap::new(&b.mapping, min, max));
                    self.raw[i] = Some(value);
                }
                None => {
                    self.maps[i] = None;
                    self.raw[i] = None;
                }
            }
        }
        self.last_rim_time_s = None;
        self.update_rim(None);
    }

    /// Device `device` went away: its controls fall back to their safe values.
    pub fn on_disconnect(&mut self, device: usize) {
        self.connected[device] = false;
        for (i, b) in self.bindings.axes.iter().enumerate() {
            if b.device == device {
                self.raw[i] = None;
            }
        }
        for (i, b) in self.bindings.buttons.iter().enumerate() {
            if b.device == device {
                self.held[i] = false;
            }
        }
        self.update_rim(None);
    }

    /// True while device `device` is connected.
    pub fn is_connected(&self, device: usize) -> bool {
        self.connected[device]
    }

    /// An `EV_ABS` event at kernel time `time_s`.
    pub fn on_axis(&mut self, device: usize, code: u16, value: i32, time_s: f64) {
        let mut steering = false;
        for (i, b) in self.bindings.axes.iter().enumerate() {
            if b.device == device && b.code == code {
                self.raw[i] = Some(value);
                steering |= b.mapping.function == AxisFunction::Steering;
            }
        }
        if steering {
            self.update_rim(Some(time_s));
        }
    }

    /// An `EV_KEY` event (value 1 press, 0 release, 2 auto-repeat is ignored).
    pub fn on_key(&mut self, device: usize, code: u16, value: i32) {
        if value == 2 {
            return;
        }
        let pressed = value != 0;
        for (i, b) in self.bindings.buttons.iter().enumerate() {
            if b.device != device || b.code != code {
                continue;
            }
            let rising = pressed && !self.held[i];
            self.held[i] = pressed;
            if rising {
                match b.function {
                    ButtonFunction::Ignition => self.ignition = !self.ignition,
                    ButtonFunction::FfbEstop => self.estop = !self.estop,
                    _ => {}
                }
            }
        }
    }

    fn steering_index(&self) -> Option<usize> {
        self.bindings
            .axes
            .iter()
            .position(|b| b.mapping.function == AxisFunction::Steering)
    }

    fn update_rim(&mut self, time_s: Option<f64>) {
        let angle = self.steering_index().and_then(|i| {
            let raw = self.raw[i]?;
            Some(
                self.maps[i]
                    .as_ref()?
                    .rim_angle_rad(raw, &self.bindings.steering),
            )
        });
        let Some(angle) = angle else {
            self.rim = RimMotion {
                angle_rad: f64::NAN,
                velocity_radps: f64::NAN,
            };
            self.last_rim_time_s = None;
            return;
        };
        let previous = self.rim;
        let mut velocity = if previous.velocity_radps.is_finite() {
            previous.velocity_radps
        } else {
            0.0
        };
        if let (Some(t), Some(last)) = (time_s, self.last_rim_time_s) {
            let dt = t - last;
            if dt > RIM_VELOCITY_GAP_S || !previous.angle_rad.is_finite() {
                velocity = 0.0;
            } else if dt > 0.0 {
                let measured = (angle - previous.angle_rad) / dt;
                velocity += RIM_VELOCITY_SMOOTHING * (measured - velocity);
            }
        }
        if time_s.is_some() {
            self.last_rim_time_s = time_s;
        }
        self.rim = RimMotion {
            angle_rad: angle,
            velocity_radps: if velocity.is_finite() { velocity } else { 0.0 },
        };
    }

    /// The rim's motion (NaN when no steering device is connected).
    pub fn rim(&self) -> RimMotion {
        self.rim
    }

    /// True while the e-stop latch is set.
    pub fn estop(&self) -> bool {
        self.estop
    }

    fn held_any(&self, function: ButtonFunction) -> bool {
        self.bindings
            .buttons
            .iter()
            .zip(&self.held)
            .any(|(b, h)| *h && b.function == function)
    }

    fn gear_request(&self) -> GearRequest {
        use ButtonFunction as B;
        if self.held_any(B::GearUp) {
            return GearRequest::Up;
        }
        if self.held_any(B::GearDown) {
            return GearRequest::Down;
        }
        let gates = [
            (B::Reverse, -1),
            (B::Gear1, 1),
            (B::Gear2, 2),
            (B::Gear3, 3),
            (B::Gear4, 4),
            (B::Gear5, 5),
            (B::Gear6, 6),
            (B::Gear7, 7),
        ];
        if let Some((_, g)) = gates.iter().find(|(f, _)| self.held_any(*f)) {
            return GearRequest::Select(*g);
        }
        let has_h_pattern = self
            .bindings
            .buttons
            .iter()
            .any(|b| gates.iter().any(|(f, _)| *f == b.function));
        if has_h_pattern {
            GearRequest::Select(0)
        } else {
            GearRequest::None
        }
    }

    /// The player's input now.
    pub fn player_input(&self) -> PlayerInput {
        let mut c = Controls {
            ignition: self.ignition,
            starter: self.held_any(ButtonFunction::Starter),
            gear_request: self.gear_request(),
            ..Controls::default()
        };
        let steering = &self.bindings.steering;
        for (i, b) in self.bindings.axes.iter().enumerate() {
            let live = self.raw[i].zip(self.maps[i].as_ref());
            let f = b.mapping.function;
            let Some((raw, map)) = live else {
                if matches!(f, AxisFunction::Brake | AxisFunction::CombinedPedals) {
                    c.brake = c.brake.max(self.bindings.disconnect_brake);
                }
                continue;
            };
            match f {
                AxisFunction::Steering => c.steering = map.steering_control(raw, steering),
                AxisFunction::Throttle => c.throttle = c.throttle.max(map.pedal(raw)),
                AxisFunction::Brake => c.brake = c.brake.max(map.pedal(raw)),
                AxisFunction::Clutch => c.clutch = c.clutch.max(map.pedal(raw)),
                AxisFunction::Handbrake => c.handbrake = c.handbrake.max(map.pedal(raw)),
                AxisFunction::CombinedPedals => {
                    let (t, br) = map.combined(raw);
                    c.throttle = c.throttle.max(t);
                    c.brake = c.brake.max(br);
                }
            }
        }
        if self.held_any(ButtonFunction::Handbrake) {
            c.handbrake = 1.0;
        }
        let connected = match self.steering_index() {
            Some(i) => self.connected[self.bindings.axes[i].device],
            None => self.connected.iter().any(|c| *c),
        };
        PlayerInput {
            connected,
            controls: c.sanitized(),
            reset_requested: self.held_any(ButtonFunction::ResetCar),
            pause_requested: self.held_any(ButtonFunction::Pause),
            estop: self.estop,
            ..PlayerInput::DISCONNECTED
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G29: &str = r#"
        disconnect_brake = 0.3
        [[device]]
        id = "wheel"
        vid_pid = "046d:c24f"
        [[device]]
        id = "pedals"
        role = "pedals"
        vid_pid = "30b7:1001"
        [[axis]]
        function = "steering"
        device = "wheel"
        code = "ABS_X"
        [[axis]]
        function = "throttle"
        device = "pedals"
        code = "ABS_Y"
        [[axis]]
        function = "brake"
        device = "pedals"
        code = "ABS_Z"
        [[button]]
        function = "gear_up"
        device = "wheel"
        code = "BTN_TRIGGER"
        [[button]]
        function = "ffb_estop"
        device = "wheel"
        code = "0x12b"
        [[button]]
        function = "gear_2"
        device = "wheel"
        code = "BTN_BASE"
    "#;

    fn state() -> ControlState {
        let cfg: DevicesConfig = toml::from_str(G29).unwrap();
        cfg.check().unwrap();
        let mut s = ControlState::new(Bindings::resolve(&cfg).unwrap());
        s.on_connect(0, |code| (code == 0).then_some((0, 65535, 32768)));
        s.on_connect(1, |_| Some((0, 1023, 0)));
        s
    }

    #[test]
    fn pedals_unplugged_go_to_safe_values_and_come_back() {
        let mut s = state();
        s.on_axis(1, 1, 1023, 0.0);
        s.on_axis(1, 2, 0, 0.0);
        let p = s.player_input();
        assert!(p.connected);
        assert_eq!((p.controls.throttle, p.controls.brake), (1.0, 0.0));
        s.on_disconnect(1);
        let p = s.player_input();
        assert!(p.connected, "the wheel is still there");
        assert_eq!((p.controls.throttle, p.controls.brake), (0.0, 0.3));
        s.on_connect(1, |_| Some((0, 1023, 512)));
        let p = s.player_input();
        assert!((p.controls.throttle - 512.0 / 1023.0).abs() < 1e-9);
        s.on_disconnect(0);
        let p = s.player_input();
        assert!(!p.connected && s.rim().angle_rad.is_nan());
    }

    #[test]
    fn buttons_shift_latch_estop_and_select_gates() {
        let mut s = state();
        assert_eq!(
            s.player_input().controls.gear_request,
            GearRequest::Select(0)
        );
        s.on_key(0, 0x120, 1);
        assert_eq!(s.player_input().controls.gear_request, GearRequest::Up);
        s.on_key(0, 0x120, 0);
        s.on_key(0, 0x126, 1);
        assert_eq!(
            s.player_input().controls.gear_request,
            GearRequest::Select(2)
        );
        s.on_key(0, 0x12b, 1);
        s.on_key(0, 0x12b, 2);
        s.on_key(0, 0x12b, 0);
        assert!(s.player_input().estop);
        s.on_key(0, 0x12b, 1);
        assert!(!s.player_input().estop, "second press re-arms");
    }

    #[test]
    fn rim_speed_follows_the_wheel() {
        let mut s = state();
        // Turn left: raw falls. 655 counts of 65535 over 900 deg is 9 deg per 10 ms.
        for k in 0..20 {
            s.on_axis(0, 0, 32768 - 655 * k, 0.01 * f64::from(k));
        }
        let v = s.rim().velocity_radps;
        assert!((v - 9f64.to_radians() / 0.01).abs() < 0.5, "{v}");
        assert!(s.rim().angle_rad > 0.0);
    }

    #[test]
    fn the_g29_example_resolves_every_code() {
        let text = include_str!("../../../examples/g29.toml");
        let config = rig_config::parse(text, "examples/g29.toml").expect("valid");
        let b = Bindings::resolve(&config.devices).expect("every code is a kernel name");
        assert_eq!(b.axes[0].code, 0x00, "ABS_X");
        assert_eq!(b.buttons[0].code, 0x120, "BTN_TRIGGER");
        assert_eq!(b.buttons[5].code, 0x128, "BTN_BASE3");
        assert_eq!(b.buttons[6].code, 0x12b, "BTN_BASE6");
    }

    #[test]
    fn unknown_codes_name_the_field() {
        let mut cfg: DevicesConfig = toml::from_str(G29).unwrap();
        cfg.axis[1].code = "ABS_NOPE".into();
        let e = Bindings::resolve(&cfg).unwrap_err().to_string();
        assert!(
            e.contains("devices.axis[1].code") && e.contains("ABS_NOPE"),
            "{e}"
        );
    }
}
