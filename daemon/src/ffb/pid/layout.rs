//! The HID PID layout of one device, found in its parsed report descriptor by usage (usage
//! page 0x0F): where each report rigd sends or reads lives (report id, bit offsets, sizes,
//! logical ranges), the device's own effect-type list, and the descriptor quirks real bases
//! have. Report ids are never assumed; everything comes from the descriptor.
//!
//! Required (else [`LayoutError`] names what is missing): Set Effect, Set Constant Force
//! (with a signed Magnitude), Effect Operation (Start, Stop), Device Control (Enable
//! Actuators, Stop All), Block Free, Create New Effect (listing Constant Force) and Block
//! Load. Optional: Set Condition (no condition effects without it), Device Gain (no overall
//! gain), PID Pool.
//!
//! Named quirks ([`Quirk`]) and the rule rigd follows for each:
//! - `MissingStartDelay`: Set Effect has no Start Delay; nothing is written for it (rigd
//!   never delays an effect).
//! - `MissingParamBlockOffset`: Set Condition has no Parameter Block Offset; the condition
//!   applies to the first (only) axis, which is all rigd drives.
//! - `PermissiveControl`: Device Control is not the spec's array with logical minimum 1
//!   (the kernel's PERMISSIVE_CONTROL devices: Open FFBoard, VRS). A variable field is a
//!   bitmask, one bit per control usage; an array with another minimum is indexed from its
//!   own minimum (the HID array rule).
//! - `NoDirection`: Set Effect has no Direction; the effect acts on the enabled X axis.
//! - `ZeroOnlyInfiniteDuration`: Duration's logical maximum is below 0x7FFF, so that
//!   maximum is a real duration and only 0 means infinite. Otherwise (0x7FFF or 0xFFFF) both
//!   0 (Open FFBoard firmware) and the maximum (the spec's null value, the kernel's choice)
//!   mean infinite. Rule: rigd only ever sends finite durations, clamped to 1 ..= the
//!   largest value that is finite on that device (see [`PidLayout::finite_duration`]).

use thiserror::Error;

use super::descriptor::{Descriptor, Field, Report, ReportKind};

/// The HID PID usage page.
pub const PID_PAGE: u32 = 0x000f_0000;

/// A full 32-bit usage on the PID page.
pub const fn pid(id: u16) -> u32 {
    PID_PAGE | id as u32
}

