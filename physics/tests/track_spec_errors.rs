//! Bad track documents: every problem comes back as a `DataError` naming the document, the
//! line and column, the field and what is expected; nothing panics (property tested).

use proptest::prelude::*;
use rig_physics::track::Track;
use rig_physics::DataError;

const GOOD: &str = r#"name = "stadium"
half_width_m = 6.0
runoff_m = 10.0

[[piece]]
kind = "straight"
length_m = 200.0

[[piece]]
kind = "arc"
radius_m = 50.0
angle_deg = 180.0
turn = "left"

[[piece]]
kind = "straight"
length_m = 200.0

[[piece]]
kind = "arc"
radius_m = 50.0
angle_deg = 180.0
turn = "left"
"#;

fn error_of(text: &str) -> DataError {
    Track::from_toml(text, "tracks/bad.toml").expect_err("the document should be refused")
}

fn assert_points_at(err: &DataError, line: usize, field: &str, words: &str) {
    assert_eq!(err.origin, "tracks/bad.toml", "{err}");
    assert_eq!(err.line, line, "{err}");
    assert!(err.column > 0, "{err}");
    assert_eq!(err.field, field, "{err}");
    assert!(err.message.contains(words), "{err}");
    let shown = err.to_string();
    assert!(
        shown.starts_with(&format!("tracks/bad.toml:{line}:")),
        "{shown}"
    );
}

#[test]
fn the_good_document_builds() {
    let track = Track::from_toml(GOOD, "tracks/good.toml").unwrap();
    assert!((track.length_m() - (400.0 + 100.0 * std::f64::consts::PI)).abs() < 1e-9);
}

#[test]
fn an_unknown_field_is_named_with_its_line() {
    let text = GOOD.replace("runoff_m = 10.0", "runoff_m = 10.0\nrunof_width_m = 3.0");
    let err = error_of(&text);
    assert_points_at(&err, 4, "runof_width_m", "unknown field");
}

#[test]
fn an_unknown_field_inside_a_piece_is_named() {
    let text = GOOD.replace(
        "length_m = 200.0\n\n[[piece]]\nkind = \"arc\"",
        "lenght_m = 200.0\n\n[[piece]]\nkind = \"arc\"",
    );
    let err = error_of(&text);
    assert_eq!(err.field, "lenght_m", "{err}");
    assert_eq!(err.line, 7, "{err}");
}

#[test]
fn a_missing_field_is_named() {
    let text = GOOD.replace("half_width_m = 6.0\n", "");
    let err = error_of(&text);
    assert_eq!(err.field, "half_width_m", "{err}");
    assert!(err.message.contains("missing field"), "{err}");
}

#[test]
fn a_zero_radius_points_at_that_piece() {
    // The second arc's radius, not the first.
    let at = GOOD.rfind("radius_m = 50.0").unwrap();
    let text = format!(
        "{}radius_m = 0.0{}",
        &GOOD[..at],
        &GOOD[at + "radius_m = 50.0".len()..]
    );
    let err = error_of(&text);
    assert_points_at(&err, 21, "piece[3].radius_m", "expected a positive value");
}

#[test]
fn a_negative_length_is_refused() {
    let text = GOOD.replacen("length_m = 200.0", "length_m = -5.0", 1);
    let err = error_of(&text);
    assert_points_at(&err, 7, "piece[0].length_m", "got -5");
}

#[test]
fn an_arc_without_direction_names_turn() {
    let text = GOOD.replacen("turn = \"left\"\n", "", 1);
    let err = error_of(&text);
    assert_eq!(err.field, "piece[1].turn", "{err}");
    assert_eq!(err.line, 9, "{err}: the piece's header");
    assert!(err.message.contains("\"left\" or \"right\""), "{err}");
}

#[test]
fn a_field_of_another_piece_kind_is_refused() {
    let text = GOOD.replacen("length_m = 200.0", "length_m = 200.0\nangle_deg = 30.0", 1);
    let err = error_of(&text);
    assert_points_at(
        &err,
        8,
        "piece[0].angle_deg",
        "not used by a Straight piece",
    );
}

#[test]
fn an_unknown_surface_is_refused_with_the_choices() {
    let text = GOOD.replace(
        "runoff_m = 10.0",
        "runoff_m = 10.0\nrunoff_surface = \"sand\"",
    );
    let err = error_of(&text);
    assert_eq!(err.line, 4, "{err}");
    assert!(
        err.message.contains("sand") && err.message.contains("gravel"),
        "{err}"
    );
}

#[test]
fn a_lap_that_does_not_close_says_by_how_much() {
    let text = GOOD.replacen("length_m = 200.0", "length_m = 230.0", 1);
    let err = error_of(&text);
    assert_eq!(err.field, "piece", "{err}");
    assert!(
        err.message.contains("does not close") && err.message.contains("30.0 m east"),
        "{err}"
    );
    assert_eq!(err.line, 5, "{err}: the first piece");
}

