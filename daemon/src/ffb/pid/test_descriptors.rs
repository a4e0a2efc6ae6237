//! Report descriptors for the PID tests, written from the HID PID 1.0 specification and the
//! Open FFBoard layout (reference ffb-input.md §3.1): a one-axis direct-drive base, with a
//! switch per descriptor quirk real bases have. Test-only.

/// Which variant of the base to describe.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    /// Set Effect carries Start Delay (0xA7).
    pub start_delay: bool,
    /// Set Condition carries Parameter Block Offset (0x23).
    pub param_block_offset: bool,
    /// Device Control is a bitmask of 1-bit variables, logical minimum 0 (Open FFBoard, VRS)
    /// instead of the spec's array with logical minimum 1.
    pub bitmask_control: bool,
    /// Set Effect carries Direction (0x57).
    pub direction: bool,
    /// Logical maximum of Duration (0xFFFF on most bases).
    pub duration_max: u32,
    /// Bits of Duration.
    pub duration_bits: u32,
    /// Magnitude of Set Constant Force: logical minimum, maximum, bits.
    pub magnitude: (i32, i32, u32),
    /// The effect types listed (PID usages), in the device's order.
    pub effect_types: &'static [u16],
}

/// Open FFBoard-like: every optional field present, array Device Control.
pub const FULL: Variant = Variant {
    start_delay: true,
    param_block_offset: true,
    bitmask_control: false,
    direction: true,
    duration_max: 0xffff,
    duration_bits: 16,
    magnitude: (-32767, 32767, 16),
    effect_types: &[0x26, 0x40, 0x41, 0x42, 0x43],
};

/// A descriptor item writer.
#[derive(Default)]
struct Items(Vec<u8>);

impl Items {
    fn short(&mut self, prefix: u8, value: u32, len: usize) -> &mut Self {
        let size_code = match len {
            0 => 0,
            1 => 1,
            2 => 2,
            _ => 3,
        };
        self.0.push(prefix | size_code);
        self.0.extend_from_slice(&value.to_le_bytes()[..len.min(4)]);
        self
    }
    fn unsigned_len(value: u32) -> usize {
        match value {
            0..=0xff => 1,
            0x100..=0xffff => 2,
            _ => 4,
        }
    }
    fn signed_len(value: i32) -> usize {
        if i8::try_from(value).is_ok() {
            1
        } else if i16::try_from(value).is_ok() {
            2
        } else {
            4
        }
    }
    fn page(&mut self, page: u16) -> &mut Self {
        self.short(0x04, u32::from(page), 1 + usize::from(page > 0xff))
    }
    fn usage(&mut self, usage: u16) -> &mut Self {
        self.short(0x08, u32::from(usage), 1 + usize::from(usage > 0xff))
    }
    fn logical(&mut self, min: i32, max: i32) -> &mut Self {
        self.short(0x14, min as u32, Self::signed_len(min));
        if min < 0 {
            self.short(0x24, max as u32, Self::signed_len(max))
        } else {
            self.short(0x24, max as u32, Self::unsigned_len(max as u32))
        }
    }
    fn bits(&mut self, size: u32, count: u32) -> &mut Self {
        self.short(0x74, size, 1).short(0x94, count, 1)
    }
    fn id(&mut self, id: u8) -> &mut Self {
        self.short(0x84, u32::from(id), 1)
    }
    fn logical_collection(&mut self, usage: u16) -> &mut Self {
        self.usage(usage).short(0xa0, 2, 1)
    }
    fn end(&mut self) -> &mut Self {
        self.short(0xc0, 0, 0)
    }
    fn output(&mut self, flags: u32) -> &mut Self {
        self.short(0x90, flags, 1)
    }
    fn feature(&mut self, flags: u32) -> &mut Self {
        self.short(0xb0, flags, 1)
    }
    fn block_index(&mut self) -> &mut Self {
        self.usage(0x22).logical(1, 40).bits(8, 1).output(2)
    }
}

const VAR: u32 = 0x02;
const ARRAY: u32 = 0x00;
const PAD: u32 = 0x03;

