//! The implicit driveline step: a few rotational degrees of freedom coupled by friction joints
//! (clutch, differential locks, brakes, engine drag), solved exactly for the end-of-step speeds.
//!
//! The problem: `M v1 = p + sum_k row_k^T P_k` where `M` (SPD, <= [`MAX_DOFS`]) holds the
//! inertias plus the implicit tyre slopes and viscous terms (`I - dt dT/domega`), `p` the
//! momentum after explicit torques, and `P_k = lambda_k dt` the impulse of joint `k` whose
//! relative speed is `row_k . v1`. Each joint is Coulomb friction with capacity `C_k`:
//! either *locked* (relative speed 0, `|lambda| <= C`) or *slipping* (`lambda = -C sign(speed)`).
//! This is Racer's velocity-reversal rule made exact: a slipping joint whose speed would cross
//! zero within the step locks at exactly zero; a locked joint unlocks only when the torque it
//! must carry exceeds its capacity. Locked joints make their inertias move as one group
//! (the solve works on the constraint space), so stiff couplings cost nothing in stability.
//!
//! Method: Cholesky of `M`, the joint-space (Delassus) matrix `W = R M^-1 R^T`, then an active
//! set: start from last step's lock states, solve the locked joints' impulses, change the first
//! violated joint (least index, so it terminates), repeat. Redundant locks (engine stalled,
//! clutch and brakes all locked) are dropped from the factorisation (they carry no torque).
//!
//! Warm start ([`Solver::solve`]): the first guess usually holds (clutch locked, engine drag and
//! gear loss slipping, diffs as they were), so it is tried first on its own: the slipping
//! joints' known impulses join the momentum and only the locked joints' system (typically 1x1)
//! is solved, without the full Delassus matrix. If every joint's condition holds, that is the
//! answer the full search gives in its first iteration (same to round-off; a property test
//! compares them); otherwise the full search runs from the same guess.
//!
//! Fixed-size arrays in a [`Solver`] held across steps: no allocation, and a step writes only
//! the entries it uses.

// Dense small-matrix code reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

/// Most rotational degrees of freedom (engine, centre carrier and three speed differences).
pub const MAX_DOFS: usize = 5;
/// Most friction joints (clutch, engine drag, gear loss, three diffs, four brakes).
pub const MAX_JOINTS: usize = 10;
/// Relative speed below which a joint counts as not moving, rad/s.
pub const SPEED_EPS: f64 = 1e-9;
/// Iteration cap of the active set (each iteration changes one joint).
const MAX_ITERATIONS: usize = 3 * MAX_JOINTS;

/// One friction joint.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Joint {
    /// Relative speed = `row . v`.
    pub row: [f64; MAX_DOFS],
    /// Torque capacity, N m (`f64::INFINITY` for a rigid joint).
    pub capacity_nm: f64,
    /// Locked at the end of the previous step.
    pub was_locked: bool,
}

/// The step's linear system and joints.
#[derive(Debug, Clone, Copy, Default)]
pub struct Problem {
    /// Degrees of freedom in use.
    pub dofs: usize,
    /// Effective inertia matrix, symmetric, kg m^2: only the lower triangle (row >= column) of
    /// the `dofs x dofs` block is read.
    pub mass: [[f64; MAX_DOFS]; MAX_DOFS],
    /// Momentum after explicit torques, N m s.
    pub momentum: [f64; MAX_DOFS],
    /// Speeds at the start of the step (for the slip directions), rad/s.
    pub start_velocity: [f64; MAX_DOFS],
    /// Joints in use.
    pub joints: [Joint; MAX_JOINTS],
    /// Number of joints in use.
    pub joint_count: usize,
}

/// The solved step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Solution {
    /// Speeds at the end of the step, rad/s.
    pub velocity: [f64; MAX_DOFS],
    /// Joint torques, N m (generalised force `row^T lambda`).
    pub torque_nm: [f64; MAX_JOINTS],
    /// Joint lock states.
    pub locked: [bool; MAX_JOINTS],
}

