//! vmrig guest checks of the wheel settings and condition effects on the emulated G29, against
//! the real hid-logitech/lg4ff driver: `rotation_range_deg` reaches the wheel as lg4ff's range
//! command `F8 81 LL HH` (and sysfs `range`) and the old range is restored on exit;
//! `autocentre_percent` reaches it as `FE 0D a a b` + `14` (on) and `F5` (off on exit);
//! `device_gain_percent` scales the constant force in ff-memless; and lg4ff, which has no
//! condition effects, gets nothing but its usual reports while the parked car asks for a
//! centring spring. Called from `guest.rs`'s `main` with the device side of the gadget.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rig_protocols::Frame;
use rigd::ffb::{FfbLink, FfbOutputStage};
use rigd::rt::stage::{RtStage, StopReason};

use super::{g29_config, is_force, is_stop, start_ffb, wait_until, Hidg, Results, TickLoop};

/// Ticks an FFB stage at most once a millisecond with a car at rest and no torque, driving off
/// at the speed [`SpeedTicker::set_speed`] sets: what the condition effects key on. A late
/// tick moves the schedule instead of catching up, so 500 ticks (the blend) never pass in a
/// burst under emulation.
pub struct SpeedTicker {
    speed_bits: Arc<AtomicU64>,
    quit: Arc<AtomicBool>,
    thread: JoinHandle<FfbOutputStage>,
}

impl SpeedTicker {
    /// Starts ticking `stage` with the car parked.
    pub fn spawn(mut stage: FfbOutputStage) -> SpeedTicker {
        let speed_bits = Arc::new(AtomicU64::new(0f64.to_bits()));
        let quit = Arc::new(AtomicBool::new(false));
        let (speed, q) = (speed_bits.clone(), quit.clone());
        let thread = std::thread::spawn(move || {
            let mut deadline = Instant::now();
            let mut k = 0u32;
            while !q.load(Ordering::Acquire) {
                k += 1;
                deadline += Duration::from_millis(1);
                match deadline.checked_duration_since(Instant::now()) {
                    Some(wait) => std::thread::sleep(wait),
                    None => deadline = Instant::now(),
                }
                let mut frame = Frame {
                    sequence: k,
                    ..Frame::default()
                };
                frame.car.speed_mps = f64::from_bits(speed.load(Ordering::Relaxed));
                stage.on_tick(&frame);
            }
            stage.safe_stop(StopReason::Exit);
            stage
        });
        SpeedTicker {
            speed_bits,
            quit,
            thread,
        }
    }

    /// The car's speed from now on, m/s.
    pub fn set_speed(&self, mps: f64) {
        self.speed_bits.store(mps.to_bits(), Ordering::Relaxed);
    }

    /// Safe-stops the stage (exit) and hands it back; dropping it closes the writer.
    pub fn finish(self) -> FfbOutputStage {
        self.quit.store(true, Ordering::Release);
        self.thread.join().expect("ticker")
    }
}

fn is_range(r: &[u8; 7]) -> bool {
    r[0] == 0xf8 && r[1] == 0x81
}
fn is_autocentre_strength(r: &[u8; 7]) -> bool {
    r[0] == 0xfe && r[1] == 0x0d
}
fn is_autocentre_on(r: &[u8; 7]) -> bool {
    r[0] == 0x14
}
fn is_autocentre_off(r: &[u8; 7]) -> bool {
    r[0] == 0xf5
}
fn is_leds(r: &[u8; 7]) -> bool {
    r[0] == 0xf8 && r[1] == 0x12
}

/// The G29's sysfs `range` attribute (the HID device of its evdev node).
fn sysfs_range() -> Option<String> {
    let list = rigd::devices::list();
    let g29 = list
        .iter()
        .find(|d| (d.sys.vendor, d.sys.product) == (0x046d, 0xc24f))?;
    let dir = rigd::ffb::wheel_settings::hid_dir_of(&g29.sys.event_node)?;
    std::fs::read_to_string(dir.join("range"))
        .ok()
        .map(|s| s.trim().to_string())
}

