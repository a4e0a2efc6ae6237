//! What the emulated HID PID base received and what it would do with it: every output and
//! feature report decoded (with the device's own hard-coded layout from [`pid_descriptor`])
//! into a typed [`PidReport`], stamped with the [`Instant`] it arrived, and a [`DeviceModel`]
//! that applies them the way a direct-drive base would: effect blocks allocated by Create New
//! Effect, parameters set per block, Effect Operation start/stop, Block Free, Device Control
//! and Device Gain, and "the force at the device at time t".
//!
//! Pure data: no I/O here, so the checks can replay a log to any instant.

use std::time::{Duration, Instant};

use super::pid_descriptor::{self as desc, id, EffectType};

/// Effect Operation values (the 1-based position in the descriptor's 0x78 array).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Start,
    StartSolo,
    Stop,
    Invalid(u8),
}

/// Device Control values (the 1-based position in the descriptor's 0x96 array).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    EnableActuators,
    DisableActuators,
    StopAll,
    Reset,
    Pause,
    Continue,
    Invalid(u8),
}

/// One condition parameter block (Set Condition), in device units (-10000..10000, 0..10000).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConditionParams {
    pub cp_offset: i16,
    pub positive_coefficient: i16,
    pub negative_coefficient: i16,
    pub positive_saturation: u16,
    pub negative_saturation: u16,
    pub dead_band: u16,
}

/// A decoded report, as the device saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PidReport {
    SetEffect {
        block: u8,
        effect_type: Option<EffectType>,
        duration_ms: u16,
        trigger_repeat_ms: u16,
        sample_period_ms: u16,
        start_delay_ms: u16,
        gain: u8,
        trigger_button: u8,
        axis_x_enabled: bool,
        direction_enabled: bool,
        /// Hundredths of a degree.
        direction: u16,
    },
    SetEnvelope {
        block: u8,
        attack_level: u16,
        fade_level: u16,
        attack_ms: u16,
        fade_ms: u16,
    },
    SetCondition {
        block: u8,
        param_block_offset: u8,
        params: ConditionParams,
    },
    SetPeriodic {
        block: u8,
        magnitude: u16,
        offset: i16,
        phase: u16,
        period_ms: u16,
    },
    SetConstantForce {
        block: u8,
        magnitude: i16,
    },
    SetRamp {
        block: u8,
        start: i16,
        end: i16,
    },
    EffectOperation {
        block: u8,
        operation: Operation,
        loop_count: u8,
    },
    BlockFree {
        block: u8,
    },
    DeviceControl(Control),
    DeviceGain(u8),
    /// Feature SET: the host asks for a new effect block.
    CreateNewEffect {
        effect_type: Option<EffectType>,
        byte_count: u16,
    },
    /// Feature GET Block Load, with what the device answered.
    BlockLoadRead {
        block: u8,
        status: u8,
    },
    /// Feature GET PID Pool.
    PoolRead,
    /// A report this device does not declare (id and kind as received), or a short one.
    Unknown {
        report_type: u8,
        bytes: Vec<u8>,
    },
}

impl PidReport {
    /// Decodes a SET_REPORT data stage (`report_type` 2 = output, 3 = feature; `data[0]` is
    /// the report id).
    pub fn decode(report_type: u8, data: &[u8]) -> PidReport {
        decode(report_type, data).unwrap_or_else(|| PidReport::Unknown {
            report_type,
            bytes: data.to_vec(),
        })
    }
}

fn u16_at(d: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*d.get(i)?, *d.get(i + 1)?]))
}

fn i16_at(d: &[u8], i: usize) -> Option<i16> {
    u16_at(d, i).map(|v| v as i16)
}

