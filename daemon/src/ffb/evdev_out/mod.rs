//! The FFB writer thread: streams the stage's latest command to the wheel base through the
//! kernel's evdev force-feedback API, and drives the shift lights.
//!
//! One FF_CONSTANT effect is uploaded once per open (direction 0x4000 so the driver's
//! `level * sin(direction)` is the full level) and then updated in place with `EVIOCSFF` and
//! the same id ([`device`] says which reports that costs per kind of driver). Its replay length
//! is finite (`replay_ms`, at most 100 ms) and is re-armed at least every half of it, so if this
//! thread hangs the force stops by itself; if the process dies the kernel erases the fd's
//! effects. After open: the wheel settings (range, autocentre, gain:
//! [`super::wheel_settings`]), undone on exit after the force is stopped. The stage's
//! condition levels go to the base as condition effects ([`super::evdev_conditions`]), stopped
//! together with the constant force.
//!
//! Which driver: a device whose HID report descriptor declares the PID usage page is a HID PID
//! base (hid-pidff, whatever sysfs calls the driver); everything else is driven the way
//! ff-memless drivers need ([`rate::DriverKind`]).
//!
//! Rate: at most one level update per `1 / rate` ([`rate`]: measured from what the device
//! takes, bounded by `update_rate_hz` or the driver's default; logged once per open), only
//! when the level changed, plus the keep-alive. Commands are never queued: the thread takes
//! the latest value when the stage rings its doorbell (a changed command, right after the
//! tick: [`FfbLink::ring_writer`]) and at least every millisecond, so the kernel never holds
//! more than about one report in front of a stop. When each level write ran is recorded in
//! the link ([`FfbLink::recent_level_writes`], for the latency benchmark). Zero force (zero level first, then the stop) is sent at once, without
//! waiting for the rate cap, when the stage asks for it, when the e-stop is latched or the session is stopping
//! ([`FfbLink::hold_zero`]), or when
//! the RT loop stalls (its sequence stops advancing for `STALL`; the link then says the loop
//! stalled). A vanished device is closed and looked for again every 250 ms; on return the
//! stage ramps in from zero. Why a device cannot be opened is logged once per distinct reason.

mod device;
pub mod leds;
pub mod rate;

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rig_config::devices::FfbConfig;

use self::device::OpenDevice;
use super::link::FfbLink;
use super::stage::FfbCommand;
use super::wheel_settings::WheelSettings;
use crate::rt::handoff::LatestReader;
pub use leds::logitech_led_report;
pub use rate::{default_update_rate_hz, DriverKind};

/// The RT loop counts as stalled when its command sequence stands still this long (20 missed
/// ticks, the realtime reference's fault rule).
pub const STALL: Duration = Duration::from_millis(20);
/// How often the writer samples the latest command when the stage has not rung.
const POLL: Duration = Duration::from_millis(1);
/// How often the latest command is sampled while no device is open (nothing to write; the
/// rescan for the device stays every [`RESCAN`]): an idle rigd with its wheel unplugged must
/// not wake a thread a thousand times a second.
const NO_DEVICE_POLL: Duration = Duration::from_millis(20);
/// How often a missing device is looked for.
const RESCAN: Duration = Duration::from_millis(250);
/// Shift lights change at most this often.
const LED_PERIOD: Duration = Duration::from_millis(50);
/// `FF_CONSTANT` streamed in the direction of the X axis.
pub const DIRECTION_X: u16 = 0x4000;

/// A device the writer can open: its event node and where its LEDs are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FfbTarget {
    /// `/dev/input/eventN` with FF_CONSTANT.
    pub event_node: PathBuf,
    /// Kernel driver name (the rate fallback when nothing was measured).
    pub driver: Option<String>,
    /// The HID report descriptor declares the PID usage page: a HID PID base.
    pub hid_pid: bool,
    /// LED class directories (`...::RPM1` .. `RPM5`), sorted.
    pub leds: Vec<PathBuf>,
    /// hidraw node for the `F8 12` LED command when no LED class exists.
    pub hidraw: Option<PathBuf>,
}

/// Writer settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WriterSettings {
    /// Replay length of the streamed effect, ms.
    pub replay_ms: u16,
    /// Upper bound of the update rate, Hz (None: the driver's default).
    pub update_rate_hz: Option<f64>,
    /// Range, autocentre and gain to apply at open.
    pub wheel: WheelSettings,
}

impl WriterSettings {
    /// From `[devices.ffb]`.
    pub fn from_config(ffb: &FfbConfig) -> WriterSettings {
        WriterSettings {
            replay_ms: ffb.replay_ms,
            update_rate_hz: ffb.update_rate_hz,
            wheel: WheelSettings::from_config(ffb),
        }
    }
}

/// Counters for tests and the log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriterStats {
    /// Level updates sent (EVIOCSFF in place).
    pub updates: u64,
    /// Plays sent (start and keep-alive).
    pub plays: u64,
    /// Stops sent.
    pub stops: u64,
    /// Device opens.
    pub opens: u64,
}

/// The running writer thread. Dropping it only signals the thread (never blocks, so a stage can
/// be dropped on the RT thread); the thread then stops the effect and closes the device within
/// a millisecond or two, and the kernel erases the effect if the process exits first.
#[derive(Debug)]
pub struct FfbWriter {
    quit: Arc<AtomicBool>,
    thread: Option<JoinHandle<WriterStats>>,
}

