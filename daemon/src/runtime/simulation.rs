//! The world the RT thread steps: the track, the player car (index 0) and the robot cars,
//! each robot car with its driver. The player car is driven by its own robot whenever no
//! input device is connected, and gets rigd's clutch when the player has none
//! ([`ClutchAssist`], `PlayerInput::auto_clutch`). The robots drive a given line
//! (`[sim] robot_line`, or the line a recording carries) or plan their own.
//!
//! Building allocates (set-up, off the RT thread); [`Simulation::step`] does not. A
//! [`StepObserver`] (the session recorder) may watch every step: what the physics consumed and
//! the player car's telemetry after it.
//!
//! The physics quarantine's reports (a car whose step caught a non-finite value and was
//! brought to rest) leave the RT thread through a [`QuarantineFeed`] of atomics: the loop
//! publishes each new one ([`Simulation::new_fault`]), the health thread reads the count for
//! `STATUS=` and logs each report once ([`QuarantineLog`]). The RT thread never logs.

use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::Arc;

use rig_config::sim::SimConfig;
use rig_config::FieldProblem;
use rig_physics::line_search::drive::Course;
use rig_physics::line_search::file::{LineFile, LineFileError};
use rig_physics::robot::line::from_offsets;
use rig_physics::track::Track;
use rig_physics::{
    CarId, CarSpec, CarTelemetry, DataError, FaultReport, NonFinite, Quantity, StepPhase, World,
};

use super::robots::{robot_controls, RobotDriver, SKILL_LEVELS};
use crate::input::auto_clutch::ClutchAssist;
use crate::input::player_input::PlayerInput;

/// The car or track of `[sim]` could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("cannot build the world: {}", .0.iter().map(|p| format!("{}: {} (fix: {})", p.field, p.message, p.fix)).collect::<Vec<_>>().join("; "))]
pub struct WorldError(pub Vec<FieldProblem>);

/// Sees every physics step: the input the step consumed (with rigd's clutch, when it works
/// the clutch for the player), whether the player car was reset just before it, and the
/// player car's telemetry after it. Runs on the RT thread: it must not allocate, block, take
/// a lock another thread can hold, or log.
pub trait StepObserver: Send + std::fmt::Debug {
    /// Called once after each step.
    fn observe(&mut self, input: &PlayerInput, reset: bool, player: &CarTelemetry);
}

/// The world and who drives each car.
#[derive(Debug)]
pub struct Simulation {
    world: World,
    player: CarId,
    player_robot: RobotDriver,
    /// rigd's clutch for a player without one.
    player_clutch: ClutchAssist,
    robots: Vec<(CarId, RobotDriver)>,
    dt_s: f64,
    /// The `[sim]` section and rate this was built from (a reload keeps the world when
    /// neither changed).
    built_from: (SimConfig, u32),
    /// The world's fault count when [`Simulation::new_fault`] last looked.
    faults_seen: u64,
    /// The player car was reset since the last step.
    reset_pending: bool,
    observer: Option<Box<dyn StepObserver>>,
    /// The robots' given line as world points (for the dashboard's map), None when they plan
    /// their own.
    racing_line_m: Option<Arc<[[f64; 2]]>>,
}

impl Simulation {
    /// Builds the world for `sim` stepped at `rate_hz`; problems name the `[sim]` key.
    pub fn build(sim: &SimConfig, rate_hz: u32) -> Result<Simulation, WorldError> {
        let (track, spec) = resolve(sim).map_err(WorldError)?;
        Ok(Simulation::from_data(track, &spec, sim, rate_hz))
    }

    /// Builds the world from an already loaded `track` and `spec` (a replay's recorded data);
    /// `sim` is what [`Simulation::built_from`] compares with.
    pub fn from_data(track: Track, spec: &CarSpec, sim: &SimConfig, rate_hz: u32) -> Simulation {
        // A line that does not fit was refused when `[sim]` was checked (`resolve`).
        let line = robot_line(sim, &track, spec).ok().flatten();
        Simulation::with_line(track, spec, sim, rate_hz, line.as_deref())
    }

