//! The emulated Logitech G29 of the vmrig guest: a USB HID gadget (configfs `f_hid` on the
//! `dummy_hcd` loopback controller) that the guest's own USB host side enumerates, so `usbhid`
//! and the real `hid-logitech`/lg4ff driver bind it exactly as they bind a wheel on a cable.
//! (lg4ff refuses a uhid device: it wants a USB transport, hence a gadget.)
//!
//! Owns the gadget's configfs layout (ids, strings, one configuration with one HID function),
//! its report descriptor, and attaching/detaching it to the UDC with waits for the nodes the
//! tests use: the FF-capable evdev node, `/dev/hidrawN` and the device side `/dev/hidg0`.
//!
//! Report layout the descriptor declares: input 9 bytes (24 buttons in 3 bytes, a 4-bit hat and
//! 4 bits padding, 16-bit X, 8-bit Y, Z, Rz); output 7 bytes of vendor data without a report id,
//! the only shape lg4ff accepts for its force and LED commands.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const VENDOR_ID: u16 = 0x046d;
pub const PRODUCT_ID: u16 = 0xc24f;
pub const SERIAL: &str = "RIGTEST0001";

const GADGETS: &str = "/sys/kernel/config/usb_gadget";
const GADGET: &str = "/sys/kernel/config/usb_gadget/g29";
const HID_FUNCTION: &str = "functions/hid.usb0";
const CONFIGURATION: &str = "configs/c.1";
const DEVICE_SIDE: &str = "/dev/hidg0";

/// HID report descriptor of the emulated wheel (see the module header for the report layout).
#[rustfmt::skip]
const REPORT_DESCRIPTOR: &[u8] = &[
    0x05, 0x01,                   // Usage Page (Generic Desktop)
    0x09, 0x04,                   // Usage (Joystick)
    0xa1, 0x01,                   // Collection (Application)
    0x05, 0x09,                   //   Usage Page (Button)
    0x19, 0x01, 0x29, 0x18,       //   Usage Minimum (1), Usage Maximum (24)
    0x15, 0x00, 0x25, 0x01,       //   Logical 0..1
    0x75, 0x01, 0x95, 0x18,       //   Report Size 1, Count 24
    0x81, 0x02,                   //   Input (Data, Variable, Absolute)
    0x05, 0x01,                   //   Usage Page (Generic Desktop)
    0x09, 0x39,                   //   Usage (Hat switch)
    0x15, 0x00, 0x25, 0x07,       //   Logical 0..7
    0x35, 0x00, 0x46, 0x3b, 0x01, //   Physical 0..315
    0x65, 0x14,                   //   Unit (degrees)
    0x75, 0x04, 0x95, 0x01,       //   Report Size 4, Count 1
    0x81, 0x42,                   //   Input (Data, Variable, Absolute, Null state)
    0x65, 0x00,                   //   Unit (none)
    0x75, 0x04, 0x95, 0x01,       //   Report Size 4, Count 1
    0x81, 0x03,                   //   Input (Constant): padding
    0x09, 0x30,                   //   Usage (X): the wheel
    0x15, 0x00, 0x27, 0xff, 0xff, 0x00, 0x00, // Logical 0..65535
    0x35, 0x00, 0x47, 0xff, 0xff, 0x00, 0x00, // Physical 0..65535
    0x75, 0x10, 0x95, 0x01,       //   Report Size 16, Count 1
    0x81, 0x02,                   //   Input (Data, Variable, Absolute)
    0x09, 0x31, 0x09, 0x32, 0x09, 0x35, // Usage (Y), (Z), (Rz): the pedals
    0x15, 0x00, 0x26, 0xff, 0x00, //   Logical 0..255
    0x35, 0x00, 0x46, 0xff, 0x00, //   Physical 0..255
    0x75, 0x08, 0x95, 0x03,       //   Report Size 8, Count 3
    0x81, 0x02,                   //   Input (Data, Variable, Absolute)
    0x06, 0x00, 0xff,             //   Usage Page (Vendor 0xff00)
    0x09, 0x01,                   //   Usage (1)
    0x15, 0x00, 0x26, 0xff, 0x00, //   Logical 0..255
    0x75, 0x08, 0x95, 0x07,       //   Report Size 8, Count 7
    0x91, 0x02,                   //   Output (Data, Variable, Absolute): lg4ff's commands
    0xc0,                         // End Collection
];

/// The nodes of the attached wheel.
pub struct Attached {
    /// Host side: the evdev node hid-logitech created, with force feedback.
    pub evdev: PathBuf,
    /// Host side: the raw HID node, when hidraw is bound.
    pub hidraw: Option<PathBuf>,
    /// Device side: read it for lg4ff's output reports, write it for input reports.
    pub device_side: PathBuf,
}

/// Creates the gadget in configfs on first use, binds it to the (only) UDC and waits until
/// hid-logitech's FF evdev node and `/dev/hidg0` exist.
pub fn attach() -> Result<Attached, String> {
    if !Path::new(GADGET)
        .join(CONFIGURATION)
        .join("hid.usb0")
        .exists()
    {
        create()?;
    }
    let udc = first_udc()?;
    write(&Path::new(GADGET).join("UDC"), udc.as_bytes())?;
    let evdev = wait_for(Duration::from_secs(8), || {
        find_ff_event_node(VENDOR_ID, PRODUCT_ID)
    })
    .ok_or_else(|| {
        format!(
            "no evdev node with force feedback for {VENDOR_ID:04x}:{PRODUCT_ID:04x} 8 s after \
             binding to {udc} (did hid-logitech load? see the module lines of the serial log)"
        )
    })?;
    let device_side = PathBuf::from(DEVICE_SIDE);
    wait_for(Duration::from_secs(3), || {
        device_side.exists().then_some(())
    })
    .ok_or_else(|| format!("{DEVICE_SIDE} did not appear (is usb_f_hid loaded?)"))?;
    Ok(Attached {
        evdev,
        hidraw: find_hidraw(VENDOR_ID, PRODUCT_ID),
        device_side,
    })
}

