//! Force feedback: the pure per-tick chain from the physics steering torque to a device
//! command ([`chain`]), the condition effects the base runs itself ([`conditions`]), the
//! RT-thread stage that runs both ([`stage`]), the wait-free state it
//! shares with the input layer and the runtime ([`link`]), and the writer thread that streams
//! it to the kernel's evdev FF API and drives the shift lights ([`evdev_out`]), or, for HID
//! PID direct-drive bases, the writer that speaks PID itself over hidraw ([`hidraw_pid`],
//! protocol in [`pid`]; docs/pid-backend.md). Which backend drives the device (`auto`,
//! evdev, hidraw PID) is decided in
//! [`crate::devices::ffb_backend`], when the session starts or, for a device plugged in later,
//! when it appears ([`deferred`]).
//! The base's condition effects through evdev are in [`evdev_conditions`], the wheel
//! settings applied at open and undone on exit in [`wheel_settings`].
//!
//! Data flow: RT thread `FfbStage::on_tick` -> latest-value slot (and, when the command
//! changed, the writer's [`doorbell`]) -> `rigd-ffb-out` thread -> `EVIOCSFF` on the wheel's
//! event node; the writer records when its level writes ran ([`write_times`]). The runtime
//! copies [`FfbLink::status`] into each frame's `ffb` field; the health thread logs each hold
//! once and puts it in `STATUS=` ([`hold_log`]).

pub mod chain;
pub mod conditions;
pub mod deferred;
pub mod doorbell;
pub mod evdev_conditions;
pub mod evdev_out;
pub mod hidraw_pid;
pub mod hold_log;
pub mod link;
pub mod pid;
pub mod stage;
pub mod wheel_settings;
pub mod write_times;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Result;
use rig_config::devices::DevicesConfig;
use rig_config::Config;

use crate::devices;
use crate::devices::ffb_backend;
pub use crate::devices::ffb_backend::{Backend, BackendProbe};
use crate::rt::handoff::{latest_value, LatestReader};
use crate::rt::stage::{RtStage, StopReason};
pub use chain::{ChainParams, FfbChain, FfbOutput, RimMotion};
pub use conditions::DriveState;
pub use deferred::{DeferredWriter, StartedWriter};
pub use evdev_out::{FfbTarget, FfbWriter, WriterSettings};
pub use hidraw_pid::{HidrawPidSettings, HidrawPidWriter};
pub use link::FfbLink;
pub use stage::{ConditionLevel, Conditions, FfbCommand, FfbStage};

/// The FFB stage together with its writer thread (the thread lives as long as the stage).
#[derive(Debug)]
pub struct FfbOutputStage {
    stage: FfbStage,
    writer: OutputWriter,
}

/// The writer thread behind a stage: evdev, or hidraw PID for direct-drive bases, or the
/// thread waiting for a device that was not plugged in at start to pick one of those.
/// Dropping it signals the thread to stop the force and close the device;
/// [`RtStage::wait_stopped`] also waits for that.
#[derive(Debug)]
enum OutputWriter {
    Evdev {
        writer: FfbWriter,
    },
    HidrawPid {
        writer: HidrawPidWriter,
    },
    WhenPlugged {
        writer: DeferredWriter,
    },
    /// The configured backend cannot drive the device: force stays off.
    None,
}

impl StartedWriter for FfbWriter {
    fn wait(self: Box<Self>) {
        FfbWriter::wait(*self);
    }
}

impl StartedWriter for HidrawPidWriter {
    fn wait(self: Box<Self>) {
        HidrawPidWriter::wait(*self);
    }
}

impl RtStage for FfbOutputStage {
    fn name(&self) -> &'static str {
        "ffb"
    }
    fn on_tick(&mut self, frame: &rig_protocols::Frame) {
        self.stage.on_tick(frame);
    }
    fn safe_stop(&mut self, reason: StopReason) {
        self.stage.safe_stop(reason);
    }
    fn resume(&mut self) {
        self.stage.resume();
    }
    fn wait_stopped(&mut self, within: std::time::Duration) {
        match &mut self.writer {
            OutputWriter::Evdev { writer } => writer.stop_within(within),
            OutputWriter::HidrawPid { writer } => writer.stop_within(within),
            OutputWriter::WhenPlugged { writer } => writer.stop_within(within),
            OutputWriter::None => {}
        }
    }
}

/// Finds the configured FFB device now, if it is plugged in and has FF_CONSTANT.
pub fn locate_target(config: &DevicesConfig) -> Option<FfbTarget> {
    let id = config.ffb_device_id()?;
    let wanted = config.find_device(id)?;
    let found = devices::find(wanted)?;
    let caps = found.caps.as_ref().ok()?;
    caps.has_constant_force().then(|| FfbTarget {
        event_node: found.sys.event_node.clone(),
        driver: found.sys.driver.clone(),
        hid_pid: found.sys.hid_pid_page,
        leds: found.sys.leds.clone(),
        hidraw: found.sys.hidraw.first().cloned(),
    })
}

/// The backend for the configured FFB device and why, decided on the device as it is now
/// (None when it is not plugged in).
pub fn backend_of_plugged(config: &DevicesConfig) -> Option<(Backend, String)> {
    let device = config
        .ffb_device_id()
        .and_then(|id| config.find_device(id))
        .and_then(devices::find)?;
    Some(ffb_backend::choose(
        config.ffb.backend,
        &BackendProbe::of(&device.sys),
    ))
}

