//! Magic Formula 6.1 steady-state tyre forces: pure slip (Fx0, Fy0, Mz0) and combined slip
//! with the MF weighting functions (Gxa, Gyk), the Fy' / equivalent-slip aligning moment and
//! load sensitivity through the dfz terms.
//!
//! Conventions: ISO signs (positive kappa drives; a positive slip angle gives a negative
//! lateral force with this coefficient set). The simulation feeds alpha* = tan(alpha) (the
//! carcass-deflection slip); the pure-slip reference functions [`Mf61::fx0`], [`Mf61::fy0`],
//! [`Mf61::mz0`] follow the reference table's convention (forces take alpha directly, the
//! aligning-moment slips take tan(alpha) with cos'(alpha) factors). Camber 0, no inflation-pressure terms, all scaling factors 1 except the friction scales
//! `mu_x`/`mu_y` (lambda_mu), which carry the tyre's own grip scale times the surface's.
//! Units: N, N m, m, rad. Equations: Pacejka, *Tyre and Vehicle Dynamics* (2006) ch. 4.3.2.
//!
//! Speed (this runs for every wheel every step): the constant coefficient combinations are
//! worked out once ([`PreparedMf61`]); sin/cos(C atan phi) for |phi| <= 0.1 is one power
//! series per shape factor (`Shape`, coefficients from set-up); atan, exp and sin/cos of
//! small arguments use [`crate::math`]'s series (within a few ulp of the library's), not the
//! library calls; cos(atan x) and sin(2 atan x) are algebraic.

use crate::math::{atan, cos, exp, sin, SMALL_ANGLE};

/// Small number keeping the B = K / (C D) divisions finite at zero load.
const EPS: f64 = 1e-9;

/// The MF 6.1 coefficients this model uses (camber and pressure terms are omitted: camber is
/// always 0 here).
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)] // The names are the MF 6.1 coefficient names (lower case).
pub struct Mf61 {
    /// Nominal load FNOMIN, N.
    pub fnomin: f64,
    /// Unloaded radius R0, m (used by the aligning moment).
    pub r0: f64,
    pub pcx1: f64,
    pub pdx1: f64,
    pub pdx2: f64,
    pub pex1: f64,
    pub pex2: f64,
    pub pex3: f64,
    pub pex4: f64,
    pub pkx1: f64,
    pub pkx2: f64,
    pub pkx3: f64,
    pub phx1: f64,
    pub phx2: f64,
    pub pvx1: f64,
    pub pvx2: f64,
    pub rbx1: f64,
    pub rbx2: f64,
    pub rcx1: f64,
    pub rex1: f64,
    pub rex2: f64,
    pub rhx1: f64,
    pub pcy1: f64,
    pub pdy1: f64,
    pub pdy2: f64,
    pub pey1: f64,
    pub pey2: f64,
    pub pey3: f64,
    pub pky1: f64,
    pub pky2: f64,
    pub pky4: f64,
    pub phy1: f64,
    pub phy2: f64,
    pub pvy1: f64,
    pub pvy2: f64,
    pub rby1: f64,
    pub rby2: f64,
    pub rby3: f64,
    pub rcy1: f64,
    pub rey1: f64,
    pub rey2: f64,
    pub rhy1: f64,
    pub rhy2: f64,
    pub rvy1: f64,
    pub rvy2: f64,
    pub rvy4: f64,
    pub rvy5: f64,
    pub rvy6: f64,
    pub qbz1: f64,
    pub qbz2: f64,
    pub qbz3: f64,
    pub qbz9: f64,
    pub qbz10: f64,
    pub qcz1: f64,
    pub qdz1: f64,
    pub qdz2: f64,
    pub qdz6: f64,
    pub qdz7: f64,
    pub qez1: f64,
    pub qez2: f64,
    pub qez3: f64,
    pub qez4: f64,
    pub qhz1: f64,
    pub qhz2: f64,
    pub ssz1: f64,
    pub ssz2: f64,
}

