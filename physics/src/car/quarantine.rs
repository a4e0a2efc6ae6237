//! The car's finiteness quarantine: the end-of-step check point over the whole new state, the
//! restore after a fault (the start-of-step pose, the car at rest: no NaN ever leaves
//! `step`), and the naming of the first bad value in phase order for the report
//! ([`crate::quarantine`]). The drivetrain's own check point reports through
//! [`Car::record_fault`]. The tyres' thermal state is not checked: its update bounds every
//! value it writes (a NaN becomes a bound), and a restore keeps it.

use super::phases::StartPose;
use super::step::StepRecord;
use super::{Car, CarState};
use crate::math::{FiniteProbe, Quat, Vec3};
use crate::quarantine::{NonFinite, Quantity, StepPhase};
use crate::track::Track;

impl Car {
    /// Records a fault caught in this step. A fault already recorded for this step stays
    /// when it comes from the same or an earlier phase (it is the cause, the later one its
    /// consequence); `car_stopped` marks the car as stopped either way.
    pub(super) fn record_fault(
        &mut self,
        phase: StepPhase,
        quantity: Quantity,
        wheel: Option<usize>,
        car_stopped: bool,
    ) {
        let fault = NonFinite {
            phase,
            quantity,
            wheel,
            time_s: self.time_s,
            car_stopped,
        };
        self.fault = match self.fault {
            Some(earlier) if earlier.time_s == self.time_s && earlier.phase <= phase => {
                Some(NonFinite {
                    car_stopped: earlier.car_stopped || car_stopped,
                    ..earlier
                })
            }
            _ => Some(fault),
        };
    }

    /// The fault caught since the last call, if any (the world collects it after each step).
    pub(crate) fn take_fault(&mut self) -> Option<NonFinite> {
        self.fault.take()
    }

    /// The end-of-step check point: a non-finite new state is reported and replaced.
    #[inline(always)]
    pub(super) fn quarantine_new_state(
        &mut self,
        track: &Track,
        start: &StartPose,
        record: &StepRecord,
    ) {
        if !state_is_finite(&self.state, self.telemetry.speed_mps) {
            self.stop_after_fault(track, start, record);
        }
    }

    /// Names the first bad value, then restores the start-of-step pose (or, when that is
    /// itself bad, the car's starting pose) with the car at rest.
    #[cold]
    #[inline(never)]
    fn stop_after_fault(&mut self, track: &Track, start: &StartPose, record: &StepRecord) {
        let speed_mps = self.telemetry.speed_mps;
        let (phase, quantity, wheel) = first_non_finite(start, record, &self.state, speed_mps);
        self.record_fault(phase, quantity, wheel, true);
        let pose_finite = start.position.is_finite()
            && quat_is_finite(start.orientation)
            && start.travel.iter().all(|t| t.is_finite());
        let pose = if pose_finite {
            *start
        } else {
            StartPose::of(&self.start_state)
        };
        self.state = CarState {
            velocity: Vec3::ZERO,
            angular_velocity_body: Vec3::ZERO,
            wheel_vertical_velocity: [0.0; 4],
            wheel_omega: [0.0; 4],
            slip: Default::default(),
            position: pose.position,
            orientation: pose.orientation,
            travel: pose.travel,
            // Finite by construction (the thermal update bounds every value it writes).
            tyres: self.state.tyres,
        };
        self.telemetry = Default::default();
        self.refresh_track_coord(track);
    }
}

/// True when every component of `s` is finite, and its speed `speed_mps` too (a finite but
/// huge velocity, set from outside, can overflow its length): a multiply and an add each.
pub(super) fn state_is_finite(s: &CarState, speed_mps: f64) -> bool {
    let (p, v, w, q) = (
        s.position,
        s.velocity,
        s.angular_velocity_body,
        s.orientation,
    );
    let mut probe = FiniteProbe::new();
    probe.add4([p.x, p.y, p.z, q.z]);
    probe.add4([v.x, v.y, v.z, q.w]);
    probe.add4([w.x, w.y, w.z, q.x]);
    probe.add(3, q.y);
    probe.add(2, speed_mps);
    probe.add4(s.travel);
    probe.add4(s.wheel_vertical_velocity);
    probe.add4(s.wheel_omega);
    probe.add4(s.slip.map(|slip| slip.u_x));
    probe.add4(s.slip.map(|slip| slip.u_y));
    probe.all_finite()
}

