//! Brakes: the pedal sets a line pressure that follows it with a finite rise rate; the
//! pressure gives per-wheel torque capacities split front/rear by the bias; the handbrake adds
//! torque on the rear wheels. The torques are capacities: the wheel update never lets them
//! reverse a wheel's rotation within a step (velocity reversal), so a stopped car on the brakes
//! has wheel speed exactly 0.
//!
//! Optional ABS ([`abs`]): each wheel's pedal torque is scaled by a factor that holds the
//! tyre at the slip of its Magic Formula peak, so every tyre works at its peak force. Below
//! [`ABS_CUT_OUT_MPS`] it is inactive, as on real cars, so the car still stops and holds with
//! locked wheels. The handbrake is never modulated.

pub mod abs;

use crate::data::DataError;
use crate::spec::check_range;
use crate::telemetry::WheelTelemetry;
use crate::tyre::Tyre;
use abs::Abs;
pub use abs::ABS_CUT_OUT_MPS;
use serde::Deserialize;

/// The `[brakes]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrakeSpec {
    /// Total brake torque of all four wheels at full pedal, N m.
    pub max_torque_nm: f64,
    /// Share of the pedal torque on the front axle, 0..1.
    pub front_bias: f64,
    /// Handbrake torque on each rear wheel at full lever, N m.
    pub handbrake_torque_nm: f64,
    /// Time for the line pressure to go from 0 to full, s.
    pub rise_time_s: f64,
    /// Anti-lock braking on the pedal brakes (default off).
    #[serde(default)]
    pub abs: bool,
}

impl BrakeSpec {
    /// Range checks.
    pub fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        check_range(
            text,
            origin,
            "brakes.max_torque_nm",
            self.max_torque_nm,
            0.0,
            1e6,
        )?;
        check_range(text, origin, "brakes.front_bias", self.front_bias, 0.0, 1.0)?;
        check_range(
            text,
            origin,
            "brakes.handbrake_torque_nm",
            self.handbrake_torque_nm,
            0.0,
            1e5,
        )?;
        check_range(
            text,
            origin,
            "brakes.rise_time_s",
            self.rise_time_s,
            0.0,
            2.0,
        )?;
        Ok(())
    }
}

/// Brake system state of one car.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Brakes {
    per_wheel_full_nm: [f64; 4],
    handbrake_nm: f64,
    rise_rate_per_s: f64,
    abs: Abs,
    /// Line pressure as a fraction of full, 0..1.
    pub pressure: f64,
}

impl Brakes {
    /// Builds from the spec, pressure 0; the ABS (if the spec has one) is set up for `tyre`.
    pub fn new(spec: &BrakeSpec, tyre: &Tyre) -> Brakes {
        let front = 0.5 * spec.max_torque_nm * spec.front_bias;
        let rear = 0.5 * spec.max_torque_nm * (1.0 - spec.front_bias);
        Brakes {
            per_wheel_full_nm: [front, front, rear, rear],
            handbrake_nm: spec.handbrake_torque_nm,
            rise_rate_per_s: if spec.rise_time_s > 0.0 {
                1.0 / spec.rise_time_s
            } else {
                f64::INFINITY
            },
            abs: Abs::new(spec.abs, tyre),
            pressure: 0.0,
        }
    }

    /// Moves the pressure towards the pedal and returns each wheel's torque capacity, N m.
    /// `wheels` is the previous step's wheel record and `speed_mps` the car's speed (both for
    /// the ABS).
    #[inline]
    pub fn step(
        &mut self,
        pedal: f64,
        handbrake: f64,
        wheels: &[WheelTelemetry; 4],
        speed_mps: f64,
        dt_s: f64,
    ) -> [f64; 4] {
        let max_change = self.rise_rate_per_s * dt_s;
        self.pressure += (pedal - self.pressure).clamp(-max_change, max_change);
        let p = self.pressure;
        let pedal_nm = self.per_wheel_full_nm.map(|full| p * full);
        let f = self.abs.step(pedal_nm, wheels, speed_mps, dt_s);
        let hb = handbrake * self.handbrake_nm;
        [
            pedal_nm[0] * f[0],
            pedal_nm[1] * f[1],
            pedal_nm[2] * f[2] + hb,
            pedal_nm[3] * f[3] + hb,
        ]
    }
}
