//! Every shipped example parses cleanly, and every invalid fixture in `tests/invalid/` yields
//! exactly the problems its `# expect:` lines name (line:column, field, message fragment, fix
//! fragment), all of them at once.

use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_example_config_parses_without_problems() {
    let examples = toml_files(&repo_root().join("examples"));
    assert!(
        !examples.is_empty(),
        "examples/ holds the commented configs"
    );
    for path in examples {
        if let Err(err) = rig_config::load(Some(&path)) {
            panic!("{} must parse cleanly:\n{err}", path.display());
        }
    }
}

#[test]
fn empty_document_gives_the_documented_defaults() {
    let config = rig_config::parse("", "empty.toml").unwrap();
    assert_eq!(config.sim.car, "road");
    assert_eq!(config.sim.track, "circuit");
    assert_eq!(config.sim.robots, 0);
    assert_eq!(config.realtime.rate_hz, 1000);
    assert_eq!(config.realtime.priority, 80);
    assert_eq!(config.realtime.core, None);
    assert_eq!(config.realtime.spin_us, None);
    assert_eq!(config.realtime.final_spin_us(), 500);
    assert_eq!(config.realtime.fault_after_missed_ticks, 20);
}

#[test]
fn the_default_spin_is_half_the_period_and_leaves_an_rt_core_sender_its_window() {
    let parse = |text: &str| rig_config::parse(text, "spin.toml").unwrap().realtime;
    assert_eq!(parse("[loop]\nrate_hz = 2000\n").final_spin_us(), 250);
    assert_eq!(parse("[loop]\nrate_hz = 250\n").final_spin_us(), 2000);
    // The sender on the physics core sends until 0.8 of the period: the spin starts after.
    let rt_core = parse("[loop]\ntelemetry_sender_core = \"rt-core\"\n");
    assert_eq!(rt_core.final_spin_us(), 200);
    assert_eq!(parse("[loop]\nspin_us = 0\n").final_spin_us(), 0);
}

struct Expectation {
    line: usize,
    column: usize,
    field: String,
    message: String,
    fix: String,
}

fn expectations(text: &str) -> Vec<Expectation> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# expect: "))
        .map(|spec| {
            let parts: Vec<&str> = spec.split(" | ").collect();
            assert_eq!(
                parts.len(),
                3,
                "expect line `{spec}`: POS FIELD | message | fix"
            );
            let (position, field) = parts[0].split_once(' ').unwrap_or((parts[0], ""));
            let (line, column) = position.split_once(':').unwrap();
            Expectation {
                line: line.parse().unwrap(),
                column: column.parse().unwrap(),
                field: field.trim().to_string(),
                message: parts[1].to_string(),
                fix: parts[2].to_string(),
            }
        })
        .collect()
}

#[test]
fn invalid_fixtures_report_every_problem_with_position_field_and_fix() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid");
    let fixtures = toml_files(&dir);
    assert!(fixtures.len() >= 4);
    for path in fixtures {
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = expectations(&text);
        assert!(
            !expected.is_empty(),
            "{} has no `# expect:` lines",
            path.display()
        );
        let problems = match rig_config::load(Some(&path)) {
            Ok(_) => panic!("{} must be rejected", path.display()),
            Err(rig_config::ConfigError::Invalid(problems)) => problems,
            Err(other) => panic!("{}: unexpected {other}", path.display()),
        };
        let listing: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert_eq!(
            problems.len(),
            expected.len(),
            "{}: every problem, once each:\n{}",
            path.display(),
            listing.join("\n")
        );
        for want in &expected {
            let found = problems.iter().find(|p| {
                p.line == want.line
                    && p.column == want.column
                    && p.field == want.field
                    && p.message.contains(&want.message)
                    && p.fix.contains(&want.fix)
            });
            assert!(
                found.is_some(),
                "{}: no problem {}:{} `{}` `{}` (fix `{}`) in:\n{}",
                path.display(),
                want.line,
                want.column,
                want.field,
                want.message,
                want.fix,
                listing.join("\n")
            );
            let shown = found.unwrap().to_string();
            assert!(shown.starts_with(&format!(
                "{}:{}:{}: ",
                path.display(),
                want.line,
                want.column
            )));
        }
    }
}

#[test]
fn json_schema_names_every_section_and_loop_key() {
    let schema: serde_json::Value = serde_json::from_str(&rig_config::json_schema()).unwrap();
    let text = schema.to_string();
    for key in [
        "sim",
        "loop",
        "telemetry",
        "devices",
        "motion",
        "rate_hz",
        "spin_us",
        "max_catch_up_steps",
        "robots",
    ] {
        assert!(text.contains(&format!("\"{key}\"")), "schema lacks {key}");
    }
}
