//! Fuzz target: the four Forza decoders (Sled, FM7 Dash, Horizon, FM2023).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rig_protocols::telemetry::forza;

fuzz_target!(|data: &[u8]| {
    let _ = forza::decode_sled(data);
    let _ = forza::decode_fm7_dash(data);
    let _ = forza::decode_horizon(data);
    let _ = forza::decode_fm2023(data);
});
