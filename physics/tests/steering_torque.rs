//! The steering torque at the rim (the force-feedback source) self-centres, grows with the
//! front slip angle and then "goes light" past the aligning-moment peak while the front
//! lateral force is still rising.

mod common;
use common::*;
use rig_physics::track::Track;

#[test]
fn rim_torque_goes_light_past_the_aligning_moment_peak() {
    let spec = car("road");
    let (mut world, id) = world_with(&spec, Track::flat());
    world.car_mut(id).set_speed(25.0);
    // Slow steering ramp to 40 % of lock (about 12 degrees at the road wheels) over 8 s.
    let mut samples = Vec::new();
    for i in 0..8000 {
        let steer = 0.4 * i as f64 / 8000.0;
        world.set_controls(
            id,
            rig_physics::Controls {
                steering: steer,
                ..idle()
            },
        );
        world.step(DT);
        let t = world.telemetry(id);
        let front_fy = t.wheels[0].force_lat_n + t.wheels[1].force_lat_n;
        let front_alpha = 0.5 * (t.wheels[0].slip_angle_rad + t.wheels[1].slip_angle_rad);
        samples.push((t.steering_torque_nm, front_fy, front_alpha));
    }
    // Self-centring: steering left pulls the rim right (negative torque).
    assert!(samples[2000].0 < 0.0);
    let (peak_index, peak) = samples
        .iter()
        .enumerate()
        .map(|(i, s)| (i, -s.0))
        .fold((0, f64::MIN), |acc, x| if x.1 > acc.1 { x } else { acc });
    let last = samples.last().unwrap();
    let peak_fy = samples[peak_index].1;
    assert!(
        peak_index < samples.len() - 500,
        "no peak before the end of the ramp"
    );
    assert!(
        -last.0 < 0.8 * peak,
        "rim torque {:.2} N m at the end did not fall below 80 % of its peak {peak:.2} N m",
        -last.0
    );
    assert!(
        last.1 >= peak_fy,
        "front lateral force fell ({:.0} N -> {:.0} N): the lightening must come from Mz",
        peak_fy,
        last.1
    );
    // The peak is where the tyres' aligning moment peaks (reference: near 0.07 rad).
    let alpha_at_peak = samples[peak_index].2.abs();
    assert!(
        (0.03..0.12).contains(&alpha_at_peak),
        "rim torque peaked at front slip angle {alpha_at_peak:.3} rad"
    );
}
