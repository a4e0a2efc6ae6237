//! Who drives a robot car: the one place the runtime asks a robot for controls.
//!
//! PLACEHOLDER until `rig_physics::robot` lands: [`RobotDriver`] holds nothing and
//! [`robot_controls`] holds a constant part throttle in first gear, straight ahead. Swapping
//! in the real robot is an edit of this file only (the type and the body of the one function).

use rig_physics::{CarId, Controls, GearRequest, World};

/// Part throttle the placeholder holds (keeps a car moving without a line to follow).
const PLACEHOLDER_THROTTLE: f64 = 0.3;

/// The state one robot keeps between steps.
#[derive(Debug, Clone, Default)]
pub struct RobotDriver;

impl RobotDriver {
    /// A robot for `car` in `world` (set-up time: may allocate).
    pub fn new(world: &World, car: CarId) -> RobotDriver {
        let _ = (world, car);
        RobotDriver
    }
}

/// The controls `robot` chooses for `car` this step (RT path: no allocation).
pub fn robot_controls(robot: &mut RobotDriver, world: &World, car: CarId) -> Controls {
    let _ = robot;
    let in_gear = world.car(car).telemetry().drivetrain.gear > 0;
    if in_gear {
        Controls {
            throttle: PLACEHOLDER_THROTTLE,
            brake: 0.0,
            ..Controls::SAFE_STOP
        }
    } else {
        // Clutch in, then first gear (the gearbox refuses a shift without the clutch).
        Controls {
            clutch: 1.0,
            gear_request: GearRequest::Select(1),
            ..Controls::SAFE_STOP
        }
    }
}
