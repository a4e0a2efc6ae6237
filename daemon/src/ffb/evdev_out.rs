//! The FFB writer thread: streams the stage's latest command to the wheel base through the
//! kernel's evdev force-feedback API, and drives the shift lights.
//!
//! One FF_CONSTANT effect is uploaded once per open (direction 0x4000 so the driver's
//! `level * sin(direction)` is the full level) and then updated in place with `EVIOCSFF` and
//! the same id, each update followed by a play (see `OpenDevice::send`). Its replay length is finite (`replay_ms`, at most 100 ms) and every update
//! re-arms it, so if this thread hangs the kernel stops the force by itself; if the process
//! dies the kernel erases the fd's effects. After open: the wheel settings (range,
//! autocentre, gain: [`super::wheel_settings`]), undone on exit after the force is stopped.
//! The stage's condition levels go to the base as condition effects
//! ([`super::evdev_conditions`]), stopped together with the constant force.
//!
//! Rate: at most one update per `1 / update_rate_hz` (chosen by the kernel driver's name,
//! reference 2.6), only when the level changed, plus a keep-alive refresh at half the replay
//! length. Commands are never queued: the thread samples the latest value every millisecond.
//! Zero force (effect stopped) is sent at once, without waiting for the rate cap, when the
//! stage asks for it, when the e-stop is latched, or when the RT loop stalls (its sequence
//! stops advancing for `STALL`). A vanished device is closed and looked for again every
//! 250 ms; on return the stage ramps in from zero.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use evdev::raw_stream::RawDevice;
use evdev::{FFEffect, FFEffectData, FFEffectKind, FFEnvelope, FFReplay, FFTrigger};
use rig_config::devices::FfbConfig;

use super::evdev_conditions::EvdevConditions;
use super::link::FfbLink;
use super::stage::{Conditions, FfbCommand, SHIFT_LEDS};
use super::wheel_settings::{self, AppliedSettings, WheelSettings};
use crate::rt::handoff::LatestReader;

/// The RT loop counts as stalled when its command sequence stands still this long (20 missed
/// ticks, the realtime reference's fault rule).
pub const STALL: Duration = Duration::from_millis(20);
/// How often the writer samples the latest command.
const POLL: Duration = Duration::from_millis(1);
/// How often a missing device is looked for.
const RESCAN: Duration = Duration::from_millis(250);
/// Shift lights change at most this often.
const LED_PERIOD: Duration = Duration::from_millis(50);
/// `FF_CONSTANT` streamed in the direction of the X axis.
pub const DIRECTION_X: u16 = 0x4000;

/// Default update-rate cap for a kernel driver (reference 2.6): hid-lg4ff accepts about one
/// report per 4 ms, HID++ wheels queue every command synchronously, hid-tmff2 coalesces on an
/// 8 ms timer, PID bases take about 1 kHz. Unknown drivers get the conservative 250 Hz.
pub fn default_update_rate_hz(driver: Option<&str>) -> f64 {
    match driver.unwrap_or("") {
        "logitech-hidpp-device" => 150.0,
        "logitech" | "lg4ff" | "hid-lg4ff" => 250.0,
        "tmff2" | "hid-tmff2" | "hid-tmff-new" | "t300rs" => 125.0,
        "hid-pidff" | "hid-universal-pidff" | "universal-pidff" => 1000.0,
        "fanatec" | "ftec_csl_elite" | "hid-fanatecff" => 500.0,
        _ => 250.0,
    }
}

