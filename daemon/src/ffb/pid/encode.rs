//! Encoding the PID reports rigd sends, and decoding the two it reads (Block Load, PID
//! Pool), at the places a [`PidLayout`] found in the device's descriptor.
//!
//! Every buffer starts with the report id byte (what hidraw and hidapi expect). Every value
//! is clamped to its field's logical range and to what the field's bits can hold, so a
//! device never sees a value its descriptor does not allow. Scaling from rigd's units:
//! - signed force levels (-32767 ..= 32767, [`scale_signed`]) map 32767 to the logical
//!   maximum and -32767 to the logical minimum, rounding to nearest: the same full scale as
//!   the kernel's `pidff_set_signed`, so both backends give the same force;
//! - shares (0 ..= 32767, [`scale_share`]) map 0 to `max(min, 0)` and 32767 to the maximum;
//! - the direction is the evdev one (0x4000 = the X axis, 90 degrees) rescaled like the
//!   kernel's `pidff_rescale`, so the sign convention matches the evdev backend.

use thiserror::Error;

use super::layout::{
    pid, usage as u, Control, ControlEncoding, EffectKind, PidLayout, ReportAddress, Slot,
};
use crate::ffb::stage::ConditionLevel;

/// The evdev direction of the X axis (a quarter turn of 0 ..= 0xFFFF).
pub const DIRECTION_X: u16 = 0x4000;

/// Largest and smallest value a slot's bits can hold (signed when its minimum is negative).
fn bit_range(slot: Slot) -> (i64, i64) {
    let size = slot.size.clamp(1, 32);
    if slot.min < 0 {
        (-(1i64 << (size - 1)), (1i64 << (size - 1)) - 1)
    } else {
        (0, (1i64 << size) - 1)
    }
}

/// `value` limited to the slot's logical range and to its bits.
pub fn clamp_to_slot(slot: Slot, value: i64) -> i64 {
    let (bits_lo, bits_hi) = bit_range(slot);
    let lo = slot.min.min(slot.max).max(bits_lo);
    let hi = slot.max.max(slot.min).min(bits_hi);
    if lo > hi {
        // A range the bits cannot hold: the nearest value they can.
        return value.clamp(bits_lo, bits_hi);
    }
    value.clamp(lo, hi)
}

/// `a * b / d`, rounded to nearest (halves away from zero); `d > 0`.
fn mul_div_round(a: i64, b: i64, d: i64) -> i64 {
    let p = i128::from(a) * i128::from(b);
    let half = i128::from(d) / 2;
    let q = if p >= 0 {
        (p + half) / i128::from(d)
    } else {
        (p - half) / i128::from(d)
    };
    q.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// A signed level (-32767 ..= 32767) in the slot's units.
pub fn scale_signed(level: i16, slot: Slot) -> i64 {
    let level = i64::from(level.max(-i16::MAX));
    let v = if level >= 0 {
        mul_div_round(level, slot.max.max(0), 32767)
    } else {
        mul_div_round(level, -slot.min.min(0), 32767)
    };
    clamp_to_slot(slot, v)
}

/// A share (0 ..= 32767) of the slot's positive range.
pub fn scale_share(share: i16, slot: Slot) -> i64 {
    let share = i64::from(share.max(0));
    let lo = slot.min.max(0);
    let span = (slot.max - lo).max(0);
    clamp_to_slot(slot, lo + mul_div_round(share, span, 32767))
}

/// Writes `value` (clamped, see [`clamp_to_slot`]) into `report` (id byte first) and returns
/// what was written.
pub fn put(report: &mut [u8], slot: Slot, value: i64) -> i64 {
    let value = clamp_to_slot(slot, value);
    let raw = value as u64;
    for bit in 0..slot.size.min(32) {
        let at = slot.bit_offset as usize + bit as usize;
        let Some(byte) = report.get_mut(1 + at / 8) else {
            break;
        };
        let mask = 1u8 << (at % 8);
        if raw >> bit & 1 == 1 {
            *byte |= mask;
        } else {
            *byte &= !mask;
        }
    }
    value
}

/// Reads a slot from `report` (id byte first); None when the report is too short.
pub fn get(report: &[u8], slot: Slot) -> Option<i64> {
    let size = slot.size.clamp(1, 32);
    let last = slot.bit_offset as usize + size as usize - 1;
    if report.len() <= 1 + last / 8 {
        return None;
    }
    let mut raw = 0u64;
    for bit in 0..size {
        let at = slot.bit_offset as usize + bit as usize;
        raw |= u64::from(report[1 + at / 8] >> (at % 8) & 1) << bit;
    }
    Some(if slot.min < 0 && raw >> (size - 1) & 1 == 1 {
        raw as i64 - (1i64 << size)
    } else {
        raw as i64
    })
}

/// A zeroed report with its id byte.
fn blank(address: ReportAddress) -> Vec<u8> {
    let mut report = vec![0u8; 1 + address.len];
    report[0] = address.id;
    report
}

/// Effect Operation commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    /// Start (restart) the effect, once.
    Start,
    /// Stop the effect.
    Stop,
}

