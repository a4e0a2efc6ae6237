//! Shared test rig for the drivetrain tests: drivetrain specs in TOML and a point-mass car with a
//! simple saturating tyre per wheel, so the driveline can be exercised without the full car.
//!
//! The tyre: `Fx = mu Fz s / (1 + |s|)` with `s = C kappa`, `kappa = (omega r - v) /
//! max(|v|, 1 m/s)`; the road torque is `-Fx r` and its omega-slope is handed to the drivetrain
//! for the implicit update, exactly as the car does.
#![allow(dead_code)]

use rig_physics::drivetrain::{Drivetrain, DrivetrainSpec, WheelSpinInput};
use rig_physics::Controls;

/// Step size of every test, s.
pub const DT: f64 = 0.001;

/// A drivetrain table with the given layout line(s) and differential tables.
pub fn spec_toml(layout: &str, gearbox_extra: &str, diffs: &str) -> String {
    format!(
        r#"
{layout}

[engine]
torque_curve_rpm = [0, 1000, 2000, 3000, 4000, 5000, 6000, 7000]
torque_curve_nm = [60, 150, 190, 215, 230, 225, 205, 170]
inertia_kgm2 = 0.18
idle_rpm = 850
stall_rpm = 450
rev_limit_rpm = 6800
friction_nm = 12
friction_nm_per_krpm = 2.5
engine_brake_nm_per_krpm = 4
starter_torque_nm = 60
starter_max_rpm = 700

[clutch]
max_torque_nm = 350

[gearbox]
forward_ratios = [3.3, 2.1, 1.5, 1.15, 0.92]
reverse_ratio = 3.2
final_drive_ratio = 3.9
efficiency = 0.94
reverse_max_speed_mps = 1.5
{gearbox_extra}

{diffs}
"#
    )
}

/// Parses and validates a drivetrain table.
pub fn spec(text: &str) -> DrivetrainSpec {
    let spec: DrivetrainSpec =
        rig_physics::data::parse_toml(text, "test").unwrap_or_else(|e| panic!("{e}"));
    spec.validate(text, "test")
        .unwrap_or_else(|e| panic!("{e}"));
    spec
}

/// An RWD drivetrain with the given rear differential table body (e.g. `kind = "open"`).
pub fn rwd(mode_lines: &str, rear_diff: &str) -> Drivetrain {
    Drivetrain::new(&spec(&spec_toml(
        "layout = \"rwd\"",
        mode_lines,
        &format!("[rear_differential]\n{rear_diff}"),
    )))
}

/// Gearbox lines for an H-pattern box that needs the clutch.
pub const H_PATTERN: &str = "mode = \"h_pattern\"\nshift_time_s = 0.3\nrequires_clutch = true";
/// Gearbox lines for a sequential box.
pub const SEQUENTIAL: &str = "mode = \"sequential\"\nshift_time_s = 0.05\nrequires_clutch = false";

/// Point-mass car on four simple tyres.
#[derive(Debug, Clone)]
pub struct Rig {
    /// Forward speed, m/s.
    pub speed_mps: f64,
    /// Mass, kg.
    pub mass_kg: f64,
    /// Wheel spin rates, rad/s.
    pub omega: [f64; 4],
    /// Friction coefficient under each wheel.
    pub mu: [f64; 4],
    /// Vertical load on each wheel, N.
    pub load_n: [f64; 4],
    /// Brake capacity per wheel at full pedal, N m.
    pub brake_nm: f64,
    /// Wheel radius, m.
    pub radius_m: f64,
    /// Wheel spin inertia, kg m^2.
    pub inertia_kgm2: f64,
    /// Tyre slip stiffness factor `C`.
    pub stiffness: f64,
}

impl Rig {
    /// A 1300 kg car at rest on dry road.
    pub fn new() -> Rig {
        Rig {
            speed_mps: 0.0,
            mass_kg: 1300.0,
            omega: [0.0; 4],
            mu: [1.0; 4],
            load_n: [1300.0 * 9.81 / 4.0; 4],
            brake_nm: 2500.0,
            radius_m: 0.31,
            inertia_kgm2: 1.2,
            stiffness: 20.0,
        }
    }

    /// Rolling at `speed` with free-rolling wheels.
    pub fn rolling(speed_mps: f64) -> Rig {
        let mut rig = Rig::new();
        rig.speed_mps = speed_mps;
        rig.omega = [speed_mps / rig.radius_m; 4];
        rig
    }

    /// Tyre force of wheel `w` and its derivative with respect to omega.
    pub fn tyre(&self, w: usize) -> (f64, f64) {
        let denom = self.speed_mps.abs().max(1.0);
        let s = self.stiffness * (self.omega[w] * self.radius_m - self.speed_mps) / denom;
        let peak = self.mu[w] * self.load_n[w];
        let force = peak * s / (1.0 + s.abs());
        let dforce_ds = peak / ((1.0 + s.abs()) * (1.0 + s.abs()));
        (force, dforce_ds * self.stiffness * self.radius_m / denom)
    }

    /// The inputs the drivetrain gets for this state and brake pedal.
    pub fn inputs(&self, brake: f64) -> [WheelSpinInput; 4] {
        std::array::from_fn(|w| {
            let (force, dforce) = self.tyre(w);
            WheelSpinInput {
                omega_radps: self.omega[w],
                inertia_kgm2: self.inertia_kgm2,
                road_torque_nm: -force * self.radius_m,
                road_torque_slope: -dforce * self.radius_m,
                brake_torque_nm: brake * self.brake_nm,
            }
        })
    }

    /// One step: drivetrain then the car's speed (semi-implicit: forces at the new spin rates).
    pub fn step(&mut self, drivetrain: &mut Drivetrain, controls: &Controls) {
        let inputs = self.inputs(controls.brake);
        self.omega = drivetrain.step(controls, &inputs, DT);
        let mut total = 0.0;
        for w in 0..4 {
            total += self.tyre(w).0;
        }
        self.speed_mps += DT * total / self.mass_kg;
    }
}

/// Controls with the ignition on and everything else at rest.
pub fn ignition_on() -> Controls {
    Controls {
        ignition: true,
        ..Controls::default()
    }
}
