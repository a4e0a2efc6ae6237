//! The report descriptor of the emulated HID PID direct-drive base and the byte layout of its
//! reports, written from the HID PID specification (usage page 0x0F) and what the guest
//! kernel's hid-pidff (Debian 12, 6.1) insists on. Shaped like a one-axis Open FFBoard.
//!
//! This file is the device's *own* knowledge of its reports: the emulator decodes with these
//! offsets, never with rigd's descriptor parser, so a parser bug cannot hide behind itself.
//!
//! What hid-pidff 6.1 requires, and where this descriptor meets it:
//! - every report inside a Logical collection named by the report usage (0x21, 0x77, 0x7D,
//!   0x7F, 0x89, 0x90, 0xAB, 0x5A, 0x5F, 0x6E, 0x73, 0x74), except Device Control, whose field
//!   sits in a nested 0x96 collection (the kernel looks that one up by 0x96);
//! - Set Effect with *all* of Block Index 0x22, Duration 0x50, Gain 0x52, Trigger Button 0x53,
//!   Trigger Repeat 0x54, Direction Enable 0x56 and Start Delay 0xA7 (strict lookup), the
//!   Effect Type array (0x25, logical minimum 1) and a Direction collection (0x57);
//! - Set Envelope (else FF_CONSTANT is dropped) and Set Condition with Param Block Offset,
//!   CP Offset, both Coefficients, both Saturations and Dead Band (else no condition effects);
//! - array fields (Effect Type, Effect Operation 0x78, Device Control 0x96, Block Load Status
//!   0x8B) with logical minimum 1: the value sent is the 1-based position of the usage;
//! - Create New Effect and Set Effect listing the same effect types in the same order;
//! - PID Pool's Device Managed Pool bit set, Simultaneous Max >= 2.
//!
//! Reports (all little-endian, byte 0 is the report id; offsets below count from byte 1):
//!
//! | id | kind | report (usage) | bytes after the id |
//! |---|---|---|---|
//! | 0x01 | input | wheel | X i16 (-32767..32767), buttons u8 (8 buttons) |
//! | 0x02 | input | PID State (0x92) | bits: paused, actuators enabled, safety switch, override, power; then effect playing (bit 0) + block index (bits 1..7) |
//! | 0x01 | output | Set Effect (0x21) | block u8 (1..40), type u8 (1..11, see [`EFFECT_TYPES`]), duration u16 ms (0 and 0xFFFF infinite), trigger repeat u16 ms, sample period u16 ms, start delay u16 ms, gain u8 (0..255), trigger button u8, bits {axis X enable, direction enable}, direction u16 (0..35999 = hundredths of a degree) |
//! | 0x02 | output | Set Envelope (0x5A) | block u8, attack level u16, fade level u16 (0..10000), attack time u16 ms, fade time u16 ms |
//! | 0x03 | output | Set Condition (0x5F) | block u8, param block offset u8 (0..1), CP offset i16, positive coefficient i16, negative coefficient i16 (-10000..10000), positive saturation u16, negative saturation u16, dead band u16 (0..10000) |
//! | 0x04 | output | Set Periodic (0x6E) | block u8, magnitude u16 (0..10000), offset i16 (-10000..10000), phase u16 (0..35999), period u16 ms |
//! | 0x05 | output | Set Constant Force (0x73) | block u8, magnitude i16 (-10000..10000) |
//! | 0x06 | output | Set Ramp (0x74) | block u8, start i16, end i16 (-10000..10000) |
//! | 0x0A | output | Effect Operation (0x77) | block u8, operation u8 (1 Start, 2 Start Solo, 3 Stop), loop count u8 |
//! | 0x0B | output | Block Free (0x90) | block u8 |
//! | 0x0C | output | Device Control (0x95/0x96) | control u8 (1 Enable Actuators, 2 Disable, 3 Stop All, 4 Reset, 5 Pause, 6 Continue) |
//! | 0x0D | output | Device Gain (0x7D) | gain u8 (0..255) |
//! | 0x11 | feature SET | Create New Effect (0xAB) | type u8 (1..11), byte count u16 |
//! | 0x12 | feature GET | Block Load (0x89) | block u8 (1..40), status u8 (1 success, 2 full, 3 error), RAM pool available u16 |
//! | 0x13 | feature GET | PID Pool (0x7F) | RAM pool size u16, simultaneous max u8, bits {device managed pool, shared parameter blocks} |
//!
//! Full scale is magnitude 10000 at effect gain 255 and device gain 255.

