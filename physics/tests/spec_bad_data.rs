//! Bad car documents fail with an error naming the origin, line/column, field and what is
//! expected; nothing panics (including on arbitrary edits of a valid document).

use proptest::prelude::*;
use rig_physics::builtin;
use rig_physics::CarSpec;

const ORIGIN: &str = "cars/test.toml";

#[path = "common/inline_rear.rs"]
mod inline_rear;

fn road() -> String {
    builtin::car_text("road")
        .expect("built-in road car")
        .to_string()
}

fn replace_line(text: &str, key: &str, new_line: &str) -> String {
    let mut done = false;
    text.lines()
        .map(|l| {
            if !done && l.trim_start().starts_with(key) {
                done = true;
                new_line.to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle in text")
        + 1
}

#[test]
fn built_in_cars_parse() {
    for name in builtin::car_names() {
        builtin::car(name).unwrap_or_else(|e| panic!("built-in car {name}: {e}"));
    }
    let err = builtin::car("lorry").unwrap_err();
    assert!(
        err.message.contains("road") && err.message.contains("race"),
        "{err}"
    );
}

#[test]
fn unknown_field_is_named_with_its_line() {
    let text = road().replace("mass_kg = 1300.0", "mass_kg = 1300.0\nmass_lb = 2866.0");
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.origin, ORIGIN);
    assert_eq!(err.field, "mass_lb");
    assert_eq!(err.line, line_of(&text, "mass_lb"));
    assert!(err.column >= 1);
    assert!(err.message.contains("unknown field"), "{err}");
    assert!(
        err.message.contains("mass_kg"),
        "should list the expected fields: {err}"
    );
}

#[test]
fn missing_field_is_named() {
    let text = replace_line(&road(), "wheelbase_m", "");
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "wheelbase_m");
    assert!(err.message.contains("missing field"), "{err}");
    assert!(err.line > 0, "points at the table that lacks it: {err}");
}

#[test]
fn negative_mass_is_out_of_range() {
    let text = road().replace("mass_kg = 1300.0", "mass_kg = -1300.0");
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "chassis.mass_kg");
    assert_eq!(err.line, line_of(&text, "mass_kg = -1300.0"));
    assert_eq!(err.column, 1);
    assert!(err.message.contains("between 50 and 50000"), "{err}");
    assert!(err.message.contains("-1300"), "{err}");
}

#[test]
fn zero_radius_is_out_of_range() {
    let text = road().replace("unloaded_radius_m = 0.313", "unloaded_radius_m = 0.0");
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "tyre.unloaded_radius_m");
    assert_eq!(err.line, line_of(&text, "unloaded_radius_m = 0.0"));
    assert!(err.message.contains("expected a value between"), "{err}");
}

#[test]
fn body_box_must_enclose_the_centre_of_gravity() {
    // A roof below the centre of gravity (0.52 m) would let an inverted car rest on nothing.
    let text = road().replace("body_roof_height_m = 1.45", "body_roof_height_m = 0.40");
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "chassis.body_roof_height_m");
    assert_eq!(err.line, line_of(&text, "body_roof_height_m = 0.40"));
    assert!(err.message.contains("between 0.52 and 5"), "{err}");
    // A floor above it.
    let text = road().replace("body_floor_height_m = 0.16", "body_floor_height_m = 0.60");
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "chassis.body_floor_height_m");
    assert!(err.message.contains("between 0.02 and 0.52"), "{err}");
    // Both are required (every car document says where its body is).
    let text = replace_line(&road(), "body_roof_height_m", "");
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "body_roof_height_m");
    assert!(err.message.contains("missing field"), "{err}");
}

#[test]
fn inverted_limits_are_rejected_in_the_right_table() {
    // Rear bump stop beyond the rear travel: the error points at the rear table's line.
    let text = inline_rear::inline_rear_with_bad_bump_stop(&road());
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "suspension.rear.bump_stop_engage_m");
    assert_eq!(err.line, line_of(&text, "bump_stop_engage_m = 0.25"));
    assert!(err.message.contains("between 0 and 0.18"), "{err}");

    // Declared performance band upside down.
    let text = road().replace(
        "zero_to_100_kph_s_max = 11.5",
        "zero_to_100_kph_s_max = 7.0",
    );
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "performance.zero_to_100_kph_s_max");
    assert!(err.message.contains("between 8.5 and"), "{err}");
}

