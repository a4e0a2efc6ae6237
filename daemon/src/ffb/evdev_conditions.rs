//! Condition effects (FF_SPRING, FF_DAMPER, FF_FRICTION, FF_INERTIA) through the kernel's
//! evdev force-feedback API, for the writer thread of [`super::evdev_out`]: the levels of
//! [`Conditions`] become effects on the base (hid-pidff turns them into PID Set Effect / Set
//! Condition / Effect Operation reports).
//!
//! Each kind is uploaded the first time its level is non-zero (so a base never holds an effect
//! rigd does not use), updated in place only when its level changed and at most every
//! [`UPDATE_PERIOD`], stopped when its level returns to zero, and stopped at once with the
//! constant force ([`EvdevConditions::stop`]). Every effect has a finite replay length
//! ([`REPLAY_MS`]) and is re-played every half of it while it should run, so a hung daemon's
//! conditions end by themselves; a dead one's are erased by the kernel. The length is longer
//! than the constant force's because condition effects are passive (they only resist the
//! rim's angle or motion and cannot drive it away) and every report they cost competes with
//! the constant force for the base's report budget (usbhid queues hid-pidff's reports).
//!
//! Drivers without condition effects (hid-lg4ff has only FF_CONSTANT and FF_AUTOCENTER) get
//! nothing emulated: rigd says once per open that the base cannot run them. A failing upload
//! or update is said once and turns the condition effects off on that device; the constant
//! force keeps running.
//!
//! Why raw ioctls: the evdev crate (0.12 to 0.13.2) drops the coefficients of Damper and
//! Inertia when it converts an effect for the kernel, so the base would get an all-zero
//! damper. This module builds `struct ff_effect` itself and calls `EVIOCSFF` / `EVIOCRMFF`.

use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

use evdev::FFEffectCode;

use super::evdev_out::DIRECTION_X;
use super::stage::{ConditionLevel, Conditions};

/// Condition levels change on the base at most this often (the ramp and the parked blend
/// change them every tick; a PID base gets two Set Condition reports and a start per update).
pub const UPDATE_PERIOD: Duration = Duration::from_millis(100);
/// Replay length of every condition effect, ms (re-played every half of it).
pub const REPLAY_MS: u16 = 2000;

/// `_IOW(type, nr, size)` of the kernel's ioctl encoding (x86, arm, riscv).
const fn ioctl_write(kind: u8, nr: u8, size: usize) -> u64 {
    (1 << 30) | ((size as u64) << 16) | ((kind as u64) << 8) | nr as u64
}

/// `EVIOCSFF`: upload (id -1) or update (own id) an effect.
const EVIOCSFF: u64 = ioctl_write(b'E', 0x80, std::mem::size_of::<libc::ff_effect>());
/// `EVIOCRMFF`: erase an effect by id (also stops it).
const EVIOCRMFF: u64 = ioctl_write(b'E', 0x81, std::mem::size_of::<libc::c_int>());

/// `EV_FF`, the event type of force-feedback plays and stops.
const EV_FF: u16 = 0x15;

/// The four condition kinds, in the order of [`Conditions`]' fields.
const KINDS: [(FFEffectCode, &str); 4] = [
    (FFEffectCode::FF_SPRING, "spring"),
    (FFEffectCode::FF_DAMPER, "damper"),
    (FFEffectCode::FF_FRICTION, "friction"),
    (FFEffectCode::FF_INERTIA, "inertia"),
];

fn levels(c: &Conditions) -> [ConditionLevel; 4] {
    [c.spring, c.damper, c.friction, c.inertia]
}

/// `struct ff_effect` for one condition kind: both axes' blocks alike (a wheel has one),
/// centred, symmetric, no deadband.
pub fn condition_effect(
    kind: FFEffectCode,
    id: i16,
    level: ConditionLevel,
    replay_ms: u16,
) -> libc::ff_effect {
    let coefficient = level.coefficient.max(0);
    // The kernel's condition saturation is 0 ..= 0xFFFF (hid-pidff maps 0xFFFF to the field's
    // maximum); the level's is a share 0 ..= 32767.
    let share = u32::from(level.saturation.max(0).unsigned_abs());
    let saturation = (share * u32::from(u16::MAX) / i16::MAX as u32) as u16;
    let block = libc::ff_condition_effect {
        right_saturation: saturation,
        left_saturation: saturation,
        right_coeff: coefficient,
        left_coeff: coefficient,
        deadband: 0,
        center: 0,
    };
    let mut effect = libc::ff_effect {
        type_: kind.0,
        id,
        direction: DIRECTION_X,
        trigger: libc::ff_trigger {
            button: 0,
            interval: 0,
        },
        replay: libc::ff_replay {
            length: replay_ms,
            delay: 0,
        },
        u: Default::default(),
    };
    // SAFETY: the union member `condition[2]` (24 bytes, 2-byte aligned) lies at the start
    // of `u` (32 bytes, 8-byte aligned), exactly as in the kernel's struct ff_effect.
    unsafe {
        std::ptr::write(
            effect
                .u
                .as_mut_ptr()
                .cast::<[libc::ff_condition_effect; 2]>(),
            [block, block],
        );
    }
    effect
}