/// Range 540, autocentre 30 %, gain 80 %: applied at open, force scaled, restored on exit.
pub fn test_wheel_settings(r: &mut Results, hidg: &mut Hidg) {
    let before = sysfs_range();
    let config = g29_config(
        "rotation_range_deg = 540\nautocentre_percent = 30\ndevice_gain_percent = 80\n\
         [steering]\nrange_deg = 540",
    );
    let link = FfbLink::new();
    hidg.drain();
    let Some(stage) = start_ffb(&config, link.clone()) else {
        return r.check("settings-g29-open", false, "writer did not start");
    };
    let opened = wait_until(Duration::from_secs(3), || link.device_connected());
    let at_open = hidg.collect(Duration::from_millis(300));
    let range = at_open.iter().find(|(r, _)| is_range(r)).map(|(r, _)| *r);
    // 540 = 0x021c.
    r.check(
        "settings-g29-range",
        opened
            && range.is_some_and(|r| r[2] == 0x1c && r[3] == 0x02)
            && sysfs_range().as_deref() == Some("540"),
        format!(
            "range report {range:02x?}, sysfs range {:?} (was {before:?})",
            sysfs_range()
        ),
    );
    // lg4ff: 30 % = 19661 -> expand_a = 0x0c * 19661 >> 1 = 117966, / 0xaaaa = 2;
    // expand_b = 0x80 * 19661 / 0xaaaa = 57.
    let strength = at_open.iter().position(|(r, _)| is_autocentre_strength(r));
    let on = at_open.iter().position(|(r, _)| is_autocentre_on(r));
    let strength_report = strength.map(|i| at_open[i].0);
    r.check(
        "settings-g29-autocentre",
        strength_report.is_some_and(|s| s[2..5] == [0x02, 0x02, 0x39])
            && on.is_some_and(|on| strength.is_some_and(|s| s < on)),
        format!("strength {strength_report:02x?} then enable at {on:?}"),
    );

    // Gain 80 %: +1.1 N m of 2.2 is lg4ff byte 0x80 + 63 at full gain; ff-memless scales it
    // to 0x80 + 50.
    let ticks = TickLoop::spawn(stage, None, 0.0);
    ticks.set_torque(1.1);
    let reports = hidg.collect(Duration::from_millis(1800));
    let last = reports
        .iter()
        .rev()
        .find(|(r, _)| is_force(r))
        .map(|(r, _)| *r);
    let others: Vec<[u8; 7]> = reports
        .iter()
        .map(|(r, _)| *r)
        .filter(|r| !(is_force(r) || is_stop(r) || is_leds(r)))
        .collect();
    r.check(
        "settings-g29-gain-scales-force",
        last.is_some_and(|l| (0xb1..=0xb4).contains(&l[2])),
        format!("last force {last:02x?} (0xbf at full gain)"),
    );
    // The parked car (speed 0) asks for a centring spring: lg4ff has none, nothing is sent.
    r.check(
        "settings-g29-no-condition-reports",
        others.is_empty(),
        format!(
            "{} reports other than force/stop/LEDs: {others:02x?}",
            others.len()
        ),
    );

    // Exit: the force stops first, then autocentre off and the old range come back.
    ticks.safe_stop_exit();
    let t0 = Instant::now();
    let stage = ticks.finish();
    drop(stage);
    let after = hidg.collect(Duration::from_millis(500));
    let stop_at = after.iter().position(|(r, _)| is_stop(r));
    let off_at = after.iter().position(|(r, _)| is_autocentre_off(r));
    let range_at = after.iter().position(|(r, _)| is_range(r));
    let restored = range_at.map(|i| after[i].0);
    let want = before.as_deref().unwrap_or("900");
    let want_deg: u16 = want.parse().unwrap_or(900);
    let range_back = wait_until(Duration::from_millis(500), || {
        sysfs_range().as_deref() == Some(want)
    });
    r.check(
        "settings-g29-restored-on-exit",
        stop_at.is_some_and(|s| off_at.is_some_and(|o| s < o) && range_at.is_some_and(|g| s < g))
            && restored.is_some_and(|g| u16::from_le_bytes([g[2], g[3]]) == want_deg)
            && range_back
            && !after
                .iter()
                .skip(stop_at.unwrap_or(0))
                .any(|(r, _)| is_force(r) && r[2] != 0x80),
        format!(
            "after exit ({:?}): stop #{stop_at:?}, autocentre off #{off_at:?}, range \
             {restored:02x?} #{range_at:?}, sysfs range {:?}",
            t0.elapsed(),
            sysfs_range()
        ),
    );
}

/// `_IOC(dir, 'U', nr, size)` for the uinput force-feedback requests.
const fn uinput_ioctl(dir: u64, nr: u64) -> u64 {
    (dir << 30) | ((std::mem::size_of::<libc::uinput_ff_upload>() as u64) << 16) | (0x55 << 8) | nr
}
pub const UI_BEGIN_FF_UPLOAD: u64 = uinput_ioctl(3, 200);
pub const UI_END_FF_UPLOAD: u64 = uinput_ioctl(1, 201);

