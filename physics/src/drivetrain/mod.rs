//! The torque path from the engine to the wheels and the rotational update of the wheels:
//! engine -> clutch -> gearbox -> centre diff -> front/rear diffs -> wheels (seeds 000, 002,
//! 004; reference physics.md 2b and 5).
//!
//! Each step builds one small implicit problem over the driveline's rotational degrees of
//! freedom ([`layout`]): the engine's inertia, the wheels' inertias with their tyres' implicit
//! road-torque slopes, viscous couplings, explicit combustion torque, and friction joints for
//! everything that can lock (clutch, differential locks, brakes on driven wheels, engine drag,
//! gear losses). [`solver`] finds the end-of-step speeds with Racer's locked states made exact:
//! nothing reverses within a step, locked parts turn as one, so it is stable at 1 kHz with
//! stiff tyres and never chatters. Undriven wheels spin on their own ([`implicit_wheel_update`]).
//!
//! Fast path: a one-axle car in its usual states (wheels turning against brakes and rolling
//! resistance, clutch locked or out, diff open, viscous, locked or slipping, drag and gear loss
//! slipping) is solved in closed form with the solver's warm-start equations and acceptance tests, without
//! building the general problem; any other state, or a guess that fails, takes the general
//! path. A property test (in this module) compares the two.
//!
//! Invariants: no allocation in [`Drivetrain::step`], no transcendental functions per step,
//! deterministic, and non-finite inputs never produce non-finite outputs.

pub mod clutch;
pub mod differential;
pub mod engine;
pub mod gearbox;
pub mod layout;
pub mod solver;
pub mod spec;

pub use gearbox::{GearEvent, ShiftRefusal};
pub use spec::{
    ClutchSpec, DifferentialSpec, DrivetrainSpec, EngineSpec, GearboxSpec, Layout, ShiftMode,
};

use crate::controls::{Controls, GearRequest};
use crate::telemetry::{DiffTelemetry, DrivetrainTelemetry};
use clutch::Clutch;
use differential::Coupling;
use engine::Engine;
use gearbox::Gearbox;
use layout::{DiffPlace, LayoutMap};
use solver::{Joint, Problem, Solver, MAX_DOFS, MAX_JOINTS, SPEED_EPS};

/// What the car hands the driveline for one wheel each step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WheelSpinInput {
    /// Spin rate at the start of the step, rad/s.
    pub omega_radps: f64,
    /// Wheel (plus brake disc, hub) spin inertia, kg m^2.
    pub inertia_kgm2: f64,
    /// Torque the road puts on the wheel at `omega_radps`, N m (`-Fx * r`).
    pub road_torque_nm: f64,
    /// d(road torque)/d(omega), N m s/rad (<= 0): lets the update be implicit so stiff tyres
    /// stay stable at every speed, including zero.
    pub road_torque_slope: f64,
    /// Brake torque capacity this step (pedal and handbrake), N m (>= 0). Opposes rotation;
    /// never reverses it within a step (velocity reversal locks the wheel at exactly 0).
    pub brake_torque_nm: f64,
}

/// [`Drivetrain::one_axle_closed_form`]'s answer.
#[derive(Debug, Clone, Copy, PartialEq)]
struct OneAxleStep {
    /// End speeds of the coordinates (engine, carrier, axle delta), rad/s.
    velocity: [f64; MAX_DOFS],
    /// Joint torques by slot, N m.
    slot_torque_nm: [f64; SLOTS],
    /// Which joints are in use.
    slot_used: [bool; SLOTS],
    /// Which joints are locked (the clutch and the diff may be).
    slot_locked: [bool; SLOTS],
}

/// A braked wheel turning slower than this is held at rest (solver round-off), rad/s.
const HELD_SPEED_RADPS: f64 = 1e-9;

/// Wheel radius assumed for the reverse-gear speed check until the car sets its own, m.
pub const DEFAULT_WHEEL_RADIUS_M: f64 = 0.3;