/// One uploaded condition effect, erased when dropped.
#[derive(Debug)]
struct RawEffect {
    fd: OwnedFd,
    id: i16,
    kind: FFEffectCode,
    playing: bool,
    last_play: Instant,
}

impl RawEffect {
    fn upload(
        fd: &OwnedFd,
        kind: FFEffectCode,
        level: ConditionLevel,
        replay_ms: u16,
    ) -> io::Result<RawEffect> {
        let mut effect = condition_effect(kind, -1, level, replay_ms);
        eviocsff(fd, &mut effect)?;
        Ok(RawEffect {
            fd: fd.try_clone()?,
            id: effect.id,
            kind,
            playing: false,
            last_play: Instant::now(),
        })
    }

    fn update(&mut self, level: ConditionLevel, replay_ms: u16) -> io::Result<()> {
        let mut effect = condition_effect(self.kind, self.id, level, replay_ms);
        eviocsff(&self.fd, &mut effect)
    }

    fn play(&mut self, count: i32, now: Instant) -> io::Result<()> {
        write_ff_event(&self.fd, self.id as u16, count)?;
        self.playing = count > 0;
        self.last_play = now;
        Ok(())
    }
}

impl Drop for RawEffect {
    fn drop(&mut self) {
        // SAFETY: EVIOCRMFF takes the effect id by value; the fd is ours.
        unsafe {
            libc::ioctl(
                self.fd.as_raw_fd(),
                EVIOCRMFF as _,
                libc::c_int::from(self.id),
            )
        };
    }
}

