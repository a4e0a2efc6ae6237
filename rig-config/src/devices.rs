//! `[devices]`: which input devices rigd reads, how their axes and buttons become car controls,
//! and how the force feedback and shift lights are driven.
//!
//! Units are in the field names (`_deg`, `_nm`, `_hz`, `_ms`, `_s`); unitless fractions are
//! 0 ..= 1 of a travel or a range. Devices are referred to by the `id` the user gives them in
//! `[[devices.device]]`, so a wheel base, separate pedals, a shifter, a handbrake and a button
//! box can each be matched by their own stable identity (by-id / by-path name, VID:PID plus
//! serial). Axis and button codes are kernel names (`ABS_X`, `BTN_TRIGGER_HAPPY5`) or numbers;
//! the daemon resolves the names and reports unknown ones at start.
//!
//! [`DevicesConfig::validate`] checks everything that can be checked without hardware and
//! names the offending field and the fix in its message.
use serde::Deserialize;

/// The `[devices]` section.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DevicesConfig {
    /// Physical input devices, each with a name the mappings refer to.
    pub device: Vec<DeviceMatch>,
    /// Axis mappings (steering, pedals, handbrake lever).
    pub axis: Vec<AxisMapping>,
    /// Button mappings (shifting, ignition, reset, e-stop, ...).
    pub button: Vec<ButtonMapping>,
    /// Steering range and the car's lock.
    pub steering: SteeringConfig,
    /// Brake value held while a pedal device is unplugged, 0 ..= 1 (throttle always goes to 0).
    pub disconnect_brake: f64,
    /// Force feedback.
    pub ffb: FfbConfig,
    /// Logitech shift-light LEDs.
    pub shift_lights: ShiftLightsConfig,
    /// Gamepads through gilrs (on by default; builds without the `gamepad` cargo feature
    /// ignore it).
    pub gamepad: GamepadConfig,
    /// Who works the clutch of a car that needs one: rigd (for each shift, and slipping it to
    /// launch and against stalling) or the player's clutch pedal.
    pub auto_clutch: AutoClutch,
}

impl Default for DevicesConfig {
    fn default() -> Self {
        DevicesConfig {
            device: Vec::new(),
            axis: Vec::new(),
            button: Vec::new(),
            steering: SteeringConfig::default(),
            disconnect_brake: 0.0,
            ffb: FfbConfig::default(),
            shift_lights: ShiftLightsConfig::default(),
            gamepad: GamepadConfig::default(),
            auto_clutch: AutoClutch::default(),
        }
    }
}

/// `[devices] auto_clutch`: when rigd works the clutch for the player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum AutoClutch {
    /// When the player has no clutch axis: a gamepad, or a wheel whose `[[devices.axis]]` and
    /// `[[motion.serial_inputs]]` map no `clutch` (a two-pedal set).
    #[default]
    WhenNoClutchAxis,
    /// Always, also beside a clutch pedal (the pedal still works: the deeper press wins).
    Always,
    /// Never: a gearbox that needs the clutch refuses a change until the player presses it.
    Never,
}

/// What a physical device is used for (informational: `rigd devices` prints it, and the
/// validator checks that FFB goes to a wheel base).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum DeviceRole {
    /// Steering wheel base (usually also the FFB device).
    #[default]
    WheelBase,
    /// Pedal set (may have no buttons at all).
    Pedals,
    /// H-pattern or sequential shifter.
    Shifter,
    /// Handbrake lever.
    Handbrake,
    /// Button box.
    ButtonBox,
}

/// How one physical device is recognised. Every given criterion must match; at least one must
/// be given. `by_id` / `by_path` are file names under `/dev/input/by-id` and `/dev/input/by-path`
/// (udev creates them; without udev match on `vid_pid` plus `serial`).
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct DeviceMatch {
    /// Name used by `[[devices.axis]]` and `[[devices.button]]` (`device = "..."`).
    pub id: String,
    /// What the device is.
    pub role: DeviceRole,
    /// USB vendor and product id, hexadecimal `"046d:c24f"`.
    pub vid_pid: Option<String>,
    /// USB serial number (the evdev `uniq` string).
    pub serial: Option<String>,
    /// File name under `/dev/input/by-id`.
    pub by_id: Option<String>,
    /// File name under `/dev/input/by-path`.
    pub by_path: Option<String>,
    /// Substring of the device name the kernel reports.
    pub name_contains: Option<String>,
}

impl DeviceMatch {
    /// The `(vendor, product)` pair of `vid_pid`, when present and well formed.
    pub fn vid_pid(&self) -> Option<(u16, u16)> {
        parse_vid_pid(self.vid_pid.as_deref()?)
    }
}

/// Parses `"046d:c24f"` into `(0x046d, 0xc24f)`.
pub fn parse_vid_pid(text: &str) -> Option<(u16, u16)> {
    let (v, p) = text.split_once(':')?;
    if v.len() != 4 || p.len() != 4 {
        return None;
    }
    Some((
        u16::from_str_radix(v, 16).ok()?,
        u16::from_str_radix(p, 16).ok()?,
    ))
}