/// What the device answered to Create New Effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadStatus {
    /// The block was allocated.
    Success,
    /// The device's effect memory is full.
    Full,
    /// The device refused the effect.
    Error,
    /// A value the descriptor does not name.
    Unknown(i64),
}

/// A decoded Block Load report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockLoadReply {
    /// The allocated effect block index.
    pub block: i64,
    /// Allocation result.
    pub status: LoadStatus,
    /// Effect memory left, bytes (when the device reports it).
    pub ram_pool_available: Option<i64>,
}

/// A decoded PID Pool report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolReply {
    /// Effect memory, bytes.
    pub ram_pool_size: Option<i64>,
    /// How many effects may play at once.
    pub simultaneous_max: Option<i64>,
    /// The device allocates blocks itself (Create New Effect + Block Load).
    pub device_managed: Option<bool>,
    /// Parameter blocks are shared between effects.
    pub shared_param_blocks: Option<bool>,
}

/// A feature report that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// Another report came back.
    #[error("expected report id {expected}, got {got}")]
    WrongId { expected: u8, got: u8 },
    /// Fewer bytes than the descriptor says.
    #[error("report {id} is {got} bytes, the descriptor says {expected}")]
    TooShort { id: u8, expected: usize, got: usize },
}

fn check(report: &[u8], address: ReportAddress) -> Result<(), DecodeError> {
    let got = report.first().copied().unwrap_or(0);
    if report.is_empty() || got != address.id {
        return Err(DecodeError::WrongId {
            expected: address.id,
            got,
        });
    }
    if report.len() < 1 + address.len {
        return Err(DecodeError::TooShort {
            id: address.id,
            expected: 1 + address.len,
            got: report.len(),
        });
    }
    Ok(())
}

impl PidLayout {
    /// Set Effect for `kind` in `block`: a finite `duration_ms` (see
    /// [`PidLayout::finite_duration`]), full effect gain, no trigger, no delay, the X axis.
    pub fn encode_set_effect(&self, block: u8, kind: EffectKind, duration_ms: u32) -> Vec<u8> {
        let se = &self.set_effect;
        let mut r = blank(se.address);
        put(&mut r, se.block, i64::from(block));
        if let Some(t) = se.effect_type.value_of(kind.usage()) {
            put(&mut r, se.effect_type.slot, t);
        }
        put(&mut r, se.duration, self.finite_duration(duration_ms));
        if let Some(gain) = se.gain {
            put(&mut r, gain, gain.max);
        }
        for slot in [
            se.trigger_button,
            se.trigger_repeat,
            se.sample_period,
            se.start_delay,
        ]
        .into_iter()
        .flatten()
        {
            put(&mut r, slot, 0);
        }
        for slot in [se.axes_enable, se.direction_enable].into_iter().flatten() {
            put(&mut r, slot, 1);
        }
        if let Some(direction) = se.direction {
            let span = direction.max - direction.min;
            let value = mul_div_round(i64::from(DIRECTION_X), span, 0xffff) + direction.min;
            put(&mut r, direction, value);
        }
        r
    }

    /// Set Constant Force: `level` (-32767 ..= 32767, positive pulls left) in `block`.
    pub fn encode_set_constant_force(&self, block: u8, level: i16) -> Vec<u8> {
        let sc = &self.set_constant_force;
        let mut r = blank(sc.address);
        put(&mut r, sc.block, i64::from(block));
        put(&mut r, sc.magnitude, scale_signed(level, sc.magnitude));
        r
    }

