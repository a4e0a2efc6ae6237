//! `[motion]`: motion platforms (geometry, actuators, cueing, safety, controller outputs) and
//! DIY serial input devices (handbrakes, shifters, button boxes).
//!
//! Units are in the key names. Validation names the field and the fix for every problem,
//! including the serial budget: a controller whose frame bytes x rate need more than 80 % of
//! its baud rate is refused (a saturated UART lags further every second), an output rate
//! above the loop rate is refused (rigd sends at most one frame per tick), and a preset's baud
//! is its firmware's unless `custom_firmware_baud` says the board was built for another.
//!
//! A preset also states the board's firmware target window (SMC3: 100..923 of 0..1023): the
//! platform's usable travel is that window less `margin_percent`, so the board never clips
//! what rigd sends ([`PlatformConfig::limits`]). `firmware_limits_counts` widens or narrows it
//! for a board set up differently.
use serde::Deserialize;

use rig_protocols::motion::{
    counts_to_axis, line_bits_per_byte, preset, Encoder, FrameKind, NumberFormat, Parity,
    SerialBudget, TemplateEncoder, MAX_BITS, MIN_BITS, PRESET_NAMES,
};

use crate::problem::{Report, Validate};

/// The `[motion]` section.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MotionConfig {
    /// Motion platforms (`[[motion.platforms]]`), each with its own outputs.
    pub platforms: Vec<PlatformConfig>,
    /// DIY serial input devices (`[[motion.serial_inputs]]`).
    pub serial_inputs: Vec<SerialInputConfig>,
}

/// One motion platform.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlatformConfig {
    /// Name used in logs.
    pub name: String,
    /// Where the actuators sit.
    pub geometry: GeometryConfig,
    /// Travel and rate limits, shared by every actuator of the platform.
    pub actuators: ActuatorConfig,
    /// How vehicle motion becomes platform motion.
    #[serde(default)]
    pub cueing: CueingConfig,
    /// Timeouts of the safety state machine.
    #[serde(default)]
    pub safety: SafetyConfig,
    /// Controllers the actuator positions are sent to (`[[motion.platforms.outputs]]`).
    #[serde(default)]
    pub outputs: Vec<OutputConfig>,
}

/// Platform geometry, chosen by `layout`.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(tag = "layout", rename_all = "snake_case", deny_unknown_fields)]
pub enum GeometryConfig {
    /// 2 vertical actuators (seat mover: roll and pitch) or 3..4 (heave, roll and pitch) at
    /// `[x, y]` points (m, x forward, y left) relative to the pivot.
    Vertical {
        /// Attachment points, m.
        actuator_points_m: Vec<[f64; 2]>,
        /// Crank radius for wiper-motor (SMC3) rigs, m; absent = linear actuators.
        crank_radius_m: Option<f64>,
    },
    /// 6-DOF Stewart platform with linear actuators (paired 6-6 layout).
    StewartLinear {
        /// Base joint circle radius, m.
        base_radius_m: f64,
        /// Platform joint circle radius, m.
        platform_radius_m: f64,
        /// Angle between the two base joints of a pair, degrees.
        base_pair_angle_deg: f64,
        /// Angle between the two platform joints of a pair, degrees.
        platform_pair_angle_deg: f64,
        /// Platform height above the base at neutral, m.
        home_height_m: f64,
    },
    /// 6-DOF Stewart platform with rotary arms (neutral = arms horizontal).
    StewartRotary {
        /// Servo shaft circle radius, m.
        base_radius_m: f64,
        /// Platform joint circle radius, m.
        platform_radius_m: f64,
        /// Angle between the two shafts of a pair, degrees.
        base_pair_angle_deg: f64,
        /// Angle between the two platform joints of a pair, degrees.
        platform_pair_angle_deg: f64,
        /// Servo arm (crank) length, m.
        arm_length_m: f64,
        /// Rod length, m.
        rod_length_m: f64,
    },
}

impl GeometryConfig {
    /// Number of actuators.
    pub fn actuator_count(&self) -> usize {
        match self {
            GeometryConfig::Vertical {
                actuator_points_m, ..
            } => actuator_points_m.len(),
            _ => 6,
        }
    }

    /// True when the actuators rotate (cranks, servo arms): travel is then in degrees.
    pub fn is_rotary(&self) -> bool {
        matches!(
            self,
            GeometryConfig::StewartRotary { .. }
                | GeometryConfig::Vertical {
                    crank_radius_m: Some(_),
                    ..
                }
        )
    }
}

/// Actuator travel and limits. Linear actuators use the `_mm` keys, cranks and rotary arms
/// the `_deg` keys.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActuatorConfig {
    /// Full usable stroke of a linear actuator, centred on neutral, mm.
    pub stroke_mm: Option<f64>,
    /// Top speed of a linear actuator, mm/s.
    pub max_speed_mm_per_s: Option<f64>,
    /// Top acceleration of a linear actuator, mm/s^2.
    pub max_accel_mm_per_s2: Option<f64>,
    /// Travel of a crank or arm either side of neutral, degrees.
    pub range_deg: Option<f64>,
    /// Top angular speed, degrees/s.
    pub max_speed_deg_per_s: Option<f64>,
    /// Top angular acceleration, degrees/s^2.
    pub max_accel_deg_per_s2: Option<f64>,
    /// Where the actuators rest when parked, as a fraction of travel (-1 bottom, 0 neutral);
    /// kept inside the usable travel (the margins, and the controller's firmware window).
    #[serde(default = "default_park_position")]
    pub park_position: f64,
    /// Travel kept free at each end, percent of the half travel (of the firmware's window
    /// when the controller clips its targets, e.g. SMC3's 100..923).
    #[serde(default = "default_margin_percent")]
    pub margin_percent: f64,
    /// Per-actuator direction reversal (missing entries: not reversed).
    #[serde(default)]
    pub reverse: Vec<bool>,
    /// Top speed of a move that starts where rigd does not know the actuators are (a
    /// controller without a known boot position, on its first open), percent of the top speed.
    #[serde(default = "default_homing_speed_percent")]
    pub homing_speed_percent: f64,
}