/// Pacejka (2006), Table A3.1: 205/60R15 91V at 2.2 bar, ISO signs. Combined-slip and
/// aligning-moment coefficients from the same table; REX1/REX2/REY1/REY2/RHY2 are not listed
/// there and are 0 (the usual MF 6.1 default).
pub const PACEJKA_2006_205_60R15: Mf61 = Mf61 {
    fnomin: 4000.0,
    r0: 0.313,
    pcx1: 1.685,
    pdx1: 1.210,
    pdx2: -0.037,
    pex1: 0.344,
    pex2: 0.095,
    pex3: -0.020,
    pex4: 0.0,
    pkx1: 21.51,
    pkx2: -0.163,
    pkx3: 0.245,
    phx1: -0.002,
    phx2: 0.002,
    pvx1: 0.0,
    pvx2: 0.0,
    rbx1: 12.35,
    rbx2: -10.77,
    rcx1: 1.092,
    rex1: 0.0,
    rex2: 0.0,
    rhx1: 0.007,
    pcy1: 1.193,
    pdy1: -0.990,
    pdy2: 0.145,
    pey1: -1.003,
    pey2: -0.537,
    pey3: -0.083,
    pky1: -14.95,
    pky2: 2.130,
    pky4: 2.0,
    phy1: 0.003,
    phy2: -0.001,
    pvy1: 0.045,
    pvy2: -0.024,
    rby1: 6.461,
    rby2: 4.196,
    rby3: -0.015,
    rcy1: 1.081,
    rey1: 0.0,
    rey2: 0.0,
    rhy1: 0.009,
    rhy2: 0.0,
    rvy1: 0.053,
    rvy2: -0.073,
    rvy4: 35.44,
    rvy5: 1.9,
    rvy6: -10.71,
    qbz1: 8.964,
    qbz2: -1.106,
    qbz3: -0.842,
    qbz9: 18.47,
    qbz10: 0.0,
    qcz1: 1.180,
    qdz1: 0.100,
    qdz2: -0.001,
    qdz6: -0.008,
    qdz7: 0.000,
    qez1: -1.609,
    qez2: -0.359,
    qez3: 0.0,
    qez4: 0.174,
    qhz1: 0.007,
    qhz2: -0.002,
    ssz1: 0.043,
    ssz2: 0.001,
};

/// Friction scales (MF lambda_mu_x, lambda_mu_y): tyre grip times surface grip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GripScale {
    /// Longitudinal friction scale.
    pub mu_x: f64,
    /// Lateral friction scale.
    pub mu_y: f64,
}

impl GripScale {
    /// No scaling (the published coefficients as they are).
    pub const UNITY: GripScale = GripScale {
        mu_x: 1.0,
        mu_y: 1.0,
    };
}

/// Combined-slip outputs at one operating point.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TyreForces {
    /// Longitudinal force, N (positive driving).
    pub fx: f64,
    /// d(fx)/d(kappa) at constant alpha, N (weighting held constant), >= 0 is not guaranteed.
    pub dfx_dkappa: f64,
    /// Lateral force, N (ISO sign).
    pub fy: f64,
    /// Aligning moment, N m (positive turns the wheel towards positive yaw).
    pub mz: f64,
}

/// Terms of the longitudinal pure-slip curve at one load.
#[derive(Debug, Clone, Copy)]
struct LongCurve {
    b: f64,
    c: f64,
    d: f64,
    /// Curvature before the slip-sign factor (E = min(e_base (1 -+ P_E), 1), chosen per
    /// evaluation: only one sign is ever needed).
    e_base: f64,
    sh: f64,
    sv: f64,
    k: f64,
}

/// Terms of the lateral pure-slip curve at one load.
#[derive(Debug, Clone, Copy)]
struct LatCurve {
    b: f64,
    c: f64,
    d: f64,
    /// Curvature before the slip-sign factor (E = min(e_base (1 -+ P_E), 1), chosen per
    /// evaluation: only one sign is ever needed).
    e_base: f64,
    sh: f64,
    sv: f64,
    k: f64,
    mu: f64,
}

