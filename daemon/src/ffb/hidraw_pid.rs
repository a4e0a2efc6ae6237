//! The hidraw PID backend: a writer thread that drives a HID PID direct-drive base by writing
//! the PID reports itself through `/dev/hidrawN` (hidapi), instead of through the kernel's
//! hid-pidff and its unbounded usbhid control queue.
//!
//! Back-pressure: a hidraw write returns only when the device took the report (interrupt OUT
//! or a synchronous SET_REPORT), and this thread writes one report at a time, so at most one
//! report is ever in flight and nothing queues up behind a slow base. Commands are never
//! queued either: the thread takes the stage's latest value when the stage rings its doorbell
//! (a changed command, right after the tick) and at least every millisecond, and sends the
//! constant force only when it changed; when each Set Constant Force write ran is recorded in
//! the link ([`FfbLink::recent_level_writes`], for the latency benchmark).
//!
//! What it sends (every id, offset and range from the device's own descriptor, see
//! [`super::pid`]):
//! - open: Device Control Reset (frees whatever a previous run left) and Enable Actuators,
//!   Device Gain, then Create New Effect (constant) + Block Load for the block index and a
//!   Set Effect with a finite duration (`effect_duration_ms`, 30 ms), full effect gain and the
//!   X-axis direction;
//! - playing: Set Constant Force when the level changed; Effect Operation Start when the
//!   effect is not playing and again every `refresh` (10 ms). hidraw has no kernel clean-up,
//!   so a killed rigd leaves a playing effect behind: the finite duration ends it within
//!   `effect_duration_ms + refresh` (about 40 ms) of the last refresh;
//! - condition effects (`FfbCommand::conditions`): created when the device lists the type and
//!   a coefficient becomes non-zero, Set Condition when the level changes, started and
//!   refreshed like the constant force, stopped when the coefficient returns to zero;
//! - stop, e-stop or a stopping session (`FfbLink::hold_zero`), stalled RT loop ([`STALL`],
//!   the evdev writer's rule), exit: Set Constant
//!   Force 0 first, then Effect Operation Stop and Block Free for every effect, and on exit
//!   Device Control Stop All (and Device Gain back to full if rigd lowered it). Nothing
//!   non-zero follows the zero.
//!
//! Faults: a node rigd may not open (with the udev rule that fixes it), a descriptor it cannot
//! use, a write that fails or takes longer than [`SLOW_WRITE`]: one log line naming the
//! device and the fix, `device_connected(false)`, force off on that device (best effort), and
//! the device is looked for again every [`RESCAN`] like the evdev writer does.

use std::ffi::CString;
use std::fs::OpenOptions;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hidapi::{HidApi, HidDevice};
use rig_config::devices::FfbConfig;
use thiserror::Error;

use super::evdev_out::STALL;
use super::link::FfbLink;
use super::pid::{
    parse, Control, DescriptorError, EffectKind, LayoutError, LoadStatus, Operation, PidLayout,
};
use super::stage::{ConditionLevel, FfbCommand};
use super::write_times::LevelWrite;
use crate::rt::clock::now_ns;
use crate::rt::handoff::LatestReader;

/// How often the writer samples the latest command when the stage has not rung.
const POLL: Duration = Duration::from_millis(1);
/// How often the latest command is sampled while no device is open (nothing to write; the
/// rescan for the device stays every [`RESCAN`]): an idle rigd with its wheel unplugged must
/// not wake a thread a thousand times a second.
const NO_DEVICE_POLL: Duration = Duration::from_millis(20);
/// How often a missing (or refused) device is looked for again.
pub const RESCAN: Duration = Duration::from_millis(250);
/// A write that takes longer than this means the base is not taking reports.
pub const SLOW_WRITE: Duration = Duration::from_millis(100);
/// Block Load reads per Create New Effect before giving up (the device may still be busy).
const BLOCK_LOAD_TRIES: u32 = 3;
/// Largest report descriptor (HID_MAX_DESCRIPTOR_SIZE).
const MAX_DESCRIPTOR: usize = 4096;

/// Writer settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HidrawPidSettings {
    /// Duration of every effect, ms: how long a force outlives the last refresh.
    pub effect_duration_ms: u16,
    /// How often a playing effect is started again (restarting its duration).
    pub refresh: Duration,
    /// Overall Device Gain, a share 0 ..= 32767 of the device maximum.
    pub device_gain: i16,
    /// `autocentre_percent` is set: the stage runs it as a spring, which the base must take.
    pub autocentre: bool,
}

impl HidrawPidSettings {
    /// The defaults with `[devices.ffb] device_gain_percent` as the Device Gain.
    pub fn from_config(ffb: &FfbConfig) -> HidrawPidSettings {
        let share = (ffb.device_gain_percent / 100.0).clamp(0.0, 1.0);
        HidrawPidSettings {
            device_gain: (share * f64::from(i16::MAX)).round() as i16,
            autocentre: ffb.autocentre_percent > 0.0,
            ..HidrawPidSettings::default()
        }
    }
}

impl Default for HidrawPidSettings {
    fn default() -> Self {
        HidrawPidSettings {
            effect_duration_ms: 30,
            refresh: Duration::from_millis(10),
            device_gain: i16::MAX,
            autocentre: false,
        }
    }
}

