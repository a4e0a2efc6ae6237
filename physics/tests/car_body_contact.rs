//! A car off its wheels: the body rests and slides on the ground (roof, sides), and a tyre
//! pressed past its travel bottoms on its rim instead of sinking through the ground.
//!
//! - Dropped upside down from 0.5 m onto flat ground (1 ms and 2 ms steps, every built-in
//!   car): lands on its roof, sinks at most 10 cm while landing and under 2 cm at rest (the
//!   contact sinks 5 mm under the weight by design), and is still 3 s later (below 10 um/s and 10 urad/s: no
//!   jitter).
//! - Rolled at speed on flat ground: kinetic plus potential energy never grows by more than
//!   the springs' stored static energy (a few hundred joules), so no contact adds energy.
//! - The tyre formula is evaluated at no more than FZMAX = 3 FNOMIN, and the bottomed tyre's
//!   rim contact is stiffer than the tyre and damped only while compressing.

mod common;
use common::*;
use rig_physics::car::CarState;
use rig_physics::math::{Quat, Vec3};
use rig_physics::track::Track;
use rig_physics::tyre::FZ_MAX_NOMINAL_LOADS;
use rig_physics::{CarId, CarSpec, Controls, World};

/// Rotation by `angle_rad` about the world x axis.
fn roll(angle_rad: f64) -> Quat {
    let (s, c) = (0.5 * angle_rad).sin_cos();
    Quat {
        w: c,
        x: s,
        y: 0.0,
        z: 0.0,
    }
}

/// Kinetic (body, wheel spin) plus potential energy (height, body contact springs) of the car,
/// J. The suspension and tyre springs' stored energy is left out (the tolerance allows for it).
fn energy(world: &World, id: CarId, spec: &CarSpec) -> f64 {
    let car = world.car(id);
    let s = car.state();
    let m = spec.chassis.mass_kg;
    let [ixx, iyy, izz] = spec.chassis.inertia_kgm2;
    let w = s.angular_velocity_body;
    let spin: f64 = s
        .wheel_omega
        .iter()
        .map(|o| 0.5 * car.tyre().spin_inertia * o * o)
        .sum();
    0.5 * m * s.velocity.dot(s.velocity)
        + 0.5 * (ixx * w.x * w.x + iyy * w.y * w.y + izz * w.z * w.z)
        + spin
        + m * G * s.position.z
        + car.body_ground_energy_j()
}

fn finite(s: &CarState) -> bool {
    s.position.is_finite() && s.velocity.is_finite() && s.angular_velocity_body.is_finite()
}

#[test]
fn inverted_car_dropped_on_flat_ground_comes_to_rest_on_its_roof() {
    for name in ["road", "race", "rally"] {
        let spec = car(name);
        let roof_above_cog = spec.chassis.body_roof_height_m - spec.chassis.cog_height_m;
        for dt in [0.001, 0.002] {
            let (mut world, id) = world_with(&spec, Track::flat());
            let start = *world.car(id).state();
            world.car_mut(id).set_state(CarState {
                orientation: roll(std::f64::consts::PI),
                position: Vec3::new(0.0, 0.0, 0.5 + roof_above_cog),
                ..start
            });
            world.set_controls(id, Controls::default());
            let mut deepest: f64 = 0.0;
            let mut fastest_after_settling: f64 = 0.0;
            let steps = (6.0 / dt) as usize;
            for k in 0..steps {
                world.step(dt);
                let car = world.car(id);
                assert!(finite(car.state()), "{name} dt {dt}: non-finite state");
                deepest = deepest.max(car.body_ground_depth_m());
                if k as f64 * dt > 3.0 {
                    let s = car.state();
                    fastest_after_settling = fastest_after_settling
                        .max(s.velocity.length())
                        .max(s.angular_velocity_body.length());
                }
            }
            let car = world.car(id);
            let s = car.state();
            let roof_height = s.position.z - roof_above_cog;
            let up = s.orientation.to_mat3().column(2);
            println!(
                "{name} dt {dt}: deepest {deepest:.4} m, at rest {:.4} m, roof at {roof_height:.4} \
                 m, after 3 s at most {fastest_after_settling:.2e} m/s and rad/s",
                car.body_ground_depth_m()
            );
            assert!(
                up.z < -0.99,
                "{name} dt {dt}: not on its roof: up axis {up:?}"
            );
            assert!(
                deepest < 0.10,
                "{name} dt {dt}: the roof sank {deepest} m into the ground while landing"
            );
            assert!(
                (0.0..0.02).contains(&car.body_ground_depth_m()),
                "{name} dt {dt}: resting {} m deep",
                car.body_ground_depth_m()
            );
            assert!(
                (-0.02..0.0).contains(&roof_height),
                "{name} dt {dt}: roof at {roof_height} m"
            );
            assert!(
                fastest_after_settling < 1e-5,
                "{name} dt {dt}: still moving at {fastest_after_settling} m/s or rad/s after 3 s"
            );
        }
    }
}