fn default_homing_speed_percent() -> f64 {
    10.0
}

fn default_park_position() -> f64 {
    -1.0
}
fn default_margin_percent() -> f64 {
    5.0
}

/// Actuator limits in SI units (m or rad), derived from [`ActuatorConfig`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActuatorLimits {
    /// Travel either side of neutral, m or rad (the value that maps to -1 / +1).
    pub half_travel: f64,
    /// Usable travel either side of neutral after the margin.
    pub usable_half_travel: f64,
    /// Top speed, m/s or rad/s.
    pub max_speed: f64,
    /// Top acceleration, m/s^2 or rad/s^2.
    pub max_accel: f64,
    /// Park position, fraction of travel.
    pub park_position: f64,
    /// Top speed while the start position is unknown, m/s or rad/s.
    pub homing_speed: f64,
}

impl ActuatorConfig {
    /// The limits in SI units, or `None` when the keys for this actuator kind are missing
    /// (validation reports that).
    pub fn limits(&self, rotary: bool) -> Option<ActuatorLimits> {
        let (half, speed, accel) = if rotary {
            (
                self.range_deg?.to_radians(),
                self.max_speed_deg_per_s?.to_radians(),
                self.max_accel_deg_per_s2?.to_radians(),
            )
        } else {
            (
                self.stroke_mm? / 2000.0,
                self.max_speed_mm_per_s? / 1000.0,
                self.max_accel_mm_per_s2? / 1000.0,
            )
        };
        Some(ActuatorLimits {
            half_travel: half,
            usable_half_travel: half * (1.0 - self.margin_percent / 100.0),
            max_speed: speed,
            max_accel: accel,
            park_position: self.park_position,
            homing_speed: speed * self.homing_speed_percent / 100.0,
        })
    }
}

/// Classical washout cueing parameters (defaults: the motion reference's car values).
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CueingConfig {
    /// Gain on longitudinal specific force.
    pub surge_gain: f64,
    /// Gain on lateral specific force.
    pub sway_gain: f64,
    /// Gain on vertical specific force (minus gravity).
    pub heave_gain: f64,
    /// Gain on the roll rate.
    pub roll_rate_gain: f64,
    /// Gain on the pitch rate.
    pub pitch_rate_gain: f64,
    /// Gain on the yaw rate.
    pub yaw_rate_gain: f64,
    /// Soft limit on the scaled specific force entering the filters, m/s^2.
    pub accel_limit_mps2: f64,
    /// Soft limit on the scaled rates entering the filters, degrees/s.
    pub rate_limit_deg_per_s: f64,
    /// Translational high-pass natural frequency, rad/s.
    pub washout_omega_radps: f64,
    /// Translational high-pass damping ratio.
    pub washout_zeta: f64,
    /// Third-order break frequency, rad/s (returns the platform to centre under sustained
    /// acceleration); 0 = second order only.
    pub washout_break_radps: f64,
    /// Gain of the tilt-coordination channel.
    pub tilt_gain: f64,
    /// Tilt low-pass natural frequency, rad/s.
    pub tilt_omega_radps: f64,
    /// Tilt low-pass damping ratio.
    pub tilt_zeta: f64,
    /// Tilt rate limit (keep it below the rotation perception threshold), degrees/s.
    pub tilt_rate_limit_deg_per_s: f64,
    /// Largest tilt, degrees.
    pub tilt_max_deg: f64,
    /// Rotational high-pass natural frequency, rad/s.
    pub rotation_omega_radps: f64,
    /// Rotational high-pass damping ratio (second order).
    pub rotation_zeta: f64,
    /// Yaw per radian of vehicle slip angle (traction loss); 0 = off.
    pub traction_loss_gain: f64,
    /// Below this forward speed the slip angle is ignored, m/s.
    pub traction_loss_min_speed_mps: f64,
    /// Traction-loss washout (first-order high-pass) frequency, rad/s.
    pub traction_loss_washout_radps: f64,
    /// Soft limits of the cued pose.
    pub surge_limit_m: f64,
    /// Sway soft limit, m.
    pub sway_limit_m: f64,
    /// Heave soft limit, m.
    pub heave_limit_m: f64,
    /// Roll soft limit, degrees.
    pub roll_limit_deg: f64,
    /// Pitch soft limit, degrees.
    pub pitch_limit_deg: f64,
    /// Yaw soft limit, degrees.
    pub yaw_limit_deg: f64,
}

impl Default for CueingConfig {
    fn default() -> Self {
        CueingConfig {
            surge_gain: 1.0,
            sway_gain: 1.0,
            heave_gain: 0.5,
            roll_rate_gain: 1.0,
            pitch_rate_gain: 1.0,
            yaw_rate_gain: 1.0,
            accel_limit_mps2: 15.0,
            rate_limit_deg_per_s: 60.0,
            washout_omega_radps: 2.5,
            washout_zeta: 1.0,
            washout_break_radps: 0.5,
            tilt_gain: 1.0,
            tilt_omega_radps: 5.0,
            tilt_zeta: 1.0,
            tilt_rate_limit_deg_per_s: 5.0,
            tilt_max_deg: 10.0,
            rotation_omega_radps: 1.0,
            rotation_zeta: 1.0,
            traction_loss_gain: 0.5,
            traction_loss_min_speed_mps: 5.0,
            traction_loss_washout_radps: 0.5,
            surge_limit_m: 0.10,
            sway_limit_m: 0.10,
            heave_limit_m: 0.05,
            roll_limit_deg: 12.0,
            pitch_limit_deg: 12.0,
            yaw_limit_deg: 15.0,
        }
    }
}

