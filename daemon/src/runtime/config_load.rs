//! Loading the configuration rigd runs, the same way for `check-config`, `run`, `bench loop`
//! and the SIGHUP reload: rig-config reads the file, parses it once, validates it and places
//! every problem; this module adds the one check only the daemon can make, that the car and
//! track `[sim]` names exist and are valid (rig-physics' parsers, through
//! [`simulation::resolve`]), reported at the line of the `[sim]` key that names them. rig-config
//! lists the built-in names in its messages; a test here keeps its lists equal to the physics'.

use std::path::Path;

use rig_config::{Config, ConfigError, FieldProblem};

use super::simulation;

/// Loads the configuration `path` names (or the embedded defaults) and checks that its car
/// and track exist and are valid; every problem is reported with its line.
pub fn load_config(path: Option<&Path>) -> Result<Config, ConfigError> {
    rig_config::load_with(path, &car_and_track_problems).map(|loaded| loaded.config)
}

/// The problems of the car and track `[sim]` names (none when both load).
fn car_and_track_problems(config: &Config) -> Vec<FieldProblem> {
    simulation::resolve(&config.sim).err().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_config_names_the_same_built_in_cars_and_tracks_as_the_physics() {
        assert_eq!(
            rig_config::sim::BUILTIN_CARS.to_vec(),
            rig_physics::builtin::car_names()
        );
        assert_eq!(
            rig_config::sim::BUILTIN_TRACKS,
            rig_physics::track::BUILTIN_NAMES
        );
    }
}