/// |phi| above which [`sin_cos_c_atan`] leaves the algebra (phi^2 would lose range) to the
/// library calls; Magic Formula arguments stay far below it.
const ALGEBRAIC_PHI_MAX: f64 = 1e100;

/// (sin, cos) of C atan(phi), the Magic Formula's outer angle. Small angles take the series;
/// larger ones split C theta (theta = atan phi) into n theta + (C - n) theta with n = 1 or 2:
/// sin and cos of n theta are algebraic in phi (cos theta = 1 / sqrt(1 + phi^2), sin 2 theta
/// = 2 phi / (1 + phi^2), cos 2 theta = (1 - phi^2) / (1 + phi^2)) and the remainder, |C - n|
/// theta, is small for the usual shape factors (C = 1.0-1.7), so its series replaces the
/// library sine/cosine. The angle-sum identity is exact for every C; only the cost depends
/// on the remainder's size (the series fall back to the library past their range).
#[inline(always)]
fn sin_cos_c_atan(c: f64, phi: f64) -> (f64, f64) {
    let theta = atan(phi);
    let angle = c * theta;
    if angle.abs() <= SMALL_ANGLE {
        return (sin(angle), cos(angle));
    }
    if phi.abs() > ALGEBRAIC_PHI_MAX {
        return (angle.sin(), angle.cos());
    }
    let (sin_n, cos_n, rest) = if c < 1.5 {
        let cos_t = 1.0 / (1.0 + phi * phi).sqrt();
        (phi * cos_t, cos_t, (c - 1.0) * theta)
    } else {
        let inv = 1.0 / (1.0 + phi * phi);
        (2.0 * phi * inv, (1.0 - phi * phi) * inv, (c - 2.0) * theta)
    };
    let (sin_r, cos_r) = (sin(rest), cos(rest));
    (sin_n * cos_r + cos_n * sin_r, cos_n * cos_r - sin_n * sin_r)
}

/// Largest |phi| for which [`Shape`] sums its power series (they converge for |phi| < 1;
/// at 0.1 nine terms leave a truncation below 1e-17).
const SHAPE_SERIES_PHI_MAX: f64 = 0.1;
/// Terms of each [`Shape`] series (powers z^0..z^8 of z = phi^2).
const SHAPE_SERIES_TERMS: usize = 9;

/// sin and cos of C atan(phi) for one shape factor C. For |phi| <= 0.1 (the weighting
/// functions' normalisers always, most slips in normal driving) one power series in
/// z = phi^2 each, with C-dependent coefficients worked out at set-up, replaces atan plus
/// sin/cos: (1 + i phi)^C = (1 + z)^(C/2) e^(i C atan phi), so cos(C atan phi) is
/// Re((1 + i phi)^C) (1 + z)^(-C/2) and sin(C atan phi) = phi Im((1 + i phi)^C / phi)
/// (1 + z)^(-C/2), both binomial series multiplied out. Larger phi go through
/// [`sin_cos_c_atan`].
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shape {
    c: f64,
    /// cos(C atan phi) = sum cos_terms[n] z^n.
    cos_terms: [f64; SHAPE_SERIES_TERMS],
    /// sin(C atan phi) = phi sum sin_terms[n] z^n.
    sin_terms: [f64; SHAPE_SERIES_TERMS],
}

