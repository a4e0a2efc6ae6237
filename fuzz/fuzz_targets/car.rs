//! Fuzz target: rig-physics' car files (CarSpec::from_toml: parse, tyre reference, range and
//! consistency checks): any text gives a car or an error with file and line, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = rig_physics::spec::CarSpec::from_toml(text, "fuzz-car.toml");
    }
});
