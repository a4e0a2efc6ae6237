//! A HID report-descriptor parser: turns the bytes a device reports (`HIDIOCGRDESC`) into
//! its input, output and feature reports and the fields inside them, so the PID backend can
//! find every report by usage instead of trusting hard-coded report ids.
//!
//! What it follows (HID 1.11 §6.2.2): short items with 0, 1, 2 or 4 data bytes; long items
//! (`0xFE`) are skipped; the global state (usage page, logical range, report size/count/id)
//! with Push/Pop; local usages, usage minimum/maximum ranges and 32-bit extended usages
//! (a 4-byte usage carries its own page); collections, whose usages form each field's path.
//! A logical maximum is read signed only when the logical minimum is negative (what real
//! descriptors mean by `25 FF` after `15 00`). Nothing here allocates without a bound: usage
//! ranges, report sizes and report lengths are capped, so arbitrary bytes give an error,
//! never a panic or a huge allocation.

use std::collections::BTreeMap;

use thiserror::Error;

/// Which direction a report travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReportKind {
    /// Device to host, interrupt IN.
    Input,
    /// Host to device (interrupt OUT or SET_REPORT).
    Output,
    /// Both ways through GET/SET_REPORT on the control pipe.
    Feature,
}

/// One main-item field of a report: `count` values of `size` bits each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Full 32-bit usages (page << 16 | id): one per value for a variable field, the
    /// selectable usages for an array field (may be empty for padding).
    pub usages: Vec<u32>,
    /// Bit offset of the first value from the start of the report data (after the id byte).
    pub bit_offset: u32,
    /// Bits per value, 1 ..= 32.
    pub size: u32,
    /// Number of values.
    pub count: u32,
    /// Logical minimum, sign-extended from its item size.
    pub logical_min: i64,
    /// Logical maximum (signed when `logical_min` is negative, else unsigned).
    pub logical_max: i64,
    /// Variable (true: one value per usage) or array (false: values select usages).
    pub variable: bool,
    /// Constant (padding) field.
    pub constant: bool,
    /// Usages of the enclosing collections, outermost first.
    pub collections: Vec<u32>,
}

impl Field {
    /// True when `usage` (full 32-bit) encloses this field.
    pub fn in_collection(&self, usage: u32) -> bool {
        self.collections.contains(&usage)
    }

    /// The usage of value `index` of a variable field (the last usage repeats, HID §6.2.2.8).
    pub fn usage_at(&self, index: u32) -> Option<u32> {
        let last = self.usages.len().checked_sub(1)?;
        self.usages.get((index as usize).min(last)).copied()
    }
}

/// One report: its fields in order and its length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Direction.
    pub kind: ReportKind,
    /// Report id (0 when the descriptor uses none).
    pub id: u8,
    /// Fields in descriptor order.
    pub fields: Vec<Field>,
    /// Length of the data after the id byte, bits.
    pub bit_len: u32,
}

impl Report {
    /// Length of the data after the id byte, whole bytes.
    pub fn byte_len(&self) -> usize {
        self.bit_len.div_ceil(8) as usize
    }
}

/// A parsed report descriptor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Descriptor {
    /// Reports keyed by direction and id.
    pub reports: BTreeMap<(ReportKind, u8), Report>,
    /// True when any report id item appeared (the id byte then leads every report).
    pub uses_report_ids: bool,
}

/// What is wrong with a descriptor, and at which byte.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DescriptorError {
    /// An item's data runs past the end of the descriptor.
    #[error("item at byte {at} needs {needed} data bytes but the descriptor ends")]
    Truncated { at: usize, needed: usize },
    /// A report size of 0 or above 32 bits.
    #[error("report size {bits} bits at byte {at} is outside 1..=32")]
    ReportSize { at: usize, bits: u32 },
    /// Report id 0 is reserved.
    #[error("report id 0 at byte {at} is reserved")]
    ReportIdZero { at: usize },
    /// A usage minimum..maximum range that is reversed or too large.
    #[error(
        "usage range {min:#x}..={max:#x} at byte {at} is reversed or longer than {MAX_USAGE_RANGE}"
    )]
    UsageRange { at: usize, min: u32, max: u32 },
    /// Pop without Push.
    #[error("pop at byte {at} without a matching push")]
    PopWithoutPush { at: usize },
    /// Too many nested pushes or collections.
    #[error("nesting deeper than {MAX_DEPTH} at byte {at}")]
    TooDeep { at: usize },
    /// End Collection without an open collection.
    #[error("end collection at byte {at} closes no collection")]
    EndWithoutCollection { at: usize },
    /// The descriptor ended inside a collection.
    #[error("descriptor ends with {open} collection(s) still open")]
    UnclosedCollection { open: usize },
    /// A report grew beyond what hidraw can carry.
    #[error("report {id} grows past {MAX_REPORT_BITS} bits at byte {at}")]
    ReportTooLong { at: usize, id: u8 },
    /// More usages in one main item than the parser keeps.
    #[error("more than {MAX_USAGE_RANGE} usages before the main item at byte {at}")]
    TooManyUsages { at: usize },
}

