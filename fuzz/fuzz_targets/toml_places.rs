//! Fuzz target: rig-toml's field locator, which every config, car and track message runs on
//! the user's text, broken or not (a recovering parse): any text gives places, never a panic,
//! and every place found is a line and column inside the text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let places = rig_toml::Places::parse(text);
    let lines = text.lines().count().max(1);
    // Candidate paths: the text's own bare words, alone and dotted in pairs.
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .filter(|word| !word.is_empty())
        .take(16)
        .collect();
    let pairs = words.windows(2).map(|pair| format!("{}.{}", pair[0], pair[1]));
    for path in words.iter().map(|word| word.to_string()).chain(pairs) {
        if let Some((line, column)) = places.position(text, &path) {
            assert!(line >= 1 && line <= lines + 1 && column >= 1, "{path}: {line}:{column}");
        }
    }
});
