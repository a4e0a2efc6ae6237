//! Deterministic bumps: sums of a few plane waves over (distance, lateral offset), with phases
//! from a seeded hash, so the same document always gives the same road.
//!
//! Along the lap every wavenumber is rounded to a whole number of waves per lap, so the field
//! is periodic and has no step at the start line. Values and both partial derivatives are
//! analytic, so the ground normal is exact and continuous.
//!
//! Every wave needs a sine and a cosine per query (three per wheel and step, six off the racing
//! surface), so they come from [`table_sin_cos`]: a 256-entry table of exact values built at
//! compile time and 4-term series for the remainder, within 1e-15 of the library's values
//! (tested).
//!
//! A car's four wheels query the field together ([`BumpField::at4`]): the same operations in
//! the same order as four [`BumpField::at`] calls, each wave's sines done in SSE2 lanes, one
//! wheel per lane, so the results are the same bits (tested) for about a third of the
//! instructions.

use std::f64::consts::TAU;

use crate::math::{F64x4, ROUNDING_SHIFT};

/// Entries of the sine table over one turn (a power of two).
const TABLE_SIZE: usize = 256;
/// The true `2 pi / TABLE_SIZE` (not the rounded `TAU / 256`, whose error times a large index
/// would show) in two parts: the first has 27 significant bits, so `q * STEP_HI` is exact for
/// any index `q` below 2^26, and the sum is good to ~3e-28.
const STEP_HI: f64 = 0.024543692590668797;
const STEP_LO: f64 = 1.5501462182508444e-11;
/// Largest |angle| reduced with the table (q = angle / step stays below 2^26); larger ones
/// (never met on a lap: wavenumber times distance stays below ~1e5) go to the library.
const TABLE_LIMIT: f64 = 1.0e6;

/// `(sin, cos)` of `k` table steps for `k <= TABLE_SIZE / 8` (at most pi / 4) by their Taylor
/// series to the 27th / 26th power (truncation below 1e-30), at compile time.
const fn series_sin_cos(k: usize) -> (f64, f64) {
    let x = k as f64 * STEP_HI + k as f64 * STEP_LO;
    let z = x * x;
    let (mut sin, mut cos) = (0.0, 0.0);
    let mut n = 14;
    while n > 0 {
        // Horner from the highest term: sin = x (1 - z/(2*3) (1 - z/(4*5) (...))).
        let (a, b) = ((2 * n) as f64, (2 * n + 1) as f64);
        sin = 1.0 - z / (a * b) * sin;
        cos = 1.0 - z / ((a - 1.0) * a) * cos;
        n -= 1;
    }
    (x * sin, cos)
}

/// `[sin, cos]` of `j * 2 pi / TABLE_SIZE` for every `j`, from the first octant by symmetry.
const SINE_TABLE: [[f64; 2]; TABLE_SIZE] = {
    let quarter = TABLE_SIZE / 4;
    let mut table = [[0.0; 2]; TABLE_SIZE];
    let mut j = 0;
    while j < TABLE_SIZE {
        let k = j % quarter;
        let (sin, cos) = if k <= quarter / 2 {
            series_sin_cos(k)
        } else {
            let (sin, cos) = series_sin_cos(quarter - k);
            (cos, sin)
        };
        table[j] = match j / quarter {
            0 => [sin, cos],
            1 => [cos, -sin],
            2 => [-sin, -cos],
            _ => [-cos, sin],
        };
        j += 1;
    }
    table
};

/// `(sin x, cos x)` from the nearest table entry `a` and the remainder `r = x - a`
/// (|r| <= pi / 256): `sin x = sin a + (sin a (cos r - 1) + cos a sin r)`, and alike for the
/// cosine, with 3-term series for `sin r - r` and `cos r - 1` (truncation below 1e-22 and
/// 1e-19).
#[inline]
pub(crate) fn table_sin_cos(x: f64) -> (f64, f64) {
    // NaN passes this test and comes out as NaN (its index saturates to 0, its remainder is
    // NaN).
    if x.abs() > TABLE_LIMIT {
        return x.sin_cos();
    }
    let q = crate::math::round_to_integer(x * (TABLE_SIZE as f64 / TAU));
    let r = (x - q * STEP_HI) - q * STEP_LO;
    let [sin_a, cos_a] = SINE_TABLE[(q as i64 as usize) & (TABLE_SIZE - 1)];
    let z = r * r;
    let sin_r = r + r * z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5_040.0)));
    let cos_r_minus_1 = z * (-0.5 + z * (1.0 / 24.0 + z * (-1.0 / 720.0)));
    (
        sin_a + (sin_a * cos_r_minus_1 + cos_a * sin_r),
        cos_a + (cos_a * cos_r_minus_1 - sin_a * sin_r),
    )
}

