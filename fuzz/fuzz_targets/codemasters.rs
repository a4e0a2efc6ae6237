//! Fuzz target: the Codemasters extradata=3 decoder.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rig_protocols::telemetry::codemasters::decode(data);
});