fn eviocsff(fd: &OwnedFd, effect: &mut libc::ff_effect) -> io::Result<()> {
    // SAFETY: `effect` is a valid struct ff_effect the kernel reads (and writes the id into).
    let rc = unsafe {
        libc::ioctl(
            fd.as_raw_fd(),
            EVIOCSFF as _,
            effect as *mut libc::ff_effect,
        )
    };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Writes one `EV_FF` event (play `count` times, 0 = stop) for effect `code`.
fn write_ff_event(fd: &OwnedFd, code: u16, count: i32) -> io::Result<()> {
    let raw = libc::input_event {
        time: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        type_: EV_FF,
        code,
        value: count,
    };
    // SAFETY: writes one complete input_event from a live stack value.
    let n = unsafe {
        libc::write(
            fd.as_raw_fd(),
            (&raw as *const libc::input_event).cast(),
            std::mem::size_of::<libc::input_event>(),
        )
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// The condition effects of one open device.
#[derive(Debug)]
pub struct EvdevConditions {
    fd: Option<OwnedFd>,
    device: String,
    supported: [bool; 4],
    effects: [Option<RawEffect>; 4],
    /// The levels each uploaded effect holds on the device now.
    on_device: [ConditionLevel; 4],
    last_update: Instant,
    replay_ms: u16,
    said_unsupported: bool,
}

impl EvdevConditions {
    /// For the open evdev device `device` (named `name` in messages) for which `supported`
    /// says which effect kinds its driver has.
    pub fn new(
        device: &impl AsFd,
        name: &str,
        supported: impl Fn(FFEffectCode) -> bool,
    ) -> EvdevConditions {
        let fd = device.as_fd().try_clone_to_owned().ok();
        EvdevConditions {
            fd,
            device: name.to_string(),
            supported: KINDS.map(|(kind, _)| supported(kind)),
            effects: Default::default(),
            on_device: Default::default(),
            last_update: Instant::now()
                .checked_sub(UPDATE_PERIOD)
                .unwrap_or_else(Instant::now),
            replay_ms: REPLAY_MS,
            said_unsupported: false,
        }
    }

    /// Brings the base's condition effects to `wanted`: uploads, updates (rate-capped),
    /// re-plays before the replay length runs out, stops those whose level is zero.
    pub fn apply(&mut self, wanted: &Conditions, now: Instant) {
        let wanted = levels(wanted);
        self.say_unsupported(&wanted);
        let due = now.duration_since(self.last_update) >= UPDATE_PERIOD;
        let refresh = Duration::from_millis(u64::from(self.replay_ms) / 2);
        let mut failure = None;
        let mut updated = false;
        for (i, level) in wanted.iter().enumerate() {
            if !self.supported[i] {
                continue;
            }
            let result = self.apply_one(i, *level, due, refresh, now, &mut updated);
            if let Err(e) = result {
                failure = Some((KINDS[i].1, e));
                break;
            }
        }
        if updated {
            self.last_update = now;
        }
        if let Some((kind, e)) = failure {
            tracing::warn!(
                "force feedback on {}: the {kind} condition effect failed ({e}); condition \
                 effects are off on this device until it is reconnected (the constant force \
                 keeps running). Fix: check `dmesg` for the driver's error",
                self.device
            );
            self.effects = Default::default();
            self.supported = [false; 4];
        }
    }

    fn apply_one(
        &mut self,
        i: usize,
        level: ConditionLevel,
        due: bool,
        refresh: Duration,
        now: Instant,
        updated: &mut bool,
    ) -> io::Result<()> {
        let Some(fd) = self.fd.as_ref() else {
            return Ok(());
        };
        let off = level == ConditionLevel::default();
        match self.effects[i].as_mut() {
            None if off => {}
            None => {
                let mut effect = RawEffect::upload(fd, KINDS[i].0, level, self.replay_ms)?;
                effect.play(1, now)?;
                self.effects[i] = Some(effect);
                self.on_device[i] = level;
                *updated = true;
            }
            Some(effect) if off => {
                if effect.playing {
                    effect.play(0, now)?;
                }
            }
            Some(effect) => {
                let changed = level != self.on_device[i];
                // A stopped effect still holds its old levels: never restart it with them
                // (after an e-stop the ramp starts again from zero), so update it first
                // whatever the rate cap.
                if changed && (due || !effect.playing) {
                    effect.update(level, self.replay_ms)?;
                    self.on_device[i] = level;
                    *updated = true;
                    effect.play(1, now)?;
                } else if !effect.playing || now.duration_since(effect.last_play) >= refresh {
                    effect.play(1, now)?;
                }
            }
        }
        Ok(())
    }

    /// Stops every playing condition effect now (no rate cap); they stay uploaded.
    pub fn stop(&mut self, now: Instant) -> io::Result<()> {
        for effect in self.effects.iter_mut().flatten() {
            if effect.playing {
                effect.play(0, now)?;
            }
        }
        Ok(())
    }

    fn say_unsupported(&mut self, wanted: &[ConditionLevel; 4]) {
        if self.said_unsupported {
            return;
        }
        let missing: Vec<&str> = KINDS
            .iter()
            .zip(wanted)
            .zip(self.supported)
            .filter(|((_, level), supported)| level.coefficient > 0 && !supported)
            .map(|(((_, name), _), _)| *name)
            .collect();
        if !missing.is_empty() {
            self.said_unsupported = true;
            tracing::warn!(
                "force feedback on {}: the base's driver has no {} condition effect, so rigd \
                 runs only the constant force there (nothing is emulated). Fix: set the \
                 centring_* and feel_* keys of [devices.ffb] to 0 to silence this",
                self.device,
                missing.join("/")
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioctl_numbers_match_the_kernel_headers() {
        // linux/input.h on 64-bit: sizeof(struct ff_effect) = 48.
        assert_eq!(std::mem::size_of::<libc::ff_effect>(), 48);
        assert_eq!(EVIOCSFF, 0x4030_4580);
        assert_eq!(EVIOCRMFF, 0x4004_4581);
    }

    #[test]
    fn a_damper_carries_its_coefficients_to_the_kernel() {
        let level = ConditionLevel {
            coefficient: 12000,
            saturation: 8000,
        };
        let full = ConditionLevel {
            coefficient: 32767,
            saturation: 32767,
        };
        let block = |e: libc::ff_effect| e.u[0].to_le_bytes();
        let full_bytes = block(condition_effect(FFEffectCode::FF_SPRING, 0, full, 100));
        assert_eq!(&full_bytes[..4], &[0xff; 4], "full saturation is 0xFFFF");
        let effect = condition_effect(FFEffectCode::FF_DAMPER, 3, level, 100);
        assert_eq!(effect.type_, 0x55);
        assert_eq!((effect.id, effect.direction), (3, 0x4000));
        assert_eq!(effect.replay.length, 100);
        // The union's bytes, as the kernel reads them: two blocks of
        // right_sat, left_sat, right_coeff, left_coeff, deadband, center (little endian).
        let bytes: Vec<u8> = effect.u.iter().flat_map(|w| w.to_le_bytes()).collect();
        // 8000 of 32767 is 16000 of 0xFFFF.
        let block: Vec<u8> = [16000u16, 16000, 12000, 12000, 0, 0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(&bytes[..12], &block[..]);
        assert_eq!(&bytes[12..24], &block[..]);
    }
}
