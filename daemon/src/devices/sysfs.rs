//! Input devices as sysfs and devtmpfs show them, without udev: `/sys/class/input/event*`,
//! the HID parent's bound driver and hidraw nodes, the LED class devices under it, and the
//! optional `/dev/input/by-id` and `by-path` symlinks (absent without udev, e.g. in the vmrig
//! guest).
//!
//! Layout relied on: `/sys/class/input/eventN/device` is the input device (`name`, `uniq`,
//! `phys`, `id/{vendor,product,version,bustype}`); its `device` is the HID device
//! (`0003:046D:C24F.0001`), whose `driver` link names the kernel driver and whose `hidraw/`
//! holds the hidraw nodes and whose `report_descriptor` tells a HID PID base (usage page 0x0F)
//! from the rest. Values that cannot be read are left empty, never guessed.

use std::fs;
use std::path::{Path, PathBuf};

/// What sysfs says about one evdev node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SysfsInput {
    /// `/dev/input/eventN`.
    pub event_node: PathBuf,
    /// Kernel device name.
    pub name: String,
    /// USB (or other bus) vendor id.
    pub vendor: u16,
    /// Product id.
    pub product: u16,
    /// Bus type (3 = USB).
    pub bustype: u16,
    /// Serial number (`uniq`), empty when the device has none.
    pub serial: String,
    /// Physical path (`phys`).
    pub phys: String,
    /// Kernel driver bound to the HID parent (e.g. `logitech`), if any.
    pub driver: Option<String>,
    /// The HID parent's sysfs directory, if any.
    pub hid_dir: Option<PathBuf>,
    /// `/dev/hidrawN` nodes of the HID parent.
    pub hidraw: Vec<PathBuf>,
    /// The HID parent's report descriptor declares the PID usage page (0x0F): a HID PID
    /// force-feedback device, whatever driver name sysfs shows (`hid-generic` for hid-pidff).
    pub hid_pid_page: bool,
    /// LED class devices of the HID parent (`/sys/class/leds/<hid>::RPM1` ...), sorted.
    pub leds: Vec<PathBuf>,
    /// Names under `/dev/input/by-id` pointing at this node.
    pub by_id: Vec<String>,
    /// Names under `/dev/input/by-path` pointing at this node.
    pub by_path: Vec<String>,
}

