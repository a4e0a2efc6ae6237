//! The emulated HID PID direct-drive base of the vmrig guest: a USB gadget with one
//! FunctionFS function (configfs `functions/ffs.pid`, mounted at `/dev/ffs-pid`) on the second
//! `dummy_hcd` UDC, so the guest's usbhid enumerates it like a base on a cable and the real
//! hid-generic + hid-pidff bind it. FunctionFS (not `f_hid`) because a PID base must answer
//! feature GET_REPORTs (Block Load, PID Pool) with live values.
//!
//! USB side: one HID interface (class 3) with a 9-byte HID descriptor pointing at
//! [`pid_descriptor::REPORT_DESCRIPTOR`] and one interrupt IN endpoint, **no interrupt OUT
//! endpoint**: every output report arrives as a SET_REPORT control transfer through usbhid's
//! control queue, as on the bases the issue describes (and hidraw writes become synchronous
//! SET_REPORTs).
//!
//! The emulator thread reads ep0 events and answers GET_DESCRIPTOR (report descriptor 0x22,
//! HID descriptor 0x21), SET_IDLE / SET_PROTOCOL, SET_REPORT (output and feature, data stage
//! read from ep0), GET_REPORT (feature Block Load and PID Pool, input reports) and stalls
//! anything else. Every SET_REPORT and feature GET is decoded by [`pid_model`] and appended
//! with its arrival time to a log the checks read ([`PidBase::events`], [`PidBase::wait_for`]);
//! the device model ([`pid_model::DeviceModel`]) answers Block Load from the same log. A second
//! thread writes input reports (rim X, buttons) to the IN endpoint ([`PidBase::send_input`]).
//!
//! The emulator is created once per guest process and lives until it exits; attach/detach
//! only bind/unbind the UDC.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::gadget::{find_ff_event_node, find_hidraw, make_dir, wait_for, write};
use super::pid_descriptor::{self as desc, id};
use super::pid_model::{DeviceModel, PidEvent, PidReport};

pub const VENDOR_ID: u16 = 0x1209;
pub const PRODUCT_ID: u16 = 0xffb0;
pub const SERIAL: &str = "RIGTEST-PID1";
pub const PRODUCT: &str = "rigd vmrig PID base";
/// `vid:pid` as rigd's config writes it.
pub const VID_PID: &str = "1209:ffb0";

const GADGETS: &str = "/sys/kernel/config/usb_gadget";
const GADGET: &str = "/sys/kernel/config/usb_gadget/pidbase";
const FUNCTION: &str = "functions/ffs.pid";
const CONFIGURATION: &str = "configs/c.1";
const FFS_MOUNT: &str = "/dev/ffs-pid";
/// The G29 takes `dummy_udc.0`; this base the second one (dummy_hcd loaded with `num=2`).
const PREFERRED_UDC: &str = "dummy_udc.1";

// FunctionFS (include/uapi/linux/usb/functionfs.h).
const FUNCTIONFS_DESCRIPTORS_MAGIC_V2: u32 = 3;
const FUNCTIONFS_STRINGS_MAGIC: u32 = 2;
const FUNCTIONFS_HAS_FS_DESC: u32 = 1;
const FUNCTIONFS_HAS_HS_DESC: u32 = 2;
const FUNCTIONFS_SETUP: u8 = 4;
const EVENT_SIZE: usize = 12;

/// The nodes of the attached base and the emulator behind it.
#[derive(Clone)]
pub struct PidBase {
    /// Host side: the evdev node hid-generic made, with hid-pidff's force feedback.
    pub evdev: PathBuf,
    /// Host side: `/dev/hidrawN` of the base.
    pub hidraw: Option<PathBuf>,
    emulator: Arc<Emulator>,
}

struct Emulator {
    log: Mutex<Log>,
    changed: Condvar,
    input: Mutex<Option<Vec<u8>>>,
    input_ready: Condvar,
    /// The last input report's write on the IN endpoint: when it began and when it returned
    /// (FunctionFS returns once the host's interrupt transfer took the data).
    input_written: Mutex<Option<(Instant, Instant)>>,
}

