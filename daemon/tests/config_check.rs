//! `rigd check-config` with a car file: one parse of rigd.toml, the car file checked by the
//! simulator's parser, and both places named from the TOML parser's spans: the `[sim]` key
//! that names the car (here written as an inline table) and, inside the car file, the value
//! at fault (here the rear corners written as an inline table).

use std::path::{Path, PathBuf};

mod support;
use support::rigd;

#[path = "../../physics/tests/common/inline_rear.rs"]
mod inline_rear;

fn road_car() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../physics/data/cars/road.toml");
    std::fs::read_to_string(path).unwrap()
}

/// The road car with its `[suspension.rear]` table rewritten inline under `[suspension]` and
/// the rear bump stop moved beyond the rear travel; returns the text and the line and column
/// of the bad key.
fn car_with_inline_rear_suspension() -> (String, usize, usize) {
    let car = inline_rear::inline_rear_with_bad_bump_stop(&road_car());
    let line = car.lines().position(|l| l.starts_with("rear = {")).unwrap() + 1;
    let column = car
        .lines()
        .nth(line - 1)
        .unwrap()
        .find("bump_stop_engage_m")
        .unwrap()
        + 1;
    (car, line, column)
}

/// A fresh directory for one test (tests run in parallel).
fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rigd-config-check-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_bad_car_file_is_named_at_both_places() {
    let dir = scratch_dir("bad-car");
    let (car, car_line, car_column) = car_with_inline_rear_suspension();
    let car_path = dir.join("inline-car.toml");
    std::fs::write(&car_path, car).unwrap();
    let config = dir.join("rigd.toml");
    std::fs::write(
        &config,
        format!(
            "sim = {{ robots = 1, car = \"{}\" }}\n\n[loop]\nrate_hz = 500\n",
            car_path.display()
        ),
    )
    .unwrap();

    let (code, _, err) = rigd(&["check-config", config.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, Some(2), "{err}");
    let config_place = format!("{}:1:21: sim.car: car file is invalid: ", config.display());
    let car_place = format!(
        "{}:{car_line}:{car_column}: suspension.rear.bump_stop_engage_m: expected a value \
         between 0 and 0.18",
        car_path.display()
    );
    assert!(
        err.contains(&config_place),
        "`{config_place}` missing:\n{err}"
    );
    assert!(err.contains(&car_place), "`{car_place}` missing:\n{err}");
    assert!(car_column > 100, "the key sits deep in the inline table");
}

#[test]
fn a_good_car_file_in_a_dotted_key_passes() {
    let dir = scratch_dir("good-car");
    let car_path = dir.join("road-copy.toml");
    std::fs::write(&car_path, road_car()).unwrap();
    let config = dir.join("rigd.toml");
    std::fs::write(&config, format!("sim.car = \"{}\"\n", car_path.display())).unwrap();
    let (code, out, err) = rigd(&["check-config", config.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.ends_with("rigd.toml: ok\n"), "{out}");
}
