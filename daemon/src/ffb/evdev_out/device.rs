//! One open FFB event node with its one streamed FF_CONSTANT effect, and how a level, a
//! keep-alive and a stop become kernel calls for each [`DriverKind`].
//!
//! HID PID (hid-pidff): a level change is an in-place `EVIOCSFF` alone (one Set Constant
//! Force report); the effect is played (one Effect Operation Start, which restarts its finite
//! duration on the device) when it starts and then only at the keep-alive refresh. A stop is
//! the zero level first, then the Effect Operation Stop. Other drivers: every update is an
//! `EVIOCSFF` followed by a play (ff-memless needs it, see [`OpenDevice::send_level`]).

use std::io;
use std::time::{Duration, Instant};

use evdev::raw_stream::RawDevice;

use crate::rt::clock::now_ns;
use evdev::{FFEffect, FFEffectData, FFEffectKind, FFEnvelope, FFReplay, FFTrigger};

use super::super::evdev_conditions::EvdevConditions;
use super::super::stage::Conditions;
use super::super::wheel_settings::{self, AppliedSettings};
use super::super::write_times::LevelWrite;
use super::leds::LedOutput;
use super::rate::{choose_update_rate, DriverKind, RateChoice, DRAIN_PROBE_UPDATES};
use super::{FfbTarget, WriterSettings, WriterStats, DIRECTION_X, LED_PERIOD};

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
pub(super) struct OpenDevice {
    // Field order matters: the effect (EVIOCRMFF on its own dup'ed fd) drops before the device.
    effect: FFEffect,
    conditions: EvdevConditions,
    device: RawDevice,
    name: String,
    applied: AppliedSettings,
    kind: DriverKind,
    /// The update-rate cap and why (logged once per open).
    pub(super) rate: RateChoice,
    min_interval: Duration,
    refresh: Duration,
    replay_ms: u16,
    playing: bool,
    last_level: i16,
    last_sent: Instant,
    last_play: Instant,
    leds: LedOutput,
    last_leds: u8,
    last_led_write: Instant,
    /// The latest level write and its timing, until the writer loop takes it.
    level_write: Option<LevelWrite>,
}

impl OpenDevice {
    pub(super) fn open(target: &FfbTarget, settings: WriterSettings) -> io::Result<OpenDevice> {
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
        let applied = wheel_settings::apply(
            &mut device,
            &name,
            target.driver.as_deref(),
            hid_dir.as_deref(),
            settings.wheel,
        );
        let ff = device.supported_ff();
        let supports = |kind| ff.is_some_and(|ff| ff.contains(kind));
        let conditions = EvdevConditions::new(&device, &name, supports);
        let kind = DriverKind::from_pid_page(target.hid_pid);
        let mut effect = device.upload_ff_effect(constant(0, settings.replay_ms))?;
        let mut drained = None;
        if kind == DriverKind::HidPid {
            let (probed, rate) = measure_pid_throughput(&mut device, effect, settings.replay_ms)?;
            effect = probed;
            drained = rate;
        }
        let refresh = Duration::from_millis(u64::from(settings.replay_ms) / 2);
        let keep_alive_hz = 1.0 / refresh.as_secs_f64().max(1e-3);
        let rate = choose_update_rate(
            settings.update_rate_hz,
            kind,
            target.driver.as_deref(),
            drained,
            keep_alive_hz,
        );
        let now = Instant::now();
        Ok(OpenDevice {
            effect,
            conditions,
            device,
            name,
            applied,
            kind,
            min_interval: Duration::from_secs_f64(1.0 / rate.hz),
            rate,
            refresh,
            replay_ms: settings.replay_ms,
            playing: false,
            last_level: 0,
            last_sent: now,
            last_play: now,
            leds: LedOutput::for_target(target),
            last_leds: 0,
            last_led_write: now,
            level_write: None,
        })
    }

    /// The latest level write since the last call, with when its `EVIOCSFF` ran.
    pub(super) fn take_level_write(&mut self) -> Option<LevelWrite> {
        self.level_write.take()
    }

    /// The kind of driver behind the node.
    pub(super) fn kind(&self) -> DriverKind {
        self.kind
    }

    fn update(&mut self, level: i16, now: Instant, stats: &mut WriterStats) -> io::Result<()> {
        let started_ns = now_ns();
        self.effect.update(constant(level, self.replay_ms))?;
        self.level_write = Some(LevelWrite {
            level,
            started_ns,
            returned_ns: now_ns(),
        });
        self.last_level = level;
        self.last_sent = now;
        stats.updates += 1;
        Ok(())
    }

