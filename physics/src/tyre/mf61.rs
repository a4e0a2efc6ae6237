//! Magic Formula 6.1 steady-state tyre forces: pure slip (Fx0, Fy0, Mz0) and combined slip
//! with the MF weighting functions (Gxa, Gyk), the Fy' / equivalent-slip aligning moment and
//! load sensitivity through the dfz terms.
//!
//! Conventions: ISO signs (positive kappa drives; a positive slip angle gives a negative
//! lateral force with this coefficient set). The simulation feeds alpha* = tan(alpha) (the
//! carcass-deflection slip); the pure-slip reference functions [`Mf61::fx0`], [`Mf61::fy0`],
//! [`Mf61::mz0`] follow the reference table's convention (forces take alpha directly, the
//! aligning-moment slips take tan(alpha) with cos'(alpha) factors). Camber terms of MF 5.2 or MF 6.1
//! ([`MfVersion`]), no inflation-pressure terms, all scaling factors 1 (a .tir file's are folded into
//! its coefficients, [`super::tir`]) except the friction scales
//! `mu_x`/`mu_y` (lambda_mu), which carry the tyre's own grip scale times the surface's.
//! Units: N, N m, m, rad. Equations: Pacejka, *Tyre and Vehicle Dynamics* (2006) ch. 4.3.2.
//!
//! Speed (this runs for every wheel every step): the constant coefficient combinations are
//! worked out once ([`PreparedMf61`]), and the four wheels are evaluated side by side
//! ([`PreparedMf61::combined4`], [`F64x4`] lanes, nothing branching per lane). The time is
//! the latency of chains (atan, curved argument, atan, polynomial), so the evaluation first
//! computes every argument, then the independent atans and sin/cos(C atan phi) in pairs
//! ([`crate::math::atan4_batch`], `sin_cos4_batch`: one instruction stream, two chains in
//! flight). atan is a polynomial within a few ulp of the library's; sin/cos(C atan phi) is
//! algebraic in phi for the whole part of C plus a short polynomial for the rest (`Shape`);
//! cos(atan x) and sin(2 atan x) are algebraic.

use crate::math::{atan4_batch, each, exp, sin_cos4_quarter, F64x4};

/// Small number keeping the B = K / (C D) divisions finite at zero load.
const EPS: f64 = 1e-9;

/// Which Magic Formula's camber equations a coefficient set follows (the pure-slip and
/// combined-slip equations without camber are the same in both).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MfVersion {
    /// MF 5.2 (PAC2002, Pacejka 2006): gamma* = gamma; SHy takes PHY3 gamma; Bt's camber
    /// factor 1 + QBZ4 gamma + QBZ5 |gamma|; Dt's 1 + QDZ3 gamma + QDZ4 gamma^2.
    Mf52,
    /// MF 6.1 (Pacejka 2012, Besselink): gamma* = sin(gamma); SHy takes the camber stiffness
    /// (Kyg0 gamma - SVyg) / Kya (PKY6, PKY7); Bt's factor 1 + QBZ5 |gamma| + QBZ6 gamma^2;
    /// Dt's 1 + QDZ3 |gamma| + QDZ4 gamma^2; Dr adds QDZ10, QDZ11; Fx's peak (1 - PDX3
    /// gamma^2); Ey adds PEY5; Ky adds PKY5.
    Mf61,
}

/// The Magic Formula coefficients this model uses (inflation-pressure terms are omitted: the
/// tyre runs at its nominal pressure; turn slip is omitted). Camber terms of a set that does
/// not have them are 0.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)] // The names are the MF coefficient names (lower case).
pub struct Mf61 {
    /// Which camber equations the set follows.
    pub version: MfVersion,
    /// Inclination range of the fit (CAMMIN, CAMMAX), rad: the camber terms are evaluated
    /// at no more than this, as the load is at no more than FZMAX (a rolling-over car's
    /// tyre on its sidewall is far outside any fit).
    pub camber_range_rad: [f64; 2],
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
    pub pdx3: f64,
    pub rbx1: f64,
    pub rbx2: f64,
    pub rbx3: f64,
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
    pub pdy3: f64,
    pub pey4: f64,
    pub pey5: f64,
    pub pky3: f64,
    pub pky5: f64,
    pub pky6: f64,
    pub pky7: f64,
    pub phy3: f64,
    pub pvy3: f64,
    pub pvy4: f64,
    pub rby1: f64,
    pub rby2: f64,
    pub rby3: f64,
    pub rby4: f64,
    pub rcy1: f64,
    pub rey1: f64,
    pub rey2: f64,
    pub rhy1: f64,
    pub rhy2: f64,
    pub rvy1: f64,
    pub rvy2: f64,
    pub rvy3: f64,
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
    pub qbz4: f64,
    pub qbz5: f64,
    pub qbz6: f64,
    pub qdz3: f64,
    pub qdz4: f64,
    pub qdz8: f64,
    pub qdz9: f64,
    pub qdz10: f64,
    pub qdz11: f64,
    pub qez5: f64,
    pub qhz3: f64,
    pub qhz4: f64,
    pub ssz3: f64,
    pub ssz4: f64,
}

