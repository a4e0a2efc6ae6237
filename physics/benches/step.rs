//! ns per `World::step` (1 ms) for 1, 10 and 100 road cars driving in 3rd gear: on the flat
//! plane with changing steering, on the built-in circuit kept on the track by a simple
//! scripted driver (see [`Driver`]), and the runtime's worst case: 100 road cars driven by
//! robots on the circuit (robot `drive` plus `World::step`, per tick, with the tick work's
//! p50/p99). A plain bench binary (`harness = false`): each case runs several rounds and
//! prints the median per step and per car-step.
//!
//! Run: `cargo bench -p rig-physics --bench step` (all cases), or name cases by substring:
//! `cargo bench -p rig-physics --bench step -- "flat cars=1:" robots`.
//! For instruction counts (`perf stat -e instructions:u`, callgrind) fix the work with the
//! environment: `RIG_BENCH_ROUNDS` (default 7) and `RIG_BENCH_STEPS` (steps per round,
//! default 200 000 / cars, at least 2 000; 0 measures the set-up alone).

use rig_physics::robot::Robot;
use rig_physics::track::Track;
use rig_physics::{builtin, CarId, Controls, GearRequest, World};
use std::f64::consts::{PI, TAU};
use std::hint::black_box;
use std::time::Instant;

fn env_usize(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

struct Settings {
    rounds: usize,
    steps: Option<usize>,
}

impl Settings {
    fn steps(&self, cars: usize) -> usize {
        self.steps.unwrap_or((200_000 / cars).max(2_000))
    }
}

/// `cars` road cars at 20 m/s in 3rd gear with the clutch out, as a driven car is: the
/// engine and the driven wheels are coupled through the driveline (a car coasting in neutral,
/// what this bench measured before session 3, skips that coupling).
fn world(track: Track, cars: usize) -> World {
    let spec = builtin::car("road").expect("road car");
    let mut world = World::new(track);
    for _ in 0..cars {
        let id = world.add_car(&spec);
        world.car_mut(id).set_speed(20.0);
    }
    // Clutch in, select 3rd, clutch out: 0.3 s before the timing starts.
    for step in 0..300 {
        let controls = Controls {
            ignition: true,
            throttle: 0.3,
            clutch: if step < 200 { 1.0 } else { 0.0 },
            gear_request: if step == 0 {
                GearRequest::Select(3)
            } else {
                GearRequest::None
            },
            ..Controls::default()
        };
        for i in 0..cars {
            world.set_controls(CarId(i), controls);
        }
        world.step(0.001);
    }
    world
}

/// The scripted driver of the circuit cases: every [`Driver::PERIOD`] steps it steers each
/// car towards the centreline (offset, heading error and the centreline's curvature) and holds
/// a target speed of at most 20 m/s that the curvature of the next 40 m allows at 6 m/s^2
/// (a table per metre of the lap, built before the timing). It keeps the cars on the asphalt
/// (within 2 m of the centreline all lap): the sinusoidal steering of the flat case, used here
/// until session 13, drove the single car into a gravel trap after 12 s, where it stalled and
/// stood for the remaining 188 s of the round, so the case timed a parked car.
struct Driver {
    /// Target speed per metre of the lap, m/s.
    target_mps: Vec<f64>,
}

impl Driver {
    const PERIOD: usize = 10;

    fn new(track: &Track) -> Driver {
        let n = track.length_m().ceil() as usize;
        let limit: Vec<f64> = (0..n)
            .map(|i| {
                let curvature = track.section(i as f64).curvature_per_m.abs();
                (6.0 / curvature.max(1e-6)).sqrt().min(20.0)
            })
            .collect();
        let target_mps = (0..n)
            .map(|i| {
                (0..40)
                    .map(|k| limit[(i + k) % n])
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        Driver { target_mps }
    }

    fn controls(&self, w: &World, car: CarId) -> Controls {
        let coord = *w.car(car).track_coord();
        let telemetry = w.car(car).telemetry();
        let heading_error =
            (telemetry.roll_pitch_yaw_rad[2] - coord.heading_rad + PI).rem_euclid(TAU) - PI;
        let metre = (coord.distance_m as usize).min(self.target_mps.len() - 1);
        let (target, speed) = (self.target_mps[metre], telemetry.speed_mps);
        Controls {
            ignition: true,
            steering: (-0.1 * coord.lateral_m - heading_error + 5.0 * coord.curvature_per_m)
                .clamp(-0.5, 0.5),
            throttle: (0.3 + 0.2 * (target - speed)).clamp(0.0, 1.0),
            brake: (0.1 * (speed - target - 1.0)).clamp(0.0, 1.0),
            ..Controls::default()
        }
    }
}

/// Median ns per `World::step` with scripted controls: on a closed track the [`Driver`], on
/// the plane a slowly changing steer at 0.3 throttle.
fn scripted(settings: &Settings, track: &Track, cars: usize) -> f64 {
    let steps = settings.steps(cars);
    let driver = track.is_closed().then(|| Driver::new(track));
    let mut results = Vec::with_capacity(settings.rounds);
    for _ in 0..settings.rounds {
        let mut w = world(track.clone(), cars);
        let mut controls = Controls {
            ignition: true,
            throttle: 0.3,
            ..Controls::default()
        };
        let start = Instant::now();
        for step in 0..steps {
            match &driver {
                Some(driver) if step % Driver::PERIOD == 0 => {
                    for i in 0..cars {
                        let controls = driver.controls(&w, CarId(i));
                        w.set_controls(CarId(i), controls);
                    }
                }
                None if step % 100 == 0 => {
                    controls.steering = ((step / 100) as f64 * 0.37).sin() * 0.1;
                    for i in 0..cars {
                        w.set_controls(CarId(i), controls);
                    }
                }
                _ => {}
            }
            w.step(0.001);
        }
        let car = w.telemetry(CarId(0));
        assert_eq!(car.drivetrain.gear, 3, "the bench car must drive in gear");
        black_box(car);
        results.push(start.elapsed().as_nanos() as f64 / steps.max(1) as f64);
    }
    median(&mut results)
}

/// Tick work (every robot's `drive`, then `World::step`) of `cars` robot cars on `track`:
/// (median of the rounds' mean ns per tick, p50 and p99 ns per tick over every round).
fn robots(settings: &Settings, track: &Track, cars: usize) -> (f64, f64, f64) {
    let spec = builtin::car("road").expect("road car");
    let planned = Robot::for_car(track, &spec);
    let steps = settings.steps(cars);
    let mut means = Vec::with_capacity(settings.rounds);
    let mut ticks = Vec::with_capacity(steps * settings.rounds);
    for _ in 0..settings.rounds {
        let mut w = World::new(track.clone());
        let mut drivers = Vec::with_capacity(cars);
        for _ in 0..cars {
            drivers.push((w.add_car(&spec), planned.clone()));
        }
        let round = Instant::now();
        for _ in 0..steps {
            let tick = Instant::now();
            for (car, robot) in &mut drivers {
                let controls = robot.drive_car(&w, *car);
                w.set_controls(*car, controls);
            }
            w.step(0.001);
            ticks.push(tick.elapsed().as_nanos() as f64);
        }
        black_box(w.telemetry(CarId(0)));
        means.push(round.elapsed().as_nanos() as f64 / steps.max(1) as f64);
    }
    ticks.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        if ticks.is_empty() {
            0.0
        } else {
            ticks[((ticks.len() - 1) as f64 * p).round() as usize]
        }
    };
    (median(&mut means), pct(0.5), pct(0.99))
}

fn median(results: &mut [f64]) -> f64 {
    results.sort_by(f64::total_cmp);
    results.get(results.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f));
    let settings = Settings {
        rounds: env_usize("RIG_BENCH_ROUNDS").unwrap_or(7).max(1),
        steps: env_usize("RIG_BENCH_STEPS"),
    };
    let circuit = rig_physics::track::builtin("circuit").expect("built-in circuit");
    for (name, track) in [("flat", Track::flat()), ("circuit", circuit.clone())] {
        for cars in [1, 10, 100] {
            let case = format!("track={name} cars={cars}:");
            if !wanted(&case) {
                continue;
            }
            let ns = scripted(&settings, &track, cars);
            println!(
                "rig-physics step {case} {ns:.0} ns/step, {:.0} ns/car-step",
                ns / cars as f64
            );
        }
    }
    let cars = 100;
    let case = format!("track=circuit robots={cars}:");
    if wanted(&case) {
        let (mean, p50, p99) = robots(&settings, &circuit, cars);
        println!(
            "rig-physics robots+step {case} {mean:.0} ns/tick, {:.0} ns/car-step, \
             tick p50 {p50:.0} ns, p99 {p99:.0} ns",
            mean / cars as f64
        );
    }
}
