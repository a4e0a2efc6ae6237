//! Driving a line for the line search: the real car (a [`World`] stepped at 1 kHz) with the
//! built-in [`Robot`] at the wheel, timed at every station of the line, checked every step
//! for all four wheels inside the track edges, and able to save and restore its state so a
//! changed stretch of line is re-driven from just before it instead of from the grid.
//!
//! A full run starts on the grid, drives one lap to get rolling and times the next (the
//! flying lap), saving a checkpoint (the car and the robot, both `Clone`) every few stations
//! of it. Crossing times are interpolated inside the step. The per-step loop
//! ([`Runner::drive_until`]) never allocates.

use crate::car::Car;
use crate::robot::line::{continue_with_plan, from_offsets, station_count};
use crate::robot::{DriverLimits, Robot, DEFAULT_GRIP};
use crate::spec::CarSpec;
use crate::telemetry::{CarTelemetry, SurfaceKind};
use crate::track::Track;
use crate::world::{CarId, World};

/// Simulation step, s (the rig's 1 kHz loop).
pub const DT_S: f64 = 0.001;
/// A checkpoint is saved every this many stations of the flying lap.
const CHECKPOINT_EVERY: usize = 8;

/// The car, the track and the robot's planning settings a line is searched for.
#[derive(Debug, Clone)]
pub struct Course {
    track: Track,
    car: CarSpec,
    limits: DriverLimits,
    grip: f64,
    count: usize,
    spacing_m: f64,
    /// Offset bounds per station: the car's side on the edge of the racing surface, m.
    lo_m: Vec<f64>,
    hi_m: Vec<f64>,
}

impl Course {
    /// The course for `car` on the closed `track`, with the robot's stations and grip.
    pub fn new(track: Track, car: CarSpec) -> Course {
        let limits = DriverLimits::from_car(&car);
        let count = station_count(&track);
        let spacing_m = track.length_m() / count as f64;
        let keep = limits.half_width_m;
        let (lo_m, hi_m) = (0..count)
            .map(|j| {
                let section = track.section(j as f64 * spacing_m);
                let lo = -(section.half_width_right_m - keep);
                let hi = section.half_width_left_m - keep;
                if lo <= hi {
                    (lo, hi)
                } else {
                    (0.0, 0.0)
                }
            })
            .unzip();
        Course {
            track,
            car,
            limits,
            grip: DEFAULT_GRIP,
            count,
            spacing_m,
            lo_m,
            hi_m,
        }
    }

    /// The track.
    pub fn track(&self) -> &Track {
        &self.track
    }

    /// The car.
    pub fn car(&self) -> &CarSpec {
        &self.car
    }

    /// Number of stations of a line.
    pub fn station_count(&self) -> usize {
        self.count
    }

    /// Centreline distance between stations, m.
    pub fn spacing_m(&self) -> f64 {
        self.spacing_m
    }

    /// The widest offsets at station `j` (right, left), m: the car's side on the edge.
    pub fn bounds_m(&self, j: usize) -> (f64, f64) {
        (self.lo_m[j], self.hi_m[j])
    }

    /// The robot's own planned line (where a search starts), as offsets.
    pub fn planned_offsets(&self) -> Vec<f64> {
        crate::robot::line::build(&self.track, self.limits.half_width_m, true)
            .iter()
            .map(|station| station.offset_m)
            .collect()
    }

    /// A robot driving the line through `offsets_m`, its speeds planned for that line.
    pub fn robot(&self, offsets_m: &[f64]) -> Robot {
        let stations = from_offsets(&self.track, self.limits.half_width_m, offsets_m);
        Robot::with_stations(&self.track, self.limits, self.grip, stations)
    }
}

/// Why a drive was abandoned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Abandoned {
    /// A wheel left the track edges (or the car touched a barrier) near this station.
    LeftTrack {
        /// Station index in the lap.
        station: usize,
    },
    /// The car did not reach the end in the time allowed (spun or stopped).
    TooSlow,
}

/// The record of the flying lap at one station.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Crossing {
    /// Simulated time the car's centre crossed the station, s.
    pub time_s: f64,
    /// Its speed there, m/s.
    pub speed_mps: f64,
    /// Its lateral offset there, m.
    pub lateral_m: f64,
}

/// A saved state of a drive at a station of the flying lap.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    station: usize,
    car: Car,
    robot: Robot,
    progress: Progress,
}

/// Where a drive is along the lap.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Progress {
    /// Distance travelled along the centreline from the start line (negative on the grid), m.
    unwrapped_m: f64,
    /// Along-track distance after the last step, m.
    last_distance_m: f64,
    /// Next station (counted from the start line over all laps) to be crossed.
    next_station: usize,
}

