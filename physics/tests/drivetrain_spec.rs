//! The `[drivetrain]` table: valid tables parse, bad ones fail with the field, its line and the
//! fix; no generated table makes parsing or validation panic.

mod drivetrain_support;

use drivetrain_support::*;
use proptest::prelude::*;
use rig_physics::data::parse_toml;
use rig_physics::drivetrain::DrivetrainSpec;
use rig_physics::DataError;

fn check(text: &str) -> Result<DrivetrainSpec, DataError> {
    let spec: DrivetrainSpec = parse_toml(text, "fixture.toml")?;
    spec.validate(text, "fixture.toml")?;
    Ok(spec)
}

fn rwd_text(rear: &str) -> String {
    spec_toml(
        "layout = \"rwd\"",
        SEQUENTIAL,
        &format!("[rear_differential]\n{rear}"),
    )
}

#[test]
fn every_differential_kind_parses() {
    for rear in [
        "kind = \"open\"",
        "kind = \"spool\"",
        "kind = \"viscous\"\ncoefficient_nm_s_per_rad = 30",
        "kind = \"clutch_lsd\"\npreload_nm = 50\npower_bias_ratio = 2\nways = 1.5",
        "kind = \"salisbury\"\npreload_nm = 0\npower_ramp_deg = 60\ncoast_ramp_deg = 30\nclutches = 2",
        "kind = \"torque_bias\"\nbias_ratio = 3",
        "kind = \"torque_bias\"\nbias_ratio = 3\ncoast_bias_ratio = 1.5\npreload_nm = 20",
    ] {
        check(&rwd_text(rear)).unwrap_or_else(|e| panic!("{rear}: {e}"));
    }
}

/// Asserts that `text` fails on `field` at `line` with a message containing `hint`.
fn fails(text: &str, field: &str, line: usize, hint: &str) {
    let err = check(text).expect_err("invalid fixture was accepted");
    assert_eq!(err.field, field, "{err}");
    assert_eq!(err.line, line, "{err}");
    assert!(err.message.contains(hint), "{err}");
    assert_eq!(err.origin, "fixture.toml");
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn bad_tables_name_the_field_line_and_fix() {
    let text = rwd_text("kind = \"clutch_lsd\"\npreload_nm = 50\npower_bias_ratio = 2\nways = 3");
    fails(
        &text,
        "drivetrain.rear_differential.ways",
        line_of(&text, "ways = 3"),
        "use 1, 1.5 or 2",
    );

    let text = rwd_text("kind = \"torque_bias\"\nbias_ratio = 0.5");
    fails(
        &text,
        "drivetrain.rear_differential.bias_ratio",
        line_of(&text, "bias_ratio"),
        ">= 1",
    );

    let text = rwd_text("kind = \"open\"").replace("efficiency = 0.94", "efficiency = 1.3");
    fails(
        &text,
        "drivetrain.gearbox.efficiency",
        line_of(&text, "efficiency"),
        "0.9 ..= 0.97",
    );

    let text = rwd_text("kind = \"open\"").replace("stall_rpm = 450", "stall_rpm = 800");
    fails(
        &text,
        "drivetrain.engine.stall_rpm",
        line_of(&text, "stall_rpm"),
        "below idle_rpm",
    );

    let text = spec_toml(
        "layout = \"awd\"",
        SEQUENTIAL,
        "[rear_differential]\nkind = \"open\"",
    );
    fails(
        &text,
        "drivetrain.layout",
        line_of(&text, "layout"),
        "[drivetrain.front_differential]",
    );

    let text = spec_toml(
        "layout = \"fwd\"",
        SEQUENTIAL,
        "[front_differential]\nkind = \"open\"\n[rear_differential]\nkind = \"open\"",
    );
    // The unwanted table is pointed at by its header (the old key-text search found no
    // `rear_differential =` line and gave line 0).
    fails(
        &text,
        "drivetrain.rear_differential",
        line_of(&text, "[rear_differential]"),
        "remove the table",
    );

    let text = rwd_text("kind = \"open\"").replace(
        "layout = \"rwd\"",
        "layout = \"rwd\"\nfront_torque_fraction = 0.4",
    );
    fails(
        &text,
        "drivetrain.front_torque_fraction",
        line_of(&text, "front_torque"),
        "only AWD",
    );

    let text = rwd_text("kind = \"open\"").replace(
        "torque_curve_nm = [60, 150, 190, 215, 230, 225, 205, 170]",
        "torque_curve_nm = [60, 150]",
    );
    fails(
        &text,
        "drivetrain.engine.torque_curve_nm",
        line_of(&text, "torque_curve_nm"),
        "same number",
    );
}

#[test]
fn unknown_and_misplaced_fields_are_parse_errors_at_their_line() {
    let text = rwd_text("kind = \"open\"\npreload_nm = 10");
    let err = check(&text).unwrap_err();
    assert!(err.message.contains("preload_nm"), "{err}");
    assert!(err.line > 0);

    let text = rwd_text("kind = \"open\"").replace("max_torque_nm = 350", "max_torque = 350");
    let err = check(&text).unwrap_err();
    assert_eq!(err.field, "max_torque");
    assert_eq!(err.line, line_of(&text, "max_torque = 350"));

    let text = rwd_text("kind = \"limited\"");
    let err = check(&text).unwrap_err();
    assert!(err.message.contains("limited"), "{err}");
}

proptest! {
    #[test]
    fn generated_tables_never_panic(
        preload in -100.0f64..500.0,
        ratio in -1.0f64..10.0,
        ways in prop::sample::select(vec![0.5, 1.0, 1.5, 2.0, 2.5]),
        efficiency in 0.0f64..1.5,
        idle in 0.0f64..3000.0,
        fraction in -0.5f64..1.5,
        awd in any::<bool>(),
    ) {
        let diff = format!(
            "kind = \"clutch_lsd\"\npreload_nm = {preload}\npower_bias_ratio = {ratio}\nways = {ways}"
        );
        let text = if awd {
            spec_toml(
                &format!("layout = \"awd\"\nfront_torque_fraction = {fraction}"),
                SEQUENTIAL,
                &format!("[front_differential]\n{diff}\n[rear_differential]\n{diff}\n[centre_differential]\nkind = \"open\""),
            )
        } else {
            rwd_text(&diff)
        }
        .replace("efficiency = 0.94", &format!("efficiency = {efficiency}"))
        .replace("idle_rpm = 850", &format!("idle_rpm = {idle}"));
        match check(&text) {
            Ok(spec) => {
                // Anything accepted builds a drivetrain that steps to finite speeds.
                let mut d = rig_physics::drivetrain::Drivetrain::new(&spec);
                let mut rig = Rig::rolling(5.0);
                for _ in 0..50 {
                    rig.step(&mut d, &ignition_on());
                }
                prop_assert!(rig.omega.iter().all(|w| w.is_finite()));
            }
            Err(e) => {
                prop_assert!(e.field.starts_with("drivetrain.") || !e.message.is_empty());
                prop_assert!(!e.message.is_empty());
            }
        }
    }
}
