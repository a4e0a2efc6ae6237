//! Force feedback: the pure per-tick chain from the physics steering torque to a device
//! command ([`chain`]), the RT-thread stage that runs it ([`stage`]), the wait-free state it
//! shares with the input layer and the runtime ([`link`]), and the writer thread that streams
//! it to the kernel's evdev FF API and drives the shift lights ([`evdev_out`]); which backend
//! drives the device (`auto`, evdev, hidraw PID) is decided in [`crate::devices::ffb_backend`].
//!
//! Data flow: RT thread `FfbStage::on_tick` -> latest-value slot -> `rigd-ffb-out` thread ->
//! `EVIOCSFF` on the wheel's event node. The runtime copies [`FfbLink::status`] into each
//! frame's `ffb` field; the health thread logs each hold once and puts it in `STATUS=`
//! ([`hold_log`]).

pub mod chain;
pub mod evdev_out;
pub mod hold_log;
pub mod link;
pub mod stage;

use std::sync::Arc;

use anyhow::Result;
use rig_config::devices::DevicesConfig;
use rig_config::Config;

use crate::devices;
use crate::devices::ffb_backend;
pub use crate::devices::ffb_backend::{Backend, BackendProbe};
use crate::rt::handoff::latest_value;
use crate::rt::stage::{RtStage, StopReason};
pub use chain::{ChainParams, FfbChain, FfbOutput, RimMotion};
pub use evdev_out::{FfbTarget, FfbWriter, WriterSettings};
pub use link::FfbLink;
pub use stage::{ConditionLevel, Conditions, FfbCommand, FfbStage};

/// The FFB stage together with its writer thread (the thread lives as long as the stage).
#[derive(Debug)]
pub struct FfbOutputStage {
    stage: FfbStage,
    _writer: FfbWriter,
}

impl RtStage for FfbOutputStage {
    fn on_tick(&mut self, frame: &rig_protocols::Frame) {
        self.stage.on_tick(frame);
    }
    fn safe_stop(&mut self, reason: StopReason) {
        self.stage.safe_stop(reason);
    }
    fn resume(&mut self) {
        self.stage.resume();
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
/// (evdev when it is not plugged in yet: that writer finds it when it arrives).
pub fn backend_for(config: &DevicesConfig) -> (Backend, String) {
    let found = config
        .ffb_device_id()
        .and_then(|id| config.find_device(id))
        .and_then(devices::find);
    match found {
        Some(device) => ffb_backend::choose(config.ffb.backend, &BackendProbe::of(&device.sys)),
        None => (
            Backend::Evdev,
            "evdev (the FFB device is not plugged in yet; evdev drives it once it is)".to_string(),
        ),
    }
}

/// Builds the FFB stage and starts its writer for `devices` at a loop period of `dt_s`,
/// sharing `link` with the input layer.
pub fn output_stage(
    devices: &DevicesConfig,
    dt_s: f64,
    link: Arc<FfbLink>,
) -> Result<FfbOutputStage> {
    let (commands_in, commands_out) = latest_value(FfbCommand::default());
    let wanted = devices.clone();
    let settings = WriterSettings::from_config(&devices.ffb);
    let (backend, why) = backend_for(devices);
    let writer = match backend {
        Backend::Evdev => {
            tracing::info!("force feedback backend: {why}");
            FfbWriter::spawn(
                move || locate_target(&wanted),
                commands_out,
                link.clone(),
                settings,
            )?
        }
        // Seam for the hidraw PID writer (issue 18, `HidrawPidWriter::spawn`, same shape as
        // `FfbWriter::spawn`): until it is part of rigd the device is driven through evdev.
        Backend::HidrawPid => {
            tracing::warn!(
                "force feedback backend: {why} was chosen, but this rigd has no hidraw PID                  writer yet; driving the device through evdev instead"
            );
            FfbWriter::spawn(
                move || locate_target(&wanted),
                commands_out,
                link.clone(),
                settings,
            )?
        }
        Backend::Off => {
            tracing::warn!("force feedback {why}");
            FfbWriter::spawn(|| None, commands_out, link.clone(), settings)?
        }
    };
    Ok(FfbOutputStage {
        stage: FfbStage::new(devices, dt_s, link, commands_in),
        _writer: writer,
    })
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