/// [`table_sin_cos`] of four angles in lanes: the same operations lane by lane, so the same
/// bits as four scalar calls. When any angle is beyond the table's range all four take the
/// scalar path.
#[inline]
pub(crate) fn table_sin_cos4(x: F64x4) -> (F64x4, F64x4) {
    let angles = x.to_array();
    let beyond = |k: usize| angles[k].abs() > TABLE_LIMIT;
    // `|`, not `||` or `any`: four compares and one branch.
    if beyond(0) | beyond(1) | beyond(2) | beyond(3) {
        let pairs = angles.map(table_sin_cos);
        return (
            F64x4::from_array(pairs.map(|p| p.0)),
            F64x4::from_array(pairs.map(|p| p.1)),
        );
    }
    // `round_to_integer` lane by lane.
    let q = (x * (TABLE_SIZE as f64 / TAU) + ROUNDING_SHIFT) - ROUNDING_SHIFT;
    let r = (x - q * STEP_HI) - q * STEP_LO;
    let entries = q
        .to_array()
        .map(|q| SINE_TABLE[(q as i64 as usize) & (TABLE_SIZE - 1)]);
    let sin_a = F64x4::from_array(entries.map(|e| e[0]));
    let cos_a = F64x4::from_array(entries.map(|e| e[1]));
    let z = r * r;
    let sin_r = r + r * z * (-1.0 / 6.0 + z * (1.0 / 120.0 + z * (-1.0 / 5_040.0)));
    let cos_r_minus_1 = z * (-0.5 + z * (1.0 / 24.0 + z * (-1.0 / 720.0)));
    (
        sin_a + (sin_a * cos_r_minus_1 + cos_a * sin_r),
        cos_a + (cos_a * cos_r_minus_1 - sin_a * sin_r),
    )
}

