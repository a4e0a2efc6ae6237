//! Fuzz target: the rigd recording decoder (`rigd replay`'s input) - any bytes give a
//! recording or an error, never a panic; a decoded recording encodes back to the same bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(recording) = rigd::replay::format::decode(data) {
        assert_eq!(rigd::replay::format::encode(&recording), data);
    }
});
