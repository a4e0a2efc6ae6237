//! Builds the output stages the RT thread runs after each physics step, from the config.
//!
//! Each output feature (telemetry, force feedback, motion, gamepad rumble) registers itself
//! with ONE line in [`build_output_stages`]; the runtime never needs to know more about it.
//! Stages are built off the RT thread (they may allocate and open devices here) and are then
//! moved onto it.

use anyhow::Result;
use rig_config::Config;

use super::session_links::SessionLinks;
use crate::rt::stage::RtStage;

/// The output stages for `config`, in the order they run each tick, sharing the session's
/// `links`.
///
/// Every stage receives the player car's [`rig_protocols::Frame`] once per tick, and
/// `safe_stop` on exit, reload, fault and e-stop. Building happens at start and on every
/// SIGHUP reload (after the old stages were safe-stopped and dropped). With a game source
/// (`[source] kind = "game"`) there is no FFB stage: the game drives the wheel's force
/// feedback and rigd never opens it.
pub fn build_output_stages(config: &Config, links: &SessionLinks) -> Result<Vec<Box<dyn RtStage>>> {
    let mut stages: Vec<Box<dyn RtStage>> = Vec::new();

    stages.extend(crate::telemetry_out::stages(config, &links.telemetry)?);
    stages.extend(crate::motion::stages(config, &links.panic_park)?);
    if let Some(rumble) = crate::input::rumble::stage(&config.devices, &links.rumble) {
        stages.push(Box::new(rumble));
    }
    if config.source.is_game() {
        tracing::info!(
            "force feedback stays with the game ([source] kind = \"game\"): rigd does not open \
             the wheel's force feedback"
        );
    } else if let Some(ffb) = crate::ffb::stage(config, &links.ffb)? {
        stages.push(Box::new(ffb));
    }

    Ok(stages)
}