/// PID usages rigd uses (HID PID 1.0 §5; the names are the spec's).
pub mod usage {
    pub const SET_EFFECT: u16 = 0x21;
    pub const EFFECT_BLOCK_INDEX: u16 = 0x22;
    pub const PARAM_BLOCK_OFFSET: u16 = 0x23;
    pub const EFFECT_TYPE: u16 = 0x25;
    pub const ET_CONSTANT: u16 = 0x26;
    pub const ET_SPRING: u16 = 0x40;
    pub const ET_DAMPER: u16 = 0x41;
    pub const ET_INERTIA: u16 = 0x42;
    pub const ET_FRICTION: u16 = 0x43;
    pub const DURATION: u16 = 0x50;
    pub const SAMPLE_PERIOD: u16 = 0x51;
    pub const GAIN: u16 = 0x52;
    pub const TRIGGER_BUTTON: u16 = 0x53;
    pub const TRIGGER_REPEAT: u16 = 0x54;
    pub const AXES_ENABLE: u16 = 0x55;
    pub const DIRECTION_ENABLE: u16 = 0x56;
    pub const DIRECTION: u16 = 0x57;
    pub const SET_CONDITION: u16 = 0x5f;
    pub const CP_OFFSET: u16 = 0x60;
    pub const POS_COEFFICIENT: u16 = 0x61;
    pub const NEG_COEFFICIENT: u16 = 0x62;
    pub const POS_SATURATION: u16 = 0x63;
    pub const NEG_SATURATION: u16 = 0x64;
    pub const DEAD_BAND: u16 = 0x65;
    pub const MAGNITUDE: u16 = 0x70;
    pub const SET_CONSTANT_FORCE: u16 = 0x73;
    pub const EFFECT_OPERATION_REPORT: u16 = 0x77;
    pub const EFFECT_OPERATION: u16 = 0x78;
    pub const OP_START: u16 = 0x79;
    pub const OP_START_SOLO: u16 = 0x7a;
    pub const OP_STOP: u16 = 0x7b;
    pub const LOOP_COUNT: u16 = 0x7c;
    pub const DEVICE_GAIN_REPORT: u16 = 0x7d;
    pub const DEVICE_GAIN: u16 = 0x7e;
    pub const PID_POOL: u16 = 0x7f;
    pub const RAM_POOL_SIZE: u16 = 0x80;
    pub const SIMULTANEOUS_MAX: u16 = 0x83;
    pub const BLOCK_LOAD: u16 = 0x89;
    pub const BLOCK_LOAD_STATUS: u16 = 0x8b;
    pub const BLOCK_LOAD_SUCCESS: u16 = 0x8c;
    pub const BLOCK_LOAD_FULL: u16 = 0x8d;
    pub const BLOCK_LOAD_ERROR: u16 = 0x8e;
    pub const BLOCK_FREE: u16 = 0x90;
    pub const DEVICE_CONTROL_REPORT: u16 = 0x95;
    pub const DEVICE_CONTROL: u16 = 0x96;
    pub const DC_ENABLE_ACTUATORS: u16 = 0x97;
    pub const DC_DISABLE_ACTUATORS: u16 = 0x98;
    pub const DC_STOP_ALL: u16 = 0x99;
    pub const DC_RESET: u16 = 0x9a;
    pub const DC_PAUSE: u16 = 0x9b;
    pub const DC_CONTINUE: u16 = 0x9c;
    pub const START_DELAY: u16 = 0xa7;
    pub const DEVICE_MANAGED_POOL: u16 = 0xa9;
    pub const SHARED_PARAM_BLOCKS: u16 = 0xaa;
    pub const CREATE_NEW_EFFECT: u16 = 0xab;
    pub const RAM_POOL_AVAILABLE: u16 = 0xac;
}

use usage as u;

/// One value in a report: where it is and what it may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Bit offset from the start of the report data (after the id byte).
    pub bit_offset: u32,
    /// Bits, 1 ..= 32.
    pub size: u32,
    /// Logical minimum.
    pub min: i64,
    /// Logical maximum.
    pub max: i64,
}

impl Slot {
    fn of(field: &Field, index: u32) -> Slot {
        Slot {
            bit_offset: field.bit_offset + index * field.size,
            size: field.size,
            min: field.logical_min,
            max: field.logical_max,
        }
    }
}

/// An array field: its value selects one of `usages` (the HID array rule: value
/// `min + position`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    /// Where the value lives.
    pub slot: Slot,
    /// Selectable usages, in the device's order.
    pub usages: Vec<u32>,
}

impl Selector {
    /// The value that selects `usage`, if listed.
    pub fn value_of(&self, usage: u32) -> Option<i64> {
        let position = self.usages.iter().position(|&x| x == usage)?;
        Some(self.slot.min + position as i64)
    }

    /// The usage a value selects.
    pub fn usage_of(&self, value: i64) -> Option<u32> {
        let position = usize::try_from(value.checked_sub(self.slot.min)?).ok()?;
        self.usages.get(position).copied()
    }
}

/// Where a report goes: id and data length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportAddress {
    /// Report id (0: the descriptor uses none; hidapi still wants the 0 byte first).
    pub id: u8,
    /// Data bytes after the id byte.
    pub len: usize,
}

impl ReportAddress {
    fn of(report: &Report) -> ReportAddress {
        ReportAddress {
            id: report.id,
            len: report.byte_len(),
        }
    }
}

/// Set Effect (output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetEffect {
    pub address: ReportAddress,
    pub block: Slot,
    pub effect_type: Selector,
    pub duration: Slot,
    pub gain: Option<Slot>,
    pub trigger_button: Option<Slot>,
    pub trigger_repeat: Option<Slot>,
    pub sample_period: Option<Slot>,
    pub axes_enable: Option<Slot>,
    pub direction_enable: Option<Slot>,
    pub direction: Option<Slot>,
    pub start_delay: Option<Slot>,
}

