//! `rigd maneuver`: scripted driving on the physics alone, printed as CSV.
//!
//! The maneuvers themselves belong to rig-physics (`rig_physics::maneuver`); until that
//! module exists this command says so and fails (exit 1) instead of printing made-up data.

use anyhow::Result;

use crate::cli::ManeuverArgs;

/// Runs the maneuver `args` names.
pub fn run(args: &ManeuverArgs) -> Result<()> {
    let _ = args;
    anyhow::bail!(
        "maneuvers are not available in this build: rig-physics has no maneuver module yet (fix: update rigd; `rigd run` and `rigd bench loop` work without it)"
    )
}