    /// Builds the world with the robots driving the line through `line_offsets_m` (already
    /// checked against the car and track: a recording's embedded line file), or planning their
    /// own when None.
    pub fn with_line(
        track: Track,
        spec: &CarSpec,
        sim: &SimConfig,
        rate_hz: u32,
        line_offsets_m: Option<&[f64]>,
    ) -> Simulation {
        let racing_line_m = line_offsets_m.map(|offsets| {
            // Already inside the edges: no clamping beyond the track's own.
            from_offsets(&track, 0.0, offsets)
                .iter()
                .map(|station| station.xy)
                .collect()
        });
        let mut world = World::new(track);
        let player = world.add_car(spec);
        let player_robot = match line_offsets_m {
            Some(offsets) => RobotDriver::on_line(&world, spec, offsets),
            None => RobotDriver::plan(&world, spec),
        };
        let mut robots = Vec::with_capacity(sim.robots as usize);
        let levels: Vec<RobotDriver> = (0..(sim.robots as usize).min(SKILL_LEVELS))
            .map(|level| player_robot.for_robot(&world, level))
            .collect();
        for index in 0..sim.robots as usize {
            let car = world.add_car(spec);
            robots.push((car, levels[index % SKILL_LEVELS].clone()));
        }
        Simulation {
            world,
            player,
            player_robot,
            player_clutch: ClutchAssist::new(spec),
            robots,
            dt_s: 1.0 / f64::from(rate_hz),
            built_from: (sim.clone(), rate_hz),
            faults_seen: 0,
            reset_pending: false,
            observer: None,
            racing_line_m,
        }
    }

    /// The robots' given line (`[sim] robot_line`, or a recording's) as world `[x, y]`
    /// points, None when they plan their own (set-up: shared, not copied).
    pub fn racing_line_m(&self) -> Option<Arc<[[f64; 2]]>> {
        self.racing_line_m.clone()
    }

    /// Lets `observer` see every following step (set-up, off the RT thread).
    pub fn attach_observer(&mut self, observer: Box<dyn StepObserver>) {
        self.observer = Some(observer);
    }

    /// Removes the observer (dropping it ends a recording).
    pub fn detach_observer(&mut self) -> Option<Box<dyn StepObserver>> {
        self.observer.take()
    }

    /// True when this world was built from exactly `sim` at `rate_hz`.
    pub fn built_from(&self, sim: &SimConfig, rate_hz: u32) -> bool {
        self.built_from.0 == *sim && self.built_from.1 == rate_hz
    }

    /// Cars in the world (player included).
    pub fn car_count(&self) -> usize {
        self.world.car_count()
    }

    /// One physics step: the player's controls (with rigd's clutch when `auto_clutch`; its
    /// robot's when no device is connected), every robot's controls, then the world.
    pub fn step(&mut self, input: &PlayerInput) {
        let mut consumed = *input;
        let player_controls = if !input.connected {
            robot_controls(&mut self.player_robot, &self.world, self.player)
        } else if input.auto_clutch {
            let car = self.world.car(self.player).telemetry();
            consumed.controls = self.player_clutch.controls(input.controls, car, self.dt_s);
            consumed.controls
        } else {
            self.player_clutch.reset();
            input.controls
        };
        self.world.set_controls(self.player, player_controls);
        for (car, robot) in &mut self.robots {
            let controls = robot_controls(robot, &self.world, *car);
            self.world.set_controls(*car, controls);
        }
        self.world.step(self.dt_s);
        let reset = std::mem::take(&mut self.reset_pending);
        if let Some(observer) = &mut self.observer {
            observer.observe(&consumed, reset, &self.world.telemetry(self.player));
        }
    }

    /// Puts the player car back on its start slot, at rest (no allocation).
    pub fn reset_player(&mut self) {
        self.world.reset_car(self.player);
        self.player_clutch.reset();
        self.reset_pending = true;
    }

    /// The player car's telemetry after the last step.
    pub fn player_telemetry(&self) -> CarTelemetry {
        self.world.telemetry(self.player)
    }

    /// How many faults the physics quarantined since the last call, with the latest report,
    /// or None when there were none (no allocation: for the RT thread after its steps).
    pub fn new_fault(&mut self) -> Option<(u64, FaultReport)> {
        let count = self.world.fault_count();
        if count == self.faults_seen {
            return None;
        }
        let new = count - self.faults_seen;
        self.faults_seen = count;
        self.world.last_fault().map(|report| (new, report))
    }

    /// True when `report` is about the player car.
    pub fn is_player(&self, report: &FaultReport) -> bool {
        report.car == self.player
    }

    #[cfg(test)]
    fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }
}

/// The latest quarantine report and the count of all of them, as atomics: written by the RT
/// thread (one writer), read by the health thread. A sequence number, odd while a write is
/// under way, lets the reader skip a torn read (it reads again a second later).
#[derive(Debug, Default)]
pub struct QuarantineFeed {
    sequence: AtomicU64,
    count: AtomicU64,
    /// Car index (high 32 bits), phase, quantity, wheel (255: none), car stopped (0/1).
    packed: AtomicU64,
    time_bits: AtomicU64,
}

