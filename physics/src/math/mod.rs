//! Small f64 vector, matrix and quaternion helpers for the car model.
//!
//! Written here (not a linear-algebra crate) so every operation is plain IEEE arithmetic in a
//! fixed order: the same inputs give bit-identical results on every run. Quaternions are
//! `[w, x, y, z]`, unit length, rotating body-frame vectors into the world frame.
//! [`atan`], [`sin`], [`cos`], [`exp`]: the library's with a Taylor-series fast path for small
//! arguments (the same results to a few ulp at a fraction of the cost; for the per-step hot
//! paths); [`sin_cos`]: a deterministic full-range version for the track's bump waves.
//! [`lanes`]: four lanes (SSE2 registers on x86-64, plain doubles elsewhere) for evaluating
//! the four wheels' tyres side by side, with branch-free atan and sin/cos.
//! [`finite`]: [`FiniteProbe`], whether many values are all finite without a branch each.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

pub mod finite;
pub mod lanes;
pub use finite::FiniteProbe;
pub use lanes::{atan4, atan4_batch, each, sin_cos4_quarter, F64x4, Mask4};

/// A 3-vector, metres, newtons or radians per second depending on use.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3 {
    /// x component.
    pub x: f64,
    /// y component.
    pub y: f64,
    /// z component.
    pub z: f64,
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Vec3 = Vec3::new(0.0, 0.0, 0.0);
    /// World up (z).
    pub const Z: Vec3 = Vec3::new(0.0, 0.0, 1.0);

    /// Builds a vector.
    pub const fn new(x: f64, y: f64, z: f64) -> Vec3 {
        Vec3 { x, y, z }
    }

    /// From an array `[x, y, z]`.
    pub const fn from_array(a: [f64; 3]) -> Vec3 {
        Vec3::new(a[0], a[1], a[2])
    }

    /// As an array `[x, y, z]`.
    pub const fn to_array(self) -> [f64; 3] {
        [self.x, self.y, self.z]
    }

    /// Dot product.
    pub fn dot(self, o: Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// Cross product.
    pub fn cross(self, o: Vec3) -> Vec3 {
        Vec3::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }

    /// Euclidean length.
    pub fn length(self) -> f64 {
        self.dot(self).sqrt()
    }

    /// Unit vector in the same direction, or `fallback` when the length is (near) zero.
    pub fn normalized_or(self, fallback: Vec3) -> Vec3 {
        let len = self.length();
        if len > 1e-12 {
            self * (1.0 / len)
        } else {
            fallback
        }
    }

    /// True when every component is finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
}

impl Add for Vec3 {
    type Output = Vec3;
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl AddAssign for Vec3 {
    fn add_assign(&mut self, o: Vec3) {
        *self = *self + o;
    }
}

impl Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

impl SubAssign for Vec3 {
    fn sub_assign(&mut self, o: Vec3) {
        *self = *self - o;
    }
}

impl Mul<f64> for Vec3 {
    type Output = Vec3;
    fn mul(self, s: f64) -> Vec3 {
        Vec3::new(self.x * s, self.y * s, self.z * s)
    }
}

impl Neg for Vec3 {
    type Output = Vec3;
    fn neg(self) -> Vec3 {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}

/// A 3x3 matrix stored by rows.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Mat3 {
    /// Rows.
    pub rows: [Vec3; 3],
}

impl Mat3 {
    /// The identity matrix.
    pub const IDENTITY: Mat3 = Mat3 {
        rows: [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ],
    };

    /// A symmetric matrix from its diagonal and off-diagonal (xy, xz, yz) entries.
    pub fn symmetric(diag: [f64; 3], off: [f64; 3]) -> Mat3 {
        Mat3 {
            rows: [
                Vec3::new(diag[0], off[0], off[1]),
                Vec3::new(off[0], diag[1], off[2]),
                Vec3::new(off[1], off[2], diag[2]),
            ],
        }
    }

    /// Matrix times vector.
    pub fn mul_vec(&self, v: Vec3) -> Vec3 {
        Vec3::new(
            self.rows[0].dot(v),
            self.rows[1].dot(v),
            self.rows[2].dot(v),
        )
    }

    /// Transposed matrix times vector.
    pub fn transpose_mul_vec(&self, v: Vec3) -> Vec3 {
        self.rows[0] * v.x + self.rows[1] * v.y + self.rows[2] * v.z
    }

