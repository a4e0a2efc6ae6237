//! Fuzz target: the native rigd packet decoder and its conversion back to a frame.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(packet) = rig_protocols::telemetry::native::decode(data) {
        let _ = packet.to_frame();
    }
});