#[derive(Default)]
struct Log {
    events: Vec<PidEvent>,
    model: DeviceModel,
    /// Input report 1 as last sent (rim X, buttons).
    wheel: [u8; 3],
    /// Control requests the emulator stalled (for diagnosis).
    stalled: Vec<[u8; 8]>,
}

static EMULATOR: OnceLock<Arc<Emulator>> = OnceLock::new();

/// Creates the gadget and the emulator on first use, binds the base to its UDC and waits
/// until hid-generic's FF evdev node exists.
pub fn attach() -> Result<PidBase, String> {
    let emulator = match EMULATOR.get() {
        Some(e) => e.clone(),
        None => {
            let e = create()?;
            let _ = EMULATOR.set(e.clone());
            e
        }
    };
    let udc = pick_udc()?;
    write(&Path::new(GADGET).join("UDC"), udc.as_bytes())?;
    let evdev = wait_for(Duration::from_secs(10), || {
        find_ff_event_node(VENDOR_ID, PRODUCT_ID)
    })
    .ok_or_else(|| {
        format!(
            "no evdev node with force feedback for {VID_PID} 10 s after binding to {udc} \
             (did hid-pidff accept the descriptor? see the kernel lines of the serial log)"
        )
    })?;
    Ok(PidBase {
        evdev,
        hidraw: find_hidraw(VENDOR_ID, PRODUCT_ID),
        emulator,
    })
}

/// Unbinds the base from its UDC: the cable pulled out.
pub fn detach() -> Result<(), String> {
    write(&Path::new(GADGET).join("UDC"), b"\n")
}

impl PidBase {
    /// All reports so far, in arrival order.
    pub fn events(&self) -> Vec<PidEvent> {
        self.emulator.log.lock().expect("pid log").events.clone()
    }

    /// Reports from index `mark` on (a mark is `events().len()` at some earlier moment).
    pub fn events_since(&self, mark: usize) -> Vec<PidEvent> {
        let log = self.emulator.log.lock().expect("pid log");
        log.events
            .get(mark..)
            .map(<[_]>::to_vec)
            .unwrap_or_default()
    }

    /// The number of reports so far: a mark for [`PidBase::events_since`].
    pub fn mark(&self) -> usize {
        self.emulator.log.lock().expect("pid log").events.len()
    }

    /// The device model after every report so far.
    pub fn model(&self) -> DeviceModel {
        self.emulator.log.lock().expect("pid log").model.clone()
    }

    /// Force at the device now (share of full scale along +X).
    pub fn force_now(&self) -> f64 {
        let log = self.emulator.log.lock().expect("pid log");
        log.model.force_at(Instant::now())
    }

    /// Control requests the emulator stalled so far (setup packets).
    pub fn stalled(&self) -> Vec<[u8; 8]> {
        self.emulator.log.lock().expect("pid log").stalled.clone()
    }

