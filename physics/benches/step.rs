//! ns per `World::step` (1 ms) for 1, 10 and 100 road cars driving with changing controls on
//! the flat plane and on the built-in circuit. A plain bench binary (`harness = false`): each
//! case runs several rounds and prints the median per step and per car-step.
//!
//! Run: `cargo bench -p rig-physics --bench step`.

use rig_physics::track::Track;
use rig_physics::{builtin, CarId, Controls, World};
use std::hint::black_box;
use std::time::Instant;

const ROUNDS: usize = 7;

fn world(track: Track, cars: usize) -> World {
    let spec = builtin::car("road").expect("road car");
    let mut world = World::new(track);
    for _ in 0..cars {
        let id = world.add_car(&spec);
        world.car_mut(id).set_speed(20.0);
    }
    world
}

fn median_ns_per_step(track: &Track, cars: usize) -> f64 {
    let steps = (200_000 / cars).max(2_000);
    let mut results = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let mut w = world(track.clone(), cars);
        let mut controls = Controls {
            ignition: true,
            throttle: 0.3,
            ..Controls::default()
        };
        let start = Instant::now();
        for step in 0..steps {
            if step % 100 == 0 {
                controls.steering = ((step / 100) as f64 * 0.37).sin() * 0.1;
                for i in 0..cars {
                    w.set_controls(CarId(i), controls);
                }
            }
            w.step(0.001);
        }
        black_box(w.telemetry(CarId(0)));
        results.push(start.elapsed().as_nanos() as f64 / steps as f64);
    }
    results.sort_by(f64::total_cmp);
    results[ROUNDS / 2]
}

fn main() {
    let circuit = rig_physics::track::builtin("circuit").expect("built-in circuit");
    for (name, track) in [("flat", Track::flat()), ("circuit", circuit)] {
        for cars in [1, 10, 100] {
            let ns = median_ns_per_step(&track, cars);
            println!(
                "rig-physics step track={name} cars={cars}: {ns:.0} ns/step, {:.0} ns/car-step",
                ns / cars as f64
            );
        }
    }
}