    /// Set Condition for `block`: centre 0, the same coefficient and saturation both ways,
    /// no dead band. None when the device has no Set Condition.
    pub fn encode_set_condition(&self, block: u8, level: ConditionLevel) -> Option<Vec<u8>> {
        let c = self.set_condition.as_ref()?;
        let mut r = blank(c.address);
        put(&mut r, c.block, i64::from(block));
        for slot in [c.param_block_offset, c.cp_offset, c.dead_band]
            .into_iter()
            .flatten()
        {
            put(&mut r, slot, 0);
        }
        for slot in [Some(c.positive_coefficient), c.negative_coefficient]
            .into_iter()
            .flatten()
        {
            put(&mut r, slot, scale_share(level.coefficient, slot));
        }
        for slot in [c.positive_saturation, c.negative_saturation]
            .into_iter()
            .flatten()
        {
            put(&mut r, slot, scale_share(level.saturation, slot));
        }
        Some(r)
    }

    /// Effect Operation on `block` (Start plays once).
    pub fn encode_effect_operation(&self, block: u8, op: Operation) -> Vec<u8> {
        let eo = &self.effect_operation;
        let mut r = blank(eo.address);
        put(&mut r, eo.block, i64::from(block));
        let usage = pid(match op {
            Operation::Start => u::OP_START,
            Operation::Stop => u::OP_STOP,
        });
        if let Some(v) = eo.operation.value_of(usage) {
            put(&mut r, eo.operation.slot, v);
        }
        if let Some(count) = eo.loop_count {
            put(&mut r, count, i64::from(op == Operation::Start));
        }
        r
    }

    /// Device Control `control` (array value or one bit, by the device's encoding). None when
    /// the device does not list that control.
    pub fn encode_device_control(&self, control: Control) -> Option<Vec<u8>> {
        let dc = &self.device_control;
        let mut r = blank(dc.address);
        match &dc.encoding {
            ControlEncoding::Array(s) => {
                put(&mut r, s.slot, s.value_of(control.usage())?);
            }
            ControlEncoding::Bitmask(bits) => {
                let (_, slot) = bits.iter().find(|(x, _)| *x == control.usage())?;
                put(&mut r, *slot, 1);
            }
        }
        Some(r)
    }

    /// Device Gain: `share` (0 ..= 32767) of the maximum. None without a Device Gain report.
    pub fn encode_device_gain(&self, share: i16) -> Option<Vec<u8>> {
        let g = self.device_gain.as_ref()?;
        let mut r = blank(g.address);
        put(&mut r, g.gain, scale_share(share, g.gain));
        Some(r)
    }

    /// Block Free for `block`.
    pub fn encode_block_free(&self, block: u8) -> Vec<u8> {
        let bf = &self.block_free;
        let mut r = blank(bf.address);
        put(&mut r, bf.block, i64::from(block));
        r
    }

    /// Create New Effect (feature SET) for `kind`; None when the device does not list it.
    pub fn encode_create_new_effect(&self, kind: EffectKind) -> Option<Vec<u8>> {
        let c = &self.create_new_effect;
        let mut r = blank(c.address);
        put(
            &mut r,
            c.effect_type.slot,
            c.effect_type.value_of(kind.usage())?,
        );
        Some(r)
    }

    /// A buffer for the Block Load feature GET (id byte set).
    pub fn block_load_buffer(&self) -> Vec<u8> {
        blank(self.block_load.address)
    }

    /// A buffer for the PID Pool feature GET, when the device has one.
    pub fn pid_pool_buffer(&self) -> Option<Vec<u8>> {
        self.pid_pool.as_ref().map(|p| blank(p.address))
    }

    /// Decodes a Block Load report (id byte first).
    pub fn decode_block_load(&self, report: &[u8]) -> Result<BlockLoadReply, DecodeError> {
        let bl = &self.block_load;
        check(report, bl.address)?;
        let status_value = get(report, bl.status.slot).unwrap_or(0);
        let status = match bl.status.usage_of(status_value) {
            Some(x) if x == pid(u::BLOCK_LOAD_SUCCESS) => LoadStatus::Success,
            Some(x) if x == pid(u::BLOCK_LOAD_FULL) => LoadStatus::Full,
            Some(x) if x == pid(u::BLOCK_LOAD_ERROR) => LoadStatus::Error,
            _ => LoadStatus::Unknown(status_value),
        };
        Ok(BlockLoadReply {
            block: get(report, bl.block).unwrap_or(0),
            status,
            ram_pool_available: bl.ram_pool_available.and_then(|s| get(report, s)),
        })
    }

