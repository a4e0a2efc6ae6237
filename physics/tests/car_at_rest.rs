//! A parked car: on a 10 % slope with the handbrake it moves less than 5 mm in 60 s; on flat
//! ground with no input its wheels do not jitter.

mod common;
use common::*;
use rig_physics::track::Track;

#[test]
fn handbrake_holds_on_ten_percent_slope() {
    let spec = car("road");
    let (mut world, id) = world_with(&spec, Track::plane(0.10));
    let hold = rig_physics::Controls {
        handbrake: 1.0,
        ..idle()
    };
    // Settle onto the springs and tyres first.
    let t0 = run(&mut world, id, hold, 2.0);
    let p0 = t0.position_m;
    let t1 = run(&mut world, id, hold, 60.0);
    let moved = ((t1.position_m[0] - p0[0]).powi(2) + (t1.position_m[1] - p0[1]).powi(2)).sqrt();
    assert!(moved < 0.005, "moved {moved} m in 60 s on the handbrake");
    assert_eq!(t1.wheels[2].angular_velocity_radps, 0.0);
    assert_eq!(t1.wheels[3].angular_velocity_radps, 0.0);
}

#[test]
fn no_wheel_speed_jitter_at_rest() {
    for name in ["road", "race"] {
        let spec = car(name);
        let (mut world, id) = world_with(&spec, Track::flat());
        let t0 = run(&mut world, id, idle(), 2.0);
        let mut worst: f64 = 0.0;
        for _ in 0..10_000 {
            world.step(DT);
            let t = world.telemetry(id);
            for w in &t.wheels {
                worst = worst.max(w.angular_velocity_radps.abs());
            }
        }
        let t1 = world.telemetry(id);
        assert!(
            worst < 1e-6,
            "{name}: wheel speed reached {worst} rad/s at rest"
        );
        let moved = (t1.position_m[0] - t0.position_m[0]).abs()
            + (t1.position_m[1] - t0.position_m[1]).abs();
        assert!(moved < 1e-4, "{name}: crept {moved} m at rest");
    }
}