/// Pacejka (2006), Table A3.1: 205/60R15 91V at 2.2 bar, ISO signs, with the table's own
/// camber equations (the book's, MF 6.1's camber form: gamma* = sin(gamma), the camber
/// stiffness PKY6/PKY7 in SHy, Bt's QBZ5 |gamma*|, Dt's QDZ3 |gamma*|). Combined-slip and
/// aligning-moment coefficients from the same table; REX1/REX2/REY1/REY2/RHY2 are not listed
/// there and are 0 (the usual default). Every camber coefficient (PDY3, PEY3, PEY4, PKY3,
/// PKY5, PKY6, PKY7, PVY3, PVY4, RBY4, RVY3, RBX3, QBZ5, QBZ6, QDZ3, QDZ4, QDZ8-QDZ11, QEZ5,
/// QHZ3, QHZ4, SSZ3, SSZ4) agrees with two independent transcriptions of the table; the
/// table has no PHY3 or QBZ4 (MF 5.2's), so they are 0 (docs/tyres.md has the sources).
pub const PACEJKA_2006_205_60R15: Mf61 = Mf61 {
    version: MfVersion::Mf61,
    camber_range_rad: DEFAULT_CAMBER_RANGE_RAD,
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
    pdx3: 0.0,
    rbx1: 12.35,
    rbx2: -10.77,
    rbx3: 0.0,
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
    pdy3: -11.23,
    pey4: -4.787,
    pey5: 0.0,
    pky3: -0.028,
    pky5: 0.0,
    pky6: -0.92,
    pky7: -0.24,
    phy3: 0.0,
    pvy3: -0.532,
    pvy4: 0.039,
    rby1: 6.461,
    rby2: 4.196,
    rby3: -0.015,
    rby4: 0.0,
    rcy1: 1.081,
    rey1: 0.0,
    rey2: 0.0,
    rhy1: 0.009,
    rhy2: 0.0,
    rvy1: 0.053,
    rvy2: -0.073,
    rvy3: 0.517,
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
    qbz4: 0.0,
    qbz5: -0.227,
    qbz6: 0.0,
    qdz3: 0.007,
    qdz4: 13.05,
    qdz8: -0.296,
    qdz9: -0.009,
    qdz10: 0.0,
    qdz11: 0.0,
    qez5: -0.896,
    qhz3: 0.147,
    qhz4: 0.004,
    ssz3: 0.731,
    ssz4: -0.238,
};

/// The inclination range taken for a set that does not state one (CAMMIN, CAMMAX), rad
/// (about 8.6 degrees: more than road cars' camber plus roll).
pub const DEFAULT_CAMBER_RANGE_RAD: [f64; 2] = [-0.15, 0.15];

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

/// Where MF 5.2 and MF 6.1 differ in their camber terms, as coefficients (so one evaluation
/// serves both; see [`MfVersion`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct CamberForm {
    /// gamma* = sin(gamma) (MF 6.1) or gamma (MF 5.2).
    sine: bool,
    /// PHY3 (MF 5.2) or 0.
    phy3: f64,
    /// SHy takes (Kyg0 gamma* - SVyg) / Kya (MF 6.1).
    stiffness_shift: bool,
    /// QBZ4 (MF 5.2) or 0: Bt's linear camber term.
    qbz_linear: f64,
    /// QDZ3 as Dt's linear (MF 5.2) or absolute-value (MF 6.1) camber term.
    qdz3_linear: f64,
    qdz3_absolute: f64,
}

/// Terms of the longitudinal pure-slip curve at the lanes' loads.
#[derive(Debug, Clone, Copy)]
struct LongCurve {
    b: F64x4,
    c: f64,
    d: F64x4,
    /// Curvature before the slip-sign factor (E = min(e_base (1 -+ P_E), 1), chosen per
    /// evaluation: only one sign is ever needed).
    e_base: F64x4,
    sh: F64x4,
    sv: F64x4,
    k: F64x4,
}

/// Terms of the lateral pure-slip curve at the lanes' loads.
#[derive(Debug, Clone, Copy)]
struct LatCurve {
    b: F64x4,
    c: f64,
    d: F64x4,
    /// Curvature before the slip-sign factor (E = min(e_base (1 -+ P_E), 1), chosen per
    /// evaluation: only one sign is ever needed).
    e_base: F64x4,
    sh: F64x4,
    sv: F64x4,
    k: F64x4,
    mu: F64x4,
}

/// |phi| at which [`sin_cos4_batch`] clamps its argument so phi^2 stays finite; atan(phi)
/// is pi/2 to the last bit there, so the clamp moves sin/cos(C atan phi) by less than 1e-150.
const SHAPE_PHI_LIMIT: f64 = 1e150;

/// sin and cos of C atan(phi) for one shape factor C (evaluated by [`sin_cos4_batch`], four
/// lanes per argument), without per-lane branches or library calls. With theta = atan(phi) ([`atan4`]), C theta splits into n theta + (C - n)
/// theta, n = C rounded to an integer: sin and cos of n theta are algebraic in phi (n = 1:
/// cos theta = 1 / sqrt(1 + phi^2), sin theta = phi cos theta; n = 2: sin 2 theta = 2 phi /
/// (1 + phi^2), cos 2 theta = (1 - phi^2) / (1 + phi^2); other n by repeated angle sums), and
/// the remainder, |C - n| |theta| <= pi/4, takes [`sin_cos4_quarter`]; the angle-sum identity
/// joins the two. Exact for every C up to round-off (a few ulp, module test).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shape {
    /// n: C rounded to the nearest integer.
    whole: i32,
    /// C - n (|C - n| <= 1/2; exact in floating point).
    rest: f64,
}

impl Shape {
    fn new(c: f64) -> Shape {
        let whole = c.round();
        Shape {
            whole: whole as i32,
            rest: c - whole,
        }
    }

    /// (sin, cos) of n atan(phi), n = C rounded (`z` = phi^2).
    #[inline(always)]
    fn whole_angle(&self, phi: F64x4, z: F64x4) -> (F64x4, F64x4) {
        // A branch on the shape factor, the same for every lane and every step.
        match self.whole {
            1 => {
                let cos_t = 1.0 / (1.0 + z).sqrt();
                (phi * cos_t, cos_t)
            }
            2 => {
                let inv = 1.0 / (1.0 + z);
                (2.0 * phi * inv, (1.0 - z) * inv)
            }
            n => whole_multiple(n, phi, z),
        }
    }
}

