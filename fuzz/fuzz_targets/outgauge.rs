//! Fuzz target: the LFS OutGauge decoder (92 and 96 bytes).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rig_protocols::telemetry::lfs::outgauge::decode(data);
});