fn decode(report_type: u8, d: &[u8]) -> Option<PidReport> {
    let report_id = *d.first()?;
    let b = |i: usize| d.get(i).copied();
    Some(match (report_type, report_id) {
        (2, id::SET_EFFECT) => PidReport::SetEffect {
            block: b(1)?,
            effect_type: EffectType::from_value(b(2)?),
            duration_ms: u16_at(d, 3)?,
            trigger_repeat_ms: u16_at(d, 5)?,
            sample_period_ms: u16_at(d, 7)?,
            start_delay_ms: u16_at(d, 9)?,
            gain: b(11)?,
            trigger_button: b(12)?,
            axis_x_enabled: b(13)? & 1 != 0,
            direction_enabled: b(13)? & 2 != 0,
            direction: u16_at(d, 14)?,
        },
        (2, id::SET_ENVELOPE) => PidReport::SetEnvelope {
            block: b(1)?,
            attack_level: u16_at(d, 2)?,
            fade_level: u16_at(d, 4)?,
            attack_ms: u16_at(d, 6)?,
            fade_ms: u16_at(d, 8)?,
        },
        (2, id::SET_CONDITION) => PidReport::SetCondition {
            block: b(1)?,
            param_block_offset: b(2)?,
            params: ConditionParams {
                cp_offset: i16_at(d, 3)?,
                positive_coefficient: i16_at(d, 5)?,
                negative_coefficient: i16_at(d, 7)?,
                positive_saturation: u16_at(d, 9)?,
                negative_saturation: u16_at(d, 11)?,
                dead_band: u16_at(d, 13)?,
            },
        },
        (2, id::SET_PERIODIC) => PidReport::SetPeriodic {
            block: b(1)?,
            magnitude: u16_at(d, 2)?,
            offset: i16_at(d, 4)?,
            phase: u16_at(d, 6)?,
            period_ms: u16_at(d, 8)?,
        },
        (2, id::SET_CONSTANT_FORCE) => PidReport::SetConstantForce {
            block: b(1)?,
            magnitude: i16_at(d, 2)?,
        },
        (2, id::SET_RAMP) => PidReport::SetRamp {
            block: b(1)?,
            start: i16_at(d, 2)?,
            end: i16_at(d, 4)?,
        },
        (2, id::EFFECT_OPERATION) => PidReport::EffectOperation {
            block: b(1)?,
            operation: match b(2)? {
                1 => Operation::Start,
                2 => Operation::StartSolo,
                3 => Operation::Stop,
                other => Operation::Invalid(other),
            },
            loop_count: b(3)?,
        },
        (2, id::BLOCK_FREE) => PidReport::BlockFree { block: b(1)? },
        (2, id::DEVICE_CONTROL) => PidReport::DeviceControl(match b(1)? {
            1 => Control::EnableActuators,
            2 => Control::DisableActuators,
            3 => Control::StopAll,
            4 => Control::Reset,
            5 => Control::Pause,
            6 => Control::Continue,
            other => Control::Invalid(other),
        }),
        (2, id::DEVICE_GAIN) => PidReport::DeviceGain(b(1)?),
        (3, id::CREATE_NEW_EFFECT) => PidReport::CreateNewEffect {
            effect_type: EffectType::from_value(b(1)?),
            byte_count: u16_at(d, 2)?,
        },
        _ => return None,
    })
}

/// A report with the instant its data stage arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PidEvent {
    pub at: Instant,
    /// When the emulator read the request's SETUP packet (before the data stage).
    pub requested: Instant,
    pub report: PidReport,
}

/// One effect block of the device.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub allocated: bool,
    pub effect_type: Option<EffectType>,
    pub duration_ms: u16,
    pub start_delay_ms: u16,
    pub gain: u8,
    pub direction_enabled: bool,
    pub direction: u16,
    /// Set Constant Force magnitude (-10000..10000).
    pub magnitude: i16,
    /// Set Condition blocks at parameter block offset 0 and 1.
    pub conditions: [ConditionParams; 2],
    /// When the last Start arrived (None: stopped).
    pub started_at: Option<Instant>,
    pub loop_count: u8,
}

impl Block {
    /// 0 and 0xFFFF mean "infinite" on this device (the spec's null value and the kernel's
    /// FF "0 = forever" both occur in the wild).
    pub fn is_infinite(&self) -> bool {
        matches!(self.duration_ms, 0 | u16::MAX)
    }

    /// Playing at `t`: started, past its start delay and (for a finite duration) not run out.
    pub fn plays_at(&self, t: Instant) -> bool {
        let Some(started) = self.started_at else {
            return false;
        };
        let begin = started + Duration::from_millis(u64::from(self.start_delay_ms));
        if t < begin {
            return false;
        }
        if self.is_infinite() {
            return true;
        }
        let loops = u64::from(self.loop_count.max(1));
        t < begin + Duration::from_millis(u64::from(self.duration_ms) * loops)
    }

    /// Share of full scale this block pushes along +X when playing: magnitude x effect gain x
    /// sin(direction) (direction 90 degrees = +X; without Direction Enable the axis is X).
    pub fn constant_share(&self) -> f64 {
        let direction = if self.direction_enabled {
            (f64::from(self.direction) / 100.0).to_radians().sin()
        } else {
            1.0
        };
        f64::from(self.magnitude) / f64::from(desc::FULL_SCALE) * f64::from(self.gain)
            / f64::from(desc::GAIN_MAX)
            * direction
    }
}

/// The device's state after the reports so far.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceModel {
    /// Index = block index (index 0 unused).
    pub blocks: Vec<Block>,
    pub device_gain: u8,
    pub actuators_enabled: bool,
    pub paused: bool,
    /// What the next Block Load GET answers: (block, status 1 ok / 2 full / 3 error).
    pub block_load: (u8, u8),
}

impl Default for DeviceModel {
    fn default() -> Self {
        DeviceModel {
            blocks: vec![Block::default(); usize::from(desc::MAX_BLOCKS) + 1],
            device_gain: desc::GAIN_MAX,
            // Actuators are off at power-up: a host that never enables them gets no force.
            actuators_enabled: false,
            paused: false,
            block_load: (0, 3),
        }
    }
}

impl DeviceModel {
    fn block_mut(&mut self, block: u8) -> Option<&mut Block> {
        self.blocks
            .get_mut(usize::from(block))
            .filter(|_| block >= 1)
    }