/// What an axis drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AxisFunction {
    /// The steering wheel.
    Steering,
    /// Throttle pedal.
    Throttle,
    /// Brake pedal.
    Brake,
    /// Clutch pedal.
    Clutch,
    /// Handbrake lever.
    Handbrake,
    /// One axis carrying throttle on one side of centre and brake on the other (old
    /// "combined pedals" mode).
    CombinedPedals,
}

/// Which half of a combined-pedal axis is the throttle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum CombinedSplit {
    /// Values above centre are throttle, below centre brake.
    #[default]
    ThrottleHigh,
    /// Values below centre are throttle, above centre brake.
    ThrottleLow,
}

/// One axis of one device mapped onto a control.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AxisMapping {
    /// What the axis drives.
    pub function: AxisFunction,
    /// The `id` of a `[[devices.device]]`.
    pub device: String,
    /// Kernel axis code: a name such as `"ABS_X"` or a number such as `"0x02"`.
    pub code: String,
    /// Raw value at the released (or full-left) end; default: the kernel's minimum.
    #[serde(default)]
    pub raw_min: Option<i32>,
    /// Raw value at the pressed (or full-right) end; default: the kernel's maximum.
    #[serde(default)]
    pub raw_max: Option<i32>,
    /// Reverse the direction (pedals that read high when released).
    #[serde(default)]
    pub invert: bool,
    /// Share of travel at the rest end that reads as 0 (pedals) or around centre (steering).
    #[serde(default)]
    pub inner_deadzone: f64,
    /// Share of travel at the far end that already reads as full.
    #[serde(default)]
    pub outer_deadzone: f64,
    /// Response exponent: output = input^gamma (1 = linear; > 1 softer start).
    #[serde(default = "one")]
    pub gamma: f64,
    /// Response curve as `[input, output]` points from `[0, 0]` to `[1, 1]`, strictly
    /// increasing input, non-decreasing output; replaces `gamma` when given.
    #[serde(default)]
    pub curve: Vec<[f64; 2]>,
    /// For `combined_pedals`: which half is the throttle.
    #[serde(default)]
    pub combined_split: CombinedSplit,
}

fn one() -> f64 {
    1.0
}

/// What a button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ButtonFunction {
    /// Sequential upshift (one per press).
    GearUp,
    /// Sequential downshift (one per press).
    GearDown,
    /// H-pattern gate 1 (held: in gear; released: neutral).
    #[serde(rename = "gear_1")]
    Gear1,
    /// H-pattern gate 2.
    #[serde(rename = "gear_2")]
    Gear2,
    /// H-pattern gate 3.
    #[serde(rename = "gear_3")]
    Gear3,
    /// H-pattern gate 4.
    #[serde(rename = "gear_4")]
    Gear4,
    /// H-pattern gate 5.
    #[serde(rename = "gear_5")]
    Gear5,
    /// H-pattern gate 6.
    #[serde(rename = "gear_6")]
    Gear6,
    /// H-pattern gate 7.
    #[serde(rename = "gear_7")]
    Gear7,
    /// H-pattern reverse gate.
    Reverse,
    /// Toggles the ignition.
    Ignition,
    /// Starter motor while held.
    Starter,
    /// Puts the car back on the track.
    ResetCar,
    /// Pauses the simulation, and resumes it at the next press: the car holds still (no
    /// physics steps), force feedback lets go of the road's torque and centres the rim, and
    /// motion platforms settle.
    Pause,
    /// Handbrake as a button (full while held).
    Handbrake,
    /// Force-feedback emergency stop: the first press latches zero torque, the next press
    /// re-arms (the force then ramps in again).
    FfbEstop,
}

/// One button of one device mapped onto a function.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ButtonMapping {
    /// What the button does.
    pub function: ButtonFunction,
    /// The `id` of a `[[devices.device]]`.
    pub device: String,
    /// Kernel key code: a name such as `"BTN_TRIGGER_HAPPY1"` or a number such as `"0x2c0"`.
    pub code: String,
}

/// `[devices.steering]`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SteeringConfig {
    /// Rotation of the wheel base from lock to lock as the axis reports it, degrees.
    pub range_deg: f64,
    /// The car's steering-wheel rotation lock to lock, degrees. The rim turns 1:1 with the
    /// car's wheel; past the car's lock the output stays at full lock and the FFB soft lock
    /// pushes back. Default: the same as `range_deg`.
    pub car_lock_deg: Option<f64>,
}

impl Default for SteeringConfig {
    fn default() -> Self {
        SteeringConfig {
            range_deg: 900.0,
            car_lock_deg: None,
        }
    }
}

impl SteeringConfig {
    /// The car's lock to lock, degrees.
    pub fn effective_car_lock_deg(&self) -> f64 {
        self.car_lock_deg.unwrap_or(self.range_deg)
    }
}

