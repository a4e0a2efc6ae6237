//! Fuzz target: the game bridge's auto-detection (`[source] game = "auto"`): any datagram is
//! routed by its signature to one decoder or refused - never a panic, and no NaN or infinity
//! in a sample whichever decoder took it.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(sample) = rig_protocols::game::decode(None, data) {
        let text = format!("{sample:?}");
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    }
});
