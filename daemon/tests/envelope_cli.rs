//! `rigd envelope` through the real binary: what it says, and its exit code, for a car it
//! cannot load, an output path it cannot write, and envelope files that are malformed or were
//! made for another car or another setup of the car (`--check`): exit 2, the problem and the
//! fix on standard error; a file that fits its car passes the check with exit 0.

mod support;
use support::{rigd, TempDir};

fn repo(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_car_it_cannot_load_or_an_unwritable_output_is_exit_2_with_the_fix() {
    let (code, _, err) = rigd(&["envelope", "--car", "hovercraft"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--car: ") && err.contains("(fix: "), "{err}");
    // The output file is created before measuring: the error comes at once.
    let started = std::time::Instant::now();
    let (code, _, err) = rigd(&[
        "envelope",
        "--car",
        "road",
        "--out",
        "/nonexistent/dir/road.toml",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("cannot write the envelope file /nonexistent/dir/road.toml")
            && err.contains("(fix: a writable path for --out)"),
        "{err}"
    );
    assert!(
        started.elapsed().as_secs_f64() < 5.0,
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn envelope_files_for_another_car_or_setup_or_malformed_are_exit_2_with_the_fix() {
    let shipped = repo("physics/data/envelopes/road.toml");
    let (code, out, err) = rigd(&["envelope", "--car", "road", "--check", &shipped]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("a measured envelope of car `road` (this setup)"),
        "{out}"
    );

    let (code, _, err) = rigd(&["envelope", "--car", "race", "--check", &shipped]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("was made for car `road`, not `race`")
            && err.contains("(fix: re-run `rigd envelope --car race`"),
        "{err}"
    );

    let dir = TempDir::new("envelope-cli");
    let road = std::fs::read_to_string(repo("physics/data/cars/road.toml")).unwrap();
    let heavier = dir.file(
        "road.toml",
        &road.replacen("mass_kg = 1300.0", "mass_kg = 1350.0", 1),
    );
    let (code, _, err) = rigd(&[
        "envelope",
        "--car",
        heavier.to_str().unwrap(),
        "--check",
        &shipped,
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("was made for another setup of car `road`")
            && err.contains("re-run `rigd envelope --car road`"),
        "{err}"
    );

    let text = std::fs::read_to_string(&shipped).unwrap();
    let malformed = dir.file("bad.toml", &text.replacen("braking_mps2", "braking_g", 1));
    let (code, _, err) = rigd(&[
        "envelope",
        "--car",
        "road",
        "--check",
        malformed.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("bad.toml:") && err.contains("braking_g") && err.contains("(fix: "),
        "{err}"
    );
}