/// One complete run of a line: the flying lap's time, its crossings and checkpoints.
#[derive(Debug, Clone)]
pub struct Trace {
    /// Flying-lap time, s.
    pub lap_s: f64,
    /// Crossing of every station of the flying lap, `0 ..= count` (the last is the line).
    pub crossings: Vec<Crossing>,
    checkpoints: Vec<Checkpoint>,
}

impl Trace {
    /// The latest checkpoint at or before station `station` of the flying lap.
    fn checkpoint_before(&self, station: usize) -> &Checkpoint {
        let index = (station / CHECKPOINT_EVERY).min(self.checkpoints.len() - 1);
        &self.checkpoints[index]
    }
}

/// A world with one robot-driven car, stepped and timed station by station.
#[derive(Debug)]
pub struct Runner {
    world: World,
    id: CarId,
    /// The car as placed on the grid (a reset keeps tyre temperatures and wear; a run must
    /// start from exactly this).
    grid_car: Car,
    robot: Robot,
    progress: Progress,
    length_m: f64,
    spacing_m: f64,
    /// Stations per lap.
    count: usize,
    /// Simulated steps driven so far (all drives of this runner).
    pub steps: u64,
}

/// True when the car is inside the track edges: every wheel on the racing surface or a kerb
/// (as the car's own ground query under it reports) and the centre of gravity between the
/// edges of the racing surface.
fn inside_edges(telemetry: &CarTelemetry, lateral_m: f64, left_m: f64, right_m: f64) -> bool {
    !telemetry.barrier_contact
        && lateral_m <= left_m
        && lateral_m >= -right_m
        && telemetry.wheels.iter().all(|wheel| {
            matches!(
                wheel.surface,
                SurfaceKind::Asphalt | SurfaceKind::Kerb | SurfaceKind::Wet
            )
        })
}

impl Runner {
    /// A runner for `course` (allocates: build once per worker).
    pub fn new(course: &Course) -> Runner {
        let mut world = World::new(course.track.clone());
        let id = world.add_car(&course.car);
        let robot = course.robot(&vec![0.0; course.count]);
        let grid_car = world.car(id).clone();
        Runner {
            world,
            id,
            grid_car,
            robot,
            progress: Progress {
                unwrapped_m: 0.0,
                last_distance_m: 0.0,
                next_station: 0,
            },
            length_m: course.track.length_m(),
            spacing_m: course.spacing_m,
            count: course.count,
            steps: 0,
        }
    }

    /// Puts the car on the grid, at rest, with `robot` driving.
    fn start(&mut self, robot: Robot) {
        *self.world.car_mut(self.id) = self.grid_car.clone();
        let distance = self.world.track_coord(self.id).distance_m;
        // On the grid the car is behind the line: its distance is just under a lap.
        let unwrapped = if distance > 0.5 * self.length_m {
            distance - self.length_m
        } else {
            distance
        };
        self.progress = Progress {
            unwrapped_m: unwrapped,
            last_distance_m: distance,
            next_station: ((unwrapped / self.spacing_m).ceil().max(0.0)) as usize,
        };
        self.robot = robot;
    }

    /// Continues from `checkpoint` with the robot now driving `planned`'s plan.
    fn resume(&mut self, checkpoint: &Checkpoint, planned: Robot) {
        *self.world.car_mut(self.id) = checkpoint.car.clone();
        self.robot = continue_with_plan(&checkpoint.robot, planned);
        self.progress = checkpoint.progress;
    }

    fn snapshot(&self, station: usize) -> Checkpoint {
        Checkpoint {
            station,
            car: self.world.car(self.id).clone(),
            robot: self.robot.clone(),
            progress: self.progress,
        }
    }