/// (sin, cos) of C_k atan(phi_k) for N shapes and their arguments, operation by operation
/// across the shapes (like [`atan4_batch`]) so the independent chains overlap.
#[inline(never)]
fn sin_cos4_batch<const N: usize>(shapes: [&Shape; N], phi: [F64x4; N]) -> [(F64x4, F64x4); N] {
    let phi = phi.map(|phi| phi.clamp(-SHAPE_PHI_LIMIT, SHAPE_PHI_LIMIT));
    let z = phi.map(|phi| phi * phi);
    let whole: [(F64x4, F64x4); N] = std::array::from_fn(|i| shapes[i].whole_angle(phi[i], z[i]));
    let theta = atan4_batch(phi);
    let rest = sin_cos4_quarter(each::<N>(|i| shapes[i].rest * theta[i]));
    std::array::from_fn(|i| {
        let ((sin_n, cos_n), (sin_r, cos_r)) = (whole[i], rest[i]);
        (sin_n * cos_r + cos_n * sin_r, cos_n * cos_r - sin_n * sin_r)
    })
}

/// (sin, cos) of n atan(phi) for the whole multiples other than 1 and 2 (shape factors below
/// 0.5 or from 2.5; not those of the usual MF sets), `z` = phi^2: |n| angle sums of theta's
/// (n = 0 gives (0, 1); a negative n mirrors the sine).
#[cold]
#[inline(never)]
fn whole_multiple(n: i32, phi: F64x4, z: F64x4) -> (F64x4, F64x4) {
    let cos_t = 1.0 / (1.0 + z).sqrt();
    let sin_t = phi * cos_t;
    let (mut sin_n, mut cos_n) = (F64x4::splat(0.0), F64x4::splat(1.0));
    for _ in 0..n.unsigned_abs() {
        (sin_n, cos_n) = (sin_n * cos_t + cos_n * sin_t, cos_n * cos_t - sin_n * sin_t);
    }
    if n < 0 {
        (-sin_n, cos_n)
    } else {
        (sin_n, cos_n)
    }
}

/// The Magic Formula's curved arguments Bx - E (Bx - atan Bx) of a weighting function and
/// its normaliser, from their Bx (`bx0`, `bx`): only for sets whose weighting curvature
/// (REX*, REY*) is not zero, so out of line.
#[cold]
#[inline(never)]
fn curved_pair(bx0: F64x4, bx: F64x4, e: F64x4) -> (F64x4, F64x4) {
    let [atan0, atan] = atan4_batch([bx0, bx]);
    (bx0 - e * (bx0 - atan0), bx - e * (bx - atan))
}

/// cos(atan(x)) = 1 / sqrt(1 + x^2).
#[inline(always)]
fn cos_atan(x: F64x4) -> F64x4 {
    1.0 / (1.0 + x * x).sqrt()
}

/// 1 where x >= 0, else -1 (so -0 counts as positive).
#[inline(always)]
fn sign(x: F64x4) -> F64x4 {
    F64x4::select(
        x.at_least(F64x4::splat(0.0)),
        F64x4::splat(1.0),
        F64x4::splat(-1.0),
    )
}

impl Mf61 {
    /// This set with its load- and grip-independent coefficient combinations worked out
    /// (what every evaluation goes through; build it once where forces are evaluated often).
    pub fn prepare(&self) -> PreparedMf61 {
        PreparedMf61 {
            mf: *self,
            inv_fnomin: 1.0 / self.fnomin,
            ex_scale: [1.0 - self.pex4, 1.0 + self.pex4],
            inv_ky_load: 1.0 / (self.pky2 * self.fnomin),
            ky_scale: self.pky1 * self.fnomin,
            trail_per_load: self.r0 / self.fnomin,
            arm: self.r0 * self.ssz1,
            arm_per_fy: self.r0 * self.ssz2 / self.fnomin,
            et_slope: self.qez4 * std::f64::consts::FRAC_2_PI,
            et_slope_per_camber: self.qez5 * std::f64::consts::FRAC_2_PI,
            camber: match self.version {
                MfVersion::Mf52 => CamberForm {
                    sine: false,
                    phy3: self.phy3,
                    stiffness_shift: false,
                    qbz_linear: self.qbz4,
                    qdz3_linear: self.qdz3,
                    qdz3_absolute: 0.0,
                },
                MfVersion::Mf61 => CamberForm {
                    sine: true,
                    phy3: 0.0,
                    stiffness_shift: true,
                    qbz_linear: 0.0,
                    qdz3_linear: 0.0,
                    qdz3_absolute: self.qdz3,
                },
            },
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
        let fz = F64x4::splat(fz_n);
        p.long_slip_stiffness(fz, p.dfz(fz)).to_array()[0]
    }

    /// Cornering stiffness dFy0/dalpha at zero slip, N/rad (negative with ISO signs: the
    /// `K_y` of the MF).
    pub fn cornering_stiffness(&self, fz_n: f64) -> f64 {
        self.prepare()
            .cornering_stiffness(F64x4::splat(fz_n), F64x4::splat(0.0))
            .to_array()[0]
    }

    /// Aligning moment at pure side slip (kappa = 0), N m, in the reference-table convention:
    /// the lateral force takes the slip angle directly, the trail and residual torque take
    /// alpha* = tan(alpha) with the cos'(alpha) factors of MF 6.1.
    pub fn mz0(&self, alpha_rad: f64, fz_n: f64) -> f64 {
        let p = self.prepare();
        let lanes = F64x4::splat;
        let [forces, ..] = p.evaluate4(
            lanes(0.0),
            lanes(alpha_rad),
            lanes(alpha_rad.tan()),
            lanes(0.0),
            lanes(fz_n),
            [lanes(1.0); 2],
        );
        // Pure slip: Mz0 = -t0 Fy0 + Mzr0, without the combined-slip arm s x Fx.
        forces.mz - p.moment_arm(lanes(forces.fy)).to_array()[0] * forces.fx
    }

    /// Peak longitudinal friction coefficient |Dx / Fz| at a load (without grip scaling).
    pub fn peak_mu_x(&self, fz_n: f64) -> f64 {
        let dfz = self.prepare().dfz(F64x4::splat(fz_n)).to_array()[0];
        (self.pdx1 + self.pdx2 * dfz).abs()
    }

    /// Peak lateral friction coefficient |Dy / Fz| at a load (without grip scaling).
    pub fn peak_mu_y(&self, fz_n: f64) -> f64 {
        let dfz = self.prepare().dfz(F64x4::splat(fz_n)).to_array()[0];
        (self.pdy1 + self.pdy2 * dfz).abs()
    }

    /// Combined-slip forces and aligning moment at slip ratio `kappa`, `tan_alpha` (the
    /// MF's alpha* = tan(slip angle) = -vy/|vx| with ISO signs), load `fz_n`, with friction
    /// scales `grip`.
    pub fn combined(&self, kappa: f64, tan_alpha: f64, fz_n: f64, grip: GripScale) -> TyreForces {
        self.prepare().combined(kappa, tan_alpha, fz_n, grip)
    }

    /// [`Mf61::combined`] at inclination angle `gamma_rad` (ISO: positive leans the wheel's
    /// top to its right, seen from behind).
    pub fn combined_cambered(
        &self,
        kappa: f64,
        tan_alpha: f64,
        gamma_rad: f64,
        fz_n: f64,
        grip: GripScale,
    ) -> TyreForces {
        self.prepare()
            .combined_cambered(kappa, tan_alpha, gamma_rad, fz_n, grip)
    }
}

/// An [`Mf61`] set with the combinations of its coefficients that do not depend on load,
/// slip or grip worked out once ([`Mf61::prepare`]): the per-wheel, per-step evaluation.
/// Everything is evaluated for four lanes (the four wheels) at once; the scalar methods run
/// one operating point in every lane and read lane 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PreparedMf61 {
    mf: Mf61,
    /// 1 / FNOMIN, 1/N.
    inv_fnomin: f64,
    /// (1 - PEX4, 1 + PEX4): the longitudinal curvature factor for positive / negative slip.
    ex_scale: [f64; 2],
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
    /// QEZ5 2 / pi (the trail curvature's growth with camber).
    et_slope_per_camber: f64,
    /// The version's camber equations as coefficients.
    camber: CamberForm,
    /// Shape factors PCX1, PCY1, RCX1, RCY1, QCZ1 and RVY5 (the kappa-induced side force's
    /// sin(RVY5 atan(RVY6 kappa))).
    long_shape: Shape,
    lat_shape: Shape,
    gxa_shape: Shape,
    gyk_shape: Shape,
    trail_shape: Shape,
    svyk_shape: Shape,
}

