//! The robot-driving set-up shared by the robot lap tests (`robot_every_car_track.rs`,
//! `robot_laps.rs`, `lapsim_robot.rs`), included by each with `#[path]` (as
//! `random_driving.rs` is), so that they measure the same thing the same way:
//! - a built-in car with its robot on a built-in track, at its grid slot, with a lap timer
//!   ([`RobotDrive`]);
//! - the centres of a car's four wheels in the body frame ([`wheel_centres_m`]);
//! - how far a track position is past the edge of the racing surface ([`past_edge_m`]), and
//!   how far the worst wheel centre of a car is past it ([`WorstWheel`], with a projection
//!   hint per wheel).

#![allow(dead_code)] // each test uses its own subset

use rig_physics::lap::LapTimer;
use rig_physics::robot::Robot;
use rig_physics::track::{builtin, Track, TrackCoord, TrackHint};
use rig_physics::{spec, CarId, CarSpec, CarTelemetry, World};

/// A built-in car on a built-in track, at its grid slot at rest, with its robot and a lap
/// timer on that track.
pub struct RobotDrive {
    /// The track, also the world's.
    pub track: Track,
    /// The car's spec.
    pub car: CarSpec,
    /// A world on `track` with the one car.
    pub world: World,
    /// The car in `world`.
    pub id: CarId,
    /// The robot driving the car.
    pub robot: Robot,
    /// A lap timer on `track`, not yet updated.
    pub timer: LapTimer,
}

impl RobotDrive {
    /// `car_name` on `track_name` with the demo's robot ([`Robot::for_car`]).
    pub fn for_car(car_name: &str, track_name: &str) -> RobotDrive {
        RobotDrive::new(car_name, track_name, Robot::for_car)
    }

    /// `car_name` on `track_name` with the robot planning on the car's estimated envelope
    /// ([`Robot::at_the_limit`]).
    pub fn at_the_limit(car_name: &str, track_name: &str) -> RobotDrive {
        RobotDrive::new(car_name, track_name, Robot::at_the_limit)
    }

    /// The car at its grid slot, its robot made by `robot`, and the timer.
    fn new(car_name: &str, track_name: &str, robot: fn(&Track, &CarSpec) -> Robot) -> RobotDrive {
        let track = builtin(track_name).unwrap();
        let car = spec::builtin::car(car_name).unwrap();
        let mut world = World::new(track.clone());
        let id = world.add_car(&car);
        let robot = robot(&track, &car);
        let timer = LapTimer::new(&track);
        RobotDrive {
            track,
            car,
            world,
            id,
            robot,
            timer,
        }
    }
}

/// The centres of `car`'s four wheels in the body frame (x forward, y left, from the centre
/// of gravity), m: front left, front right, rear left, rear right.
pub fn wheel_centres_m(car: &CarSpec) -> [[f64; 2]; 4] {
    let chassis = &car.chassis;
    let front_m = chassis.cog_to_front_axle_m;
    let rear_m = chassis.cog_to_front_axle_m - chassis.wheelbase_m;
    [
        [front_m, 0.5 * chassis.track_front_m],
        [front_m, -0.5 * chassis.track_front_m],
        [rear_m, 0.5 * chassis.track_rear_m],
        [rear_m, -0.5 * chassis.track_rear_m],
    ]
}

/// How far `coord` is past the nearer edge of the racing surface, m (negative: that far
/// inside both edges).
pub fn past_edge_m(coord: &TrackCoord) -> f64 {
    (coord.lateral_m - coord.half_width_left_m).max(-coord.lateral_m - coord.half_width_right_m)
}

/// A car's four wheel centres, each projected onto the track with its own hint, to find the
/// one furthest past the edge of the racing surface.
pub struct WorstWheel {
    /// [`wheel_centres_m`] of the car.
    wheels_m: [[f64; 2]; 4],
    /// One projection hint per wheel, following it from step to step.
    hints: [TrackHint; 4],
}

impl WorstWheel {
    /// For `car`, with fresh hints.
    pub fn new(car: &CarSpec) -> WorstWheel {
        WorstWheel {
            wheels_m: wheel_centres_m(car),
            hints: [TrackHint::default(); 4],
        }
    }

    /// How far the worst wheel centre of the car in `telemetry` is past the edge of `track`'s
    /// racing surface, m (negative: every wheel centre that far inside). Meant for every step,
    /// so that each wheel's hint stays near its wheel.
    pub fn past_edge_m(&mut self, track: &Track, telemetry: &CarTelemetry) -> f64 {
        let [x_m, y_m, z_m] = telemetry.position_m;
        let (sin, cos) = telemetry.roll_pitch_yaw_rad[2].sin_cos();
        let mut worst_m = f64::NEG_INFINITY;
        for (wheel, hint) in self.wheels_m.iter().zip(&mut self.hints) {
            let x = x_m + cos * wheel[0] - sin * wheel[1];
            let y = y_m + sin * wheel[0] + cos * wheel[1];
            worst_m = worst_m.max(past_edge_m(&track.project([x, y, z_m], hint)));
        }
        worst_m
    }
}