fn quat_is_finite(q: Quat) -> bool {
    q.w.is_finite() && q.x.is_finite() && q.y.is_finite() && q.z.is_finite()
}

/// The first non-finite value of the step, in phase order: the start state, then each
/// phase's results, then the new state and its speed.
fn first_non_finite(
    start: &StartPose,
    record: &StepRecord,
    new: &CarState,
    speed_mps: f64,
) -> (StepPhase, Quantity, Option<usize>) {
    use Quantity as Q;
    use StepPhase as P;
    // None: finite; Some(None): the quantity is bad; Some(Some(w)): wheel w's is bad.
    let whole = |finite: bool| (!finite).then_some(None);
    let wheel = |values: [f64; 4]| values.iter().position(|v| !v.is_finite()).map(Some);
    let (work, inputs, loads) = (record.work, record.inputs, record.loads);
    let checks = [
        (P::Entry, Q::Position, whole(start.position.is_finite())),
        (
            P::Entry,
            Q::Orientation,
            whole(quat_is_finite(start.orientation)),
        ),
        (P::Entry, Q::Velocity, whole(start.velocity.is_finite())),
        (
            P::Entry,
            Q::AngularVelocity,
            whole(record.frame.w_body.is_finite()),
        ),
        (P::Entry, Q::SuspensionTravel, wheel(start.travel)),
        (
            P::Entry,
            Q::WheelSpin,
            wheel(record.spin.map(|s| s.omega_radps)),
        ),
        (
            P::DriverInputs,
            Q::Speed,
            whole(inputs.speed_mps.is_finite()),
        ),
        (
            P::DriverInputs,
            Q::SteeringAngle,
            whole(inputs.rim_rad.is_finite()),
        ),
        (P::DriverInputs, Q::BrakeTorque, wheel(inputs.brake_nm)),
        (
            P::Suspension,
            Q::SuspensionRate,
            wheel(work.map(|w| w.travel_rate)),
        ),
        (P::Tyres, Q::TyreLoad, wheel(work.map(|w| w.load))),
        (
            P::Tyres,
            Q::TyreForce,
            wheel(work.map(|w| w.forces.fx + w.forces.fy + w.forces.mz)),
        ),
        (P::Drivetrain, Q::WheelSpin, wheel(new.wheel_omega)),
        (
            P::Drivetrain,
            Q::TyreSlipState,
            wheel(new.slip.map(|s| s.u_x + s.u_y)),
        ),
        (
            P::ChassisForces,
            Q::SuspensionForce,
            wheel(work.map(|w| w.suspension_force)),
        ),
        (
            P::ChassisForces,
            Q::ChassisForce,
            whole(loads.force.is_finite()),
        ),
        (
            P::ChassisForces,
            Q::ChassisTorque,
            whole(loads.torque.is_finite()),
        ),
        (P::Integration, Q::Velocity, whole(new.velocity.is_finite())),
        (
            P::Integration,
            Q::AngularVelocity,
            whole(new.angular_velocity_body.is_finite()),
        ),
        (
            P::Integration,
            Q::WheelVerticalVelocity,
            wheel(new.wheel_vertical_velocity),
        ),
        (P::Integration, Q::SuspensionTravel, wheel(new.travel)),
        (
            P::Integration,
            Q::Orientation,
            whole(quat_is_finite(new.orientation)),
        ),
        (P::Telemetry, Q::Speed, whole(speed_mps.is_finite())),
    ];
    checks
        .into_iter()
        .find_map(|(phase, quantity, bad)| bad.map(|wheel| (phase, quantity, wheel)))
        // The state check failed on one of the values above or on the position.
        .unwrap_or((P::Integration, Q::Position, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_finite_unless_some_component_is_infinite_or_nan() {
        let base = CarState {
            position: Vec3::new(1e300, -1e300, 0.0),
            velocity: Vec3::new(-0.0, 3.0, f64::MAX),
            ..CarState::default()
        };
        assert!(state_is_finite(&base, 3.0));
        assert!(!state_is_finite(&base, f64::INFINITY));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut s = base;
            s.slip[3].u_y = bad;
            assert!(!state_is_finite(&s, 3.0));
            let mut s = base;
            s.orientation.z = bad;
            assert!(!state_is_finite(&s, 3.0));
            let mut s = base;
            s.wheel_omega[0] = bad;
            assert!(!state_is_finite(&s, 3.0));
        }
    }
}
