//! Which backend drives a force-feedback device, and why: a pure decision from the config's
//! `[devices.ffb] backend` and what the device offers ([`BackendProbe`]: whether its HID report
//! descriptor declares the PID usage page 0x0F, and whether rigd may open its hidraw node).
//!
//! `auto` takes hidraw PID when both hold (rigd then writes the PID reports itself and the
//! hidraw write's completion paces it), else evdev, which works for every kernel FF driver.
//! An explicit `hidraw` that the device cannot honour turns the force off on that device (the
//! user asked for a path that is not there) and says how to fix it; `evdev` is always evdev.
//! The FFB output (`crate::ffb::output_stage`) and `rigd devices` both use [`choose`]; it
//! lives with the devices because it is about what a device offers.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use rig_config::devices::FfbBackend;

use super::SysfsInput;

/// The backend a device gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The kernel's evdev force-feedback API (`crate::ffb::FfbWriter`).
    Evdev,
    /// rigd's own HID PID reports over the device's hidraw node.
    HidrawPid,
    /// No force on this device (the configured backend cannot drive it).
    Off,
}

/// What the decision needs to know about a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendProbe {
    /// The HID report descriptor declares the PID usage page.
    pub hid_pid_page: bool,
    /// The device's hidraw node, if it has one.
    pub hidraw: Option<PathBuf>,
    /// Why the hidraw node cannot be opened for reading and writing (None: it can).
    pub hidraw_refused: Option<String>,
}

impl BackendProbe {
    /// Probes a device as sysfs describes it (opens and closes its hidraw node, which the
    /// device does not notice).
    pub fn of(sys: &SysfsInput) -> BackendProbe {
        let hidraw = sys.hidraw.first().cloned();
        let hidraw_refused = match &hidraw {
            Some(node) => open_refusal(node),
            None => Some("the device has no hidraw node".to_string()),
        };
        BackendProbe {
            hid_pid_page: sys.hid_pid_page,
            hidraw,
            hidraw_refused,
        }
    }
}

/// Why `node` cannot be opened read-write, or None when it can.
fn open_refusal(node: &Path) -> Option<String> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .open(node)
        .err()
        .map(|e| format!("{} cannot be opened read-write: {e}", node.display()))
}

/// The fix for a hidraw node rigd may not open.
const HIDRAW_FIX: &str = "add a udev rule giving rigd's user read-write access to the \
    device's hidraw node (systemd/60-rigd.rules, installed as the README's \"Install as a \
    service\" shows), or set [devices.ffb] backend = \"evdev\"";

/// Picks the backend for a device with `probe` under the configured `wanted`, and says why.
pub fn choose(wanted: FfbBackend, probe: &BackendProbe) -> (Backend, String) {
    let node = probe
        .hidraw
        .as_ref()
        .map_or_else(|| "-".to_string(), |p| p.display().to_string());
    match wanted {
        FfbBackend::Evdev => (
            Backend::Evdev,
            "evdev (devices.ffb.backend = \"evdev\")".to_string(),
        ),
        FfbBackend::Auto => match (&probe.hidraw_refused, probe.hid_pid_page) {
            (_, false) => (
                Backend::Evdev,
                "evdev (no HID PID usage page in the report descriptor: the kernel driver \
                 does the force feedback)"
                    .to_string(),
            ),
            (None, true) => (
                Backend::HidrawPid,
                format!("hidraw PID (usage page 0x0F, {node} writable)"),
            ),
            (Some(why), true) => (
                Backend::Evdev,
                format!("evdev (HID PID base, but {why}; for the hidraw backend {HIDRAW_FIX})"),
            ),
        },
        FfbBackend::Hidraw => match (&probe.hidraw_refused, probe.hid_pid_page) {
            (_, false) => (
                Backend::Off,
                "off: devices.ffb.backend = \"hidraw\" but the device's report descriptor has \
                 no HID PID usage page (fix: set backend = \"evdev\" or \"auto\")"
                    .to_string(),
            ),
            (None, true) => (
                Backend::HidrawPid,
                format!("hidraw PID (devices.ffb.backend = \"hidraw\", usage page 0x0F, {node} writable)"),
            ),
            (Some(why), true) => (
                Backend::Off,
                format!("off: devices.ffb.backend = \"hidraw\" but {why} (fix: {HIDRAW_FIX})"),
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(pid: bool, refused: Option<&str>) -> BackendProbe {
        BackendProbe {
            hid_pid_page: pid,
            hidraw: Some(PathBuf::from("/dev/hidraw3")),
            hidraw_refused: refused.map(str::to_string),
        }
    }

    #[test]
    fn auto_takes_hidraw_for_a_writable_pid_base_and_evdev_otherwise() {
        let (b, why) = choose(FfbBackend::Auto, &probe(true, None));
        assert_eq!(b, Backend::HidrawPid);
        assert_eq!(why, "hidraw PID (usage page 0x0F, /dev/hidraw3 writable)");
        let (b, why) = choose(FfbBackend::Auto, &probe(true, Some("permission denied")));
        assert_eq!(b, Backend::Evdev);
        assert!(
            why.contains("permission denied") && why.contains("udev rule"),
            "{why}"
        );
        let (b, why) = choose(FfbBackend::Auto, &probe(false, None));
        assert_eq!(b, Backend::Evdev);
        assert!(why.contains("no HID PID usage page"), "{why}");
    }

    #[test]
    fn evdev_is_always_evdev() {
        for p in [probe(true, None), probe(false, Some("x"))] {
            assert_eq!(choose(FfbBackend::Evdev, &p).0, Backend::Evdev);
        }
    }

    #[test]
    fn an_explicit_hidraw_that_cannot_be_honoured_turns_the_force_off_with_the_fix() {
        assert_eq!(
            choose(FfbBackend::Hidraw, &probe(true, None)).0,
            Backend::HidrawPid
        );
        let (b, why) = choose(FfbBackend::Hidraw, &probe(false, None));
        assert_eq!(b, Backend::Off);
        assert!(why.contains("backend = \"evdev\""), "{why}");
        let (b, why) = choose(FfbBackend::Hidraw, &probe(true, Some("EACCES")));
        assert_eq!(b, Backend::Off);
        assert!(why.contains("EACCES") && why.contains("udev rule"), "{why}");
    }

    #[test]
    fn a_missing_or_closed_hidraw_node_is_probed_as_refused() {
        let sys = SysfsInput {
            hid_pid_page: true,
            hidraw: vec![PathBuf::from("/nonexistent/hidraw9")],
            ..SysfsInput::default()
        };
        let p = BackendProbe::of(&sys);
        assert!(p
            .hidraw_refused
            .as_deref()
            .is_some_and(|w| w.contains("/nonexistent/hidraw9")));
        let none = BackendProbe::of(&SysfsInput::default());
        assert_eq!(
            none.hidraw_refused.as_deref(),
            Some("the device has no hidraw node")
        );
    }
}
