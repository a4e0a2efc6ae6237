//! Breakable parts: a 30 m/s head-on barrier hit breaks the race car's front wing (its front
//! downforce drops by the wing's share, the rear keeps its own), a 10 m/s hit breaks nothing,
//! a reset repairs every part, a broken link and rack change the car's alignment by the stated
//! amounts, and `enabled = false` makes the car indestructible. Damage is reported in the
//! telemetry.

mod common;
use common::*;
use rig_physics::damage::DamageSpec;
use rig_physics::math::{Quat, Vec3};
use rig_physics::track::Track;
use rig_physics::{CarSpec, DamageTelemetry, World};

/// A straight 1.5 km stadium with the left barrier 10 m from the centreline.
fn stadium() -> Track {
    let text = "name = \"stadium\"\nhalf_width_m = 6.0\nrunoff_m = 4.0\n\n\
                [[piece]]\nkind = \"straight\"\nlength_m = 1500.0\n\n\
                [[piece]]\nkind = \"arc\"\nradius_m = 200.0\nangle_deg = 180.0\nturn = \"left\"\n\n\
                [[piece]]\nkind = \"straight\"\nlength_m = 1500.0\n\n\
                [[piece]]\nkind = \"arc\"\nradius_m = 200.0\nangle_deg = 180.0\nturn = \"left\"\n";
    Track::from_toml(text, "test:stadium").unwrap()
}

/// Drives `spec` head-on (nose first, square) into the left barrier at `speed_mps`, coasting,
/// for a second; returns the world after it.
fn head_on(spec: &CarSpec, speed_mps: f64) -> (World, rig_physics::CarId) {
    let track = stadium();
    let mut world = World::new(track.clone());
    let id = world.add_car(spec);
    let start = *world.car(id).state();
    let clearance = start.position.z - track.section(track.length_m() - 6.0).centre_m[2];
    let mut state = start;
    // Nose 1 m short of the barrier (10 m left), facing it (+y).
    let nose = 0.5 * spec.chassis.body_length_m
        + 0.5 * (2.0 * spec.chassis.cog_to_front_axle_m - spec.chassis.wheelbase_m);
    state.position = Vec3::new(300.0, 10.0 - 1.0 - nose, clearance);
    state.orientation = Quat::from_yaw(90f64.to_radians());
    world.car_mut(id).set_state(state);
    world.car_mut(id).set_speed(speed_mps);
    let mut touched = false;
    for _ in 0..1000 {
        world.set_controls(id, idle());
        world.step(DT);
        touched |= world.telemetry(id).barrier_contact;
    }
    assert!(
        touched,
        "the car never reached the barrier at {speed_mps} m/s"
    );
    (world, id)
}

#[test]
fn a_30_mps_hit_breaks_the_front_wing_and_a_10_mps_hit_does_not() {
    let spec = car("race");
    let share = spec.damage.unwrap().front_wing_downforce_share;
    let whole = spec.aero.downforce_n(50.0);

    let (world, id) = head_on(&spec, 30.0);
    let damage = world.telemetry(id).damage;
    assert!(damage.front_wing, "30 m/s: {damage:?}");
    assert!(
        !damage.rear_wing,
        "30 m/s: the rear wing never touched: {damage:?}"
    );
    let broken = world.car(id).aero().downforce_n(50.0);
    assert!(
        (broken[0] - whole[0] * (1.0 - share)).abs() < 1e-9 * whole[0],
        "front downforce {} N, whole {} N, share {share}",
        broken[0],
        whole[0]
    );
    assert_eq!(broken[1], whole[1], "the rear wing's downforce is kept");

    let (world, id) = head_on(&spec, 10.0);
    assert_eq!(world.telemetry(id).damage, DamageTelemetry::default());
    assert_eq!(world.car(id).aero().downforce_n(50.0), whole);
}