/// Set Constant Force (output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetConstantForce {
    pub address: ReportAddress,
    pub block: Slot,
    pub magnitude: Slot,
}

/// Set Condition (output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetCondition {
    pub address: ReportAddress,
    pub block: Slot,
    pub param_block_offset: Option<Slot>,
    pub cp_offset: Option<Slot>,
    pub positive_coefficient: Slot,
    pub negative_coefficient: Option<Slot>,
    pub positive_saturation: Option<Slot>,
    pub negative_saturation: Option<Slot>,
    pub dead_band: Option<Slot>,
}

/// Effect Operation (output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectOperation {
    pub address: ReportAddress,
    pub block: Slot,
    pub operation: Selector,
    pub loop_count: Option<Slot>,
}

/// How Device Control encodes a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlEncoding {
    /// The spec's array: one value selects the control.
    Array(Selector),
    /// One bit (a 1-bit variable) per control usage.
    Bitmask(Vec<(u32, Slot)>),
}

/// Device Control (output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceControl {
    pub address: ReportAddress,
    pub encoding: ControlEncoding,
}

/// Device Gain (output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceGain {
    pub address: ReportAddress,
    pub gain: Slot,
}

/// Block Free (output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockFree {
    pub address: ReportAddress,
    pub block: Slot,
}

/// Create New Effect (feature SET).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateNewEffect {
    pub address: ReportAddress,
    pub effect_type: Selector,
}

/// Block Load (feature GET).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockLoad {
    pub address: ReportAddress,
    pub block: Slot,
    pub status: Selector,
    pub ram_pool_available: Option<Slot>,
}

/// PID Pool (feature GET).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PidPool {
    pub address: ReportAddress,
    pub ram_pool_size: Option<Slot>,
    pub simultaneous_max: Option<Slot>,
    pub device_managed: Option<Slot>,
    pub shared_param_blocks: Option<Slot>,
}

/// Effect types rigd creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EffectKind {
    /// Constant force (the streamed torque).
    Constant,
    /// Spring (condition).
    Spring,
    /// Damper (condition).
    Damper,
    /// Inertia (condition).
    Inertia,
    /// Friction (condition).
    Friction,
}

impl EffectKind {
    /// The four condition effects, in `Conditions` field order.
    pub const CONDITIONS: [EffectKind; 4] = [
        EffectKind::Spring,
        EffectKind::Damper,
        EffectKind::Friction,
        EffectKind::Inertia,
    ];

    /// The PID effect-type usage.
    pub fn usage(self) -> u32 {
        pid(match self {
            EffectKind::Constant => u::ET_CONSTANT,
            EffectKind::Spring => u::ET_SPRING,
            EffectKind::Damper => u::ET_DAMPER,
            EffectKind::Inertia => u::ET_INERTIA,
            EffectKind::Friction => u::ET_FRICTION,
        })
    }
}

/// Device Control commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    EnableActuators,
    DisableActuators,
    StopAll,
    Reset,
    Pause,
    Continue,
}

impl Control {
    /// The PID usage of the command.
    pub fn usage(self) -> u32 {
        pid(match self {
            Control::EnableActuators => u::DC_ENABLE_ACTUATORS,
            Control::DisableActuators => u::DC_DISABLE_ACTUATORS,
            Control::StopAll => u::DC_STOP_ALL,
            Control::Reset => u::DC_RESET,
            Control::Pause => u::DC_PAUSE,
            Control::Continue => u::DC_CONTINUE,
        })
    }
}

/// A descriptor quirk (module docs say what rigd does about each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quirk {
    MissingStartDelay,
    MissingParamBlockOffset,
    PermissiveControl,
    NoDirection,
    ZeroOnlyInfiniteDuration,
}

impl Quirk {
    /// A short name for logs and `rigd devices`.
    pub fn name(self) -> &'static str {
        match self {
            Quirk::MissingStartDelay => "missing start delay",
            Quirk::MissingParamBlockOffset => "missing parameter block offset",
            Quirk::PermissiveControl => "permissive device control",
            Quirk::NoDirection => "no direction field",
            Quirk::ZeroOnlyInfiniteDuration => "only 0 is an infinite duration",
        }
    }
}

