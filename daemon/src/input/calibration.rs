//! The wheel and pedal calibration of `rigd calibrate` as a pure state machine: it is fed
//! events (an axis known with its kernel range, an axis value at a time, a button, a line the
//! user typed) and walks through its [`Step`]s, telling from the numbers alone which device
//! and axis the user moved, its range, whether it reads backwards and a deadzone just above
//! its resting noise. No device, terminal or clock is touched here, so the unit tests drive
//! it with numbers and the command (`crate::cli::calibrate`) only carries events in and
//! prompts out.
//!
//! How each result is found:
//! - **rest** (first step): every axis's lowest and highest value while nothing is touched is
//!   its resting noise;
//! - **steering**: the axis not yet taken that moved through the largest share of its kernel
//!   range (at least [`STEERING_MIN_SHARE`]); its lowest and highest values are the two locks,
//!   and the lock reached first is the left one (the prompt asks for left first), so an axis
//!   that reaches its highest value first reads backwards (`invert`);
//! - **pedals and handbrake**: the same choice (at least [`PEDAL_MIN_SHARE`]), the range is
//!   the travel seen (with the resting noise), and a pedal that rests nearer its highest
//!   value reads backwards;
//! - **deadzone**: the resting noise (highest minus lowest at rest) as a share of the travel,
//!   times [`DEADZONE_MARGIN`], rounded up to 0.001; zero when the axis did not move at rest.
//!   For steering that is the share around the centre, for pedals at the rest end, as the
//!   mapping ([`super::mapping`]) reads `inner_deadzone`;
//! - **gear buttons**: the first button pressed during the step that is not taken yet.

use std::collections::BTreeMap;

use rig_config::devices::{AxisFunction, ButtonFunction};

/// The least share of its kernel range a steering axis must move lock to lock.
pub const STEERING_MIN_SHARE: f64 = 0.3;
/// The least share of its kernel range a pedal or lever must move to be recognised.
pub const PEDAL_MIN_SHARE: f64 = 0.15;
/// The deadzone is this many times the resting noise, so noise never reads as input.
pub const DEADZONE_MARGIN: f64 = 1.25;
/// The largest deadzone calibration writes (a noisier axis needs a look at its hardware).
pub const MAX_DEADZONE: f64 = 0.2;
/// Lock-to-lock rotations the steering step accepts, degrees (the config's limits).
const RANGE_DEG_LIMITS: (f64, f64) = (90.0, 3600.0);

/// One axis of one device, devices numbered by the caller for the whole session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AxisKey {
    /// The caller's device number.
    pub device: usize,
    /// Kernel axis code (`ABS_X` = 0).
    pub code: u16,
}

/// What the calibration is fed.
#[derive(Debug, Clone, PartialEq)]
pub enum CalibrationEvent {
    /// An axis is there (its device appeared) with its kernel range and current value.
    AxisKnown {
        /// Which axis.
        key: AxisKey,
        /// Kernel minimum.
        min: i32,
        /// Kernel maximum.
        max: i32,
        /// Value now.
        value: i32,
    },
    /// A new value of an axis at `time_s` (any clock that only moves forward).
    Axis {
        /// Which axis.
        key: AxisKey,
        /// Raw value.
        value: i32,
        /// Event time, s.
        time_s: f64,
    },
    /// A button went down (`pressed`) or up.
    Button {
        /// The caller's device number.
        device: usize,
        /// Kernel key code.
        code: u16,
        /// True on press.
        pressed: bool,
    },
    /// A line the user typed (Enter alone: this step is done; `s`: skip it; a number in the
    /// rotation step).
    Line(String),
}

/// The steps, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Hands off: resting noise.
    Rest,
    /// Lock to lock.
    Steering,
    /// The wheel's rotation lock to lock, degrees (typed).
    RangeDeg,
    /// Throttle pedal.
    Throttle,
    /// Brake pedal.
    Brake,
    /// Clutch pedal (optional).
    Clutch,
    /// Handbrake lever (optional).
    Handbrake,
    /// Shift up (optional).
    GearUp,
    /// Shift down (optional).
    GearDown,
}

const STEPS: [Step; 9] = [
    Step::Rest,
    Step::Steering,
    Step::RangeDeg,
    Step::Throttle,
    Step::Brake,
    Step::Clutch,
    Step::Handbrake,
    Step::GearUp,
    Step::GearDown,
];

