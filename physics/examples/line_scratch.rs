use rig_physics::line_search::{drive::Course, Search, Settings};
use std::time::Instant;
fn main() {
    let track_name = std::env::args().nth(1).unwrap_or("circuit".into());
    let iters: u64 = std::env::args()
        .nth(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(20);
    let track = rig_physics::track::builtin(&track_name).unwrap();
    let car = rig_physics::spec::builtin::car("road").unwrap();
    let t0 = Instant::now();
    let course = Course::new(track, car);
    let mut search = Search::new(course, Settings::default()).unwrap();
    println!(
        "start lap {:.3} s in {:.2} s wall, steps {}",
        search.start_lap_s(),
        t0.elapsed().as_secs_f64(),
        search.simulated_steps()
    );
    for _ in 0..iters {
        let r = search.iterate();
        println!(
            "{:?} wall {:.1} steps {}",
            r,
            t0.elapsed().as_secs_f64(),
            search.simulated_steps()
        );
        if search.converged() {
            break;
        }
    }
}
