//! The input thread: opens the configured devices, reads their evdev events (blocking in
//! `poll`, which is fine here and never on the RT thread) and publishes the player's input
//! into the session's [`super::hub::InputHub`] after every `SYN_REPORT`, and the rim motion and e-stop latch
//! through the FFB link.
//!
//! Hot-plug: a read error or hang-up closes the device and its controls go safe at once
//! ([`ControlState::on_disconnect`]); missing devices are looked for in sysfs by their stable
//! identity every 250 ms and reopened and remapped without a restart. Which devices are open
//! (name, vid:pid) goes to the hub's presence after the first scan and every change. On open the kernel's fuzz
//! and flat are set to 0 on the mapped axes (hid-input's defaults hide small wheel movements),
//! and the event clock is set to CLOCK_MONOTONIC (`EVIOCSCLOCKID`).

use std::fs::OpenOptions;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, UNIX_EPOCH};

use evdev::raw_stream::RawDevice;
use evdev::{EventType, SynchronizationCode};
use rig_config::devices::{DeviceMatch, DevicesConfig};

use super::hub::{FoundDevice, InputHub};
use super::player_input::PlayerInput;
use super::state::{Bindings, ControlState, MappingError};
use crate::devices;
use crate::ffb::FfbLink;
use crate::rt::handoff::LatestReader;

/// How often missing devices are looked for.
const RESCAN: Duration = Duration::from_millis(250);
/// Longest blocking wait in `poll`, so rescans and shutdown happen on time.
const POLL_TIMEOUT_MS: i32 = 50;

