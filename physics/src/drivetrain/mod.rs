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
//! Fast path (module `closed_form`): a one-axle car in its usual states (wheels turning against
//! brakes and rolling resistance, clutch locked or out, diff open, viscous, locked or slipping,
//! drag and gear loss slipping) is solved in closed form with the solver's warm-start
//! equations and acceptance tests, without building the general problem; any other state, or
//! a guess that fails, takes the general path. A property test there compares the two.
//!
//! Invariants: no allocation in [`Drivetrain::step`], no transcendental functions per step,
//! deterministic, and non-finite inputs never produce non-finite outputs.

mod closed_form;
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
use crate::math::FiniteProbe;
use crate::quarantine::Quantity;
use crate::telemetry::{DiffTelemetry, DrivetrainTelemetry};
use closed_form::OneAxleStep;
use clutch::Clutch;
use differential::Coupling;
use engine::Engine;
use gearbox::Gearbox;
use layout::{DiffPlace, LayoutMap};
use solver::{Joint, Problem, Solver, MAX_DOFS, MAX_JOINTS};

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
    /// The non-finite value the last guarded step replaced, until the car collects it.
    fault: Option<(Quantity, Option<usize>)>,
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
            fault: None,
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

    /// Puts this drivetrain back into `start`'s state (a car reset) without allocating: the
    /// specs the engine and gearbox hold are the same and stay; every other field is plain
    /// data and is copied. Destructured so a new field cannot be forgotten here.
    pub fn restart_from(&mut self, start: &Drivetrain) {
        let Drivetrain {
            engine,
            clutch,
            gearbox,
            map,
            couplings,
            wheel_radius_m,
            slot_locked,
            slot_used,
            joint_slot,
            problem,
            solver,
            clutch_torque_nm,
            drive_torque_nm,
            last_event,
            telemetry,
            fault,
        } = start;
        self.engine.restart_from(engine);
        self.gearbox.restart_from(gearbox);
        self.clutch = clutch.clone();
        self.map = *map;
        self.couplings = *couplings;
        self.wheel_radius_m = *wheel_radius_m;
        self.slot_locked = *slot_locked;
        self.slot_used = *slot_used;
        self.joint_slot = *joint_slot;
        self.problem = *problem;
        self.solver = solver.clone();
        self.clutch_torque_nm = *clutch_torque_nm;
        self.drive_torque_nm = *drive_torque_nm;
        self.last_event = *last_event;
        self.telemetry = *telemetry;
        self.fault = *fault;
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

    /// The quarantine's check point for the drivetrain: replaces non-finite results (only
    /// possible from non-finite inputs) with rest and records the first one for the car's
    /// report.
    fn guard_finite(&mut self, out: &mut [f64; 4]) {
        let mut probe = FiniteProbe::new();
        probe.add4(*out);
        probe.add4(self.drive_torque_nm);
        probe.add(0, self.engine.omega_radps);
        if !probe.all_finite() {
            self.fault = Some(self.first_non_finite(out));
            *out = out.map(|v| if v.is_finite() { v } else { 0.0 });
            self.drive_torque_nm = [0.0; 4];
            if !self.engine.omega_radps.is_finite() {
                self.engine.omega_radps = 0.0;
            }
            self.clutch_torque_nm = 0.0;
            self.slot_locked = [false; SLOTS];
        }
    }

    /// The first non-finite result: a wheel's spin rate, else a wheel's drive torque, else
    /// the engine speed.
    fn first_non_finite(&self, out: &[f64; 4]) -> (Quantity, Option<usize>) {
        let bad_wheel = |values: &[f64; 4]| values.iter().position(|v| !v.is_finite());
        if let Some(wheel) = bad_wheel(out) {
            (Quantity::WheelSpin, Some(wheel))
        } else if let Some(wheel) = bad_wheel(&self.drive_torque_nm) {
            (Quantity::DriveTorque, Some(wheel))
        } else {
            (Quantity::EngineSpeed, None)
        }
    }

    /// The value the last guarded step found non-finite and replaced (quantity, wheel), once.
    pub fn take_fault(&mut self) -> Option<(Quantity, Option<usize>)> {
        self.fault.take()
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
