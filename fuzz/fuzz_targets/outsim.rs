//! Fuzz target: the LFS OutSim classic decoder (64 and 68 bytes).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rig_protocols::telemetry::lfs::outsim::decode(data);
});
