//! The CLI contract on the real binary: exit codes (0 ok, 2 bad config, 1 other),
//! `check-config` listing every problem, the JSON schema, `--help`.

mod support;
use support::{line_for_road_on_corners, rigd, TempDir};

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

/// `rigd lapsim` prints the lap and sector times and a comparison, writes the speed trace,
/// and refuses an unknown track or car and a margin outside (0, 1] with exit 2 and the fix.
#[test]
fn lapsim_prints_lap_sectors_and_a_comparison_and_refuses_bad_input() {
    let csv = std::env::temp_dir().join(format!("rigd-lapsim-{}.csv", std::process::id()));
    let (code, out, err) = rigd(&[
        "lapsim",
        "--car",
        "road",
        "--track",
        "circuit",
        "--compare-car",
        "race",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let lap = |name: &str| -> f64 {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("{name}: lap ")))
            .unwrap_or_else(|| panic!("no {name} lap in:\n{out}"));
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    // The road car's lap on the estimated envelope (docs/lapsim.md: 99.78 s since the drive
    // limit in a turn models the open differential and the cornering drag), the race car well
    // ahead.
    assert!((lap("road") - 99.8).abs() < 1.0, "{out}");
    assert!(lap("race") < lap("road") - 20.0, "{out}");
    assert!(out.contains("race against road: lap -"), "{out}");
    let trace = std::fs::read_to_string(&csv).unwrap();
    std::fs::remove_file(&csv).ok();
    assert!(trace.starts_with("distance_m,road_speed_mps,road_time_s,race_speed_mps"));
    assert!(trace.lines().count() > 800, "one row per point of the line");
    for (args, needle) in [
        (
            vec!["lapsim", "--track", "moon"],
            "--track: no built-in track",
        ),
        (vec!["lapsim", "--car", "nope"], "--car: no built-in car"),
        (
            vec!["lapsim", "--margin", "1.5"],
            "--margin 1.5 is outside (0, 1] (fix:",
        ),
    ] {
        let (code, _, err) = rigd(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// `rigd lapsim --envelope FILE --line FILE`: the shipped measured envelope and a line from
/// `rigd line` run for their car and track; a file for another car (or track) exits 2 with the
/// file's message and the fix.
#[test]
fn lapsim_reads_a_measured_envelope_and_a_line_file_and_refuses_them_for_another_car() {
    let dir = TempDir::new("lapsim-files");
    let (line, _, _) = line_for_road_on_corners(&dir);
    let line = line.to_str().unwrap();
    let envelope = repo("physics/data/envelopes/road.toml");
    let (code, out, err) = rigd(&[
        "lapsim",
        "--car",
        "road",
        "--track",
        "corners",
        "--envelope",
        &envelope,
        "--line",
        line,
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("measured envelope, file line"), "{out}");
    assert!(out.contains("road: lap "), "{out}");
    for (args, needles) in [
        (
            vec!["lapsim", "--car", "race", "--envelope", &envelope],
            &["--envelope:", "`road`", "rigd envelope --car race"][..],
        ),
        (
            vec![
                "lapsim", "--car", "race", "--track", "corners", "--line", line,
            ],
            &["--line:", "the line was found for car", "rigd line"][..],
        ),
        (
            vec![
                "lapsim", "--car", "road", "--track", "circuit", "--line", line,
            ],
            &["--line:", "the line was found for track", "rigd line"][..],
        ),
        (
            vec!["lapsim", "--line", "/nonexistent/line.toml"],
            &["--line:", "cannot be read", "fix:"][..],
        ),
    ] {
        let (code, _, err) = rigd(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        for needle in needles {
            assert!(err.contains(needle), "{args:?}: {needle} not in {err}");
        }
    }
}