    /// Waits until a report from index `mark` on satisfies `want`; returns it.
    pub fn wait_for(
        &self,
        mark: usize,
        timeout: Duration,
        mut want: impl FnMut(&PidEvent) -> bool,
    ) -> Option<PidEvent> {
        let end = Instant::now() + timeout;
        let mut seen = mark;
        let mut log = self.emulator.log.lock().expect("pid log");
        loop {
            if let Some(found) = log.events.get(seen..).and_then(|new| {
                seen += new.len();
                new.iter().find(|e| want(e)).cloned()
            }) {
                return Some(found);
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            log = self
                .emulator
                .changed
                .wait_timeout(log, left)
                .expect("pid log")
                .0;
        }
    }

    /// When the last input report's IN write began and returned (the host took it).
    pub fn last_input_write(&self) -> Option<(Instant, Instant)> {
        *self.emulator.input_written.lock().expect("pid input")
    }

    /// Queues input report 1 (rim X, buttons) for the IN endpoint; the writer thread sends the
    /// latest one as soon as the host polls. Returns when it was queued.
    pub fn send_input(&self, x: i16, buttons: u8) -> Instant {
        let [lo, hi] = x.to_le_bytes();
        let report = vec![id::INPUT_WHEEL, lo, hi, buttons];
        self.emulator.log.lock().expect("pid log").wheel = [lo, hi, buttons];
        *self.emulator.input.lock().expect("pid input") = Some(report);
        self.emulator.input_ready.notify_one();
        Instant::now()
    }
}

fn create() -> Result<Arc<Emulator>, String> {
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
    write(&gadget.join("bcdDevice"), b"0x0100")?;
    write(&gadget.join("bcdUSB"), b"0x0200")?;
    let strings = gadget.join("strings/0x409");
    make_dir(&strings)?;
    write(&strings.join("manufacturer"), b"rigd")?;
    write(&strings.join("product"), PRODUCT.as_bytes())?;
    write(&strings.join("serialnumber"), SERIAL.as_bytes())?;
    let configuration = gadget.join(CONFIGURATION);
    make_dir(&configuration)?;
    make_dir(&configuration.join("strings/0x409"))?;
    write(&configuration.join("strings/0x409/configuration"), b"PID")?;
    write(&configuration.join("MaxPower"), b"100")?;
    let function = gadget.join(FUNCTION);
    make_dir(&function)?;
    let link = configuration.join("ffs.pid");
    match std::os::unix::fs::symlink(&function, &link) {
        Err(e) if e.kind() != ErrorKind::AlreadyExists => {
            return Err(format!(
                "cannot link {} into {}: {e}",
                function.display(),
                configuration.display()
            ))
        }
        _ => {}
    }
    make_dir(Path::new(FFS_MOUNT))?;
    mount_functionfs()?;
    let mut ep0 = OpenOptions::new()
        .read(true)
        .write(true)
        .open(Path::new(FFS_MOUNT).join("ep0"))
        .map_err(|e| format!("cannot open {FFS_MOUNT}/ep0: {e}"))?;
    ep0.write_all(&usb_descriptors())
        .map_err(|e| format!("FunctionFS refused the descriptors: {e}"))?;
    ep0.write_all(&usb_strings())
        .map_err(|e| format!("FunctionFS refused the strings: {e}"))?;
    let ep1 = OpenOptions::new()
        .write(true)
        .open(Path::new(FFS_MOUNT).join("ep1"))
        .map_err(|e| format!("cannot open {FFS_MOUNT}/ep1: {e}"))?;
    let emulator = Arc::new(Emulator {
        log: Mutex::new(Log::default()),
        changed: Condvar::new(),
        input: Mutex::new(None),
        input_ready: Condvar::new(),
        input_written: Mutex::new(None),
    });
    let e = emulator.clone();
    std::thread::Builder::new()
        .name("pid-ep0".into())
        .spawn(move || serve_ep0(&e, ep0))
        .map_err(|e| format!("cannot start the ep0 thread: {e}"))?;
    let e = emulator.clone();
    std::thread::Builder::new()
        .name("pid-in".into())
        .spawn(move || serve_input(&e, ep1))
        .map_err(|e| format!("cannot start the IN endpoint thread: {e}"))?;
    Ok(emulator)
}

fn mount_functionfs() -> Result<(), String> {
    let source = c"pid";
    let target = c"/dev/ffs-pid";
    let fstype = c"functionfs";
    // SAFETY: NUL-terminated strings that outlive the call; no mount data.
    let rc = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if rc != 0 {
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EBUSY) {
            return Err(format!(
                "cannot mount functionfs at {FFS_MOUNT}: {e} (is usb_f_fs loaded?)"
            ));
        }
    }
    Ok(())
}

