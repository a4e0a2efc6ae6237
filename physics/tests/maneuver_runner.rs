//! The manoeuvre runner: manoeuvres start settled (in gear, clutch out, steady at their speed),
//! so a step steer's response is the chassis' alone; the ISO 4138 steer ramp gives the
//! understeer gradient; a speed the car cannot hold is refused. Prints the built-in road car's
//! figures (docs/maneuvers.md records them).

mod common;

use common::car;
use rig_physics::maneuver::{self, Maneuver};

fn print(figures: &[maneuver::Figure]) {
    for f in figures {
        println!("# {} = {:.4} {}", f.name, f.value, f.unit);
    }
}

#[test]
fn step_steer_starts_settled_in_gear_and_responds_without_driveline_disturbance() {
    let spec = car("road");
    let step = Maneuver::StepSteer {
        speed_kph: 80.0,
        steer_deg: 30.0,
        duration_s: 4.0,
    };
    let rows = maneuver::simulate(&spec, &step).unwrap();
    let target = 80.0 / 3.6;
    let gear = rows[0].gear;
    assert!(gear >= 3, "cruise gear {gear}");
    for r in &rows {
        assert_eq!(r.gear, gear, "gear changed at {} s", r.time_s);
        if r.time_s < 0.5 {
            assert!(
                (r.speed_mps - target).abs() < 0.05,
                "{} m/s at {} s",
                r.speed_mps,
                r.time_s
            );
            assert!(r.yaw_rate_radps.abs() < 1e-3 && r.lateral_accel_mps2.abs() < 0.05);
        }
        // The engine is coupled the whole time: no clutch engagement pulls the car back
        // (before the settling, up to -3 m/s^2 right after the step).
        assert!(
            r.longitudinal_accel_mps2 > -1.0,
            "{} m/s^2 at {} s",
            r.longitudinal_accel_mps2,
            r.time_s
        );
    }
    let figures = maneuver::summary(&spec, &step, &rows);
    print(&figures);
    let value = |name: &str| figures.iter().find(|f| f.name == name).unwrap().value;
    // Steady state: a = v r within a few per cent (a small body slip rate remains).
    let (yaw, lat) = (value("steady_yaw_rate"), value("steady_lateral_accel"));
    assert!(yaw > 0.1 && lat > 2.0, "yaw {yaw}, lateral {lat}");
    assert!((lat / (yaw * rows.last().unwrap().speed_mps) - 1.0).abs() < 0.05);
    let response = value("yaw_rate_response_time");
    assert!((0.05..0.5).contains(&response), "yaw response {response} s");
    assert!(value("lateral_accel_response_time") >= response * 0.8);
}

#[test]
fn steer_ramp_gives_the_understeer_gradient() {
    let spec = car("road");
    let ramp = Maneuver::SteerRamp {
        speed_kph: 80.0,
        steer_rate_deg_per_s: 5.0,
        max_steer_deg: 90.0,
    };
    let rows = maneuver::simulate(&spec, &ramp).unwrap();
    let figures = maneuver::summary(&spec, &ramp, &rows);
    print(&figures);
    let gradient = figures[0].value;
    // A front-heavy road car on equal tyres understeers: about 1 deg/g with this set.
    assert!(
        (0.5..3.0).contains(&gradient),
        "understeer gradient {gradient} deg/g"
    );
    // The gradient from the rows by hand: steer / ratio - L r / v over 0.5..4 m/s^2.
    let by_hand =
        maneuver::understeer_gradient(&rows, spec.chassis.wheelbase_m, spec.steering.ratio)
            .unwrap()
            .to_degrees()
            * 9.81;
    assert_eq!(gradient, by_hand);
}

#[test]
fn a_speed_the_car_cannot_hold_is_refused() {
    let spec = car("road");
    let step = Maneuver::StepSteer {
        speed_kph: 300.0,
        steer_deg: 10.0,
        duration_s: 2.0,
    };
    let err = maneuver::simulate(&spec, &step).unwrap_err();
    assert_eq!(err.parameter, "speed_kph");
    assert!(
        err.message.contains("did not settle at 300.0 km/h"),
        "{err}"
    );
}
