//! The torque path from the engine to the wheels and the rotational update of the wheels.
//!
//! CONTRACT SKELETON (direct drive: throttle times a fixed wheel torque on the rear wheels,
//! brakes with velocity reversal, implicit tyre coupling). The drivetrain work replaces the
//! bodies with engine, clutch, gearbox and differentials; the signatures stay.

use crate::controls::Controls;
use crate::telemetry::DrivetrainTelemetry;
use serde::Deserialize;

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

/// The `[drivetrain]` table of a car document.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrivetrainSpec {
    /// Skeleton: peak torque at the driven wheels, N m.
    pub wheel_torque_nm: f64,
}

/// Engine, clutch, gearbox and differentials of one car.
#[derive(Debug, Clone)]
pub struct Drivetrain {
    spec: DrivetrainSpec,
    drive_torque_nm: [f64; 4],
}

impl Drivetrain {
    /// Builds the drivetrain from its validated spec.
    pub fn new(spec: &DrivetrainSpec) -> Drivetrain {
        Drivetrain {
            spec: spec.clone(),
            drive_torque_nm: [0.0; 4],
        }
    }

    /// Advances the driveline and the wheels one step; returns the new wheel spin rates.
    pub fn step(
        &mut self,
        controls: &Controls,
        wheels: &[WheelSpinInput; 4],
        dt_s: f64,
    ) -> [f64; 4] {
        let drive = controls.throttle * self.spec.wheel_torque_nm * 0.5;
        self.drive_torque_nm = [0.0, 0.0, drive, drive];
        let mut out = [0.0; 4];
        for (i, w) in wheels.iter().enumerate() {
            out[i] = implicit_wheel_update(w, self.drive_torque_nm[i], dt_s);
        }
        out
    }

    /// Drive torque delivered to each wheel in the last step, N m.
    pub fn drive_torques_nm(&self) -> [f64; 4] {
        self.drive_torque_nm
    }

    /// Engine, gearbox and differential channels.
    pub fn telemetry(&self) -> DrivetrainTelemetry {
        DrivetrainTelemetry::default()
    }
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