/// The `[devices.ffb]` wheel settings this backend cannot apply, each as a message with the
/// fix: HID PID has no rotation range. (`autocentre_percent` runs as the stage's spring,
/// [`super::conditions`]; `device_gain_percent` is the Device Gain report.)
pub fn unsupported_settings(ffb: &FfbConfig) -> Vec<String> {
    ffb.rotation_range_deg
        .map(|range| {
            format!(
                "rotation_range_deg = {range} cannot be set on a HID PID base (the protocol has \
                 no range): set the range in the base's own tool and remove the key"
            )
        })
        .into_iter()
        .collect()
}

/// Why the backend cannot drive a device; every message names the device and the fix.
#[derive(Debug, Error)]
pub enum PidError {
    /// The hidraw node is not readable and writable by rigd.
    #[error(
        "{path}: permission denied opening the HID PID base's hidraw node; allow rigd's user \
         with a udev rule in /etc/udev/rules.d/70-rigd.rules such as \
         `SUBSYSTEM==\"hidraw\", ATTRS{{idVendor}}==\"{vendor}\", GROUP=\"rigd\", MODE=\"0660\"` \
         (see docs/pid-backend.md), or use the evdev backend for this device"
    )]
    PermissionDenied { path: PathBuf, vendor: String },
    /// The node cannot be opened for another reason.
    #[error("{path}: cannot open the hidraw node ({message}); check that the base is plugged in")]
    Open { path: PathBuf, message: String },
    /// The descriptor cannot be read.
    #[error("{path}: cannot read the report descriptor ({message}); use the evdev backend for this device")]
    ReadDescriptor { path: PathBuf, message: String },
    /// The descriptor does not parse.
    #[error("{path}: the report descriptor is malformed ({source}); use the evdev backend for this device")]
    Descriptor {
        path: PathBuf,
        source: DescriptorError,
    },
    /// The descriptor lacks what rigd needs.
    #[error("{path}: not a HID PID base rigd can drive: {source}; use the evdev backend for this device")]
    Layout { path: PathBuf, source: LayoutError },
    /// A transfer failed.
    #[error("{path}: writing {report} failed ({message}); force feedback is off on this device until it is reopened")]
    Write {
        path: PathBuf,
        report: &'static str,
        message: String,
    },
    /// A transfer took too long.
    #[error(
        "{path}: {report} took {ms} ms (limit {limit} ms): the base is not taking reports; \
         force feedback is off on this device until it is reopened",
        limit = SLOW_WRITE.as_millis()
    )]
    Slow {
        path: PathBuf,
        report: &'static str,
        ms: u128,
    },
    /// The device did not allocate an effect.
    #[error("{path}: the base refused a {kind:?} effect (Block Load {status:?}); power-cycle the base if this persists")]
    BlockLoad {
        path: PathBuf,
        kind: EffectKind,
        status: LoadStatus,
    },
}

/// The three hidraw transfers the backend uses (hidapi on a real node).
pub trait PidPort {
    /// An output report, id byte first; returns when the device took it.
    fn output(&mut self, report: &[u8]) -> Result<(), String>;
    /// A feature SET, id byte first.
    fn set_feature(&mut self, report: &[u8]) -> Result<(), String>;
    /// A feature GET into `buf` (id byte set by the caller); returns the length read.
    fn get_feature(&mut self, buf: &mut [u8]) -> Result<usize, String>;
}

impl PidPort for HidDevice {
    fn output(&mut self, report: &[u8]) -> Result<(), String> {
        let sent = self.write(report).map_err(|e| e.to_string())?;
        if sent == report.len() {
            Ok(())
        } else {
            Err(format!("{sent} of {} bytes written", report.len()))
        }
    }
    fn set_feature(&mut self, report: &[u8]) -> Result<(), String> {
        self.send_feature_report(report).map_err(|e| e.to_string())
    }
    fn get_feature(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        self.get_feature_report(buf).map_err(|e| e.to_string())
    }
}

/// The USB vendor id of a hidraw node (from sysfs), for the udev hint.
fn vendor_of(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let uevent = std::fs::read_to_string(format!("/sys/class/hidraw/{name}/device/uevent")).ok()?;
    let id = uevent.lines().find_map(|l| l.strip_prefix("HID_ID="))?;
    let vendor = id.split(':').nth(1)?;
    Some(vendor.trim_start_matches('0').to_lowercase()).map(|v| format!("{v:0>4}"))
}