#[test]
fn error_display_names_everything() {
    let text = road().replace("mass_kg = 1300.0", "mass_kg = -1.0");
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.starts_with(&format!("{ORIGIN}:{}:1: chassis.mass_kg:", err.line)),
        "{shown}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn arbitrary_edits_never_panic(pos in 0usize..4000, len in 0usize..20, junk in "[ -~\n]{0,12}") {
        let text = road();
        let start = pos.min(text.len());
        let end = (start + len).min(text.len());
        if text.is_char_boundary(start) && text.is_char_boundary(end) {
            let edited = format!("{}{}{}", &text[..start], junk, &text[end..]);
            match CarSpec::from_toml(&edited, ORIGIN) {
                Ok(spec) => {
                    // Anything accepted must also build and step a car without NaN.
                    let mut world = rig_physics::World::new(rig_physics::track::Track::flat());
                    let id = world.add_car(&spec);
                    for _ in 0..200 { world.step(0.001); }
                    let t = world.telemetry(id);
                    prop_assert!(t.position_m.iter().all(|v| v.is_finite()));
                }
                Err(e) => prop_assert_eq!(e.origin, ORIGIN),
            }
        }
    }
}

/// Column (1-based) of `needle` on the line that holds it.
fn column_of(text: &str, needle: &str) -> usize {
    let line = text.lines().find(|l| l.contains(needle)).unwrap();
    line.find(needle).unwrap() + 1
}

#[test]
fn a_value_in_an_inline_table_is_placed_at_its_own_key() {
    // The rear corners written as one inline table under [suspension], with a bump stop
    // beyond the travel: the error points into that line, not at the front table's key.
    let text = road();
    let rear_start = text.find("[suspension.rear]").unwrap();
    let rear_end = rear_start + text[rear_start..].find("\n\n").unwrap();
    let pairs: Vec<String> = text[rear_start..rear_end]
        .lines()
        .skip(1)
        .map(|l| l.replace("bump_stop_engage_m = 0.15", "bump_stop_engage_m = 0.25"))
        .collect();
    let inline = format!("[suspension]\nrear = {{ {} }}\n", pairs.join(", "));
    let front_start = text.find("[suspension.front]").unwrap();
    let text = format!(
        "{}{inline}\n{}{}",
        &text[..front_start],
        &text[front_start..rear_start],
        &text[rear_end..]
    );
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "suspension.rear.bump_stop_engage_m", "{err}");
    assert_eq!(err.line, line_of(&text, "rear = {"), "{err}");
    assert_eq!(
        err.column,
        column_of(&text, "bump_stop_engage_m = 0.25"),
        "{err}"
    );
    assert!(err.column > 100, "deep inside the inline table: {err}");
    assert!(err.message.contains("between 0 and 0.18"), "{err}");
}

#[test]
fn a_dotted_key_is_placed_at_its_last_segment() {
    // `[performance]` written as dotted keys before the first table, band upside down.
    let text = road();
    let table = text.find("[performance]").unwrap();
    let dotted: String = text[table..]
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("performance.{}\n", l.replace("= 11.5", "= 7.0")))
        .collect();
    let chassis = text.find("[chassis]").unwrap();
    let text = format!("{}{dotted}\n{}", &text[..chassis], &text[chassis..table]);
    let err = CarSpec::from_toml(&text, ORIGIN).unwrap_err();
    assert_eq!(err.field, "performance.zero_to_100_kph_s_max", "{err}");
    let line = line_of(&text, "performance.zero_to_100_kph_s_max");
    assert_eq!((err.line, err.column), (line, 13), "{err}");
    assert!(
        err.to_string().starts_with(&format!(
            "{ORIGIN}:{line}:13: performance.zero_to_100_kph_s_max:"
        )),
        "{err}"
    );
}
