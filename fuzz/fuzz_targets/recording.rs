//! Fuzz target: the rigd recording decoder (`rigd replay`'s input) - any bytes give a
//! recording or an error, never a panic; a decoded recording of the current format version
//! encodes back to the same bytes, and one of an older version (read, then written in the
//! current version) reads back and encodes to the same bytes again.
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
        let encoded = format::encode(&recording);
        if data[8..10] == format::FORMAT_VERSION.to_le_bytes() {
            assert_eq!(encoded, data);
        } else {
            let again = format::decode(&encoded).expect("a re-encoded old recording decodes");
            assert_eq!(format::encode(&again), encoded);
        }
    }
});
