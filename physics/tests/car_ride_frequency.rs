//! Heave oscillation of the sprung mass: frequency within 3 % of sqrt(k/m)/(2 pi) with the
//! spring and the tyre in series (reference 2b).
//!
//! Rig: the road car with dampers (and tyre damping) removed and the rear spring chosen so the
//! rear corner has the same series-rate-to-mass ratio as the front; then heave and pitch are
//! uncoupled and a vertical kick excites only heave, at exactly the corner frequency.

mod common;
use common::*;
use rig_physics::track::Track;

#[test]
fn heave_frequency_matches_series_spring_formula() {
    let mut spec = car("road");
    for s in [&mut spec.suspension.front, &mut spec.suspension.rear] {
        s.damper_bump_ns_per_m = 0.0;
        s.damper_rebound_ns_per_m = 0.0;
    }
    spec.tyre.vertical_damping_ns_per_m = 0.0;
    let kt = spec.tyre.vertical_stiffness_n_per_m;
    let series = |ks: f64| 1.0 / (1.0 / ks + 1.0 / kt);
    let [load_front, load_rear] = spec.static_wheel_loads_n();
    let sprung_front = load_front / G - spec.suspension.front.unsprung_mass_kg;
    let sprung_rear = load_rear / G - spec.suspension.rear.unsprung_mass_kg;
    let k_front = series(spec.suspension.front.spring_rate_n_per_m);
    let k_rear = k_front * sprung_rear / sprung_front;
    spec.suspension.rear.spring_rate_n_per_m = 1.0 / (1.0 / k_rear - 1.0 / kt);
    let expected_hz = (k_front / sprung_front).sqrt() / (2.0 * std::f64::consts::PI);

    let (mut world, id) = world_with(&spec, Track::flat());
    let mut state = *world.car(id).state();
    state.velocity.z = 0.05;
    world.car_mut(id).set_state(state);
    world.set_controls(id, idle());
    let mut heights = Vec::new();
    for _ in 0..6000 {
        world.step(DT);
        heights.push(world.telemetry(id).position_m[2]);
    }
    let mean = heights.iter().sum::<f64>() / heights.len() as f64;
    let mut crossings = Vec::new();
    for i in 1..heights.len() {
        let (a, b) = (heights[i - 1] - mean, heights[i] - mean);
        if a < 0.0 && b >= 0.0 {
            // Linear interpolation of the upward crossing of the mean.
            crossings.push((i as f64 - 1.0 + a / (a - b)) * DT);
        }
    }
    assert!(crossings.len() >= 6, "too few oscillations: {crossings:?}");
    let periods = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let hz = 1.0 / periods;
    let err = hz / expected_hz - 1.0;
    assert!(
        err.abs() < 0.03,
        "heave {hz:.4} Hz vs sqrt(k/m)/2pi {expected_hz:.4} Hz ({:+.2} %)",
        err * 100.0
    );
}