impl Step {
    /// True when the user may skip the step (`s`).
    pub fn optional(self) -> bool {
        matches!(
            self,
            Step::Clutch | Step::Handbrake | Step::GearUp | Step::GearDown
        )
    }

    fn axis_function(self) -> Option<AxisFunction> {
        match self {
            Step::Steering => Some(AxisFunction::Steering),
            Step::Throttle => Some(AxisFunction::Throttle),
            Step::Brake => Some(AxisFunction::Brake),
            Step::Clutch => Some(AxisFunction::Clutch),
            Step::Handbrake => Some(AxisFunction::Handbrake),
            _ => None,
        }
    }

    fn button_function(self) -> Option<ButtonFunction> {
        match self {
            Step::GearUp => Some(ButtonFunction::GearUp),
            Step::GearDown => Some(ButtonFunction::GearDown),
            _ => None,
        }
    }
}

/// A calibrated axis.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibratedAxis {
    /// What it drives.
    pub function: AxisFunction,
    /// Which device and axis.
    pub key: AxisKey,
    /// Raw value at the low end of the travel seen.
    pub raw_min: i32,
    /// Raw value at the high end.
    pub raw_max: i32,
    /// The axis reads backwards (released or full left at `raw_max`).
    pub invert: bool,
    /// Share of travel at rest (pedals) or around centre (steering) that reads as zero.
    pub inner_deadzone: f64,
    /// Resting noise, raw counts from lowest to highest (0 when unknown or still).
    pub rest_noise: i32,
}

impl CalibratedAxis {
    /// The raw value half way between the ends (the steering centre).
    pub fn centre(&self) -> f64 {
        (f64::from(self.raw_min) + f64::from(self.raw_max)) / 2.0
    }
}

/// A calibrated button.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalibratedButton {
    /// What it does.
    pub function: ButtonFunction,
    /// The caller's device number.
    pub device: usize,
    /// Kernel key code.
    pub code: u16,
}

/// Everything found so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Calibration {
    /// Axes in the order they were calibrated.
    pub axes: Vec<CalibratedAxis>,
    /// Buttons in the order they were calibrated.
    pub buttons: Vec<CalibratedButton>,
    /// The wheel's rotation lock to lock, degrees (after the rotation step).
    pub range_deg: Option<f64>,
}

impl Calibration {
    /// The calibrated axis for `function`.
    pub fn axis(&self, function: AxisFunction) -> Option<&CalibratedAxis> {
        self.axes.iter().find(|a| a.function == function)
    }
}

/// What one fed event did.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Nothing to tell (a value was recorded).
    Nothing,
    /// The step is done: the resting noise was recorded for this many axes.
    Rested(usize),
    /// The step found this axis.
    FoundAxis(CalibratedAxis),
    /// The step found this button.
    FoundButton(CalibratedButton),
    /// The rotation, degrees.
    Range(f64),
    /// The step was skipped.
    Skipped(Step),
    /// The step stays: what was wrong and what to do.
    Retry(String),
}

#[derive(Debug, Clone)]
struct AxisTrack {
    kernel_min: i32,
    kernel_max: i32,
    value: i32,
    /// Lowest and highest value this step, and when each was first reached (None: the value
    /// the step started with).
    low: (i32, Option<f64>),
    high: (i32, Option<f64>),
    /// Lowest and highest value during the rest step.
    rest: Option<(i32, i32)>,
}

impl AxisTrack {
    fn restart(&mut self) {
        self.low = (self.value, None);
        self.high = (self.value, None);
    }

    fn kernel_span(&self) -> f64 {
        (f64::from(self.kernel_max) - f64::from(self.kernel_min)).max(1.0)
    }

    fn travel(&self) -> i32 {
        self.high.0.saturating_sub(self.low.0)
    }

    fn rest_noise(&self) -> i32 {
        self.rest.map_or(0, |(lo, hi)| hi.saturating_sub(lo))
    }
}

/// The calibration in progress.
#[derive(Debug, Clone)]
pub struct Calibrator {
    step: usize,
    axes: BTreeMap<AxisKey, AxisTrack>,
    first_press: Option<(usize, u16)>,
    range_default_deg: f64,
    result: Calibration,
}

