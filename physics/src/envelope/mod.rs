//! The car's g-g-v envelope: at each speed on flat ground, the steady lateral limit, the
//! straight-line braking and full-throttle limits and the coasting deceleration, with the
//! shape of the g-g diagram between the axes, the shift time and the power-optimal upshift
//! speeds. Lap-time simulation and the robot's speed profile read it; `rigd envelope`
//! measures it by driving the car, and an estimate from the car data stands in when no
//! measured file is given.
//!
//! Between the axes the g-g diagram is the superellipse `(ax / ax_max)^n + (ay / ay_max)^n = 1`
//! with one exponent for braking and one for driving (2 is the friction circle; measured cars
//! come out between about 1.5 and 2.5). Lookups interpolate linearly in speed and hold the end
//! values outside the measured range. Plain data: lookups never allocate.
//!
//! [`file`] reads and writes it as TOML and refuses files made for another car; [`measure`]
//! measures it by driving the car.

pub mod file;
pub mod measure;

pub mod estimate;

/// Where an envelope's numbers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvelopeSource {
    /// Driven in the full simulation (`rigd envelope`).
    Measured,
    /// Computed from the car data without driving.
    Estimated,
}

/// How an envelope was made, written into its file.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    /// Measured or estimated.
    pub source: EnvelopeSource,
    /// The rigd version that made it.
    pub rigd_version: String,
    /// What was run (manoeuvres, speeds, step), for humans.
    pub method: String,
}

/// The limits at one speed, flat ground, no wind.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnvelopePoint {
    /// Speed, m/s.
    pub speed_mps: f64,
    /// Steady-state lateral limit, m/s^2 (positive).
    pub lateral_mps2: f64,
    /// Straight-line braking limit, m/s^2 (positive deceleration, drag included).
    pub braking_mps2: f64,
    /// Full-throttle acceleration in the best gear, m/s^2 (net of drag and rolling
    /// resistance; traction-limited where the driven axle's grip is the limit).
    pub drive_mps2: f64,
    /// Deceleration coasting in neutral (drag and rolling resistance), m/s^2 (positive).
    pub coast_mps2: f64,
}

/// A car's g-g-v envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// Name of the car it was made for.
    pub car_name: String,
    /// [`crate::identity::digest_of`] of that car's [`crate::CarSpec`].
    pub car_digest: u64,
    /// How it was made.
    pub provenance: Provenance,
    /// Limits at ascending speeds (at least two points).
    pub points: Vec<EnvelopePoint>,
    /// Superellipse exponent of the g-g diagram while braking.
    pub brake_exponent: f64,
    /// Superellipse exponent of the g-g diagram while driving.
    pub drive_exponent: f64,
    /// Time without drive during an upshift, s.
    pub shift_time_s: f64,
    /// Road speed at which an upshift from gear `i + 1` gives more wheel force, m/s (one per
    /// upshift; empty for a car without a gearbox).
    pub upshift_speeds_mps: Vec<f64>,
}

impl Envelope {
    /// Interpolates `field` of the points at `speed_mps` (end values held outside).
    fn lookup(&self, speed_mps: f64, field: impl Fn(&EnvelopePoint) -> f64) -> f64 {
        let points = &self.points;
        let above = points.partition_point(|point| point.speed_mps <= speed_mps);
        if above == 0 {
            return field(&points[0]);
        }
        if above == points.len() {
            return field(&points[points.len() - 1]);
        }
        let (low, high) = (&points[above - 1], &points[above]);
        let t = (speed_mps - low.speed_mps) / (high.speed_mps - low.speed_mps);
        field(low) + (field(high) - field(low)) * t
    }

    /// Steady lateral limit at `speed_mps`, m/s^2.
    pub fn lateral_limit_mps2(&self, speed_mps: f64) -> f64 {
        self.lookup(speed_mps, |point| point.lateral_mps2)
    }