    /// Applies one report.
    pub fn apply(&mut self, event: &PidEvent) {
        match &event.report {
            PidReport::CreateNewEffect { effect_type, .. } => {
                let free = (1..=desc::MAX_BLOCKS).find(|&i| !self.blocks[usize::from(i)].allocated);
                self.block_load = match (effect_type, free) {
                    (None, _) => (0, 3),
                    (Some(_), None) => (0, 2),
                    (Some(t), Some(i)) => {
                        self.blocks[usize::from(i)] = Block {
                            allocated: true,
                            effect_type: Some(*t),
                            gain: desc::GAIN_MAX,
                            ..Block::default()
                        };
                        (i, 1)
                    }
                };
            }
            PidReport::SetEffect {
                block,
                effect_type,
                duration_ms,
                start_delay_ms,
                gain,
                direction_enabled,
                direction,
                ..
            } => {
                if let Some(b) = self.block_mut(*block) {
                    b.effect_type = *effect_type;
                    b.duration_ms = *duration_ms;
                    b.start_delay_ms = *start_delay_ms;
                    b.gain = *gain;
                    b.direction_enabled = *direction_enabled;
                    b.direction = *direction;
                }
            }
            PidReport::SetConstantForce { block, magnitude } => {
                if let Some(b) = self.block_mut(*block) {
                    b.magnitude = *magnitude;
                }
            }
            PidReport::SetCondition {
                block,
                param_block_offset,
                params,
            } => {
                if let Some(b) = self.block_mut(*block) {
                    if let Some(slot) = b.conditions.get_mut(usize::from(*param_block_offset)) {
                        *slot = *params;
                    }
                }
            }
            PidReport::EffectOperation {
                block,
                operation,
                loop_count,
            } => match operation {
                Operation::Start | Operation::StartSolo => {
                    if *operation == Operation::StartSolo {
                        self.blocks.iter_mut().for_each(|b| b.started_at = None);
                    }
                    if let Some(b) = self.block_mut(*block) {
                        b.started_at = Some(event.at);
                        b.loop_count = *loop_count;
                    }
                }
                Operation::Stop => {
                    if let Some(b) = self.block_mut(*block) {
                        b.started_at = None;
                    }
                }
                Operation::Invalid(_) => {}
            },
            PidReport::BlockFree { block } => {
                if let Some(b) = self.block_mut(*block) {
                    *b = Block::default();
                }
            }
            PidReport::DeviceControl(control) => match control {
                Control::EnableActuators => self.actuators_enabled = true,
                Control::DisableActuators => self.actuators_enabled = false,
                Control::StopAll => self.blocks.iter_mut().for_each(|b| b.started_at = None),
                Control::Reset => {
                    self.blocks.iter_mut().for_each(|b| *b = Block::default());
                    self.paused = false;
                }
                Control::Pause => self.paused = true,
                Control::Continue => self.paused = false,
                Control::Invalid(_) => {}
            },
            PidReport::DeviceGain(gain) => self.device_gain = *gain,
            PidReport::SetEnvelope { .. }
            | PidReport::SetPeriodic { .. }
            | PidReport::SetRamp { .. }
            | PidReport::BlockLoadRead { .. }
            | PidReport::PoolRead
            | PidReport::Unknown { .. } => {}
        }
    }

    /// The constant force at the device at `t` as a share of full scale along +X: the playing
    /// constant effects, each x its gain x sin(direction), x device gain; zero with the
    /// actuators disabled or the device paused.
    pub fn force_at(&self, t: Instant) -> f64 {
        if !self.actuators_enabled || self.paused {
            return 0.0;
        }
        let sum: f64 = self
            .blocks
            .iter()
            .filter(|b| b.effect_type == Some(EffectType::Constant) && b.plays_at(t))
            .map(Block::constant_share)
            .sum();
        sum * f64::from(self.device_gain) / f64::from(desc::GAIN_MAX)
    }

    /// Condition effects playing at `t`: (block index, type, parameter block 0).
    pub fn conditions_at(&self, t: Instant) -> Vec<(u8, EffectType, ConditionParams)> {
        if !self.actuators_enabled || self.paused {
            return Vec::new();
        }
        self.blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| {
                let t_ok = b.plays_at(t);
                match b.effect_type {
                    Some(kind) if kind.is_condition() && t_ok => {
                        Some((i as u8, kind, b.conditions[0]))
                    }
                    _ => None,
                }
            })
            .collect()
    }
}

/// Force at the device sampled every `step` from `from` to `until` (inclusive), replaying
/// `events` once (they must be in arrival order).
pub fn force_timeline(
    events: &[PidEvent],
    from: Instant,
    until: Instant,
    step: Duration,
) -> Vec<(Instant, f64)> {
    let mut model = DeviceModel::default();
    let mut next = 0;
    let mut out = Vec::new();
    let mut t = from;
    while t <= until {
        while next < events.len() && events[next].at <= t {
            model.apply(&events[next]);
            next += 1;
        }
        out.push((t, model.force_at(t)));
        t += step;
    }
    out
}
