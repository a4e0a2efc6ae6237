//! `load_with`, the loader rigd's `check-config`, `run` and reload share: the resolver's
//! problems land at the line and column of the key that names the thing (inline tables
//! included), are listed with every other problem at once, are not repeated for a field
//! already reported, and the returned `Source` places any field afterwards.

use std::path::{Path, PathBuf};

use rig_config::{Config, ConfigError, FieldProblem, Problem};

/// Writes `text` to a fresh file named `name` in this test's own directory.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rig-config-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Stands in for the daemon's car lookup: only `lorry` is unknown.
fn no_lorries(config: &Config) -> Vec<FieldProblem> {
    if config.sim.car == "lorry" {
        vec![FieldProblem {
            field: "sim.car".into(),
            message: "no built-in car named 'lorry'".into(),
            fix: "name a built-in car".into(),
        }]
    } else {
        Vec::new()
    }
}

fn problems(path: &Path) -> Vec<Problem> {
    match rig_config::load_with(Some(path), &no_lorries) {
        Err(ConfigError::Invalid(problems)) => problems,
        other => panic!("{} must be rejected, got {other:?}", path.display()),
    }
}

fn places(problems: &[Problem]) -> Vec<(usize, usize, &str)> {
    problems
        .iter()
        .map(|p| (p.line, p.column, p.field.as_str()))
        .collect()
}

#[test]
fn resolver_problems_are_placed_at_their_key_among_the_others() {
    let path = file(
        "table.toml",
        "[loop]\nrate_hz = 5\n\n[sim]\nrobots = 2\ncar = \"lorry\"\n",
    );
    let found = problems(&path);
    assert_eq!(
        places(&found),
        vec![(2, 1, "loop.rate_hz"), (6, 1, "sim.car")]
    );
    let shown = found[1].to_string();
    assert!(
        shown.starts_with(&format!("{}:6:1: sim.car: no built-in car", path.display())),
        "{shown}"
    );
}

#[test]
fn a_car_named_in_an_inline_table_is_placed_at_its_key() {
    let path = file("inline.toml", "sim = { robots = 1, car = \"lorry\" }\n");
    assert_eq!(places(&problems(&path)), vec![(1, 21, "sim.car")]);
    let path = file("dotted.toml", "sim.robots = 1\nsim.car = \"lorry\"\n");
    assert_eq!(places(&problems(&path)), vec![(2, 5, "sim.car")]);
}

#[test]
fn the_resolver_sees_what_parsed_when_other_keys_are_broken() {
    let path = file("broken.toml", "[sim]\ncar = \"lorry\"\nrobots = \"many\"\n");
    assert_eq!(
        places(&problems(&path)),
        vec![(2, 1, "sim.car"), (3, 10, "sim.robots")]
    );
}

#[test]
fn a_field_already_reported_is_not_reported_again() {
    let path = file("twice.toml", "[sim]\ncar = \"/nonexistent/car.toml\"\n");
    let always = |_: &Config| {
        vec![FieldProblem {
            field: "sim.car".into(),
            message: "cannot read car file".into(),
            fix: "correct the path".into(),
        }]
    };
    let found = match rig_config::load_with(Some(&path), &always) {
        Err(ConfigError::Invalid(problems)) => problems,
        other => panic!("must be rejected, got {other:?}"),
    };
    assert_eq!(places(&found), vec![(2, 1, "sim.car")]);
    assert!(found[0].message.contains("does not exist"), "{}", found[0]);
}

#[test]
fn the_loaded_source_places_any_field_later() {
    let path = file(
        "good.toml",
        "[loop]\nrate_hz = 500\npriority = 70\n\n[[telemetry]]\nformat = \"native\"\n\
         destinations = [\"127.0.0.1:20777\"]\n",
    );
    let loaded = rig_config::load_with(Some(&path), &no_lorries).unwrap();
    assert_eq!(loaded.config.realtime.priority, 70);
    assert_eq!(loaded.source.origin(), path.display().to_string());
    assert_eq!(loaded.source.position("loop.priority"), (3, 1));
    assert_eq!(loaded.source.position("telemetry[0].destinations"), (7, 1));
    assert_eq!(
        loaded.source.position("telemetry[0].destinations[0]"),
        (7, 17)
    );
    // Not written: the nearest table that is, or nothing.
    assert_eq!(loaded.source.position("loop.spin_us"), (1, 2));
    assert_eq!(loaded.source.position("sim.car"), (0, 0));

    let embedded = rig_config::load(None).unwrap();
    assert_eq!(embedded.source.origin(), rig_config::EMBEDDED_ORIGIN);
    assert_eq!(embedded.config.sim.car, "road");
}

#[test]
fn a_missing_config_file_is_said_once_in_plain_words_with_the_fix() {
    let err = rig_config::load(Some(Path::new("/nonexistent/rigd.toml"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "config file /nonexistent/rigd.toml does not exist (fix: create it (examples/rigd.toml \
         lists every key with its default), or run rigd without --config to use the defaults)"
    );
    // Nothing chained below it: printed with its causes, it is still said once.
    assert!(std::error::Error::source(&err).is_none());
    assert_eq!(err.problems(), vec![err.to_string()]);
}