impl QuarantineFeed {
    /// Publishes `report` as the latest and adds `new` faults to the total, which runs on
    /// across reloads (RT thread: wait-free).
    pub fn publish(&self, new: u64, report: &FaultReport) {
        let count = self.count.load(Ordering::Relaxed) + new;
        let fault = &report.fault;
        let wheel = fault.wheel.map_or(255, |w| w.min(254) as u64);
        let packed = ((report.car.0 as u64) << 32)
            | ((fault.phase as u64) << 24)
            | ((fault.quantity as u64) << 16)
            | (wheel << 8)
            | u64::from(fault.car_stopped);
        self.sequence.fetch_add(1, Ordering::AcqRel);
        self.packed.store(packed, Ordering::Relaxed);
        self.time_bits
            .store(fault.time_s.to_bits(), Ordering::Relaxed);
        self.count.store(count, Ordering::Relaxed);
        self.sequence.fetch_add(1, Ordering::Release);
    }

    /// How many faults the physics quarantined since the daemon started.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::Acquire)
    }

    /// The total and the latest report, or None before the first one or during a write.
    pub fn latest(&self) -> Option<(u64, FaultReport)> {
        let before = self.sequence.load(Ordering::Acquire);
        if before == 0 || before % 2 == 1 {
            return None;
        }
        let packed = self.packed.load(Ordering::Relaxed);
        let time_bits = self.time_bits.load(Ordering::Relaxed);
        let count = self.count.load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        if self.sequence.load(Ordering::Relaxed) != before {
            return None;
        }
        let wheel = (packed >> 8) as u8;
        let report = FaultReport {
            car: CarId((packed >> 32) as usize),
            fault: NonFinite {
                phase: *StepPhase::ALL.get(usize::from((packed >> 24) as u8))?,
                quantity: *Quantity::ALL.get(usize::from((packed >> 16) as u8))?,
                wheel: (wheel != 255).then_some(usize::from(wheel)),
                time_s: f64::from_bits(time_bits),
                car_stopped: packed & 1 == 1,
            },
        };
        Some((count, report))
    }
}

/// The health thread's side of the feed: each report logged once, the count for `STATUS=`.
#[derive(Debug, Default)]
pub struct QuarantineLog {
    logged: u64,
}

impl QuarantineLog {
    /// The log line for a report not logged yet (the latest one, with how many came since
    /// the last line), or None.
    pub fn new_line(&mut self, feed: &QuarantineFeed) -> Option<String> {
        let (count, report) = feed.latest()?;
        if count <= self.logged {
            return None;
        }
        let unseen = count - self.logged;
        self.logged = count;
        let more = if unseen > 1 {
            format!(" ({} more since the last report)", unseen - 1)
        } else {
            String::new()
        };
        Some(format!(
            "physics quarantine: {report}{more}; {count} in all. A non-finite value in the \
             physics is a bug or a broken car or track file: report it with the car and track"
        ))
    }

    /// The quarantine part of `STATUS=` (empty while nothing was quarantined).
    pub fn status(feed: &QuarantineFeed) -> String {
        match feed.count() {
            0 => String::new(),
            count => format!(" | physics quarantine: {count}"),
        }
    }
}

/// The track and car `[sim]` names (built-in or a file), or every problem with them.
pub fn resolve(sim: &SimConfig) -> Result<(Track, CarSpec), Vec<FieldProblem>> {
    let track = load_data(
        "sim.track",
        &sim.track,
        "track",
        rig_physics::track::builtin,
        Track::from_toml,
    );
    let car = load_car("sim.car", &sim.car);
    match (track, car) {
        (Ok(track), Ok(car)) => match robot_line(sim, &track, &car) {
            Ok(_) => Ok((track, car)),
            Err(problem) => Err(vec![problem]),
        },
        (track, car) => Err(track.err().into_iter().chain(car.err()).collect()),
    }
}

/// The line `[sim] robot_line` names, checked against `track` and `car` (made for them,
/// every offset finite and inside the edges); None when unset.
pub fn robot_line(
    sim: &SimConfig,
    track: &Track,
    car: &CarSpec,
) -> Result<Option<Vec<f64>>, FieldProblem> {
    let Some(path) = &sim.robot_line else {
        return Ok(None);
    };
    let problem = |message: String| FieldProblem {
        field: "sim.robot_line".to_string(),
        message,
        fix: "find a line for this car and track with `rigd line --car ... --track ... --out \
              FILE`, or remove robot_line so the robots plan their own"
            .to_string(),
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| problem(format!("line file `{path}` cannot be read: {e}")))?;
    robot_line_of_text(&text, path, track, car)
        .map(Some)
        .map_err(|e| problem(e.to_string()))
}

/// The line in a line file's `text` (`origin` names it in errors), checked against `track`
/// and `car`: what `[sim] robot_line` reads from its file and a recording carries embedded.
pub fn robot_line_of_text(
    text: &str,
    origin: &str,
    track: &Track,
    car: &CarSpec,
) -> Result<Vec<f64>, LineFileError> {
    let course = Course::new(track.clone(), car.clone());
    LineFile::parse(text, origin).and_then(|file| file.check(&course, origin))
}

