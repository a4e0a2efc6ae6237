//! Fuzz target: rig-physics' track files (Track::from_toml: parse, validation, building the
//! ribbon): any text gives a track or an error, never a panic; a built track has a finite,
//! positive length.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(track) = rig_physics::track::Track::from_toml(text, "fuzz-track.toml") {
        let length = track.length_m();
        assert!(length.is_finite() && length > 0.0, "{length}");
    }
});
