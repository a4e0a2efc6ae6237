//! `rigd check-config` and `rigd run` on motion outputs whose rate or baud cannot hold: an
//! output rate above the loop rate, a baud that is not the preset firmware's, and a serial
//! budget that does not fit the rate rigd really sends each give their message with the fix
//! and exit 2; a deliberate baud (`custom_firmware_baud`) passes with a warning naming the
//! firmware's value.

mod support;

use support::*;

fn seat(output: &str) -> String {
    format!(
        r#"[[motion.platforms]]
name = "seat"
[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25]]
crank_radius_m = 0.10
[motion.platforms.actuators]
range_deg = 60.0
max_speed_deg_per_s = 120.0
max_accel_deg_per_s2 = 1200.0
[[motion.platforms.outputs]]
preset = "smc3"
serial_port = "/dev/ttyUSB0"
{output}
"#
    )
}

/// `rigd check-config` and `rigd run` on `text`: both exit 2 and say `expected` on stderr.
fn refused(name: &str, text: &str, expected: &[&str]) {
    let dir = TempDir::new(name);
    let path = dir.file("rigd.toml", text);
    let path = path.to_str().unwrap();
    for args in [
        &["check-config", path][..],
        &["--config", path, "run", "--no-display"],
    ] {
        let (code, _, err) = rigd(args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        for needle in expected {
            assert!(err.contains(needle), "{args:?}: no `{needle}` in:\n{err}");
        }
    }
}

#[test]
fn an_output_rate_above_the_loop_rate_exits_2_with_the_fix() {
    refused(
        "motion-rate-above-loop",
        &seat("rate_hz = 2000.0"),
        &[
            "motion.platforms[0].outputs[0].rate_hz: 2000 Hz is above the loop's 1000 Hz",
            "lower rate_hz to 1000 or less, or raise [loop] rate_hz to 2000",
        ],
    );
}

#[test]
fn a_baud_that_is_not_the_firmware_s_exits_2_with_the_fix() {
    refused(
        "motion-wrong-baud",
        &seat("baud = 115200"),
        &[
            "motion.platforms[0].outputs[0].baud: 115200 is not the smc3 firmware's 500000 baud",
            "remove baud (rigd then uses 500000)",
            "custom_firmware_baud = true",
        ],
    );
}

#[test]
fn a_budget_that_does_not_fit_the_real_rate_exits_2_with_the_fix() {
    // 700 Hz on the 1 kHz loop is a frame every tick: 15 B x 1000 Hz x 10 bit of 115200.
    refused(
        "motion-budget",
        &seat("rate_hz = 700.0\nbaud = 115200\ncustom_firmware_baud = true"),
        &[
            "15-byte frames at 1000 Hz need 130 % of 115200 baud (the limit is 80 %)",
            "lower rate_hz to at most 614",
        ],
    );
}

#[test]
fn a_deliberate_baud_passes_with_a_warning_naming_the_firmware_s() {
    let dir = TempDir::new("motion-custom-baud");
    let path = dir.file(
        "rigd.toml",
        &seat("baud = 250000\ncustom_firmware_baud = true"),
    );
    let (code, out, err) = rigd(&["check-config", path.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("warning: motion.platforms[0].outputs[0].baud: 250000 overrides the smc3 firmware's 500000 baud"),
        "{out}"
    );
}