/// Why a descriptor is no PID device rigd can drive.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// A required report is absent.
    #[error("the descriptor has no {name} report (PID usage {usage:#04x})")]
    MissingReport { name: &'static str, usage: u16 },
    /// A required field of a present report is absent.
    #[error("the {report} report has no {field} field (PID usage {usage:#04x})")]
    MissingField {
        report: &'static str,
        field: &'static str,
        usage: u16,
    },
    /// The device does not list Constant Force among its effect types.
    #[error("the device lists no Constant Force effect type (PID usage 0x26)")]
    NoConstantForce,
    /// The constant-force magnitude cannot be negative.
    #[error("the Set Constant Force magnitude has logical range {min}..={max}, which cannot carry a signed force")]
    UnsignedMagnitude { min: i64, max: i64 },
}

/// Everything rigd needs to drive one PID device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PidLayout {
    pub set_effect: SetEffect,
    pub set_constant_force: SetConstantForce,
    pub set_condition: Option<SetCondition>,
    pub effect_operation: EffectOperation,
    pub device_control: DeviceControl,
    pub device_gain: Option<DeviceGain>,
    pub block_free: BlockFree,
    pub create_new_effect: CreateNewEffect,
    pub block_load: BlockLoad,
    pub pid_pool: Option<PidPool>,
    /// Quirks found, in detection order.
    pub quirks: Vec<Quirk>,
}

/// The first report of `kind` that lies in a collection with one of `usages`.
fn report<'a>(d: &'a Descriptor, kind: ReportKind, usages: &[u16]) -> Option<&'a Report> {
    d.reports.values().find(|r| {
        r.kind == kind
            && r.fields
                .iter()
                .any(|f| !f.constant && usages.iter().any(|&x| f.in_collection(pid(x))))
    })
}

fn required<'a>(
    d: &'a Descriptor,
    kind: ReportKind,
    usages: &[u16],
    name: &'static str,
) -> Result<&'a Report, LayoutError> {
    report(d, kind, usages).ok_or(LayoutError::MissingReport {
        name,
        usage: usages[0],
    })
}

/// The value with usage `full` (a variable field listing it, else the first value of a
/// field in a collection with that usage).
fn slot_full(r: &Report, full: u32) -> Option<Slot> {
    let direct = r.fields.iter().filter(|f| !f.constant).find_map(|f| {
        let index = f.usages.iter().position(|&x| x == full)?;
        (f.variable && (index as u32) < f.count).then(|| Slot::of(f, index as u32))
    });
    direct.or_else(|| {
        r.fields
            .iter()
            .find(|f| !f.constant && f.variable && f.collections.last() == Some(&full))
            .map(|f| Slot::of(f, 0))
    })
}

fn slot(r: &Report, id: u16) -> Option<Slot> {
    slot_full(r, pid(id))
}

fn need_slot(
    r: &Report,
    id: u16,
    report: &'static str,
    field: &'static str,
) -> Result<Slot, LayoutError> {
    slot(r, id).ok_or(LayoutError::MissingField {
        report,
        field,
        usage: id,
    })
}

/// The array field inside the collection `id`.
fn selector(r: &Report, id: u16) -> Option<Selector> {
    r.fields
        .iter()
        .find(|f| !f.constant && !f.variable && !f.usages.is_empty() && f.in_collection(pid(id)))
        .map(|f| Selector {
            slot: Slot::of(f, 0),
            usages: f.usages.clone(),
        })
}

fn need_selector(
    r: &Report,
    id: u16,
    report: &'static str,
    field: &'static str,
) -> Result<Selector, LayoutError> {
    selector(r, id).ok_or(LayoutError::MissingField {
        report,
        field,
        usage: id,
    })
}

