//! A car document written the way the span tests need it: the road car with its
//! `[suspension.rear]` table rewritten as an inline table under `[suspension]`, and the rear
//! bump stop moved beyond the rear travel (0.25 m). Shared by rig-physics' own span test and,
//! through `#[path]`, by the daemon's `check-config` test, so both check the same document.

/// `road` (the built-in road car's text) with its rear corners inline and the bump stop bad.
pub fn inline_rear_with_bad_bump_stop(road: &str) -> String {
    let rear_start = road.find("[suspension.rear]").unwrap();
    let rear_end = rear_start + road[rear_start..].find("\n\n").unwrap();
    let pairs: Vec<String> = road[rear_start..rear_end]
        .lines()
        .skip(1)
        .map(|l| l.replace("bump_stop_engage_m = 0.15", "bump_stop_engage_m = 0.25"))
        .collect();
    let inline = format!("[suspension]\nrear = {{ {} }}\n", pairs.join(", "));
    let front_start = road.find("[suspension.front]").unwrap();
    format!(
        "{}{inline}\n{}{}",
        &road[..front_start],
        &road[front_start..rear_start],
        &road[rear_end..]
    )
}