#[test]
fn a_barrier_past_the_centre_of_a_turn_is_refused() {
    let text = GOOD.replace("runoff_m = 10.0", "runoff_m = 40.0");
    let err = error_of(&text);
    assert_points_at(&err, 11, "piece[1].radius_m", "left barrier is 46.0 m");
}

#[test]
fn the_last_piece_must_end_on_the_start_line_values() {
    let text = format!("{GOOD}bank_deg = 5.0\n");
    let err = error_of(&text);
    assert_points_at(&err, 24, "piece[3].bank_deg", "ends on the start line");
}

#[test]
fn an_undrivable_climb_is_refused() {
    let text = GOOD.replacen(
        "length_m = 200.0",
        "length_m = 200.0\nend_height_m = 90.0",
        1,
    );
    let err = error_of(&text);
    assert_points_at(&err, 8, "piece[0].end_height_m", "grade");
}

#[test]
fn a_zone_beyond_the_lap_and_bad_sectors_are_refused() {
    let text = format!("{GOOD}\n[[zone]]\nsurface = \"wet\"\nband = \"track\"\nside = \"both\"\nfrom_m = 100.0\nto_m = 9000.0\n");
    let err = error_of(&text);
    assert_points_at(&err, 30, "zone[0].to_m", "beyond the");
    let text = GOOD.replace(
        "runoff_m = 10.0",
        "runoff_m = 10.0\nsector_starts_m = [300.0, 200.0]",
    );
    let err = error_of(&text);
    assert_points_at(&err, 4, "sector_starts_m", "increasing");
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
        let _ = Track::from_toml(&text, "fuzz");
    }

    #[test]
    fn arbitrary_numbers_in_a_valid_shape_build_or_explain(
        half_width in -5.0f64..60.0,
        runoff in -5.0f64..80.0,
        straight in -10.0f64..500.0,
        radius in -10.0f64..300.0,
        angle in -10.0f64..400.0,
        bank in -60.0f64..60.0,
        height in -50.0f64..50.0,
    ) {
        let text = format!(
            "name = \"p\"\nhalf_width_m = {half_width}\nrunoff_m = {runoff}\n\
             [[piece]]\nkind = \"straight\"\nlength_m = {straight}\nend_height_m = {height}\n\
             [[piece]]\nkind = \"arc\"\nradius_m = {radius}\nangle_deg = {angle}\nturn = \"left\"\nbank_deg = {bank}\n\
             [[piece]]\nkind = \"straight\"\nlength_m = {straight}\n\
             [[piece]]\nkind = \"arc\"\nradius_m = {radius}\nangle_deg = {angle}\nturn = \"left\"\n"
        );
        match Track::from_toml(&text, "prop") {
            Ok(track) => prop_assert!(track.length_m() > 0.0),
            Err(err) => {
                prop_assert!(!err.field.is_empty(), "{}", err);
                prop_assert!(!err.message.is_empty());
            }
        }
    }
}

/// Surface properties and roughness: an out-of-range value, a slip scale on a rigid surface,
/// an unknown key and an unknown road class each point at their line with the fix.
#[test]
fn bad_surface_properties_point_at_their_line() {
    let with = |table: &str| GOOD.replace("runoff_m = 10.0", &format!("runoff_m = 10.0\n{table}"));
    // Lines: 1 name, 2 half_width_m, 3 runoff_m, 4 the table header, 5 its first key.
    let err = error_of(&with("[surface.wet]\nwater_film_mm = -1.0"));
    assert_points_at(&err, 5, "surface.wet.water_film_mm", "expected 0 to 50 mm");
    let err = error_of(&with("[surface.asphalt]\npeak_slip_scale = 1.5"));
    assert_points_at(
        &err,
        5,
        "surface.asphalt.peak_slip_scale",
        "set surface.asphalt.deformable = true or remove peak_slip_scale",
    );
    let err = error_of(&with("[surface.gravel]\nwater_depth_mm = 1.0"));
    assert_eq!(err.line, 5, "{err}");
    assert!(err.message.contains("unknown field"), "{err}");
    let err = error_of(&with("[roughness]\niso8608_class = \"E\""));
    assert_eq!(err.line, 5, "{err}");
    assert!(
        err.message.contains('A') && err.message.contains('C'),
        "{err}"
    );
    // And a good one builds.
    let good = with("racing_surface = \"gravel\"\n[surface.gravel]\nwater_film_mm = 3.0\n[roughness]\niso8608_class = \"B\"");
    Track::from_toml(&good, "tracks/good.toml").unwrap();
}
