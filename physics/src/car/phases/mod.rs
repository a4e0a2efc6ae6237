//! The phases of one car step, each in its own file, run in this order by
//! [`Car::integrate`](super::Car) (`car/step.rs`):
//!
//! 1. [`driver_inputs`]: steering rim and road-wheel angles, brake torques.
//! 2. [`suspension`]: spring, bump-stop, damper and anti-roll-bar forces from travel.
//! 3. [`contact`]: each wheel's ground contact, tyre load and slip prediction.
//! 4. [`tyres`]: the Magic Formula for the four wheels and the wheels' spin-rate inputs.
//! 5. [`wheel_spin`]: the drivetrain's implicit wheel update, committed with the slips;
//!    then [`tyre_condition`]: tyre temperatures, pressure and wear.
//! 6. [`chassis_forces`]: tyre, suspension, aero and body-ground forces on the chassis.
//! 7. [`motion`]: semi-implicit integration of chassis and unsprung masses, barriers.
//! 8. [`telemetry`]: the step's telemetry record.
//!
//! Then the car's quarantine (`car/quarantine.rs`) checks the new state. This module holds
//! what the phases pass along: the start-of-step body frame, the per-wheel work record and
//! the part of the start state a fault restores.

pub(super) mod chassis_forces;
pub(super) mod contact;
pub(super) mod driver_inputs;
pub(super) mod motion;
pub(super) mod suspension;
pub(super) mod telemetry;
pub(super) mod tyre_condition;
pub(super) mod tyres;
pub(super) mod wheel_spin;

use super::{CarState, Corner};
use crate::math::{Mat3, Quat, Vec3};
use crate::spec::GRAVITY_MPS2;
use crate::telemetry::SurfaceKind;
use crate::tyre::mf61::TyreForces;
use crate::tyre::SlipPrediction;

/// Gravity, world frame, m/s^2.
pub(super) const GRAVITY: Vec3 = Vec3::new(0.0, 0.0, -GRAVITY_MPS2);

/// The body's frame at the start of the step (rotation, axes, rates), shared by every phase.
pub(super) struct StepFrame {
    /// Body to world rotation.
    pub rot: Mat3,
    /// Body x, y and z axes in the world.
    pub xb: Vec3,
    pub yb: Vec3,
    pub zb: Vec3,
    /// Angular velocity, world frame.
    pub omega_w: Vec3,
    /// Angular velocity, body frame.
    pub w_body: Vec3,
    /// Each droop hardpoint's world offset under this step's rotation, rotated once and used
    /// by the suspension rates, the wheel centres, the suspension torque and the new travel.
    pub hardpoints: [Vec3; 4],
}

impl StepFrame {
    /// The frame of `state` for a car with `corners`.
    pub fn of(state: &CarState, corners: &[Corner; 4]) -> StepFrame {
        let rot = state.orientation.to_mat3();
        let hardpoint = |i: usize| rot.mul_vec(corners[i].droop_position);
        StepFrame {
            xb: rot.column(0),
            yb: rot.column(1),
            zb: rot.column(2),
            omega_w: rot.mul_vec(state.angular_velocity_body),
            w_body: state.angular_velocity_body,
            hardpoints: [hardpoint(0), hardpoint(1), hardpoint(2), hardpoint(3)],
            rot,
        }
    }
}

/// The part of the start-of-step state kept aside once the phases start writing the new
/// state: what a fault restores, and what the integration starts from.
#[derive(Clone, Copy)]
pub(super) struct StartPose {
    pub position: Vec3,
    pub orientation: Quat,
    pub travel: [f64; 4],
    pub velocity: Vec3,
}

impl StartPose {
    pub fn of(state: &CarState) -> StartPose {
        StartPose {
            position: state.position,
            orientation: state.orientation,
            travel: state.travel,
            velocity: state.velocity,
        }
    }
}

/// Per-wheel intermediate results of one step (stack only), filled phase by phase.
#[derive(Clone, Copy, Default)]
pub(super) struct WheelWork {
    pub forward: Vec3,
    pub lateral: Vec3,
    pub normal: Vec3,
    pub contact_offset: Vec3,
    pub load: f64,
    pub radius: f64,
    pub vx: f64,
    pub vy: f64,
    pub alpha: f64,
    pub dfx_domega: f64,
    pub forces: TyreForces,
    /// This step's slips (committed with the new spin rate).
    pub slip: SlipPrediction,
    /// `1 / relaxation_length_scale` of the surface under the wheel (the slip state runs on
    /// velocities times this).
    pub relaxation_inverse: f64,
    pub surface: SurfaceKind,
    pub suspension_force: f64,
    pub travel_rate: f64,
    /// The wheel is held at a travel limit this step (rides with the body).
    pub at_limit: bool,
}

/// Per wheel (FL FR RL RR), the sign the tyre's side slip, lateral force and aligning moment
/// take through its mounting: right-side tyres are mounted mirrored, so their ply-steer and
/// conicity offsets cancel the left side's and a straight car runs straight.
pub(super) const MOUNT_MIRROR: [f64; 4] = [1.0, -1.0, 1.0, -1.0];