#[test]
fn a_car_rolled_at_speed_only_loses_energy() {
    for name in ["road", "race", "rally"] {
        let spec = car(name);
        for dt in [0.001, 0.002] {
            let (mut world, id) = world_with(&spec, Track::flat());
            world.car_mut(id).set_speed(25.0);
            let start = *world.car(id).state();
            // Sliding sideways while rolling hard: it goes onto its side (race) or over.
            world.car_mut(id).set_state(CarState {
                velocity: Vec3::new(25.0, -6.0, 0.0),
                angular_velocity_body: Vec3::new(16.0, 0.0, 0.5),
                ..start
            });
            // Brakes on: a car that lands back on its wheels stops too.
            world.set_controls(
                id,
                Controls {
                    brake: 1.0,
                    ..Controls::default()
                },
            );
            let e0 = energy(&world, id, &spec);
            let per_second = (1.0 / dt) as usize;
            let mut window_start = e0;
            let mut lowest = e0;
            let mut highest = e0;
            let mut worst_rise: f64 = 0.0;
            let mut worst_window_rise: f64 = 0.0;
            let mut most_rolled: f64 = 0.0;
            for k in 1..=(12 * per_second) {
                world.step(dt);
                assert!(finite(world.car(id).state()), "{name} dt {dt}: non-finite");
                let e = energy(&world, id, &spec);
                worst_rise = worst_rise.max(e - lowest);
                lowest = lowest.min(e);
                highest = highest.max(e);
                if k % per_second == 0 {
                    worst_window_rise = worst_window_rise.max(e - window_start);
                    window_start = e;
                }
                let up = world.car(id).state().orientation.to_mat3().column(2);
                most_rolled = most_rolled.max(up.z.clamp(-1.0, 1.0).acos());
            }
            let s = world.car(id).state();
            println!(
                "{name} dt {dt}: E0 {e0:.0} J, end {:.0} J, worst rise over the lowest so far \
                 {worst_rise:.0} J, worst 1 s rise {worst_window_rise:.0} J, most rolled {:.0} \
                 deg, end speed {:.3} m/s",
                energy(&world, id, &spec),
                most_rolled.to_degrees(),
                s.velocity.length()
            );
            assert!(
                most_rolled > 80f64.to_radians(),
                "{name} dt {dt}: the car never went onto its side (at most {} deg)",
                most_rolled.to_degrees()
            );
            // Within a landing, energy stored in the contact springs (about 2 kJ: four points
            // 4 cm deep at 640 kN/m) comes back as the body rebounds; over whole seconds, and
            // against the start, at most the springs' static energy (suspension preload and
            // tyres, < 1.5 kJ) may appear.
            assert!(
                worst_rise < 4000.0,
                "{name} dt {dt}: energy rose {worst_rise} J above its lowest"
            );
            assert!(
                worst_window_rise < 1500.0,
                "{name} dt {dt}: energy rose {worst_window_rise} J in one second"
            );
            assert!(
                highest < e0 + 1500.0,
                "{name} dt {dt}: energy reached {highest} J from {e0} J"
            );
            assert!(
                s.velocity.length() < 0.5,
                "{name} dt {dt}: still sliding at {} m/s after 12 s",
                s.velocity.length()
            );
        }
    }
}