/// One upload as the uinput side received it: effect type, id and the first axis' condition
/// block (raw: the evdev crate drops the damper's coefficients when it decodes one).
#[derive(Debug, Clone, Copy)]
struct Upload {
    kind: u16,
    id: i16,
    new: bool,
    coefficient: i16,
    saturation: u16,
}

/// Answers the uinput upload request `request_id` with success and returns what it carried.
fn answer_upload(fd: i32, request_id: i32) -> Option<Upload> {
    // SAFETY: a zeroed uinput_ff_upload is valid; the ioctls read and write exactly it.
    let mut request: libc::uinput_ff_upload = unsafe { std::mem::zeroed() };
    request.request_id = request_id as u32;
    if unsafe { libc::ioctl(fd, UI_BEGIN_FF_UPLOAD as _, &mut request) } < 0 {
        return None;
    }
    // SAFETY: the condition member of the union starts the 32-byte union.
    let block: [libc::ff_condition_effect; 2] =
        unsafe { std::ptr::read(request.effect.u.as_ptr().cast()) };
    let upload = Upload {
        kind: request.effect.type_,
        id: request.effect.id,
        new: request.old.type_ == 0,
        coefficient: block[0].right_coeff,
        saturation: block[0].right_saturation,
    };
    request.retval = 0;
    // SAFETY: as above.
    unsafe { libc::ioctl(fd, UI_END_FF_UPLOAD as _, &mut request) };
    Some(upload)
}

/// What the uinput side saw: uploads, stops (play 0) and erases, each as it arrived.
#[derive(Default)]
struct Seen {
    uploads: Vec<(Instant, Upload)>,
    stops: Vec<(Instant, i16)>,
    plays: Vec<(Instant, i16)>,
    erases: Vec<i16>,
}