fn device_control(r: &Report) -> Result<(DeviceControl, bool), LayoutError> {
    let missing = |field, usage| LayoutError::MissingField {
        report: "Device Control",
        field,
        usage,
    };
    let address = ReportAddress::of(r);
    let (encoding, permissive) = match selector(r, u::DEVICE_CONTROL) {
        Some(array) => {
            let permissive = array.slot.min != 1;
            (ControlEncoding::Array(array), permissive)
        }
        None => {
            let bits: Vec<(u32, Slot)> = (u::DC_ENABLE_ACTUATORS..=u::DC_CONTINUE)
                .filter_map(|id| slot(r, id).map(|s| (pid(id), s)))
                .collect();
            (ControlEncoding::Bitmask(bits), true)
        }
    };
    let control = DeviceControl { address, encoding };
    for (id, name) in [
        (u::DC_ENABLE_ACTUATORS, "Enable Actuators"),
        (u::DC_STOP_ALL, "Stop All Effects"),
    ] {
        if !control.supports(pid(id)) {
            return Err(missing(name, id));
        }
    }
    Ok((control, permissive))
}

impl DeviceControl {
    /// True when the device accepts the control with this usage.
    pub fn supports(&self, full: u32) -> bool {
        match &self.encoding {
            ControlEncoding::Array(s) => s.value_of(full).is_some(),
            ControlEncoding::Bitmask(bits) => bits.iter().any(|(x, _)| *x == full),
        }
    }
}

