//! A hash of every car's telemetry, state and track coordinate at every step, for checking
//! that a change meant to make the step cheaper keeps every result bit: each built-in car on
//! the flat and on every built-in track, one robot-driven and one randomly driven.
//! `cargo run --profile bench -p rig-physics --example state_hash [STEPS, default 10000]`
//! prints one hash per track and car and their TOTAL; compare the output before and after.
use rig_physics::identity::digest_of;
use rig_physics::robot::Robot;
use rig_physics::track::{builtin as track_builtin, Track, BUILTIN_NAMES};
use rig_physics::{builtin, Controls, World};
struct Noise(u64);
impl Noise {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}
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
            let mut noise = Noise(0x9e37_79b9_7f4a_7c15 ^ total);
            let mut rc = Controls {
                ignition: true,
                ..Controls::default()
            };
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for step in 0..steps {
                let c = robot.drive_car(&world, a);
                world.set_controls(a, c);
                if step % 100 == 0 {
                    rc.steering = noise.next() * 2.0 - 1.0;
                    rc.throttle = noise.next();
                    rc.brake = if noise.next() > 0.7 {
                        noise.next()
                    } else {
                        0.0
                    };
                    rc.handbrake = if noise.next() > 0.9 { 1.0 } else { 0.0 };
                    rc.starter = step < 1000;
                }
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