/// Lower-triangular Cholesky factor of an `n x n` symmetric positive semi-definite matrix (in
/// place). A pivot that vanishes (relative to its diagonal) marks a row that depends on the
/// earlier ones; it is set to infinity so [`cholesky_solve`] gives that row zero, which is
/// exact for redundant but consistent constraints.
#[inline(always)]
fn cholesky<const N: usize>(a: &mut [[f64; N]; N], n: usize) {
    for j in 0..n {
        let diagonal = a[j][j];
        let mut d = diagonal;
        for k in 0..j {
            d -= a[j][k] * a[j][k];
        }
        let d = if d > 1e-10 * diagonal.abs() && d > 0.0 {
            d.sqrt()
        } else {
            f64::INFINITY
        };
        a[j][j] = d;
        for i in j + 1..n {
            let mut s = a[i][j];
            for k in 0..j {
                s -= a[i][k] * a[j][k];
            }
            a[i][j] = s / d;
        }
    }
}

/// Solves `L L^T x = b` for the factor from [`cholesky`].
#[inline(always)]
fn cholesky_solve<const N: usize>(l: &[[f64; N]; N], n: usize, b: &[f64; N]) -> [f64; N] {
    let mut y = [0.0; N];
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= l[i][k] * y[k];
        }
        y[i] = s / l[i][i];
    }
    let mut x = [0.0; N];
    for i in (0..n).rev() {
        let mut s = y[i];
        for k in i + 1..n {
            s -= l[k][i] * x[k];
        }
        x[i] = s / l[i][i];
    }
    x
}

/// Whether a locked joint's `impulse` exceeds its capacity `cap` (both per step, N m s), with
/// the round-off allowance every path of the solve uses.
#[inline(always)]
pub fn exceeds(impulse: f64, cap: f64) -> bool {
    impulse.abs() > cap * (1.0 + 1e-9) + 1e-12
}

/// The first `N` entries of `a`.
#[inline(always)]
fn head<const N: usize>(a: &[f64; MAX_DOFS]) -> [f64; N] {
    std::array::from_fn(|i| a[i])
}

/// `a . b` over the first `N` entries of `a`.
#[inline(always)]
fn dot_head<const N: usize>(a: &[f64; MAX_DOFS], b: &[f64; N]) -> f64 {
    let mut s = 0.0;
    for i in 0..N {
        s += a[i] * b[i];
    }
    s
}

#[inline(always)]
fn dot(a: &[f64; MAX_DOFS], b: &[f64; MAX_DOFS], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += a[i] * b[i];
    }
    s
}

/// Working memory of the solver, held across steps so a step clears nothing it does not use,
/// and the result of the last solve.
///
/// Only the first `dofs` / `joint_count` entries of every array are meaningful after a solve;
/// the rest keep stale values from earlier steps and are never read.
#[derive(Debug, Clone)]
pub struct Solver {
    factor: [[f64; MAX_DOFS]; MAX_DOFS],
    response: [[f64; MAX_DOFS]; MAX_JOINTS],
    delassus: [[f64; MAX_JOINTS]; MAX_JOINTS],
    locked_matrix: [[f64; MAX_JOINTS]; MAX_JOINTS],
    locked_rhs: [f64; MAX_JOINTS],
    locked_idx: [usize; MAX_JOINTS],
    v_free: [f64; MAX_JOINTS],
    cap: [f64; MAX_JOINTS],
    sign: [f64; MAX_JOINTS],
    impulse: [f64; MAX_JOINTS],
    solution: Solution,
    warm_start_held: bool,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::new()
    }
}

impl Solver {
    /// A solver with cleared memory.
    pub fn new() -> Solver {
        Solver {
            factor: [[0.0; MAX_DOFS]; MAX_DOFS],
            response: [[0.0; MAX_DOFS]; MAX_JOINTS],
            delassus: [[0.0; MAX_JOINTS]; MAX_JOINTS],
            locked_matrix: [[0.0; MAX_JOINTS]; MAX_JOINTS],
            locked_rhs: [0.0; MAX_JOINTS],
            locked_idx: [0; MAX_JOINTS],
            v_free: [0.0; MAX_JOINTS],
            cap: [0.0; MAX_JOINTS],
            sign: [0.0; MAX_JOINTS],
            impulse: [0.0; MAX_JOINTS],
            solution: Solution::default(),
            warm_start_held: false,
        }
    }

    /// Whether the last [`Solver::solve`] was answered by the warm start alone (the first
    /// guess of lock states verified) rather than by the full active-set search.
    pub fn warm_start_held(&self) -> bool {
        self.warm_start_held
    }

    /// The result of the last solve.
    pub fn solution(&self) -> &Solution {
        &self.solution
    }