/// Longest usage minimum..maximum range (and most local usages) one main item may carry.
pub const MAX_USAGE_RANGE: u32 = 4096;
/// Deepest Push or Collection nesting.
pub const MAX_DEPTH: usize = 32;
/// Longest report, bits (hidraw's 4096-byte buffer).
pub const MAX_REPORT_BITS: u32 = 4096 * 8;

#[derive(Debug, Clone, Copy, Default)]
struct Globals {
    usage_page: u32,
    logical_min: i64,
    /// Raw logical maximum and its item size, interpreted at the main item.
    logical_max_raw: (u32, usize),
    report_size: u32,
    report_count: u32,
    report_id: u8,
}

/// A local usage as written: 4-byte usages carry their own page.
#[derive(Debug, Clone, Copy)]
struct LocalUsage {
    value: u32,
    extended: bool,
}

impl LocalUsage {
    fn resolve(self, page: u32) -> u32 {
        if self.extended {
            self.value
        } else {
            (page << 16) | (self.value & 0xffff)
        }
    }
}

#[derive(Debug, Default)]
struct Locals {
    usages: Vec<LocalUsage>,
    minimum: Option<LocalUsage>,
}

fn unsigned(data: &[u8]) -> u32 {
    data.iter()
        .rev()
        .fold(0u32, |acc, &b| (acc << 8) | u32::from(b))
}

fn signed(data: &[u8]) -> i64 {
    let raw = unsigned(data);
    match data.len() {
        1 => i64::from(raw as u8 as i8),
        2 => i64::from(raw as u16 as i16),
        4 => i64::from(raw as i32),
        _ => 0,
    }
}

/// Parses a report descriptor.
pub fn parse(bytes: &[u8]) -> Result<Descriptor, DescriptorError> {
    let mut out = Descriptor::default();
    let mut globals = Globals::default();
    let mut stack: Vec<Globals> = Vec::new();
    let mut locals = Locals::default();
    let mut collections: Vec<u32> = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let prefix = bytes[at];
        if prefix == 0xfe {
            // Long item: 0xFE, data size, tag, data. Nothing in HID 1.11 defines one; skip.
            let size = usize::from(
                *bytes
                    .get(at + 1)
                    .ok_or(DescriptorError::Truncated { at, needed: 2 })?,
            );
            let end = at + 3 + size;
            if end > bytes.len() {
                return Err(DescriptorError::Truncated {
                    at,
                    needed: size + 2,
                });
            }
            at = end;
            continue;
        }
        let size = match prefix & 3 {
            3 => 4,
            n => usize::from(n),
        };
        let data = bytes
            .get(at + 1..at + 1 + size)
            .ok_or(DescriptorError::Truncated { at, needed: size })?;
        let tag = prefix >> 4;
        match (prefix >> 2) & 3 {
            0 => main_item(
                tag,
                data,
                at,
                &mut out,
                &globals,
                &mut locals,
                &mut collections,
            )?,
            1 => global_item(tag, data, at, &mut globals, &mut stack, &mut out)?,
            2 => local_item(tag, data, at, &mut locals)?,
            _ => {} // Reserved item type: ignored, as the kernel does.
        }
        at += 1 + size;
    }
    if !collections.is_empty() {
        return Err(DescriptorError::UnclosedCollection {
            open: collections.len(),
        });
    }
    Ok(out)
}

fn global_item(
    tag: u8,
    data: &[u8],
    at: usize,
    globals: &mut Globals,
    stack: &mut Vec<Globals>,
    out: &mut Descriptor,
) -> Result<(), DescriptorError> {
    match tag {
        0x0 => globals.usage_page = unsigned(data) & 0xffff,
        0x1 => globals.logical_min = signed(data),
        0x2 => globals.logical_max_raw = (unsigned(data), data.len()),
        0x7 => {
            let bits = unsigned(data);
            if bits == 0 || bits > 32 {
                return Err(DescriptorError::ReportSize { at, bits });
            }
            globals.report_size = bits;
        }
        0x8 => {
            let id = unsigned(data);
            if id == 0 || id > 0xff {
                return Err(DescriptorError::ReportIdZero { at });
            }
            globals.report_id = id as u8;
            out.uses_report_ids = true;
        }
        0x9 => globals.report_count = unsigned(data),
        0xa => {
            if stack.len() >= MAX_DEPTH {
                return Err(DescriptorError::TooDeep { at });
            }
            stack.push(*globals);
        }
        0xb => *globals = stack.pop().ok_or(DescriptorError::PopWithoutPush { at })?,
        _ => {} // Physical range, unit, unit exponent: not needed for PID output.
    }
    Ok(())
}

