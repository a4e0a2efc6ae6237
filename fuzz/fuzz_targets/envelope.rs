//! Fuzz target: rig-physics' envelope files (envelope::file::parse: TOML, fields, ranges,
//! ordering): any text gives an envelope or an error, never a panic; a parsed envelope has at
//! least two points at strictly ascending, finite speeds and writes back to the same envelope.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rig_physics::envelope::file;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(envelope) = file::parse(text, "fuzz-envelope.toml") {
        assert!(envelope.points.len() >= 2);
        assert!(envelope
            .points
            .windows(2)
            .all(|pair| pair[0].speed_mps < pair[1].speed_mps && pair[1].speed_mps.is_finite()));
        let again = file::parse(&file::to_toml(&envelope), "rewritten").expect("rewritten file");
        assert_eq!(again, envelope);
    }
});