/// Timeouts of the motion safety state machine.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct SafetyConfig {
    /// Physics is stale (cues fade to neutral) when simulation time has not advanced for this
    /// long, ms.
    pub stale_after_ms: u32,
    /// Stale this long: go to Idle (neutral), ms.
    pub hold_before_idle_ms: u32,
    /// Idle this long: park, s.
    pub idle_before_park_s: f64,
    /// A car position jump larger than this in one tick is a reset or teleport: cue filters
    /// are reset, m.
    pub reset_jump_m: f64,
    /// After a reset the cues stay off this long, ms.
    pub reset_quiet_ms: u32,
    /// The output writer parks on its own when the RT loop has been silent this long, ms.
    pub writer_watchdog_ms: u32,
}

impl Default for SafetyConfig {
    fn default() -> Self {
        SafetyConfig {
            stale_after_ms: 100,
            hold_before_idle_ms: 2000,
            idle_before_park_s: 30.0,
            reset_jump_m: 2.0,
            reset_quiet_ms: 500,
            writer_watchdog_ms: 500,
        }
    }
}

/// Frame number format in the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FormatConfig {
    /// Big-endian bytes.
    Binary,
    /// ASCII decimal.
    Decimal,
    /// ASCII uppercase hex.
    Hex,
}

impl From<FormatConfig> for NumberFormat {
    fn from(f: FormatConfig) -> NumberFormat {
        match f {
            FormatConfig::Binary => NumberFormat::Binary,
            FormatConfig::Decimal => NumberFormat::Decimal,
            FormatConfig::Hex => NumberFormat::Hex,
        }
    }
}

/// Serial parity in the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParityConfig {
    /// No parity bit.
    #[default]
    None,
    /// Odd.
    Odd,
    /// Even.
    Even,
}

impl From<ParityConfig> for Parity {
    fn from(p: ParityConfig) -> Parity {
        match p {
            ParityConfig::None => Parity::None,
            ParityConfig::Odd => Parity::Odd,
            ParityConfig::Even => Parity::Even,
        }
    }
}

/// One motion controller (serial or UDP).
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    /// A built-in controller (`smc3`, `aasd15a_arduino`, `motion4sim_direct`,
    /// `motion4sim_position`, `stepper_p2`, `stepper_t5`, `knaufinator_text`,
    /// `knaufinator_binary`, `odrive_hexapod`); the keys below override it (a `template`
    /// turns any preset into a template frame).
    pub preset: Option<String>,
    /// SimTools-style frame template (`<Axis1a>` placeholders, `<255>` byte escapes).
    pub template: Option<String>,
    /// Axis resolution, 7 ..= 32 bits.
    pub bits: Option<u8>,
    /// Number format of the axis values.
    pub format: Option<FormatConfig>,
    /// Sent once after opening (and the post-open delay).
    pub start: Option<String>,
    /// Wait after the start string, ms.
    #[serde(default)]
    pub start_delay_ms: u32,
    /// Sent once after parking.
    pub stop: Option<String>,
    /// Wait before the stop string, ms.
    #[serde(default)]
    pub stop_delay_ms: u32,
    /// Serial device path (e.g. `/dev/serial/by-id/...`); exclusive with `udp_target`.
    pub serial_port: Option<String>,
    /// UDP destination `host:port`; exclusive with `serial_port`.
    pub udp_target: Option<String>,
    /// Serial speed, bit/s (default: the preset's firmware speed; a preset's board listens
    /// only at it, so another value needs `custom_firmware_baud = true`).
    pub baud: Option<u32>,
    /// The board's firmware was built for `baud` instead of the preset's speed (e.g. SMC3's
    /// `mode3` branch at 250000): rigd uses it and warns, naming the firmware's value.
    #[serde(default)]
    pub custom_firmware_baud: bool,
    /// The target window the board's firmware clips to, counts `[low, high]` (default: the
    /// preset's, SMC3 `[100, 923]`). Widen it only after changing the board's own limits
    /// (SMC3: `[S..]`, `[T..]`, `[U..]` then `[sav]`); rigd's margins stay inside it.
    pub firmware_limits_counts: Option<[u32; 2]>,
    /// Opening the port resets the board, which then starts from the preset's boot position
    /// (default: the preset's; SMC3 and the AASD-15A Arduino sketch: true). Set false when a
    /// 10 uF capacitor between RESET and GND keeps the board running.
    pub resets_on_open: Option<bool>,
    /// Data bits per byte, 5 ..= 8.
    #[serde(default = "default_data_bits")]
    pub data_bits: u8,
    /// Parity.
    #[serde(default)]
    pub parity: ParityConfig,
    /// Stop bits, 1 or 2.
    #[serde(default = "default_stop_bits")]
    pub stop_bits: u8,
    /// Frames per second (default: the preset's, else 100), at most the loop rate: rigd sends
    /// one frame every `round(loop rate / rate_hz)` ticks.
    pub rate_hz: Option<f64>,
    /// Wait after opening the port before anything is sent (opening resets Arduino boards), ms.
    #[serde(default = "default_post_open_delay_ms")]
    pub post_open_delay_ms: u32,
}

fn default_data_bits() -> u8 {
    8
}
fn default_stop_bits() -> u8 {
    1
}
fn default_post_open_delay_ms() -> u32 {
    2000
}

/// An output's encoder settings after applying the preset and overrides.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedOutput {
    /// Frame template (empty for the frames that are not templates).
    pub template: String,
    /// Resolution, bits.
    pub bits: u8,
    /// Number format.
    pub format: NumberFormat,
    /// The kind of frame.
    pub kind: FrameKind,
    /// Start string (escapes not yet replaced).
    pub start: String,
    /// Stop string.
    pub stop: String,
    /// Serial speed, bit/s.
    pub baud: u32,
    /// Frames per second asked for (see [`OutputConfig::rate_hz`]).
    pub rate_hz: f64,
    /// The board's targets after boot, axis values (`None`: unknown).
    pub boot_position: Option<f64>,
    /// Opening the port resets the board to [`Self::boot_position`].
    pub resets_on_open: bool,
    /// The firmware's target window as axis values `(low, high)`, if it clips.
    pub firmware_window: Option<(f64, f64)>,
}

