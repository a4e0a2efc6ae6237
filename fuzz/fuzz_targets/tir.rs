//! Fuzz target: rig-physics' tyre property file (.tir) parser: any bytes give a coefficient
//! set or an error with file and line, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = rig_physics::tyre::tir::parse(text, "fuzz.tir");
    }
});
