//! One fixed step of one car: the pipeline of [`phases`](super::phases) in order, then the
//! quarantine's check of the new state.
//!
//! Data flow: the body frame and the driver inputs come from the start state; the suspension,
//! contact and tyre phases fill a per-wheel work record on the stack; the drivetrain's
//! implicit solve gives the new spin rates (the first write to `self.state`, after the part
//! of the start state a fault must restore is kept aside); chassis forces and the motion
//! phase write the rest of the new state; telemetry reads it.
//!
//! Performance notes (the step runs a hundred cars per millisecond tick): the start state is
//! read in place, not copied (nothing writes `self.state` until the drivetrain has run, and
//! from then on each field is read before it is written). A load right after a store to the
//! same place waits for the store to complete (a store-forwarding stall), so the telemetry
//! phase projects the body onto the track first and stores the result last, and the gear
//! request (read back at once by the next step) is cleared only when set. Each phase runs
//! once per step and is inlined (one codegen unit), so the split into functions costs
//! nothing; the quarantine's naming of a bad value is out of line (it runs only after a
//! fault).

use super::phases::chassis_forces::ChassisLoads;
use super::phases::driver_inputs::DriverInputs;
use super::phases::{StartPose, StepFrame, WheelWork};
use super::Car;
use crate::controls::GearRequest;
use crate::drivetrain::WheelSpinInput;
use crate::track::Track;

/// The step's intermediate results, read by the quarantine to name a bad value.
pub(super) struct StepRecord<'a> {
    pub frame: &'a StepFrame,
    pub inputs: &'a DriverInputs,
    pub work: &'a [WheelWork; 4],
    pub spin: &'a [WheelSpinInput; 4],
    pub loads: &'a ChassisLoads,
}

impl Car {
    /// Advances the car by `dt_s` (at most a few ms) on `track`. No allocation.
    pub fn step(&mut self, track: &Track, dt_s: f64) {
        self.integrate(track, dt_s);
        self.time_s += dt_s;
        self.telemetry.time_s = self.time_s;
        // Gear requests are edges: apply each once (written only when set; see the notes).
        if self.controls.gear_request != GearRequest::None {
            self.controls.gear_request = GearRequest::None;
        }
    }

    fn integrate(&mut self, track: &Track, dt: f64) {
        let controls = self.controls;
        let frame = StepFrame::of(&self.state, &self.corners);
        let inputs = self.driver_inputs(&controls, dt);
        let mut work = [WheelWork::default(); 4];
        self.suspension_forces(&frame, &mut work, dt);
        let tyre_inputs = self.wheel_contacts(track, &frame, inputs.steer_sin_cos, &mut work, dt);
        // A kerb strike or landing hard enough breaks a link (from the next step on).
        self.take_damage(&[0.0; 8], &tyre_inputs.loads);
        let spin = self.tyre_forces(&tyre_inputs, &mut work, inputs.brake_nm);
        let new_omega = self.drivetrain_step(&controls, &spin, dt);
        // `self.state` becomes the new state from here on, field by field.
        let start = StartPose::of(&self.state);
        self.commit_wheel_spin(&mut work, new_omega, dt);
        self.update_tyre_condition(track, &work, inputs.speed_mps, dt);
        let loads = self.chassis_forces(track, &frame, &mut work, &start, inputs.speed_mps);
        let motion = self.integrate_motion(track, &frame, &loads, &work, &start, dt);
        self.fill_telemetry(
            track,
            &work,
            inputs.brake_nm,
            motion.accel,
            inputs.rim_rad,
            motion.barrier,
        );
        let record = StepRecord {
            frame: &frame,
            inputs: &inputs,
            work: &work,
            spin: &spin,
            loads: &loads,
        };
        self.quarantine_new_state(track, &start, &record);
    }
}
