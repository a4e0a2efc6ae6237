//! Wheel settings the FFB writer applies when it opens the base and undoes on exit: rotation
//! range, the base's own autocentre spring and its overall gain (`[devices.ffb]`
//! `rotation_range_deg`, `autocentre_percent`, `device_gain_percent`).
//!
//! How, per driver (reference: ffb-input.md 2.4, 4.2):
//! - Range: the HID device's sysfs `range` attribute (hid-lg4ff; also hid-logitech-hidpp and
//!   the out-of-tree Logitech, Thrustmaster and Fanatec drivers). The old value is read first
//!   and written back on exit; the driver ignores values outside the wheel's limits, so the
//!   value is read back and a refusal is said. hid-pidff has no way to set a range: rigd says
//!   so once and the base's own tool must do it.
//! - Autocentre: `FF_AUTOCENTER` (lg4ff sends its `FE 0D` / `14` spring commands, `F5` for
//!   off; hid-pidff plays the base's built-in spring at that gain). Off again on exit, which is
//!   how lg4ff leaves a wheel at bind.
//! - Gain: `FF_GAIN` (ff-memless scales every effect in the kernel; hid-pidff sends Device
//!   Gain). 100 % again on exit. Neither can be read back, so "restore" means the defaults.
//!
//! Only what differs from those defaults is written back on exit, and only after the force is
//! stopped, so with the default settings nothing follows the final stop. A setting the device
//! cannot take is said once per open (what, on which device, and the fix) and skipped; the
//! force feedback runs on without it. Runs on the writer thread (it logs, never on the RT
//! thread).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use evdev::raw_stream::RawDevice;
use evdev::FFEffectCode;
use rig_config::devices::FfbConfig;

/// The settings `[devices.ffb]` asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WheelSettings {
    /// Lock-to-lock rotation, degrees (None: leave the base's range alone).
    pub rotation_range_deg: Option<u16>,
    /// The base's own centring spring, 0 ..= 0xFFFF (0 = off).
    pub autocentre: u16,
    /// Overall gain, 0 ..= 0xFFFF.
    pub gain: u16,
}

