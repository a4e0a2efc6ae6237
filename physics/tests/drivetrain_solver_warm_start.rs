//! The driveline solver's warm start (`Solver::solve`) gives the full active-set search's answer
//! (`Solver::solve_full`) to round-off: the same lock states and the same speeds and torques
//! within 1e-9 of their scale, on random problems (cold: arbitrary lock memory; warm: the next
//! step of an already solved problem, the case the warm start exists for), and the common
//! driveline states (clutch locked, engine drag and gear loss slipping, diffs open or locked)
//! are answered by the warm start alone.

// Dense small-matrix code reads best with explicit indices.
#![allow(clippy::needless_range_loop)]

use proptest::prelude::*;
use rig_physics::drivetrain::solver::{Joint, Problem, Solution, Solver, MAX_DOFS, MAX_JOINTS};

const DT_S: f64 = 0.001;

/// Entries of generated joint and coupling rows (the layouts use 0, +-0.5, +-1 and gear ratios).
const ROW_ENTRIES: [f64; 7] = [0.0, 1.0, -1.0, 0.5, -0.5, 0.35, -0.65];

fn scale(values: &[f64]) -> f64 {
    values.iter().fold(1.0, |m, v| m.max(v.abs()))
}

/// Asserts that the two solutions agree; returns a description of the first difference.
fn compare(problem: &Problem, warm: &Solution, full: &Solution) -> Result<(), String> {
    let n = problem.dofs;
    let m = problem.joint_count;
    let v_scale = scale(&full.velocity[..n]);
    let t_scale = scale(&full.torque_nm[..m]);
    for i in 0..n {
        if (warm.velocity[i] - full.velocity[i]).abs() > 1e-9 * v_scale {
            return Err(format!("speed {i}: warm {warm:?} full {full:?}"));
        }
    }
    for k in 0..m {
        if warm.locked[k] != full.locked[k] {
            return Err(format!("lock {k}: warm {warm:?} full {full:?}"));
        }
        if (warm.torque_nm[k] - full.torque_nm[k]).abs() > 1e-9 * t_scale {
            return Err(format!("torque {k}: warm {warm:?} full {full:?}"));
        }
    }
    Ok(())
}

/// Solves with the warm start and with the full search; returns whether the warm start held.
fn check(problem: &Problem) -> Result<bool, String> {
    let mut warm_solver = Solver::new();
    let warm = *warm_solver.solve(problem, DT_S);
    let held = warm_solver.warm_start_held();
    let full = *Solver::new().solve_full(problem, DT_S);
    compare(problem, &warm, &full).map(|()| held)
}

#[derive(Debug, Clone)]
struct JointSeed {
    row: [usize; MAX_DOFS],
    capacity_nm: f64,
    rigid: bool,
    was_locked: bool,
}

fn joint_seed() -> impl Strategy<Value = JointSeed> {
    (
        prop::array::uniform5(0..ROW_ENTRIES.len()),
        0.01..3000.0f64,
        prop::bool::weighted(0.1),
        any::<bool>(),
    )
        .prop_map(|(row, capacity_nm, rigid, was_locked)| JointSeed {
            row,
            capacity_nm,
            rigid,
            was_locked,
        })
}

/// A random driveline-like problem: positive inertias plus rank-one couplings (tyre slopes,
/// viscous terms) for the mass matrix, joints with rows from the layouts' entries.
fn problem() -> impl Strategy<Value = Problem> {
    (
        1..=MAX_DOFS,
        prop::array::uniform5(0.02..5.0f64),
        prop::collection::vec(
            (prop::array::uniform5(0..ROW_ENTRIES.len()), 0.0..20.0f64),
            0..3,
        ),
        prop::array::uniform5(-40.0..40.0f64),
        prop::array::uniform5(-300.0..300.0f64),
        prop::array::uniform5(prop::bool::weighted(0.2)),
        prop::collection::vec(joint_seed(), 0..=MAX_JOINTS),
    )
        .prop_map(
            |(dofs, inertias, couplings, momentum, start, still, joints)| {
                let mut p = Problem {
                    dofs,
                    ..Problem::default()
                };
                for i in 0..dofs {
                    p.mass[i][i] = inertias[i];
                    p.momentum[i] = momentum[i];
                    p.start_velocity[i] = if still[i] { 0.0 } else { start[i] };
                }
                for (entries, weight) in couplings {
                    let row = entries.map(|e| ROW_ENTRIES[e]);
                    for i in 0..dofs {
                        for j in 0..dofs {
                            p.mass[i][j] += weight * row[i] * row[j];
                        }
                    }
                }
                for seed in joints {
                    let mut row = [0.0; MAX_DOFS];
                    for i in 0..dofs {
                        row[i] = ROW_ENTRIES[seed.row[i]];
                    }
                    if row.iter().all(|&r| r == 0.0) {
                        row[0] = 1.0;
                    }
                    p.joints[p.joint_count] = Joint {
                        row,
                        capacity_nm: if seed.rigid {
                            f64::INFINITY
                        } else {
                            seed.capacity_nm
                        },
                        was_locked: seed.was_locked,
                    };
                    p.joint_count += 1;
                }
                p
            },
        )
}

