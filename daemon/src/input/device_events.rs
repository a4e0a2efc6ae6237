//! Every player input device at once, for the set-up commands (`rigd devices --watch`,
//! `rigd calibrate`): opens each evdev node that looks like a wheel, pedal set, shifter,
//! handbrake or gamepad ([`is_player_device`]), reads their axis and button events without
//! blocking, and notices devices appearing and going away. The running daemon reads only the
//! devices its config names ([`super::reader`]); this reader is for finding them.
//!
//! Devices are numbered for the life of the [`DeviceEvents`]: a device that goes away and
//! comes back (same stable id, see [`DeviceInfo::stable_id`]) keeps its number, so a
//! calibration that saw it before still knows its axes.

use std::fs::OpenOptions;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

use evdev::raw_stream::RawDevice;
use evdev::{EventType, SynchronizationCode};

use crate::devices::{self, AxisInfo, Capabilities, DeviceInfo};

/// How often the device list is read again for devices that appeared.
const RESCAN: Duration = Duration::from_millis(500);
/// Highest absolute axis code of a stick, wheel or pedal (below the multi-touch codes).
const LAST_CONTROL_AXIS: u16 = 0x28;
/// Joystick and gamepad buttons (`BTN_JOYSTICK` ..= `BTN_THUMBR`, `BTN_TRIGGER_HAPPY`...).
const JOYSTICK_BUTTONS: std::ops::RangeInclusive<u16> = 0x120..=0x13f;
const TRIGGER_HAPPY_FIRST: u16 = 0x2c0;
/// Touchpads, touch screens and tablets carry these and are not controls.
const BTN_TOOL_FINGER: u16 = 0x145;
const BTN_TOUCH: u16 = 0x14a;

/// True for a device rigd could use as player input: it has a stick, wheel or pedal axis,
/// or joystick buttons, and it is not a touch surface.
pub fn is_player_device(caps: &Capabilities) -> bool {
    let touch = caps
        .buttons
        .iter()
        .any(|(code, _)| *code == BTN_TOUCH || *code == BTN_TOOL_FINGER);
    let axes = caps.axes.iter().any(|a| a.code <= LAST_CONTROL_AXIS);
    let buttons = caps
        .buttons
        .iter()
        .any(|(code, _)| JOYSTICK_BUTTONS.contains(code) || *code >= TRIGGER_HAPPY_FIRST);
    !touch && (axes || buttons)
}

/// One axis of a device that appeared, with its value then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxisNow {
    /// Kernel range and name.
    pub info: AxisInfo,
    /// Value when the device was opened.
    pub value: i32,
}

/// What the devices did.
#[derive(Debug, Clone, PartialEq)]
pub enum DeviceEvent {
    /// Device `device` appeared (or came back); its axes with their values now.
    Appeared {
        /// Its number.
        device: usize,
        /// Its axes.
        axes: Vec<AxisNow>,
    },
    /// A device that matches but cannot be opened (permissions); said once per node.
    Unreadable {
        /// Its event node.
        node: PathBuf,
        /// Why, with the fix.
        why: String,
    },
    /// Device `device` went away.
    Gone {
        /// Its number.
        device: usize,
    },
    /// An axis value.
    Axis {
        /// Device number.
        device: usize,
        /// Kernel axis code.
        code: u16,
        /// Raw value.
        value: i32,
        /// Kernel event time, s.
        time_s: f64,
    },
    /// A button (value 1 press, 0 release; auto-repeat is dropped).
    Button {
        /// Device number.
        device: usize,
        /// Kernel key code.
        code: u16,
        /// True on press.
        pressed: bool,
    },
    /// The end of one report of device `device` (`SYN_REPORT`).
    Report {
        /// Device number.
        device: usize,
    },
}

struct Slot {
    info: DeviceInfo,
    open: Option<RawDevice>,
}

/// Which axes get the kernel's noise filter (fuzz) and flat zone switched off when a device
/// is opened, as `rigd run` does for the axes it maps; the answer for (device, axis code).
pub type ClearFilters = Box<dyn Fn(&DeviceInfo, u16) -> bool>;

/// The open player devices.
pub struct DeviceEvents {
    slots: Vec<Slot>,
    clear_filters: ClearFilters,
    sys_root: PathBuf,
    dev_root: PathBuf,
    next_scan: Instant,
    told_unreadable: Vec<PathBuf>,
}

impl std::fmt::Debug for DeviceEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceEvents")
            .field("devices", &self.slots.len())
            .finish_non_exhaustive()
    }
}

impl DeviceEvents {
    /// Nothing open yet; the first [`DeviceEvents::poll`] opens what is there.
    pub fn new(clear_filters: ClearFilters) -> DeviceEvents {
        DeviceEvents::under(Path::new("/sys"), Path::new("/dev"), clear_filters)
    }

    /// [`DeviceEvents::new`] with other sysfs and dev roots.
    pub fn under(sys_root: &Path, dev_root: &Path, clear_filters: ClearFilters) -> DeviceEvents {
        DeviceEvents {
            slots: Vec::new(),
            clear_filters,
            sys_root: sys_root.to_path_buf(),
            dev_root: dev_root.to_path_buf(),
            next_scan: Instant::now(),
            told_unreadable: Vec::new(),
        }
    }