/// Report ids (see the module header for their layout).
pub mod id {
    pub const INPUT_WHEEL: u8 = 0x01;
    pub const INPUT_PID_STATE: u8 = 0x02;
    pub const SET_EFFECT: u8 = 0x01;
    pub const SET_ENVELOPE: u8 = 0x02;
    pub const SET_CONDITION: u8 = 0x03;
    pub const SET_PERIODIC: u8 = 0x04;
    pub const SET_CONSTANT_FORCE: u8 = 0x05;
    pub const SET_RAMP: u8 = 0x06;
    pub const EFFECT_OPERATION: u8 = 0x0a;
    pub const BLOCK_FREE: u8 = 0x0b;
    pub const DEVICE_CONTROL: u8 = 0x0c;
    pub const DEVICE_GAIN: u8 = 0x0d;
    pub const CREATE_NEW_EFFECT: u8 = 0x11;
    pub const BLOCK_LOAD: u8 = 0x12;
    pub const PID_POOL: u8 = 0x13;
}

/// Effect blocks the device holds (block indices 1..=MAX_BLOCKS).
pub const MAX_BLOCKS: u8 = 40;
/// Magnitudes, coefficients, saturations: full scale.
pub const FULL_SCALE: i32 = 10_000;
/// Effect gain and device gain: full scale.
pub const GAIN_MAX: u8 = 255;

/// Effect types in descriptor order: the Effect Type value is the 1-based position here.
pub const EFFECT_TYPES: [EffectType; 11] = [
    EffectType::Constant,
    EffectType::Ramp,
    EffectType::Square,
    EffectType::Sine,
    EffectType::Triangle,
    EffectType::SawUp,
    EffectType::SawDown,
    EffectType::Spring,
    EffectType::Damper,
    EffectType::Inertia,
    EffectType::Friction,
];

/// An effect type the device knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffectType {
    Constant,
    Ramp,
    Square,
    Sine,
    Triangle,
    SawUp,
    SawDown,
    Spring,
    Damper,
    Inertia,
    Friction,
}

impl EffectType {
    /// From the 1-based Effect Type value.
    pub fn from_value(value: u8) -> Option<EffectType> {
        EFFECT_TYPES
            .get(usize::from(value).checked_sub(1)?)
            .copied()
    }

    /// Spring, damper, inertia and friction.
    pub fn is_condition(self) -> bool {
        matches!(
            self,
            EffectType::Spring | EffectType::Damper | EffectType::Inertia | EffectType::Friction
        )
    }
}

