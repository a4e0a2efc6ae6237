//! Limit speed on a banked 100 m radius circle against the banked-curve formula
//! `v = sqrt(g R (sin th + mu cos th) / (cos th - mu sin th))` (reference 2b: 37.43 m/s at
//! mu 1, 10 degrees). The car's effective mu is measured, not assumed: the same car and the
//! same robot on the same circle without banking give `mu = v_flat^2 / (g R)`. The limit is
//! the speed of a slow speed ramp (0.15 m/s per second) at which the robot, steering with
//! everything it has, can no longer hold the circle (drifts 2.5 m outside it).

use rig_physics::robot::{DriverLimits, Robot};
use rig_physics::track::{Track, TrackHint};
use rig_physics::{spec, World};

const RADIUS_M: f64 = 100.0;
const G: f64 = 9.81;
const DT_S: f64 = 0.002;

fn circle(bank_deg: f64) -> Track {
    let text = format!(
        "name = \"banked circle\"\nstart_bank_deg = {bank_deg}\nhalf_width_m = 10.0\n\
         runoff_m = 20.0\n\n[[piece]]\nkind = \"arc\"\nradius_m = {RADIUS_M}\n\
         angle_deg = 360.0\nturn = \"left\"\n"
    );
    Track::from_toml(&text, "test:circle").unwrap()
}

/// Speed at which the road car stops holding the circle, m/s.
fn limit_speed(track: &Track, start_mps: f64) -> f64 {
    let car = spec::builtin::car("road").unwrap();
    let mut world = World::new(track.clone());
    let id = world.add_car(&car);
    world.car_mut(id).set_speed(start_mps);
    // Plan far above the limit: the robot only steers; the ramp sets the speed.
    let mut robot = Robot::new(track, DriverLimits::from_car(&car), 3.0);
    let mut hint = TrackHint::default();
    let settle_s = 8.0;
    loop {
        let t = world.telemetry(id);
        let target = start_mps + 0.15 * (t.time_s - settle_s).max(0.0);
        let mut controls = robot.drive(&t, track);
        let error = target - t.speed_mps;
        controls.throttle = if controls.throttle > 0.0 || error > 0.0 {
            (0.3 + 0.5 * error).clamp(0.0, 1.0)
        } else {
            0.0
        };
        controls.brake = if error < -1.0 { 0.2 } else { 0.0 };
        world.set_controls(id, controls);
        world.step(DT_S);
        let coord = track.project(t.position_m, &mut hint);
        if t.time_s > settle_s && coord.lateral_m < -2.5 {
            return t.speed_mps;
        }
        assert!(
            t.time_s < 200.0,
            "the car held the circle up to {} m/s",
            t.speed_mps
        );
    }
}

#[test]
fn banked_limit_speed_matches_the_banked_curve_formula() {
    let flat = limit_speed(&circle(0.0), 24.0);
    let mu = flat * flat / (G * RADIUS_M);
    let bank = 10.0_f64.to_radians();
    let (sin, cos) = bank.sin_cos();
    let predicted = (G * RADIUS_M * (sin + mu * cos) / (cos - mu * sin)).sqrt();
    let banked = limit_speed(&circle(10.0), 0.8 * predicted);
    println!(
        "flat limit {flat:.2} m/s (mu {mu:.3}); banked 10 deg: {banked:.2} m/s, formula \
         {predicted:.2} m/s"
    );
    assert!(mu > 0.6 && mu < 1.3, "implausible effective mu {mu}");
    assert!(
        (banked - predicted).abs() < 0.05 * predicted,
        "banked limit {banked:.2} m/s vs formula {predicted:.2} m/s (mu {mu:.3})"
    );
}