impl Seen {
    /// Answers and records the uinput device's requests for `d` (uploads block the writer
    /// until answered, so nothing else may wait meanwhile).
    fn pump(&mut self, dev: &mut evdev::uinput::VirtualDevice, fd: i32, d: Duration) {
        use evdev::{EventSummary, UInputCode};
        let end = Instant::now() + d;
        while Instant::now() < end {
            let events: Vec<_> = dev.fetch_events().map(|e| e.collect()).unwrap_or_default();
            if events.is_empty() {
                std::thread::sleep(Duration::from_millis(1));
            }
            for e in events {
                match e.destructure() {
                    EventSummary::UInput(_, UInputCode::UI_FF_UPLOAD, v) => {
                        if let Some(u) = answer_upload(fd, v) {
                            self.uploads.push((Instant::now(), u));
                        }
                    }
                    EventSummary::UInput(ev, UInputCode::UI_FF_ERASE, _) => {
                        if let Ok(er) = dev.process_ff_erase(ev) {
                            self.erases.push(er.effect_id() as i16);
                        }
                    }
                    EventSummary::ForceFeedback(_, code, 0) if code.0 < 0x50 => {
                        self.stops.push((Instant::now(), code.0 as i16));
                    }
                    EventSummary::ForceFeedback(_, code, _) if code.0 < 0x50 => {
                        self.plays.push((Instant::now(), code.0 as i16));
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Condition effects through the real kernel FF core on a uinput base that has FF_SPRING and
/// FF_DAMPER (as hid-pidff gives a PID base): a parked car uploads a spring and a damper that
/// ramp up to the configured levels, driving stops them, exit erases them.
pub fn test_uinput_conditions(r: &mut Results) {
    use evdev::uinput::VirtualDevice;
    use evdev::{AttributeSet, FFEffectCode, InputId};
    use std::os::fd::AsRawFd;

    let mut ff = AttributeSet::<FFEffectCode>::new();
    for code in [
        FFEffectCode::FF_CONSTANT,
        FFEffectCode::FF_SPRING,
        FFEffectCode::FF_DAMPER,
        FFEffectCode::FF_GAIN,
        FFEffectCode::FF_AUTOCENTER,
    ] {
        ff.insert(code);
    }
    let built = VirtualDevice::builder().and_then(|b| {
        b.name("rigd vmrig uinput condition base")
            .input_id(InputId::new(evdev::BusType::BUS_USB, 0x1209, 0x0002, 1))
            .with_ff(&ff)
            .map(|b| b.with_ff_effects_max(8))
            .and_then(|b| b.build())
    });
    let mut dev = match built {
        Ok(d) => d,
        Err(e) => return r.check("uinput-conditions-parked", false, format!("uinput: {e}")),
    };
    let fd = dev.as_raw_fd();
    // SAFETY: setting O_NONBLOCK on our own uinput fd.
    unsafe {
        libc::fcntl(
            fd,
            libc::F_SETFL,
            libc::fcntl(fd, libc::F_GETFL) | libc::O_NONBLOCK,
        )
    };
    std::thread::sleep(Duration::from_millis(200));

    // A 20 N m base capped at 10 N m, steering 900 deg, default centring: spring 0.02 N m/deg
    // over 450 deg = 9 N m = 0.45 of the maximum (14745 of 32767), at most 1 N m = 0.05 (3276
    // of the kernel's 0xFFFF saturation scale); damper 10 % (3276 of 32767).
    let mut config = g29_config("");
    config.device[0].vid_pid = Some("1209:0002".into());
    config.ffb.base_max_torque_nm = 20.0;
    config.ffb.torque_cap_nm = 10.0;
    let link = FfbLink::new();
    let stage = start_ffb(&config, link.clone());
    let Some(stage) = stage else {
        return r.check("uinput-conditions-parked", false, "writer did not start");
    };
    let ticker = SpeedTicker::spawn(stage);
    let mut seen = Seen::default();
    // Ramp (1 s) and blend in ticks plus an update period; longer under emulation.
    let parked_until = Instant::now() + Duration::from_secs(6);
    while Instant::now() < parked_until {
        seen.pump(&mut dev, fd, Duration::from_millis(250));
        let full = |kind| {
            seen.uploads
                .iter()
                .rev()
                .find(|(_, u)| u.kind == kind)
                .is_some_and(|(_, u)| u.saturation == 3276)
        };
        if full(0x53) && full(0x55) {
            break;
        }
    }
    let of_kind = |uploads: &[(Instant, Upload)], kind: u16| -> Vec<Upload> {
        uploads
            .iter()
            .filter(|(_, u)| u.kind == kind)
            .map(|(_, u)| *u)
            .collect()
    };
    let springs = of_kind(&seen.uploads, 0x53);
    let dampers = of_kind(&seen.uploads, 0x55);
    let (first, last) = (springs.first().copied(), springs.last().copied());
    let damper = dampers.last().copied();
    r.check(
        "uinput-conditions-parked",
        first.is_some_and(|f| f.new && f.saturation < 200)
            && last.is_some_and(|l| l.coefficient == 14745 && l.saturation == 3276)
            && damper.is_some_and(|d| d.coefficient == 3276 && d.saturation == 3276)
            && springs.len() >= 5,
        format!(
            "spring first {first:?} last {last:?} ({} uploads); damper last {damper:?} ({} uploads)",
            springs.len(),
            dampers.len()
        ),
    );
    let ids = [last.map(|u| u.id), damper.map(|u| u.id)];
    let t_drive = Instant::now();
    ticker.set_speed(20.0);
    // The blend takes 500 ticks; the writer may also stop everything for a moment when the
    // ticker stalls under emulation (its 20 ms stall rule) and play it again: what counts is
    // the last stop, with no play after it.
    seen.pump(&mut dev, fd, Duration::from_millis(3000));
    let final_stop: Vec<Option<Duration>> = ids
        .iter()
        .map(|id| {
            let last = |events: &[(Instant, i16)]| {
                events
                    .iter()
                    .rev()
                    .find(|(at, e)| Some(*e) == *id && *at > t_drive)
                    .map(|(at, _)| *at)
            };
            let stop = last(&seen.stops)?;
            let replayed = last(&seen.plays).is_some_and(|play| play > stop);
            (!replayed).then(|| stop.duration_since(t_drive))
        })
        .collect();
    r.check(
        "uinput-conditions-driving-stops",
        final_stop
            .iter()
            .all(|s| s.is_some_and(|d| d >= Duration::from_millis(300))),
        format!(
            "spring and damper stopped for good {final_stop:?} after the car drove off (0.5 s \
             blend)"
        ),
    );
    drop(ticker.finish());
    seen.pump(&mut dev, fd, Duration::from_millis(500));
    r.check(
        "uinput-conditions-erased-on-exit",
        ids.iter()
            .all(|id| id.is_some_and(|id| seen.erases.contains(&id))),
        format!("erased {:?}, condition ids {ids:?}", seen.erases),
    );
}