    /// What is known about device `device` (also after it went away).
    pub fn info(&self, device: usize) -> &DeviceInfo {
        &self.slots[device].info
    }

    /// True while device `device` is open.
    pub fn is_present(&self, device: usize) -> bool {
        self.slots.get(device).is_some_and(|s| s.open.is_some())
    }

    /// How many devices are open now.
    pub fn present(&self) -> usize {
        self.slots.iter().filter(|s| s.open.is_some()).count()
    }

    /// Waits up to `timeout` for events and appends them to `out`; looks for new devices
    /// every half second.
    pub fn poll(&mut self, timeout: Duration, out: &mut Vec<DeviceEvent>) {
        if Instant::now() >= self.next_scan {
            self.next_scan = Instant::now() + RESCAN;
            self.scan(out);
        }
        let mut fds = Vec::new();
        let mut which = Vec::new();
        for (i, slot) in self.slots.iter().enumerate() {
            if let Some(device) = &slot.open {
                fds.push(libc::pollfd {
                    fd: device.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                });
                which.push(i);
            }
        }
        let wait_ms = timeout
            .min(self.next_scan.saturating_duration_since(Instant::now()))
            .as_millis() as i32;
        if fds.is_empty() {
            std::thread::sleep(Duration::from_millis(wait_ms as u64));
            return;
        }
        // SAFETY: `fds` is a valid array of pollfd for the duration of the call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, wait_ms) };
        if ready <= 0 {
            return;
        }
        for (pfd, index) in fds.iter().zip(which) {
            if pfd.revents != 0 {
                self.read(index, pfd.revents, out);
            }
        }
    }

