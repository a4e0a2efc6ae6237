//! Input devices: enumeration (sysfs plus evdev capabilities), stable identification, matching
//! against `[[devices.device]]`, and the `rigd devices` listing.
//!
//! Enumeration never needs udev: sysfs gives ids, driver and hidraw nodes; the by-id / by-path
//! names are added when udev made them. Capabilities (axes with ranges and resolution,
//! buttons, FF effects) need the event node to be readable; when it is not, the listing says
//! so and how to fix it instead of guessing. Force-feedback devices are listed with the
//! backend rigd would drive them through and why ([`ffb_backend`]).

pub mod ffb_backend;
pub mod hid_descriptor;
pub mod sysfs;

use std::io::{self, Write};
use std::path::Path;

use evdev::raw_stream::RawDevice;
use evdev::{AbsoluteAxisCode, KeyCode};
use rig_config::devices::{DeviceMatch, FfbBackend};

use ffb_backend::BackendProbe;

pub use sysfs::SysfsInput;

/// One absolute axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxisInfo {
    /// Kernel code.
    pub code: u16,
    /// Kernel name, e.g. `ABS_X`.
    pub name: String,
    /// Minimum raw value.
    pub min: i32,
    /// Maximum raw value.
    pub max: i32,
    /// Units per mm (or per radian for rotation axes), 0 when unknown.
    pub resolution: i32,
    /// Kernel fuzz (noise filter).
    pub fuzz: i32,
    /// Kernel flat (deadzone hint; rigd ignores it).
    pub flat: i32,
}

/// Capabilities read through evdev.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Absolute axes.
    pub axes: Vec<AxisInfo>,
    /// Buttons and keys as `(code, name)`.
    pub buttons: Vec<(u16, String)>,
    /// Force-feedback effects and controls, e.g. `FF_CONSTANT`, `FF_GAIN`.
    pub ff: Vec<String>,
    /// How many effects the device stores.
    pub ff_max_effects: usize,
}

impl Capabilities {
    /// True when the device takes a streamed constant force.
    pub fn has_constant_force(&self) -> bool {
        self.ff.iter().any(|f| f == "FF_CONSTANT")
    }
}

/// One input device.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    /// What sysfs says.
    pub sys: SysfsInput,
    /// What evdev says, or why it could not be read.
    pub caps: Result<Capabilities, String>,
}

impl DeviceInfo {
    /// A name that survives reboots and re-plugging: the by-id name, else VID:PID plus serial,
    /// else the by-path name, else the physical path.
    pub fn stable_id(&self) -> String {
        let s = &self.sys;
        if let Some(id) = s.by_id.first() {
            return format!("by-id/{id}");
        }
        if !s.serial.is_empty() {
            return format!("{:04x}:{:04x}:{}", s.vendor, s.product, s.serial);
        }
        if let Some(p) = s.by_path.first() {
            return format!("by-path/{p}");
        }
        format!("{:04x}:{:04x}@{}", s.vendor, s.product, s.phys)
    }

    /// True when every criterion `m` gives matches this device.
    pub fn matches(&self, m: &DeviceMatch) -> bool {
        let s = &self.sys;
        m.vid_pid()
            .is_none_or(|(v, p)| v == s.vendor && p == s.product)
            && m.serial.as_ref().is_none_or(|x| *x == s.serial)
            && m.by_id.as_ref().is_none_or(|x| s.by_id.contains(x))
            && m.by_path.as_ref().is_none_or(|x| s.by_path.contains(x))
            && m.name_contains
                .as_ref()
                .is_none_or(|x| s.name.contains(x.as_str()))
            && (m.vid_pid.is_some()
                || m.by_id.is_some()
                || m.by_path.is_some()
                || m.name_contains.is_some())
    }
}

/// Reads axes, buttons and FF bits of an event node.
pub fn read_capabilities(node: &Path) -> Result<Capabilities, String> {
    let dev = RawDevice::open(node).map_err(|e| {
        format!(
            "cannot open {}: {e} (run as root, or add a udev rule giving your user or the \
             daemon's group access to the event node)",
            node.display()
        )
    })?;
    let mut caps = Capabilities::default();
    if let Some(axes) = dev.supported_absolute_axes() {
        let state = dev.get_abs_state().map_err(|e| format!("EVIOCGABS: {e}"))?;
        for axis in axes.iter() {
            let info = state[axis.0 as usize];
            caps.axes.push(AxisInfo {
                code: axis.0,
                name: format!("{axis:?}"),
                min: info.minimum,
                max: info.maximum,
                resolution: info.resolution,
                fuzz: info.fuzz,
                flat: info.flat,
            });
        }
    }
    if let Some(keys) = dev.supported_keys() {
        caps.buttons = keys.iter().map(|k| (k.0, format!("{k:?}"))).collect();
    }
    if let Some(ff) = dev.supported_ff() {
        caps.ff = ff.iter().map(|f| format!("{f:?}")).collect();
        caps.ff_max_effects = dev.max_ff_effects();
    }
    Ok(caps)
}

/// Every input device on this machine (empty when there are none).
pub fn list() -> Vec<DeviceInfo> {
    list_under(Path::new("/sys"), Path::new("/dev"))
}

/// [`list`] with other sysfs and dev roots (tests).
pub fn list_under(sys_root: &Path, dev_root: &Path) -> Vec<DeviceInfo> {
    sysfs::scan_inputs(sys_root, dev_root)
        .into_iter()
        .map(|sys| {
            let caps = read_capabilities(&sys.event_node);
            DeviceInfo { sys, caps }
        })
        .collect()
}

