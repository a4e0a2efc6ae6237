//! Deterministic bumps: sums of a few plane waves over (distance, lateral offset), with phases
//! from a seeded hash, so the same document always gives the same road.
//!
//! Along the lap every wavenumber is rounded to a whole number of waves per lap, so the field
//! is periodic and has no step at the start line. Values and both partial derivatives are
//! analytic, so the ground normal is exact and continuous.

use std::f64::consts::TAU;

/// One plane wave `amplitude * sin(k_s * s + k_d * d + phase)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Wave {
    k_s: f64,
    k_d: f64,
    phase: f64,
    amplitude: f64,
}

/// A bump field of three waves; amplitudes sum to the peak amplitude.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct BumpField {
    waves: [Wave; 3],
}

/// Height and its partial derivatives along the lap and across it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct BumpValue {
    /// Height, m.
    pub height_m: f64,
    /// d(height)/d(distance along the lap).
    pub d_ds: f64,
    /// d(height)/d(lateral offset).
    pub d_dd: f64,
}

/// SplitMix64: a tiny, well-mixed hash for reproducible phases.
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A phase in `0 .. 2 pi` from `seed` and `salt`.
fn phase(seed: u64, salt: u64) -> f64 {
    (splitmix64(seed ^ splitmix64(salt)) >> 11) as f64 / (1u64 << 53) as f64 * TAU
}

impl BumpField {
    /// Peak `amplitude_m` with dominant `wavelength_m`, periodic over `lap_m`.
    pub(crate) fn new(amplitude_m: f64, wavelength_m: f64, lap_m: f64, seed: u64) -> BumpField {
        // Wavelength ratios and crossing angles chosen so the sum never repeats visibly.
        const SHAPE: [(f64, f64, f64); 3] = [(1.0, 0.0, 0.5), (0.62, 0.45, 0.3), (0.38, -0.6, 0.2)];
        let mut waves = [Wave::default(); 3];
        for (i, (wave, (ratio, angle, share))) in waves.iter_mut().zip(SHAPE).enumerate() {
            let lambda = wavelength_m * ratio;
            let cycles = (lap_m / lambda).round().max(1.0);
            let k_s = TAU * cycles / lap_m;
            *wave = Wave {
                k_s,
                k_d: k_s * f64::tan(angle),
                phase: phase(seed, i as u64 + 1),
                amplitude: amplitude_m * share,
            };
        }
        BumpField { waves }
    }

    /// The field at distance `s_m` and lateral offset `d_m`, scaled by `scale`.
    pub(crate) fn at(&self, s_m: f64, d_m: f64, scale: f64) -> BumpValue {
        let mut out = BumpValue::default();
        if scale == 0.0 {
            return out;
        }
        for w in &self.waves {
            if w.amplitude == 0.0 {
                continue;
            }
            // The deterministic fast sin_cos: three per wheel per step.
            let (sin, cos) = crate::math::sin_cos(w.k_s * s_m + w.k_d * d_m + w.phase);
            let a = w.amplitude * scale;
            out.height_m += a * sin;
            out.d_ds += a * w.k_s * cos;
            out.d_dd += a * w.k_d * cos;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bumps_are_periodic_bounded_and_their_slopes_match_the_heights() {
        let lap = 1234.5;
        let field = BumpField::new(0.02, 17.0, lap, 42);
        for &(s, d) in &[(0.0, 0.0), (10.3, -4.0), (600.0, 7.5)] {
            let a = field.at(s, d, 1.0);
            let b = field.at(s + lap, d, 1.0);
            assert!((a.height_m - b.height_m).abs() < 1e-9);
            assert!(a.height_m.abs() <= 0.02 + 1e-12);
            let h = 1e-5;
            let ds =
                (field.at(s + h, d, 1.0).height_m - field.at(s - h, d, 1.0).height_m) / (2.0 * h);
            let dd =
                (field.at(s, d + h, 1.0).height_m - field.at(s, d - h, 1.0).height_m) / (2.0 * h);
            assert!((ds - a.d_ds).abs() < 1e-6 && (dd - a.d_dd).abs() < 1e-6);
        }
        assert_eq!(field, BumpField::new(0.02, 17.0, lap, 42));
        assert_ne!(field, BumpField::new(0.02, 17.0, lap, 43));
    }
}