    fn play(&mut self, now: Instant, stats: &mut WriterStats) -> io::Result<()> {
        self.effect.play(1)?;
        self.playing = true;
        self.last_play = now;
        stats.plays += 1;
        Ok(())
    }

    /// Sends `level`: an in-place update followed by a play.
    ///
    /// ff-memless (hid-lg4ff) marks an effect "not playing" from an in-place update until its
    /// next timer tick (one jiffy, up to 10 ms); a stop or an erase in that window (also the
    /// kernel's own erase when the process dies) only clears the effect and sends nothing,
    /// leaving the wheel at its last force. Playing right after the update makes memless send
    /// the new level at once and mark it playing again, which closes that window (and saves
    /// up to a jiffy of latency). hid-pidff does not need this: there a play is a report of
    /// its own, so [`OpenDevice::apply`] plays a PID base only to start and keep it alive.
    fn send_level(&mut self, level: i16, now: Instant, stats: &mut WriterStats) -> io::Result<()> {
        self.update(level, now, stats)?;
        self.play(now, stats)
    }

    /// Zero force and stop the effect, at once (no rate cap): the zero level goes out before
    /// the stop, and nothing follows them; then the condition effects stop.
    pub(super) fn stop(&mut self, now: Instant, stats: &mut WriterStats) -> io::Result<()> {
        if !self.playing {
            return self.conditions.stop(now);
        }
        if self.last_level != 0 {
            match self.kind {
                DriverKind::HidPid => self.update(0, now, stats)?,
                DriverKind::Other => self.send_level(0, now, stats)?,
            }
        }
        self.effect.stop()?;
        self.playing = false;
        stats.stops += 1;
        self.conditions.stop(now)
    }

    /// Undoes the wheel settings (after the force is stopped).
    /// True when the stage is to run the autocentre as a spring on this device.
    pub(super) fn autocentre_by_spring(&self) -> bool {
        self.applied.autocentre_by_spring()
    }

    pub(super) fn restore_settings(&mut self) {
        wheel_settings::restore(&mut self.device, &self.name, &self.applied);
    }

    pub(super) fn apply(
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
        let changed =
            level != self.last_level && now.duration_since(self.last_sent) >= self.min_interval;
        match self.kind {
            DriverKind::Other => {
                let keep_alive = now.duration_since(self.last_sent) >= self.refresh;
                if !self.playing || changed || keep_alive {
                    self.send_level(level, now, stats)?;
                }
            }
            DriverKind::HidPid => {
                if !self.playing {
                    if level != self.last_level {
                        self.update(level, now, stats)?;
                    }
                    self.play(now, stats)?;
                } else {
                    if changed {
                        self.update(level, now, stats)?;
                    }
                    if now.duration_since(self.last_play) >= self.refresh {
                        self.play(now, stats)?;
                    }
                }
            }
        }
        self.conditions.apply(conditions, now);
        Ok(())
    }

    pub(super) fn set_leds(&mut self, mask: u8) -> io::Result<()> {
        self.leds.write(mask)
    }
}

/// Times how fast a HID PID base takes reports, before its effect ever plays: a burst of
/// [`DRAIN_PROBE_UPDATES`] level changes between 0 and 1 (of 32767) to the uploaded, stopped
/// `effect`, then its erase, which in hid-pidff first waits for usbhid's queue to drain.
/// Returns a freshly uploaded effect (level 0, stopped) and the reports per second, counting
/// only the probe's own reports (the upload's few are left out, so the figure errs low).
fn measure_pid_throughput(
    device: &mut RawDevice,
    mut effect: FFEffect,
    replay_ms: u16,
) -> io::Result<(FFEffect, Option<f64>)> {
    let start = Instant::now();
    for i in 0..DRAIN_PROBE_UPDATES {
        // Ends at 0: an even count alternating 1, 0.
        effect.update(constant(i16::from(i % 2 == 0), replay_ms))?;
    }
    drop(effect);
    let elapsed = start.elapsed().as_secs_f64();
    let effect = device.upload_ff_effect(constant(0, replay_ms))?;
    let rate = (elapsed > 1e-6).then(|| f64::from(DRAIN_PROBE_UPDATES) / elapsed);
    Ok((effect, rate))
}