// Joint slots: each keeps its lock state across steps. Brakes come first: when locks are
// redundant (a car held on its brakes with the diff and clutch locked too) the solver gives the
// load to the earliest joints, so the brakes hold the car and the driveline carries nothing.
const SLOT_BRAKE: usize = 0; // + wheel index
const SLOT_CLUTCH: usize = 4;
const SLOT_ENGINE_DRAG: usize = 5;
const SLOT_GEAR_LOSS: usize = 6;
const SLOT_DIFF: usize = 7; // + telemetry diff index (front, rear, centre)
const SLOTS: usize = 10;

/// Engine, clutch, gearbox and differentials of one car.
#[derive(Debug, Clone)]
pub struct Drivetrain {
    engine: Engine,
    clutch: Clutch,
    gearbox: Gearbox,
    map: LayoutMap,
    couplings: [Coupling; 3],
    wheel_radius_m: f64,
    slot_locked: [bool; SLOTS],
    slot_used: [bool; SLOTS],
    /// Slot of each joint of the current problem.
    joint_slot: [usize; MAX_JOINTS],
    /// The step's implicit problem, rebuilt in place each step (only the used entries).
    problem: Problem,
    solver: Solver,
    clutch_torque_nm: f64,
    drive_torque_nm: [f64; 4],
    last_event: Option<GearEvent>,
    telemetry: DrivetrainTelemetry,
}

impl Drivetrain {
    /// Builds the drivetrain from its validated spec: engine running at idle, neutral.
    pub fn new(spec: &DrivetrainSpec) -> Drivetrain {
        let map = LayoutMap::new(spec.layout, spec.front_torque_fraction.unwrap_or(0.5));
        let coupling = |d: &Option<DifferentialSpec>| {
            d.as_ref()
                .map(Coupling::from_spec)
                .unwrap_or(Coupling::Open)
        };
        let engine = Engine::new(&spec.engine);
        let mut drivetrain = Drivetrain {
            clutch: Clutch::new(&spec.clutch, spec.engine.idle_rpm),
            gearbox: Gearbox::new(&spec.gearbox),
            map,
            couplings: [
                coupling(&spec.front_differential),
                coupling(&spec.rear_differential),
                coupling(&spec.centre_differential),
            ],
            wheel_radius_m: DEFAULT_WHEEL_RADIUS_M,
            slot_locked: [false; SLOTS],
            slot_used: [false; SLOTS],
            joint_slot: [0; MAX_JOINTS],
            problem: Problem::default(),
            solver: Solver::new(),
            clutch_torque_nm: 0.0,
            drive_torque_nm: [0.0; 4],
            last_event: None,
            telemetry: DrivetrainTelemetry::default(),
            engine,
        };
        drivetrain.telemetry = DrivetrainTelemetry {
            engine_rpm: drivetrain.engine.rpm(),
            max_rpm: spec.engine.rev_limit_rpm,
            idle_rpm: spec.engine.idle_rpm,
            engine_running: true,
            forward_gears: drivetrain.gearbox.forward_gears(),
            ..DrivetrainTelemetry::default()
        };
        for place in drivetrain.map.diffs.iter().flatten() {
            drivetrain.telemetry.diffs[place.telemetry_index].present = true;
        }
        drivetrain
    }

    /// Sets the driven wheels' rolling radius, m, used to judge walking pace for reverse
    /// (default [`DEFAULT_WHEEL_RADIUS_M`]).
    pub fn set_wheel_radius_m(&mut self, radius_m: f64) {
        if radius_m.is_finite() && radius_m > 0.0 {
            self.wheel_radius_m = radius_m;
        }
    }

    /// The gear event of the last step (a change started or refused), if any.
    pub fn last_event(&self) -> Option<GearEvent> {
        self.last_event
    }

    /// Engine speed, rad/s.
    pub fn engine_omega_radps(&self) -> f64 {
        self.engine.omega_radps
    }