/// Starts the writer thread of `backend` for `devices`, stopping when `quit` is set
/// ([`OutputWriter::None`], with the reason logged, when the backend is off).
fn start_writer(
    backend: Backend,
    why: &str,
    devices: &DevicesConfig,
    commands: LatestReader<FfbCommand>,
    link: Arc<FfbLink>,
    quit: Arc<AtomicBool>,
) -> std::io::Result<OutputWriter> {
    let wanted = devices.clone();
    Ok(match backend {
        Backend::Evdev => {
            tracing::info!("force feedback backend: {why}");
            OutputWriter::Evdev {
                writer: FfbWriter::spawn(
                    quit,
                    move || locate_target(&wanted),
                    commands,
                    link,
                    WriterSettings::from_config(&devices.ffb),
                )?,
            }
        }
        Backend::HidrawPid => {
            tracing::info!("force feedback backend: {why}");
            for unsupported in hidraw_pid::unsupported_settings(&devices.ffb) {
                tracing::warn!("{unsupported}");
            }
            OutputWriter::HidrawPid {
                writer: HidrawPidWriter::spawn(
                    quit,
                    move || locate_pid_node(&wanted),
                    commands,
                    link,
                    HidrawPidSettings::from_config(&devices.ffb),
                )?,
            }
        }
        // No writer thread: the link never sees a device, so the stage holds zero and says
        // "no device" like for an unplugged wheel.
        Backend::Off => {
            tracing::warn!("force feedback {why}");
            OutputWriter::None
        }
    })
}

impl StartedWriter for OutputWriter {
    fn wait(self: Box<Self>) {
        match *self {
            OutputWriter::Evdev { writer } => drop(writer.wait()),
            OutputWriter::HidrawPid { writer } => drop(writer.wait()),
            // start_writer never starts a waiting thread.
            OutputWriter::WhenPlugged { .. } | OutputWriter::None => {}
        }
    }
}

/// Builds the FFB stage and starts its writer for `devices` at a loop period of `dt_s`,
/// sharing `link` with the input layer. The writer is the backend [`backend_of_plugged`]
/// picks; for a device not plugged in yet, a [`DeferredWriter`] picks it when it appears.
pub fn output_stage(
    devices: &DevicesConfig,
    dt_s: f64,
    link: Arc<FfbLink>,
) -> Result<FfbOutputStage> {
    let (commands_in, commands_out) = latest_value(FfbCommand::default());
    let quit = Arc::new(AtomicBool::new(false));
    let writer = match backend_of_plugged(devices) {
        Some((backend, why)) => {
            start_writer(backend, &why, devices, commands_out, link.clone(), quit)?
        }
        None => {
            tracing::info!(
                "force feedback: the FFB device is not plugged in; its backend is chosen when \
                 it appears"
            );
            let (probe_devices, start_devices, writer_link) =
                (devices.clone(), devices.clone(), link.clone());
            let start = move |backend, why: String, quit| -> Option<Box<dyn StartedWriter>> {
                match start_writer(
                    backend,
                    &why,
                    &start_devices,
                    commands_out,
                    writer_link,
                    quit,
                ) {
                    Ok(OutputWriter::None) => None,
                    Ok(writer) => Some(Box::new(writer)),
                    Err(e) => {
                        tracing::warn!(
                            "force feedback held off: cannot start the writer thread: {e}"
                        );
                        None
                    }
                }
            };
            OutputWriter::WhenPlugged {
                writer: DeferredWriter::spawn(move || backend_of_plugged(&probe_devices), start)?,
            }
        }
    };
    Ok(FfbOutputStage {
        stage: FfbStage::new(devices, dt_s, link, commands_in),
        writer,
    })
}

/// The configured FFB device's hidraw node that carries its PID reports, if it is plugged in.
pub fn locate_pid_node(config: &DevicesConfig) -> Option<PathBuf> {
    let id = config.ffb_device_id()?;
    let found = devices::find(config.find_device(id)?)?;
    hidraw_pid::pid_node(&found.sys.hidraw)
}

/// The FFB output stage for `config` sharing the session's `link` (none when FFB is off or
/// no FFB device is configured).
pub fn stage(config: &Config, link: &Arc<FfbLink>) -> Result<Option<FfbOutputStage>> {
    let devices = &config.devices;
    if !devices.ffb.enabled || devices.ffb_device_id().is_none() {
        return Ok(None);
    }
    let dt_s = 1.0 / f64::from(config.realtime.rate_hz.max(1));
    output_stage(devices, dt_s, Arc::clone(link)).map(Some)
}

/// Asks a writer thread to stop (`quit`) and waits at most `within` for it to end, joining it
/// when it did; a thread still busy after that is left to finish on its own. Returns its
/// result when joined.
fn stop_writer_within<T>(
    quit: &std::sync::atomic::AtomicBool,
    thread: &mut Option<std::thread::JoinHandle<T>>,
    within: std::time::Duration,
) -> Option<T> {
    quit.store(true, std::sync::atomic::Ordering::Release);
    let deadline = std::time::Instant::now() + within;
    while thread.as_ref().is_some_and(|t| !t.is_finished()) {
        if std::time::Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    thread.take().and_then(|t| t.join().ok())
}
