//! The world the RT thread steps: the track, the player car (index 0) and the robot cars,
//! each robot car with its driver. The player car is driven by its own robot whenever no
//! input device is connected.
//!
//! Building allocates (set-up, off the RT thread); [`Simulation::step`] does not. A
//! [`StepObserver`] (the session recorder) may watch every step: what the physics consumed and
//! the player car's telemetry after it.

use rig_config::sim::SimConfig;
use rig_config::FieldProblem;
use rig_physics::track::Track;
use rig_physics::{CarId, CarSpec, CarTelemetry, DataError, World};

use super::player_input::PlayerInput;
use super::robots::{robot_controls, RobotDriver};

/// The car or track of `[sim]` could not be loaded.
#[derive(Debug, thiserror::Error)]
#[error("cannot build the world: {}", .0.iter().map(|p| format!("{}: {} (fix: {})", p.field, p.message, p.fix)).collect::<Vec<_>>().join("; "))]
pub struct WorldError(pub Vec<FieldProblem>);

/// Sees every physics step: the input the step consumed, whether the player car was reset
/// just before it, and the player car's telemetry after it. Runs on the RT thread: it must
/// not allocate, block, take a lock another thread can hold, or log.
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
    robots: Vec<(CarId, RobotDriver)>,
    dt_s: f64,
    /// The `[sim]` section and rate this was built from (a reload keeps the world when
    /// neither changed).
    built_from: (SimConfig, u32),
    /// The player car was reset since the last step.
    reset_pending: bool,
    observer: Option<Box<dyn StepObserver>>,
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
        let mut world = World::new(track);
        let player = world.add_car(spec);
        let player_robot = RobotDriver::plan(&world, spec);
        let mut robots = Vec::with_capacity(sim.robots as usize);
        for _ in 0..sim.robots {
            let car = world.add_car(spec);
            robots.push((car, player_robot.clone()));
        }
        Simulation {
            world,
            player,
            player_robot,
            robots,
            dt_s: 1.0 / f64::from(rate_hz),
            built_from: (sim.clone(), rate_hz),
            reset_pending: false,
            observer: None,
        }
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

    /// One physics step: the player's controls (or its robot's when no device is
    /// connected), every robot's controls, then the world.
    pub fn step(&mut self, input: &PlayerInput) {
        let player_controls = if input.connected {
            input.controls
        } else {
            robot_controls(&mut self.player_robot, &self.world, self.player)
        };
        self.world.set_controls(self.player, player_controls);
        for (car, robot) in &mut self.robots {
            let controls = robot_controls(robot, &self.world, *car);
            self.world.set_controls(*car, controls);
        }
        self.world.step(self.dt_s);
        let reset = std::mem::take(&mut self.reset_pending);
        if let Some(observer) = &mut self.observer {
            observer.observe(input, reset, &self.world.telemetry(self.player));
        }
    }

    /// Puts the player car back on its start slot, at rest (no allocation).
    pub fn reset_player(&mut self) {
        self.world.reset_car(self.player);
        self.reset_pending = true;
    }

    /// The player car's telemetry after the last step.
    pub fn player_telemetry(&self) -> CarTelemetry {
        self.world.telemetry(self.player)
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
        (Ok(track), Ok(car)) => Ok((track, car)),
        (track, car) => Err(track.err().into_iter().chain(car.err()).collect()),
    }
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
            problem(
                format!("cannot read {kind} file `{name}`: {e}"),
                format!("correct the path, or name a built-in {kind}"),
            )
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
            let message = if e.line == 0 {
                e.message.clone()
            } else {
                e.to_string()
            };
            problem(
                message,
                format!("name a built-in {kind}, or give the path of a {kind} TOML file"),
            )
        })
    }
}