fn local_item(tag: u8, data: &[u8], at: usize, locals: &mut Locals) -> Result<(), DescriptorError> {
    let usage = LocalUsage {
        value: unsigned(data),
        extended: data.len() == 4,
    };
    match tag {
        0x0 => {
            if locals.usages.len() >= MAX_USAGE_RANGE as usize {
                return Err(DescriptorError::TooManyUsages { at });
            }
            locals.usages.push(usage);
        }
        0x1 => locals.minimum = Some(usage),
        0x2 => {
            let min = locals.minimum.take().unwrap_or(LocalUsage {
                value: 0,
                extended: usage.extended,
            });
            // A range stays on one page: its low 16 bits run, the page comes from either end.
            let (lo, hi) = (min.value & 0xffff, usage.value & 0xffff);
            let too_many = locals.usages.len() as u32 + hi.saturating_sub(lo) + 1;
            if hi < lo || too_many > MAX_USAGE_RANGE {
                return Err(DescriptorError::UsageRange {
                    at,
                    min: min.value,
                    max: usage.value,
                });
            }
            let high = if usage.extended {
                usage.value & 0xffff_0000
            } else {
                min.value & 0xffff_0000
            };
            for id in lo..=hi {
                locals.usages.push(LocalUsage {
                    value: high | id,
                    extended: usage.extended || min.extended,
                });
            }
        }
        _ => {} // Designators, strings, delimiters: not needed.
    }
    Ok(())
}

