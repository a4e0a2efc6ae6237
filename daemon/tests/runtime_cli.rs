//! The CLI contract on the real binary: exit codes (0 ok, 2 bad config, 1 other),
//! `check-config` listing every problem, the JSON schema, `--help`.

mod support;
use support::rigd;

fn repo(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn check_config_accepts_the_shipped_example() {
    let (code, out, err) = rigd(&["check-config", &repo("examples/rigd.toml")]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.ends_with("rigd.toml: ok\n"), "{out}");
}

#[test]
fn check_config_lists_every_problem_and_exits_2() {
    let file = repo("rig-config/tests/invalid/many-problems.toml");
    let (code, _, err) = rigd(&["check-config", &file]);
    assert_eq!(code, Some(2), "{err}");
    let problems: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("many-problems.toml:"))
        .collect();
    assert_eq!(problems.len(), 5, "{err}");
    for needle in [
        "10:1: loop.rate_hz",
        "11:1: loop.priorty",
        "12:11: loop.spin_us",
        "15:1: sim.robots",
        "17:1: sim.colour",
    ] {
        assert!(err.contains(needle), "`{needle}` missing:\n{err}");
    }
    assert!(problems.iter().all(|l| l.contains("(fix: ")), "{err}");
}

#[test]
fn unknown_built_in_car_is_a_config_error_at_its_line() {
    let dir = std::env::temp_dir().join(format!("rigd-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("car.toml");
    std::fs::write(&file, "[sim]\ncar = \"hovercraft\"\n").unwrap();
    let (code, _, err) = rigd(&["check-config", file.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("car.toml:2:1: sim.car:") && err.contains("hovercraft"),
        "{err}"
    );
}

#[test]
fn run_with_a_missing_config_file_exits_2_and_says_how_to_fix_it() {
    let (code, _, err) = rigd(&["--config", "/nonexistent/rigd.toml", "run", "--no-display"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("/nonexistent/rigd.toml") && err.contains("fix:"),
        "{err}"
    );
}

#[test]
fn run_with_an_invalid_config_exits_2() {
    let (code, _, err) = rigd(&[
        "--config",
        &repo("rig-config/tests/invalid/syntax.toml"),
        "run",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("syntax.toml:6:12: sim.car: TOML syntax"),
        "{err}"
    );
}

#[test]
fn schema_is_json_naming_the_sections() {
    let (code, out, err) = rigd(&["schema"]);
    assert_eq!(code, Some(0), "{err}");
    let schema: serde_json::Value = serde_json::from_str(&out).unwrap();
    let properties = &schema["properties"];
    for section in ["sim", "loop", "telemetry", "devices", "motion"] {
        assert!(properties.get(section).is_some(), "{section} missing");
    }
    let (code, same, _) = rigd(&["check-config", "--schema"]);
    assert_eq!(code, Some(0));
    assert_eq!(same, out);
}

#[test]
fn help_lists_every_subcommand() {
    let (code, out, _) = rigd(&["--help"]);
    assert_eq!(code, Some(0));
    for sub in [
        "run",
        "check-config",
        "devices",
        "maneuver",
        "bench",
        "--config",
    ] {
        assert!(out.contains(sub), "{sub} missing:\n{out}");
    }
}
