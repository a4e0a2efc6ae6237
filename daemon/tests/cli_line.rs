//! `rigd line` on the real binary: bad input exits 2 with the fix and writes nothing; one
//! iteration on the short `corners` track writes a line file whose progress lines are plain
//! (stderr is not a terminal); `[sim] robot_line` accepts that file for its car and track and
//! refuses it, exit 2, for another car or a missing file before anything runs.

mod support;
use support::{line_for_road_on_corners, rigd, TempDir};

#[test]
fn bad_line_arguments_exit_2_with_the_fix() {
    let dir = TempDir::new("line-bad");
    let out = dir.0.join("line.toml");
    let out = out.to_str().unwrap();
    for (args, said) in [
        (
            &["line", "--track", "nowhere", "--out", out][..],
            "no built-in track named \"nowhere\"",
        ),
        (&["line", "--budget-s", "0", "--out", out], "--budget-s 0"),
        (&["line", "--threads", "0", "--out", out], "--threads 0"),
        (
            &["line", "--car", "/nonexistent/car.toml", "--out", out],
            "does not exist",
        ),
    ] {
        let (code, _, err) = rigd(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
        assert!(err.contains("fix:"), "{args:?}: {err}");
    }
    assert!(!dir.0.join("line.toml").exists());
}

#[test]
fn a_found_line_is_written_and_refused_for_another_car() {
    let dir = TempDir::new("line-run");
    let (line, out, err) = line_for_road_on_corners(&dir);
    let line_text = line.to_str().unwrap();
    assert!(out.contains("written to"), "{out}");
    // Plain progress lines: the start and the one iteration, no terminal control codes.
    assert!(
        err.lines().any(|l| l.starts_with("iteration 1  best lap")),
        "{err}"
    );
    assert!(!err.contains('\x1b'), "{err:?}");
    let text = std::fs::read_to_string(&line).unwrap();
    assert!(text.contains("track = \"Corners\""), "{text}");

    let config = |car: &str, path: &str| {
        dir.file(
            &format!("{car}.toml"),
            &format!("[sim]\ncar = \"{car}\"\ntrack = \"corners\"\nrobot_line = \"{path}\"\n"),
        )
    };
    let good = config("road", line_text);
    let (code, _, err) = rigd(&["check-config", good.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    let other_car = config("race", line_text);
    let (code, _, err) = rigd(&["check-config", other_car.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("sim.robot_line"), "{err}");
    assert!(err.contains("the line was found for car"), "{err}");
    assert!(err.contains("rigd line"), "{err}");
    let (code, _, err) = rigd(&[
        "--config",
        other_car.to_str().unwrap(),
        "run",
        "--no-display",
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("the line was found for car"), "{err}");
}
