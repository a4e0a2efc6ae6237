//! Quasi-steady-state (QSS) lap-time simulation: a car's g-g-v [`Envelope`] run along a line
//! (the robot's stations: curvature, banking, step, ground grip, plus the track's grade).
//!
//! Method (the one of OptimumLap and the open TUM tools):
//! 1. Apex limit per station: the highest speed whose lateral acceleration the envelope
//!    carries, on the banked surface. With bank `th` towards the turn the tyres see
//!    `ay = v^2 k cos th - g sin th` in the road plane under a normal load factor
//!    `n = cos th + v^2 k sin th / g`, and carry `n` times the flat-ground limit: with a
//!    constant limit `mu g` that is the banked-curve formula
//!    `v^2 = g R (sin th + mu cos th) / (cos th - mu sin th)`. Downforce enters through the
//!    envelope's rise of the limit with speed.
//! 2. Forward pass from the slowest apex: full drive inside the g-g diagram
//!    (`drive_with_lateral`, the driven axle's traction and the engine), less the grade; at
//!    each upshift speed there is no drive for the shift time (coasting). A lap that no corner
//!    holds back (flat out all the way round) arrives slower than it set off: it is run again
//!    from the speed it arrives with.
//! 3. Backward pass: the latest braking the diagram allows (`braking_with_lateral`), the grade
//!    helping uphill.
//! 4. The speed is the least of the three; time per step is `2 ds / (v0 + v1)` (constant
//!    acceleration over the step).
//!
//! A `margin` (0..1] scales the lateral and braking limits (the robot plans with it); the
//! engine's drive is not scaled. A closed course is one lap of a circuit; an open one starts
//! from rest at its first point (a drag strip). Set-up allocates; [`LapSim::run`] on a course
//! of the same length reuses its buffers.

pub mod compare;

use crate::envelope::Envelope;
use crate::robot::line::Station;
use crate::spec::GRAVITY_MPS2;
use crate::track::Track;

/// Highest speed the simulation considers, m/s.
pub const TOP_SPEED_MPS: f64 = 90.0;
/// Most forward passes over a closed lap that no corner holds back (each from the speed the
/// one before arrived with).
const FORWARD_PASSES: usize = 4;
/// A lap's forward pass is settled when it arrives at its start this close to the speed it
/// set off with, m/s.
const ARRIVAL_TOLERANCE_MPS: f64 = 1e-3;

/// One point of a course: a station of the line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CoursePoint {
    /// Centreline distance of the point, m (where lap timing sees it).
    pub distance_m: f64,
    /// Length of the line to the next point, m.
    pub step_m: f64,
    /// Signed curvature of the line, 1/m (positive turning left).
    pub curvature_per_m: f64,
    /// Bank angle, rad (positive: left edge lower).
    pub bank_rad: f64,
    /// Grade along the line, rise over run.
    pub grade: f64,
    /// Friction scale of the ground (1 dry asphalt).
    pub grip_scale: f64,
}

/// A line to run the envelope along.
#[derive(Debug, Clone, PartialEq)]
pub struct Course {
    /// The points, in driving order.
    pub points: Vec<CoursePoint>,
    /// True for a lap (the last point steps back to the first), false for a run from rest.
    pub closed: bool,
    /// Centreline distances where sectors 2 and 3 start, m.
    pub sector_starts_m: [f64; 2],
}

impl Course {
    /// The course of a line on `track` (the robot's stations), with the track's grade at each
    /// station and its sectors.
    pub fn from_stations(track: &Track, stations: &[Station]) -> Course {
        let points = stations
            .iter()
            .map(|station| CoursePoint {
                distance_m: station.distance_m,
                step_m: station.step_m,
                curvature_per_m: station.curvature_per_m,
                bank_rad: station.bank_rad,
                grade: track.section(station.distance_m).grade,
                grip_scale: station.grip_scale,
            })
            .collect();
        Course {
            points,
            closed: track.is_closed(),
            sector_starts_m: track.sector_starts_m(),
        }
    }

    /// A straight of `length_m` on flat ground, run from rest, in steps of `step_m`.
    pub fn straight(length_m: f64, step_m: f64) -> Course {
        let count = (length_m / step_m).round().max(1.0) as usize;
        let step_m = length_m / count as f64;
        let points = (0..=count)
            .map(|i| CoursePoint {
                distance_m: i as f64 * step_m,
                step_m: if i == count { 0.0 } else { step_m },
                curvature_per_m: 0.0,
                bank_rad: 0.0,
                grade: 0.0,
                grip_scale: 1.0,
            })
            .collect();
        Course {
            points,
            closed: false,
            sector_starts_m: [length_m / 3.0, 2.0 * length_m / 3.0],
        }
    }
}