/// Loop ticks per frame for an output at `rate_hz` on a loop at `loop_hz` (at least 1).
pub fn ticks_per_frame(loop_hz: f64, rate_hz: f64) -> u32 {
    (loop_hz / rate_hz).round().max(1.0) as u32
}

/// The rate an output at `rate_hz` really gets on a loop at `loop_hz`, Hz.
pub fn real_rate_hz(loop_hz: f64, rate_hz: f64) -> f64 {
    loop_hz / f64::from(ticks_per_frame(loop_hz, rate_hz))
}

impl OutputConfig {
    /// The effective encoder settings, or a message naming the missing key.
    pub fn resolve(&self) -> Result<ResolvedOutput, String> {
        let base = match &self.preset {
            Some(name) => Some(preset(name).ok_or_else(|| {
                format!(
                    "unknown preset `{name}` (known: {})",
                    PRESET_NAMES.join(", ")
                )
            })?),
            None => None,
        };
        let template = self
            .template
            .clone()
            .or(base.map(|p| p.template.to_string()))
            .ok_or("no preset and no template")?;
        Ok(ResolvedOutput {
            kind: match (&self.template, base) {
                (None, Some(p)) => p.kind,
                _ => FrameKind::Template,
            },
            template,
            bits: self.bits.or(base.map(|p| p.bits)).unwrap_or(16),
            format: self
                .format
                .map(NumberFormat::from)
                .or(base.map(|p| p.format))
                .unwrap_or(NumberFormat::Binary),
            start: self
                .start
                .clone()
                .or(base.map(|p| p.start.to_string()))
                .unwrap_or_default(),
            stop: self
                .stop
                .clone()
                .or(base.map(|p| p.stop.to_string()))
                .unwrap_or_default(),
            baud: self.baud.or(base.map(|p| p.baud)).unwrap_or(115_200),
            rate_hz: self
                .rate_hz
                .or(base.map(|p| f64::from(p.rate_hz)))
                .unwrap_or(100.0),
            boot_position: base.and_then(|p| Some(counts_to_axis(p.boot_counts?, p.bits))),
            resets_on_open: self
                .resets_on_open
                .or(base.map(|p| p.resets_on_open))
                .unwrap_or(false),
            firmware_window: self
                .firmware_limits_counts
                .map(|[low, high]| (low, high))
                .or(base.and_then(|p| p.firmware_limits_counts))
                .map(|(low, high)| {
                    let bits = self.bits.or(base.map(|p| p.bits)).unwrap_or(16);
                    (counts_to_axis(low, bits), counts_to_axis(high, bits))
                }),
        })
    }

    /// The frame length the serial budget counts, or the problem with the template.
    fn frame_bytes(&self, resolved: &ResolvedOutput) -> Result<usize, String> {
        Ok(match resolved.kind {
            FrameKind::KnaufinatorBinary => Encoder::KNAUFINATOR_FRAME_BYTES,
            FrameKind::Motion4SimPosition => Encoder::M4S_POSITION_FRAME_BYTES,
            FrameKind::Template => {
                TemplateEncoder::new(&resolved.template, resolved.bits, resolved.format)
                    .map_err(|e| e.to_string())?
                    .max_frame_len()
            }
        })
    }

    /// The rate and serial-budget problems of this output on a loop at `loop_hz`.
    fn validate_rate(&self, field: &str, loop_hz: u32, report: &mut Report) {
        let Ok(resolved) = self.resolve() else {
            return;
        };
        let loop_hz = f64::from(loop_hz);
        if !(resolved.rate_hz.is_finite() && resolved.rate_hz >= 1.0) {
            return;
        }
        if resolved.rate_hz > loop_hz {
            report.problem(
                format!("{field}.rate_hz"),
                format!(
                    "{} Hz is above the loop's {loop_hz} Hz: rigd sends at most one frame per tick, so the controller would get {loop_hz} frames/s, not {}",
                    resolved.rate_hz, resolved.rate_hz
                ),
                format!(
                    "lower rate_hz to {loop_hz} or less, or raise [loop] rate_hz to {} (it must stay within 100..=2000)",
                    resolved.rate_hz.ceil()
                ),
            );
            return;
        }
        let Ok(frame_bytes) = self.frame_bytes(&resolved) else {
            return;
        };
        if self.serial_port.is_none() || resolved.baud == 0 {
            return;
        }
        let rate_hz = real_rate_hz(loop_hz, resolved.rate_hz);
        let budget = SerialBudget {
            frame_bytes,
            rate_hz,
            baud: resolved.baud,
            bits_per_byte: self.bits_per_byte(),
        };
        if !budget.fits() {
            report.problem(
                format!("{field}.rate_hz"),
                format!(
                    "{frame_bytes}-byte frames at {rate_hz} Hz need {:.0} % of {} baud (the limit is 80 %)",
                    budget.line_share() * 100.0,
                    resolved.baud
                ),
                format!(
                    "lower rate_hz to at most {:.0}, or raise the controller's baud",
                    budget.max_allowed_rate_hz().floor()
                ),
            );
        }
    }

    /// A warning when this output's baud overrides its preset firmware's speed.
    fn baud_warning(&self, field: &str) -> Option<String> {
        let firmware = preset(self.preset.as_deref()?)?;
        let baud = self.baud?;
        (self.custom_firmware_baud && baud != firmware.baud).then(|| {
            format!(
                "{field}.baud: {baud} overrides the {} firmware's {} baud (custom_firmware_baud = true); the board must have been built for {baud}, or it reads nothing rigd sends",
                firmware.name, firmware.baud
            )
        })
    }