    /// Advances the driveline and the wheels one step; returns the new wheel spin rates.
    pub fn step(
        &mut self,
        controls: &Controls,
        wheels: &[WheelSpinInput; 4],
        dt_s: f64,
    ) -> [f64; 4] {
        // The coordinate count as a constant so the small loops unroll: one axle (3) or AWD
        // (MAX_DOFS), the only layouts [`LayoutMap`] builds.
        if self.map.dofs == 3 {
            self.step_dofs::<3>(controls, wheels, dt_s)
        } else {
            self.step_dofs::<MAX_DOFS>(controls, wheels, dt_s)
        }
    }

    /// [`Drivetrain::step`] for `DOFS` driveline coordinates.
    fn step_dofs<const DOFS: usize>(
        &mut self,
        controls: &Controls,
        wheels: &[WheelSpinInput; 4],
        dt_s: f64,
    ) -> [f64; 4] {
        let controls = controls.sanitized();
        self.shift(&controls, wheels);
        let ratio = self.gearbox.total_ratio();
        let torques = self.engine.torques(
            controls.throttle,
            controls.ignition && controls.starter,
            self.gearbox.torque_cut(),
        );
        let clutch_capacity = self.clutch.capacity_nm(controls.clutch, self.engine.rpm());
        let closed_form = if DOFS == 3 {
            self.one_axle_closed_form(wheels, ratio, torques, clutch_capacity, dt_s)
        } else {
            None
        };
        let (x, slot_torque) = match closed_form {
            Some(OneAxleStep {
                velocity,
                slot_torque_nm,
                slot_used,
                slot_locked,
            }) => {
                self.slot_used = slot_used;
                self.slot_locked = slot_locked;
                (velocity, slot_torque_nm)
            }
            None => self.solve_problem::<DOFS>(wheels, ratio, torques, clutch_capacity, dt_s),
        };

        let mut out = [0.0; 4];
        for (w, input) in wheels.iter().enumerate() {
            if self.map.driven[w] {
                let omega = dot(&self.map.wheel_rows[w], &x, DOFS);
                let accel_torque = input.inertia_kgm2 * (omega - input.omega_radps) / dt_s;
                let road =
                    input.road_torque_nm + input.road_torque_slope * (omega - input.omega_radps);
                self.drive_torque_nm[w] = accel_torque - road - slot_torque[SLOT_BRAKE + w];
                // A held brake keeps the wheel at exactly zero (no round-off sign flips).
                let held = self.slot_used[SLOT_BRAKE + w] && omega.abs() <= HELD_SPEED_RADPS;
                out[w] = if self.slot_locked[SLOT_BRAKE + w] || held {
                    0.0
                } else {
                    omega
                };
            } else {
                self.drive_torque_nm[w] = 0.0;
                out[w] = implicit_wheel_update(input, 0.0, dt_s);
            }
        }
        self.engine.omega_radps = if self.slot_locked[SLOT_ENGINE_DRAG] {
            0.0
        } else {
            x[0]
        };
        self.clutch_torque_nm = slot_torque[SLOT_CLUTCH];
        self.gearbox.advance(dt_s);
        self.engine.update_running(controls.ignition);
        self.guard_finite(&mut out);
        self.update_telemetry(&x, &slot_torque, torques.drive_nm);
        out
    }

    /// Builds and solves the general problem; returns the coordinates' end speeds and the joint
    /// torques by slot (and records the slots' use and lock states).
    fn solve_problem<const DOFS: usize>(
        &mut self,
        wheels: &[WheelSpinInput; 4],
        ratio: f64,
        torques: engine::EngineTorques,
        clutch_capacity_nm: f64,
        dt_s: f64,
    ) -> ([f64; MAX_DOFS], [f64; SLOTS]) {
        self.build_problem::<DOFS>(wheels, ratio, torques, clutch_capacity_nm, dt_s);
        let solution = self.solver.solve(&self.problem, dt_s);
        let mut slot_torque = [0.0; SLOTS];
        self.slot_locked = [false; SLOTS];
        for (joint, &slot) in self.joint_slot[..self.problem.joint_count]
            .iter()
            .enumerate()
        {
            slot_torque[slot] = solution.torque_nm[joint];
            self.slot_locked[slot] = solution.locked[joint];
        }
        (solution.velocity, slot_torque)
    }

