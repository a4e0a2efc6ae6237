//! Brakes: the pedal sets a line pressure that follows it with a finite rise rate; the
//! pressure gives per-wheel torque capacities split front/rear by the bias; the handbrake adds
//! torque on the rear wheels. The torques are capacities: the wheel update never lets them
//! reverse a wheel's rotation within a step (velocity reversal), so a stopped car on the brakes
//! has wheel speed exactly 0.
//!
//! Optional ABS: each wheel's pedal pressure is scaled by a factor that falls while the wheel's
//! slip ratio is past [`ABS_SLIP_TARGET`] and recovers otherwise (proportional to the slip
//! error), so every tyre works near its peak force. Below [`ABS_CUT_OUT_MPS`] it is inactive,
//! as on real cars, so the car still stops and holds with locked wheels. The handbrake is
//! never modulated.

use crate::data::DataError;
use crate::spec::check_range;
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

/// Slip ratio the ABS holds each braked wheel at (just short of the usual peak).
pub const ABS_SLIP_TARGET: f64 = -0.10;
/// Speed below which the ABS does nothing, m/s.
pub const ABS_CUT_OUT_MPS: f64 = 2.0;
/// ABS factor change per second per unit of slip error.
const ABS_GAIN_PER_S: f64 = 60.0;

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
    abs: bool,
    abs_factor: [f64; 4],
    /// Line pressure as a fraction of full, 0..1.
    pub pressure: f64,
}

impl Brakes {
    /// Builds from the spec, pressure 0.
    pub fn new(spec: &BrakeSpec) -> Brakes {
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
            abs: spec.abs,
            abs_factor: [1.0; 4],
            pressure: 0.0,
        }
    }

    /// Moves the pressure towards the pedal and returns each wheel's torque capacity, N m.
    /// `slip_ratios` are the wheels' slip ratios of the previous step and `speed_mps` the
    /// car's speed (both for the ABS).
    pub fn step(
        &mut self,
        pedal: f64,
        handbrake: f64,
        slip_ratios: [f64; 4],
        speed_mps: f64,
        dt_s: f64,
    ) -> [f64; 4] {
        let max_change = self.rise_rate_per_s * dt_s;
        self.pressure += (pedal - self.pressure).clamp(-max_change, max_change);
        let active = self.abs && speed_mps > ABS_CUT_OUT_MPS;
        for (factor, slip) in self.abs_factor.iter_mut().zip(slip_ratios) {
            *factor = if active {
                (*factor + dt_s * ABS_GAIN_PER_S * (slip - ABS_SLIP_TARGET)).clamp(0.0, 1.0)
            } else {
                1.0
            };
        }
        let p = self.pressure;
        let hb = handbrake * self.handbrake_nm;
        let f = self.abs_factor;
        [
            p * f[0] * self.per_wheel_full_nm[0],
            p * f[1] * self.per_wheel_full_nm[1],
            p * f[2] * self.per_wheel_full_nm[2] + hb,
            p * f[3] * self.per_wheel_full_nm[3] + hb,
        ]
    }
}
