//! Who drives a robot car: the one place the runtime asks a robot for controls.
//!
//! The driver is `rig_physics::robot::Robot` (a line and speed profile planned at set-up, pure
//! pursuit and speed holding while driving). Planning allocates and costs milliseconds, so a
//! world plans once per car spec and clones the plan for each further car.

use rig_physics::line_search::drive::Course;
use rig_physics::robot::Robot;
use rig_physics::{CarId, CarSpec, Controls, World};

/// The state one robot keeps between steps.
#[derive(Debug, Clone)]
pub struct RobotDriver(Robot);

impl RobotDriver {
    /// Plans a robot for cars of `spec` on `world`'s track (set-up time: allocates).
    pub fn plan(world: &World, spec: &CarSpec) -> RobotDriver {
        RobotDriver(Robot::for_car(world.track(), spec))
    }

    /// A robot for cars of `spec` driving the line through `offsets_m` (a `[sim] robot_line`
    /// found by `rigd line`, already checked against the car and track), its speeds planned
    /// for that line.
    pub fn on_line(world: &World, spec: &CarSpec, offsets_m: &[f64]) -> RobotDriver {
        RobotDriver(Course::new(world.track().clone(), spec.clone()).robot(offsets_m))
    }
}

/// The controls `robot` chooses for `car` this step (RT path: no allocation; reads the
/// world's track projection of the car instead of projecting again).
pub fn robot_controls(robot: &mut RobotDriver, world: &World, car: CarId) -> Controls {
    robot.0.drive_car(world, car)
}
