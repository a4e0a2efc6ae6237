//! `rigd calibrate [--config FILE] [--yes]`: walks the user through turning the wheel lock to
//! lock and pressing each pedal, then writes the `[devices]` mapping into FILE.
//!
//! The work is split three ways: [`crate::input::device_events`] reads every player device,
//! [`crate::input::calibration`] (a pure state machine) decides what moved and how, and
//! [`super::calibrate_config`] edits the file keeping its comments. This module only carries
//! events and typed lines between them and talks to the user.
//!
//! Every answer is a line on stdin (Enter: done, `s`: skip, a number for the rotation), so a
//! script can drive it; before a line is taken, every device event already queued is read, so
//! the axes a script moved before writing its line count for that step. The result is checked
//! as `rigd check-config` would, shown as a diff and written only after a `y` (or with
//! `--yes`); without `--config` it is printed instead. Ctrl-C or SIGTERM cancel without
//! writing.

use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::Duration;

use anyhow::{bail, Context};

use super::calibrate_config::{self, axis_code_name, key_code_name};
use crate::devices::DeviceInfo;
use crate::input::calibration::{
    button_function_name, function_name, AxisKey, CalibrationEvent, Calibrator, Reply, Step,
};
use crate::input::device_events::{DeviceEvent, DeviceEvents};
use crate::signals::{self, ControllingTerminal, Signal};

/// How long one wait for device events lasts, so typed lines and signals are seen quickly.
const TICK: Duration = Duration::from_millis(20);

/// Runs the calibration; `config_path` is the file to write (`None`: print the result).
pub fn run(config_path: Option<&Path>, yes: bool) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    let (old_text, range_default) = starting_point(config_path, &mut out)?;
    let lines = stdin_lines();
    let terminal = ControllingTerminal::open();
    // Calibration sees the raw noise, without the kernel's filter, as `rigd run` does.
    let mut devices = DeviceEvents::new(Box::new(|_, _| true));
    let mut calibrator = Calibrator::new(range_default.configured);
    let mut events = Vec::new();
    devices.poll(Duration::ZERO, &mut events);
    feed_devices(&mut calibrator, &devices, &mut events, &mut out)?;
    if devices.present() == 0 {
        writeln!(
            out,
            "No wheel, pedals or shifter found yet: plug them in (they are picked up when they appear)."
        )?;
    }
    let mut asked = None;
    while let Some(step) = calibrator.step() {
        if asked != Some(step) {
            writeln!(out, "\n{}", calibrator.prompt().unwrap_or_default())?;
            asked = Some(step);
        }
        out.flush()?;
        devices.poll(TICK, &mut events);
        feed_devices(&mut calibrator, &devices, &mut events, &mut out)?;
        if let Some(Signal::Stop | Signal::TerminalClosed) =
            signals::wait(Duration::ZERO, &terminal)
        {
            bail!("calibration cancelled: nothing was written");
        }
        let line = match lines.try_recv() {
            Ok(Some(line)) => line,
            Ok(None) | Err(TryRecvError::Disconnected) => bail!(
                "stdin closed at the step \"{}\": nothing was written (answer every step; \
                 Enter alone means done, s skips an optional step)",
                calibrator.prompt().unwrap_or_default()
            ),
            Err(TryRecvError::Empty) => continue,
        };
        // Whatever the devices queued before the line belongs to this step.
        devices.poll(Duration::ZERO, &mut events);
        feed_devices(&mut calibrator, &devices, &mut events, &mut out)?;
        let reply = calibrator.feed(CalibrationEvent::Line(line));
        writeln!(out, "{}", describe(&reply, &devices))?;
        if let Reply::Retry(_) = reply {
            asked = None;
        }
        if let (Step::Steering, Reply::FoundAxis(axis)) = (step, &reply) {
            let suggestion = range_default
                .rotation_set_by_config
                .or_else(|| base_range_deg(devices.info(axis.key.device)));
            if let Some(degrees) = suggestion {
                calibrator.suggest_range_deg(degrees);
            }
        }
    }
    finish(
        config_path,
        &old_text,
        &calibrator,
        &devices,
        &lines,
        yes,
        &mut out,
    )
}

