//! Fuzz target: the F1 24/25 game decoder (any bytes: Ok or Err, never a panic or a
//! non-finite value in the sample).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(sample) = rig_protocols::game::f1::decode(data) {
        let text = format!("{sample:?}");
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    }
});