/// The result of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Lap {
    /// Time for the whole course, s.
    pub time_s: f64,
    /// Time in each sector, s.
    pub sector_times_s: [f64; 3],
    /// Speed at each course point, m/s.
    pub speeds_mps: Vec<f64>,
    /// Time at each course point since the start, s.
    pub times_s: Vec<f64>,
    /// Longitudinal acceleration planned from each point to the next, m/s^2.
    pub accels_mps2: Vec<f64>,
}

/// The envelope as one run sees it: the margin applied, banking and ground grip folded in.
struct Limits<'a> {
    envelope: &'a Envelope,
    margin: f64,
}

impl Limits<'_> {
    /// Lateral acceleration in the road plane and the normal load factor at `speed` on `point`
    /// (positive lateral: more than the bank carries by itself).
    fn lateral_and_normal(point: &CoursePoint, speed: f64) -> (f64, f64) {
        let k = point.curvature_per_m;
        let bank = if k >= 0.0 {
            point.bank_rad
        } else {
            -point.bank_rad
        };
        let (sin, cos) = bank.sin_cos();
        let centripetal = speed * speed * k.abs();
        (
            centripetal * cos - GRAVITY_MPS2 * sin,
            (cos + centripetal * sin / GRAVITY_MPS2).max(0.0),
        )
    }

    /// The lateral acceleration `point` asks for at `speed`, as a flat-ground equivalent on
    /// dry asphalt (what the envelope's limits are stated for), m/s^2.
    fn flat_lateral(point: &CoursePoint, speed: f64) -> f64 {
        let (lateral, normal) = Self::lateral_and_normal(point, speed);
        if normal <= 0.0 {
            return f64::INFINITY;
        }
        lateral.abs() / (normal * point.grip_scale)
    }

    /// Whether `point` can be taken at `speed` with the margin.
    fn carries(&self, point: &CoursePoint, speed: f64) -> bool {
        Self::flat_lateral(point, speed) <= self.margin * self.envelope.lateral_limit_mps2(speed)
    }

    /// The highest speed `point` can be taken at.
    fn apex(&self, point: &CoursePoint) -> f64 {
        if self.carries(point, TOP_SPEED_MPS) {
            return TOP_SPEED_MPS;
        }
        let (mut low, mut high) = (0.0, TOP_SPEED_MPS);
        while high - low > 1e-6 {
            let mid = 0.5 * (low + high);
            if self.carries(point, mid) {
                low = mid;
            } else {
                high = mid;
            }
        }
        low
    }

    /// Share of the normal load on `point` at `speed`, times its ground grip.
    fn grip(point: &CoursePoint, speed: f64) -> f64 {
        Self::lateral_and_normal(point, speed).1 * point.grip_scale
    }

    /// Slope's pull along the line, m/s^2 (positive uphill: slows the car).
    fn gravity_along(point: &CoursePoint) -> f64 {
        GRAVITY_MPS2 * point.grade / (1.0 + point.grade * point.grade).sqrt()
    }

    /// Forward acceleration with full drive at `speed` on `point`, m/s^2.
    fn drive(&self, point: &CoursePoint, speed: f64) -> f64 {
        let grip = Self::grip(point, speed);
        let lateral = Self::flat_lateral(point, speed) / self.margin;
        let drive = self.envelope.drive_with_lateral_mps2(speed, lateral);
        // The engine's force does not scale with the ground, its traction does.
        let drive = if drive > 0.0 {
            drive * grip.min(1.0)
        } else {
            drive
        };
        drive - Self::gravity_along(point)
    }

    /// Deceleration with the brakes at the limit at `speed` on `point`, m/s^2 (positive).
    fn braking(&self, point: &CoursePoint, speed: f64) -> f64 {
        let grip = Self::grip(point, speed);
        let lateral = Self::flat_lateral(point, speed) / self.margin;
        self.margin * grip * self.envelope.braking_with_lateral_mps2(speed, lateral)
            + Self::gravity_along(point)
    }

    /// Deceleration coasting (shifting) at `speed` on `point`, m/s^2 (positive).
    fn coast(&self, point: &CoursePoint, speed: f64) -> f64 {
        self.envelope.coast_mps2(speed) + Self::gravity_along(point)
    }
}