    /// Reads what device `index` has queued (after `poll` said so).
    fn read(&mut self, index: usize, revents: libc::c_short, out: &mut Vec<DeviceEvent>) {
        let Some(device) = self.slots[index].open.as_mut() else {
            return;
        };
        let mut lost = revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0;
        match device.fetch_events() {
            Ok(events) => {
                for e in events {
                    let time_s = e
                        .timestamp()
                        .duration_since(UNIX_EPOCH)
                        .map_or(0.0, |d| d.as_secs_f64());
                    match e.event_type() {
                        EventType::ABSOLUTE => out.push(DeviceEvent::Axis {
                            device: index,
                            code: e.code(),
                            value: e.value(),
                            time_s,
                        }),
                        EventType::KEY if e.value() != 2 => out.push(DeviceEvent::Button {
                            device: index,
                            code: e.code(),
                            pressed: e.value() != 0,
                        }),
                        EventType::SYNCHRONIZATION
                            if e.code() == SynchronizationCode::SYN_REPORT.0 =>
                        {
                            out.push(DeviceEvent::Report { device: index })
                        }
                        _ => {}
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(_) => lost = true,
        }
        if lost {
            self.slots[index].open = None;
            out.push(DeviceEvent::Gone { device: index });
        }
    }

    /// Opens the player devices that are not open yet.
    fn scan(&mut self, out: &mut Vec<DeviceEvent>) {
        for sys in devices::sysfs::scan_inputs(&self.sys_root, &self.dev_root) {
            let open_now = self
                .slots
                .iter()
                .any(|s| s.open.is_some() && s.info.sys.event_node == sys.event_node);
            if open_now {
                continue;
            }
            let caps = devices::read_capabilities(&sys.event_node);
            let info = DeviceInfo { sys, caps };
            match &info.caps {
                Ok(caps) if is_player_device(caps) => self.open(info, out),
                Ok(_) => {}
                Err(why) => {
                    let node = info.sys.event_node.clone();
                    let event = node.file_name().map(|n| n.to_string_lossy().into_owned());
                    let player = event.is_some_and(|event| {
                        let caps = self.sys_root.join("class/input").join(event);
                        is_player_device(&sysfs_capabilities(&caps.join("device/capabilities")))
                    });
                    if player && !self.told_unreadable.contains(&node) {
                        self.told_unreadable.push(node.clone());
                        out.push(DeviceEvent::Unreadable {
                            node,
                            why: why.clone(),
                        });
                    }
                }
            }
        }
    }

    fn open(&mut self, info: DeviceInfo, out: &mut Vec<DeviceEvent>) {
        let Ok(device) = open_nonblocking(&info.sys.event_node) else {
            return;
        };
        let Ok(state) = device.get_abs_state() else {
            return;
        };
        let axes: Vec<AxisNow> = info
            .caps
            .as_ref()
            .map(|c| c.axes.clone())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|axis| {
                let now = state.get(usize::from(axis.code))?;
                if (self.clear_filters)(&info, axis.code) {
                    super::reader::set_abs_filters_off(&device, axis.code, now);
                }
                Some(AxisNow {
                    value: now.value,
                    info: axis,
                })
            })
            .collect();
        let stable = info.stable_id();
        let index = match self
            .slots
            .iter()
            .position(|s| s.open.is_none() && s.info.stable_id() == stable)
        {
            Some(i) => {
                self.slots[i] = Slot {
                    info,
                    open: Some(device),
                };
                i
            }
            None => {
                self.slots.push(Slot {
                    info,
                    open: Some(device),
                });
                self.slots.len() - 1
            }
        };
        out.push(DeviceEvent::Appeared {
            device: index,
            axes,
        });
    }
}

/// The axes and buttons sysfs lists for an input device (`capabilities/abs` and `key`,
/// readable by anyone), so a node rigd may not open can still be told from a keyboard.
/// Each file is a bitmap in hexadecimal words of the kernel's `long`, the most significant
/// word first.
fn sysfs_capabilities(dir: &Path) -> Capabilities {
    let bits = |name: &str| -> Vec<u16> {
        let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        let width = usize::BITS as usize;
        let mut set = Vec::new();
        for (index, word) in text.split_whitespace().rev().enumerate() {
            let value = u64::from_str_radix(word, 16).unwrap_or(0);
            for bit in 0..width {
                if value >> bit & 1 == 1 {
                    set.push((index * width + bit) as u16);
                }
            }
        }
        set
    };
    let axis = |code: u16| AxisInfo {
        code,
        name: String::new(),
        min: 0,
        max: 0,
        resolution: 0,
        fuzz: 0,
        flat: 0,
    };
    Capabilities {
        axes: bits("abs").into_iter().map(axis).collect(),
        buttons: bits("key")
            .into_iter()
            .map(|c| (c, String::new()))
            .collect(),
        ..Capabilities::default()
    }
}

fn open_nonblocking(node: &Path) -> io::Result<RawDevice> {
    let open = |write: bool| {
        OpenOptions::new()
            .read(true)
            .write(write)
            .custom_flags(libc::O_NONBLOCK)
            .open(node)
    };
    let file = open(true).or_else(|_| open(false))?;
    RawDevice::from_fd(OwnedFd::from(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(axes: &[u16], buttons: &[u16]) -> Capabilities {
        Capabilities {
            axes: axes
                .iter()
                .map(|code| AxisInfo {
                    code: *code,
                    name: String::new(),
                    min: 0,
                    max: 255,
                    resolution: 0,
                    fuzz: 0,
                    flat: 0,
                })
                .collect(),
            buttons: buttons.iter().map(|c| (*c, String::new())).collect(),
            ..Capabilities::default()
        }
    }

    #[test]
    fn wheels_pedals_and_shifters_count_keyboards_and_touchpads_do_not() {
        assert!(
            is_player_device(&caps(&[0x00, 0x02, 0x05], &[0x120])),
            "wheel"
        );
        assert!(
            is_player_device(&caps(&[0x01, 0x02, 0x05], &[])),
            "pedals, no buttons"
        );
        assert!(
            is_player_device(&caps(&[], &[0x2c0, 0x2c1])),
            "shifter, buttons only"
        );
        assert!(!is_player_device(&caps(&[], &[0x1e, 0x1f])), "keyboard");
        assert!(
            !is_player_device(&caps(&[0x00, 0x01, 0x35], &[0x14a, 0x145])),
            "touchpad"
        );
    }

    #[test]
    fn sysfs_bitmaps_tell_a_wheel_from_a_keyboard_without_opening_it() {
        let dir = std::env::temp_dir().join(format!("rigd-caps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A G29: ABS_X, Y, Z, RZ, HAT0X/Y; buttons 0x120 ..= 0x12f and 0x2c0 ..= 0x2c8.
        std::fs::write(dir.join("abs"), "30027\n").unwrap();
        std::fs::write(dir.join("key"), "1ff 0 0 0 0 0 0 ffff00000000 0 0 0 0\n").unwrap();
        let caps = sysfs_capabilities(&dir);
        let axes: Vec<u16> = caps.axes.iter().map(|a| a.code).collect();
        assert_eq!(axes, [0x00, 0x01, 0x02, 0x05, 0x10, 0x11]);
        assert!(caps.buttons.iter().any(|(c, _)| *c == 0x120));
        assert!(caps.buttons.iter().any(|(c, _)| *c == 0x2c8));
        assert!(is_player_device(&caps));
        // A keyboard: keys only, no axes.
        std::fs::write(dir.join("abs"), "0\n").unwrap();
        std::fs::write(dir.join("key"), "fffffffffffffffe\n").unwrap();
        assert!(!is_player_device(&sysfs_capabilities(&dir)));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn without_devices_nothing_appears() {
        let root = std::env::temp_dir().join(format!("rigd-devev-{}", std::process::id()));
        std::fs::create_dir_all(root.join("sys/class/input")).unwrap();
        let mut events =
            DeviceEvents::under(&root.join("sys"), &root.join("dev"), Box::new(|_, _| false));
        let mut out = Vec::new();
        events.poll(Duration::from_millis(1), &mut out);
        assert!(out.is_empty());
        assert_eq!(events.present(), 0);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
