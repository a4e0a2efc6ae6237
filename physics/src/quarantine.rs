//! The finiteness quarantine's report: which car, which quantity and which phase of the step
//! went non-finite (NaN or infinite), so a fault is never silent.
//!
//! Check points: the drivetrain checks its own results (engine speed, drive torques, wheel
//! spin rates) and replaces bad ones with rest; the car checks its whole new state (and its
//! speed, whose square overflows for a huge finite velocity) at the end of every step and, when any part is non-finite, restores the start-of-step pose with the
//! car at rest, then walks the step's intermediate values in phase order to name the first
//! bad one. Both checks are a multiply and an add per value ([`crate::math::FiniteProbe`]);
//! the naming runs only after a fault. The reports are plain `Copy` data: the car keeps its
//! pending one and [`World`](crate::World) the latest and a count, with no allocation in
//! `step`; a caller reads them with [`World::last_fault`](crate::World::last_fault) and
//! [`World::fault_count`](crate::World::fault_count).

use std::fmt;

use crate::world::CarId;

/// A phase of the car step (see `car/phases`), or its entry (a state set from outside),
/// ordered as the step runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum StepPhase {
    /// The state the step started from (only a state set from outside can be bad here).
    Entry,
    /// Steering angles and brake torques from the controls.
    DriverInputs,
    /// Suspension travel rates and forces.
    Suspension,
    /// Ground contact, tyre loads, slips and Magic Formula forces.
    Tyres,
    /// The drivetrain's implicit wheel update.
    Drivetrain,
    /// Forces and torques on the chassis.
    ChassisForces,
    /// Integration of the new state.
    Integration,
    /// The telemetry record of the new state.
    Telemetry,
}

/// The quantity found non-finite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Quantity {
    /// Centre of gravity position.
    Position,
    /// Body orientation.
    Orientation,
    /// Velocity of the centre of gravity.
    Velocity,
    /// Body angular velocity.
    AngularVelocity,
    /// Suspension travel of a wheel.
    SuspensionTravel,
    /// Vertical velocity of a wheel's unsprung mass.
    WheelVerticalVelocity,
    /// A wheel's spin rate.
    WheelSpin,
    /// A tyre's carcass deflection (slip state).
    TyreSlipState,
    /// Steering rim angle.
    SteeringAngle,
    /// A wheel's brake torque.
    BrakeTorque,
    /// A suspension's travel rate.
    SuspensionRate,
    /// A suspension's force on the body.
    SuspensionForce,
    /// A tyre's radial load.
    TyreLoad,
    /// A tyre's longitudinal or lateral force or aligning moment.
    TyreForce,
    /// A driven wheel's drive torque.
    DriveTorque,
    /// Engine speed.
    EngineSpeed,
    /// Total force on the chassis.
    ChassisForce,
    /// Total torque on the chassis.
    ChassisTorque,
    /// Speed of the centre of gravity (a huge velocity's length overflows).
    Speed,
}

impl StepPhase {
    /// Every phase, in step order (`ALL[p as usize] == p`: for packing into an integer).
    pub const ALL: [StepPhase; 8] = [
        StepPhase::Entry,
        StepPhase::DriverInputs,
        StepPhase::Suspension,
        StepPhase::Tyres,
        StepPhase::Drivetrain,
        StepPhase::ChassisForces,
        StepPhase::Integration,
        StepPhase::Telemetry,
    ];
}

impl Quantity {
    /// Every quantity (`ALL[q as usize] == q`: for packing into an integer).
    pub const ALL: [Quantity; 19] = [
        Quantity::Position,
        Quantity::Orientation,
        Quantity::Velocity,
        Quantity::AngularVelocity,
        Quantity::SuspensionTravel,
        Quantity::WheelVerticalVelocity,
        Quantity::WheelSpin,
        Quantity::TyreSlipState,
        Quantity::SteeringAngle,
        Quantity::BrakeTorque,
        Quantity::SuspensionRate,
        Quantity::SuspensionForce,
        Quantity::TyreLoad,
        Quantity::TyreForce,
        Quantity::DriveTorque,
        Quantity::EngineSpeed,
        Quantity::ChassisForce,
        Quantity::ChassisTorque,
        Quantity::Speed,
    ];
}

/// What one car's quarantine caught in one step (the first bad value in phase order).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NonFinite {
    /// Phase whose output (or the step's entry) held the value.
    pub phase: StepPhase,
    /// The quantity.
    pub quantity: Quantity,
    /// The wheel (0 FL, 1 FR, 2 RL, 3 RR) for a per-wheel quantity.
    pub wheel: Option<usize>,
    /// Car time at the start of the step, s.
    pub time_s: f64,
    /// True when the car was brought to rest at its start-of-step pose (a bad new state);
    /// false when only the drivetrain's bad results were replaced with rest.
    pub car_stopped: bool,
}

/// A [`NonFinite`] with the car it happened to: what [`World`](crate::World) keeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaultReport {
    /// The car.
    pub car: CarId,
    /// What went non-finite, where.
    pub fault: NonFinite,
}

impl fmt::Display for FaultReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const WHEELS: [&str; 4] = ["front left", "front right", "rear left", "rear right"];
        let fault = &self.fault;
        write!(f, "car {}: non-finite {:?}", self.car.0, fault.quantity)?;
        if let Some(wheel) = fault.wheel {
            write!(f, " ({} wheel)", WHEELS[wheel & 3])?;
        }
        write!(
            f,
            " in phase {:?} at t={:.3} s; ",
            fault.phase, fault.time_s
        )?;
        if fault.car_stopped {
            write!(f, "the car was stopped at its last good pose")
        } else {
            write!(f, "the drivetrain's values were replaced with rest")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_all_lists_are_indexed_by_discriminant() {
        for (i, phase) in StepPhase::ALL.iter().enumerate() {
            assert_eq!(*phase as usize, i);
        }
        for (i, quantity) in Quantity::ALL.iter().enumerate() {
            assert_eq!(*quantity as usize, i);
        }
    }
}
