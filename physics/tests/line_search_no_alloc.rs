//! The line search's driven inner loop (`Runner::drive_until`: the robot's controls, the
//! world's step, the edge check and the station timing) performs no heap allocation: a
//! counting global allocator sees none across 20 000 steps of the road car on the `corners`
//! track after a full run has set the runner up. Only allocations on the driving thread count.

use rig_physics::line_search::drive::{run_full, Course, Runner};
use rig_physics::spec;
use rig_physics::track::builtin;
mod counting_alloc;
use counting_alloc::{start_counting, stop_counting, Counting};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn driving_a_line_allocates_nothing() {
    let course = Course::new(
        builtin("corners").unwrap(),
        spec::builtin::car("road").unwrap(),
    );
    let mut runner = Runner::new(&course);
    let trace = run_full(&mut runner, course.robot(&course.planned_offsets())).unwrap();
    let m = course.station_count();
    let steps_before = runner.steps;
    let mut crossed = 0usize;
    start_counting();
    let result = runner.drive_until(4 * m, f64::INFINITY, |_, crossing| {
        crossed += 1;
        crossing.time_s > trace.crossings[m].time_s + 20.0
    });
    let allocations = stop_counting();
    assert!(result.is_ok(), "{result:?}");
    assert!(
        runner.steps - steps_before >= 19_000,
        "{} steps",
        runner.steps - steps_before
    );
    assert!(crossed > 50, "{crossed} stations crossed");
    assert_eq!(allocations, 0, "allocations while driving");
}