/// A device the writer can open: its event node and where its LEDs are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FfbTarget {
    /// `/dev/input/eventN` with FF_CONSTANT.
    pub event_node: PathBuf,
    /// Kernel driver name (picks the rate cap).
    pub driver: Option<String>,
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
    /// Rate cap override, Hz (None: by driver).
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
    /// Effect updates sent (EVIOCSFF in place).
    pub updates: u64,
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
    /// Starts the writer. `locate` is called (off the RT thread) whenever no device is open;
    /// it returns the device to open if present now.
    pub fn spawn(
        mut locate: impl FnMut() -> Option<FfbTarget> + Send + 'static,
        mut commands: LatestReader<FfbCommand>,
        link: Arc<FfbLink>,
        settings: WriterSettings,
    ) -> io::Result<FfbWriter> {
        let quit = Arc::new(AtomicBool::new(false));
        let stop = quit.clone();
        let thread = std::thread::Builder::new()
            .name("rigd-ffb-out".into())
            .spawn(move || {
                let mut stats = WriterStats::default();
                let mut open: Option<OpenDevice> = None;
                let mut next_scan = Instant::now();
                let mut last_seq = (0u64, Instant::now());
                while !stop.load(Ordering::Acquire) {
                    let now = Instant::now();
                    let cmd = commands.read();
                    if cmd.sequence != last_seq.0 {
                        last_seq = (cmd.sequence, now);
                    }
                    let stalled = now.duration_since(last_seq.1) > STALL;
                    match open.as_mut() {
                        None if now >= next_scan => {
                            next_scan = now + RESCAN;
                            if let Some(target) = locate() {
                                if let Ok(dev) = OpenDevice::open(&target, settings) {
                                    stats.opens += 1;
                                    open = Some(dev);
                                    link.set_device_connected(true);
                                }
                            }
                        }
                        None => {}
                        Some(dev) => {
                            let play = cmd.play && !stalled && !link.estop();
                            let level = if play { cmd.level } else { 0 };
                            let leds = if stalled { 0 } else { cmd.leds };
                            let applied =
                                dev.apply(level, play, leds, &cmd.conditions, now, &mut stats);
                            if applied.is_err() {
                                open = None;
                                link.set_device_connected(false);
                                next_scan = now;
                            }
                        }
                    }
                    std::thread::sleep(POLL);
                }
                if let Some(mut dev) = open.take() {
                    let _ = dev.stop(Instant::now(), &mut stats);
                    let _ = dev.set_leds(0);
                    dev.restore_settings();
                }
                link.set_device_connected(false);
                stats
            })?;
        Ok(FfbWriter {
            quit,
            thread: Some(thread),
        })
    }

    /// Stops the thread, waits for it (effect stopped and erased, device closed) and returns
    /// its counters.
    pub fn shutdown(mut self) -> WriterStats {
        self.quit.store(true, Ordering::Release);
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for FfbWriter {
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Release);
    }
}

fn constant(level: i16, replay_ms: u16) -> FFEffectData {
    FFEffectData {
        direction: DIRECTION_X,
        trigger: FFTrigger::default(),
        replay: FFReplay {
            length: replay_ms,
            delay: 0,
        },
        kind: FFEffectKind::Constant {
            level,
            envelope: FFEnvelope {
                attack_length: 0,
                attack_level: 0,
                fade_length: 0,
                fade_level: 0,
            },
        },
    }
}

/// An open FFB device with its one uploaded effect.
struct OpenDevice {
    // Field order matters: the effect (EVIOCRMFF on its own dup'ed fd) drops before the device.
    effect: FFEffect,
    conditions: EvdevConditions,
    device: RawDevice,
    name: String,
    applied: AppliedSettings,
    min_interval: Duration,
    refresh: Duration,
    replay_ms: u16,
    playing: bool,
    last_level: i16,
    last_sent: Instant,
    leds: LedOutput,
    last_leds: u8,
    last_led_write: Instant,
}