#[test]
fn tyre_formula_sees_at_most_fzmax_and_the_rim_stops_the_wheel() {
    let spec = car("road");
    let (world, id) = world_with(&spec, Track::flat());
    let tyre = world.car(id).tyre();
    let fz_max = FZ_MAX_NOMINAL_LOADS * tyre.mf.fnomin;
    assert_eq!(tyre.axles[0].fz_max_n, fz_max);
    // Beyond FZMAX the forces are those at FZMAX; the lateral force keeps its sign (the raw
    // formula's peak mu changes sign near 7.8 FNOMIN).
    let at_max = tyre.forces(0.05, 0.1, fz_max, 1.0);
    let far_beyond = tyre.forces(0.05, 0.1, 10.0 * tyre.mf.fnomin, 1.0);
    let nominal = tyre.forces(0.05, 0.1, tyre.mf.fnomin, 1.0);
    assert_eq!(at_max, far_beyond);
    assert_eq!(far_beyond.fy.signum(), nominal.fy.signum());
    assert!(far_beyond.fy.abs() > nominal.fy.abs());
    // The tyre spring reaches FZMAX where the rim takes over, stiffer; rim damping only acts
    // compressing.
    let d_max = tyre.axles[0].max_deflection_m;
    assert!((tyre.radial_load(0, d_max, 0.0) - fz_max).abs() < 1e-6);
    let bottomed = tyre.radial_load(0, d_max + 0.01, 0.0);
    assert!(bottomed - fz_max >= 0.01 * 4.0 * tyre.vertical_stiffness);
    let extending = tyre.radial_load(0, d_max + 0.01, -1.0);
    assert!((bottomed - extending - tyre.vertical_damping).abs() < 1e-6);
    assert!(tyre.radial_load(0, d_max + 0.01, 1.0) > bottomed + tyre.vertical_damping);
    assert_eq!(tyre.radial_load(0, 0.02, -1e3), 0.0);
}

#[test]
fn a_car_dropped_on_its_wheels_does_not_push_a_tyre_through_to_the_ground() {
    let spec = car("road");
    let (mut world, id) = world_with(&spec, Track::flat());
    let start = *world.car(id).state();
    world.car_mut(id).set_state(CarState {
        position: start.position + Vec3::new(0.0, 0.0, 1.5),
        ..start
    });
    let radius = world.car(id).tyre().radius_m;
    let d_max = world.car(id).tyre().axles[0].max_deflection_m;
    let mut smallest_radius = radius;
    let mut highest_load: f64 = 0.0;
    for _ in 0..3000 {
        world.step(DT);
        let t = world.telemetry(id);
        for w in &t.wheels {
            smallest_radius = smallest_radius.min(w.radius_m);
            highest_load = highest_load.max(w.load_n);
        }
    }
    let deflection = radius - smallest_radius;
    println!(
        "1.5 m drop: deepest tyre deflection {deflection:.4} m (bottoms at {d_max:.4} m), \
         highest load {highest_load:.0} N"
    );
    // Landing at 5.4 m/s on the rims: the wheel centre stays above the 15-inch rim's radius
    // (0.19 m; the tyre's sidewall is 0.12 m), and the body never reaches the ground.
    assert!(
        smallest_radius > 0.19,
        "wheel centre {smallest_radius} m above the ground (tyre bottoms at {d_max} m)"
    );
    assert!(deflection > d_max, "the landing never bottomed a tyre");
    assert_eq!(world.car(id).body_ground_depth_m(), 0.0);
}