impl PreparedMf61 {
    #[inline(always)]
    fn dfz(&self, fz: F64x4) -> F64x4 {
        (fz - self.mf.fnomin) * self.inv_fnomin
    }

    #[inline(always)]
    fn long_slip_stiffness(&self, fz: F64x4, dfz: F64x4) -> F64x4 {
        let m = &self.mf;
        fz * (m.pkx1 + m.pkx2 * dfz) * (m.pkx3 * dfz).map(exp)
    }

    #[inline(always)]
    fn cornering_stiffness(&self, fz: F64x4, gamma: F64x4) -> F64x4 {
        let m = &self.mf;
        // PKY5 (MF 6.1) moves the load of the stiffness peak with camber; a branch on the set.
        let x = if m.pky5 == 0.0 {
            fz * self.inv_ky_load
        } else {
            fz / ((m.pky2 + m.pky5 * gamma * gamma) * m.fnomin)
        };
        // A branch on the coefficient set, the same for every lane and every step.
        let shape = if self.mf.pky4 == 2.0 {
            // sin(2 atan x) = 2x / (1 + x^2): the common PKY4 without trigonometry.
            2.0 * x / (1.0 + x * x)
        } else {
            x.map(|x| (self.mf.pky4 * x.atan()).sin())
        };
        self.ky_scale * shape * (1.0 - m.pky3 * gamma.abs())
    }

