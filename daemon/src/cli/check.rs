//! `rigd check-config FILE`: every problem of a configuration file, one per line
//! (`FILE:LINE:COLUMN: FIELD: what is wrong (fix: how)`), or a confirmation. Checks what
//! `rigd run` would load: the document, and that its car and track exist and are valid.

use std::path::Path;

/// Checks the file at `path`; prints `FILE: ok` when it is valid.
pub fn check_config(path: &Path) -> Result<(), rig_config::ConfigError> {
    let config = crate::runtime::config_load::load_config(Some(path))?;
    println!("{}: ok", path.display());
    for warning in config.motion.warnings() {
        println!("{}: warning: {warning}", path.display());
    }
    Ok(())
}