/// `[devices.ffb]`: the force-feedback chain from the physics steering torque to the base.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct FfbConfig {
    /// Drive force feedback.
    pub enabled: bool,
    /// The `id` of the FFB device (default: the first device with role `wheel_base`).
    pub device: Option<String>,
    /// User gain on the physics torque at the rim.
    pub gain: f64,
    /// Reverse the force direction (for bases wired the other way).
    pub invert: bool,
    /// Torque the base produces at full command, N m (the device limit).
    pub base_max_torque_nm: f64,
    /// Hard torque cap, N m; never above `base_max_torque_nm`.
    pub torque_cap_nm: f64,
    /// Low-pass cut-off on the physics torque, Hz (0 = off).
    pub lowpass_hz: f64,
    /// Damping: torque against rim speed, N m per rad/s.
    pub damping_nm_per_radps: f64,
    /// Friction: constant torque against the direction of rim motion, N m.
    pub friction_nm: f64,
    /// Inertia: torque against rim acceleration, N m per rad/s^2.
    pub inertia_nm_per_radps2: f64,
    /// Minimum force: share of the base's maximum added to any non-zero command to get past
    /// belt and gear deadband, 0 ..= 0.3.
    pub min_force: f64,
    /// Soft-lock stiffness past the car's steering lock, N m per degree.
    pub soft_lock_nm_per_deg: f64,
    /// Largest change of the output per second, N m/s.
    pub slew_rate_nm_per_s: f64,
    /// Fade-in time after start, resume, reconnect and e-stop re-arm, s (1 ..= 2).
    pub ramp_s: f64,
    /// Replay length of the streamed effect, ms: a daemon that stops refreshing it has its
    /// force stopped by the kernel after this long (20 ..= 100).
    pub replay_ms: u16,
    /// Upper bound of the device update rate, Hz. Default: by the kind of driver (HID PID
    /// bases, recognised by their report descriptor, 1000; lg4ff 250, hidpp 150, tmff2 125);
    /// on a HID PID base rigd lowers it further to what the device is measured to take.
    pub update_rate_hz: Option<f64>,
    /// Centring spring run on the base while the car is parked (below `parked_below_mps`),
    /// being reset, or driven by the robot, N m per degree of rim angle (0 = off). Bases
    /// without condition effects (hid-lg4ff) get none; rigd says so once.
    pub centring_spring_nm_per_deg: f64,
    /// Largest torque the centring spring (and, separately, the centring damper) may give,
    /// N m; at most `torque_cap_nm`.
    pub centring_max_nm: f64,
    /// Centring damper with the spring, percent of the base's own full damper coefficient
    /// (0 = off; the base decides how fast "full" is).
    pub centring_damper_percent: f64,
    /// The car counts as parked below this speed, m/s: the centring spring and damper blend
    /// in over half a second below it and out above it.
    pub parked_below_mps: f64,
    /// Friction run on the base at all times, N m (0 = off): a feel term for direct-drive
    /// bases, on top of the physics torque.
    pub feel_friction_nm: f64,
    /// Damper run on the base at all times, percent of its full damper coefficient (0 = off).
    pub feel_damper_percent: f64,
    /// Inertia run on the base at all times, percent of its full inertia coefficient (0 = off).
    pub feel_inertia_percent: f64,
    /// Rotation range set on the base at start and restored on exit, degrees (lock to lock);
    /// unset = leave the base's range alone. Must equal `steering.range_deg`, which maps the
    /// axis. Through evdev only drivers with a sysfs `range` attribute (hid-lg4ff) can do it.
    pub rotation_range_deg: Option<u16>,
    /// The base's own centring spring (FF_AUTOCENTER), percent; 0 (the default) leaves rigd's
    /// forces alone on the rim. Switched off again on exit. A base without one (HID PID) gets
    /// it as rigd's spring effect: that share of full stiffness, at most that share of
    /// `torque_cap_nm`.
    pub autocentre_percent: f64,
    /// The base's overall gain (FF_GAIN, PID Device Gain), percent; 100 again on exit.
    pub device_gain_percent: f64,
    /// Which backend drives the FFB device: `auto` (hidraw PID when the device's report
    /// descriptor declares the HID PID usage page 0x0F and rigd may open its hidraw node,
    /// else evdev), `evdev` (the kernel's force-feedback driver, any wheel) or `hidraw` (rigd
    /// writes the HID PID reports itself; force stays off when the device cannot take them).
    pub backend: FfbBackend,
}

/// `[devices.ffb] backend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema, Default)]
#[serde(rename_all = "snake_case")]
pub enum FfbBackend {
    /// hidraw PID when the device is a HID PID base whose hidraw node rigd may open, else evdev.
    #[default]
    Auto,
    /// The kernel's evdev force-feedback API.
    Evdev,
    /// rigd's own HID PID reports over hidraw.
    Hidraw,
}

