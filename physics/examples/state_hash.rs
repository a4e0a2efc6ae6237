//! A hash of every car's telemetry, state and track coordinate at every step, for checking
//! that a change meant to make the step cheaper keeps every result bit: each built-in car on
//! the flat and on every built-in track, one robot-driven and one randomly driven (the tests'
//! `RandomControls`, from physics/tests/common/random_driving.rs, with the starter held for the
//! first second).
//! `cargo run --profile bench -p rig-physics --example state_hash [STEPS, default 10000]`
//! prints one hash per track and car and their TOTAL; compare the output before and after.

#[path = "../tests/common/random_driving.rs"]
mod random_driving;

use random_driving::RandomControls;
use rig_physics::identity::digest_of;
use rig_physics::robot::Robot;
use rig_physics::track::{builtin as track_builtin, Track, BUILTIN_NAMES};
use rig_physics::{builtin, World};

fn main() {
    let steps: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(10000);
    let mut total: u64 = 0xcbf2_9ce4_8422_2325;
    let mut tracks: Vec<(String, Track)> = vec![("flat".into(), Track::flat())];
    for name in BUILTIN_NAMES {
        tracks.push((name.into(), track_builtin(name).unwrap()));
    }
    for (tname, track) in &tracks {
        for cname in builtin::car_names() {
            let spec = builtin::car(cname).unwrap();
            let mut world = World::new(track.clone());
            let a = world.add_car(&spec);
            let b = world.add_car(&spec);
            let mut robot = Robot::for_car(track, &spec);
            let mut random = RandomControls::new(0x9e37_79b9_7f4a_7c15 ^ total);
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for step in 0..steps {
                let c = robot.drive_car(&world, a);
                world.set_controls(a, c);
                let mut rc = random.at(step);
                rc.starter = step < 1000;
                world.set_controls(b, rc);
                world.step(0.001);
                for id in [a, b] {
                    h = h.rotate_left(7)
                        ^ digest_of(&(
                            world.telemetry(id),
                            world.car(id).state(),
                            world.track_coord(id),
                        ));
                }
            }
            for id in [a, b] {
                h = h.rotate_left(7) ^ digest_of(world.car(id));
            }
            println!(
                "{tname:8} {cname:8} {h:016x} faults {}",
                world.fault_count()
            );
            total = total.rotate_left(5) ^ h;
        }
    }
    println!("TOTAL {total:016x}");
}