/// The running input thread; dropping it stops the thread.
#[derive(Debug)]
pub struct InputThread {
    quit: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl InputThread {
    /// Resolves the mapping and starts reading. The returned reader always holds the latest
    /// [`PlayerInput`] (disconnected until the steering device is found).
    pub fn spawn(
        config: &DevicesConfig,
        link: Arc<FfbLink>,
    ) -> Result<(InputThread, LatestReader<PlayerInput>), MappingError> {
        let (hub, reader) = InputHub::new();
        Ok((InputThread::spawn_into(config, link, hub)?, reader))
    }

    /// [`InputThread::spawn`] publishing into the session's input merge.
    pub fn spawn_into(
        config: &DevicesConfig,
        link: Arc<FfbLink>,
        hub: Arc<InputHub>,
    ) -> Result<InputThread, MappingError> {
        let bindings = Bindings::resolve(config)?;
        let quit = Arc::new(AtomicBool::new(false));
        let stop = quit.clone();
        let devices = config.device.clone();
        let thread = std::thread::Builder::new()
            .name("rigd-input".into())
            .spawn(move || run(devices, bindings, hub, link, stop))
            .expect("spawning the input thread");
        Ok(InputThread {
            quit,
            thread: Some(thread),
        })
    }
}

impl Drop for InputThread {
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Opened {
    device: RawDevice,
    found: FoundDevice,
}

/// `EVIOCSCLOCKID`: `_IOW('E', 0xa0, int)`, the clock of the events read on this fd.
const EVIOCSCLOCKID: libc::c_ulong = 0x4004_45a0;

fn open_nonblocking(node: &std::path::Path) -> io::Result<RawDevice> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(node)
        .or_else(|_| {
            OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(node)
        })?;
    // Event times on CLOCK_MONOTONIC (evdev's default is CLOCK_REALTIME): the rim velocity
    // is taken from their differences, which a wall-clock step must not bend, and they are
    // then on the clock of the rest of rigd (`rt::clock`). Best effort: the kernel's default
    // stays if the call fails.
    let clock: libc::c_int = libc::CLOCK_MONOTONIC;
    // SAFETY: EVIOCSCLOCKID reads one int from the pointer, valid for the call; `file` is
    // an open evdev node.
    unsafe { libc::ioctl(file.as_raw_fd(), EVIOCSCLOCKID, &clock) };
    RawDevice::from_fd(OwnedFd::from(file))
}

/// Switches the kernel's noise filter (fuzz) and flat zone off on one axis, so rigd sees every
/// raw value (also used by the set-up commands' [`super::device_events`]).
/// `EVIOCSABS(abs)`: `_IOW('E', 0xc0 + abs, struct input_absinfo)` (the evdev crate has no
/// wrapper; reference 2.7).
pub fn set_abs_filters_off(device: &RawDevice, code: u16, info: &libc::input_absinfo) {
    let size = std::mem::size_of::<libc::input_absinfo>() as libc::c_ulong;
    let request: libc::c_ulong =
        (1 << 30) | (size << 16) | (0x45 << 8) | (0xc0 + libc::c_ulong::from(code));
    let mut cleared = *info;
    cleared.fuzz = 0;
    cleared.flat = 0;
    // SAFETY: the fd is a live evdev node and `cleared` is a valid input_absinfo that the
    // kernel only reads. Failure (read-only fd) just leaves the kernel filters in place.
    unsafe {
        libc::ioctl(
            device.as_raw_fd(),
            request as _,
            &cleared as *const libc::input_absinfo,
        );
    }
}

fn try_open(m: &DeviceMatch, index: usize, state: &mut ControlState) -> Option<Opened> {
    let found = devices::find(m)?;
    let device = open_nonblocking(&found.sys.event_node).ok()?;
    let abs = device.get_abs_state().ok()?;
    for code in state.bindings().axis_codes_of(index) {
        if let Some(info) = abs.get(usize::from(code)) {
            set_abs_filters_off(&device, code, info);
        }
    }
    let has_axis = |code: u16| {
        device
            .supported_absolute_axes()
            .is_some_and(|a| a.contains(evdev::AbsoluteAxisCode(code)))
    };
    state.on_connect(index, |code| {
        let info = abs.get(usize::from(code))?;
        has_axis(code).then_some((info.minimum, info.maximum, info.value))
    });
    Some(Opened {
        device,
        found: FoundDevice {
            name: found.sys.name.clone(),
            vid_pid: (found.sys.vendor, found.sys.product),
        },
    })
}

/// The event's kernel time in seconds (CLOCK_MONOTONIC, see [`open_nonblocking`]; the evdev
/// crate hands it over as a `SystemTime` since the epoch whatever the clock).
fn event_time_s(e: &evdev::InputEvent) -> f64 {
    e.timestamp()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

fn run(
    devices: Vec<DeviceMatch>,
    bindings: Bindings,
    hub: Arc<InputHub>,
    link: Arc<FfbLink>,
    quit: Arc<AtomicBool>,
) {
    let mut state = ControlState::new(bindings);
    let mut open: Vec<Option<Opened>> = devices.iter().map(|_| None).collect();
    let mut next_scan = Instant::now();
    let publish = |state: &ControlState| {
        hub.publish_devices(state.player_input());
        let rim = state.rim();
        if rim.angle_rad.is_finite() {
            link.publish_rim(rim);
        } else {
            link.forget_rim();
        }
        link.set_estop(state.estop());
    };
    let presence = |open: &[Option<Opened>]| {
        hub.publish_evdev_presence(
            open.iter()
                .map(|o| Some(o.as_ref()?.found.clone()))
                .collect(),
        );
    };
    publish(&state);
    let mut scanned = false;
    while !quit.load(Ordering::Acquire) {
        let now = Instant::now();
        if now >= next_scan {
            next_scan = now + RESCAN;
            let mut changed = false;
            for (i, m) in devices.iter().enumerate() {
                if open[i].is_none() {
                    open[i] = try_open(m, i, &mut state);
                    changed |= open[i].is_some();
                }
            }
            if changed {
                publish(&state);
            }
            if changed || !scanned {
                presence(&open);
                scanned = true;
            }
        }
        let mut fds: Vec<libc::pollfd> = Vec::new();
        let mut which: Vec<usize> = Vec::new();
        for (i, o) in open.iter().enumerate() {
            if let Some(o) = o {
                fds.push(libc::pollfd {
                    fd: o.device.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                });
                which.push(i);
            }
        }
        if fds.is_empty() {
            std::thread::sleep(Duration::from_millis(POLL_TIMEOUT_MS as u64));
            continue;
        }
        // SAFETY: `fds` is a valid array of pollfd for the duration of the call.
        let ready =
            unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, POLL_TIMEOUT_MS) };
        if ready <= 0 {
            continue;
        }
        for (slot, pfd) in which.iter().zip(&fds) {
            if pfd.revents == 0 {
                continue;
            }
            let index = *slot;
            let mut lost = pfd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0;
            let mut synced = false;
            if let Some(o) = open[index].as_mut() {
                match o.device.fetch_events() {
                    Ok(events) => {
                        for e in events {
                            match e.event_type() {
                                EventType::ABSOLUTE => {
                                    state.on_axis(index, e.code(), e.value(), event_time_s(&e))
                                }
                                EventType::KEY => state.on_key(index, e.code(), e.value()),
                                EventType::SYNCHRONIZATION
                                    if e.code() == SynchronizationCode::SYN_REPORT.0 =>
                                {
                                    synced = true
                                }
                                _ => {}
                            }
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(_) => lost = true,
                }
            }
            if lost {
                open[index] = None;
                state.on_disconnect(index);
                synced = true;
                next_scan = Instant::now() + RESCAN;
                presence(&open);
            }
            if synced {
                publish(&state);
            }
        }
    }
}