/// The first device matching `m` (with readable capabilities), if present now.
pub fn find(m: &DeviceMatch) -> Option<DeviceInfo> {
    sysfs::scan_inputs(Path::new("/sys"), Path::new("/dev"))
        .into_iter()
        .filter(|sys| {
            DeviceInfo {
                sys: sys.clone(),
                caps: Err(String::new()),
            }
            .matches(m)
        })
        .map(|sys| {
            let caps = read_capabilities(&sys.event_node);
            DeviceInfo { sys, caps }
        })
        .find(|d| d.caps.is_ok())
}

/// Resolves a config code name (`ABS_X`, `BTN_TRIGGER_HAPPY1`) or number (`0x2c0`, `288`).
pub fn resolve_code(code: &str, is_axis: bool) -> Option<u16> {
    if let Some(hex) = code.strip_prefix("0x") {
        return u16::from_str_radix(hex, 16).ok();
    }
    if let Ok(n) = code.parse::<u16>() {
        return Some(n);
    }
    if is_axis {
        code.parse::<AbsoluteAxisCode>().ok().map(|c| c.0)
    } else {
        code.parse::<KeyCode>().ok().map(|c| c.0)
    }
}

/// Prints the `rigd devices` listing, with the FFB backend `[devices.ffb] backend = "auto"`
/// would give each force-feedback device.
pub fn print(devices: &[DeviceInfo], out: &mut impl Write) -> io::Result<()> {
    print_with_backend(devices, FfbBackend::Auto, out)
}

/// Prints the `rigd devices` listing; each device with FF_CONSTANT gets a line saying which
/// backend the configured `backend` gives it and why.
pub fn print_with_backend(
    devices: &[DeviceInfo],
    backend: FfbBackend,
    out: &mut impl Write,
) -> io::Result<()> {
    if devices.is_empty() {
        writeln!(
            out,
            "no input devices found under /sys/class/input (plug in the wheel and pedals; in a \
             container or VM pass the USB devices through)"
        )?;
        return Ok(());
    }
    for d in devices {
        let s = &d.sys;
        writeln!(out, "{}  \"{}\"", s.event_node.display(), s.name)?;
        writeln!(
            out,
            "  vid:pid {:04x}:{:04x}  serial {}  stable id {}",
            s.vendor,
            s.product,
            if s.serial.is_empty() { "-" } else { &s.serial },
            d.stable_id()
        )?;
        writeln!(out, "  driver {}", s.driver.as_deref().unwrap_or("-"))?;
        let join = |v: &[String]| {
            if v.is_empty() {
                "-".to_string()
            } else {
                v.join(", ")
            }
        };
        writeln!(out, "  by-id {}", join(&s.by_id))?;
        writeln!(out, "  by-path {}", join(&s.by_path))?;
        let raw: Vec<String> = s.hidraw.iter().map(|p| p.display().to_string()).collect();
        writeln!(out, "  hidraw {}", join(&raw))?;
        if !s.leds.is_empty() {
            let leds: Vec<String> = s
                .leds
                .iter()
                .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
                .collect();
            writeln!(out, "  leds {}", leds.join(", "))?;
        }
        match &d.caps {
            Err(why) => writeln!(out, "  capabilities unknown: {why}")?,
            Ok(c) => {
                for a in &c.axes {
                    writeln!(
                        out,
                        "  axis {} (0x{:02x}) {} ..= {} resolution {} fuzz {} flat {}",
                        a.name, a.code, a.min, a.max, a.resolution, a.fuzz, a.flat
                    )?;
                }
                if !c.buttons.is_empty() {
                    let names: Vec<&str> = c.buttons.iter().map(|(_, n)| n.as_str()).collect();
                    writeln!(out, "  buttons ({}) {}", names.len(), names.join(" "))?;
                }
                if c.ff.is_empty() {
                    writeln!(out, "  force feedback -")?;
                } else {
                    writeln!(
                        out,
                        "  force feedback {} ({} effects)",
                        c.ff.join(" "),
                        c.ff_max_effects
                    )?;
                }
                if c.has_constant_force() {
                    let (_, why) = ffb_backend::choose(backend, &BackendProbe::of(s));
                    writeln!(out, "  ffb backend {why}")?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn wheel(pid: bool) -> DeviceInfo {
        DeviceInfo {
            sys: SysfsInput {
                event_node: PathBuf::from("/dev/input/event7"),
                name: "FFB base".to_string(),
                driver: Some("hid-generic".to_string()),
                hidraw: vec![PathBuf::from("/nonexistent/hidraw5")],
                hid_pid_page: pid,
                ..SysfsInput::default()
            },
            caps: Ok(Capabilities {
                ff: vec!["FF_CONSTANT".to_string(), "FF_GAIN".to_string()],
                ff_max_effects: 40,
                ..Capabilities::default()
            }),
        }
    }

    #[test]
    fn the_listing_says_which_backend_each_ffb_device_gets_and_why() {
        let mut text = Vec::new();
        print(&[wheel(true), wheel(false)], &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("ffb backend")).collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(
            lines[0].starts_with("  ffb backend evdev (HID PID base, but /nonexistent/hidraw5")
                && lines[0].contains("udev rule"),
            "{}",
            lines[0]
        );
        assert!(lines[1].contains("no HID PID usage page"), "{}", lines[1]);
        let mut forced = Vec::new();
        print_with_backend(&[wheel(false)], FfbBackend::Hidraw, &mut forced).unwrap();
        assert!(String::from_utf8(forced)
            .unwrap()
            .contains("ffb backend off:"));
    }
}