/// The step after `problem`: lock memory and start speeds from its full solution, the momentum
/// those speeds carry plus `torques_nm` for one step, capacities scaled by `capacity_scale`.
fn next_step(problem: &Problem, torques_nm: [f64; MAX_DOFS], capacity_scale: f64) -> Problem {
    let solution = *Solver::new().solve_full(problem, DT_S);
    let mut next = *problem;
    let n = problem.dofs;
    for i in 0..n {
        next.start_velocity[i] = solution.velocity[i];
        next.momentum[i] = DT_S * torques_nm[i];
        for j in 0..n {
            next.momentum[i] += problem.mass[i][j] * solution.velocity[j];
        }
    }
    for k in 0..problem.joint_count {
        next.joints[k].was_locked = solution.locked[k];
        next.joints[k].capacity_nm *= capacity_scale;
    }
    next
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn warm_start_agrees_with_the_full_search_on_any_problem(p in problem()) {
        check(&p).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn warm_start_agrees_with_the_full_search_on_the_next_step(
        p in problem(),
        torques in prop::array::uniform5(-200.0..200.0f64),
        capacity_scale in 0.9..1.1f64,
    ) {
        let next = next_step(&p, torques, capacity_scale);
        check(&next).map_err(TestCaseError::fail)?;
    }
}

/// A rear-drive driveline in the solver's coordinates (engine, carrier, axle delta) on the move:
/// clutch locked at gear ratio 3.2, engine drag and gear loss slipping, rear wheels with tyre
/// slopes, the diff as given.
fn rwd_cruising(diff_capacity_nm: Option<f64>, diff_locked: bool) -> Problem {
    let ratio = 3.2;
    let carrier = 60.0;
    let (wheel_inertia, slope) = (1.2, -900.0);
    let wheel = wheel_inertia - DT_S * slope;
    let mut p = Problem {
        dofs: 3,
        ..Problem::default()
    };
    p.mass[0][0] = 0.2;
    p.mass[1][1] = 2.0 * wheel;
    p.mass[2][2] = 0.5 * wheel;
    p.start_velocity = [ratio * carrier, carrier, 0.0, 0.0, 0.0];
    p.momentum = [
        0.2 * ratio * carrier + DT_S * 150.0,
        2.0 * wheel_inertia * carrier + DT_S * (-400.0 - 2.0 * slope * carrier),
        DT_S * 3.0,
        0.0,
        0.0,
    ];
    let mut add = |row: [f64; MAX_DOFS], capacity_nm: f64, was_locked: bool| {
        p.joints[p.joint_count] = Joint {
            row,
            capacity_nm,
            was_locked,
        };
        p.joint_count += 1;
    };
    add([1.0, -ratio, 0.0, 0.0, 0.0], 400.0, true);
    add([1.0, 0.0, 0.0, 0.0, 0.0], 25.0, false);
    add([0.0, 1.0, 0.0, 0.0, 0.0], 20.0, false);
    if let Some(capacity) = diff_capacity_nm {
        add([0.0, 0.0, 1.0, 0.0, 0.0], capacity, diff_locked);
    }
    p
}

#[test]
fn common_driveline_states_are_answered_by_the_warm_start() {
    for (name, p) in [
        ("open diff", rwd_cruising(None, false)),
        ("spool", rwd_cruising(Some(f64::INFINITY), true)),
        ("locked LSD", rwd_cruising(Some(300.0), true)),
    ] {
        let held = check(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(held, "{name}: the warm start fell back to the full search");
        let solution = *Solver::new().solve(&p, DT_S);
        assert!(solution.locked[0], "{name}: clutch slipped");
        assert!(
            !solution.locked[1] && !solution.locked[2],
            "{name}: drag or gear loss locked"
        );
    }
}

#[test]
fn a_wrong_guess_falls_back_to_the_full_search() {
    // The clutch remembers being locked but the engine now pushes 5000 N m through it: it must
    // slip, which the warm start cannot see on its own.
    let mut p = rwd_cruising(None, false);
    p.momentum[0] += DT_S * 5000.0;
    let mut solver = Solver::new();
    let warm = *solver.solve(&p, DT_S);
    assert!(!solver.warm_start_held());
    assert!(!warm.locked[0], "clutch stayed locked beyond its capacity");
    check(&p).unwrap();
}