impl Shape {
    fn new(c: f64) -> Shape {
        // binomial(a, k) for k = 0..n, by the recurrence binomial(a, k) = binomial(a, k - 1)
        // (a - k + 1) / k.
        let binomials = |a: f64| {
            let mut out = [0.0; 2 * SHAPE_SERIES_TERMS];
            let mut value = 1.0;
            for (k, slot) in out.iter_mut().enumerate() {
                if k > 0 {
                    value *= (a - (k as f64 - 1.0)) / k as f64;
                }
                *slot = value;
            }
            out
        };
        let power = binomials(c);
        let damping = binomials(-0.5 * c);
        let mut cos_terms = [0.0; SHAPE_SERIES_TERMS];
        let mut sin_terms = [0.0; SHAPE_SERIES_TERMS];
        for n in 0..SHAPE_SERIES_TERMS {
            for j in 0..=n {
                // i^(2j) = (-1)^j: the even powers of (1 + i phi)^C are real, the odd ones
                // (over phi) imaginary.
                let sign = if j % 2 == 0 { 1.0 } else { -1.0 };
                cos_terms[n] += sign * power[2 * j] * damping[n - j];
                sin_terms[n] += sign * power[2 * j + 1] * damping[n - j];
            }
        }
        Shape {
            c,
            cos_terms,
            sin_terms,
        }
    }

    /// (sin, cos) of C atan(phi).
    #[inline(always)]
    fn sin_cos(&self, phi: f64) -> (f64, f64) {
        if phi.abs() <= SHAPE_SERIES_PHI_MAX {
            let z = phi * phi;
            (phi * series(&self.sin_terms, z), series(&self.cos_terms, z))
        } else {
            sin_cos_c_atan(self.c, phi)
        }
    }

    /// cos(C atan(phi)).
    #[inline(always)]
    fn cos(&self, phi: f64) -> f64 {
        if phi.abs() <= SHAPE_SERIES_PHI_MAX {
            series(&self.cos_terms, phi * phi)
        } else if self.c == 1.0 {
            // cos(atan(phi)) without trigonometry.
            1.0 / (1.0 + phi * phi).sqrt()
        } else {
            sin_cos_c_atan(self.c, phi).1
        }
    }

    /// sin(C atan(phi)).
    #[inline(always)]
    fn sin(&self, phi: f64) -> f64 {
        if phi.abs() <= SHAPE_SERIES_PHI_MAX {
            phi * series(&self.sin_terms, phi * phi)
        } else {
            sin_cos_c_atan(self.c, phi).0
        }
    }
}

/// sum terms[n] z^n by Estrin's scheme (pairs, then powers z^2, z^4, z^8).
#[inline(always)]
fn series(t: &[f64; SHAPE_SERIES_TERMS], z: f64) -> f64 {
    let z2 = z * z;
    let z4 = z2 * z2;
    ((t[0] + t[1] * z) + z2 * (t[2] + t[3] * z))
        + z4 * ((t[4] + t[5] * z) + z2 * (t[6] + t[7] * z))
        + z4 * z4 * t[8]
}

/// Magic Formula sine version with curvature: D sin(C atan(Bx - E (Bx - atan Bx))).
#[inline]
fn magic_sin(b: f64, shape: &Shape, d: f64, e: f64, x: f64) -> f64 {
    let bx = b * x;
    d * shape.sin(bx - e * (bx - atan(bx)))
}

/// Magic Formula cosine weighting: cos(C atan(Bx - E (Bx - atan Bx))).
#[inline]
fn magic_cos(b: f64, shape: &Shape, e: f64, x: f64) -> f64 {
    let bx = b * x;
    let phi = if e == 0.0 {
        bx
    } else {
        bx - e * (bx - atan(bx))
    };
    shape.cos(phi)
}

/// cos(atan(x)) = 1 / sqrt(1 + x^2).
#[inline]
fn cos_atan(x: f64) -> f64 {
    1.0 / (1.0 + x * x).sqrt()
}

