//! The `rig-soak-plot` binary as scripts/soak.sh runs it: a series.csv in, an SVG out, exit 0;
//! a file that is not a soak series gives exit 2 and a message naming the line and the fix.
//! (This test also makes `cargo test` build the binary, which the soak then uses as built.)

use std::process::Command;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rig-soak-plot-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_series_becomes_an_svg_with_a_line_per_column() {
    let dir = scratch("ok");
    let csv = dir.join("series.csv");
    std::fs::write(&csv, "minute,rss_mb,threads\n0.25,18.8,11\n0.5,18.9,11\n").unwrap();
    let svg = dir.join("soak.svg");
    let out = Command::new(env!("CARGO_BIN_EXE_rig-soak-plot"))
        .args([&csv, &svg])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let drawing = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(drawing.matches("stroke=\"#0000FF\"").count(), 2);
    assert!(drawing.contains("RSS, MB") && drawing.contains("threads"));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_cut_off_series_is_refused_with_exit_2_and_its_line() {
    let dir = scratch("bad");
    let csv = dir.join("series.csv");
    std::fs::write(&csv, "minute,rss_mb\n0.25,18.8\n0.5\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rig-soak-plot"))
        .args([&csv, &dir.join("soak.svg")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("line 3: 1 values for 2 columns"),
        "{stderr}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
