//! A car thrown at a barrier at 60 m/s stays on the track side: the barrier is a solid
//! half-space, so however deep one step would carry the body, it is pushed back.

use rig_physics::math::{Quat, Vec3};
use rig_physics::track::{Track, TrackHint};
use rig_physics::{spec, Controls, World};

const DT_S: f64 = 0.001;

fn long_stadium() -> Track {
    let text = "name = \"long stadium\"\nhalf_width_m = 6.0\nrunoff_m = 4.0\n\n\
                [[piece]]\nkind = \"straight\"\nlength_m = 1500.0\n\n\
                [[piece]]\nkind = \"arc\"\nradius_m = 200.0\nangle_deg = 180.0\nturn = \"left\"\n\n\
                [[piece]]\nkind = \"straight\"\nlength_m = 1500.0\n\n\
                [[piece]]\nkind = \"arc\"\nradius_m = 200.0\nangle_deg = 180.0\nturn = \"left\"\n";
    Track::from_toml(text, "test:stadium").unwrap()
}

fn hit(car_name: &str, angle_deg: f64, side: f64) {
    let track = long_stadium();
    let car = spec::builtin::car(car_name).unwrap();
    let mut world = World::new(track.clone());
    let id = world.add_car(&car);
    // Move the car (settled height kept) to the middle of the first straight, aimed at the
    // left (side 1) or right (side -1) barrier, at 60 m/s.
    let start = *world.car(id).state();
    let clearance = start.position.z - track.section(track.length_m() - 6.0).centre_m[2];
    let mut state = start;
    state.position = Vec3::new(300.0, 0.0, clearance);
    state.orientation = Quat::from_yaw(side * angle_deg.to_radians());
    world.car_mut(id).set_state(state);
    world.car_mut(id).set_speed(60.0);
    let barrier = 10.0;
    let mut hint = TrackHint::default();
    let mut touched = false;
    let tag = format!("{car_name} at {angle_deg} deg");
    for step in 0..3000 {
        world.set_controls(
            id,
            Controls {
                ignition: true,
                ..Controls::default()
            },
        );
        world.step(DT_S);
        let t = world.telemetry(id);
        assert!(
            t.position_m.iter().all(|v| v.is_finite()),
            "{tag}: NaN at {step}"
        );
        touched |= t.barrier_contact;
        let coord = track.project(t.position_m, &mut hint);
        assert!(
            side * coord.lateral_m < barrier - 0.3,
            "{tag}: centre of gravity at {:.2} m, the barrier is at {barrier} m (step {step})",
            coord.lateral_m
        );
    }
    assert!(touched, "{tag}: never reached the barrier");
    let t = world.telemetry(id);
    let away = -side * (t.velocity_world_mps[1]);
    assert!(
        away > -1.0,
        "{tag}: still driving into the barrier at {away} m/s"
    );
}

#[test]
fn a_60_mps_hit_on_the_left_barrier_stays_on_the_track_side() {
    hit("road", 20.0, 1.0);
    hit("race", 45.0, 1.0);
}

#[test]
fn a_60_mps_hit_on_the_right_barrier_stays_on_the_track_side() {
    hit("road", 30.0, -1.0);
}
