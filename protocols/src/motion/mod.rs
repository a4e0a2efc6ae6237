//! Motion-controller frames: how normalised actuator positions (-1 ..= 1) become the bytes a
//! DIY motion controller (SMC3, AASD-15A Arduino sketches, Motion4Sim, stepper sketches,
//! knaufinator) expects on its serial line or UDP port.
//!
//! Everything here is pure and allocation-free per frame: encoders are built once from the
//! config and then write into a reusable fixed-size [`FrameBuffer`]. Value scaling follows the
//! SimTools interface-plugin rule (centre at `2^(N-1) - 1`, round half to even), so firmware
//! written for SimTools or FlyPT Mover sees the same numbers from rigd.

pub mod budget;
pub mod encoder;
pub mod presets;
pub mod scaling;
pub mod template;

pub use budget::{line_bits_per_byte, Parity, SerialBudget};
pub use encoder::{Encoder, FrameBuffer, FrameKind, FrameValues, MAX_FRAME_BYTES};
pub use presets::{preset, Preset, PRESET_NAMES};
pub use scaling::{axis_to_counts, counts_to_axis, MAX_BITS, MIN_BITS};
pub use template::{parse_escapes, NumberFormat, TemplateEncoder, TemplateError, MAX_AXES};