/// `percent` of the evdev FF scale 0 ..= 0xFFFF.
fn ff_scale(percent: f64) -> u16 {
    let share = if percent.is_finite() {
        (percent / 100.0).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (share * f64::from(u16::MAX)).round() as u16
}

impl WheelSettings {
    /// From `[devices.ffb]`.
    pub fn from_config(ffb: &FfbConfig) -> WheelSettings {
        WheelSettings {
            rotation_range_deg: ffb.rotation_range_deg,
            autocentre: ff_scale(ffb.autocentre_percent),
            gain: ff_scale(ffb.device_gain_percent),
        }
    }
}

impl Default for WheelSettings {
    /// No range change, autocentre off, full gain (what rigd's streamed force wants).
    fn default() -> Self {
        WheelSettings {
            rotation_range_deg: None,
            autocentre: 0,
            gain: u16::MAX,
        }
    }
}

/// The HID device directory of an evdev node (`/sys/class/input/eventN/device/device`),
/// where drivers put their sysfs attributes.
pub fn hid_dir_of(event_node: &Path) -> Option<PathBuf> {
    let name = event_node.file_name()?;
    fs::canonicalize(
        Path::new("/sys/class/input")
            .join(name)
            .join("device/device"),
    )
    .ok()
}

/// What was changed on one open device, to undo on exit.
#[derive(Debug, Default)]
pub struct AppliedSettings {
    /// The sysfs `range` file and the value it held before.
    range: Option<(PathBuf, String)>,
    autocentre_changed: bool,
    autocentre_by_spring: bool,
    gain_changed: bool,
}

impl AppliedSettings {
    /// True when the base has no autocentre of its own but takes a spring, so rigd's stage
    /// runs `autocentre_percent` as its spring effect.
    pub fn autocentre_by_spring(&self) -> bool {
        self.autocentre_by_spring
    }
}

/// A sysfs range change: `Ok(Some(old))` when `wanted` was written (the old value to restore),
/// `Ok(None)` when there is no `range` attribute, an error naming what went wrong otherwise.
pub fn set_sysfs_range(hid_dir: &Path, wanted: u16) -> Result<Option<String>, String> {
    let file = hid_dir.join("range");
    let old = match fs::read_to_string(&file) {
        Ok(old) => old.trim().to_string(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", file.display())),
    };
    if let Err(e) = fs::write(&file, format!("{wanted}\n")) {
        let fix = if e.kind() == io::ErrorKind::PermissionDenied {
            " (fix: install systemd/60-rigd.rules, which gives group rigd the wheel's range \
             attribute, or run rigd as root)"
        } else {
            ""
        };
        return Err(format!("cannot write {}: {e}{fix}", file.display()));
    }
    let now = fs::read_to_string(&file).unwrap_or_default();
    if now.trim() != wanted.to_string() {
        return Err(format!(
            "the driver kept the range at {} degrees instead of {wanted} (fix: choose a \
             rotation_range_deg this wheel supports, e.g. 40 ..= 900 on Logitech wheels)",
            now.trim()
        ));
    }
    Ok(Some(old))
}

/// Applies `wanted` to the open `device` (named `name` in messages, driven by `driver`, HID
/// sysfs directory `hid_dir`) and returns what to undo on exit.
pub fn apply(
    device: &mut RawDevice,
    name: &str,
    driver: Option<&str>,
    hid_dir: Option<&Path>,
    wanted: WheelSettings,
) -> AppliedSettings {
    let mut applied = AppliedSettings::default();
    let supports = |code| device.supported_ff().is_some_and(|ff| ff.contains(code));
    let (autocentre_ok, gain_ok) = (
        supports(FFEffectCode::FF_AUTOCENTER),
        supports(FFEffectCode::FF_GAIN),
    );
    if let Some(range) = wanted.rotation_range_deg {
        match hid_dir.map(|dir| set_sysfs_range(dir, range)) {
            Some(Ok(Some(old))) => {
                tracing::info!(
                    "force feedback on {name}: rotation range {range} degrees (was {old})"
                );
                applied.range = hid_dir.map(|dir| (dir.join("range"), old));
            }
            Some(Err(e)) => tracing::warn!(
                "force feedback on {name}: cannot set the rotation range to {range} degrees: {e}"
            ),
            Some(Ok(None)) | None => tracing::warn!(
                "force feedback on {name}: cannot set the rotation range on this base (driver \
                 {}: no sysfs `range` attribute): set it to {range} degrees in the base's own \
                 tool, or remove rotation_range_deg",
                driver.unwrap_or("unknown")
            ),
        }
    }
    if autocentre_ok {
        applied.autocentre_changed =
            device.set_ff_autocenter(wanted.autocentre).is_ok() && wanted.autocentre != 0;
    } else if wanted.autocentre != 0 && supports(FFEffectCode::FF_SPRING) {
        applied.autocentre_by_spring = true;
        tracing::info!(
            "force feedback on {name}: the driver has no autocentre of its own \
             (FF_AUTOCENTER), so rigd runs autocentre_percent as a spring effect"
        );
    } else if wanted.autocentre != 0 {
        tracing::warn!(
            "force feedback on {name}: cannot set autocentre (the driver has neither \
             FF_AUTOCENTER nor a spring effect): set autocentre_percent = 0, or set the \
             centring in the base's own tool"
        );
    }
    if gain_ok {
        applied.gain_changed = device.set_ff_gain(wanted.gain).is_ok() && wanted.gain != u16::MAX;
    } else if wanted.gain != u16::MAX {
        tracing::warn!(
            "force feedback on {name}: cannot set the device gain (the driver has no FF_GAIN): \
             set device_gain_percent = 100 and use [devices.ffb] gain instead"
        );
    }
    applied
}

/// Undoes `applied` on `device` (after the force is stopped): the old range, autocentre off,
/// full gain; only what was changed.
pub fn restore(device: &mut RawDevice, name: &str, applied: &AppliedSettings) {
    if applied.autocentre_changed {
        let _ = device.set_ff_autocenter(0);
    }
    if applied.gain_changed {
        let _ = device.set_ff_gain(u16::MAX);
    }
    if let Some((file, old)) = &applied.range {
        if let Err(e) = fs::write(file, format!("{old}\n")) {
            tracing::warn!(
                "force feedback on {name}: cannot restore the rotation range {old}: {e}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rigd-wheel-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn percentages_map_onto_the_evdev_scale() {
        let ffb = FfbConfig {
            autocentre_percent: 50.0,
            device_gain_percent: 80.0,
            rotation_range_deg: Some(540),
            ..FfbConfig::default()
        };
        let s = WheelSettings::from_config(&ffb);
        assert_eq!(s.autocentre, 32768);
        assert_eq!(s.gain, 52428);
        assert_eq!(s.rotation_range_deg, Some(540));
        let defaults = WheelSettings::from_config(&FfbConfig::default());
        assert_eq!(defaults, WheelSettings::default());
    }

    #[test]
    fn sysfs_range_is_written_and_the_old_value_returned() {
        let dir = temp_dir("range");
        fs::write(dir.join("range"), "900\n").unwrap();
        assert_eq!(set_sysfs_range(&dir, 540), Ok(Some("900".into())));
        assert_eq!(fs::read_to_string(dir.join("range")).unwrap(), "540\n");
        let missing = temp_dir("norange");
        assert_eq!(set_sysfs_range(&missing, 540), Ok(None));
        let _ = fs::remove_dir_all(dir);
        let _ = fs::remove_dir_all(missing);
    }
}