/// Opens a hidraw node with hidapi and finds its PID layout.
pub fn open(path: &Path) -> Result<(HidDevice, PidLayout), PidError> {
    // Ask the kernel first: hidapi folds the errno into a string, and EACCES needs its own
    // message (the udev rule).
    if let Err(e) = OpenOptions::new().read(true).write(true).open(path) {
        return Err(if e.kind() == io::ErrorKind::PermissionDenied {
            PidError::PermissionDenied {
                path: path.to_owned(),
                vendor: vendor_of(path).unwrap_or_else(|| "<vendor id>".into()),
            }
        } else {
            PidError::Open {
                path: path.to_owned(),
                message: e.to_string(),
            }
        });
    }
    let open_error = |message: String| PidError::Open {
        path: path.to_owned(),
        message,
    };
    let node = CString::new(path.as_os_str().as_bytes()).map_err(|e| open_error(e.to_string()))?;
    // rigd opens hidraw nodes by path only; no enumeration (and no udev) needed.
    HidApi::disable_device_discovery();
    let api = HidApi::new().map_err(|e| open_error(e.to_string()))?;
    let device = api
        .open_path(&node)
        .map_err(|e| open_error(e.to_string()))?;
    let mut buf = vec![0u8; MAX_DESCRIPTOR];
    let n = device
        .get_report_descriptor(&mut buf)
        .map_err(|e| PidError::ReadDescriptor {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
    let layout = layout_of(path, &buf[..n])?;
    Ok((device, layout))
}

/// The PID layout of a descriptor, errors naming `path`.
pub fn layout_of(path: &Path, descriptor: &[u8]) -> Result<PidLayout, PidError> {
    let parsed = parse(descriptor).map_err(|source| PidError::Descriptor {
        path: path.to_owned(),
        source,
    })?;
    PidLayout::from_descriptor(&parsed).map_err(|source| PidError::Layout {
        path: path.to_owned(),
        source,
    })
}

/// The first of a device's hidraw nodes whose report descriptor (read from sysfs, no open
/// needed) is a PID layout this backend can drive: the node to hand to
/// [`HidrawPidWriter::spawn`]'s `locate` (a base can expose several HID interfaces).
pub fn pid_node(nodes: &[PathBuf]) -> Option<PathBuf> {
    nodes.iter().find_map(|node| {
        let name = node.file_name()?.to_str()?;
        let sysfs = format!("/sys/class/hidraw/{name}/device/report_descriptor");
        let descriptor = std::fs::read(sysfs).ok()?;
        layout_of(node, &descriptor).ok().map(|_| node.clone())
    })
}

/// Whether the hidraw node at `path` is a PID base this backend can drive, and may be
/// opened by rigd: its layout (quirks included), or why not. For backend selection.
pub fn probe(path: &Path) -> Result<PidLayout, PidError> {
    open(path).map(|(_, layout)| layout)
}

/// Counters for tests and the log.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PidStats {
    /// Set Constant Force reports sent.
    pub constant_updates: u64,
    /// Effect Operation Start reports sent (first starts and refreshes).
    pub starts: u64,
    /// Halts (zero, stop, free).
    pub halts: u64,
    /// Device opens.
    pub opens: u64,
    /// Faults that closed the device.
    pub faults: u64,
}

/// One effect on the device.
#[derive(Debug, Clone, Copy)]
struct Effect {
    kind: EffectKind,
    block: Option<u8>,
    playing: bool,
    started: Instant,
}

impl Effect {
    fn new(kind: EffectKind) -> Effect {
        Effect {
            kind,
            block: None,
            playing: false,
            started: Instant::now(),
        }
    }
}

/// An open PID base: its layout, effects and what was last sent.
#[derive(Debug)]
pub struct Session<P: PidPort> {
    port: P,
    layout: PidLayout,
    path: PathBuf,
    settings: HidrawPidSettings,
    constant: Effect,
    level: i16,
    conditions: [(Effect, ConditionLevel); 4],
    stats: PidStats,
    /// The latest Set Constant Force and when its write ran, until taken.
    level_write: Option<LevelWrite>,
}

impl<P: PidPort> Session<P> {
    /// Initialises the base (reset, enable, gain) and creates the constant-force effect.
    pub fn start(
        port: P,
        layout: PidLayout,
        path: &Path,
        settings: HidrawPidSettings,
    ) -> Result<Session<P>, PidError> {
        let conditions =
            EffectKind::CONDITIONS.map(|k| (Effect::new(k), ConditionLevel::default()));
        let mut s = Session {
            port,
            layout,
            path: path.to_owned(),
            settings,
            constant: Effect::new(EffectKind::Constant),
            level: 0,
            conditions,
            stats: PidStats::default(),
            level_write: None,
        };
        for control in [Control::Reset, Control::EnableActuators] {
            if let Some(report) = s.layout.encode_device_control(control) {
                s.send(&report, "Device Control")?;
            }
        }
        if let Some(report) = s.layout.encode_device_gain(settings.device_gain) {
            s.send(&report, "Device Gain")?;
        }
        s.constant.block = Some(s.create(EffectKind::Constant)?);
        Ok(s)
    }

    /// Counters so far.
    pub fn stats(&self) -> PidStats {
        self.stats
    }

    /// The latest Set Constant Force since the last call, with when its write ran.
    pub fn take_level_write(&mut self) -> Option<LevelWrite> {
        self.level_write.take()
    }

    /// The layout in use.
    pub fn layout(&self) -> &PidLayout {
        &self.layout
    }

    fn timed(
        &mut self,
        what: &'static str,
        op: impl FnOnce(&mut P) -> Result<usize, String>,
    ) -> Result<usize, PidError> {
        let began = Instant::now();
        let result = op(&mut self.port);
        let took = began.elapsed();
        let n = result.map_err(|message| PidError::Write {
            path: self.path.clone(),
            report: what,
            message,
        })?;
        if took > SLOW_WRITE {
            return Err(PidError::Slow {
                path: self.path.clone(),
                report: what,
                ms: took.as_millis(),
            });
        }
        Ok(n)
    }

    fn send(&mut self, report: &[u8], what: &'static str) -> Result<(), PidError> {
        self.timed(what, |p| p.output(report).map(|()| 0)).map(drop)
    }

    /// Create New Effect + Block Load + Set Effect: a new block for `kind`, not playing.
    fn create(&mut self, kind: EffectKind) -> Result<u8, PidError> {
        let path = self.path.clone();
        let refused = |status| PidError::BlockLoad {
            path: path.clone(),
            kind,
            status,
        };
        let Some(create) = self.layout.encode_create_new_effect(kind) else {
            return Err(refused(LoadStatus::Error));
        };
        self.timed("Create New Effect", |p| p.set_feature(&create).map(|()| 0))?;
        let mut status = LoadStatus::Error;
        for _ in 0..BLOCK_LOAD_TRIES {
            let mut buf = self.layout.block_load_buffer();
            let n = self.timed("Block Load", |p| p.get_feature(&mut buf))?;
            let reply = self.layout.decode_block_load(&buf[..n.min(buf.len())]);
            match reply {
                Ok(r) if r.status == LoadStatus::Success => {
                    let block = u8::try_from(r.block).map_err(|_| refused(r.status))?;
                    let effect = self.layout.encode_set_effect(
                        block,
                        kind,
                        u32::from(self.settings.effect_duration_ms),
                    );
                    self.send(&effect, "Set Effect")?;
                    return Ok(block);
                }
                Ok(r) => status = r.status,
                Err(_) => status = LoadStatus::Error,
            }
        }
        Err(refused(status))
    }

    fn start_effect(&mut self, block: u8) -> Result<(), PidError> {
        let report = self.layout.encode_effect_operation(block, Operation::Start);
        self.send(&report, "Effect Operation")?;
        self.stats.starts += 1;
        Ok(())
    }

    fn set_level(&mut self, block: u8, level: i16) -> Result<(), PidError> {
        let report = self.layout.encode_set_constant_force(block, level);
        let started_ns = now_ns();
        self.send(&report, "Set Constant Force")?;
        self.level_write = Some(LevelWrite {
            level,
            started_ns,
            returned_ns: now_ns(),
        });
        self.level = level;
        self.stats.constant_updates += 1;
        Ok(())
    }

    /// Brings the device to `cmd` (already gated: `play` false means stop).
    pub fn apply(&mut self, cmd: &FfbCommand, now: Instant) -> Result<(), PidError> {
        if !cmd.play {
            return self.halt();
        }
        let block = match self.constant.block {
            Some(b) => b,
            None => {
                let b = self.create(EffectKind::Constant)?;
                self.constant.block = Some(b);
                b
            }
        };
        if cmd.level != self.level || !self.constant.playing {
            self.set_level(block, cmd.level)?;
        }
        if !self.constant.playing
            || now.duration_since(self.constant.started) >= self.settings.refresh
        {
            self.start_effect(block)?;
            self.constant.playing = true;
            self.constant.started = now;
        }
        let wanted = [
            cmd.conditions.spring,
            cmd.conditions.damper,
            cmd.conditions.friction,
            cmd.conditions.inertia,
        ];
        for (i, level) in wanted.into_iter().enumerate() {
            self.apply_condition(i, level, now)?;
        }
        Ok(())
    }

    fn apply_condition(
        &mut self,
        i: usize,
        level: ConditionLevel,
        now: Instant,
    ) -> Result<(), PidError> {
        let (effect, sent) = self.conditions[i];
        if !self.layout.supports(effect.kind) {
            return Ok(());
        }
        if level.coefficient <= 0 {
            if effect.playing {
                if let Some(block) = effect.block {
                    let report = self.layout.encode_effect_operation(block, Operation::Stop);
                    self.send(&report, "Effect Operation")?;
                }
                self.conditions[i].0.playing = false;
            }
            return Ok(());
        }
        let block = match effect.block {
            Some(b) => b,
            None => {
                let b = self.create(effect.kind)?;
                self.conditions[i].0.block = Some(b);
                b
            }
        };
        if level != sent || effect.block.is_none() {
            if let Some(report) = self.layout.encode_set_condition(block, level) {
                self.send(&report, "Set Condition")?;
            }
            self.conditions[i].1 = level;
        }
        let effect = self.conditions[i].0;
        if !effect.playing || now.duration_since(effect.started) >= self.settings.refresh {
            self.start_effect(block)?;
            self.conditions[i].0.playing = true;
            self.conditions[i].0.started = now;
        }
        Ok(())
    }

    /// Zero force first, then stop and free every effect (they are created again on play).
    pub fn halt(&mut self) -> Result<(), PidError> {
        let any =
            self.constant.block.is_some() || self.conditions.iter().any(|(e, _)| e.block.is_some());
        if !any {
            return Ok(());
        }
        if let Some(block) = self.constant.block {
            if self.level != 0 || self.constant.playing {
                self.set_level(block, 0)?;
            }
        }
        let mut effects: Vec<Effect> = vec![self.constant];
        effects.extend(self.conditions.iter().map(|(e, _)| *e));
        for effect in &effects {
            if let (Some(block), true) = (effect.block, effect.playing) {
                let report = self.layout.encode_effect_operation(block, Operation::Stop);
                self.send(&report, "Effect Operation")?;
            }
        }
        for effect in &effects {
            if let Some(block) = effect.block {
                let report = self.layout.encode_block_free(block);
                self.send(&report, "Block Free")?;
            }
        }
        self.constant = Effect::new(EffectKind::Constant);
        for (effect, level) in &mut self.conditions {
            *effect = Effect::new(effect.kind);
            *level = ConditionLevel::default();
        }
        self.stats.halts += 1;
        Ok(())
    }

    /// Halts, then Device Control Stop All: the base is left with nothing to play.
    pub fn close(mut self) -> Result<PidStats, PidError> {
        let halted = self.halt();
        if let Some(report) = self.layout.encode_device_control(Control::StopAll) {
            self.send(&report, "Device Control")?;
        }
        // A gain rigd lowered goes back to full, as the evdev path leaves it (FF_GAIN 100 %).
        if self.settings.device_gain != i16::MAX {
            if let Some(report) = self.layout.encode_device_gain(i16::MAX) {
                self.send(&report, "Device Gain")?;
            }
        }
        halted.map(|()| self.stats)
    }

    /// After a fault: the zero and Stop All, best effort (errors ignored), then close.
    pub fn abandon(mut self) -> PidStats {
        if let Some(block) = self.constant.block {
            let _ = self.set_level(block, 0);
        }
        if let Some(report) = self.layout.encode_device_control(Control::StopAll) {
            let _ = self.send(&report, "Device Control");
        }
        self.stats
    }
}

/// The running hidraw PID writer. Dropping it only signals the thread (never blocks, so a
/// stage can be dropped on the RT thread); the thread then zeroes, stops and frees its
/// effects and sends Stop All.
#[derive(Debug)]
pub struct HidrawPidWriter {
    quit: Arc<AtomicBool>,
    thread: Option<JoinHandle<PidStats>>,
}

impl HidrawPidWriter {
    /// Starts the writer, which stops when `quit` is set (shared with whoever started it).
    /// `locate` is called (off the RT thread) whenever no device is open; it returns the
    /// hidraw node of the PID base if present now.
    pub fn spawn(
        quit: Arc<AtomicBool>,
        mut locate: impl FnMut() -> Option<PathBuf> + Send + 'static,
        mut commands: LatestReader<FfbCommand>,
        link: Arc<FfbLink>,
        settings: HidrawPidSettings,
    ) -> io::Result<HidrawPidWriter> {
        let stop = quit.clone();
        let thread = std::thread::Builder::new()
            .name("rigd-ffb-pid".into())
            .spawn(move || {
                let mut totals = PidStats::default();
                let mut open: Option<Session<HidDevice>> = None;
                let mut next_scan = Instant::now();
                let mut last_seq = (0u64, Instant::now());
                let mut last_error = String::new();
                while !stop.load(Ordering::Acquire) {
                    let now = Instant::now();
                    let mut cmd = commands.read();
                    if cmd.sequence != last_seq.0 {
                        last_seq = (cmd.sequence, now);
                    }
                    let stalled = !cmd.loop_idle && now.duration_since(last_seq.1) > STALL;
                    link.set_loop_stalled(stalled && cmd.sequence != 0);
                    cmd.play = cmd.play && !stalled && !link.hold_zero();
                    match open.take() {
                        None if now >= next_scan => {
                            next_scan = now + RESCAN;
                            if let Some(path) = locate() {
                                let started = open_session(&path, settings);
                                match started {
                                    Ok(session) => {
                                        totals.opens += 1;
                                        last_error.clear();
                                        let spring = session.layout().supports(EffectKind::Spring);
                                        if settings.autocentre && !spring {
                                            tracing::warn!(
                                                "{}: the base lists no spring effect, so \
                                                 autocentre_percent cannot be applied: set the \
                                                 centring in the base's own tool",
                                                path.display()
                                            );
                                        }
                                        link.set_spring_autocentre(spring);
                                        link.set_device_connected(true);
                                        open = Some(session);
                                    }
                                    Err(e) => log_once(&e, &mut last_error),
                                }
                            }
                        }
                        None => {}
                        Some(mut session) => match session.apply(&cmd, now) {
                            Ok(()) => {
                                if let Some(write) = session.take_level_write() {
                                    link.record_level_write(write);
                                }
                                open = Some(session);
                            }
                            Err(e) => {
                                log_once(&e, &mut last_error);
                                add(&mut totals, session.abandon());
                                totals.faults += 1;
                                link.set_device_connected(false);
                                next_scan = now + RESCAN;
                            }
                        },
                    }
                    if open.is_some() {
                        // Woken by the stage's doorbell right after a tick that changed the
                        // command, else after POLL (refresh, stall watch).
                        link.wait_for_command(POLL);
                    } else {
                        // Nothing to write while no device is open: look less often (idle CPU).
                        std::thread::sleep(NO_DEVICE_POLL);
                    }
                }
                if let Some(session) = open.take() {
                    match session.close() {
                        Ok(stats) => add(&mut totals, stats),
                        Err(e) => log_once(&e, &mut last_error),
                    }
                }
                link.set_device_connected(false);
                link.set_loop_stalled(false);
                totals
            })?;
        Ok(HidrawPidWriter {
            quit,
            thread: Some(thread),
        })
    }

    /// Stops the thread, waits for it (force zeroed, effects freed, Stop All sent) and
    /// returns its counters.
    pub fn shutdown(self) -> PidStats {
        self.quit.store(true, Ordering::Release);
        self.wait()
    }
}

impl HidrawPidWriter {
    /// Waits for the thread to end on its quit flag (set by whoever shares it), without
    /// setting it.
    pub fn wait(mut self) -> PidStats {
        self.thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default()
    }

    /// Stops the thread and waits at most `within` for its last zero and Stop All.
    pub fn stop_within(&mut self, within: Duration) {
        super::stop_writer_within(&self.quit, &mut self.thread, within);
    }
}

impl Drop for HidrawPidWriter {
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Release);
    }
}

