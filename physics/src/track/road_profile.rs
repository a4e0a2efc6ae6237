//! Road roughness from a power spectral density: an ISO 8608 class A, B or C road profile,
//! generated from the track's seed at build (bit-identical: integer phase indices and the
//! table sine, no library calls) and looked up per wheel with a cubic interpolation.
//!
//! Spectrum (ISO 8608): displacement PSD `Gd(n) = Gd(n0) (n / n0)^-2` over spatial frequency
//! `n` (cycles/m), reference spatial frequency `n0 = 0.1` cycles/m (wavenumber 2 pi n0 =
//! 0.628 rad/m), `Gd(n0)` the class's geometric mean ([`RoadClass::gd_n0_m3`]). The profile is a
//! sum of [`COMPONENTS`] cosines log-spaced over [`BAND_CYCLES_PER_M`] (wavelengths 20 m to
//! 0.5 m; longer waves are the track's own bumps), each at a whole number of waves per lap (no
//! step at the line) with the variance of its share of the band, `Gd(n0) n0^2 (1/n_lo - 1/n_hi)`.
//!
//! Across the track two independent profiles (left and right wheel tracks, [`WHEEL_TRACK_M`]
//! apart) blend as `mean + half_difference * sin(pi d / WHEEL_TRACK_M)`, so a car's left and
//! right wheels see different roads and it rolls as well as pitches. Heights are stored every
//! [`SPACING_M`] and interpolated with Catmull-Rom cubics (continuous slope: the normal never
//! steps).

use super::bumps::{phase, table_sin_cos, BumpValue};
use serde::Deserialize;
use std::f64::consts::{PI, TAU};

/// Reference spatial frequency of ISO 8608, cycles/m.
pub const N0_CYCLES_PER_M: f64 = 0.1;
/// Spatial frequencies the profile covers, cycles/m.
pub const BAND_CYCLES_PER_M: [f64; 2] = [0.05, 2.0];
/// Number of cosines per wheel track.
pub const COMPONENTS: usize = 128;
/// Distance between stored heights, m (ten per shortest wavelength).
pub const SPACING_M: f64 = 0.05;
/// Lateral distance between the two independent wheel-track profiles, m.
pub const WHEEL_TRACK_M: f64 = 1.5;

/// ISO 8608 road classes rigd generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum RoadClass {
    /// Very good (new asphalt).
    A,
    /// Good.
    B,
    /// Average (a gravel road).
    C,
}

impl RoadClass {
    /// `Gd(n0)`, the class's geometric mean displacement PSD at `n0`, m^3.
    pub fn gd_n0_m3(self) -> f64 {
        match self {
            RoadClass::A => 16e-6,
            RoadClass::B => 64e-6,
            RoadClass::C => 256e-6,
        }
    }
}

/// The `[roughness]` table of a track document.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoughnessSpec {
    /// ISO 8608 class of the whole track's profile: "A", "B" or "C".
    pub iso8608_class: RoadClass,
}

/// A generated profile, periodic over the lap.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RoadProfile {
    /// Heights per sample, `[left, right]` wheel track, m.
    heights: Vec<[f64; 2]>,
    inv_spacing: f64,
}

/// The spatial frequencies (whole waves per lap) and the variance of each component.
pub(crate) fn components(class: RoadClass, lap_m: f64) -> Vec<(u64, f64)> {
    let [lo, hi] = BAND_CYCLES_PER_M;
    let ratio = (hi / lo).powf(1.0 / (COMPONENTS - 1) as f64);
    let mut waves: Vec<u64> = Vec::with_capacity(COMPONENTS);
    for i in 0..COMPONENTS {
        let n = lo * ratio.powi(i as i32);
        let k = ((n * lap_m).round() as u64).max(1);
        let k = waves.last().map_or(k, |last| k.max(last + 1));
        waves.push(k);
    }
    let n_of = |k: u64| k as f64 / lap_m;
    let scale = class.gd_n0_m3() * N0_CYCLES_PER_M * N0_CYCLES_PER_M;
    (0..waves.len())
        .map(|i| {
            let n = n_of(waves[i]);
            let below = if i == 0 {
                lo
            } else {
                (n * n_of(waves[i - 1])).sqrt()
            };
            let above = if i + 1 == waves.len() {
                hi
            } else {
                (n * n_of(waves[i + 1])).sqrt()
            };
            (waves[i], scale * (1.0 / below - 1.0 / above))
        })
        .collect()
}