impl PidLayout {
    /// Finds the PID reports of a parsed descriptor.
    pub fn from_descriptor(d: &Descriptor) -> Result<PidLayout, LayoutError> {
        use ReportKind::{Feature, Output};
        let mut quirks = Vec::new();

        let r = required(d, Output, &[u::SET_EFFECT], "Set Effect")?;
        let name = "Set Effect";
        let set_effect = SetEffect {
            address: ReportAddress::of(r),
            block: need_slot(r, u::EFFECT_BLOCK_INDEX, name, "Effect Block Index")?,
            effect_type: need_selector(r, u::EFFECT_TYPE, name, "Effect Type")?,
            duration: need_slot(r, u::DURATION, name, "Duration")?,
            gain: slot(r, u::GAIN),
            trigger_button: slot(r, u::TRIGGER_BUTTON),
            trigger_repeat: slot(r, u::TRIGGER_REPEAT),
            sample_period: slot(r, u::SAMPLE_PERIOD),
            axes_enable: slot(r, u::AXES_ENABLE),
            direction_enable: slot(r, u::DIRECTION_ENABLE),
            direction: slot(r, u::DIRECTION),
            start_delay: slot(r, u::START_DELAY),
        };
        if set_effect.start_delay.is_none() {
            quirks.push(Quirk::MissingStartDelay);
        }
        if set_effect.direction.is_none() {
            quirks.push(Quirk::NoDirection);
        }
        if set_effect.duration.max < 0x7fff {
            quirks.push(Quirk::ZeroOnlyInfiniteDuration);
        }

        let r = required(d, Output, &[u::SET_CONSTANT_FORCE], "Set Constant Force")?;
        let name = "Set Constant Force";
        let set_constant_force = SetConstantForce {
            address: ReportAddress::of(r),
            block: need_slot(r, u::EFFECT_BLOCK_INDEX, name, "Effect Block Index")?,
            magnitude: need_slot(r, u::MAGNITUDE, name, "Magnitude")?,
        };
        let m = set_constant_force.magnitude;
        if m.min >= 0 || m.max <= 0 {
            return Err(LayoutError::UnsignedMagnitude {
                min: m.min,
                max: m.max,
            });
        }

        let set_condition = report(d, Output, &[u::SET_CONDITION]).and_then(|r| {
            Some(SetCondition {
                address: ReportAddress::of(r),
                block: slot(r, u::EFFECT_BLOCK_INDEX)?,
                param_block_offset: slot(r, u::PARAM_BLOCK_OFFSET),
                cp_offset: slot(r, u::CP_OFFSET),
                positive_coefficient: slot(r, u::POS_COEFFICIENT)?,
                negative_coefficient: slot(r, u::NEG_COEFFICIENT),
                positive_saturation: slot(r, u::POS_SATURATION),
                negative_saturation: slot(r, u::NEG_SATURATION),
                dead_band: slot(r, u::DEAD_BAND),
            })
        });
        if set_condition
            .as_ref()
            .is_some_and(|c| c.param_block_offset.is_none())
        {
            quirks.push(Quirk::MissingParamBlockOffset);
        }

        let r = required(d, Output, &[u::EFFECT_OPERATION_REPORT], "Effect Operation")?;
        let name = "Effect Operation";
        let effect_operation = EffectOperation {
            address: ReportAddress::of(r),
            block: need_slot(r, u::EFFECT_BLOCK_INDEX, name, "Effect Block Index")?,
            operation: need_selector(r, u::EFFECT_OPERATION, name, "Effect Operation")?,
            loop_count: slot(r, u::LOOP_COUNT),
        };
        for (id, field) in [
            (u::OP_START, "Op Effect Start"),
            (u::OP_STOP, "Op Effect Stop"),
        ] {
            if effect_operation.operation.value_of(pid(id)).is_none() {
                return Err(LayoutError::MissingField {
                    report: name,
                    field,
                    usage: id,
                });
            }
        }

        let r = required(
            d,
            Output,
            &[u::DEVICE_CONTROL_REPORT, u::DEVICE_CONTROL],
            "Device Control",
        )?;
        let (device_control, permissive) = device_control(r)?;
        if permissive {
            quirks.push(Quirk::PermissiveControl);
        }

        let device_gain = report(d, Output, &[u::DEVICE_GAIN_REPORT]).and_then(|r| {
            Some(DeviceGain {
                address: ReportAddress::of(r),
                gain: slot(r, u::DEVICE_GAIN)?,
            })
        });

        let r = required(d, Output, &[u::BLOCK_FREE], "Block Free")?;
        let block_free = BlockFree {
            address: ReportAddress::of(r),
            block: need_slot(r, u::EFFECT_BLOCK_INDEX, "Block Free", "Effect Block Index")?,
        };

        let r = required(d, Feature, &[u::CREATE_NEW_EFFECT], "Create New Effect")?;
        let create_new_effect = CreateNewEffect {
            address: ReportAddress::of(r),
            effect_type: need_selector(r, u::EFFECT_TYPE, "Create New Effect", "Effect Type")?,
        };
        let constant = EffectKind::Constant.usage();
        if create_new_effect.effect_type.value_of(constant).is_none()
            || set_effect.effect_type.value_of(constant).is_none()
        {
            return Err(LayoutError::NoConstantForce);
        }

        let r = required(d, Feature, &[u::BLOCK_LOAD], "Block Load")?;
        let name = "Block Load";
        let block_load = BlockLoad {
            address: ReportAddress::of(r),
            block: need_slot(r, u::EFFECT_BLOCK_INDEX, name, "Effect Block Index")?,
            status: need_selector(r, u::BLOCK_LOAD_STATUS, name, "Block Load Status")?,
            ram_pool_available: slot(r, u::RAM_POOL_AVAILABLE),
        };

        let pid_pool = report(d, Feature, &[u::PID_POOL]).map(|r| PidPool {
            address: ReportAddress::of(r),
            ram_pool_size: slot(r, u::RAM_POOL_SIZE),
            simultaneous_max: slot(r, u::SIMULTANEOUS_MAX),
            device_managed: slot(r, u::DEVICE_MANAGED_POOL),
            shared_param_blocks: slot(r, u::SHARED_PARAM_BLOCKS),
        });

        Ok(PidLayout {
            set_effect,
            set_constant_force,
            set_condition,
            effect_operation,
            device_control,
            device_gain,
            block_free,
            create_new_effect,
            block_load,
            pid_pool,
            quirks,
        })
    }

    /// True when the device has this quirk.
    pub fn has(&self, quirk: Quirk) -> bool {
        self.quirks.contains(&quirk)
    }

    /// True when the device can create and run `kind` (conditions also need Set Condition).
    pub fn supports(&self, kind: EffectKind) -> bool {
        let listed = self
            .create_new_effect
            .effect_type
            .value_of(kind.usage())
            .is_some()
            && self.set_effect.effect_type.value_of(kind.usage()).is_some();
        listed && (kind == EffectKind::Constant || self.set_condition.is_some())
    }