/// A track by built-in name, or from a track TOML file when `name` is a path; problems are
/// reported against `field`.
pub fn load_track(field: &str, name: &str) -> Result<Track, FieldProblem> {
    load_data(
        field,
        name,
        "track",
        rig_physics::track::builtin,
        Track::from_toml,
    )
}

/// A car by built-in name, or from a car TOML file when `name` is a path; problems are
/// reported against `field`.
pub fn load_car(field: &str, name: &str) -> Result<CarSpec, FieldProblem> {
    load_data(
        field,
        name,
        "car",
        rig_physics::builtin::car,
        CarSpec::from_toml,
    )
}

fn load_data<T>(
    field: &str,
    name: &str,
    kind: &str,
    builtin: impl Fn(&str) -> Result<T, DataError>,
    from_file: impl Fn(&str, &str) -> Result<T, DataError>,
) -> Result<T, FieldProblem> {
    let problem = |message: String, fix: String| FieldProblem {
        field: field.to_string(),
        message,
        fix,
    };
    if SimConfig::is_path(name) {
        let text = std::fs::read_to_string(name).map_err(|e| {
            let (message, fix) =
                rig_config::sim::file_problem(kind, name, &rig_toml::plain::io_words(&e));
            problem(message, fix)
        })?;
        from_file(&text, name).map_err(|e| {
            problem(
                format!("{kind} file is invalid: {e}"),
                format!("fix the {kind} file at the place named"),
            )
        })
    } else {
        builtin(name).map_err(|e| {
            // An unknown name has no line; a broken built-in document names its own place.
            if e.line == 0 {
                let (message, fix) = rig_config::sim::builtin_problem(kind, name);
                problem(message, fix)
            } else {
                problem(
                    e.to_string(),
                    format!("name a built-in {kind}, or give the path of a {kind} TOML file"),
                )
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A world of the player and two robots, one of them (car 2) given a NaN body rate.
    fn poked_simulation() -> Simulation {
        let sim = SimConfig {
            robots: 2,
            ..SimConfig::default()
        };
        let mut simulation = Simulation::build(&sim, 1000).expect("default world builds");
        for _ in 0..10 {
            simulation.step(&PlayerInput::default());
        }
        assert_eq!(simulation.new_fault(), None);
        let car = simulation.world_mut().car_mut(CarId(2));
        let mut state = *car.state();
        state.angular_velocity_body.x = f64::NAN;
        car.set_state(state);
        simulation.step(&PlayerInput::default());
        simulation
    }

    #[test]
    fn a_quarantined_fault_crosses_the_feed_and_is_logged_once_and_counted() {
        let mut simulation = poked_simulation();
        let (count, report) = simulation.new_fault().expect("the NaN is reported");
        assert_eq!(
            simulation.new_fault(),
            None,
            "each report is handed out once"
        );
        assert_eq!(count, 1);
        assert_eq!(report.car, CarId(2));
        assert!(!simulation.is_player(&report));
        assert_eq!(report.fault.phase, StepPhase::Entry);
        assert_eq!(report.fault.quantity, Quantity::AngularVelocity);
        assert!(simulation.player_telemetry().speed_mps.is_finite());

        let feed = QuarantineFeed::default();
        let mut log = QuarantineLog::default();
        assert_eq!(feed.latest(), None);
        assert_eq!(log.new_line(&feed), None);
        assert_eq!(QuarantineLog::status(&feed), "");
        feed.publish(count, &report);
        assert_eq!(feed.latest(), Some((1, report)));
        let line = log.new_line(&feed).expect("logged");
        assert!(
            line.contains("car 2") && line.contains("AngularVelocity") && line.contains("Entry"),
            "{line}"
        );
        assert_eq!(log.new_line(&feed), None, "logged once");
        assert_eq!(QuarantineLog::status(&feed), " | physics quarantine: 1");

        // Three more before the health thread looks again: one line says so.
        let wheel_report = FaultReport {
            car: CarId(0),
            fault: NonFinite {
                wheel: Some(3),
                car_stopped: false,
                phase: StepPhase::Drivetrain,
                quantity: Quantity::WheelSpin,
                ..report.fault
            },
        };
        feed.publish(3, &wheel_report);
        assert_eq!(feed.latest(), Some((4, wheel_report)));
        let line = log.new_line(&feed).expect("logged");
        assert!(
            line.contains("2 more") && line.contains("4 in all"),
            "{line}"
        );
        assert_eq!(QuarantineLog::status(&feed), " | physics quarantine: 4");
    }
}
