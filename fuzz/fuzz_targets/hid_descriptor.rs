//! Fuzz target: the HID report-descriptor parser and PID layout finder (what rigd reads from
//! a direct-drive base's hidraw node) - any bytes give a layout or an error, never a panic;
//! every report encoded from a layout found keeps its magnitude inside the field's range.
#![no_main]
use libfuzzer_sys::fuzz_target;

/// The daemon's PID protocol (`daemon/src/ffb/pid/`, pure code, no I/O), compiled here from its
/// source so the fuzz build leaves out the daemon and its device and runtime dependencies
/// (half the build time). Not every item is called or re-export used here.
#[allow(dead_code, unused_imports)]
#[path = "../../daemon/src/ffb/pid/mod.rs"]
mod pid;

/// The one name the PID encoder imports from the rest of the daemon (`crate::ffb::stage`).
mod ffb {
    pub mod stage {
        /// The daemon's `ffb::stage::ConditionLevel`, field for field (the encoder reads both
        /// fields; a change there that the encoder uses fails this build rather than drifting).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct ConditionLevel {
            pub coefficient: i16,
            pub saturation: i16,
        }
    }
}

use pid::{encode, parse, EffectKind, PidLayout};

fuzz_target!(|data: &[u8]| {
    let Ok(descriptor) = parse(data) else {
        return;
    };
    let Ok(layout) = PidLayout::from_descriptor(&descriptor) else {
        return;
    };
    let magnitude = layout.set_constant_force.magnitude;
    for level in [i16::MIN, -1, 0, 1, i16::MAX] {
        let report = layout.encode_set_constant_force(1, level);
        let value = encode::get(&report, magnitude).unwrap_or(0);
        assert!(value >= magnitude.min && value <= magnitude.max);
    }
    let _ = layout.encode_set_effect(1, EffectKind::Constant, 30);
    let _ = layout.decode_block_load(&layout.block_load_buffer());
});