    /// The Duration value for a finite effect of `ms` milliseconds on this device: never 0
    /// and never the field maximum when that maximum means infinite (module docs).
    pub fn finite_duration(&self, ms: u32) -> i64 {
        let d = self.set_effect.duration;
        let largest_finite = if self.has(Quirk::ZeroOnlyInfiniteDuration) {
            d.max
        } else {
            d.max - 1
        };
        i64::from(ms).clamp(d.min.max(1), largest_finite.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::super::descriptor::parse;
    use super::super::test_descriptors::{base, Variant, FULL};
    use super::*;

    fn layout(v: &Variant) -> PidLayout {
        PidLayout::from_descriptor(&parse(&base(v)).unwrap()).unwrap()
    }

    #[test]
    fn full_descriptor_finds_every_report_by_usage_and_has_no_quirk() {
        let l = layout(&FULL);
        assert!(l.quirks.is_empty(), "{:?}", l.quirks);
        assert_eq!(l.set_effect.address.id, 1);
        assert_eq!(
            l.set_constant_force.address,
            ReportAddress { id: 5, len: 3 }
        );
        assert_eq!(
            l.set_constant_force.magnitude,
            Slot {
                bit_offset: 8,
                size: 16,
                min: -32767,
                max: 32767
            }
        );
        assert_eq!(l.effect_operation.address.id, 10);
        assert_eq!(l.block_free.address.id, 11);
        assert_eq!(l.device_control.address.id, 12);
        assert_eq!(l.device_gain.as_ref().unwrap().address.id, 13);
        assert_eq!(l.create_new_effect.address.id, 17);
        assert_eq!(l.block_load.address, ReportAddress { id: 18, len: 4 });
        assert_eq!(l.pid_pool.as_ref().unwrap().address.id, 19);
        // Set Effect: block 8 bits, type 8, duration 16, delay 16, gain 8, trigger 8, then
        // the axes-enable and direction-enable bits, 6 padding bits, direction 16.
        let se = &l.set_effect;
        assert_eq!(se.duration.bit_offset, 16);
        assert_eq!(se.start_delay.unwrap().bit_offset, 32);
        assert_eq!(se.gain.unwrap().bit_offset, 48);
        assert_eq!(se.axes_enable.unwrap().bit_offset, 64);
        assert_eq!(se.direction_enable.unwrap().bit_offset, 65);
        assert_eq!(
            se.direction.unwrap(),
            Slot {
                bit_offset: 72,
                size: 16,
                min: 0,
                max: 36000
            }
        );
        assert_eq!(se.address.len, 11);
        let c = l.set_condition.as_ref().unwrap();
        assert_eq!(c.positive_coefficient.bit_offset, 8 + 8 + 16);
        assert_eq!(c.dead_band.unwrap().bit_offset, 8 + 8 + 16 * 5);
        assert!(matches!(
            l.device_control.encoding,
            ControlEncoding::Array(_)
        ));
    }

    #[test]
    fn effect_type_values_are_one_based_positions_in_the_device_list() {
        let v = Variant {
            effect_types: &[0x31, 0x26, 0x43, 0x40],
            ..FULL
        };
        let l = layout(&v);
        let types = &l.set_effect.effect_type;
        assert_eq!(types.value_of(EffectKind::Constant.usage()), Some(2));
        assert_eq!(types.value_of(EffectKind::Friction.usage()), Some(3));
        assert_eq!(types.value_of(EffectKind::Spring.usage()), Some(4));
        assert!(l.supports(EffectKind::Spring));
        assert!(!l.supports(EffectKind::Damper), "not listed by this device");
        assert_eq!(
            l.effect_operation.operation.value_of(pid(u::OP_STOP)),
            Some(3)
        );
    }

    #[test]
    fn quirk_missing_start_delay() {
        let l = layout(&Variant {
            start_delay: false,
            ..FULL
        });
        assert_eq!(l.quirks, vec![Quirk::MissingStartDelay]);
        assert_eq!(l.set_effect.start_delay, None);
        assert_eq!(l.set_effect.gain.unwrap().bit_offset, 32, "gain moves up");
    }

    #[test]
    fn quirk_missing_param_block_offset() {
        let l = layout(&Variant {
            param_block_offset: false,
            ..FULL
        });
        assert_eq!(l.quirks, vec![Quirk::MissingParamBlockOffset]);
        let c = l.set_condition.unwrap();
        assert_eq!(c.cp_offset.unwrap().bit_offset, 8);
        assert_eq!(c.positive_coefficient.bit_offset, 24);
    }

    #[test]
    fn quirk_permissive_control_bitmask_with_logical_minimum_zero() {
        let l = layout(&Variant {
            bitmask_control: true,
            ..FULL
        });
        assert_eq!(l.quirks, vec![Quirk::PermissiveControl]);
        let ControlEncoding::Bitmask(bits) = &l.device_control.encoding else {
            panic!("{:?}", l.device_control.encoding);
        };
        assert_eq!(bits.len(), 6);
        assert_eq!(bits[0].0, Control::EnableActuators.usage());
        assert_eq!(
            bits[2],
            (
                Control::StopAll.usage(),
                Slot {
                    bit_offset: 2,
                    size: 1,
                    min: 0,
                    max: 1
                }
            )
        );
        assert_eq!(l.device_control.address.len, 1);
    }

    #[test]
    fn quirk_no_direction() {
        let l = layout(&Variant {
            direction: false,
            ..FULL
        });
        assert_eq!(l.quirks, vec![Quirk::NoDirection]);
        assert_eq!(l.set_effect.address.len, 9);
    }

    #[test]
    fn quirk_infinite_duration_rule_zero_and_max_vs_zero_only() {
        // 0..0xFFFF: 0 and 0xFFFF are both infinite, so the longest finite is 0xFFFE.
        let l = layout(&FULL);
        assert_eq!(l.finite_duration(30), 30);
        assert_eq!(l.finite_duration(0), 1);
        assert_eq!(l.finite_duration(70_000), 0xfffe);
        // Signed-style 0..0x7FFF: the maximum is the null value too.
        let l = layout(&Variant {
            duration_max: 0x7fff,
            ..FULL
        });
        assert!(l.quirks.is_empty());
        assert_eq!(l.finite_duration(40_000), 0x7ffe);
        // An 8-bit duration 0..255: 255 is a real duration, only 0 is infinite.
        let l = layout(&Variant {
            duration_max: 255,
            duration_bits: 8,
            ..FULL
        });
        assert_eq!(l.quirks, vec![Quirk::ZeroOnlyInfiniteDuration]);
        assert_eq!(l.finite_duration(30), 30);
        assert_eq!(l.finite_duration(1000), 255);
        assert_eq!(l.finite_duration(0), 1);
    }

    #[test]
    fn what_rigd_cannot_use_is_named() {
        let no_constant = Variant {
            effect_types: &[0x40, 0x41],
            ..FULL
        };
        assert_eq!(
            PidLayout::from_descriptor(&parse(&base(&no_constant)).unwrap()),
            Err(LayoutError::NoConstantForce)
        );
        let unsigned = Variant {
            magnitude: (0, 255, 8),
            ..FULL
        };
        assert_eq!(
            PidLayout::from_descriptor(&parse(&base(&unsigned)).unwrap()),
            Err(LayoutError::UnsignedMagnitude { min: 0, max: 255 })
        );
        // A plain joystick: no PID reports at all.
        let joystick = parse(&[
            0x05, 0x01, 0x09, 0x04, 0xa1, 0x01, 0x09, 0x30, 0x15, 0x00, 0x25, 0x7f, 0x75, 0x08,
            0x95, 0x01, 0x81, 0x02, 0xc0,
        ])
        .unwrap();
        let err = PidLayout::from_descriptor(&joystick).unwrap_err();
        assert_eq!(
            err,
            LayoutError::MissingReport {
                name: "Set Effect",
                usage: 0x21
            }
        );
        assert_eq!(
            err.to_string(),
            "the descriptor has no Set Effect report (PID usage 0x21)"
        );
    }
}