fn main_item(
    tag: u8,
    data: &[u8],
    at: usize,
    out: &mut Descriptor,
    globals: &Globals,
    locals: &mut Locals,
    collections: &mut Vec<u32>,
) -> Result<(), DescriptorError> {
    let page = globals.usage_page;
    let kind = match tag {
        0x8 => Some(ReportKind::Input),
        0x9 => Some(ReportKind::Output),
        0xb => Some(ReportKind::Feature),
        0xa => {
            if collections.len() >= MAX_DEPTH {
                return Err(DescriptorError::TooDeep { at });
            }
            let usage = locals.usages.first().map_or(0, |u| u.resolve(page));
            collections.push(usage);
            None
        }
        0xc => {
            collections
                .pop()
                .ok_or(DescriptorError::EndWithoutCollection { at })?;
            None
        }
        _ => None,
    };
    if let Some(kind) = kind {
        let flags = unsigned(data);
        let logical_min = globals.logical_min;
        let (raw_max, max_len) = globals.logical_max_raw;
        let logical_max = if logical_min < 0 {
            signed(&raw_max.to_le_bytes()[..max_len.min(4)])
        } else {
            i64::from(raw_max)
        };
        let id = globals.report_id;
        let report = out.reports.entry((kind, id)).or_insert_with(|| Report {
            kind,
            id,
            fields: Vec::new(),
            bit_len: 0,
        });
        let size = globals.report_size.max(1);
        let bits = u64::from(size) * u64::from(globals.report_count);
        let end = u64::from(report.bit_len) + bits;
        if end > u64::from(MAX_REPORT_BITS) {
            return Err(DescriptorError::ReportTooLong { at, id });
        }
        if globals.report_count > 0 {
            report.fields.push(Field {
                usages: locals.usages.iter().map(|u| u.resolve(page)).collect(),
                bit_offset: report.bit_len,
                size,
                count: globals.report_count,
                logical_min,
                logical_max,
                variable: flags & 0x2 != 0,
                constant: flags & 0x1 != 0,
                collections: collections.clone(),
            });
        }
        report.bit_len = end as u32;
    }
    *locals = Locals::default();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A joystick-like descriptor: 16 buttons from a usage range, padding, a signed 16-bit
    /// X axis, and an output report with `25 FF` after `15 00` (unsigned maximum).
    const SAMPLE: &[u8] = &[
        0x05, 0x01, // Usage Page (Generic Desktop)
        0x09, 0x04, // Usage (Joystick)
        0xa1, 0x01, // Collection (Application)
        0x85, 0x01, //   Report ID 1
        0x05, 0x09, //   Usage Page (Button)
        0x19, 0x01, //   Usage Minimum 1
        0x29, 0x10, //   Usage Maximum 16
        0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x10, //
        0x81, 0x02, //   Input (Data, Var)
        0x05, 0x01, 0x09, 0x30, // Usage (X)
        0x16, 0x01, 0x80, // Logical Minimum -32767
        0x26, 0xff, 0x7f, // Logical Maximum 32767
        0x75, 0x10, 0x95, 0x01, 0x81, 0x02, //
        0xa4, //   Push
        0x85, 0x02, 0x15, 0x00, 0x25, 0xff, 0x75, 0x08, 0x95, 0x02, //
        0x0b, 0x21, 0x00, 0x0f,
        0x00, // Usage (PID page 0x0F, 0x21) as a 4-byte extended usage
        0x91, 0x02, //   Output (Data, Var)
        0xb4, //   Pop
        0xfe, 0x01, 0x00, 0xaa, // a long item, skipped
        0xc0, // End Collection
    ];

    #[test]
    fn parses_fields_offsets_ranges_and_paths() {
        let d = parse(SAMPLE).unwrap();
        assert!(d.uses_report_ids);
        let input = &d.reports[&(ReportKind::Input, 1)];
        assert_eq!(input.fields.len(), 2);
        let buttons = &input.fields[0];
        assert_eq!(buttons.usages.len(), 16);
        assert_eq!(buttons.usages[0], 0x0009_0001);
        assert_eq!(buttons.usages[15], 0x0009_0010);
        assert_eq!(
            (buttons.bit_offset, buttons.size, buttons.count),
            (0, 1, 16)
        );
        assert_eq!(buttons.collections, vec![0x0001_0004]);
        let x = &input.fields[1];
        assert_eq!((x.bit_offset, x.size), (16, 16));
        assert_eq!((x.logical_min, x.logical_max), (-32767, 32767));
        assert_eq!(input.byte_len(), 4);
        let out = &d.reports[&(ReportKind::Output, 2)];
        let f = &out.fields[0];
        assert_eq!(
            (f.logical_min, f.logical_max),
            (0, 255),
            "25 FF after 15 00 is 255"
        );
        assert_eq!(f.usages, vec![0x000f_0021]);
        assert_eq!(out.byte_len(), 2);
    }

    #[test]
    fn pop_restores_the_report_id_and_sizes() {
        let d = parse(SAMPLE).unwrap();
        // After Pop the globals are those of report 1 again; the descriptor adds nothing
        // more, so only those two reports exist.
        assert_eq!(d.reports.len(), 2);
        let mut bytes = SAMPLE[..SAMPLE.len() - 5].to_vec();
        bytes.extend_from_slice(&[0x09, 0x31, 0x81, 0x02, 0xc0]);
        let d = parse(&bytes).unwrap();
        let y = &d.reports[&(ReportKind::Input, 1)].fields[2];
        assert_eq!(
            (y.size, y.logical_min, y.usages[0]),
            (16, -32767, 0x0001_0031)
        );
    }

    #[test]
    fn errors_name_the_byte() {
        assert_eq!(
            parse(&[0x05, 0x01, 0x26, 0xff]),
            Err(DescriptorError::Truncated { at: 2, needed: 2 })
        );
        assert_eq!(
            parse(&[0x75, 0x21]),
            Err(DescriptorError::ReportSize { at: 0, bits: 33 })
        );
        assert_eq!(
            parse(&[0x09, 0x01, 0xb4]),
            Err(DescriptorError::PopWithoutPush { at: 2 })
        );
        assert_eq!(
            parse(&[0xc0]),
            Err(DescriptorError::EndWithoutCollection { at: 0 })
        );
        assert_eq!(
            parse(&[0xa1, 0x01]),
            Err(DescriptorError::UnclosedCollection { open: 1 })
        );
        assert_eq!(
            parse(&[0x19, 0x00, 0x2a, 0xff, 0xff]),
            Err(DescriptorError::UsageRange {
                at: 2,
                min: 0,
                max: 0xffff
            })
        );
        assert_eq!(
            parse(&[0x85, 0x00]),
            Err(DescriptorError::ReportIdZero { at: 0 })
        );
    }

    #[test]
    fn negative_minimum_sign_extends_the_maximum() {
        // 15 80 25 7F: -128..127; 15 FF 25 FF: -1..-1 (both signed once the minimum is < 0).
        let d = parse(&[0x15, 0x80, 0x25, 0x7f, 0x75, 0x08, 0x95, 0x01, 0x91, 0x02]).unwrap();
        let f = &d.reports[&(ReportKind::Output, 0)].fields[0];
        assert_eq!((f.logical_min, f.logical_max), (-128, 127));
        let d = parse(&[0x15, 0xff, 0x25, 0xff, 0x75, 0x08, 0x95, 0x01, 0x91, 0x02]).unwrap();
        let f = &d.reports[&(ReportKind::Output, 0)].fields[0];
        assert_eq!((f.logical_min, f.logical_max), (-1, -1));
        assert!(!d.uses_report_ids);
    }
}