#[inline]
fn sign(x: f64) -> f64 {
    if x >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

impl Mf61 {
    /// This set with its load- and grip-independent coefficient combinations worked out
    /// (what every evaluation goes through; build it once where forces are evaluated often).
    pub fn prepare(&self) -> PreparedMf61 {
        PreparedMf61 {
            mf: *self,
            inv_fnomin: 1.0 / self.fnomin,
            ex_scale: [1.0 - self.pex4, 1.0 + self.pex4],
            ey_scale: [1.0 - self.pey3, 1.0 + self.pey3],
            inv_ky_load: 1.0 / (self.pky2 * self.fnomin),
            ky_scale: self.pky1 * self.fnomin,
            trail_per_load: self.r0 / self.fnomin,
            arm: self.r0 * self.ssz1,
            arm_per_fy: self.r0 * self.ssz2 / self.fnomin,
            et_slope: self.qez4 * std::f64::consts::FRAC_2_PI,
            long_shape: Shape::new(self.pcx1),
            lat_shape: Shape::new(self.pcy1),
            gxa_shape: Shape::new(self.rcx1),
            gyk_shape: Shape::new(self.rcy1),
            trail_shape: Shape::new(self.qcz1),
            svyk_shape: Shape::new(self.rvy5),
        }
    }

    /// Pure longitudinal force Fx0, N, at slip ratio `kappa` and load `fz_n` (all scales 1).
    pub fn fx0(&self, kappa: f64, fz_n: f64) -> f64 {
        self.prepare().fx0(kappa, fz_n)
    }

    /// Pure lateral force Fy0, N, at slip angle `alpha_rad` and load `fz_n` (all scales 1).
    pub fn fy0(&self, alpha_rad: f64, fz_n: f64) -> f64 {
        self.prepare().fy0(alpha_rad, fz_n)
    }

    /// Longitudinal slip stiffness dFx0/dkappa at zero slip, N (the `K_x` of the MF).
    pub fn long_slip_stiffness(&self, fz_n: f64) -> f64 {
        let p = self.prepare();
        p.long_slip_stiffness(fz_n, p.dfz(fz_n))
    }

    /// Cornering stiffness dFy0/dalpha at zero slip, N/rad (negative with ISO signs: the
    /// `K_y` of the MF).
    pub fn cornering_stiffness(&self, fz_n: f64) -> f64 {
        self.prepare().cornering_stiffness(fz_n)
    }

    /// Aligning moment at pure side slip (kappa = 0), N m, in the reference-table convention:
    /// the lateral force takes the slip angle directly, the trail and residual torque take
    /// alpha* = tan(alpha) with the cos'(alpha) factors of MF 6.1.
    pub fn mz0(&self, alpha_rad: f64, fz_n: f64) -> f64 {
        let p = self.prepare();
        let forces = p.evaluate(0.0, alpha_rad, alpha_rad.tan(), fz_n, GripScale::UNITY);
        // Pure slip: Mz0 = -t0 Fy0 + Mzr0, without the combined-slip arm s x Fx.
        forces.mz - p.moment_arm(forces.fy) * forces.fx
    }

    /// Peak longitudinal friction coefficient |Dx / Fz| at a load (without grip scaling).
    pub fn peak_mu_x(&self, fz_n: f64) -> f64 {
        (self.pdx1 + self.pdx2 * self.prepare().dfz(fz_n)).abs()
    }

    /// Peak lateral friction coefficient |Dy / Fz| at a load (without grip scaling).
    pub fn peak_mu_y(&self, fz_n: f64) -> f64 {
        (self.pdy1 + self.pdy2 * self.prepare().dfz(fz_n)).abs()
    }

    /// Combined-slip forces and aligning moment at slip ratio `kappa`, `tan_alpha` (the
    /// MF's alpha* = tan(slip angle) = -vy/|vx| with ISO signs), load `fz_n`, with friction
    /// scales `grip`.
    pub fn combined(&self, kappa: f64, tan_alpha: f64, fz_n: f64, grip: GripScale) -> TyreForces {
        self.prepare().combined(kappa, tan_alpha, fz_n, grip)
    }
}

/// An [`Mf61`] set with the combinations of its coefficients that do not depend on load,
/// slip or grip worked out once ([`Mf61::prepare`]): the per-wheel, per-step evaluation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreparedMf61 {
    mf: Mf61,
    /// 1 / FNOMIN, 1/N.
    inv_fnomin: f64,
    /// (1 - PEX4, 1 + PEX4): the longitudinal curvature factor for positive / negative slip.
    ex_scale: [f64; 2],
    /// (1 - PEY3, 1 + PEY3): the lateral curvature factor for positive / negative slip.
    ey_scale: [f64; 2],
    /// 1 / (PKY2 FNOMIN), 1/N.
    inv_ky_load: f64,
    /// PKY1 FNOMIN, N/rad.
    ky_scale: f64,
    /// R0 / FNOMIN, m/N (the trail's Dt per load).
    trail_per_load: f64,
    /// R0 SSZ1, m (the combined-slip arm at zero lateral force).
    arm: f64,
    /// R0 SSZ2 / FNOMIN, m/N (the arm's growth with lateral force).
    arm_per_fy: f64,
    /// QEZ4 2 / pi.
    et_slope: f64,
    /// Shape factors PCX1, PCY1, RCX1, RCY1, QCZ1 and RVY5 (the kappa-induced side force's
    /// sin(RVY5 atan(RVY6 kappa))) with their series.
    long_shape: Shape,
    lat_shape: Shape,
    gxa_shape: Shape,
    gyk_shape: Shape,
    trail_shape: Shape,
    svyk_shape: Shape,
}