/// The report descriptor of `v`.
pub fn base(v: &Variant) -> Vec<u8> {
    let mut d = Items::default();
    // Application: a joystick with a 16-bit steering axis (input report 1).
    d.page(0x01).usage(0x04).short(0xa0, 1, 1);
    d.id(1)
        .usage(0x30)
        .logical(-32767, 32767)
        .bits(16, 1)
        .short(0x80, VAR, 1);
    d.page(0x0f);

    // Set Effect (output 1).
    d.logical_collection(0x21).id(1).block_index();
    d.logical_collection(0x25);
    for &t in v.effect_types {
        d.usage(t);
    }
    d.logical(1, v.effect_types.len() as i32)
        .bits(8, 1)
        .output(ARRAY)
        .end();
    d.usage(0x50);
    d.logical(0, v.duration_max as i32)
        .bits(v.duration_bits, 1)
        .output(VAR);
    if v.start_delay {
        d.usage(0xa7).logical(0, 0xffff).bits(16, 1).output(VAR);
    }
    d.usage(0x52).logical(0, 255).bits(8, 1).output(VAR);
    d.usage(0x53).logical(1, 8).bits(8, 1).output(VAR);
    d.logical_collection(0x55)
        .page(0x01)
        .usage(0x30)
        .logical(0, 1)
        .bits(1, 1)
        .output(VAR)
        .page(0x0f)
        .end();
    d.usage(0x56).bits(1, 1).output(VAR);
    d.bits(6, 1).output(PAD);
    if v.direction {
        d.logical_collection(0x57)
            .short(0x08, 0x000a_0001, 4) // Ordinal 1 (extended usage)
            .logical(0, 36000)
            .bits(16, 1)
            .output(VAR)
            .end();
    }
    d.end();

    // Set Constant Force (output 5).
    let (mag_min, mag_max, mag_bits) = v.magnitude;
    d.logical_collection(0x73).id(5).block_index();
    d.usage(0x70)
        .logical(mag_min, mag_max)
        .bits(mag_bits, 1)
        .output(VAR)
        .end();

    // Set Condition (output 3).
    d.logical_collection(0x5f).id(3).block_index();
    if v.param_block_offset {
        d.usage(0x23).logical(0, 1).bits(4, 1).output(VAR);
        d.bits(4, 1).output(PAD);
    }
    d.usage(0x60).usage(0x61).usage(0x62);
    d.logical(-32767, 32767).bits(16, 3).output(VAR);
    d.usage(0x63).usage(0x64).usage(0x65);
    d.logical(0, 32767).bits(16, 3).output(VAR).end();

    // Effect Operation (output 10).
    d.logical_collection(0x77).id(10).block_index();
    d.logical_collection(0x78)
        .usage(0x79)
        .usage(0x7a)
        .usage(0x7b)
        .logical(1, 3)
        .bits(8, 1)
        .output(ARRAY)
        .end();
    d.usage(0x7c).logical(0, 255).bits(8, 1).output(VAR).end();

    // Block Free (output 11).
    d.logical_collection(0x90).id(11).block_index().end();

    // Device Control (output 12).
    d.logical_collection(0x95).id(12).logical_collection(0x96);
    for u in 0x97..=0x9c {
        d.usage(u);
    }
    if v.bitmask_control {
        d.logical(0, 1)
            .bits(1, 6)
            .output(VAR)
            .bits(1, 2)
            .output(PAD);
    } else {
        d.logical(1, 6).bits(8, 1).output(ARRAY);
    }
    d.end().end();

    // Device Gain (output 13).
    d.logical_collection(0x7d).id(13);
    d.usage(0x7e).logical(0, 255).bits(8, 1).output(VAR).end();

    // Create New Effect (feature 17).
    d.logical_collection(0xab).id(17).logical_collection(0x25);
    for &t in v.effect_types {
        d.usage(t);
    }
    d.logical(1, v.effect_types.len() as i32)
        .bits(8, 1)
        .feature(ARRAY)
        .end();
    d.page(0x01)
        .usage(0x3b)
        .logical(0, 511)
        .bits(10, 1)
        .feature(VAR)
        .bits(6, 1)
        .feature(PAD)
        .page(0x0f)
        .end();

    // Block Load (feature 18).
    d.logical_collection(0x89).id(18);
    d.usage(0x22).logical(1, 40).bits(8, 1).feature(VAR);
    d.logical_collection(0x8b)
        .usage(0x8c)
        .usage(0x8d)
        .usage(0x8e)
        .logical(1, 3)
        .bits(8, 1)
        .feature(ARRAY)
        .end();
    d.usage(0xac)
        .logical(0, 0xffff)
        .bits(16, 1)
        .feature(VAR)
        .end();

    // PID Pool (feature 19).
    d.logical_collection(0x7f).id(19);
    d.usage(0x80).logical(0, 0xffff).bits(16, 1).feature(VAR);
    d.usage(0x83).logical(0, 255).bits(8, 1).feature(VAR);
    d.usage(0xa9)
        .usage(0xaa)
        .logical(0, 1)
        .bits(1, 2)
        .feature(VAR);
    d.bits(6, 1).feature(PAD).end();

    d.end();
    d.0
}