impl RoadProfile {
    /// The profile of `class` over a lap of `lap_m` from `seed`.
    pub(crate) fn generate(class: RoadClass, lap_m: f64, seed: u64) -> RoadProfile {
        let n = ((lap_m / SPACING_M).round() as usize).max(8);
        let mut heights = vec![[0.0; 2]; n];
        let step = TAU / n as f64;
        for (track, salt) in [(0, 1000), (1, 2000)] {
            for (c, (k, variance)) in components(class, lap_m).into_iter().enumerate() {
                let amplitude = (2.0 * variance).sqrt();
                let offset = phase(seed, salt + c as u64);
                let k = k % n as u64;
                for (j, h) in heights.iter_mut().enumerate() {
                    // (k j) mod n keeps the angle below a turn: exact and periodic.
                    let index = (k * j as u64) % n as u64;
                    let (_, cos) = table_sin_cos(index as f64 * step + offset);
                    h[track] += amplitude * cos;
                }
            }
        }
        RoadProfile {
            inv_spacing: n as f64 / lap_m,
            heights,
        }
    }

    /// Height and slopes at distance `s_m` along the lap (in `0 .. lap`, a little outside is
    /// wrapped) and lateral offset `d_m`.
    #[inline]
    pub(crate) fn at(&self, s_m: f64, d_m: f64) -> BumpValue {
        let n = self.heights.len();
        let x = s_m * self.inv_spacing;
        let floor = x.floor();
        let t = x - floor;
        let j = (floor as i64).rem_euclid(n as i64) as usize;
        let at = |k: usize| self.heights[(j + n + k - 1) % n];
        let (p0, p1, p2, p3) = (at(0), at(1), at(2), at(3));
        let (sin, cos) = table_sin_cos(PI * d_m / WHEEL_TRACK_M);
        let mut value = [0.0; 2];
        let mut slope = [0.0; 2];
        for track in 0..2 {
            let (a, b, c, d) = (p0[track], p1[track], p2[track], p3[track]);
            // Catmull-Rom: tangents (c - a) / 2 and (d - b) / 2 per sample.
            let c1 = 0.5 * (c - a);
            let c2 = a - 2.5 * b + 2.0 * c - 0.5 * d;
            let c3 = 0.5 * (d - a) + 1.5 * (b - c);
            value[track] = b + t * (c1 + t * (c2 + t * c3));
            slope[track] = (c1 + t * (2.0 * c2 + t * 3.0 * c3)) * self.inv_spacing;
        }
        let mean = 0.5 * (value[0] + value[1]);
        let half = 0.5 * (value[0] - value[1]);
        BumpValue {
            height_m: mean + half * sin,
            d_ds: 0.5 * (slope[0] + slope[1]) + 0.5 * (slope[0] - slope[1]) * sin,
            d_dd: half * cos * PI / WHEEL_TRACK_M,
        }
    }

