//! Identity digests of cars and tracks: files made for one car or track (an envelope, a
//! racing line) record the digest of what they were made for, so loading them against a
//! different car, a changed setup or another track is refused instead of silently used.
//!
//! The digest is FNV-1a 64 over the value's `Debug` text, streamed (no text is built), so it
//! changes whenever any parameter changes. It is stable for one rigd version; a file from a
//! version that prints a value differently reads as "made for another car" and is remade.

use std::fmt::{self, Debug, Write};

/// FNV-1a 64-bit offset basis.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Folds formatted text into an FNV-1a state.
struct FnvWriter(u64);

impl Write for FnvWriter {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        for byte in text.bytes() {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
        }
        Ok(())
    }
}

/// The identity digest of `value` (FNV-1a 64 over its `Debug` text).
pub fn digest_of(value: &impl Debug) -> u64 {
    let mut writer = FnvWriter(FNV_OFFSET);
    // Writing into the hasher cannot fail.
    let _ = write!(writer, "{value:?}");
    writer.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtin;
    use crate::track::Track;

    #[test]
    fn a_digest_changes_with_any_parameter_and_only_then() {
        let road = builtin::car("road").expect("road car");
        let mut heavier = road.clone();
        heavier.chassis.mass_kg += 1.0;
        assert_eq!(digest_of(&road), digest_of(&road.clone()));
        assert_ne!(digest_of(&road), digest_of(&heavier));
        assert_ne!(digest_of(&Track::flat()), digest_of(&Track::plane(0.01)));
    }

    #[test]
    fn the_digest_is_fnv1a_of_the_debug_text() {
        // FNV-1a 64 of "a" is the published test vector 0xaf63dc4c8601ec8c.
        let mut writer = FnvWriter(FNV_OFFSET);
        writer.write_str("a").unwrap();
        assert_eq!(writer.0, 0xaf63_dc4c_8601_ec8c);
    }
}