    /// Bits on the wire per byte for this serial setting.
    pub fn bits_per_byte(&self) -> u32 {
        line_bits_per_byte(self.data_bits, self.parity.into(), self.stop_bits)
    }
}

/// What a serial input axis drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SerialAxisFunction {
    /// Handbrake lever.
    Handbrake,
    /// Clutch pedal.
    Clutch,
    /// Throttle pedal.
    Throttle,
    /// Brake pedal.
    Brake,
}

/// What a serial input button does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SerialButtonFunction {
    /// Sequential shift up.
    GearUp,
    /// Sequential shift down.
    GearDown,
    /// Hold the starter.
    Starter,
}

/// One axis line (`<letter> <raw>`) of a serial input device.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SerialAxisConfig {
    /// The axis letter the device sends (`H` for `H 512`).
    pub letter: String,
    /// What the axis drives.
    pub function: SerialAxisFunction,
    /// Raw value at rest.
    #[serde(default)]
    pub raw_min: u16,
    /// Raw value fully applied.
    #[serde(default = "default_raw_max")]
    pub raw_max: u16,
}

fn default_raw_max() -> u16 {
    1023
}

/// One button of a serial input device.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SerialButtonConfig {
    /// Button number the device sends (`B <index> 1`).
    pub index: u8,
    /// What it does.
    pub function: SerialButtonFunction,
}

/// A DIY serial input device.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SerialInputConfig {
    /// Name used in logs.
    pub name: String,
    /// Serial device path.
    pub serial_port: String,
    /// Serial speed, bit/s.
    #[serde(default = "default_input_baud")]
    pub baud: u32,
    /// `G <gear>` lines select the gear (H-pattern shifter).
    #[serde(default = "default_true")]
    pub gear_selector: bool,
    /// Axis mapping.
    #[serde(default)]
    pub axes: Vec<SerialAxisConfig>,
    /// Button mapping.
    #[serde(default)]
    pub buttons: Vec<SerialButtonConfig>,
}

fn default_input_baud() -> u32 {
    115_200
}
fn default_true() -> bool {
    true
}

impl GeometryConfig {
    /// The lengths that must be above 0, as `(key, value, what it is)`, for the config check.
    fn positive_lengths(&self) -> Vec<(&'static str, f64, &'static str)> {
        match self {
            GeometryConfig::Vertical { crank_radius_m, .. } => crank_radius_m
                .iter()
                .map(|r| ("crank_radius_m", *r, "the crank radius"))
                .collect(),
            GeometryConfig::StewartLinear {
                base_radius_m,
                platform_radius_m,
                home_height_m,
                ..
            } => vec![
                ("base_radius_m", *base_radius_m, "the base radius"),
                (
                    "platform_radius_m",
                    *platform_radius_m,
                    "the platform radius",
                ),
                ("home_height_m", *home_height_m, "the neutral height"),
            ],
            GeometryConfig::StewartRotary {
                base_radius_m,
                platform_radius_m,
                arm_length_m,
                rod_length_m,
                ..
            } => vec![
                ("base_radius_m", *base_radius_m, "the base radius"),
                (
                    "platform_radius_m",
                    *platform_radius_m,
                    "the platform radius",
                ),
                ("arm_length_m", *arm_length_m, "the arm length"),
                ("rod_length_m", *rod_length_m, "the rod length"),
            ],
        }
    }
}

fn positive(report: &mut Report, field: String, value: f64, what: &str) {
    if !(value.is_finite() && value > 0.0) {
        report.problem(
            field,
            format!("{value} is not a positive number"),
            format!("set {what} to a value above 0"),
        );
    }
}

impl MotionConfig {
    /// The problems of every output's rate on a loop at `loop_hz` (a rate above it, a serial
    /// budget that does not fit the rate rigd really sends at); `field` is `motion`.
    pub fn validate_rates(&self, field: &str, loop_hz: u32, report: &mut Report) {
        for (i, platform) in self.platforms.iter().enumerate() {
            for (j, output) in platform.outputs.iter().enumerate() {
                output.validate_rate(
                    &format!("{field}.platforms[{i}].outputs[{j}]"),
                    loop_hz,
                    report,
                );
            }
        }
    }

    /// What is valid but deliberate and worth saying (a baud that overrides its firmware's).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (i, platform) in self.platforms.iter().enumerate() {
            for (j, output) in platform.outputs.iter().enumerate() {
                out.extend(output.baud_warning(&format!("motion.platforms[{i}].outputs[{j}]")));
            }
        }
        out
    }
}

impl Validate for MotionConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        for (i, platform) in self.platforms.iter().enumerate() {
            platform.validate(&format!("{field}.platforms[{i}]"), report);
        }
        for (i, input) in self.serial_inputs.iter().enumerate() {
            input.validate(&format!("{field}.serial_inputs[{i}]"), report);
        }
    }
}