impl PreparedMf61 {
    #[inline]
    fn dfz(&self, fz: f64) -> f64 {
        (fz - self.mf.fnomin) * self.inv_fnomin
    }

    #[inline]
    fn long_slip_stiffness(&self, fz: f64, dfz: f64) -> f64 {
        let m = &self.mf;
        fz * (m.pkx1 + m.pkx2 * dfz) * exp(m.pkx3 * dfz)
    }

    #[inline]
    fn cornering_stiffness(&self, fz: f64) -> f64 {
        let x = fz * self.inv_ky_load;
        let shape = if self.mf.pky4 == 2.0 {
            // sin(2 atan x) = 2x / (1 + x^2): the common PKY4 without trigonometry.
            2.0 * x / (1.0 + x * x)
        } else {
            (self.mf.pky4 * x.atan()).sin()
        };
        self.ky_scale * shape
    }

    #[inline]
    fn long_curve(&self, fz: f64, dfz: f64, mu_scale: f64) -> LongCurve {
        let m = &self.mf;
        let c = m.pcx1;
        let d = (m.pdx1 + m.pdx2 * dfz) * mu_scale * fz;
        let e_base = m.pex1 + m.pex2 * dfz + m.pex3 * dfz * dfz;
        let k = self.long_slip_stiffness(fz, dfz);
        LongCurve {
            b: k / (c * d + EPS),
            c,
            d,
            e_base,
            sh: m.phx1 + m.phx2 * dfz,
            sv: fz * (m.pvx1 + m.pvx2 * dfz) * mu_scale,
            k,
        }
    }

    #[inline]
    fn lat_curve(&self, fz: f64, dfz: f64, mu_scale: f64) -> LatCurve {
        let m = &self.mf;
        let c = m.pcy1;
        let mu = (m.pdy1 + m.pdy2 * dfz) * mu_scale;
        let d = mu * fz;
        let e_base = m.pey1 + m.pey2 * dfz;
        let k = self.cornering_stiffness(fz);
        LatCurve {
            b: k / (c * d + EPS),
            c,
            d,
            e_base,
            sh: m.phy1 + m.phy2 * dfz,
            sv: fz * (m.pvy1 + m.pvy2 * dfz) * mu_scale,
            k,
            mu,
        }
    }

