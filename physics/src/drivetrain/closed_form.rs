//! The closed-form step of a one-axle driveline in its usual states (the fast path of
//! [`Drivetrain::step`]): the solver's warm-start equations written out for the engine, carrier
//! and axle-delta coordinates, with the warm start's acceptance tests, so the general problem
//! need not be built. Anything else returns `None` and takes the general path. The property
//! test here compares the two on random near-lock states.

use super::solver::{self, MAX_DOFS, SPEED_EPS};
use super::{
    engine, Drivetrain, WheelSpinInput, SLOTS, SLOT_BRAKE, SLOT_CLUTCH, SLOT_DIFF,
    SLOT_ENGINE_DRAG, SLOT_GEAR_LOSS,
};

/// [`Drivetrain::one_axle_closed_form`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct OneAxleStep {
    /// End speeds of the coordinates (engine, carrier, axle delta), rad/s.
    pub(super) velocity: [f64; MAX_DOFS],
    /// Joint torques by slot, N m.
    pub(super) slot_torque_nm: [f64; SLOTS],
    /// Which joints are in use.
    pub(super) slot_used: [bool; SLOTS],
    /// Which joints are locked (the clutch and the diff may be).
    pub(super) slot_locked: [bool; SLOTS],
}

impl Drivetrain {
    /// The usual states of a one-axle driveline in closed form: the brakes (and the rolling
    /// resistance the car applies through them) slipping on turning wheels, the clutch either
    /// locked last step or carrying nothing (neutral, pedal pressed), the differential open,
    /// viscous, or with its friction lock locked (spool, or locked last step) or slipping,
    /// engine drag and gear loss slipping the way they turn. These are the equations the
    /// solver's warm start solves for that guess (engine `e`, carrier `c`, axle delta `d`; the
    /// mass matrix is the engine inertia beside a 2x2 block, the clutch row `[1, -ratio, 0]`,
    /// the diff lock row `[0, 0, 1]`), with the same acceptance tests. `None` when the
    /// state is another one or the guess fails; then the general problem is built and solved.
    pub(super) fn one_axle_closed_form(
        &self,
        wheels: &[WheelSpinInput; 4],
        ratio: f64,
        torques: engine::EngineTorques,
        clutch_capacity_nm: f64,
        dt_s: f64,
    ) -> Option<OneAxleStep> {
        // The clutch joint exists in gear with some capacity (as in the general problem).
        let clutch_engaged = ratio != 0.0 && clutch_capacity_nm > 0.0;
        if clutch_engaged && !self.slot_locked[SLOT_CLUTCH] {
            return None;
        }
        let (index, place) = self
            .map
            .diffs
            .iter()
            .enumerate()
            .find_map(|(index, place)| place.map(|place| (index, place)))?;
        let diff_slot = SLOT_DIFF + index;
        let diff_capacity_nm = self.diff_capacity_nm(index, &place, wheels);
        let mut slot_used = [false; SLOTS];
        let mut slot_impulse = [0.0; SLOTS];
        let mut slot_sign = [0.0; SLOTS];
        // A joint guessed slipping: its direction and impulse, as the warm start guesses them;
        // `None` if the guess is a lock (then this is not the usual state).
        let mut slip = |slot: usize, capacity_nm: f64, speed: f64| -> Option<()> {
            // A joint exists with some capacity (as in the general problem; NaN is none).
            let exists = capacity_nm > 0.0;
            if !exists {
                return Some(());
            }
            if self.slot_locked[slot] || capacity_nm.is_infinite() || speed.abs() <= SPEED_EPS {
                return None;
            }
            let sign = speed.signum();
            slot_used[slot] = true;
            slot_sign[slot] = sign;
            slot_impulse[slot] = -sign * capacity_nm * dt_s;
            Some(())
        };
        let omega_e = self.engine.omega_radps;
        let coordinates = &self.map.coordinate_rows;
        let omegas = wheels.map(|input| input.omega_radps);
        let start = [
            omega_e,
            coordinates[1][0] * omegas[0]
                + coordinates[1][1] * omegas[1]
                + coordinates[1][2] * omegas[2]
                + coordinates[1][3] * omegas[3],
            coordinates[2][0] * omegas[0]
                + coordinates[2][1] * omegas[1]
                + coordinates[2][2] * omegas[2]
                + coordinates[2][3] * omegas[3],
        ];
        let axle = [place.wheels_a[0], place.wheels_b[0]];
        for w in axle {
            let row = &self.map.wheel_rows[w];
            let speed = row[0] * start[0] + row[1] * start[1] + row[2] * start[2];
            slip(SLOT_BRAKE + w, wheels[w].brake_torque_nm, speed)?;
        }
        slip(SLOT_ENGINE_DRAG, torques.drag_nm, omega_e)?;
        if ratio != 0.0 {
            slip(SLOT_GEAR_LOSS, self.gear_loss_nm(ratio), start[1])?;
        }
        // The diff's friction lock: locked as the warm start guesses it, else slipping.
        let diff_locked = diff_capacity_nm > 0.0
            && (self.slot_locked[diff_slot]
                || diff_capacity_nm.is_infinite()
                || start[2].abs() <= SPEED_EPS);
        if !diff_locked {
            slip(diff_slot, diff_capacity_nm, start[2])?;
        }

        // The 2x2 block of the wheels (rows `[0, 1, +-1/2]`) and its momentum, with the
        // slipping joints' impulses.
        let engine_inertia = self.engine.spec().inertia_kgm2;
        let p_e =
            engine_inertia * omega_e + dt_s * torques.drive_nm + slot_impulse[SLOT_ENGINE_DRAG];
        let (mut m_cc, mut m_cd, mut m_dd) = (0.0, 0.0, 0.0);
        let (mut p_c, mut p_d) = (slot_impulse[SLOT_GEAR_LOSS], slot_impulse[diff_slot]);
        for w in axle {
            let input = &wheels[w];
            let row = &self.map.wheel_rows[w];
            let inertia = input.inertia_kgm2 - dt_s * input.road_torque_slope;
            let momentum = input.inertia_kgm2 * input.omega_radps
                + dt_s * (input.road_torque_nm - input.road_torque_slope * input.omega_radps)
                + slot_impulse[SLOT_BRAKE + w];
            m_cc += inertia * row[1] * row[1];
            m_cd += inertia * row[1] * row[2];
            m_dd += inertia * row[2] * row[2];
            p_c += row[1] * momentum;
            p_d += row[2] * momentum;
        }
        m_dd += dt_s * self.couplings[index].viscous_coefficient();
        let det = m_cc * m_dd - m_cd * m_cd;
        // Well conditioned (the general factorisation's pivots are far from its rank test).
        let well_conditioned = det > 1e-6 * m_cc * m_dd;
        if !well_conditioned {
            return None;
        }

        let mut slot_locked = [false; SLOTS];
        // A joint held locked by `impulse`, or `None` when that is more than it can carry.
        let mut hold = |slot: usize, impulse: f64, capacity_nm: f64| -> Option<()> {
            if solver::exceeds(impulse, capacity_nm * dt_s) {
                return None;
            }
            slot_used[slot] = true;
            slot_locked[slot] = true;
            slot_impulse[slot] = impulse;
            Some(())
        };
        let mut velocity;
        if diff_locked {
            // Axle delta held at 0: the carrier alone, with the engine through the clutch; the
            // diff carries what keeps the delta still.
            velocity = [p_e / engine_inertia, p_c / m_cc, 0.0, 0.0, 0.0];
            if clutch_engaged {
                let carrier = (p_c + ratio * p_e) / (m_cc + ratio * ratio * engine_inertia);
                velocity[0] = ratio * carrier;
                velocity[1] = carrier;
                hold(
                    SLOT_CLUTCH,
                    engine_inertia * velocity[0] - p_e,
                    clutch_capacity_nm,
                )?;
            }
            hold(diff_slot, m_cd * velocity[1] - p_d, diff_capacity_nm)?;
        } else {
            velocity = [
                p_e / engine_inertia,
                (m_dd * p_c - m_cd * p_d) / det,
                (m_cc * p_d - m_cd * p_c) / det,
                0.0,
                0.0,
            ];
        }
        // The clutch impulse that locks it, and the speeds with it.
        if clutch_engaged && !diff_locked {
            let response = [
                1.0 / engine_inertia,
                -ratio * m_dd / det,
                ratio * m_cd / det,
            ];
            let delassus = response[0] - ratio * response[1];
            let impulse = -(velocity[0] - ratio * velocity[1]) / delassus;
            hold(SLOT_CLUTCH, impulse, clutch_capacity_nm)?;
            for i in 0..3 {
                velocity[i] += response[i] * impulse;
            }
        }

        // Every slipping joint still turns its way.
        let speed = |row: &[f64; MAX_DOFS]| {
            row[0] * velocity[0] + row[1] * velocity[1] + row[2] * velocity[2]
        };
        for w in axle {
            if slot_sign[SLOT_BRAKE + w] * speed(&self.map.wheel_rows[w]) < -SPEED_EPS {
                return None;
            }
        }
        if slot_sign[SLOT_ENGINE_DRAG] * velocity[0] < -SPEED_EPS
            || slot_sign[SLOT_GEAR_LOSS] * velocity[1] < -SPEED_EPS
            || slot_sign[diff_slot] * velocity[2] < -SPEED_EPS
        {
            return None;
        }
        if !velocity.iter().all(|v| v.is_finite()) {
            return None;
        }
        Some(OneAxleStep {
            velocity,
            slot_torque_nm: slot_impulse.map(|impulse| impulse / dt_s),
            slot_used,
            slot_locked,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drivetrain::{DifferentialSpec, Layout};
    use crate::spec::builtin;
    use crate::telemetry::DIFF_REAR;
    use proptest::prelude::*;

    const DT_S: f64 = 0.001;

    /// The road car's driveline: as built (front drive, open diff) for kind 0, else rear drive
    /// with a viscous diff (1), a 1.5-way clutch LSD with preload (2) or a spool (3).
    fn drivetrain(kind: u8) -> Drivetrain {
        let mut spec = builtin::car("road").expect("road car").drivetrain;
        if kind > 0 {
            spec.layout = Layout::Rwd;
            spec.rear_differential = Some(match kind {
                1 => DifferentialSpec::Viscous {
                    coefficient_nm_s_per_rad: 25.0,
                },
                2 => DifferentialSpec::ClutchLsd {
                    preload_nm: 40.0,
                    power_bias_ratio: 2.5,
                    ways: 1.5,
                },
                _ => DifferentialSpec::Spool {},
            });
        }
        Drivetrain::new(&spec)
    }

    #[derive(Debug, Clone)]
    struct State {
        /// See [`drivetrain`].
        kind: u8,
        diff_was_locked: bool,
        ratio: f64,
        /// Engine speed minus `ratio x carrier_omega` (small: near the clutch lock).
        engine_slip: f64,
        carrier_omega: f64,
        wheel_split: f64,
        clutch_torque_nm: f64,
        clutch_capacity_nm: f64,
        drive_nm: f64,
        drag_nm: f64,
        road_torque_nm: [f64; 2],
        slope: [f64; 2],
        brake_nm: [f64; 2],
    }

    fn state() -> impl Strategy<Value = State> {
        (
            (
                (0..4u8, any::<bool>()),
                prop_oneof![3 => -15.0..15.0f64, 1 => Just(0.0)],
                prop_oneof![-0.05..0.05f64, -50.0..800.0f64],
                -5.0..150.0f64,
            ),
            (
                -3.0..3.0f64,
                -400.0..400.0f64,
                prop_oneof![3 => 0.0..1500.0f64, 1 => Just(0.0)],
                0.0..300.0f64,
            ),
            (0.0..40.0f64, prop::array::uniform2(-600.0..600.0f64)),
            (
                prop::array::uniform2(-20000.0..0.0f64),
                prop::array::uniform2(prop_oneof![Just(0.0), 0.0..60.0f64, 0.0..3000.0f64]),
            ),
        )
            .prop_map(
                |(
                    ((kind, diff_was_locked), ratio, engine_slip, carrier_omega),
                    (split, clutch, cap, drive),
                    (drag, road),
                    (slope, brake_nm),
                )| State {
                    kind,
                    diff_was_locked,
                    ratio,
                    engine_slip,
                    carrier_omega,
                    wheel_split: split,
                    clutch_torque_nm: clutch,
                    clutch_capacity_nm: cap,
                    drive_nm: drive,
                    drag_nm: drag,
                    road_torque_nm: road,
                    slope,
                    brake_nm,
                },
            )
    }

    /// The drivetrain in `state` (clutch locked last step) and the wheel inputs.
    fn set_up(state: &State) -> (Drivetrain, [WheelSpinInput; 4], engine::EngineTorques) {
        let mut dt = drivetrain(state.kind);
        dt.engine.omega_radps = state.ratio * state.carrier_omega + state.engine_slip;
        dt.clutch_torque_nm = state.clutch_torque_nm;
        dt.slot_locked[SLOT_CLUTCH] = true;
        let mut wheels = [WheelSpinInput {
            omega_radps: state.carrier_omega,
            inertia_kgm2: 1.1,
            road_torque_nm: 0.0,
            road_torque_slope: 0.0,
            brake_torque_nm: 0.0,
        }; 4];
        let axle = if state.kind > 0 { [2, 3] } else { [0, 1] };
        dt.slot_locked[SLOT_DIFF + DIFF_REAR] = state.diff_was_locked;
        for (side, &w) in axle.iter().enumerate() {
            let half = if side == 0 { 0.5 } else { -0.5 };
            wheels[w].omega_radps += half * state.wheel_split;
            wheels[w].road_torque_nm = state.road_torque_nm[side];
            wheels[w].road_torque_slope = state.slope[side];
            wheels[w].brake_torque_nm = state.brake_nm[side];
        }
        let torques = engine::EngineTorques {
            drive_nm: state.drive_nm,
            drag_nm: state.drag_nm,
        };
        (dt, wheels, torques)
    }

    /// The closed form next to the general problem solved by the full active-set search:
    /// `None` if the closed form declined, else whether they agree (error text if not).
    fn compare(state: &State) -> Option<Result<(), String>> {
        let (mut dt, wheels, torques) = set_up(state);
        let (ratio, cap) = (state.ratio, state.clutch_capacity_nm);
        let closed = dt.one_axle_closed_form(&wheels, ratio, torques, cap, DT_S)?;
        dt.build_problem::<3>(&wheels, ratio, torques, cap, DT_S);
        let full = *dt.solver.solve_full(&dt.problem, DT_S);
        let mut slot_torque = [0.0; SLOTS];
        let mut slot_locked = [false; SLOTS];
        for (joint, &slot) in dt.joint_slot[..dt.problem.joint_count].iter().enumerate() {
            slot_torque[slot] = full.torque_nm[joint];
            slot_locked[slot] = full.locked[joint];
        }
        let expected_used = closed.slot_used;
        let expected_locked = closed.slot_locked;
        let v_scale = full.velocity.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let t_scale = slot_torque.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        let agree = dt.slot_used == expected_used
            && slot_locked == expected_locked
            && (0..3).all(|i| (closed.velocity[i] - full.velocity[i]).abs() <= 1e-9 * v_scale)
            && (0..SLOTS)
                .all(|s| (closed.slot_torque_nm[s] - slot_torque[s]).abs() <= 1e-9 * t_scale);
        Some(if agree {
            Ok(())
        } else {
            Err(format!(
                "closed {closed:?}\nfull {full:?} used {:?} torques {slot_torque:?}",
                dt.slot_used
            ))
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn one_axle_closed_form_agrees_with_the_full_search(s in state()) {
            if let Some(result) = compare(&s) {
                result.map_err(TestCaseError::fail)?;
            }
        }
    }

    #[test]
    fn cruising_in_gear_takes_the_closed_form_and_agrees() {
        // Third gear at ~60 km/h, part throttle: the common case the closed form is for.
        for (kind, diff_was_locked) in [(0, false), (1, false), (2, true), (3, false)] {
            let state = State {
                kind,
                diff_was_locked,
                ratio: 5.3,
                engine_slip: 0.0,
                carrier_omega: 55.0,
                // A locked diff turns both wheels alike.
                wheel_split: if kind >= 2 { 0.0 } else { 0.4 },
                clutch_torque_nm: -90.0,
                clutch_capacity_nm: 300.0,
                drive_nm: 100.0,
                drag_nm: 18.0,
                road_torque_nm: [-240.0, -230.0],
                slope: [-3000.0, -2900.0],
                brake_nm: [12.0, 12.0],
            };
            let result = compare(&state).expect("the closed form declined a cruising state");
            result.unwrap();
        }
    }
}