fn read_trimmed(path: &Path) -> String {
    fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn read_hex(path: &Path) -> u16 {
    u16::from_str_radix(&read_trimmed(path), 16).unwrap_or(0)
}

fn link_name(path: &Path) -> Option<String> {
    let target = fs::read_link(path).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Names in `dir` (a udev symlink directory) whose target is `eventN`.
fn symlinks_to(dir: &Path, event: &str) -> Vec<String> {
    sorted_entries(dir)
        .into_iter()
        .filter(|p| link_name(p).as_deref() == Some(event))
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .collect()
}

/// Every `/sys/class/input/event*` node under `sys_root` / `dev_root` (normally `/sys` and
/// `/dev`), sorted by event number.
pub fn scan_inputs(sys_root: &Path, dev_root: &Path) -> Vec<SysfsInput> {
    let class = sys_root.join("class/input");
    let mut found: Vec<(u32, SysfsInput)> = sorted_entries(&class)
        .into_iter()
        .filter_map(|entry| {
            let event = entry.file_name()?.to_string_lossy().into_owned();
            let number: u32 = event.strip_prefix("event")?.parse().ok()?;
            Some((number, read_input(sys_root, dev_root, &entry, &event)))
        })
        .collect();
    found.sort_by_key(|(n, _)| *n);
    found.into_iter().map(|(_, d)| d).collect()
}

fn read_input(sys_root: &Path, dev_root: &Path, entry: &Path, event: &str) -> SysfsInput {
    let input = entry.join("device");
    let hid_dir = fs::canonicalize(input.join("device")).ok();
    let driver = hid_dir.as_ref().and_then(|h| link_name(&h.join("driver")));
    let hidraw = hid_dir
        .as_ref()
        .map(|h| {
            sorted_entries(&h.join("hidraw"))
                .into_iter()
                .filter_map(|p| Some(dev_root.join(p.file_name()?)))
                .collect()
        })
        .unwrap_or_default();
    let leds = hid_dir
        .as_ref()
        .and_then(|h| Some(h.file_name()?.to_string_lossy().into_owned()))
        .map(|hid_name| {
            sorted_entries(&sys_root.join("class/leds"))
                .into_iter()
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{hid_name}::")))
                })
                .collect()
        })
        .unwrap_or_default();
    SysfsInput {
        event_node: dev_root.join("input").join(event),
        name: read_trimmed(&input.join("name")),
        vendor: read_hex(&input.join("id/vendor")),
        product: read_hex(&input.join("id/product")),
        bustype: read_hex(&input.join("id/bustype")),
        serial: read_trimmed(&input.join("uniq")),
        phys: read_trimmed(&input.join("phys")),
        driver,
        hid_pid_page: hid_dir
            .as_deref()
            .is_some_and(super::hid_descriptor::hid_dir_declares_pid),
        hid_dir,
        hidraw,
        leds,
        by_id: symlinks_to(&dev_root.join("input/by-id"), event),
        by_path: symlinks_to(&dev_root.join("input/by-path"), event),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// Builds the sysfs shape of a G29 bound by hid-logitech in a temp dir (the dev machine has
    /// no input devices; the real kernel layout is exercised in vmrig).
    #[test]
    fn reads_ids_driver_hidraw_leds_and_udev_names() {
        let root = std::env::temp_dir().join(format!("rigd-sysfs-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let sys = root.join("sys");
        let dev = root.join("dev");
        let hid = sys.join("devices/usb1/1-1/1-1:1.0/0003:046D:C24F.0001");
        let input = hid.join("input/input5");
        fs::create_dir_all(input.join("event3")).unwrap();
        fs::create_dir_all(input.join("id")).unwrap();
        fs::create_dir_all(hid.join("hidraw/hidraw0")).unwrap();
        fs::create_dir_all(sys.join("bus/hid/drivers/logitech")).unwrap();
        symlink(sys.join("bus/hid/drivers/logitech"), hid.join("driver")).unwrap();
        symlink(&hid, input.join("device")).unwrap();
        fs::write(
            input.join("name"),
            "Logitech G29 Driving Force Racing Wheel\n",
        )
        .unwrap();
        fs::write(input.join("id/vendor"), "046d\n").unwrap();
        fs::write(input.join("id/product"), "c24f\n").unwrap();
        fs::write(input.join("id/bustype"), "0003\n").unwrap();
        fs::write(input.join("uniq"), "RIGTEST0001\n").unwrap();
        fs::create_dir_all(sys.join("class/input")).unwrap();
        symlink(&input, input.join("event3/device")).unwrap();
        symlink(input.join("event3"), sys.join("class/input/event3")).unwrap();
        fs::create_dir_all(sys.join("class/leds/0003:046D:C24F.0001::RPM1")).unwrap();
        fs::create_dir_all(sys.join("class/leds/input5::capslock")).unwrap();
        fs::create_dir_all(dev.join("input/by-id")).unwrap();
        symlink(
            "../event3",
            dev.join("input/by-id/usb-Logitech_G29-event-joystick"),
        )
        .unwrap();

        let found = scan_inputs(&sys, &dev);
        assert_eq!(found.len(), 1);
        let d = &found[0];
        assert_eq!((d.vendor, d.product, d.bustype), (0x046d, 0xc24f, 3));
        assert_eq!(d.driver.as_deref(), Some("logitech"));
        assert_eq!(d.serial, "RIGTEST0001");
        assert_eq!(d.hidraw, vec![dev.join("hidraw0")]);
        assert_eq!(d.leds.len(), 1);
        assert_eq!(d.by_id, vec!["usb-Logitech_G29-event-joystick".to_string()]);
        assert!(d.by_path.is_empty());
        assert_eq!(d.event_node, dev.join("input/event3"));
        assert!(
            !d.hid_pid_page,
            "no report descriptor: not taken for a PID base"
        );
        fs::remove_dir_all(&root).unwrap();
    }

    /// A PID base as the kernel shows it: bound by `hid-generic`, its report descriptor with
    /// the PID page; a keyboard next to it with a Generic Desktop descriptor only.
    #[test]
    fn recognises_a_pid_base_by_its_report_descriptor_not_its_driver() {
        let root = std::env::temp_dir().join(format!("rigd-sysfs-pid-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let sys = root.join("sys");
        let dev = root.join("dev");
        fs::create_dir_all(sys.join("class/input")).unwrap();
        fs::create_dir_all(sys.join("bus/hid/drivers/hid-generic")).unwrap();
        let pid_descriptor = [
            0x05, 0x01, 0x09, 0x04, 0xA1, 0x01, 0x05, 0x0F, 0x09, 0x21, 0xC0,
        ];
        let keyboard_descriptor = [0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x05, 0x07, 0xC0];
        for (n, hid_name, descriptor) in [
            (4, "0003:1209:FFB0.0002", &pid_descriptor[..]),
            (5, "0003:046D:C31C.0003", &keyboard_descriptor[..]),
        ] {
            let hid = sys.join(format!("devices/usb1/1-{n}/1-{n}:1.0/{hid_name}"));
            let input = hid.join(format!("input/input{n}"));
            fs::create_dir_all(input.join(format!("event{n}"))).unwrap();
            fs::write(hid.join("report_descriptor"), descriptor).unwrap();
            symlink(sys.join("bus/hid/drivers/hid-generic"), hid.join("driver")).unwrap();
            symlink(&hid, input.join("device")).unwrap();
            symlink(&input, input.join(format!("event{n}/device"))).unwrap();
            symlink(
                input.join(format!("event{n}")),
                sys.join(format!("class/input/event{n}")),
            )
            .unwrap();
        }
        let found = scan_inputs(&sys, &dev);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].driver.as_deref(), Some("hid-generic"));
        assert!(found[0].hid_pid_page);
        assert_eq!(found[1].driver.as_deref(), Some("hid-generic"));
        assert!(!found[1].hid_pid_page);
        fs::remove_dir_all(&root).unwrap();
    }
}