    /// Decodes a PID Pool report (id byte first).
    pub fn decode_pid_pool(&self, report: &[u8]) -> Result<PoolReply, DecodeError> {
        let Some(p) = self.pid_pool.as_ref() else {
            return Ok(PoolReply::default());
        };
        check(report, p.address)?;
        let read = |s: Option<Slot>| s.and_then(|s| get(report, s));
        Ok(PoolReply {
            ram_pool_size: read(p.ram_pool_size),
            simultaneous_max: read(p.simultaneous_max),
            device_managed: read(p.device_managed).map(|v| v != 0),
            shared_param_blocks: read(p.shared_param_blocks).map(|v| v != 0),
        })
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::descriptor::parse;
    use super::super::test_descriptors::{base, Variant, FULL};
    use super::*;

    fn layout(v: &Variant) -> PidLayout {
        PidLayout::from_descriptor(&parse(&base(v)).unwrap()).unwrap()
    }

    #[test]
    fn constant_force_bytes_match_the_open_ffboard_layout() {
        let l = layout(&FULL);
        // Block 1, +16384 (the reference's `05 01 00 40`).
        assert_eq!(
            l.encode_set_constant_force(1, 16384),
            vec![0x05, 0x01, 0x00, 0x40]
        );
        assert_eq!(
            l.encode_set_constant_force(1, -32767),
            vec![0x05, 0x01, 0x01, 0x80]
        );
        assert_eq!(
            l.encode_set_constant_force(2, i16::MIN),
            vec![0x05, 0x02, 0x01, 0x80]
        );
        assert_eq!(
            l.encode_effect_operation(1, Operation::Start),
            vec![0x0a, 1, 1, 1]
        );
        assert_eq!(
            l.encode_effect_operation(1, Operation::Stop),
            vec![0x0a, 1, 3, 0]
        );
        assert_eq!(l.encode_block_free(7), vec![0x0b, 7]);
        assert_eq!(
            l.encode_device_control(Control::EnableActuators),
            Some(vec![0x0c, 1])
        );
        assert_eq!(
            l.encode_device_control(Control::StopAll),
            Some(vec![0x0c, 3])
        );
        assert_eq!(l.encode_device_gain(32767), Some(vec![0x0d, 255]));
        assert_eq!(l.encode_device_gain(16384), Some(vec![0x0d, 128]));
        assert_eq!(
            l.encode_create_new_effect(EffectKind::Constant),
            Some(vec![0x11, 1, 0, 0])
        );
        assert_eq!(
            l.encode_create_new_effect(EffectKind::Damper),
            Some(vec![0x11, 3, 0, 0])
        );
    }

    #[test]
    fn set_effect_is_finite_full_gain_on_the_x_axis() {
        let l = layout(&FULL);
        let r = l.encode_set_effect(3, EffectKind::Constant, 30);
        let se = &l.set_effect;
        assert_eq!(r[0], 1);
        assert_eq!(get(&r, se.block), Some(3));
        assert_eq!(get(&r, se.effect_type.slot), Some(1));
        assert_eq!(get(&r, se.duration), Some(30));
        assert_eq!(get(&r, se.gain.unwrap()), Some(255));
        assert_eq!(get(&r, se.start_delay.unwrap()), Some(0));
        assert_eq!(get(&r, se.axes_enable.unwrap()), Some(1));
        assert_eq!(get(&r, se.direction_enable.unwrap()), Some(1));
        assert_eq!(get(&r, se.direction.unwrap()), Some(9000), "90.00 degrees");
        assert_eq!(
            get(&r, se.trigger_button.unwrap()),
            Some(1),
            "clamped to its minimum"
        );
        let spring = l.encode_set_effect(4, EffectKind::Spring, 30);
        assert_eq!(get(&spring, se.effect_type.slot), Some(2));
    }

    #[test]
    fn bitmask_control_sets_one_bit() {
        let l = layout(&Variant {
            bitmask_control: true,
            ..FULL
        });
        assert_eq!(
            l.encode_device_control(Control::EnableActuators),
            Some(vec![0x0c, 0x01])
        );
        assert_eq!(
            l.encode_device_control(Control::StopAll),
            Some(vec![0x0c, 0x04])
        );
        assert_eq!(
            l.encode_device_control(Control::Reset),
            Some(vec![0x0c, 0x08])
        );
    }

    #[test]
    fn set_condition_scales_coefficients_and_saturations() {
        let l = layout(&FULL);
        let level = ConditionLevel {
            coefficient: 16384,
            saturation: 32767,
        };
        let r = l.encode_set_condition(2, level).unwrap();
        let c = l.set_condition.as_ref().unwrap();
        assert_eq!(get(&r, c.block), Some(2));
        assert_eq!(get(&r, c.param_block_offset.unwrap()), Some(0));
        assert_eq!(get(&r, c.cp_offset.unwrap()), Some(0));
        assert_eq!(get(&r, c.positive_coefficient), Some(16384));
        assert_eq!(get(&r, c.negative_coefficient.unwrap()), Some(16384));
        assert_eq!(get(&r, c.positive_saturation.unwrap()), Some(32767));
        assert_eq!(get(&r, c.negative_saturation.unwrap()), Some(32767));
        assert_eq!(get(&r, c.dead_band.unwrap()), Some(0));
    }

    #[test]
    fn block_load_and_pool_decode() {
        let l = layout(&FULL);
        let mut r = l.block_load_buffer();
        assert_eq!(r, vec![18, 0, 0, 0, 0]);
        r[1..].copy_from_slice(&[4, 1, 0x00, 0x10]);
        assert_eq!(
            l.decode_block_load(&r),
            Ok(BlockLoadReply {
                block: 4,
                status: LoadStatus::Success,
                ram_pool_available: Some(0x1000)
            })
        );
        r[2] = 2;
        assert_eq!(l.decode_block_load(&r).unwrap().status, LoadStatus::Full);
        r[2] = 9;
        assert_eq!(
            l.decode_block_load(&r).unwrap().status,
            LoadStatus::Unknown(9)
        );
        assert_eq!(
            l.decode_block_load(&[19, 0, 0, 0, 0]),
            Err(DecodeError::WrongId {
                expected: 18,
                got: 19
            })
        );
        assert!(matches!(
            l.decode_block_load(&[18, 1]),
            Err(DecodeError::TooShort { .. })
        ));
        let pool = l.decode_pid_pool(&[19, 0x00, 0x02, 40, 0b01]).unwrap();
        assert_eq!(
            pool,
            PoolReply {
                ram_pool_size: Some(512),
                simultaneous_max: Some(40),
                device_managed: Some(true),
                shared_param_blocks: Some(false)
            }
        );
    }

    /// A logical range and a size that holds it: (min, max, bits), signed or not.
    fn range() -> impl Strategy<Value = (i32, i32, u32)> {
        (2u32..=32, any::<bool>(), any::<u32>(), any::<u32>()).prop_map(|(bits, signed, a, b)| {
            if signed {
                let cap = ((1i64 << (bits - 1)) - 1) as u64;
                let min = -((u64::from(a) % cap + 1) as i64);
                let max = (u64::from(b) % cap + 1) as i64;
                (
                    min.max(i64::from(i32::MIN)) as i32,
                    max.min(i64::from(i32::MAX)) as i32,
                    bits,
                )
            } else {
                let cap = ((1u64 << bits) - 1).min(i32::MAX as u64);
                let max = u64::from(b) % cap + 1;
                (0, max as i32, bits)
            }
        })
    }

    fn signed_range() -> impl Strategy<Value = (i32, i32, u32)> {
        range().prop_filter("signed", |r| r.0 < 0)
    }

    proptest! {
        #[test]
        fn magnitude_stays_in_the_logical_range_and_keeps_its_sign(
            (min, max, bits) in signed_range(),
            level in any::<i16>(),
        ) {
            let l = layout(&Variant { magnitude: (min, max, bits), ..FULL });
            let r = l.encode_set_constant_force(1, level);
            let m = get(&r, l.set_constant_force.magnitude).unwrap();
            prop_assert!((i64::from(min)..=i64::from(max)).contains(&m), "{m} outside {min}..={max}");
            prop_assert!(m == 0 || (m > 0) == (level > 0), "level {level} -> {m}");
            if level == i16::MAX {
                prop_assert_eq!(m, i64::from(max));
            }
            if level <= -i16::MAX {
                prop_assert_eq!(m, i64::from(min));
            }
            prop_assert_eq!(m, scale_signed(level, l.set_constant_force.magnitude));
        }

        #[test]
        fn coefficient_and_saturation_stay_in_their_ranges(
            (cmin, cmax, cbits) in range(),
            (smin, smax, sbits) in range(),
            coefficient in any::<i16>(),
            saturation in any::<i16>(),
        ) {
            let coefficient_slot = Slot { bit_offset: 0, size: cbits, min: cmin.into(), max: cmax.into() };
            let saturation_slot = Slot { bit_offset: cbits, size: sbits, min: smin.into(), max: smax.into() };
            let mut r = vec![0u8; 1 + 8 + 1];
            put(&mut r, coefficient_slot, scale_share(coefficient, coefficient_slot));
            put(&mut r, saturation_slot, scale_share(saturation, saturation_slot));
            let c = get(&r, coefficient_slot).unwrap();
            let s = get(&r, saturation_slot).unwrap();
            prop_assert!((i64::from(cmin)..=i64::from(cmax)).contains(&c));
            prop_assert!((i64::from(smin)..=i64::from(smax)).contains(&s));
            prop_assert!(c >= 0 && s >= 0, "a share never goes negative");
        }

        #[test]
        fn any_value_round_trips_through_its_slot(
            (min, max, bits) in range(),
            offset in 0u32..40,
            value in any::<i64>(),
            noise in any::<u8>(),
        ) {
            let slot = Slot { bit_offset: offset, size: bits, min: min.into(), max: max.into() };
            let mut r = vec![noise; 1 + 10];
            let written = put(&mut r, slot, value);
            prop_assert!((i64::from(min)..=i64::from(max)).contains(&written));
            prop_assert_eq!(get(&r, slot), Some(written));
            if (i64::from(min)..=i64::from(max)).contains(&value) {
                prop_assert_eq!(written, value);
            }
        }

        #[test]
        fn block_load_round_trips(block in 1i64..=40, status in 0usize..3, ram in 0i64..=0xffff) {
            let l = layout(&FULL);
            let mut r = l.block_load_buffer();
            let bl = &l.block_load;
            put(&mut r, bl.block, block);
            put(&mut r, bl.status.slot, bl.status.slot.min + status as i64);
            put(&mut r, bl.ram_pool_available.unwrap(), ram);
            let reply = l.decode_block_load(&r).unwrap();
            prop_assert_eq!(reply.block, block);
            prop_assert_eq!(reply.status, [LoadStatus::Success, LoadStatus::Full, LoadStatus::Error][status]);
            prop_assert_eq!(reply.ram_pool_available, Some(ram));
        }

        #[test]
        fn parser_and_layout_never_panic_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
            if let Ok(d) = parse(&bytes) {
                if let Ok(l) = PidLayout::from_descriptor(&d) {
                    let _ = l.encode_set_effect(1, EffectKind::Constant, 30);
                    let _ = l.encode_set_constant_force(1, -12345);
                    let _ = l.decode_block_load(&l.block_load_buffer());
                }
            }
        }

        #[test]
        fn parser_never_panics_on_mutated_pid_descriptors(
            flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        ) {
            let mut bytes = base(&FULL);
            for (at, value) in flips {
                let i = at.index(bytes.len());
                bytes[i] = value;
            }
            if let Ok(d) = parse(&bytes) {
                if let Ok(l) = PidLayout::from_descriptor(&d) {
                    let r = l.encode_set_constant_force(1, i16::MAX);
                    let m = l.set_constant_force.magnitude;
                    let v = get(&r, m).unwrap_or(0);
                    prop_assert!(v >= m.min.min(m.max) && v <= m.max.max(m.min) || m.min > m.max);
                }
            }
        }
    }
}
