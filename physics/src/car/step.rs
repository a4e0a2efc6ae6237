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
//! once per step and is inlined (`#[inline(always)]`: into both copies below), so the split
//! into functions costs nothing; the quarantine's naming of a bad value is out of line (it
//! runs only after a fault).
//!
//! The step is compiled twice: as the x86-64 baseline (SSE2) and with AVX enabled
//! (`integrate_avx`), and each step takes the AVX copy when the CPU has it (checked once by
//! the standard library, then a cached flag). The AVX copy is the same arithmetic in the same
//! order: AVX without FMA only changes the instructions' encoding (three operands, so no
//! register copies before each two-operand SSE2 operation), never a rounding, so both copies
//! give the same bits (`tests::avx_and_baseline_steps_agree`
//! and the state hash, `physics/examples/state_hash.rs`). FMA is deliberately not enabled: a
//! fused multiply-add rounds once where the baseline rounds twice.

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
        self.integrate_on_this_cpu(track, dt_s);
        self.finish_step(dt_s);
    }

    /// The clock and the gear request's edge, after the phases.
    #[inline(always)]
    fn finish_step(&mut self, dt_s: f64) {
        self.time_s += dt_s;
        self.telemetry.time_s = self.time_s;
        // Gear requests are edges: apply each once (written only when set; see the notes).
        if self.controls.gear_request != GearRequest::None {
            self.controls.gear_request = GearRequest::None;
        }
    }

    /// [`Car::integrate`] in the AVX copy when the CPU has AVX, else the baseline one.
    #[inline(always)]
    fn integrate_on_this_cpu(&mut self, track: &Track, dt: f64) {
        #[cfg(target_arch = "x86_64")]
        if crate::math::lanes::avx_available() {
            // SAFETY: the CPU has AVX (checked just above), the only feature it is built for.
            unsafe { self.integrate_avx(track, dt) };
            return;
        }
        self.integrate(track, dt);
    }

    /// [`Car::integrate`] compiled with AVX (see the module notes: the same bits).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn integrate_avx(&mut self, track: &Track, dt: f64) {
        self.integrate(track, dt);
    }

    #[inline(always)]
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

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::Car;
    use crate::controls::{Controls, GearRequest};
    use crate::{builtin, track};

    /// The AVX copy of the step and the baseline one, side by side from the same start, give
    /// the same bits at every step: each built-in car on the circuit (ground queries, tyres
    /// at combined slip, camber, the drivetrain) under changing steering, throttle and brake.
    #[test]
    fn avx_and_baseline_steps_agree() {
        if !std::arch::is_x86_feature_detected!("avx") {
            return;
        }
        let track = track::builtin("circuit").expect("built-in circuit");
        let (position, yaw) = track.start_pose(0);
        for name in builtin::car_names() {
            let spec = builtin::car(name).expect("built-in car");
            let mut baseline = Car::new(&spec, &track, position, yaw);
            baseline.set_speed(15.0);
            let mut avx = baseline.clone();
            for step in 0..3_000 {
                let t = step as f64 * 0.001;
                let controls = Controls {
                    ignition: true,
                    clutch: if step < 200 { 1.0 } else { 0.0 },
                    gear_request: if step == 100 {
                        GearRequest::Select(2)
                    } else {
                        GearRequest::None
                    },
                    steering: 0.3 * (1.7 * t).sin(),
                    throttle: if step % 900 < 500 { 0.6 } else { 0.0 },
                    brake: if step % 900 >= 700 { 0.4 } else { 0.0 },
                    ..Controls::default()
                };
                baseline.set_controls(controls);
                avx.set_controls(controls);
                baseline.integrate(&track, 0.001);
                baseline.finish_step(0.001);
                // SAFETY: the CPU has AVX (checked at the start).
                unsafe { avx.integrate_avx(&track, 0.001) };
                avx.finish_step(0.001);
                assert_eq!(
                    format!("{:?}", (baseline.state(), baseline.telemetry())),
                    format!("{:?}", (avx.state(), avx.telemetry())),
                    "{name}, step {step}"
                );
            }
        }
    }
}
