//! Force feedback: the pure per-tick chain from the physics steering torque to a device
//! command ([`chain`]), the condition effects the base runs itself ([`conditions`]), the
//! RT-thread stage that runs both ([`stage`]), the wait-free state it
//! shares with the input layer and the runtime ([`link`]), and the writer thread that streams
//! it to the kernel's evdev FF API and drives the shift lights ([`evdev_out`]), with the
//! condition effects on the base ([`evdev_conditions`]) and the wheel settings it applies at
//! open and undoes on exit ([`wheel_settings`]).
//!
//! Data flow: RT thread `FfbStage::on_tick` -> latest-value slot -> `rigd-ffb-out` thread ->
//! `EVIOCSFF` on the wheel's event node. The runtime copies [`FfbLink::status`] into each
//! frame's `ffb` field.

pub mod chain;
pub mod conditions;
pub mod evdev_conditions;
pub mod evdev_out;
pub mod link;
pub mod stage;
pub mod wheel_settings;

use std::sync::Arc;

use anyhow::Result;
use rig_config::devices::DevicesConfig;
use rig_config::Config;

use crate::devices;
use crate::rt::handoff::latest_value;
use crate::rt::stage::{RtStage, StopReason};
pub use chain::{ChainParams, FfbChain, FfbOutput, RimMotion};
pub use conditions::DriveState;
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
        leds: found.sys.leds.clone(),
        hidraw: found.sys.hidraw.first().cloned(),
    })
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
    let writer = FfbWriter::spawn(
        move || locate_target(&wanted),
        commands_out,
        link.clone(),
        WriterSettings::from_config(&devices.ffb),
    )?;
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