impl FfbWriter {
    /// Starts the writer, which stops when `quit` is set (shared with whoever started it).
    /// `locate` is called (off the RT thread) whenever no device is open; it returns the
    /// device to open if present now.
    pub fn spawn(
        quit: Arc<AtomicBool>,
        mut locate: impl FnMut() -> Option<FfbTarget> + Send + 'static,
        mut commands: LatestReader<FfbCommand>,
        link: Arc<FfbLink>,
        settings: WriterSettings,
    ) -> io::Result<FfbWriter> {
        let stop = quit.clone();
        let thread = std::thread::Builder::new()
            .name("rigd-ffb-out".into())
            .spawn(move || {
                let mut stats = WriterStats::default();
                let mut open: Option<OpenDevice> = None;
                let mut next_scan = Instant::now();
                let mut last_seq = (0u64, Instant::now());
                let mut open_error = String::new();
                while !stop.load(Ordering::Acquire) {
                    let now = Instant::now();
                    let cmd = commands.read();
                    if cmd.sequence != last_seq.0 {
                        last_seq = (cmd.sequence, now);
                    }
                    let stalled = !cmd.loop_idle && now.duration_since(last_seq.1) > STALL;
                    link.set_loop_stalled(stalled && cmd.sequence != 0);
                    match open.as_mut() {
                        None if now >= next_scan => {
                            next_scan = now + RESCAN;
                            if let Some(target) = locate() {
                                match OpenDevice::open(&target, settings) {
                                    Ok(dev) => {
                                        log_opened(&target, &dev);
                                        open_error.clear();
                                        stats.opens += 1;
                                        link.set_spring_autocentre(dev.autocentre_by_spring());
                                        open = Some(dev);
                                        link.set_device_connected(true);
                                    }
                                    Err(e) => log_open_failure(&target, &e, &mut open_error),
                                }
                            }
                        }
                        None => {}
                        Some(dev) => {
                            let play = cmd.play && !stalled && !link.hold_zero();
                            let level = if play { cmd.level } else { 0 };
                            let leds = if stalled { 0 } else { cmd.leds };
                            let applied =
                                dev.apply(level, play, leds, &cmd.conditions, now, &mut stats);
                            if let Some(write) = dev.take_level_write() {
                                link.record_level_write(write);
                            }
                            if let Err(e) = applied {
                                tracing::warn!(
                                    "force feedback device went away ({e}); force is off until \
                                     it is back (plug it in again; rigd looks for it every 250 ms)"
                                );
                                open = None;
                                link.set_device_connected(false);
                                next_scan = now;
                            }
                        }
                    }
                    if open.is_some() {
                        // Woken by the stage's doorbell right after a tick that changed the
                        // command, else after POLL (keep-alive, stall watch, rate cap).
                        link.wait_for_command(POLL);
                    } else {
                        // Nothing to write while no device is open: look less often (idle CPU).
                        std::thread::sleep(NO_DEVICE_POLL);
                    }
                }
                if let Some(mut dev) = open.take() {
                    let _ = dev.stop(Instant::now(), &mut stats);
                    let _ = dev.set_leds(0);
                    dev.restore_settings();
                }
                link.set_device_connected(false);
                link.set_loop_stalled(false);
                stats
            })?;
        Ok(FfbWriter {
            quit,
            thread: Some(thread),
        })
    }

    /// Stops the thread, waits for it (effect stopped and erased, device closed) and returns
    /// its counters.
    pub fn shutdown(self) -> WriterStats {
        self.quit.store(true, Ordering::Release);
        self.wait()
    }
}

impl FfbWriter {
    /// Waits for the thread to end on its quit flag (set by whoever shares it), without
    /// setting it.
    pub fn wait(mut self) -> WriterStats {
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }

    /// Stops the thread and waits at most `within` for its zero, stop and clean-up.
    pub fn stop_within(&mut self, within: Duration) {
        super::stop_writer_within(&self.quit, &mut self.thread, within);
    }
}

impl Drop for FfbWriter {
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Release);
    }
}

fn log_opened(target: &FfbTarget, dev: &OpenDevice) {
    let kind = match dev.kind() {
        DriverKind::HidPid => "HID PID base (report descriptor declares usage page 0x0F)",
        DriverKind::Other => "kernel FF driver",
    };
    tracing::info!(
        "force feedback on {} via evdev, {kind}, driver {}: at most {:.0} level updates/s ({})",
        target.event_node.display(),
        target.driver.as_deref().unwrap_or("unknown"),
        dev.rate.hz,
        dev.rate.why
    );
}

/// Logs why `target` cannot be driven, once per distinct reason (the writer retries every
/// 250 ms).
fn log_open_failure(target: &FfbTarget, error: &io::Error, last: &mut String) {
    let text = error.to_string();
    if *last == text {
        return;
    }
    let fix = if error.kind() == io::ErrorKind::PermissionDenied {
        "give rigd write access to the event node (systemd/60-rigd.rules, installed as the \
         README's \"Install as a service\" shows)"
    } else {
        "check `rigd devices` for the device's force-feedback capabilities"
    };
    tracing::warn!(
        "force feedback held off: cannot drive {}: {text} (fix: {fix}); retrying every 250 ms",
        target.event_node.display()
    );
    *last = text;
}