    /// Solves one step; `dt_s` converts capacities to impulses.
    ///
    /// Warm start: the first guess of lock states (last step's locks, slipping joints in the
    /// direction they moved at the start of the step; the same guess [`Solver::solve_full`]
    /// starts from) is evaluated on the locked joints alone and verified against every joint's
    /// condition. If it holds, that is the solution the full search would stop at in its first
    /// iteration (the same to round-off); otherwise the full search runs.
    pub fn solve(&mut self, problem: &Problem, dt_s: f64) -> &Solution {
        let held = match problem.dofs {
            0 => self.warm_dofs::<0>(problem, dt_s),
            1 => self.warm_dofs::<1>(problem, dt_s),
            2 => self.warm_dofs::<2>(problem, dt_s),
            3 => self.warm_dofs::<3>(problem, dt_s),
            4 => self.warm_dofs::<4>(problem, dt_s),
            _ => self.warm_dofs::<MAX_DOFS>(problem, dt_s),
        };
        self.warm_start_held = held;
        if !held {
            self.full(problem, dt_s);
        }
        &self.solution
    }

    /// Solves one step with the full active-set search only (the reference the warm start of
    /// [`Solver::solve`] must agree with).
    pub fn solve_full(&mut self, problem: &Problem, dt_s: f64) -> &Solution {
        self.warm_start_held = false;
        self.full(problem, dt_s);
        &self.solution
    }

    fn full(&mut self, problem: &Problem, dt_s: f64) {
        // The degree-of-freedom count as a constant: the small dense loops unroll (same
        // operations in the same order as a run-time count, so the same bits).
        match problem.dofs {
            0 => self.full_dofs::<0>(problem, dt_s),
            1 => self.full_dofs::<1>(problem, dt_s),
            2 => self.full_dofs::<2>(problem, dt_s),
            3 => self.full_dofs::<3>(problem, dt_s),
            4 => self.full_dofs::<4>(problem, dt_s),
            _ => self.full_dofs::<MAX_DOFS>(problem, dt_s),
        }
    }

    /// The warm start for `DOFS` degrees of freedom: slipping joints' impulses are known, so
    /// they join the momentum and only the locked joints' (usually 1x1) system is solved.
    /// Writes the solution and returns true when the guess satisfies every joint's condition
    /// (the tests of [`Solver::full_dofs`]); false leaves the solution to the full search.
    fn warm_dofs<const DOFS: usize>(&mut self, problem: &Problem, dt_s: f64) -> bool {
        let m = problem.joint_count;
        let joints = &problem.joints[..m];
        let mut factor: [[f64; DOFS]; DOFS] = std::array::from_fn(|i| head(&problem.mass[i]));
        cholesky(&mut factor, DOFS);
        let start_velocity: [f64; DOFS] = head(&problem.start_velocity);
        let mut momentum: [f64; DOFS] = head(&problem.momentum);
        let mut nl = 0;
        for (k, joint) in joints.iter().enumerate() {
            let cap = joint.capacity_nm * dt_s;
            // The guess of the full search (locked if it was, if rigid, or if not moving).
            let sign = if joint.was_locked || cap.is_infinite() {
                0.0
            } else {
                let v0 = dot_head(&joint.row, &start_velocity);
                if v0.abs() <= SPEED_EPS {
                    0.0
                } else {
                    v0.signum()
                }
            };
            self.cap[k] = cap;
            self.sign[k] = sign;
            if sign == 0.0 {
                self.locked_idx[nl] = k;
                nl += 1;
            } else {
                let impulse = -sign * cap;
                self.impulse[k] = impulse;
                for i in 0..DOFS {
                    momentum[i] += joint.row[i] * impulse;
                }
            }
        }
        // Speeds under the slipping joints' impulses alone, then the locked joints' impulses
        // that bring their relative speeds to zero.
        let mut velocity = cholesky_solve(&factor, DOFS, &momentum);
        if nl == 1 {
            // One lock (the usual clutch): the 1x1 case of the general code below, same
            // operations without its fixed-size scratch.
            let k = self.locked_idx[0];
            let row = &joints[k].row;
            let response = cholesky_solve(&factor, DOFS, &head(row));
            let diagonal = dot_head(row, &response);
            let pivot = if diagonal > 1e-10 * diagonal.abs() && diagonal > 0.0 {
                diagonal.sqrt()
            } else {
                f64::INFINITY
            };
            let impulse = -dot_head(row, &velocity) / pivot / pivot;
            if exceeds(impulse, self.cap[k]) {
                return false;
            }
            self.impulse[k] = impulse;
            for i in 0..DOFS {
                velocity[i] += response[i] * impulse;
            }
        } else if nl > 1 {
            for r in 0..nl {
                let row = &joints[self.locked_idx[r]].row;
                let response = cholesky_solve(&factor, DOFS, &head(row));
                self.response[r][..DOFS].copy_from_slice(&response);
                for c in 0..=r {
                    let value = dot_head(row, &head::<DOFS>(&self.response[c]));
                    self.locked_matrix[r][c] = value;
                    self.locked_matrix[c][r] = value;
                }
                self.locked_rhs[r] = -dot_head(row, &velocity);
            }
            cholesky(&mut self.locked_matrix, nl);
            let locked_impulse = cholesky_solve(&self.locked_matrix, nl, &self.locked_rhs);
            for r in 0..nl {
                let k = self.locked_idx[r];
                let impulse = locked_impulse[r];
                if exceeds(impulse, self.cap[k]) {
                    return false;
                }
                self.impulse[k] = impulse;
                for i in 0..DOFS {
                    velocity[i] += self.response[r][i] * impulse;
                }
            }
        }
        for (k, joint) in joints.iter().enumerate() {
            let sign = self.sign[k];
            if sign != 0.0 && sign * dot_head(&joint.row, &velocity) < -SPEED_EPS {
                return false;
            }
        }
        self.solution.velocity[..DOFS].copy_from_slice(&velocity);
        for k in 0..m {
            self.solution.torque_nm[k] = self.impulse[k] / dt_s;
            self.solution.locked[k] = self.sign[k] == 0.0;
        }
        true
    }