impl Validate for PlatformConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        let geometry = format!("{field}.geometry");
        if let GeometryConfig::Vertical {
            actuator_points_m, ..
        } = &self.geometry
        {
            if !(2..=4).contains(&actuator_points_m.len()) {
                report.problem(
                    format!("{geometry}.actuator_points_m"),
                    format!("{} actuator points; a vertical platform has 2, 3 or 4", actuator_points_m.len()),
                    "list one [x, y] point in metres per actuator: 2 for a seat mover, 3 or 4 for heave+roll+pitch",
                );
            }
        }
        for (key, value, what) in self.geometry.positive_lengths() {
            positive(report, format!("{geometry}.{key}"), value, what);
        }
        let actuators = format!("{field}.actuators");
        let rotary = self.geometry.is_rotary();
        match self.actuators.limits(rotary) {
            None if rotary => report.problem(
                actuators.clone(),
                "cranks and rotary arms need range_deg, max_speed_deg_per_s and max_accel_deg_per_s2",
                "add the three _deg keys (e.g. range_deg = 60, max_speed_deg_per_s = 200, max_accel_deg_per_s2 = 2000)",
            ),
            None => report.problem(
                actuators.clone(),
                "linear actuators need stroke_mm, max_speed_mm_per_s and max_accel_mm_per_s2",
                "add the three _mm keys (e.g. stroke_mm = 100, max_speed_mm_per_s = 200, max_accel_mm_per_s2 = 2000)",
            ),
            Some(limits) => {
                let unit = if rotary { "deg" } else { "mm" };
                for (key, value) in [
                    (if rotary { "range_deg" } else { "stroke_mm" }, limits.half_travel),
                    (if rotary { "max_speed_deg_per_s" } else { "max_speed_mm_per_s" }, limits.max_speed),
                    (if rotary { "max_accel_deg_per_s2" } else { "max_accel_mm_per_s2" }, limits.max_accel),
                ] {
                    positive(report, format!("{actuators}.{key}"), value, &format!("this {unit} limit"));
                }
            }
        }
        report.check_range(
            &format!("{actuators}.park_position"),
            self.actuators.park_position,
            -1.0..=1.0,
        );
        report.check_range(
            &format!("{actuators}.margin_percent"),
            self.actuators.margin_percent,
            0.0..=50.0,
        );
        report.check_range(
            &format!("{actuators}.homing_speed_percent"),
            self.actuators.homing_speed_percent,
            1.0..=100.0,
        );
        if self.actuators.reverse.len() > self.geometry.actuator_count() {
            report.problem(
                format!("{actuators}.reverse"),
                format!(
                    "{} entries for {} actuators",
                    self.actuators.reverse.len(),
                    self.geometry.actuator_count()
                ),
                "give at most one true/false per actuator",
            );
        }
        self.cueing.validate(&format!("{field}.cueing"), report);
        for (i, output) in self.outputs.iter().enumerate() {
            output.validate(&format!("{field}.outputs[{i}]"), report);
        }
        let uncovered = self.actuators_in_no_frame();
        if !uncovered.is_empty() {
            let placeholders: Vec<String> = uncovered
                .iter()
                .map(|i| format!("<Axis{}a>", i + 1))
                .collect();
            report.problem(
                format!("{field}.outputs"),
                if uncovered.len() == 1 {
                    format!(
                        "actuator {} (of {}) is in no output's frame: it would never move",
                        placeholders[0],
                        self.geometry.actuator_count()
                    )
                } else {
                    format!(
                        "actuators {} (of {}) are in no output's frame: they would never move",
                        placeholders.join(", "),
                        self.geometry.actuator_count()
                    )
                },
                format!(
                    "add {} to an output's template, or add an output for them (e.g. a second SMC3 with template = \"[A<Axis4a>][B<Axis5a>][C<Axis6a>]\")",
                    placeholders.join(", ")
                ),
            );
        }
    }
}

impl PlatformConfig {
    /// The actuator limits in SI units with the usable travel inside every output's firmware
    /// window: `min(1 - margin, window x (1 - margin))` of the half travel, where the window
    /// is the narrower side of the firmware's clip limits as axis values. `None` when the
    /// actuator keys are missing.
    pub fn limits(&self) -> Option<ActuatorLimits> {
        let mut limits = self.actuators.limits(self.geometry.is_rotary())?;
        let keep = 1.0 - self.actuators.margin_percent / 100.0;
        for output in &self.outputs {
            if let Some((low, high)) = output.resolve().ok().and_then(|r| r.firmware_window) {
                let window = (-low).min(high).clamp(0.0, 1.0);
                limits.usable_half_travel = limits
                    .usable_half_travel
                    .min(limits.half_travel * window * keep);
            }
        }
        Some(limits)
    }

    /// Actuators (0-based) that no output's frame carries. Empty when the platform has no
    /// outputs or an output is invalid (that output's own problem is reported instead).
    fn actuators_in_no_frame(&self) -> Vec<usize> {
        let count = self.geometry.actuator_count();
        let mut covered = vec![false; count];
        for output in &self.outputs {
            let Ok(resolved) = output.resolve() else {
                return Vec::new();
            };
            match resolved.kind {
                // Fixed six-value frame, and the pose frame moves every actuator.
                FrameKind::KnaufinatorBinary => {
                    covered.iter_mut().take(6).for_each(|c| *c = true);
                }
                FrameKind::Motion4SimPosition => covered.iter_mut().for_each(|c| *c = true),
                FrameKind::Template => {
                    let Ok(t) =
                        TemplateEncoder::new(&resolved.template, resolved.bits, resolved.format)
                    else {
                        return Vec::new();
                    };
                    for (i, c) in covered.iter_mut().enumerate() {
                        *c |= t.mentions_axis(i);
                    }
                }
            }
        }
        if self.outputs.is_empty() {
            return Vec::new();
        }
        (0..count).filter(|&i| !covered[i]).collect()
    }
}

impl Validate for CueingConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        for (key, value) in [
            ("accel_limit_mps2", self.accel_limit_mps2),
            ("rate_limit_deg_per_s", self.rate_limit_deg_per_s),
            ("washout_omega_radps", self.washout_omega_radps),
            ("washout_zeta", self.washout_zeta),
            ("tilt_omega_radps", self.tilt_omega_radps),
            ("tilt_zeta", self.tilt_zeta),
            ("tilt_rate_limit_deg_per_s", self.tilt_rate_limit_deg_per_s),
            ("rotation_omega_radps", self.rotation_omega_radps),
            ("rotation_zeta", self.rotation_zeta),
            (
                "traction_loss_washout_radps",
                self.traction_loss_washout_radps,
            ),
            ("surge_limit_m", self.surge_limit_m),
            ("sway_limit_m", self.sway_limit_m),
            ("heave_limit_m", self.heave_limit_m),
            ("roll_limit_deg", self.roll_limit_deg),
            ("pitch_limit_deg", self.pitch_limit_deg),
            ("yaw_limit_deg", self.yaw_limit_deg),
        ] {
            positive(report, format!("{field}.{key}"), value, key);
        }
        report.check_range(
            &format!("{field}.washout_break_radps"),
            self.washout_break_radps,
            0.0..=10.0,
        );
        report.check_range(
            &format!("{field}.tilt_max_deg"),
            self.tilt_max_deg,
            0.0..=30.0,
        );
    }
}