    /// Column `i` (for a rotation matrix: body axis `i` in world coordinates).
    pub fn column(&self, i: usize) -> Vec3 {
        match i {
            0 => Vec3::new(self.rows[0].x, self.rows[1].x, self.rows[2].x),
            1 => Vec3::new(self.rows[0].y, self.rows[1].y, self.rows[2].y),
            _ => Vec3::new(self.rows[0].z, self.rows[1].z, self.rows[2].z),
        }
    }

    /// Determinant.
    pub fn determinant(&self) -> f64 {
        self.rows[0].dot(self.rows[1].cross(self.rows[2]))
    }

    /// Inverse, or `None` when singular.
    pub fn inverse(&self) -> Option<Mat3> {
        let det = self.determinant();
        if det.abs() <= 1e-300 || !det.is_finite() {
            return None;
        }
        let [a, b, c] = self.rows;
        // Columns of the inverse are the cross products of the rows, divided by det.
        let c0 = b.cross(c) * (1.0 / det);
        let c1 = c.cross(a) * (1.0 / det);
        let c2 = a.cross(b) * (1.0 / det);
        Some(Mat3 {
            rows: [
                Vec3::new(c0.x, c1.x, c2.x),
                Vec3::new(c0.y, c1.y, c2.y),
                Vec3::new(c0.z, c1.z, c2.z),
            ],
        })
    }
}

/// Largest |x| for which [`asin`] uses its series (truncation below 2e-18 relative).
const SMALL_ASIN: f64 = 0.1;

/// asin(x): by its Taylor series to x^15 for |x| <= 0.1 (truncation below 2e-18 relative,
/// within an ulp or two of the library: module test), else the library's. For the body's
/// pitch, which a car on its wheels keeps well inside the series range: no library call.
#[inline]
fn asin(x: f64) -> f64 {
    if x.abs() <= SMALL_ASIN {
        // Estrin's scheme, as in [`atan`]: coefficients (2n)! / (4^n (n!)^2 (2n + 1)).
        let z = x * x;
        let z2 = z * z;
        let z4 = z2 * z2;
        let p = (1.0 / 6.0 + z * (3.0 / 40.0))
            + z2 * (5.0 / 112.0 + z * (35.0 / 1152.0))
            + z4 * ((63.0 / 2816.0 + z * (231.0 / 13312.0)) + z2 * (143.0 / 10240.0));
        x + x * z * p
    } else {
        x.asin()
    }
}

/// A unit quaternion `w + xi + yj + zk` rotating body vectors into the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quat {
    /// Scalar part.
    pub w: f64,
    /// i part.
    pub x: f64,
    /// j part.
    pub y: f64,
    /// k part.
    pub z: f64,
}

impl Default for Quat {
    fn default() -> Self {
        Quat::IDENTITY
    }
}

impl Quat {
    /// No rotation.
    pub const IDENTITY: Quat = Quat {
        w: 1.0,
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };

    /// Rotation by `angle_rad` about the world z axis.
    pub fn from_yaw(angle_rad: f64) -> Quat {
        let (s, c) = (0.5 * angle_rad).sin_cos();
        Quat {
            w: c,
            x: 0.0,
            y: 0.0,
            z: s,
        }
    }

    /// The shortest rotation turning unit vector `from` onto unit vector `to`.
    pub fn from_to(from: Vec3, to: Vec3) -> Quat {
        let d = from.dot(to);
        if d < -1.0 + 1e-12 {
            // Opposite: half a turn about any axis perpendicular to `from`.
            let axis = from
                .cross(Vec3::new(1.0, 0.0, 0.0))
                .normalized_or(Vec3::new(0.0, 1.0, 0.0));
            return Quat {
                w: 0.0,
                x: axis.x,
                y: axis.y,
                z: axis.z,
            };
        }
        let c = from.cross(to);
        Quat {
            w: 1.0 + d,
            x: c.x,
            y: c.y,
            z: c.z,
        }
        .normalized()
    }

    /// Hamilton product `self * o`.
    pub fn product(self, o: Quat) -> Quat {
        Quat {
            w: self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
            x: self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            y: self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            z: self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
        }
    }

