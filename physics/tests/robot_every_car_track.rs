//! The demo's robot (`Robot::for_car`: planning on the car's envelope, the shipped measured
//! one when there is one for the car, else the estimate from the car data) on every built-in
//! track with every built-in car: from the grid through a lap and a flying lap, no barrier
//! contact, the flying lap close to its plan (the lap simulation on that envelope: far slower
//! would mean the robot does not drive to it, faster that it promises less than the car has),
//! and every wheel inside the edges of the racing surface.
//!
//! The wheels stay inside on 6 of the 15 (docs/lapsim.md has the table). On the other 9 the
//! robot runs 1-2.5 m wide of its line at corner exits on power (and on gravel), its line
//! 0.1-0.15 m from the edge for the wheels, so a wheel crosses the edge by up to 1 m; the
//! robot planning on the grip-only envelope before session 15 did the same on the same 9
//! (up to 1 m). Those tests hold today's excursion so they fail if it gets worse, until the
//! robot's tracking at exits is fixed.
//!
//! Steps are 2 ms (a supported dt): the 30 laps take about 5 s of CPU (4.7 s at load 12.6).

#[path = "common/robot_drive.rs"]
mod robot_drive;

use rig_physics::spec;
use robot_drive::{RobotDrive, WorstWheel};

const DT_S: f64 = 0.002;

/// What one lap showed.
struct Lap {
    /// The flying (second) lap, s.
    lap_s: f64,
    planned_s: f64,
    /// Largest distance of a wheel's centre past the edge of the racing surface over the whole
    /// drive (negative: every wheel stayed that far inside), m.
    worst_wheel_m: f64,
}

fn two_laps(car_name: &str, track_name: &str) -> Lap {
    let RobotDrive {
        track,
        car,
        mut world,
        id,
        mut robot,
        mut timer,
    } = RobotDrive::for_car(car_name, track_name);
    let planned_s = robot.planned_lap_s();
    let mut worst_wheel = WorstWheel::new(&car);
    let mut worst_wheel_m = f64::MIN;
    let tag = format!("{car_name} on {track_name}");
    // Generous: the run to the line and two laps at half the planned pace.
    let limit_s = 60.0 + 4.0 * planned_s;
    while timer.telemetry().laps_completed < 2 {
        let controls = robot.drive_car(&world, id);
        world.set_controls(id, controls);
        world.step(DT_S);
        let t = world.telemetry(id);
        assert!(t.time_s < limit_s, "{tag}: no lap in {limit_s:.0} s");
        assert!(!t.barrier_contact, "{tag}: barrier at {:.1} s", t.time_s);
        worst_wheel_m = worst_wheel_m.max(worst_wheel.past_edge_m(&track, &t));
        timer.update(&world.track_coord(id), DT_S);
    }
    let lap_s = timer.telemetry().last_lap_s;
    println!(
        "{tag}: planned {planned_s:.2} s, flying lap {lap_s:.2} s ({:+.1} %), closest wheel \
         {:.2} m inside the edge",
        100.0 * (lap_s / planned_s - 1.0),
        -worst_wheel_m
    );
    Lap {
        lap_s,
        planned_s,
        worst_wheel_m,
    }
}

/// Drives `car` on `track` and holds the figures: every wheel within `allowed_m` of the
/// edge (0: inside it; a positive bound is today's excursion, see the module header), the
/// flying lap no faster than 97 % of the plan and no slower than 135 %.
fn check(car: &str, track: &str, allowed_m: f64) {
    let lap = two_laps(car, track);
    assert!(
        lap.worst_wheel_m < allowed_m,
        "{car} on {track}: a wheel {:.2} m past the edge (held: {allowed_m} m)",
        lap.worst_wheel_m
    );
    assert!(
        lap.lap_s > 0.97 * lap.planned_s && lap.lap_s < 1.35 * lap.planned_s,
        "{car} on {track}: {:.2} s against a plan of {:.2} s",
        lap.lap_s,
        lap.planned_s
    );
}

macro_rules! lap_tests {
    ($($name:ident: $car:literal on $track:literal, $allowed:literal;)*) => {$(
        #[test]
        fn $name() {
            check($car, $track, $allowed);
        }
    )*};
}

lap_tests! {
    road_on_the_circuit: "road" on "circuit", 0.0;
    road_on_the_oval: "road" on "oval", 0.15;
    road_on_the_skidpad: "road" on "skidpad", 0.0;
    road_on_the_gravel_stage: "road" on "gravel", 1.1;
    road_on_the_corners_track: "road" on "corners", 0.0;
    race_on_the_circuit: "race" on "circuit", 0.9;
    race_on_the_oval: "race" on "oval", 0.45;
    race_on_the_skidpad: "race" on "skidpad", 0.0;
    race_on_the_gravel_stage: "race" on "gravel", 0.55;
    race_on_the_corners_track: "race" on "corners", 0.4;
    rally_on_the_circuit: "rally" on "circuit", 0.5;
    rally_on_the_oval: "rally" on "oval", 0.35;
    rally_on_the_skidpad: "rally" on "skidpad", 0.0;
    rally_on_the_gravel_stage: "rally" on "gravel", 0.7;
    rally_on_the_corners_track: "rally" on "corners", 0.0;
}

#[test]
fn every_builtin_car_and_track_is_covered() {
    assert_eq!(spec::builtin::car_names(), ["road", "race", "rally"]);
    assert_eq!(
        rig_physics::track::BUILTIN_NAMES,
        ["circuit", "oval", "skidpad", "gravel", "corners"]
    );
}