    /// The full active-set search for `DOFS` degrees of freedom.
    fn full_dofs<const DOFS: usize>(&mut self, problem: &Problem, dt_s: f64) {
        let n = DOFS;
        let m = problem.joint_count;
        let factor = &mut self.factor;
        *factor = problem.mass;
        cholesky(factor, n);
        let free = cholesky_solve(factor, n, &problem.momentum);

        // Response of the speeds to a unit impulse of each joint, and the Delassus matrix.
        let response = &mut self.response;
        let w = &mut self.delassus;
        let v_free = &mut self.v_free;
        let cap = &mut self.cap;
        let sign = &mut self.sign; // 0: locked, +-1: slipping in that direction
        for k in 0..m {
            let joint = &problem.joints[k];
            response[k] = cholesky_solve(factor, n, &joint.row);
            v_free[k] = dot(&joint.row, &free, n);
            cap[k] = joint.capacity_nm * dt_s;
            let v0 = dot(&joint.row, &problem.start_velocity, n);
            sign[k] = if joint.was_locked || v0.abs() <= SPEED_EPS || cap[k].is_infinite() {
                0.0
            } else {
                v0.signum()
            };
        }
        for j in 0..m {
            for k in 0..=j {
                let value = dot(&problem.joints[j].row, &response[k], n);
                w[j][k] = value;
                w[k][j] = value;
            }
        }

        let impulse = &mut self.impulse;
        impulse[..m].fill(0.0);
        let locked_idx = &mut self.locked_idx;
        let a = &mut self.locked_matrix;
        let rhs = &mut self.locked_rhs;
        for _ in 0..MAX_ITERATIONS {
            // Slipping joints: impulse at capacity against their motion.
            let mut nl = 0;
            for k in 0..m {
                if sign[k] == 0.0 {
                    locked_idx[nl] = k;
                    nl += 1;
                } else {
                    impulse[k] = -sign[k] * cap[k];
                }
            }
            // Locked joints: relative speed zero.
            for (r, &j) in locked_idx[..nl].iter().enumerate() {
                let mut target = -v_free[j];
                for k in 0..m {
                    if sign[k] != 0.0 {
                        target -= w[j][k] * impulse[k];
                    }
                }
                rhs[r] = target;
                for (c, &k) in locked_idx[..nl].iter().enumerate() {
                    a[r][c] = w[j][k];
                }
            }
            cholesky(a, nl);
            let locked_impulse = cholesky_solve(a, nl, rhs);
            for (r, &j) in locked_idx[..nl].iter().enumerate() {
                impulse[j] = locked_impulse[r];
            }
            // First violated joint changes state.
            let mut changed = false;
            for k in 0..m {
                if sign[k] == 0.0 {
                    if exceeds(impulse[k], cap[k]) {
                        sign[k] = -impulse[k].signum();
                        changed = true;
                        break;
                    }
                } else {
                    let mut v = v_free[k];
                    for j in 0..m {
                        v += w[k][j] * impulse[j];
                    }
                    if sign[k] * v < -SPEED_EPS {
                        sign[k] = 0.0;
                        changed = true;
                        break;
                    }
                }
            }
            if !changed {
                break;
            }
        }

        let solution = &mut self.solution;
        solution.velocity = free;
        for k in 0..m {
            for i in 0..n {
                solution.velocity[i] += response[k][i] * impulse[k];
            }
            solution.torque_nm[k] = impulse[k] / dt_s;
            solution.locked[k] = sign[k] == 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Solves with the warm start and with the full search, checks they agree, returns the
    /// warm start's answer.
    fn solved(p: &Problem) -> Solution {
        let warm = *Solver::new().solve(p, 0.001);
        let full = *Solver::new().solve_full(p, 0.001);
        let m = p.joint_count;
        assert_eq!(warm.locked[..m], full.locked[..m]);
        for i in 0..p.dofs {
            assert!(
                (warm.velocity[i] - full.velocity[i]).abs() < 1e-12,
                "{warm:?} {full:?}"
            );
        }
        warm
    }

    fn single(inertia: f64, omega: f64, torque: f64, capacity: f64) -> (f64, bool) {
        let mut p = Problem {
            dofs: 1,
            ..Problem::default()
        };
        p.mass[0][0] = inertia;
        p.momentum[0] = inertia * omega + 0.001 * torque;
        p.start_velocity[0] = omega;
        p.joints[0] = Joint {
            row: [1.0, 0.0, 0.0, 0.0, 0.0],
            capacity_nm: capacity,
            was_locked: false,
        };
        p.joint_count = 1;
        let s = solved(&p);
        (s.velocity[0], s.locked[0])
    }

    #[test]
    fn brake_stops_exactly_at_zero_instead_of_reversing() {
        // 1 kg m^2 at 0.5 rad/s, 1000 N m brake: one explicit step would reach -0.5.
        let (omega, locked) = single(1.0, 0.5, 0.0, 1000.0);
        assert_eq!(omega, 0.0);
        assert!(locked);
    }

    #[test]
    fn brake_slips_when_capacity_is_short() {
        let (omega, locked) = single(1.0, 10.0, 0.0, 1000.0);
        assert!((omega - 9.0).abs() < 1e-12);
        assert!(!locked);
    }

    #[test]
    fn locked_joint_unlocks_only_above_capacity() {
        // At rest, 300 N m pushing against a 500 N m hold: stays. 600 N m: moves with 100.
        assert_eq!(single(1.0, 0.0, 300.0, 500.0), (0.0, true));
        let (omega, locked) = single(1.0, 0.0, 600.0, 500.0);
        assert!((omega - 0.1).abs() < 1e-12 && !locked);
    }

    #[test]
    fn redundant_locks_stay_finite_and_still() {
        // Two DOFs, three locks over-constraining them.
        let mut p = Problem {
            dofs: 2,
            ..Problem::default()
        };
        p.mass[0][0] = 0.2;
        p.mass[1][1] = 2.0;
        p.momentum = [0.001 * 50.0, -0.001 * 20.0, 0.0, 0.0, 0.0];
        p.joints[0] = Joint {
            row: [1.0, -5.0, 0.0, 0.0, 0.0],
            capacity_nm: 400.0,
            was_locked: true,
        };
        p.joints[1] = Joint {
            row: [1.0, 0.0, 0.0, 0.0, 0.0],
            capacity_nm: 30.0,
            was_locked: true,
        };
        p.joints[2] = Joint {
            row: [0.0, 1.0, 0.0, 0.0, 0.0],
            capacity_nm: 3000.0,
            was_locked: true,
        };
        p.joint_count = 3;
        let s = solved(&p);
        assert!(
            s.velocity[0].abs() < 1e-9 && s.velocity[1].abs() < 1e-9,
            "{s:?}"
        );
        assert!(s.torque_nm[..3].iter().all(|t| t.is_finite()));
    }
}
