//! Fuzz target: size/magic detection, decoding and the dashboard view of any datagram.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = rig_protocols::telemetry::detect(data);
    if let Ok(decoded) = rig_protocols::telemetry::decode_any(data) {
        let _ = decoded.dash_view();
    }
});
