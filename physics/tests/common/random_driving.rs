//! Seeded random driving, the one copy shared by the physics tests and the state-hash example:
//! random controls held for a while ([`RandomControls`], in `world_determinism.rs` and
//! `examples/state_hash.rs`) and the random driver that mixes random controls with the built-in
//! robot to get a car up to speed and into the barriers ([`RandomDriver`], in
//! `track_random_controls.rs`), included by each with `#[path]` (as `inline_rear.rs` is).
//!
//! Everything here is a fixed function of its seed, and the runs' results depend on every
//! number drawn: a change to a generator or to the order of draws changes the state hash
//! (`cargo run --profile test -p rig-physics --example state_hash` prints the same TOTAL
//! before and after a change that keeps the results) and the random tests' trajectories.

#![allow(dead_code)] // each user uses its own subset

use rig_physics::robot::Robot;
use rig_physics::track::Track;
use rig_physics::{CarSpec, CarTelemetry, Controls, GearRequest};

/// xorshift64 (Marsaglia's 13, 7, 17 triple): reproducible uniform numbers without a
/// dependency. The seed must not be 0.
pub struct Xorshift(pub u64);

impl Xorshift {
    /// Uniform in `0..1`.
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// xorshift64* (Vigna): the random driver's generator. The seed must not be 0.
pub struct XorshiftStar(pub u64);

impl XorshiftStar {
    /// Uniform in `0..1`.
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// How long [`RandomControls`] holds each set of controls, steps.
pub const HOLD_STEPS: usize = 100;

/// Random steering, throttle, brake and handbrake with the ignition on, new every
/// [`HOLD_STEPS`] steps: a driver that never learns, for runs compared bit for bit.
pub struct RandomControls {
    noise: Xorshift,
    controls: Controls,
}

impl RandomControls {
    pub fn new(seed: u64) -> RandomControls {
        RandomControls {
            noise: Xorshift(seed),
            controls: Controls {
                ignition: true,
                ..Controls::default()
            },
        }
    }

    /// The controls for step `step` (called for every step, counting from 0): steering
    /// anywhere, any throttle, the brake 30 % of the time, the handbrake 10 %.
    pub fn at(&mut self, step: usize) -> Controls {
        if step % HOLD_STEPS == 0 {
            let (noise, c) = (&mut self.noise, &mut self.controls);
            c.steering = noise.next() * 2.0 - 1.0;
            c.throttle = noise.next();
            c.brake = if noise.next() > 0.7 {
                noise.next()
            } else {
                0.0
            };
            c.handbrake = if noise.next() > 0.9 { 1.0 } else { 0.0 };
        }
        self.controls
    }
}

/// The kind of a [`RandomDriver`] segment.
#[derive(Clone, Copy, PartialEq)]
enum Segment {
    /// The robot drives, with a held steering offset and random stabs on top.
    Cruise,
    /// The robot's steering and gear work, but the throttle flat and no brake.
    Push,
    /// Independent random controls.
    Chaos,
}

/// A short random input on top of the robot's.
#[derive(Clone, Copy, PartialEq)]
enum Stab {
    None,
    Brake(f64),
    Handbrake,
    Steer(f64),
    Lift,
}

/// A seeded driver that reaches real speeds and hits the barriers hard, where purely random
/// pedals and steering rarely get a car past 13 m/s. It switches between random segments of
/// three kinds:
/// - *cruise* (5-30 s): the built-in robot drives (steering on its line, throttle and brake to
///   its speed profile, gear shifts with the clutch work), with a held random steering offset
///   and random stabs on top, on average one every 4 s: brake, handbrake, a steering jerk, a
///   lifted throttle;
/// - *push* (2-15 s): the robot's steering and gear work but the throttle flat and no brake,
///   so the car arrives at corners far too fast and meets the barriers at speed;
/// - *chaos* (1-8 s): independent random controls held 0.05 to 1 s (steering random walk,
///   pedals, clutch, handbrake, any gear request including reverse, ignition off, starter).
pub struct RandomDriver {
    robot: Robot,
    rng: XorshiftStar,
    /// The step of the world it drives, s.
    dt_s: f64,
    segment: Segment,
    segment_steps: u32,
    steer_offset: f64,
    stab: Stab,
    stab_steps: u32,
    chaos: Controls,
    chaos_steps: u32,
}

impl RandomDriver {
    /// A driver for `car` on `track` in a world stepped by `dt_s`.
    pub fn new(track: &Track, car: &CarSpec, seed: u64, dt_s: f64) -> RandomDriver {
        RandomDriver {
            robot: Robot::for_car(track, car),
            rng: XorshiftStar(seed),
            dt_s,
            segment: Segment::Chaos,
            segment_steps: 0,
            steer_offset: 0.0,
            stab: Stab::None,
            stab_steps: 0,
            chaos: Controls::default(),
            chaos_steps: 0,
        }
    }