    /// The same rotation scaled back to unit length (identity if degenerate).
    pub fn normalized(self) -> Quat {
        let n = (self.w * self.w + self.x * self.x + self.y * self.y + self.z * self.z).sqrt();
        if n > 1e-12 && n.is_finite() {
            let s = 1.0 / n;
            Quat {
                w: self.w * s,
                x: self.x * s,
                y: self.y * s,
                z: self.z * s,
            }
        } else {
            Quat::IDENTITY
        }
    }

    /// Advances the orientation by the body-frame angular velocity over `dt_s`
    /// (first-order exponential map, renormalised).
    pub fn integrate_body_rate(self, omega_body: Vec3, dt_s: f64) -> Quat {
        let h = 0.5 * dt_s;
        let dq = Quat {
            w: 0.0,
            x: omega_body.x * h,
            y: omega_body.y * h,
            z: omega_body.z * h,
        };
        let d = self.product(dq);
        Quat {
            w: self.w + d.w,
            x: self.x + d.x,
            y: self.y + d.y,
            z: self.z + d.z,
        }
        .normalized()
    }

    /// Rotation matrix (body to world).
    pub fn to_mat3(self) -> Mat3 {
        let Quat { w, x, y, z } = self;
        let (xx, yy, zz) = (x * x, y * y, z * z);
        let (xy, xz, yz) = (x * y, x * z, y * z);
        let (wx, wy, wz) = (w * x, w * y, w * z);
        Mat3 {
            rows: [
                Vec3::new(1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)),
                Vec3::new(2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)),
                Vec3::new(2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)),
            ],
        }
    }

    /// Roll, pitch, yaw (Tait-Bryan z-y-x), rad. Inlined: the angles go straight to the
    /// caller's record instead of through a returned array in memory.
    #[inline]
    pub fn roll_pitch_yaw(self) -> [f64; 3] {
        let Quat { w, x, y, z } = self;
        let roll = atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
        let pitch = asin((2.0 * (w * y - z * x)).clamp(-1.0, 1.0));
        let yaw = atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z));
        [roll, pitch, yaw]
    }

    /// As `[w, x, y, z]`.
    pub fn to_array(self) -> [f64; 4] {
        [self.w, self.x, self.y, self.z]
    }
}

/// atan2(y, x) through [`atan`] (a few ulp from the library's; its series for the small
/// angles a car's roll nearly always has); the library's for a zero or non-finite x or
/// quotient (signed zeros, infinities, NaN).
#[inline]
fn atan2(y: f64, x: f64) -> f64 {
    let q = y / x;
    if x == 0.0 || !q.is_finite() {
        return y.atan2(x);
    }
    let angle = atan(q);
    if x > 0.0 {
        angle
    } else {
        // Second or third quadrant: half a turn towards y's side.
        angle + std::f64::consts::PI.copysign(y)
    }
}

/// Largest |x| for which [`atan`] uses its series (error below 1e-17 relative there).
const SMALL_ATAN: f64 = 0.1;
/// Largest |x| for which [`sin`] and [`cos`] use their series (error below 1e-17).
pub(crate) const SMALL_ANGLE: f64 = 0.2;
/// The atan series, for |x| <= 0.1 (truncation below 1e-17 relative).
#[inline(always)]
fn atan_series(x: f64) -> f64 {
    // Estrin's scheme (pairs of terms, then powers z^2, z^4): the same series as Horner's
    // nesting with about half the chain of dependent operations, which is what the time of
    // this short evaluation is.
    let z = x * x;
    let z2 = z * z;
    let z4 = z2 * z2;
    let p = (-1.0 / 3.0 + z * (1.0 / 5.0))
        + z2 * (-1.0 / 7.0 + z * (1.0 / 9.0))
        + z4 * ((-1.0 / 11.0 + z * (1.0 / 13.0)) + z2 * (-1.0 / 15.0));
    x + x * z * p
}

/// atan(x): near zero by its Taylor series, which is cheaper than the library call and as
/// accurate (truncation below 1e-17 relative for |x| <= 0.1); elsewhere the library's. For
/// hot paths whose arguments are usually small (tyre slips, body attitude). (A table
/// reduction onto k/16 with a short series had a third fewer instructions than the library
/// for larger arguments but took longer: its division and table lookup sit on the dependency
/// chain.)
#[inline]
pub fn atan(x: f64) -> f64 {
    if x.abs() <= SMALL_ATAN {
        atan_series(x)
    } else {
        x.atan()
    }
}