/// The HID report descriptor (layout in the module header).
#[rustfmt::skip]
pub const REPORT_DESCRIPTOR: &[u8] = &[
    0x05, 0x01,                   // Usage Page (Generic Desktop)
    0x09, 0x04,                   // Usage (Joystick)
    0xa1, 0x01,                   // Collection (Application)
    // ---- input 0x01: the rim and the buttons
    0x85, 0x01,                   //   Report ID 1
    0x09, 0x30,                   //   Usage (X)
    0x16, 0x01, 0x80,             //   Logical Minimum (-32767)
    0x26, 0xff, 0x7f,             //   Logical Maximum (32767)
    0x75, 0x10, 0x95, 0x01,       //   Report Size 16, Count 1
    0x81, 0x02,                   //   Input (Data, Variable, Absolute)
    0x05, 0x09,                   //   Usage Page (Button)
    0x19, 0x01, 0x29, 0x08,       //   Usage Minimum (1), Maximum (8)
    0x15, 0x00, 0x25, 0x01,       //   Logical 0..1
    0x75, 0x01, 0x95, 0x08,       //   Report Size 1, Count 8
    0x81, 0x02,                   //   Input (Data, Variable, Absolute)
    0x05, 0x0f,                   //   Usage Page (PID)
    // ---- input 0x02: PID State
    0x09, 0x92,                   //   Usage (PID State Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x02,                   //     Report ID 2
    0x09, 0x9f, 0x09, 0xa0,       //     Usage (Device Paused), (Actuators Enabled)
    0x09, 0xa4, 0x09, 0xa5,       //     Usage (Safety Switch), (Actuator Override Switch)
    0x09, 0xa6,                   //     Usage (Actuator Power)
    0x15, 0x00, 0x25, 0x01,       //     Logical 0..1
    0x75, 0x01, 0x95, 0x05,       //     Report Size 1, Count 5
    0x81, 0x02,                   //     Input (Data, Variable, Absolute)
    0x95, 0x03, 0x81, 0x03,       //     Count 3, Input (Constant): padding
    0x09, 0x94,                   //     Usage (Effect Playing)
    0x95, 0x01, 0x81, 0x02,       //     Count 1, Input (Data, Variable, Absolute)
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x07, 0x95, 0x01,       //     Report Size 7, Count 1
    0x81, 0x02,                   //     Input (Data, Variable, Absolute)
    0xc0,                         //   End Collection
    // ---- output 0x01: Set Effect
    0x09, 0x21,                   //   Usage (Set Effect Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x01,                   //     Report ID 1
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x25,                   //     Usage (Effect Type)
    0xa1, 0x02,                   //     Collection (Logical)
    0x09, 0x26, 0x09, 0x27,       //       ET Constant Force, ET Ramp
    0x09, 0x30, 0x09, 0x31,       //       ET Square, ET Sine
    0x09, 0x32, 0x09, 0x33,       //       ET Triangle, ET Sawtooth Up
    0x09, 0x34, 0x09, 0x40,       //       ET Sawtooth Down, ET Spring
    0x09, 0x41, 0x09, 0x42,       //       ET Damper, ET Inertia
    0x09, 0x43,                   //       ET Friction
    0x15, 0x01, 0x25, 0x0b,       //       Logical 1..11
    0x75, 0x08, 0x95, 0x01,       //       Report Size 8, Count 1
    0x91, 0x00,                   //       Output (Data, Array, Absolute)
    0xc0,                         //     End Collection
    0x09, 0x50, 0x09, 0x54,       //     Usage (Duration), (Trigger Repeat Interval)
    0x09, 0x51, 0x09, 0xa7,       //     Usage (Sample Period), (Start Delay)
    0x15, 0x00, 0x27, 0xff, 0xff, 0x00, 0x00, // Logical 0..65535
    0x66, 0x01, 0x10,             //     Unit (SI linear: seconds)
    0x55, 0x0d,                   //     Unit Exponent (-3): milliseconds
    0x75, 0x10, 0x95, 0x04,       //     Report Size 16, Count 4
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x65, 0x00, 0x55, 0x00,       //     Unit (none), Unit Exponent (0)
    0x09, 0x52,                   //     Usage (Gain)
    0x15, 0x00, 0x26, 0xff, 0x00, //     Logical 0..255
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x53,                   //     Usage (Trigger Button)
    0x15, 0x00, 0x25, 0x08,       //     Logical 0..8 (0: none)
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x55,                   //     Usage (Axes Enable)
    0xa1, 0x02,                   //     Collection (Logical)
    0x05, 0x01,                   //       Usage Page (Generic Desktop)
    0x09, 0x30,                   //       Usage (X)
    0x15, 0x00, 0x25, 0x01,       //       Logical 0..1
    0x75, 0x01, 0x95, 0x01,       //       Report Size 1, Count 1
    0x91, 0x02,                   //       Output (Data, Variable, Absolute)
    0xc0,                         //     End Collection
    0x05, 0x0f,                   //     Usage Page (PID)
    0x09, 0x56,                   //     Usage (Direction Enable)
    0x91, 0x02,                   //     Output (Data, Variable, Absolute): 1 bit
    0x95, 0x06, 0x91, 0x03,       //     Count 6, Output (Constant): padding
    0x09, 0x57,                   //     Usage (Direction)
    0xa1, 0x02,                   //     Collection (Logical)
    0x0b, 0x01, 0x00, 0x0a, 0x00, //       Usage (Ordinal: Instance 1)
    0x66, 0x14, 0x00,             //       Unit (English rotation: degrees)
    0x55, 0x0e,                   //       Unit Exponent (-2)
    0x15, 0x00, 0x27, 0x9f, 0x8c, 0x00, 0x00, // Logical 0..35999
    0x75, 0x10, 0x95, 0x01,       //       Report Size 16, Count 1
    0x91, 0x02,                   //       Output (Data, Variable, Absolute)
    0x65, 0x00, 0x55, 0x00,       //       Unit (none), Unit Exponent (0)
    0xc0,                         //     End Collection
    0xc0,                         //   End Collection
    // ---- output 0x02: Set Envelope
    0x09, 0x5a,                   //   Usage (Set Envelope Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x02,                   //     Report ID 2
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x5b, 0x09, 0x5d,       //     Usage (Attack Level), (Fade Level)
    0x15, 0x00, 0x26, 0x10, 0x27, //     Logical 0..10000
    0x75, 0x10, 0x95, 0x02,       //     Report Size 16, Count 2
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x5c, 0x09, 0x5e,       //     Usage (Attack Time), (Fade Time)
    0x15, 0x00, 0x27, 0xff, 0xff, 0x00, 0x00, // Logical 0..65535
    0x66, 0x01, 0x10, 0x55, 0x0d, //     Unit (seconds), Exponent (-3)
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x65, 0x00, 0x55, 0x00,       //     Unit (none), Unit Exponent (0)
    0xc0,                         //   End Collection
    // ---- output 0x03: Set Condition
    0x09, 0x5f,                   //   Usage (Set Condition Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x03,                   //     Report ID 3
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x23,                   //     Usage (Parameter Block Offset)
    0x15, 0x00, 0x25, 0x01,       //     Logical 0..1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x60, 0x09, 0x61, 0x09, 0x62, // Usage (CP Offset), (Positive Coefficient), (Negative Coefficient)
    0x16, 0xf0, 0xd8, 0x26, 0x10, 0x27, // Logical -10000..10000
    0x75, 0x10, 0x95, 0x03,       //     Report Size 16, Count 3
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x63, 0x09, 0x64, 0x09, 0x65, // Usage (Positive Saturation), (Negative Saturation), (Dead Band)
    0x15, 0x00, 0x26, 0x10, 0x27, //     Logical 0..10000
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0xc0,                         //   End Collection
    // ---- output 0x04: Set Periodic
    0x09, 0x6e,                   //   Usage (Set Periodic Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x04,                   //     Report ID 4
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x70,                   //     Usage (Magnitude)
    0x15, 0x00, 0x26, 0x10, 0x27, //     Logical 0..10000
    0x75, 0x10, 0x95, 0x01,       //     Report Size 16, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x6f,                   //     Usage (Offset)
    0x16, 0xf0, 0xd8, 0x26, 0x10, 0x27, // Logical -10000..10000
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x71,                   //     Usage (Phase)
    0x15, 0x00, 0x27, 0x9f, 0x8c, 0x00, 0x00, // Logical 0..35999
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x72,                   //     Usage (Period)
    0x15, 0x00, 0x27, 0xff, 0xff, 0x00, 0x00, // Logical 0..65535
    0x66, 0x01, 0x10, 0x55, 0x0d, //     Unit (seconds), Exponent (-3)
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x65, 0x00, 0x55, 0x00,       //     Unit (none), Unit Exponent (0)
    0xc0,                         //   End Collection
    // ---- output 0x05: Set Constant Force
    0x09, 0x73,                   //   Usage (Set Constant Force Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x05,                   //     Report ID 5
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x70,                   //     Usage (Magnitude)
    0x16, 0xf0, 0xd8, 0x26, 0x10, 0x27, // Logical -10000..10000
    0x75, 0x10, 0x95, 0x01,       //     Report Size 16, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0xc0,                         //   End Collection
    // ---- output 0x06: Set Ramp
    0x09, 0x74,                   //   Usage (Set Ramp Force Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x06,                   //     Report ID 6
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x75, 0x09, 0x76,       //     Usage (Ramp Start), (Ramp End)
    0x16, 0xf0, 0xd8, 0x26, 0x10, 0x27, // Logical -10000..10000
    0x75, 0x10, 0x95, 0x02,       //     Report Size 16, Count 2
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0xc0,                         //   End Collection
    // ---- output 0x0A: Effect Operation
    0x09, 0x77,                   //   Usage (Effect Operation Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x0a,                   //     Report ID 10
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0x09, 0x78,                   //     Usage (Effect Operation)
    0xa1, 0x02,                   //     Collection (Logical)
    0x09, 0x79, 0x09, 0x7a, 0x09, 0x7b, // Op Effect Start, Start Solo, Stop
    0x15, 0x01, 0x25, 0x03,       //       Logical 1..3
    0x91, 0x00,                   //       Output (Data, Array, Absolute)
    0xc0,                         //     End Collection
    0x09, 0x7c,                   //     Usage (Loop Count)
    0x15, 0x00, 0x26, 0xff, 0x00, //     Logical 0..255
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0xc0,                         //   End Collection
    // ---- output 0x0B: Block Free
    0x09, 0x90,                   //   Usage (PID Block Free Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x0b,                   //     Report ID 11
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0xc0,                         //   End Collection
    // ---- output 0x0C: Device Control
    0x09, 0x95,                   //   Usage (PID Device Control Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x0c,                   //     Report ID 12
    0x09, 0x96,                   //     Usage (PID Device Control)
    0xa1, 0x02,                   //     Collection (Logical)
    0x09, 0x97, 0x09, 0x98,       //       DC Enable Actuators, DC Disable Actuators
    0x09, 0x99, 0x09, 0x9a,       //       DC Stop All Effects, DC Device Reset
    0x09, 0x9b, 0x09, 0x9c,       //       DC Device Pause, DC Device Continue
    0x15, 0x01, 0x25, 0x06,       //       Logical 1..6
    0x75, 0x08, 0x95, 0x01,       //       Report Size 8, Count 1
    0x91, 0x00,                   //       Output (Data, Array, Absolute)
    0xc0,                         //     End Collection
    0xc0,                         //   End Collection
    // ---- output 0x0D: Device Gain
    0x09, 0x7d,                   //   Usage (Device Gain Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x0d,                   //     Report ID 13
    0x09, 0x7e,                   //     Usage (Device Gain)
    0x15, 0x00, 0x26, 0xff, 0x00, //     Logical 0..255
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0x91, 0x02,                   //     Output (Data, Variable, Absolute)
    0xc0,                         //   End Collection
    // ---- feature 0x11: Create New Effect
    0x09, 0xab,                   //   Usage (Create New Effect Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x11,                   //     Report ID 17
    0x09, 0x25,                   //     Usage (Effect Type)
    0xa1, 0x02,                   //     Collection (Logical)
    0x09, 0x26, 0x09, 0x27,       //       ET Constant Force, ET Ramp
    0x09, 0x30, 0x09, 0x31,       //       ET Square, ET Sine
    0x09, 0x32, 0x09, 0x33,       //       ET Triangle, ET Sawtooth Up
    0x09, 0x34, 0x09, 0x40,       //       ET Sawtooth Down, ET Spring
    0x09, 0x41, 0x09, 0x42,       //       ET Damper, ET Inertia
    0x09, 0x43,                   //       ET Friction
    0x15, 0x01, 0x25, 0x0b,       //       Logical 1..11
    0x75, 0x08, 0x95, 0x01,       //       Report Size 8, Count 1
    0xb1, 0x00,                   //       Feature (Data, Array, Absolute)
    0xc0,                         //     End Collection
    0x05, 0x01,                   //     Usage Page (Generic Desktop)
    0x09, 0x3b,                   //     Usage (Byte Count)
    0x15, 0x00, 0x26, 0xff, 0x01, //     Logical 0..511
    0x75, 0x10, 0x95, 0x01,       //     Report Size 16, Count 1
    0xb1, 0x02,                   //     Feature (Data, Variable, Absolute)
    0x05, 0x0f,                   //     Usage Page (PID)
    0xc0,                         //   End Collection
    // ---- feature 0x12: Block Load
    0x09, 0x89,                   //   Usage (PID Block Load Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x12,                   //     Report ID 18
    0x09, 0x22,                   //     Usage (Effect Block Index)
    0x15, 0x01, 0x25, 0x28,       //     Logical 1..40
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0xb1, 0x02,                   //     Feature (Data, Variable, Absolute)
    0x09, 0x8b,                   //     Usage (Block Load Status)
    0xa1, 0x02,                   //     Collection (Logical)
    0x09, 0x8c, 0x09, 0x8d, 0x09, 0x8e, // Block Load Success, Full, Error
    0x15, 0x01, 0x25, 0x03,       //       Logical 1..3
    0xb1, 0x00,                   //       Feature (Data, Array, Absolute)
    0xc0,                         //     End Collection
    0x09, 0xac,                   //     Usage (RAM Pool Available)
    0x15, 0x00, 0x27, 0xff, 0xff, 0x00, 0x00, // Logical 0..65535
    0x75, 0x10, 0x95, 0x01,       //     Report Size 16, Count 1
    0xb1, 0x02,                   //     Feature (Data, Variable, Absolute)
    0xc0,                         //   End Collection
    // ---- feature 0x13: PID Pool
    0x09, 0x7f,                   //   Usage (PID Pool Report)
    0xa1, 0x02,                   //   Collection (Logical)
    0x85, 0x13,                   //     Report ID 19
    0x09, 0x80,                   //     Usage (RAM Pool Size)
    0x15, 0x00, 0x27, 0xff, 0xff, 0x00, 0x00, // Logical 0..65535
    0x75, 0x10, 0x95, 0x01,       //     Report Size 16, Count 1
    0xb1, 0x02,                   //     Feature (Data, Variable, Absolute)
    0x09, 0x83,                   //     Usage (Simultaneous Effects Max)
    0x15, 0x00, 0x26, 0xff, 0x00, //     Logical 0..255
    0x75, 0x08, 0x95, 0x01,       //     Report Size 8, Count 1
    0xb1, 0x02,                   //     Feature (Data, Variable, Absolute)
    0x09, 0xa9, 0x09, 0xaa,       //     Usage (Device Managed Pool), (Shared Parameter Blocks)
    0x15, 0x00, 0x25, 0x01,       //     Logical 0..1
    0x75, 0x01, 0x95, 0x02,       //     Report Size 1, Count 2
    0xb1, 0x02,                   //     Feature (Data, Variable, Absolute)
    0x95, 0x06, 0xb1, 0x03,       //     Count 6, Feature (Constant): padding
    0xc0,                         //   End Collection
    0xc0,                         // End Collection
];
