//! The physics bytes of a frame and their digests: what a recording stores every
//! [`super::format::CHECKPOINT_EVERY_STEPS`] steps and a replay compares, so it can say
//! whether it reproduced the session bit for bit and where it first did not.
//!
//! The physics bytes are the native telemetry encoding of the player car's telemetry, with
//! the frame's non-physics parts (sequence, loop health, force feedback) left at zero: every
//! channel the physics produces, as exact f64 bit patterns. No allocation (runs on the RT
//! thread while recording).

use rig_physics::CarTelemetry;
use rig_protocols::telemetry::native::NATIVE_LEN;
use rig_protocols::telemetry::Format;
use rig_protocols::Frame;

use super::format::{fnv1a, FNV_OFFSET};

/// The native encoding of `car` alone.
pub fn physics_bytes(car: &CarTelemetry) -> [u8; NATIVE_LEN] {
    let frame = Frame {
        car: *car,
        ..Frame::default()
    };
    let mut out = [0u8; NATIVE_LEN];
    // The buffer is exactly the native length, the only thing encode can refuse.
    let _ = Format::Native.encode(&frame, &mut out);
    out
}

/// FNV-1a 64 of [`physics_bytes`].
pub fn physics_digest(car: &CarTelemetry) -> u64 {
    fnv1a(FNV_OFFSET, &physics_bytes(car))
}

/// The digest of a window of steps: each step's digest folded in, in order.
#[derive(Debug, Clone, Copy)]
pub struct WindowDigest(u64);

impl WindowDigest {
    /// An empty window.
    pub fn new() -> WindowDigest {
        WindowDigest(FNV_OFFSET)
    }

    /// Folds in one step's [`physics_digest`].
    pub fn add(&mut self, step_digest: u64) {
        self.0 = fnv1a(self.0, &step_digest.to_le_bytes());
    }

    /// The window's digest; starts the next window.
    pub fn take(&mut self) -> u64 {
        std::mem::replace(&mut self.0, FNV_OFFSET)
    }
}

impl Default for WindowDigest {
    fn default() -> Self {
        WindowDigest::new()
    }
}