    #[inline(always)]
    fn long_curve(&self, fz: F64x4, dfz: F64x4, mu_scale: F64x4, gamma2: F64x4) -> LongCurve {
        let m = &self.mf;
        let c = m.pcx1;
        let d = (m.pdx1 + m.pdx2 * dfz) * (1.0 - m.pdx3 * gamma2) * mu_scale * fz;
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

    #[inline(always)]
    fn lat_curve(&self, fz: F64x4, dfz: F64x4, mu_scale: F64x4, gamma: F64x4) -> LatCurve {
        let m = &self.mf;
        let c = m.pcy1;
        let mu = (m.pdy1 + m.pdy2 * dfz) * (1.0 - m.pdy3 * gamma * gamma) * mu_scale;
        let d = mu * fz;
        let e_base = m.pey1 + m.pey2 * dfz;
        let k = self.cornering_stiffness(fz, gamma);
        // Camber's vertical shift SVyg and, in MF 6.1, the horizontal shift that puts the
        // camber stiffness Kyg0 into the curve.
        let sv_camber = fz * (m.pvy3 + m.pvy4 * dfz) * gamma * mu_scale;
        let mut sh = m.phy1 + m.phy2 * dfz + self.camber.phy3 * gamma;
        if self.camber.stiffness_shift {
            let k_camber = fz * (m.pky6 + m.pky7 * dfz);
            sh = sh + (k_camber * gamma - sv_camber) / (k + sign(k) * EPS);
        }
        LatCurve {
            b: k / (c * d + EPS),
            c,
            d,
            e_base,
            sh,
            sv: fz * (m.pvy1 + m.pvy2 * dfz) * mu_scale + sv_camber,
            k,
            mu,
        }
    }

    /// Combined-slip arm s of the longitudinal force in the aligning moment, m.
    #[inline(always)]
    fn moment_arm(&self, fy: F64x4) -> F64x4 {
        self.arm + self.arm_per_fy * fy
    }

    /// gamma* of the set's version from the inclination angle `gamma_rad` (clamped to the
    /// fit's range, [`Mf61::camber_range_rad`]).
    #[inline(always)]
    fn gamma_star(&self, gamma_rad: F64x4) -> F64x4 {
        let [low, high] = self.mf.camber_range_rad;
        let gamma = gamma_rad.clamp(low, high);
        if self.camber.sine {
            let [(sin, _)] = sin_cos4_quarter([gamma]);
            sin
        } else {
            gamma
        }
    }

    /// Pure longitudinal force Fx0, N (see [`Mf61::fx0`]): the combined evaluation at zero
    /// slip angle, where the weighting Gxa is exactly 1.
    pub fn fx0(&self, kappa: f64, fz_n: f64) -> f64 {
        self.combined(kappa, 0.0, fz_n, GripScale::UNITY).fx
    }

    /// Pure lateral force Fy0, N (see [`Mf61::fy0`]): the combined evaluation at zero slip
    /// ratio, where the weighting Gyk is exactly 1 and the kappa-induced side force 0.
    pub fn fy0(&self, alpha_rad: f64, fz_n: f64) -> f64 {
        self.combined(0.0, alpha_rad, fz_n, GripScale::UNITY).fy
    }

    /// Combined-slip forces and aligning moment (see [`Mf61::combined`]).
    pub fn combined(&self, kappa: f64, tan_alpha: f64, fz_n: f64, grip: GripScale) -> TyreForces {
        self.combined_cambered(kappa, tan_alpha, 0.0, fz_n, grip)
    }

    /// Combined-slip forces at inclination angle `gamma_rad` (see
    /// [`Mf61::combined_cambered`]).
    pub fn combined_cambered(
        &self,
        kappa: f64,
        tan_alpha: f64,
        gamma_rad: f64,
        fz_n: f64,
        grip: GripScale,
    ) -> TyreForces {
        let lanes = F64x4::splat;
        let [forces, ..] = self.evaluate4(
            lanes(kappa),
            lanes(tan_alpha),
            lanes(tan_alpha),
            self.gamma_star(lanes(gamma_rad)),
            lanes(fz_n),
            [lanes(grip.mu_x), lanes(grip.mu_y)],
        );
        forces
    }

    /// [`PreparedMf61::combined`] for four operating points at once (lane i: slip ratio
    /// `kappa[i]`, alpha* `tan_alpha[i]`, load `fz_n[i]`, friction scales `mu_x[i]`,
    /// `mu_y[i]`): the four wheels of a car side by side, the same results as four scalar
    /// calls.
    pub fn combined4(
        &self,
        kappa: F64x4,
        tan_alpha: F64x4,
        fz_n: F64x4,
        mu_x: F64x4,
        mu_y: F64x4,
    ) -> [TyreForces; 4] {
        self.evaluate4(
            kappa,
            tan_alpha,
            tan_alpha,
            F64x4::splat(0.0),
            fz_n,
            [mu_x, mu_y],
        )
    }

    /// [`PreparedMf61::combined4`] with each lane's inclination angle `gamma_rad` (ISO).
    pub fn combined4_cambered(
        &self,
        kappa: F64x4,
        tan_alpha: F64x4,
        gamma_rad: F64x4,
        fz_n: F64x4,
        mu_x: F64x4,
        mu_y: F64x4,
    ) -> [TyreForces; 4] {
        let gamma = self.gamma_star(gamma_rad);
        self.evaluate4(kappa, tan_alpha, tan_alpha, gamma, fz_n, [mu_x, mu_y])
    }

    /// The MF 6.1 equations for four lanes with the slip angle of the forces (`alpha_force`)
    /// and of the aligning-moment slips (`alpha_moment`, also giving cos'(alpha)) given
    /// separately, so the reference convention (forces take alpha directly) and the
    /// simulation's (alpha* = tan) share one implementation. Lanes without load or grip
    /// (`fz_n`, `mu_x` or `mu_y` not above 0) evaluate a harmless point and give zeros.
    #[inline(always)]
    fn evaluate4(
        &self,
        kappa: F64x4,
        alpha_force: F64x4,
        alpha_moment: F64x4,
        gamma: F64x4,
        fz_n: F64x4,
        [mu_x, mu_y]: [F64x4; 2],
    ) -> [TyreForces; 4] {
        let zero = F64x4::splat(0.0);
        let one = F64x4::splat(1.0);
        let active = fz_n
            .greater_than(zero)
            .and(mu_x.greater_than(zero))
            .and(mu_y.greater_than(zero));
        let active_or = |v: F64x4, idle: F64x4| F64x4::select(active, v, idle);
        let kappa = active_or(kappa, zero);
        let alpha = active_or(alpha_force, zero);
        let alpha_moment = active_or(alpha_moment, zero);
        let gamma = active_or(gamma, zero);
        let gamma_abs = gamma.abs();
        let gamma2 = gamma * gamma;
        let fz_n = active_or(fz_n, F64x4::splat(self.mf.fnomin));
        let mu_x = active_or(mu_x, one);
        let mu_y = active_or(mu_y, one);

        let m = &self.mf;
        let dfz = self.dfz(fz_n);
        let lx = self.long_curve(fz_n, dfz, mu_x, gamma2);
        let ly = self.lat_curve(fz_n, dfz, mu_y, gamma);

        // Pure-slip arguments Bx with their curvature (one sign of the slip needed).
        let negative = |x: F64x4| x.less_than(zero);
        let kx = kappa + lx.sh;
        let [ex_positive, ex_negative] = self.ex_scale.map(F64x4::splat);
        let ex = (lx.e_base * F64x4::select(negative(kx), ex_negative, ex_positive)).min(1.0);
        let bx_long = lx.b * kx;
        let ay = alpha + ly.sh;
        // E = e_base (1 + PEY5 g^2 - (PEY3 + PEY4 g) sgn(alpha_y)).
        let ey_even = 1.0 + m.pey5 * gamma2;
        let ey_odd = m.pey3 + m.pey4 * gamma;
        let ey_factor = F64x4::select(negative(ay), ey_even + ey_odd, ey_even - ey_odd);
        let ey = (ly.e_base * ey_factor).min(1.0);
        let bx_lat = ly.b * ay;

        // Aligning-moment slips: pneumatic trail and residual torque at equivalent slips.
        let inv_mu_y = 1.0 / mu_y;
        let cos_alpha = cos_atan(alpha_moment);
        let sht = m.qhz1 + m.qhz2 * dfz + (m.qhz3 + m.qhz4 * dfz) * gamma;
        let ky_safe = ly.k + sign(ly.k) * EPS;
        let inv_ky = 1.0 / ky_safe;
        let shf = ly.sh + ly.sv * inv_ky;
        let kx_over_ky = lx.k * inv_ky;
        let kk = kx_over_ky * kx_over_ky * kappa * kappa;
        let alpha_t = alpha_moment + sht;
        let alpha_r = alpha_moment + shf;
        let alpha_t_eq = (alpha_t * alpha_t + kk).sqrt() * sign(alpha_t);
        let alpha_r_eq = (alpha_r * alpha_r + kk).sqrt() * sign(alpha_r);
        let cf = &self.camber;
        let bt = (m.qbz1 + m.qbz2 * dfz + m.qbz3 * dfz * dfz)
            * (1.0 + cf.qbz_linear * gamma + m.qbz5 * gamma_abs + m.qbz6 * gamma2)
            * inv_mu_y;
        let ct = m.qcz1;
        let dt = fz_n
            * self.trail_per_load
            * (m.qdz1 + m.qdz2 * dfz)
            * (1.0 + cf.qdz3_linear * gamma + cf.qdz3_absolute * gamma_abs + m.qdz4 * gamma2);
        let et_base = m.qez1 + m.qez2 * dfz + m.qez3 * dfz * dfz;
        let bx_trail = bt * alpha_t_eq;

        // The four independent atans of the curved arguments, side by side.
        let [atan_long, atan_lat] = atan4_batch([bx_long, bx_lat]);
        let [atan_et, atan_trail] = atan4_batch([bt * ct * alpha_t, bx_trail]);
        let phi_long = bx_long - ex * (bx_long - atan_long);
        let phi_lat = bx_lat - ey * (bx_lat - atan_lat);
        let et_slope = self.et_slope + self.et_slope_per_camber * gamma;
        let et = (et_base * (1.0 + et_slope * atan_et)).min(1.0);
        let phi_trail = bx_trail - et * (bx_trail - atan_trail);

        // Weighting functions' arguments: Gxa (longitudinal force by side slip), Gyk (lateral
        // by longitudinal slip), each also at zero slip for its normaliser. Their curvature is
        // zero in the usual sets (REX*, REY* = 0): then the argument is Bx, no atan needed.
        let bxa = (m.rbx1 + m.rbx3 * gamma2) * cos_atan(m.rbx2 * kappa);
        let (phi_gxa0, phi_gxa) = (bxa * m.rhx1, bxa * (alpha + m.rhx1));
        let (phi_gxa0, phi_gxa) = if m.rex1 != 0.0 || m.rex2 != 0.0 {
            let exa = (m.rex1 + m.rex2 * dfz).min(1.0);
            curved_pair(phi_gxa0, phi_gxa, exa)
        } else {
            (phi_gxa0, phi_gxa)
        };
        let byk = (m.rby1 + m.rby4 * gamma2) * cos_atan(m.rby2 * (alpha - m.rby3));
        let shyk = m.rhy1 + m.rhy2 * dfz;
        let (phi_gyk0, phi_gyk) = (byk * shyk, byk * (kappa + shyk));
        let (phi_gyk0, phi_gyk) = if m.rey1 != 0.0 || m.rey2 != 0.0 {
            let eyk = (m.rey1 + m.rey2 * dfz).min(1.0);
            curved_pair(phi_gyk0, phi_gyk, eyk)
        } else {
            (phi_gyk0, phi_gyk)
        };

        // Every sin/cos(C atan phi) of the model, side by side.
        let [long, lat] = sin_cos4_batch([&self.long_shape, &self.lat_shape], [phi_long, phi_lat]);
        let [gxa0, gxa1] = sin_cos4_batch([&self.gxa_shape; 2], [phi_gxa0, phi_gxa]);
        let [gyk0, gyk1] = sin_cos4_batch([&self.gyk_shape; 2], [phi_gyk0, phi_gyk]);
        let [svyk_shape, trail_shape] = sin_cos4_batch(
            [&self.svyk_shape, &self.trail_shape],
            [m.rvy6 * kappa, phi_trail],
        );

        // Pure-slip forces, Fx0's slope d(Fx0)/d(kappa), weightings and combined forces.
        let fx0 = lx.d * long.0 + lx.sv;
        let dphi = lx.b * (1.0 - ex + ex / (1.0 + bx_long * bx_long));
        let dfx0 = lx.d * long.1 * lx.c / (1.0 + phi_long * phi_long) * dphi;
        let fy0 = ly.d * lat.0 + ly.sv;
        let gxa = gxa1.1 / gxa0.1;
        let gyk = gyk1.1 / gyk0.1;
        let dvyk =
            ly.mu * fz_n * (m.rvy1 + m.rvy2 * dfz + m.rvy3 * gamma) * cos_atan(m.rvy4 * alpha);
        let svyk = F64x4::select(kappa.equal_to(zero), zero, dvyk * svyk_shape.0);
        let fx = gxa * fx0;
        let fy = gyk * fy0 + svyk;

        // Aligning moment: pneumatic trail times Fy' plus residual torque.
        let trail = dt * trail_shape.1 * cos_alpha;
        let br = m.qbz9 * inv_mu_y + m.qbz10 * ly.b * ly.c;
        let dr_camber = ((m.qdz8 + m.qdz9 * dfz) + (m.qdz10 + m.qdz11 * dfz) * gamma_abs) * gamma;
        let dr = fz_n * m.r0 * ((m.qdz6 + m.qdz7 * dfz) + dr_camber) * mu_y * cos_alpha;
        let mzr = dr * cos_atan(br * alpha_r_eq) * cos_alpha;
        let fy_prime = fy - svyk;
        let arm = self.moment_arm(fy) + m.r0 * (m.ssz3 + m.ssz4 * dfz) * gamma;
        let mz = -trail * fy_prime + mzr + arm * fx;

        let fx = active_or(fx, zero).to_array();
        let dfx_dkappa = active_or(gxa * dfx0, zero).to_array();
        let fy = active_or(fy, zero).to_array();
        let mz = active_or(mz, zero).to_array();
        std::array::from_fn(|i| TyreForces {
            fx: fx[i],
            dfx_dkappa: dfx_dkappa[i],
            fy: fy[i],
            mz: mz[i],
        })
    }
}

/// Scalar views of [`Shape`] (every lane the same phi, lane 0 read) for the unit tests.
#[cfg(test)]
impl Shape {
    fn sin_cos(&self, phi: f64) -> (f64, f64) {
        let [(sin, cos)] = sin_cos4_batch([self], [F64x4::splat(phi)]);
        (sin.to_array()[0], cos.to_array()[0])
    }