struct RangeDefaults {
    /// `[devices.steering] range_deg` of the file (or the default).
    configured: f64,
    /// `[devices.ffb] rotation_range_deg`: rigd sets the base to this, so it is the answer.
    rotation_set_by_config: Option<f64>,
}

/// The file's text and what it says about the rotation; a file with problems stops here
/// (exit 2) with them, as nothing valid could be written into it.
fn starting_point(
    config_path: Option<&Path>,
    out: &mut impl Write,
) -> anyhow::Result<(String, RangeDefaults)> {
    let defaults = rig_config::devices::SteeringConfig::default();
    let Some(path) = config_path else {
        writeln!(
            out,
            "No --config FILE given: the result is printed, not written (rigd calibrate --config FILE writes it)."
        )?;
        return Ok((
            String::new(),
            RangeDefaults {
                configured: defaults.range_deg,
                rotation_set_by_config: None,
            },
        ));
    };
    if !path.exists() {
        writeln!(
            out,
            "{} does not exist yet: it will be created.",
            path.display()
        )?;
        return Ok((
            String::new(),
            RangeDefaults {
                configured: defaults.range_deg,
                rotation_set_by_config: None,
            },
        ));
    }
    let config = crate::runtime::config_load::load_config(Some(path))?;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok((
        text,
        RangeDefaults {
            configured: config.devices.steering.range_deg,
            rotation_set_by_config: config.devices.ffb.rotation_range_deg.map(f64::from),
        },
    ))
}