    /// The usual states of a one-axle driveline in closed form: the brakes (and the rolling
    /// resistance the car applies through them) slipping on turning wheels, the clutch either
    /// locked last step or carrying nothing (neutral, pedal pressed), the differential open,
    /// viscous, or with its friction lock locked (spool, or locked last step) or slipping,
    /// engine drag and gear loss slipping the way they turn. These are the equations the
    /// solver's warm start solves for that guess (engine `e`, carrier `c`, axle delta `d`; the
    /// mass matrix is the engine inertia beside a 2x2 block, the clutch row `[1, -ratio, 0]`,
    /// the diff lock row `[0, 0, 1]`), with the same acceptance tests. `None` when the
    /// state is another one or the guess fails; then the general problem is built and solved.
    fn one_axle_closed_form(
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
        let mut velocity;
        if diff_locked {
            // Axle delta held at 0: the carrier alone, with the engine through the clutch; the
            // diff carries what keeps the delta still.
            velocity = [p_e / engine_inertia, p_c / m_cc, 0.0, 0.0, 0.0];
            if clutch_engaged {
                let carrier = (p_c + ratio * p_e) / (m_cc + ratio * ratio * engine_inertia);
                velocity[0] = ratio * carrier;
                velocity[1] = carrier;
                let impulse = engine_inertia * velocity[0] - p_e;
                if solver::exceeds(impulse, clutch_capacity_nm * dt_s) {
                    return None;
                }
                slot_used[SLOT_CLUTCH] = true;
                slot_locked[SLOT_CLUTCH] = true;
                slot_impulse[SLOT_CLUTCH] = impulse;
            }
            let impulse = m_cd * velocity[1] - p_d;
            if solver::exceeds(impulse, diff_capacity_nm * dt_s) {
                return None;
            }
            slot_used[diff_slot] = true;
            slot_locked[diff_slot] = true;
            slot_impulse[diff_slot] = impulse;
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
            if solver::exceeds(impulse, clutch_capacity_nm * dt_s) {
                return None;
            }
            for i in 0..3 {
                velocity[i] += response[i] * impulse;
            }
            slot_used[SLOT_CLUTCH] = true;
            slot_locked[SLOT_CLUTCH] = true;
            slot_impulse[SLOT_CLUTCH] = impulse;
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

    /// Capacity of the gear-loss joint at `ratio`: the lost share of last step's clutch
    /// torque, N m.
    fn gear_loss_nm(&self, ratio: f64) -> f64 {
        (1.0 - self.gearbox.efficiency()) * (ratio * self.clutch_torque_nm).abs()
    }

    /// Friction capacity of differential `index` (at `place`) this step, N m.
    fn diff_capacity_nm(
        &self,
        index: usize,
        place: &DiffPlace,
        wheels: &[WheelSpinInput; 4],
    ) -> f64 {
        if let Coupling::Open | Coupling::Viscous(_) = self.couplings[index] {
            return 0.0;
        }
        let side = |wheels_on_side: [usize; 2]| {
            let mut torque = 0.0;
            let mut omega = 0.0;
            for &w in &wheels_on_side[..place.wheels_per_side] {
                torque += wheels[w].road_torque_nm;
                omega += wheels[w].omega_radps;
            }
            (torque, omega)
        };
        let (reaction_a, omega_a) = side(place.wheels_a);
        let (reaction_b, omega_b) = side(place.wheels_b);
        self.couplings[index].friction_capacity_nm(reaction_a, reaction_b, omega_a + omega_b)
    }

    /// Drive torque delivered to each wheel in the last step, N m.
    pub fn drive_torques_nm(&self) -> [f64; 4] {
        self.drive_torque_nm
    }

    /// Engine, gearbox and differential channels.
    pub fn telemetry(&self) -> DrivetrainTelemetry {
        self.telemetry
    }

    /// Rebuilds the step's implicit problem in place (clearing only the entries in use) and
    /// records which joint slots it uses.
    fn build_problem<const DOFS: usize>(
        &mut self,
        wheels: &[WheelSpinInput; 4],
        ratio: f64,
        torques: engine::EngineTorques,
        clutch_capacity_nm: f64,
        dt_s: f64,
    ) {
        let n = DOFS;
        let gear_loss_nm = self.gear_loss_nm(ratio);
        let mut diff_capacity_nm = [0.0; 3];
        for (index, place) in self.map.diffs.iter().enumerate() {
            if let Some(place) = place {
                diff_capacity_nm[index] = self.diff_capacity_nm(index, place, wheels);
            }
        }
        let p = &mut self.problem;
        p.dofs = n;
        p.joint_count = 0;
        for i in 0..n {
            p.mass[i][..=i].fill(0.0);
        }
        p.momentum[..n].fill(0.0);
        let engine_inertia = self.engine.spec().inertia_kgm2;
        let omega_e = self.engine.omega_radps;
        p.mass[0][0] = engine_inertia;
        p.momentum[0] = engine_inertia * omega_e + dt_s * torques.drive_nm;
        p.start_velocity[0] = omega_e;
        for (w, input) in wheels.iter().enumerate() {
            if !self.map.driven[w] {
                continue;
            }
            let row = &self.map.wheel_rows[w];
            let inertia = input.inertia_kgm2 - dt_s * input.road_torque_slope;
            let momentum = input.inertia_kgm2 * input.omega_radps
                + dt_s * (input.road_torque_nm - input.road_torque_slope * input.omega_radps);
            for i in 1..n {
                p.momentum[i] += row[i] * momentum;
                // The lower triangle: all the solver reads of the symmetric matrix.
                for j in 1..=i {
                    p.mass[i][j] += inertia * row[i] * row[j];
                }
            }
        }
        let omegas = wheels.map(|input| input.omega_radps);
        for i in 1..n {
            let row = &self.map.coordinate_rows[i];
            p.start_velocity[i] =
                row[0] * omegas[0] + row[1] * omegas[1] + row[2] * omegas[2] + row[3] * omegas[3];
        }

        self.slot_used = [false; SLOTS];
        let slot_locked = &self.slot_locked;
        let slot_used = &mut self.slot_used;
        let joint_slot = &mut self.joint_slot;
        let mut add = |p: &mut Problem, slot: usize, row: [f64; MAX_DOFS], capacity_nm: f64| {
            if capacity_nm > 0.0 {
                joint_slot[p.joint_count] = slot;
                p.joints[p.joint_count] = Joint {
                    row,
                    capacity_nm,
                    was_locked: slot_locked[slot],
                };
                p.joint_count += 1;
                slot_used[slot] = true;
            }
        };
        let unit = |i: usize| {
            let mut row = [0.0; MAX_DOFS];
            row[i] = 1.0;
            row
        };
        for (w, input) in wheels.iter().enumerate() {
            if self.map.driven[w] {
                add(
                    p,
                    SLOT_BRAKE + w,
                    self.map.wheel_rows[w],
                    input.brake_torque_nm,
                );
            }
        }
        if ratio != 0.0 {
            add(
                p,
                SLOT_CLUTCH,
                [1.0, -ratio, 0.0, 0.0, 0.0],
                clutch_capacity_nm,
            );
        }
        add(p, SLOT_ENGINE_DRAG, unit(0), torques.drag_nm);
        if ratio != 0.0 {
            add(p, SLOT_GEAR_LOSS, unit(1), gear_loss_nm);
        }
        for (index, place) in self.map.diffs.iter().enumerate() {
            let Some(place) = place else { continue };
            let d = place.delta_dof;
            p.mass[d][d] += dt_s * self.couplings[index].viscous_coefficient();
            add(p, SLOT_DIFF + index, unit(d), diff_capacity_nm[index]);
        }
    }

    /// Replaces non-finite results (only possible from non-finite inputs) with rest.
    fn guard_finite(&mut self, out: &mut [f64; 4]) {
        let finite = self.engine.omega_radps.is_finite()
            && out.iter().all(|v| v.is_finite())
            && self.drive_torque_nm.iter().all(|v| v.is_finite());
        if !finite {
            *out = out.map(|v| if v.is_finite() { v } else { 0.0 });
            self.drive_torque_nm = [0.0; 4];
            if !self.engine.omega_radps.is_finite() {
                self.engine.omega_radps = 0.0;
            }
            self.clutch_torque_nm = 0.0;
            self.slot_locked = [false; SLOTS];
        }
    }

    /// Refreshes the telemetry record after a step.
    fn update_telemetry(&mut self, x: &[f64; MAX_DOFS], slot_torque: &[f64; SLOTS], drive_nm: f64) {
        let t = &mut self.telemetry;
        t.engine_rpm = self.engine.rpm();
        t.engine_torque_nm = drive_nm + slot_torque[SLOT_ENGINE_DRAG];
        t.engine_running = self.engine.running;
        t.gear = self.gearbox.gear();
        t.shifting = self.gearbox.shifting();
        t.clutch_locked = self.slot_used[SLOT_CLUTCH] && self.slot_locked[SLOT_CLUTCH];
        t.clutch_torque_nm = -slot_torque[SLOT_CLUTCH];
        for (index, place) in self.map.diffs.iter().enumerate() {
            let Some(place) = place else { continue };
            let slot = SLOT_DIFF + index;
            let friction = DiffTelemetry {
                present: true,
                locked: self.slot_used[slot] && self.slot_locked[slot],
                transfer_torque_nm: slot_torque[slot].abs(),
            };
            t.diffs[place.telemetry_index] = match self.couplings[index] {
                Coupling::Viscous(c) => DiffTelemetry {
                    present: true,
                    locked: false,
                    transfer_torque_nm: c * x[place.delta_dof].abs(),
                },
                _ => friction,
            };
        }
    }

    /// Handles the gear request and records the event.
    fn shift(&mut self, controls: &Controls, wheels: &[WheelSpinInput; 4]) {
        if controls.gear_request == GearRequest::None {
            // Nothing asked (almost every step): no event, and the speed is not needed.
            self.last_event = None;
            return;
        }
        let mut sum = 0.0;
        let mut count = 0.0;
        for (w, input) in wheels.iter().enumerate() {
            if self.map.driven[w] {
                sum += input.omega_radps;
                count += 1.0;
            }
        }
        let speed_mps = sum / count * self.wheel_radius_m;
        self.last_event = self
            .gearbox
            .request(controls.gear_request, controls.clutch, speed_mps);
        if let Some(GearEvent::Refused { reason, .. }) = self.last_event {
            self.telemetry.shift_refusal = reason;
            self.telemetry.shift_refusal_count = self.telemetry.shift_refusal_count.wrapping_add(1);
        }
    }
}

fn dot(a: &[f64; MAX_DOFS], b: &[f64; MAX_DOFS], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += a[i] * b[i];
    }
    s
}

/// One implicit step of a free wheel with drive torque, tyre coupling and a velocity-reversal
/// brake clamp.
pub fn implicit_wheel_update(w: &WheelSpinInput, drive_nm: f64, dt_s: f64) -> f64 {
    let free = drive_nm + w.road_torque_nm - w.road_torque_slope * w.omega_radps;
    let k = w.inertia_kgm2 - dt_s * w.road_torque_slope;
    // Without brakes: omega1 = (I omega0 + dt (T + slope*0 ...)) / (I - dt slope).
    let unbraked = (w.inertia_kgm2 * w.omega_radps + dt_s * free) / k;
    if w.brake_torque_nm <= 0.0 {
        return unbraked;
    }
    let brake = w.brake_torque_nm * dt_s / k;
    if unbraked > brake {
        unbraked - brake
    } else if unbraked < -brake {
        unbraked + brake
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