    /// Drives until station `stop` (counted over laps from the start line) has been crossed,
    /// or `visit` returns true at a crossing, or the car leaves the track, or the simulated
    /// clock passes `time_limit_s`. `visit` gets each crossed station and its record. Returns
    /// the last station crossed. No allocation.
    pub fn drive_until(
        &mut self,
        stop: usize,
        time_limit_s: f64,
        mut visit: impl FnMut(usize, Crossing) -> bool,
    ) -> Result<usize, Abandoned> {
        let mut last = self.progress.next_station.saturating_sub(1);
        while self.progress.next_station <= stop {
            let controls = self.robot.drive_car(&self.world, self.id);
            self.world.set_controls(self.id, controls);
            self.world.step(DT_S);
            self.steps += 1;
            let coord = self.world.track_coord(self.id);
            let telemetry = self.world.car(self.id).telemetry();
            let mut moved = coord.distance_m - self.progress.last_distance_m;
            if moved < -0.5 * self.length_m {
                moved += self.length_m;
            } else if moved > 0.5 * self.length_m {
                moved -= self.length_m;
            }
            self.progress.last_distance_m = coord.distance_m;
            self.progress.unwrapped_m += moved;
            let station_in_lap = self.progress.next_station % self.count;
            if !inside_edges(
                telemetry,
                coord.lateral_m,
                coord.half_width_left_m,
                coord.half_width_right_m,
            ) {
                return Err(Abandoned::LeftTrack {
                    station: station_in_lap,
                });
            }
            if telemetry.time_s > time_limit_s || !telemetry.time_s.is_finite() {
                return Err(Abandoned::TooSlow);
            }
            while self.progress.next_station <= stop
                && self.progress.next_station as f64 * self.spacing_m <= self.progress.unwrapped_m
            {
                let station = self.progress.next_station;
                let past = self.progress.unwrapped_m - station as f64 * self.spacing_m;
                let fraction = if moved > 0.0 { past / moved } else { 0.0 };
                let crossing = Crossing {
                    time_s: telemetry.time_s - DT_S * fraction.clamp(0.0, 1.0),
                    speed_mps: telemetry.speed_mps,
                    lateral_m: coord.lateral_m,
                };
                self.progress.next_station += 1;
                last = station;
                if visit(station, crossing) {
                    return Ok(station);
                }
            }
        }
        Ok(last)
    }
}

/// Drives `robot` from the grid through a rolling lap and the flying lap, recording the
/// flying lap's crossings and checkpoints.
pub fn run_full(runner: &mut Runner, robot: Robot) -> Result<Trace, Abandoned> {
    let m = runner.count;
    let planned_s = robot.planned_lap_s();
    runner.start(robot);
    let limit_s = 60.0 + 4.0 * planned_s;
    let mut crossings = vec![Crossing::default(); m + 1];
    // The rolling lap, up to the line that starts the flying lap.
    runner.drive_until(m, limit_s, |k, crossing| {
        if k == m {
            crossings[0] = crossing;
        }
        false
    })?;
    let mut checkpoints = Vec::with_capacity(m / CHECKPOINT_EVERY + 1);
    let mut station = 0;
    while station < m {
        checkpoints.push(runner.snapshot(station));
        let stop = (station + CHECKPOINT_EVERY).min(m);
        runner.drive_until(m + stop, limit_s, |k, crossing| {
            crossings[k - m] = crossing;
            false
        })?;
        station = stop;
    }
    Ok(Trace {
        lap_s: crossings[m].time_s - crossings[0].time_s,
        crossings,
        checkpoints,
    })
}

/// What re-driving a changed stretch found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StretchResult {
    /// Time gained (negative) or lost against the trace at the station where the drive
    /// stopped, s.
    pub delta_s: f64,
    /// Station of the flying lap the drive started after (its checkpoint).
    pub from_station: usize,
    /// Station of the flying lap it stopped at.
    pub to_station: usize,
}

/// Re-drives the flying lap of `trace` with `planned` from the last checkpoint at or before
/// station `from`, through station `through` and on until the car is back on the trace's
/// speed and lateral position (or to the line), and returns the time against the trace there.
pub fn run_stretch(
    runner: &mut Runner,
    trace: &Trace,
    planned: Robot,
    from: usize,
    through: usize,
) -> Result<StretchResult, Abandoned> {
    let m = runner.count;
    let checkpoint = trace.checkpoint_before(from);
    runner.resume(checkpoint, planned);
    let limit_s = trace.crossings[m].time_s + 30.0;
    let through = through.min(m);
    let mut delta_s = 0.0;
    let last = runner.drive_until(2 * m, limit_s, |k, crossing| {
        let base = trace.crossings[k - m];
        delta_s = crossing.time_s - base.time_s;
        k - m >= through
            && (crossing.speed_mps - base.speed_mps).abs() < SETTLED_SPEED_MPS
            && (crossing.lateral_m - base.lateral_m).abs() < SETTLED_LATERAL_M
    })?;
    Ok(StretchResult {
        delta_s,
        from_station: checkpoint.station,
        to_station: last - m,
    })
}

/// A re-driven car this close to the trace's speed counts as back on it, m/s.
const SETTLED_SPEED_MPS: f64 = 0.02;
/// And this close to its lateral position, m.
const SETTLED_LATERAL_M: f64 = 0.02;