/// Typed lines from stdin, read on their own thread (`None` at end of input).
fn stdin_lines() -> Receiver<Option<String>> {
    let (send, receive) = mpsc::channel();
    std::thread::Builder::new()
        .name("rigd-stdin".into())
        .spawn(move || {
            for line in io::stdin().lock().lines() {
                match line {
                    Ok(line) => {
                        if send.send(Some(line)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            let _ = send.send(None);
        })
        .expect("spawning the stdin reader");
    receive
}

/// Hands the queued device events to the calibration and says which devices came and went.
fn feed_devices(
    calibrator: &mut Calibrator,
    devices: &DeviceEvents,
    events: &mut Vec<DeviceEvent>,
    out: &mut impl Write,
) -> io::Result<()> {
    for event in events.drain(..) {
        match event {
            DeviceEvent::Appeared { device, axes } => {
                writeln!(out, "found {}", device_name(devices.info(device)))?;
                for axis in axes {
                    calibrator.feed(CalibrationEvent::AxisKnown {
                        key: AxisKey {
                            device,
                            code: axis.info.code,
                        },
                        min: axis.info.min,
                        max: axis.info.max,
                        value: axis.value,
                    });
                }
            }
            DeviceEvent::Gone { device } => {
                writeln!(out, "{} went away", device_name(devices.info(device)))?;
            }
            DeviceEvent::Unreadable { node, why } => writeln!(out, "{}: {why}", node.display())?,
            DeviceEvent::Axis {
                device,
                code,
                value,
                time_s,
            } => {
                calibrator.feed(CalibrationEvent::Axis {
                    key: AxisKey { device, code },
                    value,
                    time_s,
                });
            }
            DeviceEvent::Button {
                device,
                code,
                pressed,
            } => {
                calibrator.feed(CalibrationEvent::Button {
                    device,
                    code,
                    pressed,
                });
            }
            DeviceEvent::Report { .. } => {}
        }
    }
    Ok(())
}

fn device_name(info: &DeviceInfo) -> String {
    format!(
        "\"{}\" ({:04x}:{:04x}, {})",
        info.sys.name,
        info.sys.vendor,
        info.sys.product,
        info.sys.event_node.display()
    )
}

/// What a step's reply means, in words.
fn describe(reply: &Reply, devices: &DeviceEvents) -> String {
    match reply {
        Reply::Nothing => String::new(),
        Reply::Rested(n) => format!("  resting values noted for {n} axes"),
        Reply::FoundAxis(a) => {
            let name = device_name(devices.info(a.key.device));
            let direction = if a.invert {
                ", reads backwards (invert)"
            } else {
                ""
            };
            let centre = if a.function == rig_config::devices::AxisFunction::Steering {
                format!(", centre {}", a.centre())
            } else {
                String::new()
            };
            format!(
                "  {}: {} of {name}, raw {} ..= {}{centre}{direction}, resting noise {} -> deadzone {}",
                function_name(a.function),
                axis_code_name(a.key.code),
                a.raw_min,
                a.raw_max,
                a.rest_noise,
                a.inner_deadzone
            )
        }
        Reply::FoundButton(b) => format!(
            "  {}: {} of {}",
            button_function_name(b.function),
            key_code_name(b.code),
            device_name(devices.info(b.device))
        ),
        Reply::Range(degrees) => format!("  rotation {degrees} deg lock to lock"),
        Reply::Skipped(step) => format!("  {step:?} skipped"),
        Reply::Retry(why) => format!("  {why}"),
    }
}

/// The base's own rotation setting (the `range` attribute of hid-logitech and others).
fn base_range_deg(info: &DeviceInfo) -> Option<f64> {
    let dir = crate::ffb::wheel_settings::hid_dir_of(&info.sys.event_node)?;
    std::fs::read_to_string(dir.join("range"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Edits, checks, shows and (when confirmed) writes the result.
fn finish(
    config_path: Option<&Path>,
    old_text: &str,
    calibrator: &Calibrator,
    devices: &DeviceEvents,
    lines: &Receiver<Option<String>>,
    yes: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let origin = config_path.map_or("the result".into(), |p| p.display().to_string());
    let edited = calibrate_config::apply(old_text, calibrator.calibration(), &|n| {
        devices.info(n).sys.clone()
    })
    .with_context(|| format!("cannot write the calibration into {origin}"))?;
    if let Err(problems) = rig_config::parse(&edited.text, &origin) {
        let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
        bail!(
            "the calibrated mapping would not be a valid config, so nothing was written:\n{}",
            list.join("\n")
        );
    }
    writeln!(out)?;
    for note in &edited.notes {
        writeln!(out, "note: {note}")?;
    }
    let Some(path) = config_path else {
        writeln!(out, "The [devices] mapping:\n\n{}", edited.text)?;
        writeln!(
            out,
            "To write it into a config file: rigd calibrate --config FILE"
        )?;
        return Ok(());
    };
    let changes = calibrate_config::diff(old_text, &edited.text);
    if changes.is_empty() {
        writeln!(
            out,
            "{} already holds this mapping: nothing to write.",
            path.display()
        )?;
        return Ok(());
    }
    writeln!(out, "Changes to {}:\n{changes}", path.display())?;
    if !yes {
        write!(out, "Write them? [y/N] ")?;
        out.flush()?;
        let answer = loop {
            match lines.recv_timeout(TICK) {
                Ok(line) => break line.unwrap_or_default(),
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break String::new(),
            }
        };
        if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
            writeln!(out, "Nothing written.")?;
            return Ok(());
        }
    }
    write_replacing(path, &edited.text)?;
    writeln!(
        out,
        "Wrote {0}. Check it: rigd check-config {0}; watch it: rigd --config {0} devices --watch",
        path.display()
    )?;
    Ok(())
}

/// Writes `text` to `path` through a file next to it and a rename, so a crash leaves the old
/// file or the new one, never half of one; the old file's permissions stay.
fn write_replacing(path: &Path, text: &str) -> anyhow::Result<()> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "rigd.toml".into());
    let temp = path.with_file_name(format!(".{file_name}.rigd-calibrate"));
    std::fs::write(&temp, text).with_context(|| {
        format!(
            "cannot write {} (fix: run as a user who may write that directory)",
            temp.display()
        )
    })?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&temp, meta.permissions());
    }
    std::fs::rename(&temp, path)
        .with_context(|| format!("cannot replace {} with {}", path.display(), temp.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_is_replaced_whole_and_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("rigd-calwrite-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rig.toml");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_replacing(&path, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            1,
            "no temp file left"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