impl Calibrator {
    /// A calibration at its first step; `range_default_deg` is offered in the rotation step
    /// (the config's `steering.range_deg` until [`Calibrator::suggest_range_deg`] knows
    /// better).
    pub fn new(range_default_deg: f64) -> Calibrator {
        Calibrator {
            step: 0,
            axes: BTreeMap::new(),
            first_press: None,
            range_default_deg,
            result: Calibration::default(),
        }
    }

    /// The step waiting for the user, `None` when the calibration is finished.
    pub fn step(&self) -> Option<Step> {
        STEPS.get(self.step).copied()
    }

    /// What to ask the user now, `None` when finished.
    pub fn prompt(&self) -> Option<String> {
        let skip = " (s + Enter if there is none)";
        let text = match self.step()? {
            Step::Rest => "Hands off: leave the wheel centred and every pedal released for a few seconds, then press Enter.".to_string(),
            Step::Steering => "Turn the wheel slowly to the LEFT lock, then all the way to the RIGHT lock, then back to the centre; then press Enter.".to_string(),
            Step::RangeDeg => format!(
                "The wheel's rotation from lock to lock in degrees, as the base is set (Enter: {}).",
                self.range_default_deg
            ),
            Step::Throttle => "Press the THROTTLE pedal fully and release it, then press Enter.".to_string(),
            Step::Brake => "Press the BRAKE pedal fully and release it, then press Enter.".to_string(),
            Step::Clutch => format!("Press the CLUTCH pedal fully and release it, then press Enter{skip}."),
            Step::Handbrake => format!("Pull the HANDBRAKE fully and release it, then press Enter{skip}."),
            Step::GearUp => format!("Shift UP once (paddle or sequential lever), then press Enter{skip}."),
            Step::GearDown => format!("Shift DOWN once, then press Enter{skip}."),
        };
        Some(text)
    }

    /// A better default for the rotation step (e.g. the base's own `range` setting).
    pub fn suggest_range_deg(&mut self, degrees: f64) {
        self.range_default_deg = degrees;
    }

    /// What was found so far (all of it once [`Calibrator::step`] is `None`).
    pub fn calibration(&self) -> &Calibration {
        &self.result
    }

    /// Feeds one event.
    pub fn feed(&mut self, event: CalibrationEvent) -> Reply {
        match event {
            CalibrationEvent::AxisKnown {
                key,
                min,
                max,
                value,
            } => {
                let mut track = AxisTrack {
                    kernel_min: min,
                    kernel_max: max,
                    value,
                    low: (value, None),
                    high: (value, None),
                    rest: None,
                };
                if let Some(old) = self.axes.get(&key) {
                    track.rest = old.rest;
                }
                self.axes.insert(key, track);
                Reply::Nothing
            }
            CalibrationEvent::Axis { key, value, time_s } => {
                if let Some(track) = self.axes.get_mut(&key) {
                    track.value = value;
                    if value < track.low.0 {
                        track.low = (value, Some(time_s));
                    }
                    if value > track.high.0 {
                        track.high = (value, Some(time_s));
                    }
                }
                Reply::Nothing
            }
            CalibrationEvent::Button {
                device,
                code,
                pressed,
            } => {
                let taken = self
                    .result
                    .buttons
                    .iter()
                    .any(|b| b.device == device && b.code == code);
                if pressed && !taken && self.first_press.is_none() {
                    self.first_press = Some((device, code));
                }
                Reply::Nothing
            }
            CalibrationEvent::Line(line) => self.on_line(line.trim()),
        }
    }

    fn on_line(&mut self, line: &str) -> Reply {
        let Some(step) = self.step() else {
            return Reply::Nothing;
        };
        let skip = matches!(line.to_ascii_lowercase().as_str(), "s" | "skip");
        let reply = if skip {
            if step.optional() {
                Reply::Skipped(step)
            } else {
                Reply::Retry(
                    "this step cannot be skipped: rigd needs the steering, throttle and brake"
                        .to_string(),
                )
            }
        } else if step == Step::RangeDeg {
            self.range_step(line)
        } else if !line.is_empty() {
            Reply::Retry(format!(
                "\"{line}\" is not an answer here: press Enter alone when done{}",
                if step.optional() {
                    ", or s + Enter to skip"
                } else {
                    ""
                }
            ))
        } else if step == Step::Rest {
            self.finish_rest()
        } else if let Some(function) = step.axis_function() {
            self.find_axis(function)
        } else if let Some(function) = step.button_function() {
            self.find_button(function)
        } else {
            Reply::Nothing
        };
        if !matches!(reply, Reply::Retry(_)) {
            self.step += 1;
        }
        self.restart_step();
        reply
    }