/// Largest |x| for which [`exp`] uses its series (truncation below 2e-18 relative).
const SMALL_EXP: f64 = 0.5;

/// e^x: by its Taylor series to x^15 for |x| <= 0.5 (within a few ulp of the library, module
/// test), else the library's. For the tyre's load-dependent slip stiffness, whose exponent
/// stays within +-0.5.
#[inline]
pub fn exp(x: f64) -> f64 {
    if x.abs() <= SMALL_EXP {
        // Estrin's scheme, as in [`atan`]: pairs c_2i + c_2i+1 x, then powers of x^2.
        let z = x * x;
        let z2 = z * z;
        let z4 = z2 * z2;
        let pair = |even: f64, odd: f64| 1.0 / even + x * (1.0 / odd);
        let low = (pair(1.0, 1.0) + z * pair(2.0, 6.0))
            + z2 * (pair(24.0, 120.0) + z * pair(720.0, 5_040.0));
        let high = (pair(40_320.0, 362_880.0) + z * pair(3_628_800.0, 39_916_800.0))
            + z2 * (pair(479_001_600.0, 6_227_020_800.0)
                + z * pair(87_178_291_200.0, 1_307_674_368_000.0));
        low + z4 * high
    } else {
        x.exp()
    }
}

/// cos(x), by its Taylor series for |x| <= 0.2 (truncation below 1e-17), else the library's.
#[inline]
pub fn cos(x: f64) -> f64 {
    if x.abs() <= SMALL_ANGLE {
        // Estrin's scheme, as in [`atan`].
        let z = x * x;
        let z2 = z * z;
        let p =
            (1.0 / 24.0 + z * (-1.0 / 720.0)) + z2 * (1.0 / 40_320.0 + z * (-1.0 / 3_628_800.0));
        1.0 - 0.5 * z + z2 * p
    } else {
        x.cos()
    }
}

/// sin(x), by its Taylor series for |x| <= 0.2 (truncation below 1e-17 relative), else the
/// library's.
#[inline]
pub fn sin(x: f64) -> f64 {
    if x.abs() <= SMALL_ANGLE {
        // Estrin's scheme, as in [`atan`].
        let z = x * x;
        let z2 = z * z;
        let p = (-1.0 / 6.0 + z * (1.0 / 120.0))
            + z2 * ((-1.0 / 5_040.0 + z * (1.0 / 362_880.0)) + z2 * (-1.0 / 39_916_800.0));
        x + x * z * p
    } else {
        x.sin()
    }
}

/// pi/2 in three parts; the first two have 33 significant bits, so `q * part` is exact for
/// the quotients [`sin_cos`] reduces (|q| < 2^20).
const PIO2_HI: f64 = 1.570_796_326_734_125_6;
const PIO2_MID: f64 = 6.077_100_506_303_966e-11;
const PIO2_LO: f64 = 2.022_266_248_795_950_6e-21;
/// Largest |x| [`sin_cos`] reduces itself; beyond it the library's reduction is used.
const REDUCTION_LIMIT: f64 = 1.0e5;
/// 1.5 * 2^52: adding and subtracting it rounds a smaller number to an integer.
pub(crate) const ROUNDING_SHIFT: f64 = 6_755_399_441_055_744.0;

/// `x` rounded to the nearest integer (ties to even) for |x| < 2^51, without a library call
/// or a branch: the reductions of [`sin_cos`] and the bump waves' sine table use it.
#[inline(always)]
pub(crate) fn round_to_integer(x: f64) -> f64 {
    (x + ROUNDING_SHIFT) - ROUNDING_SHIFT
}

