//! Which build this is, as written into recordings and compared by `rigd replay`: the package
//! version and the fingerprint `build.rs` captured (git commit, `+dirty`, or `RIGD_BUILD_ID`).

/// rigd's package version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The build fingerprint (`unknown` when the build had neither git nor `RIGD_BUILD_ID`).
pub const FINGERPRINT: &str = env!("RIGD_BUILD_FINGERPRINT");

/// How a recording's build compares with this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildMatch {
    /// Same version and fingerprint, and the fingerprint is known.
    Same,
    /// A different version or fingerprint: the replay may diverge.
    Different,
    /// One side's fingerprint is `unknown`: cannot tell.
    Unknown,
}

/// Compares a recording's `version` and `fingerprint` with this build.
pub fn compare(version: &str, fingerprint: &str) -> BuildMatch {
    if fingerprint == "unknown" || FINGERPRINT == "unknown" {
        BuildMatch::Unknown
    } else if version == VERSION && fingerprint == FINGERPRINT {
        BuildMatch::Same
    } else {
        BuildMatch::Different
    }
}
