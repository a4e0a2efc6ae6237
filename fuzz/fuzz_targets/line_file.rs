//! Fuzz target: rig-physics' line files (`rigd line`, `[sim] robot_line`): any text parses
//! to a line file or an error, never a panic; a parsed file writes back to text that parses
//! to the same number of offsets, and checking it against the road car on the `corners`
//! track gives its offsets or a typed error, never a panic.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use rig_physics::line_search::drive::Course;
use rig_physics::line_search::file::LineFile;

fn course() -> &'static Course {
    static COURSE: OnceLock<Course> = OnceLock::new();
    COURSE.get_or_init(|| {
        Course::new(
            rig_physics::track::builtin("corners").expect("built-in track"),
            rig_physics::builtin::car("road").expect("built-in car"),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(file) = LineFile::parse(text, "fuzz-line.toml") else {
        return;
    };
    let again = LineFile::parse(&file.to_toml(), "rewritten.toml").expect("a written file parses");
    assert_eq!(again.offsets_m.len(), file.offsets_m.len());
    if let Ok(offsets) = file.check(course(), "fuzz-line.toml") {
        assert!(offsets.iter().all(|x| x.is_finite()));
    }
});