    /// Fx0 and d(Fx0)/d(kappa).
    #[inline]
    fn long_force(&self, lc: &LongCurve, kappa: f64) -> (f64, f64) {
        let kx = kappa + lc.sh;
        let e = (lc.e_base * self.ex_scale[usize::from(kx < 0.0)]).min(1.0);
        let bx = lc.b * kx;
        let phi = bx - e * (bx - atan(bx));
        let (sin_t, cos_t) = self.long_shape.sin_cos(phi);
        let fx = lc.d * sin_t + lc.sv;
        let dphi = lc.b * (1.0 - e + e / (1.0 + bx * bx));
        let dfx = lc.d * cos_t * lc.c / (1.0 + phi * phi) * dphi;
        (fx, dfx)
    }

    #[inline]
    fn lat_force(&self, lc: &LatCurve, alpha: f64) -> f64 {
        let ay = alpha + lc.sh;
        let e = (lc.e_base * self.ey_scale[usize::from(ay < 0.0)]).min(1.0);
        magic_sin(lc.b, &self.lat_shape, lc.d, e, ay) + lc.sv
    }

    /// Combined-slip arm s of the longitudinal force in the aligning moment, m.
    #[inline]
    fn moment_arm(&self, fy: f64) -> f64 {
        self.arm + self.arm_per_fy * fy
    }

    /// Pure longitudinal force Fx0, N (see [`Mf61::fx0`]).
    pub fn fx0(&self, kappa: f64, fz_n: f64) -> f64 {
        if fz_n <= 0.0 {
            return 0.0;
        }
        let lc = self.long_curve(fz_n, self.dfz(fz_n), 1.0);
        self.long_force(&lc, kappa).0
    }

    /// Pure lateral force Fy0, N (see [`Mf61::fy0`]).
    pub fn fy0(&self, alpha_rad: f64, fz_n: f64) -> f64 {
        if fz_n <= 0.0 {
            return 0.0;
        }
        let lc = self.lat_curve(fz_n, self.dfz(fz_n), 1.0);
        self.lat_force(&lc, alpha_rad)
    }

    /// Combined-slip forces and aligning moment (see [`Mf61::combined`]).
    pub fn combined(&self, kappa: f64, tan_alpha: f64, fz_n: f64, grip: GripScale) -> TyreForces {
        self.evaluate(kappa, tan_alpha, tan_alpha, fz_n, grip)
    }