impl FfbBackend {
    /// The config spelling (`auto`, `evdev`, `hidraw`).
    pub fn name(self) -> &'static str {
        match self {
            FfbBackend::Auto => "auto",
            FfbBackend::Evdev => "evdev",
            FfbBackend::Hidraw => "hidraw",
        }
    }
}

impl Default for FfbConfig {
    fn default() -> Self {
        FfbConfig {
            enabled: true,
            device: None,
            gain: 1.0,
            invert: false,
            base_max_torque_nm: 2.2,
            torque_cap_nm: 2.2,
            lowpass_hz: 0.0,
            damping_nm_per_radps: 0.0,
            friction_nm: 0.0,
            inertia_nm_per_radps2: 0.0,
            min_force: 0.0,
            soft_lock_nm_per_deg: 0.2,
            slew_rate_nm_per_s: 200.0,
            ramp_s: 1.5,
            replay_ms: 100,
            update_rate_hz: None,
            centring_spring_nm_per_deg: 0.02,
            centring_max_nm: 1.0,
            centring_damper_percent: 10.0,
            parked_below_mps: 1.0,
            feel_friction_nm: 0.0,
            feel_damper_percent: 0.0,
            feel_inertia_percent: 0.0,
            rotation_range_deg: None,
            autocentre_percent: 0.0,
            device_gain_percent: 100.0,
            backend: FfbBackend::Auto,
        }
    }
}

/// `[devices.shift_lights]`: RPM LEDs on Logitech G27/G29/G923.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ShiftLightsConfig {
    /// Drive the LEDs.
    pub enabled: bool,
    /// The `id` of the device with the LEDs (default: the FFB device).
    pub device: Option<String>,
    /// Share of the rev limit where the first LED lights.
    pub first_led_rpm_fraction: f64,
    /// Share of the rev limit where all LEDs are lit.
    pub all_leds_rpm_fraction: f64,
}

impl Default for ShiftLightsConfig {
    fn default() -> Self {
        ShiftLightsConfig {
            enabled: true,
            device: None,
            first_led_rpm_fraction: 0.75,
            all_leds_rpm_fraction: 0.95,
        }
    }
}

/// `[devices.gamepad]`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GamepadConfig {
    /// Read the first gamepad (left stick steers, triggers are throttle and brake, bumpers
    /// shift) when no wheel is configured. On by default, so a gamepad plugged in drives
    /// without any configuration; while none is connected the robot drives.
    pub enabled: bool,
    /// Rumble strength from tyre slip and kerbs, 0 ..= 1 (0 = off).
    pub rumble_gain: f64,
    /// Stick deadzone around centre, share of travel.
    pub stick_deadzone: f64,
}

impl Default for GamepadConfig {
    fn default() -> Self {
        GamepadConfig {
            enabled: true,
            rumble_gain: 0.5,
            stick_deadzone: 0.05,
        }
    }
}

/// A `[devices]` value that parsed but cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("devices.{field}: {message} (fix: {fix})")]
pub struct DevicesError {
    /// Dotted path below `devices`, e.g. `ffb.torque_cap_nm` or `axis[2].curve`.
    pub field: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub fix: String,
}

/// Builds an error from "what is wrong: how to fix it" text (split at the last `": "`).
fn err(field: impl Into<String>, text: impl Into<String>) -> DevicesError {
    let text = text.into();
    let (message, fix) = match text.rsplit_once(": ") {
        Some((what, fix)) => (what.to_string(), fix.to_string()),
        None => (
            text.clone(),
            "see the commented example in examples/g29.toml".to_string(),
        ),
    };
    DevicesError {
        field: field.into(),
        message,
        fix,
    }
}

impl crate::Validate for DevicesConfig {
    fn validate(&self, field: &str, report: &mut crate::Report) {
        if let Err(e) = self.check() {
            report.problem(format!("{field}.{}", e.field), e.message, e.fix);
        }
    }
}

fn check_range(field: &str, value: f64, lo: f64, hi: f64, what: &str) -> Result<(), DevicesError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(err(
            field,
            format!("{value} is out of range: set {what} within {lo} ..= {hi}"),
        ))
    }
}

impl DevicesConfig {
    /// The device a mapping refers to.
    pub fn find_device(&self, id: &str) -> Option<&DeviceMatch> {
        self.device.iter().find(|d| d.id == id)
    }

    /// The `id` of the FFB device: `ffb.device`, or the first wheel base.
    pub fn ffb_device_id(&self) -> Option<&str> {
        self.ffb.device.as_deref().or_else(|| {
            self.device
                .iter()
                .find(|d| d.role == DeviceRole::WheelBase)
                .map(|d| d.id.as_str())
        })
    }