impl OpenDevice {
    fn open(target: &FfbTarget, settings: WriterSettings) -> io::Result<OpenDevice> {
        let mut device = RawDevice::open(&target.event_node)?;
        let has_constant = device
            .supported_ff()
            .is_some_and(|ff| ff.contains(evdev::FFEffectCode::FF_CONSTANT));
        if !has_constant {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "device has no FF_CONSTANT",
            ));
        }
        let name = format!(
            "{} ({})",
            target.event_node.display(),
            target.driver.as_deref().unwrap_or("no driver")
        );
        let hid_dir = wheel_settings::hid_dir_of(&target.event_node);
        let driver = target.driver.as_deref();
        let applied = wheel_settings::apply(
            &mut device,
            &name,
            driver,
            hid_dir.as_deref(),
            settings.wheel,
        );
        let ff = device.supported_ff();
        let supports = |kind| ff.is_some_and(|ff| ff.contains(kind));
        let conditions = EvdevConditions::new(&device, &name, supports);
        let effect = device.upload_ff_effect(constant(0, settings.replay_ms))?;
        let rate = settings
            .update_rate_hz
            .unwrap_or_else(|| default_update_rate_hz(target.driver.as_deref()));
        Ok(OpenDevice {
            effect,
            conditions,
            device,
            name,
            applied,
            min_interval: Duration::from_secs_f64(1.0 / rate),
            refresh: Duration::from_millis(u64::from(settings.replay_ms) / 2),
            replay_ms: settings.replay_ms,
            playing: false,
            last_level: 0,
            last_sent: Instant::now(),
            leds: LedOutput::for_target(target),
            last_leds: 0,
            last_led_write: Instant::now(),
        })
    }

    /// Sends `level`: an in-place update followed by a play.
    ///
    /// ff-memless (hid-lg4ff) marks an effect "not playing" from an in-place update until its
    /// next timer tick (one jiffy, up to 10 ms); a stop or an erase in that window (also the
    /// kernel's own erase when the process dies) only clears the effect and sends nothing,
    /// leaving the wheel at its last force. Playing right after the update makes memless send
    /// the new level at once and mark it playing again, which closes that window (and saves
    /// up to a jiffy of latency). pidff also wants the play to restart a finite effect.
    fn send(&mut self, level: i16, now: Instant, stats: &mut WriterStats) -> io::Result<()> {
        self.effect.update(constant(level, self.replay_ms))?;
        self.effect.play(1)?;
        self.playing = true;
        self.last_level = level;
        self.last_sent = now;
        stats.updates += 1;
        Ok(())
    }

    /// Zero force and stop the effect, at once (no rate cap); then the condition effects.
    fn stop(&mut self, now: Instant, stats: &mut WriterStats) -> io::Result<()> {
        if !self.playing {
            return self.conditions.stop(now);
        }
        if self.last_level != 0 {
            self.send(0, now, stats)?;
        }
        self.effect.stop()?;
        self.playing = false;
        stats.stops += 1;
        self.conditions.stop(now)
    }

    /// Undoes the wheel settings (after the force is stopped).
    fn restore_settings(&mut self) {
        wheel_settings::restore(&mut self.device, &self.name, &self.applied);
    }

    fn apply(
        &mut self,
        level: i16,
        play: bool,
        leds: u8,
        conditions: &Conditions,
        now: Instant,
        stats: &mut WriterStats,
    ) -> io::Result<()> {
        if leds != self.last_leds && now.duration_since(self.last_led_write) >= LED_PERIOD {
            // LEDs are a nicety: a failing LED write never stops the force feedback.
            let _ = self.set_leds(leds);
            self.last_leds = leds;
            self.last_led_write = now;
        }
        if !play {
            return self.stop(now, stats);
        }
        let since = now.duration_since(self.last_sent);
        let changed = level != self.last_level && since >= self.min_interval;
        let keep_alive = since >= self.refresh;
        if !self.playing || changed || keep_alive {
            self.send(level, now, stats)?;
        }
        self.conditions.apply(conditions, now);
        Ok(())
    }

    fn set_leds(&mut self, mask: u8) -> io::Result<()> {
        self.leds.write(mask)
    }
}

/// Where the shift lights are written.
#[derive(Debug)]
enum LedOutput {
    /// LED class devices `...::RPM1` .. `RPM5`, in order.
    Class(Vec<PathBuf>),
    /// hidraw node: the Logitech `F8 12 mask` command.
    Hidraw(PathBuf),
    /// No LEDs.
    None,
}

impl LedOutput {
    fn for_target(target: &FfbTarget) -> LedOutput {
        let mut rpm: Vec<PathBuf> = target
            .leds
            .iter()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("::RPM"))
            })
            .cloned()
            .collect();
        rpm.sort();
        if !rpm.is_empty() {
            LedOutput::Class(rpm)
        } else if let (Some(raw), Some("logitech")) = (&target.hidraw, target.driver.as_deref()) {
            LedOutput::Hidraw(raw.clone())
        } else {
            LedOutput::None
        }
    }

    fn write(&self, mask: u8) -> io::Result<()> {
        match self {
            LedOutput::Class(leds) => {
                for (i, led) in leds.iter().enumerate().take(usize::from(SHIFT_LEDS)) {
                    let on = mask & (1 << i) != 0;
                    write_led(led, on)?;
                }
                Ok(())
            }
            LedOutput::Hidraw(node) => fs::write(node, logitech_led_report(mask)),
            LedOutput::None => Ok(()),
        }
    }
}

fn write_led(dir: &Path, on: bool) -> io::Result<()> {
    fs::write(dir.join("brightness"), if on { "1" } else { "0" })
}

/// The Logitech classic LED command (reference 3.2): `F8 12 mask 00 00 00 00`, 5-bit mask.
pub fn logitech_led_report(mask: u8) -> [u8; 7] {
    [0xf8, 0x12, mask & 0x1f, 0, 0, 0, 0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_caps_follow_the_reference_table() {
        assert_eq!(default_update_rate_hz(Some("logitech")), 250.0);
        assert_eq!(default_update_rate_hz(Some("logitech-hidpp-device")), 150.0);
        assert_eq!(default_update_rate_hz(Some("hid-tmff2")), 125.0);
        assert_eq!(default_update_rate_hz(Some("hid-universal-pidff")), 1000.0);
        assert_eq!(default_update_rate_hz(None), 250.0);
    }

    #[test]
    fn led_report_masks_five_bits() {
        assert_eq!(logitech_led_report(0xff), [0xf8, 0x12, 0x1f, 0, 0, 0, 0]);
    }
}