/// FunctionFS v2 descriptors: full and high speed, each an interface (class HID), the HID
/// class descriptor and one interrupt IN endpoint (64 bytes, every 1 ms).
fn usb_descriptors() -> Vec<u8> {
    let interface = [9u8, 0x04, 0, 0, 1, 0x03, 0, 0, 1];
    let hid = hid_class_descriptor();
    let endpoint = |interval: u8| [7u8, 0x05, 0x81, 0x03, 64, 0, interval];
    let mut body = Vec::new();
    for interval in [1u8, 4] {
        body.extend_from_slice(&interface);
        body.extend_from_slice(&hid);
        body.extend_from_slice(&endpoint(interval));
    }
    let mut out = Vec::new();
    let header_len = 4 * 5;
    out.extend_from_slice(&FUNCTIONFS_DESCRIPTORS_MAGIC_V2.to_le_bytes());
    out.extend_from_slice(&((header_len + body.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC).to_le_bytes());
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// HID 1.11, no country, one class descriptor: the report descriptor and its length.
fn hid_class_descriptor() -> [u8; 9] {
    let [lo, hi] = (desc::REPORT_DESCRIPTOR.len() as u16).to_le_bytes();
    [9, 0x21, 0x11, 0x01, 0, 1, 0x22, lo, hi]
}

/// One string (the interface name) in US English.
fn usb_strings() -> Vec<u8> {
    let name = b"rigd PID force feedback\0";
    let mut out = Vec::new();
    out.extend_from_slice(&FUNCTIONFS_STRINGS_MAGIC.to_le_bytes());
    out.extend_from_slice(&((16 + 2 + name.len()) as u32).to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0x0409u16.to_le_bytes());
    out.extend_from_slice(name);
    out
}

/// The ep0 loop: one event at a time; a SETUP's data or status stage is done before the next
/// event is read (FunctionFS requires that order).
fn serve_ep0(emulator: &Emulator, ep0: File) {
    let fd = ep0.as_raw_fd();
    loop {
        let mut event = [0u8; EVENT_SIZE];
        // SAFETY: reading into a local buffer of the given size.
        let n = unsafe { libc::read(fd, event.as_mut_ptr().cast(), EVENT_SIZE) };
        if n != EVENT_SIZE as isize {
            if n < 0 && std::io::Error::last_os_error().kind() == ErrorKind::Interrupted {
                continue;
            }
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        if event[8] == FUNCTIONFS_SETUP {
            let requested = Instant::now();
            let mut setup = [0u8; 8];
            setup.copy_from_slice(&event[..8]);
            serve_setup(emulator, fd, setup, requested);
        }
    }
}

fn serve_setup(emulator: &Emulator, fd: i32, setup: [u8; 8], requested: Instant) {
    let request_type = setup[0];
    let request = setup[1];
    let value = u16::from_le_bytes([setup[2], setup[3]]);
    let length = usize::from(u16::from_le_bytes([setup[6], setup[7]]));
    let [report_id, kind] = value.to_le_bytes();
    match (request_type, request) {
        // GET_DESCRIPTOR (standard, interface): the report descriptor or the HID descriptor.
        (0x81, 0x06) if kind == 0x22 => reply(fd, desc::REPORT_DESCRIPTOR, length),
        (0x81, 0x06) if kind == 0x21 => reply(fd, &hid_class_descriptor(), length),
        // SET_IDLE, SET_PROTOCOL: accepted.
        (0x21, 0x0a) | (0x21, 0x0b) => ack(fd),
        // SET_REPORT: the data stage carries the report (id first).
        (0x21, 0x09) => {
            let mut data = vec![0u8; length];
            // SAFETY: reading at most `length` bytes into a buffer of that size.
            let n = unsafe { libc::read(fd, data.as_mut_ptr().cast(), length) };
            let at = Instant::now();
            if n >= 0 {
                data.truncate(n as usize);
                record(emulator, requested, at, PidReport::decode(kind, &data));
            }
        }
        // GET_REPORT: feature Block Load and PID Pool, the input reports.
        (0xa1, 0x01) => match get_report(emulator, kind, report_id) {
            Some(bytes) => reply(fd, &bytes, length),
            None => stall(emulator, fd, setup),
        },
        // GET_IDLE (0) and GET_PROTOCOL (report protocol).
        (0xa1, 0x02) => reply(fd, &[0], length),
        (0xa1, 0x03) => reply(fd, &[1], length),
        _ => stall(emulator, fd, setup),
    }
}

fn record(emulator: &Emulator, requested: Instant, at: Instant, report: PidReport) {
    let mut log = emulator.log.lock().expect("pid log");
    let event = PidEvent {
        at,
        requested,
        report,
    };
    log.model.apply(&event);
    log.events.push(event);
    drop(log);
    emulator.changed.notify_all();
}

fn get_report(emulator: &Emulator, kind: u8, report_id: u8) -> Option<Vec<u8>> {
    let at = Instant::now();
    match (kind, report_id) {
        (3, id::BLOCK_LOAD) => {
            let (block, status, free) = {
                let log = emulator.log.lock().expect("pid log");
                let free = log
                    .model
                    .blocks
                    .iter()
                    .skip(1)
                    .filter(|b| !b.allocated)
                    .count();
                (log.model.block_load.0, log.model.block_load.1, free as u16)
            };
            record(emulator, at, at, PidReport::BlockLoadRead { block, status });
            let [lo, hi] = (free * 64).to_le_bytes();
            Some(vec![id::BLOCK_LOAD, block, status, lo, hi])
        }
        (3, id::PID_POOL) => {
            record(emulator, at, at, PidReport::PoolRead);
            let [lo, hi] = (u16::from(desc::MAX_BLOCKS) * 64).to_le_bytes();
            // Device managed pool, no shared parameter blocks.
            Some(vec![id::PID_POOL, lo, hi, desc::MAX_BLOCKS, 0b01])
        }
        // Not read by hid-pidff, but a host that reads every feature report gets a valid one.
        (3, id::CREATE_NEW_EFFECT) => Some(vec![id::CREATE_NEW_EFFECT, 0, 0, 0]),
        (1, id::INPUT_WHEEL) => {
            let wheel = emulator.log.lock().expect("pid log").wheel;
            Some(vec![id::INPUT_WHEEL, wheel[0], wheel[1], wheel[2]])
        }
        (1, id::INPUT_PID_STATE) => {
            let model = emulator.log.lock().expect("pid log").model.clone();
            let state = u8::from(model.paused)
                | u8::from(model.actuators_enabled) << 1
                | 1 << 2 // safety switch closed
                | 1 << 4; // actuator power on
            Some(vec![id::INPUT_PID_STATE, state, 0])
        }
        _ => None,
    }
}

/// IN data stage: at most `length` bytes.
fn reply(fd: i32, bytes: &[u8], length: usize) {
    let n = bytes.len().min(length);
    // SAFETY: writing `n` bytes of a live slice.
    unsafe { libc::write(fd, bytes.as_ptr().cast(), n) };
}

/// Status stage of a request without data.
fn ack(fd: i32) {
    let mut nothing = [0u8; 1];
    // SAFETY: a zero-length read.
    unsafe { libc::read(fd, nothing.as_mut_ptr().cast(), 0) };
}

/// FunctionFS stalls ep0 when the data stage goes the wrong way: a read for an IN request,
/// a write for an OUT request.
fn stall(emulator: &Emulator, fd: i32, setup: [u8; 8]) {
    emulator.log.lock().expect("pid log").stalled.push(setup);
    let mut nothing = [0u8; 1];
    // SAFETY: zero-length read or write on our own fd.
    unsafe {
        if setup[0] & 0x80 != 0 {
            libc::read(fd, nothing.as_mut_ptr().cast(), 0);
        } else {
            libc::write(fd, nothing.as_ptr().cast(), 0);
        }
    }
}

/// The IN endpoint: writes the latest queued input report; a write returns once the host
/// polled it (usbhid polls only while the input device is open).
fn serve_input(emulator: &Emulator, mut ep1: File) {
    loop {
        let report = {
            let mut slot = emulator.input.lock().expect("pid input");
            loop {
                if let Some(r) = slot.take() {
                    break r;
                }
                slot = emulator.input_ready.wait(slot).expect("pid input");
            }
        };
        let began = Instant::now();
        if ep1.write_all(&report).is_err() {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        *emulator.input_written.lock().expect("pid input") = Some((began, Instant::now()));
    }
}

/// `dummy_udc.1` when dummy_hcd made two controllers, else the only one.
fn pick_udc() -> Result<String, String> {
    let mut names: Vec<String> = fs::read_dir("/sys/class/udc")
        .map_err(|e| format!("cannot list /sys/class/udc: {e} (is udc-core loaded?)"))?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    if names.iter().any(|n| n == PREFERRED_UDC) {
        return Ok(PREFERRED_UDC.to_string());
    }
    names
        .pop()
        .ok_or_else(|| "no UDC in /sys/class/udc (is dummy_hcd loaded?)".to_string())
}