impl Validate for OutputConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        match (&self.serial_port, &self.udp_target) {
            (None, None) | (Some(_), Some(_)) => report.problem(
                field.to_string(),
                "an output needs exactly one of serial_port and udp_target",
                "set serial_port = \"/dev/ttyUSB0\" (or a /dev/serial/by-id path) or udp_target = \"host:port\"",
            ),
            (None, Some(target)) => {
                if target.parse::<std::net::SocketAddr>().is_err() {
                    report.problem(
                        format!("{field}.udp_target"),
                        format!("`{target}` is not an IP address and port"),
                        "write it as \"192.168.1.50:4123\"",
                    );
                }
            }
            (Some(_), None) => {}
        }
        if let Some(rate_hz) = self.rate_hz {
            if !(rate_hz.is_finite() && (1.0..=2000.0).contains(&rate_hz)) {
                report.problem(
                    format!("{field}.rate_hz"),
                    format!("{rate_hz} is outside 1 ..= 2000 Hz"),
                    "set rate_hz to the controller's update rate, e.g. 100",
                );
            }
        }
        report.check_range(&format!("{field}.data_bits"), self.data_bits, 5..=8);
        report.check_range(&format!("{field}.stop_bits"), self.stop_bits, 1..=2);
        let resolved = match self.resolve() {
            Ok(r) => r,
            Err(message) => {
                report.problem(
                    format!("{field}.preset"),
                    message,
                    format!(
                        "use a known preset ({}) or write template, bits and format",
                        PRESET_NAMES.join(", ")
                    ),
                );
                return;
            }
        };
        if let Err(message) = self.frame_bytes(&resolved) {
            report.problem(
                format!("{field}.template"),
                message,
                "fix the template or bits as the message says",
            );
        }
        if let (Some(name), Some(baud)) = (&self.preset, self.baud) {
            let firmware = preset(name).map_or(baud, |p| p.baud);
            if baud != firmware && !self.custom_firmware_baud {
                report.problem(
                    format!("{field}.baud"),
                    format!("{baud} is not the {name} firmware's {firmware} baud: the board listens only at the speed its firmware was built for"),
                    format!("remove baud (rigd then uses {firmware}), or, if the board's firmware was built for {baud}, add custom_firmware_baud = true"),
                );
            }
        }
        if let Some([low, high]) = self.firmware_limits_counts {
            let max = (1u64 << resolved.bits.clamp(MIN_BITS, MAX_BITS)) - 1;
            if !(low < high && u64::from(high) <= max) {
                report.problem(
                    format!("{field}.firmware_limits_counts"),
                    format!("[{low}, {high}] is not a window inside 0..={max}"),
                    "give the board's clip limits as [low, high] with low < high, e.g. [100, 923] for a stock SMC3",
                );
            }
        }
    }
}

