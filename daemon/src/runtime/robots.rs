//! Who drives a robot car: the one place the runtime asks a robot for controls.
//!
//! The driver is `rig_physics::robot::Robot` (a line and speed profile planned at set-up, pure
//! pursuit and speed holding while driving): `Robot::for_car`, planning on the car's envelope
//! (the shipped measured one, else the estimate from the car data) with a margin of 0.96, or,
//! with a `[sim] robot_line`, the line search's robot on that line (planning as the search
//! that verified the line did). Planning allocates and costs milliseconds, so a
//! world plans the player's robot once per car spec and gives the further robot cars that
//! robot's line with [`SKILL_LEVELS`] different margins ([`RobotDriver::for_robot`], planned
//! once each and cloned beyond): their skills, and so their lap times, differ.

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

/// Margin (share of the envelope's lateral and braking limits planned with) each further robot
/// car gives up against the one before it: 0.02 is 0.6-0.8 % of the road car's planned lap on
/// the circuit (101.62, 102.21, 102.95, 103.76 s at 0.96 down to 0.90).
pub const MARGIN_STEP: f64 = 0.02;
/// Least margin a robot car plans with.
const LEAST_MARGIN: f64 = 0.5;
/// Different margins among the robot cars: robot car `i` has skill level `i % SKILL_LEVELS`
/// (a world of 100 robots plans 8 speed profiles, not 100).
pub const SKILL_LEVELS: usize = 8;

impl RobotDriver {
    /// The driver of skill level `index` (0 the best, for the first robot car after the player):
    /// this robot's line with `MARGIN_STEP * (index + 1)` less margin, its speeds planned again
    /// (set-up time).
    pub fn for_robot(&self, world: &World, index: usize) -> RobotDriver {
        let margin = (self.0.margin() - MARGIN_STEP * (index + 1) as f64).max(LEAST_MARGIN);
        RobotDriver(self.0.with_margin(world.track(), margin))
    }

    /// The margin this robot plans with.
    pub fn margin(&self) -> f64 {
        self.0.margin()
    }

    /// The lap time this robot's plan predicts, s.
    pub fn planned_lap_s(&self) -> f64 {
        self.0.planned_lap_s()
    }
}

/// The controls `robot` chooses for `car` this step (RT path: no allocation; reads the
/// world's track projection of the car instead of projecting again).
pub fn robot_controls(robot: &mut RobotDriver, world: &World, car: CarId) -> Controls {
    robot.0.drive_car(world, car)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_robot_car_plans_with_less_margin_and_a_slower_lap() {
        let track = rig_physics::track::builtin("circuit").unwrap();
        let spec = rig_physics::spec::builtin::car("road").unwrap();
        let world = World::new(track);
        let player = RobotDriver::plan(&world, &spec);
        let robots: Vec<_> = (0..3).map(|i| player.for_robot(&world, i)).collect();
        let mut previous = (player.margin(), player.planned_lap_s());
        for robot in &robots {
            assert!((previous.0 - robot.margin() - MARGIN_STEP).abs() < 1e-12);
            // 0.02 less grip: at least half a percent slower, at most 3 %.
            let ratio = robot.planned_lap_s() / previous.1;
            assert!(ratio > 1.005 && ratio < 1.03, "{ratio}");
            previous = (robot.margin(), robot.planned_lap_s());
        }
    }
}
