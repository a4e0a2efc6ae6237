//! Properties of the config parser: any text yields a config or problems (never a panic), every
//! problem points inside the document, and in-range `[loop]`/`[sim]` values come back exactly
//! while out-of-range ones are each reported at their own line.

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_text_never_panics_and_problems_point_inside(text in "[\\[\\]a-z_=\"0-9. \n#-]{0,200}") {
        let lines = text.lines().count().max(1) + 1;
        if let Err(problems) = rig_config::parse(&text, "fuzz.toml") {
            prop_assert!(!problems.is_empty());
            for p in problems {
                prop_assert!(p.line <= lines, "{p} beyond {lines} lines");
                prop_assert!(!p.fix.is_empty(), "{p} has no fix");
                prop_assert!(p.to_string().starts_with("fuzz.toml:"));
            }
        }
    }

    #[test]
    fn in_range_values_round_trip(rate in 100u32..=2000, priority in 1u8..=98, robots in 0u32..=200, catch_up in 0u32..=50) {
        let text = format!("[loop]\nrate_hz = {rate}\npriority = {priority}\nmax_catch_up_steps = {catch_up}\n[sim]\nrobots = {robots}\n");
        let config = rig_config::parse(&text, "ok.toml").unwrap();
        prop_assert_eq!(config.realtime.rate_hz, rate);
        prop_assert_eq!(config.realtime.priority, priority);
        prop_assert_eq!(config.realtime.max_catch_up_steps, catch_up);
        prop_assert_eq!(config.sim.robots, robots);
    }

    #[test]
    fn every_out_of_range_value_is_reported_at_its_line(rate in 2001u32..100_000, priority in 99u8..=255, robots in 201u32..10_000) {
        let text = format!("[loop]\nrate_hz = {rate}\npriority = {priority}\n[sim]\nrobots = {robots}\n");
        let problems = rig_config::parse(&text, "bad.toml").unwrap_err();
        let at: Vec<(usize, &str)> = problems.iter().map(|p| (p.line, p.field.as_str())).collect();
        prop_assert_eq!(at, vec![(2, "loop.rate_hz"), (3, "loop.priority"), (5, "sim.robots")]);
    }
}
