//! Fuzz target: the HID report-descriptor parser and PID layout finder (what rigd reads from
//! a direct-drive base's hidraw node) - any bytes give a layout or an error, never a panic;
//! every report encoded from a layout found keeps its magnitude inside the field's range.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rigd::ffb::pid::{encode, parse, EffectKind, PidLayout};

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