/// Unbinds the gadget from the UDC: for the host this is the wheel's cable pulled out.
pub fn detach() -> Result<(), String> {
    write(&Path::new(GADGET).join("UDC"), b"\n")
}

fn create() -> Result<(), String> {
    let gadget = Path::new(GADGET);
    make_dir(Path::new(GADGETS))?;
    make_dir(gadget)?;
    write(
        &gadget.join("idVendor"),
        format!("{VENDOR_ID:#06x}").as_bytes(),
    )?;
    write(
        &gadget.join("idProduct"),
        format!("{PRODUCT_ID:#06x}").as_bytes(),
    )?;
    // lg4ff reads the device release to tell wheel revisions apart; 0x8900 is a G29's.
    write(&gadget.join("bcdDevice"), b"0x8900")?;
    write(&gadget.join("bcdUSB"), b"0x0200")?;
    let strings = gadget.join("strings/0x409");
    make_dir(&strings)?;
    write(&strings.join("manufacturer"), b"Logitech")?;
    write(&strings.join("product"), b"G29 Driving Force Racing Wheel")?;
    write(&strings.join("serialnumber"), SERIAL.as_bytes())?;
    let configuration = gadget.join(CONFIGURATION);
    make_dir(&configuration)?;
    make_dir(&configuration.join("strings/0x409"))?;
    write(&configuration.join("strings/0x409/configuration"), b"G29")?;
    write(&configuration.join("MaxPower"), b"500")?;
    let function = gadget.join(HID_FUNCTION);
    make_dir(&function)?;
    write(&function.join("protocol"), b"0")?;
    write(&function.join("subclass"), b"0")?;
    write(&function.join("report_length"), b"16")?;
    write(&function.join("report_desc"), REPORT_DESCRIPTOR)?;
    let link = configuration.join("hid.usb0");
    match std::os::unix::fs::symlink(&function, &link) {
        Err(e) if e.kind() != ErrorKind::AlreadyExists => Err(format!(
            "cannot link {} into {}: {e}",
            function.display(),
            configuration.display()
        )),
        _ => Ok(()),
    }
}

/// The first UDC by name (`dummy_udc.0`); the emulated PID base takes `dummy_udc.1`.
fn first_udc() -> Result<String, String> {
    let entries = fs::read_dir("/sys/class/udc")
        .map_err(|e| format!("cannot list /sys/class/udc: {e} (is udc-core loaded?)"))?;
    entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .min()
        .ok_or_else(|| "no UDC in /sys/class/udc (is dummy_hcd loaded?)".to_string())
}

/// `/dev/input/eventN` of the USB device `vendor:product`: matching ids and a non-empty `ff`
/// capability mask (the joystick node with force feedback, not a keyboard-like sibling).
/// Shared with the emulated PID base ([`super::pid_gadget`]).
pub fn find_ff_event_node(vendor: u16, product: u16) -> Option<PathBuf> {
    for entry in fs::read_dir("/sys/class/input")
        .ok()?
        .filter_map(Result::ok)
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("event") {
            continue;
        }
        let device = entry.path().join("device");
        let id = |field: &str| {
            fs::read_to_string(device.join("id").join(field))
                .ok()
                .and_then(|s| u16::from_str_radix(s.trim(), 16).ok())
        };
        let ff = fs::read_to_string(device.join("capabilities/ff")).unwrap_or_default();
        let node = Path::new("/dev/input").join(&name);
        if id("vendor") == Some(vendor)
            && id("product") == Some(product)
            && !matches!(ff.trim(), "" | "0")
            && node.exists()
        {
            return Some(node);
        }
    }
    None
}

/// `/dev/hidrawN` whose HID device name carries the ids `vendor:product`
/// (`0003:046D:C24F.000N` for the G29).
pub fn find_hidraw(vendor: u16, product: u16) -> Option<PathBuf> {
    let ids = format!("{vendor:04X}:{product:04X}");
    fs::read_dir("/sys/class/hidraw")
        .ok()?
        .filter_map(Result::ok)
        .find(|entry| {
            fs::read_link(entry.path().join("device"))
                .is_ok_and(|target| target.to_string_lossy().contains(&ids))
        })
        .map(|entry| Path::new("/dev").join(entry.file_name()))
}

/// Polls `probe` every 20 ms until it finds something or `timeout` passes.
pub fn wait_for<T>(timeout: Duration, mut probe: impl FnMut() -> Option<T>) -> Option<T> {
    let end = Instant::now() + timeout;
    loop {
        if let Some(found) = probe() {
            return Some(found);
        }
        if Instant::now() >= end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Creates a configfs directory; one that exists already is fine.
pub fn make_dir(path: &Path) -> Result<(), String> {
    match fs::create_dir(path) {
        Err(e) if e.kind() != ErrorKind::AlreadyExists => {
            Err(format!("cannot create {}: {e}", path.display()))
        }
        _ => Ok(()),
    }
}

/// Writes a configfs or sysfs attribute, with the path in the error.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