fn open_session(path: &Path, settings: HidrawPidSettings) -> Result<Session<HidDevice>, PidError> {
    let (device, layout) = open(path)?;
    Session::start(device, layout, path, settings)
}

/// Logs `error` unless it is the one logged last (a refused device is retried every
/// [`RESCAN`]; its message appears once).
fn log_once(error: &PidError, last: &mut String) {
    let message = error.to_string();
    if *last != message {
        tracing::warn!("force feedback held off: {message}");
        *last = message;
    }
}

fn add(totals: &mut PidStats, s: PidStats) {
    totals.constant_updates += s.constant_updates;
    totals.starts += s.starts;
    totals.halts += s.halts;
}

#[cfg(test)]
mod tests {
    use super::super::pid::encode::get;
    use super::super::pid::layout::{pid, ControlEncoding};
    use super::super::pid::test_descriptors::{base, Variant, FULL};
    use super::super::stage::Conditions;
    use super::*;

    #[test]
    fn a_range_is_said_not_silently_dropped_and_autocentre_is_applied() {
        let mut ffb = FfbConfig::default();
        assert!(unsupported_settings(&ffb).is_empty());
        ffb.rotation_range_deg = Some(540);
        ffb.autocentre_percent = 30.0;
        let said = unsupported_settings(&ffb);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].contains("540") && said[0].contains("base's own tool"));
        assert!(HidrawPidSettings::from_config(&ffb).autocentre);
    }

    /// What the device side decoded, in order.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Seen {
        Control(u32),
        Gain(i64),
        Create(u32),
        Effect {
            block: i64,
            duration: i64,
        },
        Constant {
            block: i64,
            magnitude: i64,
        },
        Condition {
            block: i64,
            coefficient: i64,
            saturation: i64,
        },
        Start(i64),
        Stop(i64),
        Free(i64),
    }

    /// The device end of the port: decodes every report with the layout (as the emulated
    /// base in the vmrig guest does) and hands out block indexes from 1.
    #[derive(Debug)]
    struct Device {
        layout: PidLayout,
        seen: Vec<Seen>,
        next_block: u8,
        fail: Option<&'static str>,
        slow: bool,
    }

    impl Device {
        fn new(v: &Variant) -> Device {
            Device {
                layout: layout_of(Path::new("/dev/hidraw7"), &base(v)).unwrap(),
                seen: Vec::new(),
                next_block: 1,
                fail: None,
                slow: false,
            }
        }
        fn take(&mut self) -> Vec<Seen> {
            std::mem::take(&mut self.seen)
        }
    }

    impl PidPort for &mut Device {
        fn output(&mut self, r: &[u8]) -> Result<(), String> {
            if self.slow {
                std::thread::sleep(SLOW_WRITE + Duration::from_millis(5));
            }
            let l = &self.layout;
            let v = |slot| get(r, slot).unwrap();
            let seen = if r[0] == l.set_constant_force.address.id {
                Seen::Constant {
                    block: v(l.set_constant_force.block),
                    magnitude: v(l.set_constant_force.magnitude),
                }
            } else if r[0] == l.effect_operation.address.id {
                let op = &l.effect_operation.operation;
                let block = v(l.effect_operation.block);
                match op.usage_of(v(op.slot)) {
                    Some(x) if x == pid(0x79) => Seen::Start(block),
                    _ => Seen::Stop(block),
                }
            } else if r[0] == l.set_effect.address.id {
                Seen::Effect {
                    block: v(l.set_effect.block),
                    duration: v(l.set_effect.duration),
                }
            } else if r[0] == l.set_condition.as_ref().unwrap().address.id {
                let c = l.set_condition.as_ref().unwrap();
                Seen::Condition {
                    block: v(c.block),
                    coefficient: v(c.positive_coefficient),
                    saturation: v(c.positive_saturation.unwrap()),
                }
            } else if r[0] == l.block_free.address.id {
                Seen::Free(v(l.block_free.block))
            } else if r[0] == l.device_gain.as_ref().unwrap().address.id {
                Seen::Gain(v(l.device_gain.as_ref().unwrap().gain))
            } else if r[0] == l.device_control.address.id {
                match &l.device_control.encoding {
                    ControlEncoding::Array(s) => Seen::Control(s.usage_of(v(s.slot)).unwrap()),
                    ControlEncoding::Bitmask(bits) => {
                        let set: Vec<u32> = bits
                            .iter()
                            .filter(|(_, s)| v(*s) == 1)
                            .map(|(x, _)| *x)
                            .collect();
                        assert_eq!(set.len(), 1, "one control bit at a time");
                        Seen::Control(set[0])
                    }
                }
            } else {
                return Err(format!("unknown output report {}", r[0]));
            };
            if self.fail == Some("output") {
                return Err("Broken pipe (os error 32)".into());
            }
            self.seen.push(seen);
            Ok(())
        }
        fn set_feature(&mut self, r: &[u8]) -> Result<(), String> {
            let t = &self.layout.create_new_effect.effect_type;
            let kind = t.usage_of(get(r, t.slot).unwrap()).unwrap();
            self.seen.push(Seen::Create(kind));
            Ok(())
        }
        fn get_feature(&mut self, buf: &mut [u8]) -> Result<usize, String> {
            let bl = self.layout.block_load.clone();
            assert_eq!(buf[0], bl.address.id);
            if self.fail == Some("full") {
                super::super::pid::encode::put(buf, bl.status.slot, 2);
                return Ok(buf.len());
            }
            super::super::pid::encode::put(buf, bl.block, i64::from(self.next_block));
            super::super::pid::encode::put(buf, bl.status.slot, 1);
            self.next_block += 1;
            Ok(buf.len())
        }
    }

    fn play(level: i16) -> FfbCommand {
        FfbCommand {
            sequence: 1,
            loop_idle: false,
            level,
            play: true,
            leds: 0,
            conditions: Conditions::default(),
        }
    }

    fn session(dev: &mut Device) -> Session<&mut Device> {
        let layout = dev.layout.clone();
        Session::start(
            dev,
            layout,
            Path::new("/dev/hidraw7"),
            HidrawPidSettings::default(),
        )
        .unwrap()
    }

    const CONSTANT: u32 = 0x000f_0026;
    const SPRING: u32 = 0x000f_0040;

    #[test]
    fn open_resets_enables_sets_gain_and_creates_a_finite_constant_effect() {
        let mut dev = Device::new(&FULL);
        let s = session(&mut dev);
        drop(s);
        assert_eq!(
            dev.take(),
            vec![
                Seen::Control(Control::Reset.usage()),
                Seen::Control(Control::EnableActuators.usage()),
                Seen::Gain(255),
                Seen::Create(CONSTANT),
                Seen::Effect {
                    block: 1,
                    duration: 30
                },
            ]
        );
    }

    #[test]
    fn levels_are_sent_only_on_change_and_starts_refresh_every_10_ms() {
        let mut dev = Device::new(&FULL);
        let t0 = Instant::now();
        let mut s = session(&mut dev);
        s.apply(&play(16384), t0).unwrap();
        for ms in 1..10 {
            s.apply(&play(16384), t0 + Duration::from_millis(ms))
                .unwrap();
        }
        s.apply(&play(-8192), t0 + Duration::from_millis(9))
            .unwrap();
        s.apply(&play(-8192), t0 + Duration::from_millis(10))
            .unwrap();
        s.apply(&play(-8192), t0 + Duration::from_millis(15))
            .unwrap();
        s.apply(&play(-8192), t0 + Duration::from_millis(20))
            .unwrap();
        let stats = s.stats();
        drop(s);
        let seen = dev.take();
        assert_eq!(
            seen[5..],
            [
                Seen::Constant {
                    block: 1,
                    magnitude: 16384
                },
                Seen::Start(1),
                Seen::Constant {
                    block: 1,
                    magnitude: -8192
                },
                Seen::Start(1),
                Seen::Start(1),
            ]
        );
        assert_eq!((stats.constant_updates, stats.starts), (2, 3));
    }

    #[test]
    fn stop_sends_the_zero_first_and_nothing_non_zero_after_it() {
        let mut dev = Device::new(&FULL);
        let t0 = Instant::now();
        let mut s = session(&mut dev);
        let mut cmd = play(30000);
        cmd.conditions.spring = ConditionLevel {
            coefficient: 16384,
            saturation: 32767,
        };
        s.apply(&cmd, t0).unwrap();
        let stop = FfbCommand {
            play: false,
            level: 0,
            ..cmd
        };
        s.apply(&stop, t0).unwrap();
        s.apply(&stop, t0 + Duration::from_millis(50)).unwrap();
        drop(s);
        let seen = dev.take();
        let zero = seen
            .iter()
            .position(|x| {
                *x == Seen::Constant {
                    block: 1,
                    magnitude: 0,
                }
            })
            .expect("a zero");
        assert_eq!(
            seen[zero..],
            [
                Seen::Constant {
                    block: 1,
                    magnitude: 0
                },
                Seen::Stop(1),
                Seen::Stop(2),
                Seen::Free(1),
                Seen::Free(2),
            ],
            "zero, stops, frees; a second stop sends nothing"
        );
    }

    #[test]
    fn play_after_a_stop_creates_the_effect_again() {
        let mut dev = Device::new(&FULL);
        let t0 = Instant::now();
        let mut s = session(&mut dev);
        s.apply(
            &FfbCommand {
                play: false,
                ..play(0)
            },
            t0,
        )
        .unwrap();
        s.apply(&play(100), t0).unwrap();
        drop(s);
        let seen = dev.take();
        assert_eq!(
            seen[5..],
            [
                Seen::Free(1),
                Seen::Create(CONSTANT),
                Seen::Effect {
                    block: 2,
                    duration: 30
                },
                Seen::Constant {
                    block: 2,
                    magnitude: 100
                },
                Seen::Start(2),
            ]
        );
    }

    #[test]
    fn conditions_are_created_updated_refreshed_and_stopped() {
        let mut dev = Device::new(&FULL);
        let t0 = Instant::now();
        let mut s = session(&mut dev);
        let mut cmd = play(0);
        cmd.conditions.spring = ConditionLevel {
            coefficient: 8192,
            saturation: 16384,
        };
        s.apply(&cmd, t0).unwrap();
        s.apply(&cmd, t0 + Duration::from_millis(5)).unwrap();
        cmd.conditions.spring.coefficient = 16384;
        s.apply(&cmd, t0 + Duration::from_millis(6)).unwrap();
        s.apply(&cmd, t0 + Duration::from_millis(10)).unwrap();
        cmd.conditions.spring.coefficient = 0;
        s.apply(&cmd, t0 + Duration::from_millis(11)).unwrap();
        drop(s);
        let seen = dev.take();
        assert_eq!(
            seen[5..],
            [
                Seen::Constant {
                    block: 1,
                    magnitude: 0
                },
                Seen::Start(1),
                Seen::Create(SPRING),
                Seen::Effect {
                    block: 2,
                    duration: 30
                },
                Seen::Condition {
                    block: 2,
                    coefficient: 8192,
                    saturation: 16384
                },
                Seen::Start(2),
                Seen::Condition {
                    block: 2,
                    coefficient: 16384,
                    saturation: 16384
                },
                Seen::Start(1),
                Seen::Start(2),
                Seen::Stop(2),
            ]
        );
    }

    #[test]
    fn conditions_the_device_does_not_list_are_skipped() {
        let v = Variant {
            effect_types: &[0x26, 0x41],
            ..FULL
        };
        let mut dev = Device::new(&v);
        let mut s = session(&mut dev);
        let mut cmd = play(0);
        cmd.conditions.spring = ConditionLevel {
            coefficient: 8192,
            saturation: 16384,
        };
        s.apply(&cmd, Instant::now()).unwrap();
        drop(s);
        assert!(!dev
            .take()
            .iter()
            .any(|x| matches!(x, Seen::Create(SPRING) | Seen::Condition { .. })));
    }

    #[test]
    fn close_zeroes_stops_frees_then_stops_all_on_a_bitmask_control_base() {
        let mut dev = Device::new(&Variant {
            bitmask_control: true,
            ..FULL
        });
        let mut s = session(&mut dev);
        s.apply(&play(-20000), Instant::now()).unwrap();
        let stats = s.close().unwrap();
        assert_eq!(stats.halts, 1);
        let seen = dev.take();
        assert_eq!(seen[0], Seen::Control(Control::Reset.usage()));
        assert_eq!(
            seen[seen.len() - 4..],
            [
                Seen::Constant {
                    block: 1,
                    magnitude: 0
                },
                Seen::Stop(1),
                Seen::Free(1),
                Seen::Control(Control::StopAll.usage()),
            ]
        );
    }

    #[test]
    fn failures_name_the_device_and_the_fix() {
        let mut dev = Device::new(&FULL);
        dev.fail = Some("full");
        let layout = dev.layout.clone();
        let err = Session::start(
            &mut dev,
            layout,
            Path::new("/dev/hidraw7"),
            HidrawPidSettings::default(),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                PidError::BlockLoad {
                    status: LoadStatus::Full,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err
            .to_string()
            .starts_with("/dev/hidraw7: the base refused"));

        let mut dev = Device::new(&FULL);
        let mut s = session(&mut dev);
        s.port.fail = Some("output");
        let err = s.apply(&play(1), Instant::now()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/dev/hidraw7: writing Set Constant Force failed (Broken pipe (os error 32)); \
             force feedback is off on this device until it is reopened"
        );

        let mut dev = Device::new(&FULL);
        let mut s = session(&mut dev);
        s.port.slow = true;
        let err = s.apply(&play(1), Instant::now()).unwrap_err();
        assert!(
            matches!(err, PidError::Slow { report: "Set Constant Force", ms, .. } if ms >= 100),
            "{err:?}"
        );
    }

    #[test]
    fn a_node_that_is_not_there_or_not_a_pid_base_is_refused_with_the_fix() {
        let err = probe(Path::new("/nonexistent/hidraw99")).unwrap_err();
        assert!(matches!(err, PidError::Open { .. }), "{err:?}");
        assert!(err
            .to_string()
            .contains("check that the base is plugged in"));
        let joystick = [0x05, 0x01, 0x09, 0x04, 0xa1, 0x01, 0xc0];
        let err = layout_of(Path::new("/dev/hidraw3"), &joystick).unwrap_err();
        assert_eq!(
            err.to_string(),
            "/dev/hidraw3: not a HID PID base rigd can drive: the descriptor has no Set Effect \
             report (PID usage 0x21); use the evdev backend for this device"
        );
        let err = PidError::PermissionDenied {
            path: "/dev/hidraw3".into(),
            vendor: "346e".into(),
        };
        assert!(
            err.to_string()
                .contains("ATTRS{idVendor}==\"346e\", GROUP=\"rigd\""),
            "{err}"
        );
    }

    #[test]
    fn the_writer_keeps_looking_for_a_missing_base_and_stops_promptly() {
        use crate::rt::handoff::latest_value;
        let link = FfbLink::new();
        let (mut commands_in, commands_out) = latest_value(FfbCommand::default());
        let looked = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counter = looked.clone();
        let writer = HidrawPidWriter::spawn(
            Arc::default(),
            move || {
                counter.fetch_add(1, Ordering::Relaxed);
                Some(PathBuf::from("/nonexistent/hidraw99"))
            },
            commands_out,
            link.clone(),
            HidrawPidSettings::default(),
        )
        .unwrap();
        commands_in.write(play(1000));
        std::thread::sleep(RESCAN * 2 + Duration::from_millis(100));
        assert!(!link.device_connected());
        let began = Instant::now();
        let stats = writer.shutdown();
        assert!(began.elapsed() < Duration::from_millis(50));
        assert_eq!((stats.opens, stats.constant_updates), (0, 0));
        let looks = looked.load(Ordering::Relaxed);
        assert!(
            (2..=4).contains(&looks),
            "looked {looks} times in 600 ms, every 250 ms"
        );
        assert_eq!(pid_node(&[PathBuf::from("/nonexistent/hidraw99")]), None);
    }
}
