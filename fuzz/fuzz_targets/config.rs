//! Fuzz target: rigd's configuration file (rig_config::parse): any text gives a configuration
//! or problems, each placed on a line of the text, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(problems) = rig_config::parse(text, "fuzz.toml") {
        assert!(!problems.is_empty());
        let lines = text.lines().count().max(1);
        for problem in &problems {
            assert!(problem.line <= lines + 1, "{problem:?} past line {lines}");
        }
    }
});
