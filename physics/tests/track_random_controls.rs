//! Ten simulated minutes of seeded random controls on every built-in car and track: no NaN,
//! no explosion (bounded speed, spin and height above the ground), and the car's centre of
//! gravity always inside the barriers however hard it hits them.
//!
//! 2 ms steps (a supported dt) and one test per track (the harness runs them in parallel)
//! keep the nine combinations to tens of seconds of CPU.

use rig_physics::track::{builtin, TrackHint};
use rig_physics::{spec, Controls, GearRequest, World};

const DT_S: f64 = 0.002;
const MINUTES: f64 = 10.0;

/// xorshift64*: reproducible randomness without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn random_controls(rng: &mut Rng, previous: &Controls) -> Controls {
    let gear_request = match (rng.next() * 12.0) as u32 {
        0 => GearRequest::Up,
        1 => GearRequest::Down,
        2 => GearRequest::Select((rng.next() * 7.0) as i8 - 1),
        _ => GearRequest::None,
    };
    Controls {
        steering: (previous.steering + (rng.next() - 0.5) * 0.8).clamp(-1.0, 1.0),
        throttle: if rng.next() < 0.6 { rng.next() } else { 0.0 },
        brake: if rng.next() < 0.25 { rng.next() } else { 0.0 },
        clutch: if rng.next() < 0.2 { rng.next() } else { 0.0 },
        handbrake: if rng.next() < 0.05 { 1.0 } else { 0.0 },
        gear_request,
        ignition: rng.next() < 0.98,
        starter: rng.next() < 0.3,
    }
}

fn ten_minutes(car_name: &str, track_name: &str, seed: u64) {
    let track = builtin(track_name).unwrap();
    let car = spec::builtin::car(car_name).unwrap();
    let mut world = World::new(track.clone());
    let id = world.add_car(&car);
    let mut rng = Rng(seed);
    let mut hint = TrackHint::default();
    let mut ground_hint = TrackHint::default();
    let mut controls = Controls::default();
    let mut hold_steps = 0;
    let mut max_speed: f64 = 0.0;
    let mut barrier_steps = 0u64;
    let steps = (MINUTES * 60.0 / DT_S) as u64;
    let tag = format!("{car_name} on {track_name}");
    for step in 0..steps {
        if hold_steps == 0 {
            controls = random_controls(&mut rng, &controls);
            hold_steps = 25 + (rng.next() * 500.0) as u32; // 0.05 .. 1 s
        } else if controls.gear_request != GearRequest::None {
            controls.gear_request = GearRequest::None;
        }
        hold_steps -= 1;
        world.set_controls(id, controls);
        world.step(DT_S);
        let t = world.telemetry(id);
        let finite = t.position_m.iter().all(|v| v.is_finite())
            && t.velocity_world_mps.iter().all(|v| v.is_finite())
            && t.angular_velocity_body_radps.iter().all(|v| v.is_finite())
            && t.wheels
                .iter()
                .all(|w| w.load_n.is_finite() && w.angular_velocity_radps.is_finite());
        assert!(finite, "{tag}: non-finite state at step {step}: {t:?}");
        assert!(
            t.speed_mps < 120.0,
            "{tag}: {} m/s at step {step}",
            t.speed_mps
        );
        let spin = t
            .angular_velocity_body_radps
            .iter()
            .map(|w| w * w)
            .sum::<f64>()
            .sqrt();
        assert!(
            spin < 30.0,
            "{tag}: spinning at {spin} rad/s at step {step}"
        );
        let coord = track.project(t.position_m, &mut hint);
        let section = track.section(coord.distance_m);
        assert!(
            coord.lateral_m < section.barrier_left_m && -coord.lateral_m < section.barrier_right_m,
            "{tag}: beyond a barrier at step {step}: {coord:?}"
        );
        let ground = track.ground(t.position_m[0], t.position_m[1], &mut ground_hint);
        let height = t.position_m[2] - ground.height_m;
        assert!(
            (-0.5..5.0).contains(&height),
            "{tag}: {height} m above ground at step {step}"
        );
        max_speed = max_speed.max(t.speed_mps);
        barrier_steps += u64::from(t.barrier_contact);
    }
    println!(
        "{tag}: top speed {max_speed:.1} m/s, {:.1} s against barriers",
        barrier_steps as f64 * DT_S
    );
    assert!(max_speed > 3.0, "{tag}: the random driver never got going");
}

fn every_car_on(track: &str, seed: u64) {
    for (i, car) in spec::builtin::car_names().into_iter().enumerate() {
        ten_minutes(car, track, seed + i as u64);
    }
}

#[test]
fn random_controls_on_the_circuit() {
    every_car_on("circuit", 0x00C1_2C01);
}

#[test]
fn random_controls_on_the_oval() {
    every_car_on("oval", 0x0000_0A1A);
}

#[test]
fn random_controls_on_the_skidpad() {
    every_car_on("skidpad", 0x005C_1D9A);
}
