//! The fake game's car and clock: a kinematic car the test steers ([`Scenario`]: brake, turn,
//! bump, pause, teleport) integrated once per game frame, so every channel a game sends
//! (position, velocities, body acceleration, yaw rate, heading) agrees with the others the way
//! a real game's do; and the recorded send timing of a 60 Hz game ([`SendTiming`]).
//!
//! Everything here is in rigd's conventions (world z up, body x forward, y left, z up, yaw
//! positive turning left); each game's packet module converts to that game's axes.

/// Frames per second of every fake game.
pub const FRAME_HZ: f64 = 60.0;
/// Cruising speed, m/s (108 km/h: an exact F1 `m_speed`).
pub const CRUISE_MPS: f64 = 30.0;
/// The engine's speed, limiter and idle, rpm, and the gear every game reports.
pub const RPM: f64 = 5500.0;
pub const MAX_RPM: f64 = 8000.0;
pub const IDLE_RPM: f64 = 900.0;
pub const GEAR: i8 = 4;
/// Heading at the start, rad (not 0, so a swapped or mirrored axis shows).
pub const START_YAW_RAD: f64 = 0.5;
/// Where the car starts, m.
pub const START_POSITION_M: [f64; 3] = [100.0, -200.0, 10.0];
/// Suspension compression every wheel reports, m.
pub const SUSPENSION_M: f64 = 0.05;
/// Tyre pressure (gauge) of each wheel, FL, FR, RL, RR, psi, for the games that send it:
/// a different value per wheel, so a swapped wheel or a missed unit conversion shows.
pub const TYRE_PSI: [f64; 4] = [21.5, 22.5, 24.0, 25.5];
/// kPa in a psi.
pub const KPA_PER_PSI: f64 = 6.894_757;

/// What the fake game does now (the test changes it while the sender runs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scenario {
    /// Packets go out (false: the stream is lost).
    pub sending: bool,
    /// The player drives (false: the game says it is paused, where it can say so).
    pub driving: bool,
    /// Forward acceleration, m/s^2 (negative: braking).
    pub accel_forward_mps2: f64,
    /// Yaw rate, rad/s (positive: turning left).
    pub yaw_rate_radps: f64,
    /// Vertical acceleration, m/s^2 (a bump).
    pub accel_up_mps2: f64,
    /// Added to the car's x position (a teleport when changed), m.
    pub jump_m: f64,
    /// Datagrams no decoder reads go out with every frame.
    pub garbage: bool,
    /// Valid packets of another game go out with every frame.
    pub foreign: bool,
}

impl Scenario {
    /// Driving straight on at a constant speed.
    pub const CRUISE: Scenario = Scenario {
        sending: true,
        driving: true,
        accel_forward_mps2: 0.0,
        yaw_rate_radps: 0.0,
        accel_up_mps2: 0.0,
        jump_m: 0.0,
        garbage: false,
        foreign: false,
    };
}

/// The car at one game frame, as every packet module reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CarFrame {
    /// Frame number since the game started.
    pub frame: u64,
    /// The game's clock, s.
    pub game_time_s: f64,
    /// World position (teleports included), m.
    pub position_m: [f64; 3],
    /// World velocity, m/s.
    pub velocity_world_mps: [f64; 3],
    /// Heading, rad (the car stays level: no roll, no pitch).
    pub yaw_rad: f64,
    /// Kinematic acceleration in the body frame (gravity not included), m/s^2.
    pub accel_body_mps2: [f64; 3],
    /// Yaw rate, rad/s.
    pub yaw_rate_radps: f64,
    /// Speed over ground, m/s.
    pub speed_mps: f64,
    /// The player drives.
    pub driving: bool,
}

impl CarFrame {
    /// The body x axis in the world.
    pub fn forward(&self) -> [f64; 3] {
        [self.yaw_rad.cos(), self.yaw_rad.sin(), 0.0]
    }

    /// The body y axis in the world.
    pub fn left(&self) -> [f64; 3] {
        [-self.yaw_rad.sin(), self.yaw_rad.cos(), 0.0]
    }

    /// The body z axis in the world.
    pub fn up(&self) -> [f64; 3] {
        [0.0, 0.0, 1.0]
    }

    /// A body vector in the world frame.
    pub fn body_to_world(&self, v: [f64; 3]) -> [f64; 3] {
        let (f, l, u) = (self.forward(), self.left(), self.up());
        std::array::from_fn(|i| f[i] * v[0] + l[i] * v[1] + u[i] * v[2])
    }

    /// The velocity in the body frame.
    pub fn velocity_body_mps(&self) -> [f64; 3] {
        let v = self.velocity_world_mps;
        let dot = |a: [f64; 3]| a[0] * v[0] + a[1] * v[1] + a[2] * v[2];
        [dot(self.forward()), dot(self.left()), dot(self.up())]
    }

    /// The acceleration in the world frame.
    pub fn accel_world_mps2(&self) -> [f64; 3] {
        self.body_to_world(self.accel_body_mps2)
    }
}