impl Validate for SerialInputConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        for (i, axis) in self.axes.iter().enumerate() {
            let ok = axis.letter.len() == 1
                && axis
                    .letter
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() && b != b'G' && b != b'B');
            if !ok {
                report.problem(
                    format!("{field}.axes[{i}].letter"),
                    format!("`{}` is not an axis letter", axis.letter),
                    "use one upper-case letter other than G and B (those are gear and button lines), e.g. \"H\"",
                );
            }
            if axis.raw_min == axis.raw_max {
                report.problem(
                    format!("{field}.axes[{i}].raw_max"),
                    "raw_min and raw_max are equal",
                    "set raw_min to the value at rest and raw_max to the value fully applied",
                );
            }
        }
        for (i, button) in self.buttons.iter().enumerate() {
            report.check_range(&format!("{field}.buttons[{i}].index"), button.index, 0..=63);
        }
        if self.baud == 0 {
            report.problem(
                format!("{field}.baud"),
                "baud is 0",
                "set the sketch's Serial.begin() speed, e.g. 115200",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEXAPOD: &str = r#"
[[motion.platforms]]
name = "hexapod"
[motion.platforms.geometry]
layout = "stewart_linear"
base_radius_m = 0.55
platform_radius_m = 0.35
base_pair_angle_deg = 20.0
platform_pair_angle_deg = 20.0
home_height_m = 0.60
[motion.platforms.actuators]
stroke_mm = 150.0
max_speed_mm_per_s = 250.0
max_accel_mm_per_s2 = 2500.0
[[motion.platforms.outputs]]
preset = "motion4sim_position"
serial_port = "/dev/ttyUSB0"
"#;

    #[test]
    fn motion4sim_position_resolves_to_the_pose_frame() {
        let config = crate::parse(&format!("{HEXAPOD}rate_hz = 500.0\n"), "m4s.toml").unwrap();
        let output = &config.motion.platforms[0].outputs[0];
        let resolved = output.resolve().unwrap();
        assert_eq!(resolved.kind, FrameKind::Motion4SimPosition);
        assert_eq!(resolved.baud, 250_000);
        // A template override turns it into a template frame.
        let mut templated = output.clone();
        templated.template = Some("<Axis1a>".into());
        assert_eq!(templated.resolve().unwrap().kind, FrameKind::Template);
    }

    #[test]
    fn an_actuator_in_no_frame_is_refused() {
        // A 6-actuator hexapod on one 3-motor SMC3: actuators 4..6 would never move.
        let text = HEXAPOD.replace("motion4sim_position", "smc3");
        let problems = crate::parse(&text, "smc3.toml").unwrap_err();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        assert_eq!(p.field, "motion.platforms[0].outputs");
        assert!(
            p.message
                .contains("actuators <Axis4a>, <Axis5a>, <Axis6a> (of 6) are in no output's frame"),
            "{}",
            p.message
        );
        assert!(
            p.fix.contains("[A<Axis4a>][B<Axis5a>][C<Axis6a>]"),
            "{}",
            p.fix
        );
        // A second SMC3 for the other three makes it whole.
        let split = format!(
            "{text}[[motion.platforms.outputs]]\ntemplate = \"[A<Axis4a>][B<Axis5a>][C<Axis6a>]\"\nbits = 10\nbaud = 500000\nserial_port = \"/dev/ttyUSB1\"\n"
        );
        crate::parse(&split, "split.toml").unwrap();
    }

    #[test]
    fn motion4sim_position_at_1khz_exceeds_the_serial_budget() {
        // 36 bytes x 1000 Hz x 10 bits = 144 % of 250000 baud; 80 % allows 555 Hz.
        let problems =
            crate::parse(&format!("{HEXAPOD}rate_hz = 1000.0\n"), "m4s.toml").unwrap_err();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        assert_eq!(p.field, "motion.platforms[0].outputs[0].rate_hz");
        assert!(
            p.message
                .contains("36-byte frames at 1000 Hz need 144 % of 250000 baud"),
            "{}",
            p.message
        );
        assert!(p.fix.contains("at most 555"), "{}", p.fix);
    }

    const SEAT: &str = r#"
[[motion.platforms]]
name = "seat"
[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25]]
crank_radius_m = 0.10
[motion.platforms.actuators]
range_deg = 60.0
max_speed_deg_per_s = 120.0
max_accel_deg_per_s2 = 1200.0
[[motion.platforms.outputs]]
preset = "smc3"
serial_port = "/dev/ttyUSB0"
"#;

    #[test]
    fn an_output_rate_above_the_loop_rate_is_refused_with_both_fixes() {
        let problems = crate::parse(&format!("{SEAT}rate_hz = 2000.0\n"), "seat.toml").unwrap_err();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        assert_eq!(p.field, "motion.platforms[0].outputs[0].rate_hz");
        assert!(
            p.message.contains("above the loop's 1000 Hz"),
            "{}",
            p.message
        );
        assert!(
            p.fix.contains("lower rate_hz to 1000") && p.fix.contains("[loop] rate_hz to 2000"),
            "{}",
            p.fix
        );
        // With the loop raised to 2000 Hz the same output is fine (15 B x 2000 Hz = 60 %).
        let raised = format!("[loop]\nrate_hz = 2000\n{SEAT}rate_hz = 2000.0\n");
        crate::parse(&raised, "seat.toml").unwrap();
    }

    #[test]
    fn the_budget_counts_the_rate_rigd_really_sends() {
        // 700 Hz on a 1 kHz loop is one frame a tick: 1000 frames/s of 36 bytes do not fit
        // 250000 baud, although 700 would (101 % < 144 %).
        let problems =
            crate::parse(&format!("{HEXAPOD}rate_hz = 700.0\n"), "m4s.toml").unwrap_err();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].message.contains("at 1000 Hz need 144 %"),
            "{}",
            problems[0].message
        );
        assert_eq!(real_rate_hz(1000.0, 700.0), 1000.0);
        assert_eq!(real_rate_hz(1000.0, 300.0), 1000.0 / 3.0);
    }

    #[test]
    fn a_preset_baud_differs_only_on_purpose() {
        let problems = crate::parse(&format!("{SEAT}baud = 115200\n"), "seat.toml").unwrap_err();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let p = &problems[0];
        assert_eq!(p.field, "motion.platforms[0].outputs[0].baud");
        assert!(
            p.message
                .contains("115200 is not the smc3 firmware's 500000 baud"),
            "{}",
            p.message
        );
        assert!(p.fix.contains("custom_firmware_baud = true"), "{}", p.fix);
        let deliberate = format!("{SEAT}baud = 250000\ncustom_firmware_baud = true\n");
        let config = crate::parse(&deliberate, "seat.toml").unwrap();
        let warnings = config.motion.warnings();
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("250000 overrides the smc3 firmware's 500000 baud"),
            "{}",
            warnings[0]
        );
        assert_eq!(
            config.motion.platforms[0].outputs[0]
                .resolve()
                .unwrap()
                .baud,
            250_000
        );
    }

    #[test]
    fn the_margins_sit_inside_the_firmware_window() {
        let config = crate::parse(SEAT, "seat.toml").unwrap();
        let platform = &config.motion.platforms[0];
        let limits = platform.limits().unwrap();
        // SMC3 clips at 100 of 0..1023: -411/511 of the half travel, less 5 %.
        let expected = 60f64.to_radians() * (411.0 / 511.0) * 0.95;
        assert!((limits.usable_half_travel - expected).abs() < 1e-12);
        let low = rig_protocols::motion::axis_to_counts(-expected / limits.half_travel, 10);
        let high = rig_protocols::motion::axis_to_counts(expected / limits.half_travel, 10);
        assert!(low >= 100 && high <= 923, "{low}..{high}");
        // A board whose limits were widened: the window follows the config.
        let wide = crate::parse(
            &format!("{SEAT}firmware_limits_counts = [23, 1000]\n"),
            "seat.toml",
        )
        .unwrap();
        let wide = wide.motion.platforms[0].limits().unwrap();
        assert!(wide.usable_half_travel > limits.usable_half_travel);
        let resolved = platform.outputs[0].resolve().unwrap();
        assert_eq!(resolved.boot_position, Some(1.0 / 512.0));
        assert!(resolved.resets_on_open);
        let bad = crate::parse(
            &format!("{SEAT}firmware_limits_counts = [900, 100]\n"),
            "seat.toml",
        )
        .unwrap_err();
        assert_eq!(
            bad[0].field,
            "motion.platforms[0].outputs[0].firmware_limits_counts"
        );
    }
}