    /// Checks every value that does not need hardware; the error names the field and the fix
    /// (the first problem found; [`crate::Validate`] reports it with the file position).
    pub fn check(&self) -> Result<(), DevicesError> {
        self.validate_devices()?;
        for (i, axis) in self.axis.iter().enumerate() {
            self.validate_axis(&format!("axis[{i}]"), axis)?;
        }
        for (i, button) in self.button.iter().enumerate() {
            let field = format!("button[{i}]");
            self.check_device_ref(&format!("{field}.device"), &button.device)?;
            check_code(&format!("{field}.code"), &button.code, &["BTN_", "KEY_"])?;
        }
        self.validate_steering()?;
        check_range(
            "disconnect_brake",
            self.disconnect_brake,
            0.0,
            1.0,
            "the brake held while pedals are unplugged",
        )?;
        self.validate_ffb()?;
        let lights = &self.shift_lights;
        check_range(
            "shift_lights.first_led_rpm_fraction",
            lights.first_led_rpm_fraction,
            0.0,
            1.0,
            "a share of the rev limit",
        )?;
        check_range(
            "shift_lights.all_leds_rpm_fraction",
            lights.all_leds_rpm_fraction,
            0.0,
            1.0,
            "a share of the rev limit",
        )?;
        if lights.all_leds_rpm_fraction <= lights.first_led_rpm_fraction {
            return Err(err(
                "shift_lights.all_leds_rpm_fraction",
                "is not above first_led_rpm_fraction: raise it so the LEDs fill up as revs rise",
            ));
        }
        if let Some(id) = &lights.device {
            self.check_device_ref("shift_lights.device", id)?;
        }
        check_range(
            "gamepad.rumble_gain",
            self.gamepad.rumble_gain,
            0.0,
            1.0,
            "the rumble strength",
        )?;
        check_range(
            "gamepad.stick_deadzone",
            self.gamepad.stick_deadzone,
            0.0,
            0.5,
            "a share of stick travel",
        )
    }

    fn validate_devices(&self) -> Result<(), DevicesError> {
        for (i, d) in self.device.iter().enumerate() {
            let field = format!("device[{i}]");
            if d.id.trim().is_empty() {
                return Err(err(
                    format!("{field}.id"),
                    "is empty: give the device a name such as id = \"wheel\"",
                ));
            }
            if self.device[..i].iter().any(|o| o.id == d.id) {
                return Err(err(
                    format!("{field}.id"),
                    format!("\"{}\" is used twice: give each device its own id", d.id),
                ));
            }
            if let Some(text) = &d.vid_pid {
                if parse_vid_pid(text).is_none() {
                    return Err(err(
                        format!("{field}.vid_pid"),
                        format!(
                            "\"{text}\" is not VID:PID: write four hex digits each, e.g. \"046d:c24f\" \
                             (`rigd devices` prints them)"
                        ),
                    ));
                }
            }
            if d.vid_pid.is_none()
                && d.by_id.is_none()
                && d.by_path.is_none()
                && d.name_contains.is_none()
            {
                return Err(err(
                    field,
                    format!(
                        "device \"{}\" has nothing to match on: set vid_pid, by_id, by_path or \
                         name_contains (see `rigd devices`)",
                        d.id
                    ),
                ));
            }
            if d.serial.is_some() && d.vid_pid.is_none() {
                return Err(err(
                    format!("{field}.serial"),
                    "a serial number only identifies a device together with vid_pid: add vid_pid",
                ));
            }
        }
        Ok(())
    }