    fn sin(&self, phi: f64) -> f64 {
        self.sin_cos(phi).0
    }

    fn cos(&self, phi: f64) -> f64 {
        self.sin_cos(phi).1
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

    #[test]
    fn shapes_outside_the_usual_factors_match_the_library() {
        // Whole parts 0, 3 and -1 go through the repeated angle sums.
        let mut worst = 0.0f64;
        for c in [0.3, 2.6, 3.2, -1.3] {
            let shape = Shape::new(c);
            for i in 0..=2_000 {
                let phi = -30.0 + 60.0 * i as f64 / 2_000.0;
                let (sin_ref, cos_ref) = (c * phi.atan()).sin_cos();
                let (sin, cos) = shape.sin_cos(phi);
                // Absolute: the values cross zero.
                worst = worst.max((sin - sin_ref).abs()).max((cos - cos_ref).abs());
            }
        }
        assert!(worst <= 1e-14, "worst absolute error {worst:e}");
    }

    /// The combined-slip equations written plainly with the library's atan/sin/cos (no
    /// prepared terms, no lanes): what [`PreparedMf61`] must reproduce to round-off.
    fn textbook(m: &Mf61, kappa: f64, alpha: f64, fz: f64, grip: GripScale) -> TyreForces {
        let magic = |b: f64, c: f64, e: f64, x: f64| {
            let bx = b * x;
            c * (bx - e * (bx - bx.atan())).atan()
        };
        let sign = |x: f64| if x >= 0.0 { 1.0 } else { -1.0 };
        let dfz = (fz - m.fnomin) / m.fnomin;
        // Longitudinal.
        let kx_stiff = fz * (m.pkx1 + m.pkx2 * dfz) * (m.pkx3 * dfz).exp();
        let dx = (m.pdx1 + m.pdx2 * dfz) * grip.mu_x * fz;
        let bx = kx_stiff / (m.pcx1 * dx + EPS);
        let kx = kappa + m.phx1 + m.phx2 * dfz;
        let ex = ((m.pex1 + m.pex2 * dfz + m.pex3 * dfz * dfz)
            * (1.0 - m.pex4 * if kx < 0.0 { -1.0 } else { 1.0 }))
        .min(1.0);
        let svx = fz * (m.pvx1 + m.pvx2 * dfz) * grip.mu_x;
        let fx0 = dx * magic(bx, m.pcx1, ex, kx).sin() + svx;
        let phi_x = {
            let b = bx * kx;
            b - ex * (b - b.atan())
        };
        let dfx0 = dx * (m.pcx1 * phi_x.atan()).cos() * m.pcx1 / (1.0 + phi_x * phi_x)
            * bx
            * (1.0 - ex + ex / (1.0 + (bx * kx).powi(2)));
        // Lateral.
        let mu_y = (m.pdy1 + m.pdy2 * dfz) * grip.mu_y;
        let dy = mu_y * fz;
        let ky = m.pky1 * m.fnomin * (m.pky4 * (fz / (m.pky2 * m.fnomin)).atan()).sin();
        let by = ky / (m.pcy1 * dy + EPS);
        let shy = m.phy1 + m.phy2 * dfz;
        let svy = fz * (m.pvy1 + m.pvy2 * dfz) * grip.mu_y;
        let ay = alpha + shy;
        let ey =
            ((m.pey1 + m.pey2 * dfz) * (1.0 - m.pey3 * if ay < 0.0 { -1.0 } else { 1.0 })).min(1.0);
        let fy0 = dy * magic(by, m.pcy1, ey, ay).sin() + svy;
        // Weighting functions.
        let bxa = m.rbx1 * (m.rbx2 * kappa).atan().cos();
        let exa = (m.rex1 + m.rex2 * dfz).min(1.0);
        let gxa =
            magic(bxa, m.rcx1, exa, alpha + m.rhx1).cos() / magic(bxa, m.rcx1, exa, m.rhx1).cos();
        let byk = m.rby1 * (m.rby2 * (alpha - m.rby3)).atan().cos();
        let eyk = (m.rey1 + m.rey2 * dfz).min(1.0);
        let shyk = m.rhy1 + m.rhy2 * dfz;
        let gyk = magic(byk, m.rcy1, eyk, kappa + shyk).cos() / magic(byk, m.rcy1, eyk, shyk).cos();
        let dvyk = mu_y * fz * (m.rvy1 + m.rvy2 * dfz) * (m.rvy4 * alpha).atan().cos();
        let svyk = dvyk * (m.rvy5 * (m.rvy6 * kappa).atan()).sin();
        let fx = gxa * fx0;
        let fy = gyk * fy0 + svyk;
        // Aligning moment.
        let cos_alpha = alpha.atan().cos();
        let ky_safe = ky + sign(ky) * EPS;
        let kk = (kx_stiff / ky_safe * kappa).powi(2);
        let alpha_t = alpha + m.qhz1 + m.qhz2 * dfz;
        let alpha_r = alpha + shy + svy / ky_safe;
        let alpha_t_eq = (alpha_t * alpha_t + kk).sqrt() * sign(alpha_t);
        let alpha_r_eq = (alpha_r * alpha_r + kk).sqrt() * sign(alpha_r);
        let bt = (m.qbz1 + m.qbz2 * dfz + m.qbz3 * dfz * dfz) / grip.mu_y;
        let dt = fz * m.r0 / m.fnomin * (m.qdz1 + m.qdz2 * dfz);
        let et = ((m.qez1 + m.qez2 * dfz + m.qez3 * dfz * dfz)
            * (1.0 + m.qez4 * std::f64::consts::FRAC_2_PI * (bt * m.qcz1 * alpha_t).atan()))
        .min(1.0);
        let trail = dt * magic(bt, m.qcz1, et, alpha_t_eq).cos() * cos_alpha;
        let br = m.qbz9 / grip.mu_y + m.qbz10 * by * m.pcy1;
        let dr = fz * m.r0 * (m.qdz6 + m.qdz7 * dfz) * grip.mu_y * cos_alpha;
        let mzr = dr * (br * alpha_r_eq).atan().cos() * cos_alpha;
        let arm = m.r0 * (m.ssz1 + m.ssz2 * fy / m.fnomin);
        TyreForces {
            fx,
            dfx_dkappa: gxa * dfx0,
            fy,
            mz: -trail * (fy - svyk) + mzr + arm * fx,
        }
    }

    fn close(ours: f64, reference: f64, relative: f64, absolute: f64) -> bool {
        (ours - reference).abs() <= absolute.max(relative * reference.abs())
    }

    proptest::proptest! {
        /// Four different operating points in the four lanes: each lane equals the scalar
        /// evaluation of its point (no lane leaks into another) and the textbook equations.
        #[test]
        fn four_lanes_equal_the_scalar_and_the_textbook_evaluation(
            kappa in proptest::array::uniform4(-1.5f64..1.5),
            tan_alpha in proptest::array::uniform4(-1.5f64..1.5),
            load in proptest::array::uniform4(100.0f64..12_000.0),
            grip in proptest::array::uniform4(0.3f64..1.5),
        ) {
            let m = &PACEJKA_2006_205_60R15;
            let p = m.prepare();
            let lanes = F64x4::from_array;
            let four = p.combined4(
                lanes(kappa),
                lanes(tan_alpha),
                lanes(load),
                lanes(grip) * 1.1,
                lanes(grip),
            );
            for i in 0..4 {
                let scale = GripScale { mu_x: grip[i] * 1.1, mu_y: grip[i] };
                let scalar = p.combined(kappa[i], tan_alpha[i], load[i], scale);
                let reference = textbook(m, kappa[i], tan_alpha[i], load[i], scale);
                for (ours, single, plain) in [
                    (four[i].fx, scalar.fx, reference.fx),
                    (four[i].dfx_dkappa, scalar.dfx_dkappa, reference.dfx_dkappa),
                    (four[i].fy, scalar.fy, reference.fy),
                    (four[i].mz, scalar.mz, reference.mz),
                ] {
                    proptest::prop_assert!(close(ours, single, 1e-12, 1e-9), "lane {i}: {ours} vs scalar {single}");
                    proptest::prop_assert!(close(ours, plain, 1e-12, 1e-9), "lane {i}: {ours} vs textbook {plain}");
                }
            }
        }
    }

    #[test]
    fn curved_weighting_functions_match_the_textbook() {
        // The published set has no weighting curvature (REX*, REY* = 0); one that has takes
        // the curved arguments' own atans.
        let m = Mf61 {
            rex1: 0.3,
            rex2: -0.1,
            rey1: -0.4,
            rey2: 0.2,
            ..PACEJKA_2006_205_60R15
        };
        let p = m.prepare();
        for kappa in [-0.4, -0.05, 0.0, 0.02, 0.3] {
            for tan_alpha in [-0.3, -0.01, 0.0, 0.05, 0.4] {
                for load in [1500.0, 4000.0, 9000.0] {
                    let grip = GripScale {
                        mu_x: 0.9,
                        mu_y: 1.1,
                    };
                    let ours = p.combined(kappa, tan_alpha, load, grip);
                    let plain = textbook(&m, kappa, tan_alpha, load, grip);
                    let flat = PACEJKA_2006_205_60R15.combined(kappa, tan_alpha, load, grip);
                    for (a, b) in [
                        (ours.fx, plain.fx),
                        (ours.dfx_dkappa, plain.dfx_dkappa),
                        (ours.fy, plain.fy),
                        (ours.mz, plain.mz),
                    ] {
                        assert!(close(a, b, 1e-12, 1e-9), "{a} vs textbook {b}");
                    }
                    // The curvature does change the weighted forces where there is combined slip.
                    if kappa != 0.0 && tan_alpha != 0.0 {
                        assert_ne!(ours.fx, flat.fx);
                    }
                }
            }
        }
    }

    #[test]
    fn lanes_without_load_or_grip_give_zero_and_leave_the_others_alone() {
        let p = PACEJKA_2006_205_60R15.prepare();
        let lanes = F64x4::from_array;
        let four = p.combined4(
            lanes([0.05; 4]),
            lanes([0.1; 4]),
            lanes([4000.0, 0.0, f64::NAN, 4000.0]),
            lanes([1.0, 1.0, 1.0, 0.0]),
            F64x4::splat(1.0),
        );
        let loaded = p.combined(0.05, 0.1, 4000.0, GripScale::UNITY);
        assert_eq!(four[0], loaded);
        assert!(loaded.fx > 1000.0 && loaded.fy.abs() > 1000.0);
        for forces in &four[1..] {
            assert_eq!(*forces, TyreForces::default());
        }
    }
}
