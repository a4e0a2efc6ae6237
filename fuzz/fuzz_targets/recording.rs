//! Fuzz target: the rigd recording decoder (`rigd replay`'s input) - any bytes give a
//! recording or an error, never a panic; a decoded recording encodes back to the same bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

/// The daemon's recording format, compiled here from its source: it is pure code that needs
/// only rig-physics, so the fuzz build leaves out the daemon and its device and runtime
/// dependencies (half the build time). Its writer-side items are not all called here.
#[allow(dead_code)]
#[path = "../../daemon/src/replay/format.rs"]
mod format;

fuzz_target!(|data: &[u8]| {
    if let Ok(recording) = format::decode(data) {
        assert_eq!(format::encode(&recording), data);
    }
});