    fn restart_step(&mut self) {
        for track in self.axes.values_mut() {
            track.restart();
        }
        self.first_press = None;
    }

    fn finish_rest(&mut self) -> Reply {
        for track in self.axes.values_mut() {
            track.rest = Some((track.low.0, track.high.0));
        }
        Reply::Rested(self.axes.len())
    }

    fn range_step(&mut self, line: &str) -> Reply {
        let degrees = if line.is_empty() {
            self.range_default_deg
        } else {
            match line.trim_end_matches(['°', ' ']).parse::<f64>() {
                Ok(d) => d,
                Err(_) => {
                    return Reply::Retry(format!(
                        "\"{line}\" is not a number of degrees: type e.g. 900, or Enter for {}",
                        self.range_default_deg
                    ))
                }
            }
        };
        let (lo, hi) = RANGE_DEG_LIMITS;
        if !(lo..=hi).contains(&degrees) {
            return Reply::Retry(format!(
                "{degrees} degrees is outside {lo} ..= {hi}: type the base's lock-to-lock rotation"
            ));
        }
        self.result.range_deg = Some(degrees);
        Reply::Range(degrees)
    }

    fn taken(&self, key: AxisKey) -> bool {
        self.result.axes.iter().any(|a| a.key == key)
    }

    fn find_axis(&mut self, function: AxisFunction) -> Reply {
        let steering = function == AxisFunction::Steering;
        let least = if steering {
            STEERING_MIN_SHARE
        } else {
            PEDAL_MIN_SHARE
        };
        let best = self
            .axes
            .iter()
            .filter(|(key, _)| !self.taken(**key))
            .map(|(key, track)| (*key, f64::from(track.travel()) / track.kernel_span()))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((key, _)) = best.filter(|(_, share)| *share >= least) else {
            let moved = best.map_or("no axis moved at all".to_string(), |(key, share)| {
                format!(
                    "the most was axis 0x{:02x} of device {} at {:.0} %",
                    key.code,
                    key.device,
                    share * 100.0
                )
            });
            return Reply::Retry(format!(
                "no free axis moved through {:.0} % of its range ({moved}): {} and press Enter again",
                least * 100.0,
                if steering {
                    "turn the wheel from lock to lock"
                } else {
                    "press it all the way"
                }
            ));
        };
        let track = &self.axes[&key];
        let (mut raw_min, mut raw_max) = (track.low.0, track.high.0);
        let noise = track.rest_noise();
        let invert = if steering {
            // The left lock is reached first; a step's own start value counts as earliest.
            let first = |t: Option<f64>| t.unwrap_or(f64::NEG_INFINITY);
            first(track.high.1) < first(track.low.1)
        } else {
            if let Some((lo, hi)) = track.rest {
                raw_min = raw_min.min(lo);
                raw_max = raw_max.max(hi);
            }
            let rest = track.rest.map_or(f64::from(track.value), |(lo, hi)| {
                (f64::from(lo) + f64::from(hi)) / 2.0
            });
            f64::from(raw_max) - rest < rest - f64::from(raw_min)
        };
        let travel = f64::from(raw_max) - f64::from(raw_min);
        let axis = CalibratedAxis {
            function,
            key,
            raw_min,
            raw_max,
            invert,
            inner_deadzone: deadzone(noise, travel),
            rest_noise: noise,
        };
        self.result.axes.push(axis.clone());
        Reply::FoundAxis(axis)
    }

    fn find_button(&mut self, function: ButtonFunction) -> Reply {
        let Some((device, code)) = self.first_press else {
            return Reply::Retry(
                "no button was pressed: press it during this step, then Enter (s + Enter: none)"
                    .to_string(),
            );
        };
        let button = CalibratedButton {
            function,
            device,
            code,
        };
        self.result.buttons.push(button);
        Reply::FoundButton(button)
    }
}