/// The kinematic car: integrates the scenario once per frame.
#[derive(Debug, Clone)]
pub struct Car {
    frame: u64,
    position_m: [f64; 3],
    yaw_rad: f64,
    speed_mps: f64,
    vertical_mps: f64,
}

impl Car {
    pub fn new() -> Car {
        Car {
            frame: 0,
            position_m: START_POSITION_M,
            yaw_rad: START_YAW_RAD,
            speed_mps: CRUISE_MPS,
            vertical_mps: 0.0,
        }
    }

    /// One frame of `s`: the car after it.
    pub fn step(&mut self, s: &Scenario) -> CarFrame {
        let dt = 1.0 / FRAME_HZ;
        self.frame += 1;
        self.speed_mps = (self.speed_mps + s.accel_forward_mps2 * dt).max(0.0);
        self.yaw_rad += s.yaw_rate_radps * dt;
        self.vertical_mps += s.accel_up_mps2 * dt;
        let velocity = [
            self.speed_mps * self.yaw_rad.cos(),
            self.speed_mps * self.yaw_rad.sin(),
            self.vertical_mps,
        ];
        for (p, v) in self.position_m.iter_mut().zip(velocity) {
            *p += v * dt;
        }
        CarFrame {
            frame: self.frame,
            game_time_s: self.frame as f64 * dt,
            position_m: [
                self.position_m[0] + s.jump_m,
                self.position_m[1],
                self.position_m[2],
            ],
            velocity_world_mps: velocity,
            yaw_rad: self.yaw_rad,
            accel_body_mps2: [
                s.accel_forward_mps2,
                self.speed_mps * s.yaw_rate_radps,
                s.accel_up_mps2,
            ],
            yaw_rate_radps: s.yaw_rate_radps,
            speed_mps: self.speed_mps,
            driving: s.driving,
        }
    }
}

/// When each frame's datagrams leave, as a 60 Hz game's capture shows them: the game's frames
/// are evenly spaced on its own clock (the packets' time stamps), but each is sent late by
/// scheduling jitter (usually under 3 ms, one in twenty up to 9 ms), and about every 1.6 s the
/// game hitches for 35-65 ms, after which the frames it owes go out back to back. Deterministic
/// (a fixed seed). Over a minute (3600 intervals): mean 16.67 ms, standard deviation 5.9 ms,
/// from 0.1 to 80 ms, 2.5 % back to back (under 2 ms), 1.1 % gaps over 25 ms (checked by
/// a test through [`SendTiming::statistics`]).
#[derive(Debug, Clone)]
pub struct SendTiming {
    hitches: bool,
    last_us: u64,
}

/// Summary of the intervals between consecutive sends.
#[derive(Debug, Clone, Copy)]
pub struct TimingStatistics {
    pub mean_ms: f64,
    pub std_dev_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Share of intervals under 2 ms (frames sent back to back after a hitch).
    pub back_to_back: f64,
    /// Share of intervals over 25 ms (the hitches).
    pub gaps: f64,
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl SendTiming {
    /// The recorded 60 Hz timing, jitter and hitches.
    pub fn recorded() -> SendTiming {
        SendTiming {
            hitches: true,
            last_us: 0,
        }
    }

    /// The same jitter without the hitches (a console streaming over a quiet LAN).
    pub fn steady() -> SendTiming {
        SendTiming {
            hitches: false,
            last_us: 0,
        }
    }

    /// When frame `k` (from 1, in order) leaves, µs after the game started.
    pub fn send_at_us(&mut self, k: u64) -> u64 {
        let nominal = k * 1_000_000 / FRAME_HZ as u64;
        let r = splitmix(k ^ 0x60_4a);
        let jitter = if r % 20 == 0 {
            3_000 + (r >> 8) % 6_000
        } else {
            (r >> 8) % 3_000
        };
        let hitch = if self.hitches && k % 97 == 50 {
            35_000 + (r >> 20) % 30_000
        } else {
            0
        };
        self.last_us = (nominal + jitter + hitch).max(self.last_us + 100);
        self.last_us
    }

    /// Statistics of the first `frames` intervals.
    pub fn statistics(mut self, frames: u64) -> TimingStatistics {
        let times: Vec<f64> = (1..=frames + 1)
            .map(|k| self.send_at_us(k) as f64 / 1000.0)
            .collect();
        let intervals: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
        let n = intervals.len() as f64;
        let mean = intervals.iter().sum::<f64>() / n;
        let var = intervals.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        TimingStatistics {
            mean_ms: mean,
            std_dev_ms: var.sqrt(),
            min_ms: intervals.iter().copied().fold(f64::MAX, f64::min),
            max_ms: intervals.iter().copied().fold(f64::MIN, f64::max),
            back_to_back: intervals.iter().filter(|x| **x < 2.0).count() as f64 / n,
            gaps: intervals.iter().filter(|x| **x > 25.0).count() as f64 / n,
        }
    }
}
