//! Fuzz target: the BeamNG MotionSim decoder.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rig_protocols::telemetry::beamng::decode(data);
});