#[test]
fn reset_repairs_every_part() {
    let spec = car("race");
    // Hard enough for the wing, the rack and both front links.
    let (mut world, id) = head_on(&spec, 45.0);
    let damage = world.telemetry(id).damage;
    assert!(damage.front_wing && damage.steering_rack, "{damage:?}");
    assert!(damage.links[0] || damage.links[1], "{damage:?}");
    world.reset_car(id);
    assert_eq!(world.telemetry(id).damage, DamageTelemetry::default());
    assert_eq!(world.car(id).damage(), DamageTelemetry::default());
    assert_eq!(
        world.car(id).aero().downforce_n(50.0),
        spec.aero.downforce_n(50.0)
    );
    // Repaired, the car drives as a new one: 2 s rolling at 20 m/s from the grid, the same
    // path bit for bit as a car that never crashed.
    let roll = |world: &mut World, id| {
        world.car_mut(id).set_speed(20.0);
        run(world, id, idle(), 2.0)
    };
    let repaired = roll(&mut world, id);
    let mut fresh = World::new(stadium());
    let new_id = fresh.add_car(&spec);
    let new = roll(&mut fresh, new_id);
    assert_eq!(repaired.position_m, new.position_m);
    assert_eq!(repaired.orientation, new.orientation);
}

/// A broken rack steers the car: rolling with the wheel centred after the rack broke, the car
/// turns left (the stated offset is to the left), where the same car repaired runs straight.
#[test]
fn a_broken_rack_pulls_the_car_to_the_side_of_its_offset() {
    let spec = car("race");
    let (mut world, id) = head_on(&spec, 45.0);
    assert!(world.telemetry(id).damage.steering_rack);
    let mut state = *world.car(id).state();
    state.position = Vec3::new(800.0, 0.0, state.position.z);
    state.orientation = Quat::from_yaw(0.0);
    world.car_mut(id).set_state(state);
    world.car_mut(id).set_speed(15.0);
    let t = run(&mut world, id, idle(), 1.5);
    let yaw_rate = t.angular_velocity_body_radps[2];
    assert!(
        yaw_rate > 0.05,
        "yaw rate {yaw_rate} rad/s: the car should turn left"
    );
}

/// A kerb strike or landing whose tyre load exceeds the link's strength breaks that link: a
/// race car dropped from 3 m breaks all four (its links hold 35 kN), and a drop whose peak
/// tyre load stays below the strength breaks none.
#[test]
fn a_hard_landing_breaks_the_links() {
    let spec = car("race");
    let strength = spec.damage.unwrap().link_break_load_n;
    // Drops the car from `height_m`; returns its damage and the largest tyre load it saw.
    let drop = |height_m: f64| {
        let (mut world, id) = world_with(&spec, Track::flat());
        let mut state = *world.car(id).state();
        state.position.z += height_m;
        world.car_mut(id).set_state(state);
        world.set_controls(id, idle());
        let mut peak: f64 = 0.0;
        for _ in 0..1500 {
            world.step(DT);
            let t = world.telemetry(id);
            peak = t.wheels.iter().fold(peak, |p, w| p.max(w.load_n));
        }
        (world.telemetry(id).damage, peak)
    };
    let (damage, peak) = drop(3.0);
    assert!(peak > strength, "peak load {peak:.0} N");
    assert_eq!(damage.links, [true; 4], "{damage:?}");
    assert!(!damage.front_wing && !damage.rear_wing);
    let (damage, peak) = drop(0.1);
    assert!(peak < strength, "peak load {peak:.0} N from 0.1 m");
    assert_eq!(damage, DamageTelemetry::default(), "peak load {peak:.0} N");
}

#[test]
fn damage_off_makes_the_car_indestructible() {
    let mut spec = car("race");
    spec.damage = Some(DamageSpec {
        enabled: false,
        ..spec.damage.unwrap()
    });
    let (world, id) = head_on(&spec, 45.0);
    assert_eq!(world.telemetry(id).damage, DamageTelemetry::default());
    let text = include_str!("../data/cars/race.toml").replace("enabled = true", "enabled = false");
    let parsed = CarSpec::from_toml(&text, "test:race").unwrap();
    assert!(!parsed.damage.unwrap().enabled);
}