    /// Stored heights of one wheel track (0 left, 1 right), for the spectrum test.
    #[cfg(test)]
    fn track(&self, track: usize) -> Vec<f64> {
        self.heights.iter().map(|h| h[track]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variance of `z` (a lap sampled evenly) in the spatial-frequency band `[n1, n2)` by the
    /// discrete Fourier transform over every whole number of waves per lap in the band.
    fn band_variance(z: &[f64], lap_m: f64, n1: f64, n2: f64) -> f64 {
        let n = z.len();
        let (k1, k2) = ((n1 * lap_m).ceil() as usize, (n2 * lap_m).ceil() as usize);
        (k1..k2)
            .map(|k| {
                let (mut re, mut im) = (0.0, 0.0);
                for (j, v) in z.iter().enumerate() {
                    let angle = TAU * ((k * j) % n) as f64 / n as f64;
                    re += v * angle.cos();
                    im -= v * angle.sin();
                }
                2.0 * (re * re + im * im) / (n * n) as f64
            })
            .sum()
    }

    /// The generated profile's spectrum is the class's: over five octaves the PSD estimated
    /// from the profile falls with slope -2 (fit within 0.1) and its level at n0 lies within
    /// the class's bounds (half to twice the geometric mean), for classes A and C, both
    /// wheel tracks.
    #[test]
    fn spectrum_matches_the_iso_8608_class() {
        let lap = 600.0;
        for class in [RoadClass::A, RoadClass::C] {
            let profile = RoadProfile::generate(class, lap, 7);
            for track in 0..2 {
                // Every 4th sample (0.2 m; the band ends at 2 cycles/m, below its Nyquist 2.5).
                let z: Vec<f64> = profile.track(track).into_iter().step_by(4).collect();
                let mut points = Vec::new();
                let mut n1 = 0.0625;
                while n1 < 1.9 {
                    let n2 = 2.0 * n1;
                    let psd = band_variance(&z, lap, n1, n2) / (n2 - n1);
                    points.push(((n1 * n2).sqrt().ln(), psd.ln()));
                    n1 = n2;
                }
                let m = points.len() as f64;
                let (sx, sy) = points
                    .iter()
                    .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
                let (mx, my) = (sx / m, sy / m);
                let sxx: f64 = points.iter().map(|(x, _)| (x - mx).powi(2)).sum();
                let sxy: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
                let slope = sxy / sxx;
                let level_n0 = (my + slope * (N0_CYCLES_PER_M.ln() - mx)).exp();
                assert!((slope + 2.0).abs() < 0.1, "{class:?} slope {slope}");
                let gd = class.gd_n0_m3();
                assert!(
                    level_n0 > 0.5 * gd && level_n0 < 2.0 * gd,
                    "{class:?} Gd(n0) {level_n0:e}, class mean {gd:e}"
                );
            }
        }
    }

    /// The same seed gives the same profile bit for bit; another seed another profile; the
    /// interpolation passes through the samples with the slope of the neighbours' difference
    /// and is periodic over the lap.
    #[test]
    fn profile_is_deterministic_periodic_and_smooth() {
        let lap = 321.0;
        let a = RoadProfile::generate(RoadClass::B, lap, 11);
        let b = RoadProfile::generate(RoadClass::B, lap, 11);
        assert_eq!(a, b);
        assert_ne!(a, RoadProfile::generate(RoadClass::B, lap, 12));
        let spacing = 1.0 / a.inv_spacing;
        for j in [0usize, 5, 1234, a.heights.len() - 1] {
            let s = j as f64 * spacing;
            let left = a.at(s, 0.5 * WHEEL_TRACK_M);
            assert!((left.height_m - a.heights[j][0]).abs() < 1e-15);
            let right = a.at(s, -0.5 * WHEEL_TRACK_M);
            assert!((right.height_m - a.heights[j][1]).abs() < 1e-15);
        }
        for s in [0.013, 100.37, 250.0] {
            for d in [-3.0, 0.2, 1.1] {
                let (x, y) = (a.at(s, d), a.at(s + lap, d));
                assert!((x.height_m - y.height_m).abs() < 1e-12);
                let h = 1e-6;
                let ds = (a.at(s + h, d).height_m - a.at(s - h, d).height_m) / (2.0 * h);
                let dd = (a.at(s, d + h).height_m - a.at(s, d - h).height_m) / (2.0 * h);
                assert!((ds - x.d_ds).abs() < 1e-6 && (dd - x.d_dd).abs() < 1e-6);
            }
        }
    }
}