    /// Straight-line braking limit at `speed_mps`, m/s^2 (positive).
    pub fn braking_limit_mps2(&self, speed_mps: f64) -> f64 {
        self.lookup(speed_mps, |point| point.braking_mps2)
    }

    /// Full-throttle acceleration at `speed_mps`, m/s^2 (may be negative past top speed).
    pub fn drive_limit_mps2(&self, speed_mps: f64) -> f64 {
        self.lookup(speed_mps, |point| point.drive_mps2)
    }

    /// Coasting deceleration at `speed_mps`, m/s^2 (positive).
    pub fn coast_mps2(&self, speed_mps: f64) -> f64 {
        self.lookup(speed_mps, |point| point.coast_mps2)
    }

    /// Share of an axis limit left while `lateral_mps2` of the lateral limit is in use, on
    /// the superellipse with `exponent`: `(1 - (ay / ay_max)^n)^(1/n)`, 0 at or past the limit.
    fn remaining_share(&self, speed_mps: f64, lateral_mps2: f64, exponent: f64) -> f64 {
        let limit = self.lateral_limit_mps2(speed_mps);
        if limit <= 0.0 {
            return 0.0;
        }
        let used = (lateral_mps2.abs() / limit).min(1.0);
        (1.0 - used.powf(exponent)).max(0.0).powf(1.0 / exponent)
    }

    /// Braking deceleration available at `speed_mps` while cornering at `lateral_mps2`,
    /// m/s^2 (positive).
    pub fn braking_with_lateral_mps2(&self, speed_mps: f64, lateral_mps2: f64) -> f64 {
        self.braking_limit_mps2(speed_mps)
            * self.remaining_share(speed_mps, lateral_mps2, self.brake_exponent)
    }

    /// Forward acceleration available at `speed_mps` while cornering at `lateral_mps2`,
    /// m/s^2: the traction share of the g-g diagram, never more than the engine gives.
    pub fn drive_with_lateral_mps2(&self, speed_mps: f64, lateral_mps2: f64) -> f64 {
        let drive = self.drive_limit_mps2(speed_mps);
        if drive <= 0.0 {
            return drive;
        }
        drive * self.remaining_share(speed_mps, lateral_mps2, self.drive_exponent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_point_envelope() -> Envelope {
        let point = |speed_mps: f64, lateral_mps2: f64| EnvelopePoint {
            speed_mps,
            lateral_mps2,
            braking_mps2: 10.0,
            drive_mps2: 4.0,
            coast_mps2: 0.5,
        };
        Envelope {
            car_name: "test".into(),
            car_digest: 0,
            provenance: Provenance {
                source: EnvelopeSource::Estimated,
                rigd_version: "0".into(),
                method: "by hand".into(),
            },
            points: vec![point(10.0, 8.0), point(50.0, 7.0)],
            brake_exponent: 2.0,
            drive_exponent: 2.0,
            shift_time_s: 0.2,
            upshift_speeds_mps: vec![],
        }
    }

    #[test]
    fn lookups_interpolate_in_speed_and_hold_the_ends() {
        let envelope = two_point_envelope();
        assert_eq!(envelope.lateral_limit_mps2(30.0), 7.5);
        assert_eq!(envelope.lateral_limit_mps2(0.0), 8.0);
        assert_eq!(envelope.lateral_limit_mps2(90.0), 7.0);
    }

    #[test]
    fn the_friction_circle_leaves_the_cosine_share_between_the_axes() {
        let envelope = two_point_envelope();
        // At 10 m/s the lateral limit is 8: using 0.6 of it leaves 0.8 of the braking limit.
        let braking = envelope.braking_with_lateral_mps2(10.0, 4.8);
        assert!((braking - 8.0).abs() < 1e-12, "{braking}");
        assert_eq!(envelope.drive_with_lateral_mps2(10.0, 8.0), 0.0);
        assert_eq!(envelope.braking_with_lateral_mps2(10.0, 0.0), 10.0);
    }
}