    /// The MF 6.1 equations with the slip angle of the forces (`alpha_force`) and of the
    /// aligning-moment slips (`alpha_moment`, also giving cos'(alpha)) given separately, so the
    /// reference convention (forces take alpha directly) and the simulation's (alpha* = tan)
    /// share one implementation.
    fn evaluate(
        &self,
        kappa: f64,
        alpha_force: f64,
        alpha_moment: f64,
        fz_n: f64,
        grip: GripScale,
    ) -> TyreForces {
        if fz_n <= 0.0 || grip.mu_x <= 0.0 || grip.mu_y <= 0.0 {
            return TyreForces::default();
        }
        let m = &self.mf;
        let alpha = alpha_force;
        let dfz = self.dfz(fz_n);
        let lx = self.long_curve(fz_n, dfz, grip.mu_x);
        let ly = self.lat_curve(fz_n, dfz, grip.mu_y);
        let (fx0, dfx0) = self.long_force(&lx, kappa);
        let fy0 = self.lat_force(&ly, alpha);

        // Longitudinal force weighting by side slip (Gxa).
        let bxa = m.rbx1 * cos_atan(m.rbx2 * kappa);
        let exa = (m.rex1 + m.rex2 * dfz).min(1.0);
        let gxa0 = magic_cos(bxa, &self.gxa_shape, exa, m.rhx1);
        let gxa = magic_cos(bxa, &self.gxa_shape, exa, alpha + m.rhx1) / gxa0;

        // Lateral force weighting by longitudinal slip (Gyk) and the kappa-induced side force.
        let byk = m.rby1 * cos_atan(m.rby2 * (alpha - m.rby3));
        let eyk = (m.rey1 + m.rey2 * dfz).min(1.0);
        let shyk = m.rhy1 + m.rhy2 * dfz;
        let gyk0 = magic_cos(byk, &self.gyk_shape, eyk, shyk);
        let gyk = magic_cos(byk, &self.gyk_shape, eyk, kappa + shyk) / gyk0;
        let dvyk = ly.mu * fz_n * (m.rvy1 + m.rvy2 * dfz) * cos_atan(m.rvy4 * alpha);
        let svyk = if kappa == 0.0 {
            0.0
        } else {
            dvyk * self.svyk_shape.sin(m.rvy6 * kappa)
        };

        let fx = gxa * fx0;
        let fy = gyk * fy0 + svyk;

        // Aligning moment: pneumatic trail times Fy' plus residual torque, at equivalent slips.
        let inv_mu_y = 1.0 / grip.mu_y;
        let cos_alpha = cos_atan(alpha_moment);
        let sht = m.qhz1 + m.qhz2 * dfz;
        let ky_safe = ly.k + sign(ly.k) * EPS;
        let inv_ky = 1.0 / ky_safe;
        let shf = ly.sh + ly.sv * inv_ky;
        let kx_over_ky = lx.k * inv_ky;
        let kk = kx_over_ky * kx_over_ky * kappa * kappa;
        let alpha_t = alpha_moment + sht;
        let alpha_r = alpha_moment + shf;
        let alpha_t_eq = (alpha_t * alpha_t + kk).sqrt() * sign(alpha_t);
        let alpha_r_eq = (alpha_r * alpha_r + kk).sqrt() * sign(alpha_r);
        let bt = (m.qbz1 + m.qbz2 * dfz + m.qbz3 * dfz * dfz) * inv_mu_y;
        let ct = m.qcz1;
        let dt = fz_n * self.trail_per_load * (m.qdz1 + m.qdz2 * dfz);
        let et_base = m.qez1 + m.qez2 * dfz + m.qez3 * dfz * dfz;
        let et = (et_base * (1.0 + self.et_slope * atan(bt * ct * alpha_t))).min(1.0);
        let trail = dt * magic_cos(bt, &self.trail_shape, et, alpha_t_eq) * cos_alpha;
        let br = m.qbz9 * inv_mu_y + m.qbz10 * ly.b * ly.c;
        let dr = fz_n * m.r0 * (m.qdz6 + m.qdz7 * dfz) * grip.mu_y * cos_alpha;
        let mzr = dr * cos_atan(br * alpha_r_eq) * cos_alpha;
        let fy_prime = fy - svyk;
        let mz = -trail * fy_prime + mzr + self.moment_arm(fy) * fx;

        TyreForces {
            fx,
            dfx_dkappa: gxa * dfx0,
            fy,
            mz,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_series_match_the_library_within_a_few_ulps() {
        let m = &PACEJKA_2006_205_60R15;
        let n = 20_000;
        let mut worst = 0.0f64;
        for c in [
            m.pcx1, m.pcy1, m.rcx1, m.rcy1, m.qcz1, m.rvy5, 0.5, 1.0, 2.0,
        ] {
            let shape = Shape::new(c);
            // Across the series' range and past it into the fallback.
            for i in 0..=n {
                let phi = -0.12 + 0.24 * i as f64 / n as f64;
                let (sin_ref, cos_ref) = (c * phi.atan()).sin_cos();
                let (sin, cos) = shape.sin_cos(phi);
                for (ours, reference) in [
                    (sin, sin_ref),
                    (cos, cos_ref),
                    (shape.sin(phi), sin_ref),
                    (shape.cos(phi), cos_ref),
                ] {
                    let unit = reference.abs().max(1e-300) * f64::EPSILON;
                    worst = worst.max((ours - reference).abs() / unit);
                }
            }
        }
        assert!(worst <= 8.0, "worst {worst} ulps");
        assert_eq!(Shape::new(1.3).sin_cos(0.0), (0.0, 1.0));
    }
}