    fn check_device_ref(&self, field: &str, id: &str) -> Result<(), DevicesError> {
        if self.find_device(id).is_some() {
            return Ok(());
        }
        let known: Vec<&str> = self.device.iter().map(|d| d.id.as_str()).collect();
        Err(err(
            field,
            format!(
                "no [[devices.device]] has id \"{id}\" (known: {}): add one or fix the name",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
        ))
    }

    fn validate_axis(&self, field: &str, axis: &AxisMapping) -> Result<(), DevicesError> {
        self.check_device_ref(&format!("{field}.device"), &axis.device)?;
        check_code(&format!("{field}.code"), &axis.code, &["ABS_"])?;
        if let (Some(lo), Some(hi)) = (axis.raw_min, axis.raw_max) {
            if lo == hi {
                return Err(err(
                    format!("{field}.raw_max"),
                    "equals raw_min: calibrate with the axis at both ends (use `invert` to swap them)",
                ));
            }
        }
        check_range(
            &format!("{field}.inner_deadzone"),
            axis.inner_deadzone,
            0.0,
            0.5,
            "a share of travel",
        )?;
        check_range(
            &format!("{field}.outer_deadzone"),
            axis.outer_deadzone,
            0.0,
            0.5,
            "a share of travel",
        )?;
        if axis.inner_deadzone + axis.outer_deadzone >= 0.9 {
            return Err(err(
                format!("{field}.outer_deadzone"),
                "inner plus outer deadzone leave less than 10 % of travel: make them smaller",
            ));
        }
        check_range(
            &format!("{field}.gamma"),
            axis.gamma,
            0.2,
            5.0,
            "the response exponent",
        )?;
        if !axis.curve.is_empty() {
            check_curve(&format!("{field}.curve"), &axis.curve)?;
        }
        if axis.function == AxisFunction::Steering && !axis.curve.is_empty() {
            return Err(err(
                format!("{field}.curve"),
                "steering is mapped 1:1 onto the car's lock: remove the curve from the steering axis",
            ));
        }
        Ok(())
    }

    fn validate_steering(&self) -> Result<(), DevicesError> {
        check_range(
            "steering.range_deg",
            self.steering.range_deg,
            90.0,
            3600.0,
            "the wheel's lock-to-lock rotation in degrees",
        )?;
        if let Some(lock) = self.steering.car_lock_deg {
            check_range(
                "steering.car_lock_deg",
                lock,
                90.0,
                self.steering.range_deg,
                "the car's lock-to-lock in degrees (it cannot exceed steering.range_deg)",
            )?;
        }
        Ok(())
    }

    fn validate_ffb(&self) -> Result<(), DevicesError> {
        let f = &self.ffb;
        if let Some(id) = &f.device {
            self.check_device_ref("ffb.device", id)?;
        }
        check_range("ffb.gain", f.gain, 0.0, 5.0, "the user gain")?;
        check_range(
            "ffb.base_max_torque_nm",
            f.base_max_torque_nm,
            0.1,
            50.0,
            "the base's peak torque (G29 about 2.2, direct drives 5 to 25)",
        )?;
        if !f.torque_cap_nm.is_finite() || f.torque_cap_nm <= 0.0 {
            return Err(err(
                "ffb.torque_cap_nm",
                "is not a positive number of N m: set a positive cap, or ffb.enabled = false to turn FFB off",
            ));
        }
        if f.torque_cap_nm > f.base_max_torque_nm {
            return Err(err(
                "ffb.torque_cap_nm",
                format!(
                    "{} N m is above the device limit base_max_torque_nm = {} N m: the cap can \
                     only lower the torque; set it to at most {}",
                    f.torque_cap_nm, f.base_max_torque_nm, f.base_max_torque_nm
                ),
            ));
        }
        check_range(
            "ffb.lowpass_hz",
            f.lowpass_hz,
            0.0,
            500.0,
            "the cut-off (0 = off)",
        )?;
        check_range(
            "ffb.damping_nm_per_radps",
            f.damping_nm_per_radps,
            0.0,
            5.0,
            "the damping",
        )?;
        check_range(
            "ffb.friction_nm",
            f.friction_nm,
            0.0,
            f.torque_cap_nm,
            "the friction torque (at most the cap)",
        )?;
        check_range(
            "ffb.inertia_nm_per_radps2",
            f.inertia_nm_per_radps2,
            0.0,
            0.5,
            "the inertia",
        )?;
        check_range(
            "ffb.min_force",
            f.min_force,
            0.0,
            0.3,
            "a share of the base's maximum",
        )?;
        check_range(
            "ffb.soft_lock_nm_per_deg",
            f.soft_lock_nm_per_deg,
            0.0,
            10.0,
            "the soft-lock stiffness",
        )?;
        check_range(
            "ffb.slew_rate_nm_per_s",
            f.slew_rate_nm_per_s,
            1.0,
            100_000.0,
            "the largest torque change per second",
        )?;
        check_range(
            "ffb.ramp_s",
            f.ramp_s,
            1.0,
            2.0,
            "the safety fade-in time in seconds",
        )?;
        if !(20..=100).contains(&f.replay_ms) {
            return Err(err(
                "ffb.replay_ms",
                format!(
                    "{} ms is out of range: a hung daemon must stop pushing within 100 ms, and \
                     under 20 ms the effect can expire between updates; use 20 ..= 100",
                    f.replay_ms
                ),
            ));
        }
        if let Some(rate) = f.update_rate_hz {
            check_range(
                "ffb.update_rate_hz",
                rate,
                10.0,
                1000.0,
                "the device update rate in Hz",
            )?;
            if 1000.0 / rate > f64::from(f.replay_ms) / 2.0 {
                return Err(err(
                    "ffb.update_rate_hz",
                    format!(
                        "{rate} Hz refreshes the effect less than twice per replay_ms = {} ms: \
                         raise the rate or replay_ms",
                        f.replay_ms
                    ),
                ));
            }
        }
        if f.enabled && !self.device.is_empty() && self.ffb_device_id().is_none() {
            return Err(err(
                "ffb.device",
                "no FFB device: set ffb.device to a device id, give one device role = \
                 \"wheel_base\", or set ffb.enabled = false",
            ));
        }
        self.validate_ffb_device_side()
    }

    /// The condition effects and wheel settings of `[devices.ffb]`.
    fn validate_ffb_device_side(&self) -> Result<(), DevicesError> {
        let f = &self.ffb;
        check_range(
            "ffb.centring_spring_nm_per_deg",
            f.centring_spring_nm_per_deg,
            0.0,
            1.0,
            "the centring spring stiffness (0 = off)",
        )?;
        check_range(
            "ffb.centring_max_nm",
            f.centring_max_nm,
            0.0,
            f.torque_cap_nm,
            "the centring torque (at most the cap)",
        )?;
        check_range(
            "ffb.parked_below_mps",
            f.parked_below_mps,
            0.0,
            10.0,
            "the parked speed in m/s",
        )?;
        check_range(
            "ffb.feel_friction_nm",
            f.feel_friction_nm,
            0.0,
            f.torque_cap_nm,
            "the friction torque (at most the cap)",
        )?;
        for (field, value) in [
            ("ffb.centring_damper_percent", f.centring_damper_percent),
            ("ffb.feel_damper_percent", f.feel_damper_percent),
            ("ffb.feel_inertia_percent", f.feel_inertia_percent),
            ("ffb.autocentre_percent", f.autocentre_percent),
            ("ffb.device_gain_percent", f.device_gain_percent),
        ] {
            check_range(field, value, 0.0, 100.0, "a percentage")?;
        }
        if let Some(range) = f.rotation_range_deg {
            check_range(
                "ffb.rotation_range_deg",
                f64::from(range),
                40.0,
                3600.0,
                "the lock-to-lock rotation in degrees",
            )?;
            if f64::from(range) != self.steering.range_deg {
                return Err(err(
                    "ffb.rotation_range_deg",
                    format!(
                        "{range} differs from steering.range_deg = {}, which maps the steering \
                         axis: set steering.range_deg = {range} too",
                        self.steering.range_deg
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn check_code(field: &str, code: &str, prefixes: &[&str]) -> Result<(), DevicesError> {
    let numeric = code
        .strip_prefix("0x")
        .map(|h| u16::from_str_radix(h, 16).is_ok())
        .unwrap_or_else(|| code.parse::<u16>().is_ok());
    let named = prefixes.iter().any(|p| {
        code.strip_prefix(p).is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
    });
    if numeric || named {
        Ok(())
    } else {
        Err(err(
            field,
            format!(
                "\"{code}\" is not a kernel code: write a name starting with {} or a number \
                 like \"0x2c0\" (`rigd devices` lists each device's codes)",
                prefixes.join(" or ")
            ),
        ))
    }
}

fn check_curve(field: &str, points: &[[f64; 2]]) -> Result<(), DevicesError> {
    if points.len() < 2 {
        return Err(err(
            field,
            "has fewer than two points: give points from [0, 0] to [1, 1]",
        ));
    }
    for (i, p) in points.iter().enumerate() {
        if !p.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)) {
            return Err(err(
                format!("{field}[{i}]"),
                "point is outside 0 ..= 1: give [input, output] with both within 0 ..= 1",
            ));
        }
    }
    if points[0][0] != 0.0 || points[points.len() - 1][0] != 1.0 {
        return Err(err(
            field,
            "does not cover the whole travel: start at input 0 and end at input 1",
        ));
    }
    for i in 1..points.len() {
        if points[i][0] <= points[i - 1][0] {
            return Err(err(
                format!("{field}[{i}]"),
                "input does not increase: make the inputs strictly increase from point to point",
            ));
        }
        if points[i][1] < points[i - 1][1] {
            return Err(err(
                format!("{field}[{i}]"),
                "output decreases: make the outputs non-decreasing (a pedal must never read less when pressed further)",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> DevicesConfig {
        toml::from_str(text).expect("parses")
    }

    const BASE: &str = r#"
        [[device]]
        id = "wheel"
        vid_pid = "046d:c24f"
        [[axis]]
        function = "steering"
        device = "wheel"
        code = "ABS_X"
    "#;

    fn message(extra: &str) -> String {
        parse(&format!("{BASE}\n{extra}"))
            .check()
            .expect_err("invalid")
            .to_string()
    }

    #[test]
    fn defaults_are_valid_and_match_the_reference() {
        let c = DevicesConfig::default();
        c.check().unwrap();
        assert_eq!(c.steering.range_deg, 900.0);
        assert!(c.ffb.replay_ms <= 100);
        assert!((1.0..=2.0).contains(&c.ffb.ramp_s));
        parse(BASE).check().unwrap();
    }

    #[test]
    fn condition_effects_and_wheel_settings_are_checked_with_the_fix() {
        let m = message("[ffb]\ncentring_max_nm = 3.0");
        assert!(
            m.contains("devices.ffb.centring_max_nm") && m.contains("at most the cap"),
            "{m}"
        );
        let m = message("[ffb]\nfeel_damper_percent = 150");
        assert!(m.contains("devices.ffb.feel_damper_percent"), "{m}");
        let m = message("[ffb]\nrotation_range_deg = 540");
        assert!(
            m.contains("devices.ffb.rotation_range_deg")
                && m.contains("steering.range_deg = 900")
                && m.contains("set steering.range_deg = 540 too"),
            "{m}"
        );
        parse(&format!(
            "{BASE}\n[steering]\nrange_deg = 540\n[ffb]\nrotation_range_deg = 540"
        ))
        .check()
        .unwrap();
        let defaults = FfbConfig::default();
        assert_eq!(
            defaults.rotation_range_deg, None,
            "unset: leave the base alone"
        );
        assert_eq!(
            (defaults.feel_friction_nm, defaults.feel_damper_percent),
            (0.0, 0.0),
            "feel terms are off by default"
        );
    }

    #[test]
    fn torque_cap_above_device_limit_is_rejected_with_the_fix() {
        let m = message("[ffb]\nbase_max_torque_nm = 2.2\ntorque_cap_nm = 5.0");
        assert!(m.contains("devices.ffb.torque_cap_nm"), "{m}");
        assert!(m.contains("at most 2.2"), "{m}");
    }

    #[test]
    fn unknown_device_reference_names_the_known_ones() {
        let m = message("[[button]]\nfunction = \"gear_up\"\ndevice = \"pedals\"\ncode = \"BTN_TRIGGER_HAPPY1\"");
        assert!(m.contains("button[0].device"), "{m}");
        assert!(m.contains("known: wheel"), "{m}");
    }

    #[test]
    fn bad_codes_curves_and_vid_pid_are_rejected() {
        let m = message("[[axis]]\nfunction = \"brake\"\ndevice = \"wheel\"\ncode = \"brake\"");
        assert!(m.contains("axis[1].code") && m.contains("ABS_"), "{m}");
        let m = message(
            "[[axis]]\nfunction = \"brake\"\ndevice = \"wheel\"\ncode = \"ABS_Z\"\ncurve = [[0, 0], [0.5, 0.6], [0.4, 0.7], [1, 1]]",
        );
        assert!(
            m.contains("axis[1].curve[2]") && m.contains("strictly increase"),
            "{m}"
        );
        let bad = parse("[[device]]\nid = \"w\"\nvid_pid = \"46d:c24f\"");
        let m = bad.check().unwrap_err().to_string();
        assert!(
            m.contains("device[0].vid_pid") && m.contains("046d:c24f"),
            "{m}"
        );
    }

    #[test]
    fn ramp_and_replay_limits_hold() {
        assert!(message("[ffb]\nramp_s = 0.2").contains("ffb.ramp_s"));
        assert!(message("[ffb]\nreplay_ms = 500").contains("within 100 ms"));
        assert!(message("[ffb]\nupdate_rate_hz = 15").contains("ffb.update_rate_hz"));
    }

    #[test]
    fn auto_clutch_takes_its_three_choices_and_defaults_to_when_no_clutch_axis() {
        assert_eq!(
            DevicesConfig::default().auto_clutch,
            AutoClutch::WhenNoClutchAxis
        );
        assert_eq!(
            parse("auto_clutch = \"never\"").auto_clutch,
            AutoClutch::Never
        );
        assert_eq!(
            parse("auto_clutch = \"always\"").auto_clutch,
            AutoClutch::Always
        );
        assert!(toml::from_str::<DevicesConfig>("auto_clutch = \"sometimes\"").is_err());
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let e = toml::from_str::<DevicesConfig>("[ffb]\nmax_torque = 3").unwrap_err();
        assert!(e.to_string().contains("unknown field `max_torque`"), "{e}");
    }

    #[test]
    fn the_g29_example_parses_and_validates() {
        let text = include_str!("../../examples/g29.toml");
        let config = crate::parse(text, "examples/g29.toml").expect("examples/g29.toml is valid");
        let d = &config.devices;
        assert_eq!(d.device[0].vid_pid(), Some((0x046d, 0xc24f)));
        assert_eq!(d.ffb_device_id(), Some("wheel"));
        assert_eq!(d.steering.effective_car_lock_deg(), 540.0);
        assert!(d.ffb.torque_cap_nm <= d.ffb.base_max_torque_nm);
        assert_eq!(d.axis.len(), 4);
        assert!(d
            .button
            .iter()
            .any(|b| b.function == ButtonFunction::FfbEstop));
    }

    #[test]
    fn problems_reach_the_whole_config_report_with_a_fix() {
        let text = "[devices.ffb]\ntorque_cap_nm = 9.0\n";
        let problems = crate::parse(text, "bad.toml").expect_err("cap above the device limit");
        let line = problems[0].to_string();
        assert!(line.starts_with("bad.toml:2:"), "{line}");
        assert!(
            line.contains("devices.ffb.torque_cap_nm") && line.contains("fix:"),
            "{line}"
        );
    }

    #[test]
    fn vid_pid_parses() {
        assert_eq!(parse_vid_pid("046d:c24f"), Some((0x046d, 0xc24f)));
        assert_eq!(parse_vid_pid("046d-c24f"), None);
    }
}
