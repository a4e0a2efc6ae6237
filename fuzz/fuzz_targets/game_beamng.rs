//! Fuzz target: the game bridge's beamng decoder (rig_protocols::game::beamng): arbitrary bytes give
//! a sample or an error, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rig_protocols::game::beamng::decode(data);
});