/// Sine and cosine of any angle (rad), for per-step angles (road-wheel angles, the robot's
/// heading) and as the reference of the track's table-based bump waves: Cody-Waite reduction by pi/2 (exact products for |x| <= 1e5), then Taylor
/// polynomials of degree 17 / 16 on |r| <= pi/4 (truncation below 1e-17). Plain f64
/// arithmetic in a fixed order (no FMA), so the same bits everywhere; within a few ulp of the
/// library (module test) at about 60 % of its cost. Non-finite or huge arguments take the
/// library's path.
#[inline]
pub fn sin_cos(x: f64) -> (f64, f64) {
    if x.is_nan() || x.abs() > REDUCTION_LIMIT {
        return x.sin_cos();
    }
    let q = round_to_integer(x * std::f64::consts::FRAC_2_PI);
    let r = ((x - q * PIO2_HI) - q * PIO2_MID) - q * PIO2_LO;
    let z = r * r;
    let sin_r = r + r
        * z
        * (-1.0 / 6.0
            + z * (1.0 / 120.0
                + z * (-1.0 / 5_040.0
                    + z * (1.0 / 362_880.0
                        + z * (-1.0 / 39_916_800.0
                            + z * (1.0 / 6_227_020_800.0
                                + z * (-1.0 / 1_307_674_368_000.0
                                    + z * (1.0 / 355_687_428_096_000.0))))))));
    let cos_r = 1.0 - 0.5 * z
        + z * z
            * (1.0 / 24.0
                + z * (-1.0 / 720.0
                    + z * (1.0 / 40_320.0
                        + z * (-1.0 / 3_628_800.0
                            + z * (1.0 / 479_001_600.0
                                + z * (-1.0 / 87_178_291_200.0
                                    + z * (1.0 / 20_922_789_888_000.0)))))));
    match (q as i64) & 3 {
        0 => (sin_r, cos_r),
        1 => (cos_r, -sin_r),
        2 => (-sin_r, -cos_r),
        _ => (-cos_r, sin_r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sin_cos_matches_the_library_within_a_few_ulps() {
        // Near a zero crossing any reduction's relative error grows: compare against
        // max(|value|, 1e-3) there (absolute error ~1e-19).
        let mut worst = 0.0f64;
        let mut x = 1e-9;
        let mut check = |x: f64| {
            for x in [x, -x] {
                let (s, c) = sin_cos(x);
                for (ours, reference) in [(s, x.sin()), (c, x.cos())] {
                    let unit = reference.abs().max(1e-3) * f64::EPSILON;
                    worst = worst.max((ours - reference).abs() / unit);
                }
            }
        };
        while x < 2e4 {
            check(x);
            x *= 1.001;
        }
        for i in 0..=200_000 {
            check(i as f64 * 0.1);
        }
        assert!(worst <= 4.0, "worst {worst} ulps");
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
        assert_eq!(sin_cos(1e9), 1e9f64.sin_cos());
        assert!(sin_cos(f64::NAN).0.is_nan() && sin_cos(f64::INFINITY).1.is_nan());
    }

    #[test]
    fn series_near_zero_match_the_library_to_the_last_bits() {
        // Both sides of each threshold and a dense sweep inside it.
        let n = 20_000;
        for i in 0..=n {
            let x = -0.25 + 0.5 * i as f64 / n as f64;
            let close = |ours: f64, reference: f64| {
                (ours - reference).abs() <= 4.0 * f64::EPSILON * reference.abs().max(1e-300)
            };
            assert!(close(atan(x), x.atan()), "atan({x})");
            assert!(close(sin(x), x.sin()), "sin({x})");
            assert!(close(cos(x), x.cos()), "cos({x})");
        }
        assert_eq!(atan(0.0), 0.0);
        assert_eq!(sin(0.0), 0.0);
        assert_eq!(cos(0.0), 1.0);
    }

    /// Worst error of `ours` against `reference` in units of the reference's last place.
    pub(super) fn ulps(ours: f64, reference: f64) -> f64 {
        (ours - reference).abs() / (reference.abs().max(1e-300) * f64::EPSILON)
    }

    #[test]
    fn atan_matches_the_library_within_a_few_ulps_everywhere() {
        let mut worst = 0.0f64;
        // Logarithmic sweep over 1e-10..1e12 (both signs), dense across the table's range.
        let mut x = 1e-10;
        while x < 1e12 {
            for x in [x, -x] {
                worst = worst.max(ulps(atan(x), x.atan()));
            }
            x *= 1.0001;
        }
        for i in 0..=400_000 {
            let x = -4.0 + 8.0 * i as f64 / 400_000.0;
            worst = worst.max(ulps(atan(x), x.atan()));
        }
        assert!(worst <= 3.0, "worst {worst} ulps");
        let half_pi = std::f64::consts::FRAC_PI_2;
        assert_eq!(atan(f64::INFINITY), half_pi);
        assert_eq!(atan(f64::NEG_INFINITY), -half_pi);
        assert!(atan(f64::NAN).is_nan());
    }

    #[test]
    fn exp_matches_the_library_within_a_few_ulps() {
        let mut worst = 0.0f64;
        for i in 0..=200_000 {
            let x = -0.7 + 1.4 * i as f64 / 200_000.0;
            worst = worst.max(ulps(exp(x), x.exp()));
        }
        assert!(worst <= 2.0, "worst {worst} ulps");
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(f64::NAN).is_nan());
        assert_eq!(exp(800.0), f64::INFINITY);
    }

    #[test]
    fn atan2_matches_the_library_in_every_quadrant() {
        let n = 200_000;
        let mut worst = 0.0f64;
        for i in 0..=n {
            let angle = -3.1 + 6.2 * i as f64 / n as f64;
            for radius in [1e-6, 0.8, 3e5] {
                let (y, x) = (radius * angle.sin(), radius * angle.cos());
                worst = worst.max(ulps(atan2(y, x), y.atan2(x)));
            }
        }
        assert!(worst <= 4.0, "worst {worst} ulps");
        for (y, x) in [
            (0.0, -1.0),
            (-0.0, -1.0),
            (1.0, 0.0),
            (-1.0, -0.0),
            (0.0, 0.0),
            (f64::INFINITY, 1.0),
            (1.0, f64::NEG_INFINITY),
        ] {
            assert_eq!(
                atan2(y, x).to_bits(),
                y.atan2(x).to_bits(),
                "atan2({y}, {x})"
            );
        }
        assert!(atan2(f64::NAN, 1.0).is_nan());
    }

    #[test]
    fn yaw_rotation_turns_x_into_y() {
        let m = Quat::from_yaw(std::f64::consts::FRAC_PI_2).to_mat3();
        let v = m.mul_vec(Vec3::new(1.0, 0.0, 0.0));
        assert!((v.x).abs() < 1e-12 && (v.y - 1.0).abs() < 1e-12);
        let back = m.transpose_mul_vec(v);
        assert!((back.x - 1.0).abs() < 1e-12);
    }

    #[test]
    fn from_to_turns_z_onto_a_slope_normal() {
        let n = Vec3::new(-0.1, 0.0, 1.0).normalized_or(Vec3::Z);
        let z = Quat::from_to(Vec3::Z, n).to_mat3().column(2);
        assert!((z - n).length() < 1e-12);
    }

    #[test]
    fn inverse_of_symmetric_inertia() {
        let m = Mat3::symmetric([500.0, 2000.0, 2200.0], [0.0, 50.0, 0.0]);
        let inv = m.inverse().unwrap();
        let v = Vec3::new(1.0, 2.0, 3.0);
        let back = inv.mul_vec(m.mul_vec(v));
        assert!((back - v).length() < 1e-12);
    }

    #[test]
    fn asin_matches_the_library_within_two_ulps() {
        // A dense sweep over both sides of the series threshold, the ends of the domain,
        // tiny and signed-zero arguments, and values outside the domain.
        let n = 40_000;
        for i in 0..=n {
            let x = -0.3 + 0.6 * i as f64 / n as f64;
            assert!(ulps(asin(x), x.asin()) <= 2.0, "asin({x})");
        }
        let above = f64::from_bits(SMALL_ASIN.to_bits() + 1);
        for x in [
            SMALL_ASIN,
            -SMALL_ASIN,
            above,
            -above,
            1e-300,
            -1e-200,
            5e-324,
            1.0,
            -1.0,
        ] {
            assert!(ulps(asin(x), x.asin()) <= 2.0, "asin({x})");
        }
        assert_eq!(asin(0.0).to_bits(), 0.0f64.to_bits());
        assert_eq!(asin(-0.0).to_bits(), (-0.0f64).to_bits());
        for bad in [1.5, -2.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(asin(bad).is_nan(), "asin({bad})");
        }
    }

    #[test]
    fn pitch_of_a_nose_down_body() {
        // Pitch (rotation about body y) of 0.05 rad: inside the series range.
        let half = 0.025f64;
        let q = Quat {
            w: half.cos(),
            x: 0.0,
            y: half.sin(),
            z: 0.0,
        };
        let [roll, pitch, yaw] = q.roll_pitch_yaw();
        assert!((pitch - 0.05).abs() < 1e-15 && roll == 0.0 && yaw == 0.0);
    }
}
