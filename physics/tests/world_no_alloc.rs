//! `World::step` performs no heap allocation: a counting global allocator sees zero
//! allocations across thousands of steps with changing controls, barrier-free and on a
//! built-in track. Only allocations on the stepping thread count (as in
//! `drivetrain_no_alloc`): the test harness's own thread may still be allocating when the
//! measurement starts, which is not the step's doing. The tyre model (temperature, pressure,
//! wear) runs in every case, and one case gives a car two tyre sets (front and rear).

mod common;
use common::*;
use rig_physics::track::Track;
use rig_physics::{Controls, World};
mod counting_alloc;
use counting_alloc::{start_counting, stop_counting, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

fn steps_without_allocating(world: &mut World) -> usize {
    let ids: Vec<_> = (0..world.car_count()).map(rig_physics::CarId).collect();
    let mut controls = Controls {
        ignition: true,
        ..Controls::default()
    };
    start_counting();
    for step in 0..6000u32 {
        controls.throttle = f64::from(step % 1000) / 1000.0;
        controls.steering = (f64::from(step) * 0.002).sin();
        controls.brake = if step % 2000 > 1500 { 0.8 } else { 0.0 };
        for &id in &ids {
            world.set_controls(id, controls);
        }
        world.step(DT);
        for &id in &ids {
            std::hint::black_box(world.telemetry(id));
        }
    }
    stop_counting()
}

#[test]
fn step_never_allocates() {
    let mut flat = World::new(Track::flat());
    flat.add_car(&car("road"));
    flat.add_car(&car("race"));
    assert_eq!(
        steps_without_allocating(&mut flat),
        0,
        "allocations inside step on the flat plane"
    );

    for name in rig_physics::track::BUILTIN_NAMES {
        let track = rig_physics::track::builtin(name).expect("built-in track");
        let mut world = World::new(track);
        world.add_car(&car("road"));
        world.add_car(&car("race"));
        assert_eq!(
            steps_without_allocating(&mut world),
            0,
            "allocations inside step on {name}"
        );
    }
}

#[test]
fn step_never_allocates_with_two_tyre_sets_and_the_tyre_model_on() {
    let mut spec = car("race");
    let mut rear_set = spec.tyre.mf();
    rear_set.pdy1 *= 1.1;
    spec.tyre.rear = Some(rig_physics::tyre::AxleTyreSpec {
        coefficients: "rear.tir".to_string(),
        tir_text: None,
        grip_scale_long: None,
        grip_scale_lat: Some(1.05),
        set: rear_set,
        set_grip: rig_physics::tyre::mf61::GripScale::UNITY,
    });
    let mut world = World::new(Track::flat());
    let id = world.add_car(&spec);
    assert!(world.car(id).tyre().rear_mf.is_some(), "two sets");
    let start = world.car(id).state().tyres;
    assert_eq!(steps_without_allocating(&mut world), 0);
    let end = world.car(id).state().tyres;
    for (s, e) in start.iter().zip(&end) {
        assert!(
            e.wear > 0.0 && e.surface_c != s.surface_c,
            "the model ran: {e:?}"
        );
    }
}

/// With damage on, the steps in which a head-on barrier hit breaks the race car's parts, and
/// the reset that repairs them, allocate nothing.
#[test]
fn breaking_and_repairing_parts_never_allocates() {
    use rig_physics::math::{Quat, Vec3};
    let text = "name = \"box\"\nhalf_width_m = 6.0\nrunoff_m = 4.0\n\n\
                [[piece]]\nkind = \"straight\"\nlength_m = 600.0\n\n\
                [[piece]]\nkind = \"arc\"\nradius_m = 100.0\nangle_deg = 180.0\nturn = \"left\"\n\n\
                [[piece]]\nkind = \"straight\"\nlength_m = 600.0\n\n\
                [[piece]]\nkind = \"arc\"\nradius_m = 100.0\nangle_deg = 180.0\nturn = \"left\"\n";
    let track = Track::from_toml(text, "test:box").unwrap();
    let mut world = World::new(track);
    let id = world.add_car(&car("race"));
    let mut state = *world.car(id).state();
    state.position = Vec3::new(200.0, 5.0, state.position.z);
    state.orientation = Quat::from_yaw(std::f64::consts::FRAC_PI_2);
    world.car_mut(id).set_state(state);
    world.car_mut(id).set_speed(45.0);
    start_counting();
    let mut broke = false;
    for _ in 0..1000 {
        world.step(DT);
        broke |= world.telemetry(id).damage.any();
    }
    world.reset_car(id);
    for _ in 0..100 {
        world.step(DT);
    }
    let allocations = stop_counting();
    assert!(broke, "the hit broke nothing");
    assert!(!world.telemetry(id).damage.any());
    assert_eq!(allocations, 0);
}