    /// The controls for the next step of the car whose telemetry is `t`.
    pub fn controls(&mut self, t: &CarTelemetry, track: &Track) -> Controls {
        // The robot sees every step (its gear work and timing stay current) even when ignored.
        let robot = self.robot.drive(t, track);
        if self.segment_steps == 0 {
            self.new_segment();
        }
        self.segment_steps -= 1;
        match self.segment {
            Segment::Chaos => self.chaos_controls(),
            Segment::Cruise | Segment::Push => {
                let mut c = robot;
                c.steering = (c.steering + self.steer_offset).clamp(-1.0, 1.0);
                let shifting = c.clutch > 0.5 || c.gear_request != GearRequest::None;
                if self.segment == Segment::Push && !shifting {
                    c.throttle = 1.0;
                    c.brake = 0.0;
                }
                self.apply_stab(&mut c);
                c
            }
        }
    }

    /// A number of steps lasting `lo_s..hi_s` seconds.
    fn steps(&mut self, lo_s: f64, hi_s: f64) -> u32 {
        (self.rng.range(lo_s, hi_s) / self.dt_s) as u32
    }

    fn new_segment(&mut self) {
        let r = self.rng.next();
        let (segment, lo_s, hi_s) = if r < 0.45 {
            (Segment::Cruise, 5.0, 30.0)
        } else if r < 0.75 {
            (Segment::Push, 2.0, 15.0)
        } else {
            (Segment::Chaos, 1.0, 8.0)
        };
        self.segment = segment;
        self.segment_steps = self.steps(lo_s, hi_s).max(1);
        self.steer_offset = self.rng.range(-0.08, 0.08);
        self.chaos_steps = 0;
    }

    /// Random stabs, on average one every 4 s.
    fn apply_stab(&mut self, c: &mut Controls) {
        if self.stab_steps == 0 {
            self.stab = Stab::None;
            if self.rng.next() < self.dt_s / 4.0 {
                let r = self.rng.next();
                self.stab = if r < 0.35 {
                    self.stab_steps = self.steps(0.1, 0.8);
                    Stab::Brake(self.rng.range(0.4, 1.0))
                } else if r < 0.55 {
                    self.stab_steps = self.steps(0.2, 1.0);
                    Stab::Handbrake
                } else if r < 0.8 {
                    self.stab_steps = self.steps(0.05, 0.4);
                    Stab::Steer(self.rng.range(-1.0, 1.0))
                } else {
                    self.stab_steps = self.steps(0.2, 1.5);
                    Stab::Lift
                };
            }
        } else {
            self.stab_steps -= 1;
        }
        match self.stab {
            Stab::None => {}
            Stab::Brake(pedal) => {
                c.brake = pedal;
                c.throttle = 0.0;
            }
            Stab::Handbrake => c.handbrake = 1.0,
            Stab::Steer(jerk) => c.steering = (c.steering + jerk).clamp(-1.0, 1.0),
            Stab::Lift => c.throttle = 0.0,
        }
    }

    fn chaos_controls(&mut self) -> Controls {
        if self.chaos_steps == 0 {
            let rng = &mut self.rng;
            let gear_request = match (rng.next() * 12.0) as u32 {
                0 => GearRequest::Up,
                1 => GearRequest::Down,
                2 => GearRequest::Select((rng.next() * 7.0) as i8 - 1),
                _ => GearRequest::None,
            };
            let previous = self.chaos.steering;
            self.chaos = Controls {
                steering: (previous + (rng.next() - 0.5) * 0.8).clamp(-1.0, 1.0),
                throttle: if rng.next() < 0.6 { rng.next() } else { 0.0 },
                brake: if rng.next() < 0.25 { rng.next() } else { 0.0 },
                clutch: if rng.next() < 0.2 { rng.next() } else { 0.0 },
                handbrake: if rng.next() < 0.05 { 1.0 } else { 0.0 },
                gear_request,
                ignition: rng.next() < 0.98,
                starter: rng.next() < 0.3,
            };
            self.chaos_steps = self.steps(0.05, 1.0).max(1);
            return self.chaos;
        }
        self.chaos_steps -= 1;
        // Gear requests are edges: send each once.
        self.chaos.gear_request = GearRequest::None;
        self.chaos
    }
}