/// Speed after `distance_m` at constant acceleration `accel` from `speed` (0 if it stops).
fn speed_after(speed: f64, accel: f64, distance_m: f64) -> f64 {
    (speed * speed + 2.0 * accel * distance_m).max(0.0).sqrt()
}

/// Lap-time simulation with buffers kept between runs.
#[derive(Debug, Clone, Default)]
pub struct LapSim {
    apex_mps: Vec<f64>,
    forward_mps: Vec<f64>,
    lap: Option<Lap>,
}

impl LapSim {
    /// A simulation with empty buffers.
    pub fn new() -> LapSim {
        LapSim::default()
    }

    /// Runs `envelope` along `course` with `margin` on its lateral and braking limits; the
    /// returned lap lives until the next run.
    pub fn run(&mut self, course: &Course, envelope: &Envelope, margin: f64) -> &Lap {
        let limits = Limits {
            envelope,
            margin: margin.clamp(0.05, 1.5),
        };
        let points = &course.points;
        let m = points.len();
        self.apex_mps.clear();
        self.apex_mps
            .extend(points.iter().map(|point| limits.apex(point)));
        let apex = &self.apex_mps;
        // A lap starts and ends at its slowest apex (nothing there can be faster); a run from
        // rest starts at its first point.
        let start = if course.closed {
            (0..m).fold(0, |best, j| if apex[j] < apex[best] { j } else { best })
        } else {
            0
        };
        let next = |j: usize| if j + 1 == m { 0 } else { j + 1 };
        let steps = if course.closed { m } else { m - 1 };

        // Forward: full drive, no drive for the shift time after each upshift speed.
        self.forward_mps.clear();
        self.forward_mps.resize(m, 0.0);
        let forward = &mut self.forward_mps;
        forward[start] = if course.closed { apex[start] } else { 0.0 };
        let upshifts = &envelope.upshift_speeds_mps;
        let gear_for = |speed: f64| upshifts.iter().filter(|&&shift| shift <= speed).count();
        for pass in 1..=FORWARD_PASSES {
            let mut gear = gear_for(forward[start]);
            let mut shifting_s = 0.0;
            let mut j = start;
            let mut lap_end = forward[start];
            for _ in 0..steps {
                let k = next(j);
                let (point, v) = (&points[j], forward[j]);
                let accel = if shifting_s > 0.0 {
                    -limits.coast(point, v)
                } else {
                    limits.drive(point, v)
                };
                let mut reached = speed_after(v, accel, point.step_m);
                if shifting_s > 0.0 {
                    shifting_s -= 2.0 * point.step_m / (v + reached).max(1e-3);
                } else if gear < upshifts.len() && reached >= upshifts[gear] {
                    gear += 1;
                    shifting_s = envelope.shift_time_s;
                }
                if reached > apex[k] {
                    // Held by the corner: the car is in the gear for its speed there.
                    reached = apex[k];
                    gear = gear_for(reached);
                }
                if course.closed && k == start {
                    lap_end = reached;
                } else {
                    forward[k] = reached;
                }
                j = k;
            }
            // A lap that no corner holds back (flat out all the way round: the oval for a car
            // whose grip carries it through the turns at its top speed) arrives at its start
            // slower than the apex it set off with: run it again from the speed it arrives at.
            if !course.closed
                || lap_end >= forward[start] - ARRIVAL_TOLERANCE_MPS
                || pass == FORWARD_PASSES
            {
                break;
            }
            forward[start] = lap_end;
        }

        // Backward: the latest braking, into the forward speeds.
        let lap = self.lap.get_or_insert_with(|| Lap {
            time_s: 0.0,
            sector_times_s: [0.0; 3],
            speeds_mps: Vec::new(),
            times_s: Vec::new(),
            accels_mps2: Vec::new(),
        });
        lap.speeds_mps.clear();
        lap.speeds_mps.extend_from_slice(forward);
        let speeds = &mut lap.speeds_mps;
        let previous = |k: usize| if k == 0 { m - 1 } else { k - 1 };
        let mut k = if course.closed { start } else { m - 1 };
        for _ in 0..steps {
            let j = previous(k);
            let point = &points[j];
            let reachable = speed_after(speeds[k], limits.braking(point, speeds[k]), point.step_m);
            speeds[j] = speeds[j].min(reachable);
            k = j;
        }

        // Times, accelerations and sectors.
        lap.times_s.clear();
        lap.times_s.resize(m, 0.0);
        lap.accels_mps2.clear();
        lap.accels_mps2.resize(m, 0.0);
        lap.sector_times_s = [0.0; 3];
        let mut time_s = 0.0;
        for j in 0..steps {
            let k = next(j);
            let (v0, v1, ds) = (speeds[j], speeds[k], points[j].step_m);
            let dt = if ds > 0.0 {
                2.0 * ds / (v0 + v1).max(1e-9)
            } else {
                0.0
            };
            lap.times_s[j] = time_s;
            lap.accels_mps2[j] = if ds > 0.0 {
                (v1 * v1 - v0 * v0) / (2.0 * ds)
            } else {
                0.0
            };
            let sector = course
                .sector_starts_m
                .iter()
                .filter(|&&start| points[j].distance_m >= start)
                .count();
            lap.sector_times_s[sector] += dt;
            time_s += dt;
        }
        if !course.closed {
            lap.times_s[m - 1] = time_s;
        }
        lap.time_s = time_s;
        lap
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::envelope::{EnvelopePoint, EnvelopeSource, Provenance};

    fn constant_envelope(lateral_mps2: f64) -> Envelope {
        let point = |speed_mps: f64| EnvelopePoint {
            speed_mps,
            lateral_mps2,
            braking_mps2: 10.0,
            drive_mps2: 3.0,
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
            points: vec![point(0.0), point(90.0)],
            brake_exponent: 2.0,
            drive_exponent: 2.0,
            shift_time_s: 0.5,
            upshift_speeds_mps: vec![10.0],
        }
    }

    #[test]
    fn a_straight_from_rest_is_constant_acceleration_less_the_shift() {
        let envelope = Envelope {
            upshift_speeds_mps: vec![],
            ..constant_envelope(8.0)
        };
        let mut sim = LapSim::new();
        let lap = sim.run(&Course::straight(150.0, 1.0), &envelope, 1.0);
        // s = a t^2 / 2 with a = 3: t = 10 s.
        assert!((lap.time_s - 10.0).abs() < 1e-9, "{}", lap.time_s);
        let with_shift = sim
            .run(&Course::straight(150.0, 1.0), &constant_envelope(8.0), 1.0)
            .time_s;
        // Coasting 0.5 s at 10 m/s costs a little under 0.5 s (less the speed kept).
        assert!(with_shift > 10.3 && with_shift < 10.5, "{with_shift}");
    }

    /// A closed lap that no corner holds back (every apex at the 90 m/s ceiling, the car's
    /// drive gone at 60 m/s) is flat out all the way round at the car's top speed, not a
    /// slowing-down from the ceiling.
    #[test]
    fn a_flat_out_lap_runs_at_the_cars_top_speed_all_the_way_round() {
        let envelope = Envelope {
            points: [(0.0, 3.0), (60.0, 0.0), (90.0, -15.0)]
                .map(|(speed_mps, drive_mps2)| EnvelopePoint {
                    speed_mps,
                    lateral_mps2: 100.0,
                    braking_mps2: 10.0,
                    drive_mps2,
                    coast_mps2: 1.0,
                })
                .to_vec(),
            upshift_speeds_mps: vec![],
            ..constant_envelope(100.0)
        };
        // A 1 km circle: 60 m/s asks for 3.6 m/s^2 of the 100.
        let count = 250;
        let course = Course {
            points: (0..count)
                .map(|i| CoursePoint {
                    distance_m: 4.0 * i as f64,
                    step_m: 4.0,
                    curvature_per_m: std::f64::consts::TAU / (4.0 * count as f64),
                    bank_rad: 0.0,
                    grade: 0.0,
                    grip_scale: 1.0,
                })
                .collect(),
            closed: true,
            sector_starts_m: [333.0, 666.0],
        };
        let lap = LapSim::new().run(&course, &envelope, 1.0).clone();
        let (slowest, fastest) = lap
            .speeds_mps
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
        assert!(slowest > 59.9 && fastest < 60.1, "{slowest}..{fastest}");
        assert!((lap.time_s - 1000.0 / 60.0).abs() < 0.05, "{}", lap.time_s);
    }
}