/// The deadzone for resting noise `noise` (raw counts, lowest to highest) on `travel` counts:
/// [`DEADZONE_MARGIN`] times the noise's share, rounded up to 0.001, at most [`MAX_DEADZONE`].
pub fn deadzone(noise: i32, travel: f64) -> f64 {
    if noise <= 0 || travel <= 0.0 {
        return 0.0;
    }
    let share = f64::from(noise) / travel * DEADZONE_MARGIN;
    ((share * 1000.0).ceil() / 1000.0).min(MAX_DEADZONE)
}

/// The config spelling of an axis function (`steering`, `throttle`, ...).
pub fn function_name(function: AxisFunction) -> &'static str {
    match function {
        AxisFunction::Steering => "steering",
        AxisFunction::Throttle => "throttle",
        AxisFunction::Brake => "brake",
        AxisFunction::Clutch => "clutch",
        AxisFunction::Handbrake => "handbrake",
        AxisFunction::CombinedPedals => "combined_pedals",
    }
}

/// The config spelling of the button functions calibration finds.
pub fn button_function_name(function: ButtonFunction) -> &'static str {
    match function {
        ButtonFunction::GearUp => "gear_up",
        ButtonFunction::GearDown => "gear_down",
        ButtonFunction::Handbrake => "handbrake",
        ButtonFunction::Ignition => "ignition",
        ButtonFunction::Starter => "starter",
        ButtonFunction::ResetCar => "reset_car",
        ButtonFunction::Pause => "pause",
        ButtonFunction::FfbEstop => "ffb_estop",
        ButtonFunction::Reverse => "reverse",
        ButtonFunction::Gear1 => "gear_1",
        ButtonFunction::Gear2 => "gear_2",
        ButtonFunction::Gear3 => "gear_3",
        ButtonFunction::Gear4 => "gear_4",
        ButtonFunction::Gear5 => "gear_5",
        ButtonFunction::Gear6 => "gear_6",
        ButtonFunction::Gear7 => "gear_7",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::mapping::AxisMap;
    use rig_config::devices::{AxisMapping, CombinedSplit, SteeringConfig};

    const WHEEL: usize = 0;
    const PEDALS: usize = 1;
    const X: AxisKey = AxisKey {
        device: WHEEL,
        code: 0x00,
    };
    const THROTTLE: AxisKey = AxisKey {
        device: PEDALS,
        code: 0x01,
    };
    const BRAKE: AxisKey = AxisKey {
        device: PEDALS,
        code: 0x02,
    };
    const CLUTCH: AxisKey = AxisKey {
        device: PEDALS,
        code: 0x05,
    };

    /// A calibration that knows a wheel (X 0..65535 at centre) and three pedals (0..65535,
    /// throttle and clutch resting at 0, the brake at 65535: it reads backwards).
    fn calibrator() -> Calibrator {
        let mut c = Calibrator::new(900.0);
        for (key, value) in [(X, 32768), (THROTTLE, 0), (BRAKE, 65535), (CLUTCH, 0)] {
            c.feed(CalibrationEvent::AxisKnown {
                key,
                min: 0,
                max: 65535,
                value,
            });
        }
        c
    }

    fn axis(c: &mut Calibrator, key: AxisKey, value: i32, time_s: f64) {
        assert_eq!(
            c.feed(CalibrationEvent::Axis { key, value, time_s }),
            Reply::Nothing
        );
    }

    fn enter(c: &mut Calibrator, line: &str) -> Reply {
        c.feed(CalibrationEvent::Line(line.to_string()))
    }

    /// Rest with `noise` counts either side of each axis's resting value.
    fn rest(c: &mut Calibrator, noise: i32) {
        assert_eq!(c.step(), Some(Step::Rest));
        for k in 0..50 {
            let wobble = if k % 2 == 0 { noise } else { -noise };
            axis(c, X, 32768 + wobble, f64::from(k) * 0.01);
            axis(c, THROTTLE, wobble.max(0), f64::from(k) * 0.01);
            axis(c, BRAKE, 65535 - wobble.max(0), f64::from(k) * 0.01);
        }
        assert_eq!(enter(c, ""), Reply::Rested(4));
    }

    fn lock_to_lock(c: &mut Calibrator, left: i32, right: i32) -> Reply {
        let mut t = 1.0;
        for v in [
            32768,
            (32768 + left) / 2,
            left,
            32768,
            (32768 + right) / 2,
            right,
            32768,
        ] {
            axis(c, X, v, t);
            t += 0.5;
        }
        // Pedals bumped a little on the way: not the steering.
        axis(c, THROTTLE, 3000, t);
        axis(c, THROTTLE, 0, t + 0.1);
        enter(c, "")
    }

    fn press(c: &mut Calibrator, key: AxisKey, rest: i32, full: i32) -> Reply {
        for (k, v) in [rest, (rest + full) / 2, full, (rest + full) / 2, rest]
            .into_iter()
            .enumerate()
        {
            axis(c, key, v, 10.0 + k as f64 * 0.1);
        }
        enter(c, "")
    }

    #[test]
    fn a_wheel_turned_lock_to_lock_gives_its_range_and_centre() {
        let mut c = calibrator();
        rest(&mut c, 0);
        let Reply::FoundAxis(s) = lock_to_lock(&mut c, 0, 65535) else {
            panic!("steering not found");
        };
        assert_eq!(
            (s.key, s.raw_min, s.raw_max, s.invert),
            (X, 0, 65535, false)
        );
        assert_eq!(s.centre(), 32767.5);
        assert_eq!(s.inner_deadzone, 0.0, "no noise at rest: no deadzone");
        assert_eq!(c.step(), Some(Step::RangeDeg));
        assert_eq!(enter(&mut c, ""), Reply::Range(900.0));
        assert_eq!(c.calibration().range_deg, Some(900.0));
    }

    #[test]
    fn a_wheel_that_reads_high_at_the_left_lock_is_inverted() {
        let mut c = calibrator();
        rest(&mut c, 0);
        // Left lock first: that is the axis's highest value.
        let Reply::FoundAxis(s) = lock_to_lock(&mut c, 60000, 5000) else {
            panic!("steering not found");
        };
        assert_eq!((s.raw_min, s.raw_max, s.invert), (5000, 60000, true));
        assert_eq!(s.centre(), 32500.0);
    }

    #[test]
    fn a_pedal_resting_at_65535_and_pressed_to_0_is_inverted() {
        let mut c = calibrator();
        rest(&mut c, 0);
        lock_to_lock(&mut c, 0, 65535);
        enter(&mut c, "");
        let Reply::FoundAxis(throttle) = press(&mut c, THROTTLE, 0, 65535) else {
            panic!("throttle not found");
        };
        assert_eq!(
            (
                throttle.key,
                throttle.raw_min,
                throttle.raw_max,
                throttle.invert
            ),
            (THROTTLE, 0, 65535, false)
        );
        let Reply::FoundAxis(brake) = press(&mut c, BRAKE, 65535, 0) else {
            panic!("brake not found");
        };
        assert_eq!(
            (brake.key, brake.raw_min, brake.raw_max, brake.invert),
            (BRAKE, 0, 65535, true)
        );
        // The real mapping reads it as released at rest and full when pressed.
        let map = AxisMap::new(&mapping(&brake), 0, 65535);
        assert_eq!((map.pedal(65535), map.pedal(0)), (0.0, 1.0));
    }

    fn mapping(a: &CalibratedAxis) -> AxisMapping {
        AxisMapping {
            function: a.function,
            device: "d".into(),
            code: "ABS_X".into(),
            raw_min: Some(a.raw_min),
            raw_max: Some(a.raw_max),
            invert: a.invert,
            inner_deadzone: a.inner_deadzone,
            outer_deadzone: 0.0,
            gamma: 1.0,
            curve: Vec::new(),
            combined_split: CombinedSplit::ThrottleHigh,
        }
    }

    #[test]
    fn resting_noise_of_40_counts_gives_a_deadzone_just_above_it() {
        let mut c = calibrator();
        rest(&mut c, 40);
        let Reply::FoundAxis(s) = lock_to_lock(&mut c, 0, 65535) else {
            panic!("steering not found");
        };
        assert_eq!(s.rest_noise, 80);
        // 80 of 65535 counts is 0.00122 of the travel: 1.25 times that, rounded up.
        assert_eq!(s.inner_deadzone, 0.002);
        let steering = SteeringConfig {
            range_deg: 900.0,
            car_lock_deg: None,
        };
        let map = AxisMap::new(&mapping(&s), 0, 65535);
        for noise in -40..=40 {
            assert_eq!(map.steering_control(32768 + noise, &steering), 0.0);
        }
        // Just past the deadzone the wheel steers: 200 counts is 0.0061 of the travel.
        assert!(map.steering_control(32968, &steering) < -0.001);

        enter(&mut c, "");
        press(&mut c, THROTTLE, 0, 65535);
        let Reply::FoundAxis(brake) = press(&mut c, BRAKE, 65535, 0) else {
            panic!("brake not found");
        };
        // The brake rested at 65495 ..= 65535: 40 counts of noise, inverted.
        assert_eq!((brake.rest_noise, brake.invert), (40, true));
        assert_eq!(brake.inner_deadzone, 0.001);
        let map = AxisMap::new(&mapping(&brake), 0, 65535);
        for raw in 65495..=65535 {
            assert_eq!(map.pedal(raw), 0.0, "resting noise reads as released");
        }
        assert!(map.pedal(65300) > 0.0);
        assert_eq!(deadzone(40, 255.0), 0.197);
        assert_eq!(deadzone(400, 255.0), MAX_DEADZONE);
    }

    #[test]
    fn the_axis_with_the_largest_travel_wins_and_taken_axes_are_left_out() {
        let mut c = calibrator();
        rest(&mut c, 0);
        lock_to_lock(&mut c, 0, 65535);
        enter(&mut c, "900");
        // The wheel turns more than the throttle moves, but it is the steering already.
        axis(&mut c, X, 0, 20.0);
        let Reply::FoundAxis(t) = press(&mut c, THROTTLE, 0, 20000) else {
            panic!("throttle not found");
        };
        assert_eq!((t.key, t.raw_max), (THROTTLE, 20000));
    }

    #[test]
    fn too_little_travel_asks_again_and_required_steps_cannot_be_skipped() {
        let mut c = calibrator();
        rest(&mut c, 0);
        axis(&mut c, X, 40000, 1.0);
        let Reply::Retry(why) = enter(&mut c, "") else {
            panic!("11 % of the range is not lock to lock");
        };
        assert!(
            why.contains("30 %") && why.contains("lock to lock"),
            "{why}"
        );
        assert_eq!(c.step(), Some(Step::Steering));
        let Reply::Retry(why) = enter(&mut c, "s") else {
            panic!("steering cannot be skipped");
        };
        assert!(why.contains("cannot be skipped"), "{why}");
        assert!(matches!(
            lock_to_lock(&mut c, 0, 65535),
            Reply::FoundAxis(_)
        ));
        assert!(matches!(enter(&mut c, "ninety"), Reply::Retry(_)));
        assert!(matches!(enter(&mut c, "30"), Reply::Retry(_)));
        assert_eq!(enter(&mut c, "540"), Reply::Range(540.0));
    }

    #[test]
    fn optional_steps_skip_and_gear_buttons_are_the_first_new_press() {
        let mut c = calibrator();
        rest(&mut c, 0);
        lock_to_lock(&mut c, 0, 65535);
        enter(&mut c, "");
        press(&mut c, THROTTLE, 0, 65535);
        press(&mut c, BRAKE, 65535, 0);
        assert_eq!(c.step(), Some(Step::Clutch));
        assert_eq!(enter(&mut c, "s"), Reply::Skipped(Step::Clutch));
        assert_eq!(enter(&mut c, "skip"), Reply::Skipped(Step::Handbrake));
        assert!(matches!(enter(&mut c, ""), Reply::Retry(_)), "no press yet");
        let press_button = |c: &mut Calibrator, code: u16| {
            for pressed in [true, false] {
                c.feed(CalibrationEvent::Button {
                    device: WHEEL,
                    code,
                    pressed,
                });
            }
        };
        press_button(&mut c, 0x121);
        press_button(&mut c, 0x120);
        let up = CalibratedButton {
            function: ButtonFunction::GearUp,
            device: WHEEL,
            code: 0x121,
        };
        assert_eq!(enter(&mut c, ""), Reply::FoundButton(up));
        // The up paddle again is taken: the down paddle is the first new press.
        press_button(&mut c, 0x121);
        press_button(&mut c, 0x120);
        assert!(matches!(enter(&mut c, ""), Reply::FoundButton(b) if b.code == 0x120));
        assert_eq!(c.step(), None);
        assert_eq!(c.prompt(), None);
        let done = c.calibration();
        assert_eq!(done.axes.len(), 3);
        assert_eq!(done.buttons.len(), 2);
        assert!(done.axis(AxisFunction::Clutch).is_none());
    }
}