/// One plane wave `amplitude * sin(k_s * s + k_d * d + phase)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Wave {
    k_s: f64,
    k_d: f64,
    phase: f64,
    amplitude: f64,
    /// `amplitude * k_s` and `amplitude * k_d`: the slopes' factors.
    slope_amplitude: [f64; 2],
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
pub(crate) fn phase(seed: u64, salt: u64) -> f64 {
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
            let (k_d, amplitude) = (k_s * f64::tan(angle), amplitude_m * share);
            *wave = Wave {
                k_s,
                k_d,
                phase: phase(seed, i as u64 + 1),
                amplitude,
                slope_amplitude: [amplitude * k_s, amplitude * k_d],
            };
        }
        BumpField { waves }
    }

    /// The field at distance `s_m` and lateral offset `d_m`.
    pub(crate) fn at(&self, s_m: f64, d_m: f64) -> BumpValue {
        let mut out = BumpValue::default();
        for w in &self.waves {
            let (sin, cos) = table_sin_cos(w.k_s * s_m + w.k_d * d_m + w.phase);
            out.height_m += w.amplitude * sin;
            out.d_ds += w.slope_amplitude[0] * cos;
            out.d_dd += w.slope_amplitude[1] * cos;
        }
        out
    }

    /// [`BumpField::at`] at four points (`s_m[k]`, `d_m[k]`), bit for bit, in lanes.
    pub(crate) fn at4(&self, s_m: [f64; 4], d_m: [f64; 4]) -> [BumpValue; 4] {
        let (s, d) = (F64x4::from_array(s_m), F64x4::from_array(d_m));
        let zero = F64x4::splat(0.0);
        let (mut height, mut d_ds, mut d_dd) = (zero, zero, zero);
        for w in &self.waves {
            let (sin, cos) = table_sin_cos4(w.k_s * s + w.k_d * d + w.phase);
            height = height + w.amplitude * sin;
            d_ds = d_ds + w.slope_amplitude[0] * cos;
            d_dd = d_dd + w.slope_amplitude[1] * cos;
        }
        let (height, d_ds, d_dd) = (height.to_array(), d_ds.to_array(), d_dd.to_array());
        [0, 1, 2, 3].map(|k| BumpValue {
            height_m: height[k],
            d_ds: d_ds[k],
            d_dd: d_dd[k],
        })
    }

    /// The field as [`BumpField::at`] computed it before the table-based sine (each wave on
    /// `math::sin_cos`, zero waves skipped): the oracle of the ground query tests.
    #[cfg(test)]
    pub(crate) fn at_reference(&self, s_m: f64, d_m: f64) -> BumpValue {
        let mut out = BumpValue::default();
        for w in &self.waves {
            if w.amplitude == 0.0 {
                continue;
            }
            let (sin, cos) = crate::math::sin_cos(w.k_s * s_m + w.k_d * d_m + w.phase);
            let a = w.amplitude;
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
            let a = field.at(s, d);
            let b = field.at(s + lap, d);
            assert!((a.height_m - b.height_m).abs() < 1e-9);
            assert!(a.height_m.abs() <= 0.02 + 1e-12);
            let h = 1e-5;
            let ds = (field.at(s + h, d).height_m - field.at(s - h, d).height_m) / (2.0 * h);
            let dd = (field.at(s, d + h).height_m - field.at(s, d - h).height_m) / (2.0 * h);
            assert!((ds - a.d_ds).abs() < 1e-6 && (dd - a.d_dd).abs() < 1e-6);
        }
        assert_eq!(field, BumpField::new(0.02, 17.0, lap, 42));
        for &(s, d) in &[(0.0, 0.0), (10.3, -4.0), (600.0, 7.5), (3900.0, 25.0)] {
            let (fast, reference) = (field.at(s, d), field.at_reference(s, d));
            assert!((fast.height_m - reference.height_m).abs() < 1e-17);
            assert!((fast.d_ds - reference.d_ds).abs() < 1e-16);
            assert!((fast.d_dd - reference.d_dd).abs() < 1e-16);
        }
        assert_ne!(field, BumpField::new(0.02, 17.0, lap, 43));
    }

    /// Four points at once give the bits of four single queries, including points whose
    /// angles leave the table's range (all four then take the scalar path) and NaN.
    #[test]
    fn four_points_at_once_are_four_single_queries_bit_for_bit() {
        let field = BumpField::new(0.02, 17.0, 4321.0, 7);
        let same = |a: BumpValue, b: BumpValue| {
            a.height_m.to_bits() == b.height_m.to_bits()
                && a.d_ds.to_bits() == b.d_ds.to_bits()
                && a.d_dd.to_bits() == b.d_dd.to_bits()
        };
        let mut checked = 0;
        let mut x: f64 = 0.37;
        for _ in 0..2000 {
            x = (x * 3.7 + 0.123).fract();
            let s = [x * 5000.0 - 300.0, x * 4321.0, 17.0 + x, -x * 40.0];
            let d = [x * 12.0 - 6.0, -x * 3.0, 25.0 * x, 0.0];
            let four = field.at4(s, d);
            for k in 0..4 {
                assert!(
                    same(four[k], field.at(s[k], d[k])),
                    "point {k} at s {}",
                    s[k]
                );
                checked += 1;
            }
        }
        let (s, d) = ([1e9, 5.0, f64::NAN, -1e7], [0.0, 1.0, 2.0, 3.0]);
        let four = field.at4(s, d);
        for k in 0..4 {
            let one = field.at(s[k], d[k]);
            assert!(same(four[k], one) || (four[k].height_m.is_nan() && one.height_m.is_nan()));
        }
        assert_eq!(checked, 8000);
    }

    /// The table-based sine and cosine stay within a few units in the last place of the
    /// library's over the angles a lap can produce (and beyond), both signs, and at the
    /// table's entries and midpoints where the remainder is smallest and largest.
    #[test]
    fn table_sin_cos_matches_the_library() {
        let mut worst = 0.0f64;
        let mut check = |x: f64| {
            let (s, c) = table_sin_cos(x);
            let (sr, cr) = x.sin_cos();
            worst = worst.max((s - sr).abs()).max((c - cr).abs());
        };
        let mut x = 1e-9;
        while x < 2e6 {
            check(x);
            check(-x);
            x *= 1.0007;
        }
        let step = TAU / TABLE_SIZE as f64;
        for j in -3000..3000 {
            check(j as f64 * step);
            check((j as f64 + 0.5) * step);
            check(j as f64 * 0.37 + 1e4);
        }
        assert!(worst <= 1e-15, "worst {worst:e}");
        // The first quadrant's entries against the library (the reference angle `j * step`
        // is itself off by up to ~2e-16), the others its exact rotations.
        let quarter = TABLE_SIZE / 4;
        for (j, [sin, cos]) in SINE_TABLE.iter().take(quarter).enumerate() {
            let (s, c) = (j as f64 * step).sin_cos();
            assert!(
                (sin - s).abs() <= 3.4e-16 && (cos - c).abs() <= 3.4e-16,
                "entry {j}"
            );
            for turn in 1..4 {
                let [rs, rc] = SINE_TABLE[j + turn * quarter];
                let expected = match turn {
                    1 => [*cos, -sin],
                    2 => [-sin, -cos],
                    _ => [-cos, *sin],
                };
                assert_eq!([rs, rc], expected, "entry {}", j + turn * quarter);
            }
        }
        let (s, c) = table_sin_cos(f64::NAN);
        assert!(s.is_nan() && c.is_nan());
    }
}
