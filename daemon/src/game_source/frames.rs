//! Motion from game data: turns the samples a game sends (20-360 Hz, with jitter, gaps, and
//! often one packet type per part of the car) into one [`CarTelemetry`] per RT tick, and says
//! whether the stream is fit to move a platform ([`SourceCondition`]).
//!
//! - **Merging**: a channel a sample does not carry (`None`) keeps its latest value (F1 sends
//!   motion and telemetry as separate packets). Non-finite values count as not sent; motion
//!   channels are clamped to +-1e6 so nothing downstream can overflow.
//! - **Ordering**: samples that carry motion are placed on rigd's monotonic clock by the
//!   game's own clock when the packet has one (see [`timeline`]: jitter-free spacing), else
//!   by arrival. A motion sample older than the newest (UDP reordering) is dropped and
//!   counted; two with the same game time (F1 Motion and Motion Ex of one frame) merge into
//!   one point.
//! - **Resampling**: each tick renders the state at `now - D` by interpolating between the two
//!   samples around that time, with **D = one measured packet period** (the average interval
//!   between motion samples: 16.7 ms at 60 Hz, 2.8 ms at 360 Hz). A sample therefore starts to
//!   show on the first tick after it arrives and is reached fully one period later. Past the
//!   newest sample (a late packet) the newest is held, never extrapolated: while a packet is
//!   `j` late the output is off by `j` times the channel's rate of change (measured: 3 ms of
//!   jitter on a 15 m/s^3 jerk, 0.04 m/s^2), and catches up when it comes. Orientation is
//!   interpolated as a quaternion along the shorter arc, so angles crossing +-pi never swing.
//! - **Derived channels**: a game that sends no acceleration gets the backward difference of
//!   its world velocity between consecutive samples, rotated into the body frame at the
//!   interval's mid orientation (or `dv_body/dt + w x v` without orientation): exact for
//!   constant acceleration (the spacing is the game clock's when both samples have one), and
//!   it lags the other channels by **half a packet period**
//!   (the difference's midpoint). A game that sends no angular velocity gets the body rate
//!   between consecutive orientations, with the same half-period lag. A missing world (or
//!   body) velocity is the other one rotated by the orientation.
//! - **Output**: orientation (quaternion and roll/pitch/yaw), world and body velocities, body
//!   acceleration, specific force `a - g` in body axes (`(0, 0, +9.81)` at rest, level),
//!   speed, wheels (tyre pressure included, gauge kPa, 0 where the game sends none),
//!   drivetrain, lap and controls where the game sends them; `time_s` advances
//!   by the tick period on every Live or Jumped tick and stands still otherwise.
//! - **Conditions**: Waiting before the first sample; Lost when nothing arrived for
//!   `lost_after_ns` (the motion history is then forgotten: the stream resumes from its first
//!   new sample); Jumped on the tick after a motion sample lands further than `jump_m` from
//!   where its predecessor's velocity would have taken the car (teleport, reset) or the game
//!   clock goes back more than 0.1 s (restart): history is forgotten, no interpolation across
//!   it; Paused while the game says `driving == Some(false)`; Live otherwise. "Would have
//!   taken" is over the game clock's spacing when both samples carry one (F1, Forza,
//!   Codemasters, EA WRC, LFS, GT7's packet id); a stream without a clock (BeamNG) is judged
//!   along its velocity over anything from no time to the arrival spacing or two packet
//!   periods, whichever is longer, so a delivery stall (packets held back, then handed over
//!   back to back) is not a jump, while a step across or beyond the velocity's reach is.
//!
//! RT rules: [`GameFrames::push`] and [`GameFrames::frame_at`] never allocate, block or log;
//! everything is fixed-size and `Copy`, the result a deterministic function of the calls.

mod rotation;
mod timeline;

use rig_physics::CarTelemetry;
use rig_protocols::game::{GameCar, GameMotion, GameSample, GameWheel};

use rotation::Quat;
use timeline::Timeline;

/// Gravity the specific force is computed with, m/s^2 (the physics' value).
pub const GRAVITY_MPS2: f64 = 9.81;
/// A game clock going back by more than this is a restart, s (less: a reordered packet).
pub const RESTART_BACKWARDS_S: f64 = 0.1;
/// Largest magnitude a motion channel may have (larger values are clamped).
const CHANNEL_LIMIT: f64 = 1e6;
/// Motion samples kept for interpolation.
const HISTORY: usize = 8;
/// Without a game clock, a position step is explained by the velocity over up to this many
/// measured packet periods (or the arrival spacing, when longer): see `GameFrames::jumps`.
const UNCLOCKED_REACH_PERIODS: f64 = 2.0;

/// How the game source is judged (from `[source]` and the loop rate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameFrameSettings {
    /// No sample for this long: the stream is lost, ns.
    pub lost_after_ns: u64,
    /// A position step this much larger than the velocity explains is a jump, m.
    pub jump_m: f64,
    /// The RT tick period, ns (`time_s` advances by it).
    pub tick_period_ns: u64,
}

/// Whether the frame of this tick may move a platform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceCondition {
    /// No sample yet.
    Waiting,
    /// Samples arrive and the player drives.
    Live,
    /// The game says it is paused, in a menu or not racing.
    Paused,
    /// No sample for `lost_after_ns`.
    Lost,
    /// On this tick: the car jumped (teleport, reset) or the game restarted its clock.
    Jumped,
}

/// The merged motion state at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
struct MotionPoint {
    /// On the arrival clock, s since the first sample.
    t_s: f64,
    /// The game's clock of the sample, s.
    game_time_s: Option<f64>,
    position_m: [f64; 3],
    velocity_world_mps: [f64; 3],
    velocity_body_mps: [f64; 3],
    acceleration_body_mps2: [f64; 3],
    angular_velocity_body_radps: [f64; 3],
    orientation: Quat,
}

impl MotionPoint {
    const REST: MotionPoint = MotionPoint {
        t_s: 0.0,
        game_time_s: None,
        position_m: [0.0; 3],
        velocity_world_mps: [0.0; 3],
        velocity_body_mps: [0.0; 3],
        acceleration_body_mps2: [0.0; 3],
        angular_velocity_body_radps: [0.0; 3],
        orientation: rotation::IDENTITY,
    };

    /// The state `alpha` (0 ..= 1) of the way from `self` to `next`.
    fn lerp(&self, next: &MotionPoint, alpha: f64) -> MotionPoint {
        let mix = |a: [f64; 3], b: [f64; 3]| -> [f64; 3] {
            std::array::from_fn(|i| a[i] + (b[i] - a[i]) * alpha)
        };
        MotionPoint {
            t_s: self.t_s + (next.t_s - self.t_s) * alpha,
            game_time_s: None,
            position_m: mix(self.position_m, next.position_m),
            velocity_world_mps: mix(self.velocity_world_mps, next.velocity_world_mps),
            velocity_body_mps: mix(self.velocity_body_mps, next.velocity_body_mps),
            acceleration_body_mps2: mix(self.acceleration_body_mps2, next.acceleration_body_mps2),
            angular_velocity_body_radps: mix(
                self.angular_velocity_body_radps,
                next.angular_velocity_body_radps,
            ),
            orientation: rotation::interpolate(self.orientation, next.orientation, alpha),
        }
    }
}

/// The bridge's frame builder (one per game source; see the module header).
#[derive(Debug, Clone)]
pub struct GameFrames {
    settings: GameFrameSettings,
    /// Arrival of the first sample: the zero of every internal time, ns.
    epoch_ns: Option<u64>,
    last_arrival_ns: Option<u64>,
    driving: Option<bool>,
    motion: GameMotion,
    car: GameCar,
    wheels: [GameWheel; 4],
    /// Motion samples, oldest first (`points[..count]`).
    points: [MotionPoint; HISTORY],
    count: usize,
    timeline: Timeline,
    jumped: bool,
    time_s: f64,
    out_of_order: u64,
    rate_window_start_ns: u64,
    rate_window_samples: u32,
    input_rate_hz: f64,
}

/// `v` when finite, clamped to +-[`CHANNEL_LIMIT`].
fn sane3(v: Option<[f64; 3]>) -> Option<[f64; 3]> {
    v.filter(|v| v.iter().all(|c| c.is_finite()))
        .map(|v| v.map(|c| c.clamp(-CHANNEL_LIMIT, CHANNEL_LIMIT)))
}

fn sane(v: Option<f64>) -> Option<f64> {
    v.filter(|v| v.is_finite())
}

/// Overwrites `slot` with `new` when `new` says something.
fn keep<T: Copy>(slot: &mut Option<T>, new: Option<T>) {
    if new.is_some() {
        *slot = new;
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn norm(v: [f64; 3]) -> f64 {
    dot(v, v).sqrt()
}

impl GameFrames {
    /// A builder waiting for its first sample.
    pub fn new(settings: &GameFrameSettings) -> GameFrames {
        GameFrames {
            settings: *settings,
            epoch_ns: None,
            last_arrival_ns: None,
            driving: None,
            motion: GameMotion::default(),
            car: GameCar::default(),
            wheels: [GameWheel::default(); 4],
            points: [MotionPoint::REST; HISTORY],
            count: 0,
            timeline: Timeline::default(),
            jumped: false,
            time_s: 0.0,
            out_of_order: 0,
            rate_window_start_ns: 0,
            rate_window_samples: 0,
            input_rate_hz: 0.0,
        }
    }

    /// Samples per second over the last full second of arrivals (every datagram that
    /// decoded, whatever its part of the car).
    pub fn input_rate_hz(&self) -> f64 {
        self.input_rate_hz
    }

    /// How far the rendered state trails the newest sample: one measured motion-sample
    /// period, ns (0 before two motion samples).
    pub fn interpolation_delay_ns(&self) -> u64 {
        self.timeline
            .period_s()
            .map_or(0, |p| (p * 1e9).round() as u64)
    }

    /// Arrival of the newest sample, ns (`None` before the first).
    pub fn last_arrival_ns(&self) -> Option<u64> {
        self.last_arrival_ns
    }

    /// Motion samples dropped because a newer one had arrived first.
    pub fn out_of_order(&self) -> u64 {
        self.out_of_order
    }

    /// Seconds from the first sample to `ns`.
    fn seconds(&self, ns: u64) -> f64 {
        let epoch = self.epoch_ns.unwrap_or(ns);
        (i128::from(ns) - i128::from(epoch)) as f64 / 1e9
    }

    fn newest(&self) -> Option<&MotionPoint> {
        self.count.checked_sub(1).map(|i| &self.points[i])
    }

    /// Forgets the motion history (stream lost, jump, restart): no interpolation across it.
    fn forget_motion(&mut self) {
        self.count = 0;
        self.timeline.restart();
    }

    fn count_rate(&mut self, arrival_ns: u64) {
        if self.rate_window_samples == 0 {
            self.rate_window_start_ns = arrival_ns;
        }
        self.rate_window_samples += 1;
        let span_ns = arrival_ns.saturating_sub(self.rate_window_start_ns);
        if span_ns >= 1_000_000_000 {
            // Intervals in the window: one fewer than the samples.
            self.input_rate_hz = f64::from(self.rate_window_samples - 1) * 1e9 / span_ns as f64;
            self.rate_window_start_ns = arrival_ns;
            self.rate_window_samples = 1;
        }
    }

    /// Takes one decoded sample that arrived at `arrival_ns` (CLOCK_MONOTONIC). RT-safe.
    pub fn push(&mut self, arrival_ns: u64, sample: &GameSample) {
        self.epoch_ns.get_or_insert(arrival_ns);
        if let Some(last) = self.last_arrival_ns {
            if arrival_ns.saturating_sub(last) > self.settings.lost_after_ns {
                self.forget_motion();
                self.rate_window_samples = 0;
            }
        }
        self.last_arrival_ns = Some(
            self.last_arrival_ns
                .map_or(arrival_ns, |l| l.max(arrival_ns)),
        );
        self.count_rate(arrival_ns);

        let m = &sample.motion;
        let motion = GameMotion {
            position_m: sane3(m.position_m),
            velocity_world_mps: sane3(m.velocity_world_mps),
            velocity_body_mps: sane3(m.velocity_body_mps),
            acceleration_body_mps2: sane3(m.acceleration_body_mps2),
            angular_velocity_body_radps: sane3(m.angular_velocity_body_radps),
            roll_pitch_yaw_rad: sane3(m.roll_pitch_yaw_rad),
        };
        let carries_motion = motion != GameMotion::default();
        let game_time_s = sane(sample.game_time_s).map(|t| t.clamp(-1e9, 1e9));
        let mut same_instant = false;
        if carries_motion {
            if let (Some(t), Some(newest)) =
                (game_time_s, self.newest().and_then(|p| p.game_time_s))
            {
                if t < newest - RESTART_BACKWARDS_S {
                    self.forget_motion();
                    self.jumped = true;
                } else if t < newest {
                    self.out_of_order += 1;
                    return;
                } else {
                    same_instant = t == newest;
                }
            }
        }
        self.merge(sample, &motion);
        if carries_motion {
            let t_s = self.timeline.place(self.seconds(arrival_ns), game_time_s);
            self.add_point(t_s, game_time_s, same_instant);
        }
    }

    fn merge(&mut self, sample: &GameSample, motion: &GameMotion) {
        keep(&mut self.driving, sample.driving);
        let m = &mut self.motion;
        keep(&mut m.position_m, motion.position_m);
        keep(&mut m.velocity_world_mps, motion.velocity_world_mps);
        keep(&mut m.velocity_body_mps, motion.velocity_body_mps);
        keep(&mut m.acceleration_body_mps2, motion.acceleration_body_mps2);
        keep(
            &mut m.angular_velocity_body_radps,
            motion.angular_velocity_body_radps,
        );
        keep(&mut m.roll_pitch_yaw_rad, motion.roll_pitch_yaw_rad);
        let (c, s) = (&mut self.car, &sample.car);
        keep(&mut c.speed_mps, sane(s.speed_mps));
        keep(&mut c.engine_rpm, sane(s.engine_rpm));
        keep(&mut c.max_rpm, sane(s.max_rpm));
        keep(&mut c.idle_rpm, sane(s.idle_rpm));
        keep(&mut c.gear, s.gear);
        keep(&mut c.forward_gears, s.forward_gears);
        keep(&mut c.throttle, sane(s.throttle));
        keep(&mut c.brake, sane(s.brake));
        keep(&mut c.clutch, sane(s.clutch));
        keep(&mut c.handbrake, sane(s.handbrake));
        keep(&mut c.steer, sane(s.steer));
        keep(&mut c.fuel_fraction, sane(s.fuel_fraction));
        keep(&mut c.laps_completed, s.laps_completed);
        keep(&mut c.current_lap_s, sane(s.current_lap_s));
        keep(&mut c.last_lap_s, sane(s.last_lap_s));
        keep(&mut c.best_lap_s, sane(s.best_lap_s));
        keep(&mut c.lap_distance_m, sane(s.lap_distance_m));
        keep(&mut c.race_position, s.race_position);
        for (w, s) in self.wheels.iter_mut().zip(&sample.wheels) {
            keep(&mut w.suspension_travel_m, sane(s.suspension_travel_m));
            keep(
                &mut w.suspension_velocity_mps,
                sane(s.suspension_velocity_mps),
            );
            keep(
                &mut w.angular_velocity_radps,
                sane(s.angular_velocity_radps),
            );
            keep(&mut w.slip_ratio, sane(s.slip_ratio));
            keep(&mut w.slip_angle_rad, sane(s.slip_angle_rad));
            keep(&mut w.load_n, sane(s.load_n));
            keep(&mut w.temperature_c, sane(s.temperature_c));
            keep(&mut w.pressure_kpa, sane(s.pressure_kpa));
        }
    }

    /// Adds the merged motion state as a point at `t_s` (replacing the newest when it is
    /// the same game instant), with its derived channels and the jump check.
    fn add_point(&mut self, t_s: f64, game_time_s: Option<f64>, same_instant: bool) {
        let m = self.motion;
        let orientation = m
            .roll_pitch_yaw_rad
            .map_or(rotation::IDENTITY, rotation::from_roll_pitch_yaw);
        let (velocity_world, velocity_body) = match (m.velocity_world_mps, m.velocity_body_mps) {
            (Some(w), Some(b)) => (w, b),
            (Some(w), None) => (w, rotation::world_to_body(orientation, w)),
            (None, Some(b)) => (rotation::body_to_world(orientation, b), b),
            (None, None) => ([0.0; 3], [0.0; 3]),
        };
        let mut point = MotionPoint {
            t_s,
            game_time_s,
            position_m: m.position_m.unwrap_or([0.0; 3]),
            velocity_world_mps: velocity_world,
            velocity_body_mps: velocity_body,
            acceleration_body_mps2: m.acceleration_body_mps2.unwrap_or([0.0; 3]),
            angular_velocity_body_radps: m.angular_velocity_body_radps.unwrap_or([0.0; 3]),
            orientation,
        };
        if same_instant {
            // The newest point is this instant: rebuild it from the merged state.
            point.t_s = self.points[self.count - 1].t_s;
            self.count -= 1;
        }
        if let Some(previous) = self.newest().copied() {
            // Strictly increasing times, whatever the offset did (interpolation divides by
            // the spacing).
            point.t_s = point.t_s.max(previous.t_s + 1e-6);
            // The game's own spacing when both have a clock: exact, free of arrival jitter.
            let dt = match (point.game_time_s, previous.game_time_s) {
                (Some(now), Some(before)) => now - before,
                _ => point.t_s - previous.t_s,
            };
            let clocked = point.game_time_s.is_some() && previous.game_time_s.is_some();
            if m.position_m.is_some() && self.jumps(&previous, &point, clocked, dt) {
                self.forget_motion();
                self.jumped = true;
            } else if dt > 1e-6 {
                self.derive(&previous, &mut point, dt);
            }
        }
        if self.count == HISTORY {
            self.points.copy_within(1.., 0);
            self.count -= 1;
        }
        self.points[self.count] = point;
        self.count += 1;
        if !same_instant {
            self.timeline.observe(game_time_s.unwrap_or(point.t_s));
        }
    }

    /// True when `next` is further than `jump_m` from where `previous` and the velocities
    /// could have put the car: after exactly `dt` when both carry the game's clock
    /// (`clocked`); without one, after any time from 0 to the arrival spacing `dt` or
    /// [`UNCLOCKED_REACH_PERIODS`] packet periods, whichever is longer. A delivery stall
    /// holds packets back and hands them over back to back: the first after it arrives late
    /// with the car one period on, the rest at once, each one period on again, so arrival
    /// spacing alone would take a stall for a jump.
    fn jumps(&self, previous: &MotionPoint, next: &MotionPoint, clocked: bool, dt: f64) -> bool {
        let velocity: [f64; 3] = std::array::from_fn(|i| {
            0.5 * (previous.velocity_world_mps[i] + next.velocity_world_mps[i])
        });
        let step = sub(next.position_m, previous.position_m);
        let time = if clocked {
            dt.max(0.0)
        } else {
            // The time on [0, reach] that best explains the step along the velocity.
            let period = self.timeline.period_s().unwrap_or(0.0);
            let reach = dt.max(UNCLOCKED_REACH_PERIODS * period).max(0.0);
            let speed_squared = dot(velocity, velocity);
            if speed_squared > 0.0 {
                (dot(step, velocity) / speed_squared).clamp(0.0, reach)
            } else {
                0.0
            }
        };
        norm(sub(step, velocity.map(|v| v * time))) > self.settings.jump_m
    }

    /// Fills the channels the game does not send from the change since `previous`.
    fn derive(&self, previous: &MotionPoint, point: &mut MotionPoint, dt: f64) {
        let m = &self.motion;
        let clamp = |v: [f64; 3]| v.map(|c| c.clamp(-CHANNEL_LIMIT, CHANNEL_LIMIT));
        if m.angular_velocity_body_radps.is_none() && m.roll_pitch_yaw_rad.is_some() {
            point.angular_velocity_body_radps = clamp(rotation::body_rate_between(
                previous.orientation,
                point.orientation,
                dt,
            ));
        }
        let has_velocity = m.velocity_world_mps.is_some() || m.velocity_body_mps.is_some();
        if m.acceleration_body_mps2.is_none() && has_velocity {
            let acceleration = if m.roll_pitch_yaw_rad.is_some() {
                let world =
                    sub(point.velocity_world_mps, previous.velocity_world_mps).map(|c| c / dt);
                let mid = rotation::interpolate(previous.orientation, point.orientation, 0.5);
                rotation::world_to_body(mid, world)
            } else {
                let dv = sub(point.velocity_body_mps, previous.velocity_body_mps).map(|c| c / dt);
                let w: [f64; 3] = std::array::from_fn(|i| {
                    0.5 * (previous.angular_velocity_body_radps[i]
                        + point.angular_velocity_body_radps[i])
                });
                let v: [f64; 3] = std::array::from_fn(|i| {
                    0.5 * (previous.velocity_body_mps[i] + point.velocity_body_mps[i])
                });
                let turn = cross(w, v);
                std::array::from_fn(|i| dv[i] + turn[i])
            };
            point.acceleration_body_mps2 = clamp(acceleration);
        }
    }

    /// The motion state at `t_s`: interpolated between the samples around it, the oldest
    /// before them, the newest after them (never extrapolated).
    fn render(&self, t_s: f64) -> MotionPoint {
        let points = &self.points[..self.count];
        let Some(newest) = points.last() else {
            return MotionPoint::REST;
        };
        if t_s >= newest.t_s {
            return *newest;
        }
        match points.iter().rposition(|p| p.t_s <= t_s) {
            None => points[0],
            Some(i) => {
                let (a, b) = (&points[i], &points[i + 1]);
                let span = b.t_s - a.t_s;
                let alpha = if span > 0.0 {
                    (t_s - a.t_s) / span
                } else {
                    1.0
                };
                a.lerp(b, alpha.clamp(0.0, 1.0))
            }
        }
    }

    /// The condition of the stream at `now_ns`, and `car` filled with its state for this
    /// tick (the rest state while Waiting). RT-safe.
    pub fn frame_at(&mut self, now_ns: u64, car: &mut CarTelemetry) -> SourceCondition {
        let condition = match self.last_arrival_ns {
            None => SourceCondition::Waiting,
            Some(last) if now_ns.saturating_sub(last) > self.settings.lost_after_ns => {
                SourceCondition::Lost
            }
            _ if std::mem::take(&mut self.jumped) => SourceCondition::Jumped,
            _ if self.driving == Some(false) => SourceCondition::Paused,
            _ => SourceCondition::Live,
        };
        if matches!(condition, SourceCondition::Live | SourceCondition::Jumped) {
            self.time_s += self.settings.tick_period_ns as f64 / 1e9;
        }
        let delay_s = self.timeline.period_s().unwrap_or(0.0);
        let state = self.render(self.seconds(now_ns) - delay_s);
        self.fill(&state, car);
        condition
    }

    fn fill(&self, p: &MotionPoint, car: &mut CarTelemetry) {
        car.time_s = self.time_s;
        car.position_m = p.position_m;
        car.orientation = p.orientation;
        car.roll_pitch_yaw_rad = rotation::roll_pitch_yaw(p.orientation);
        car.velocity_world_mps = p.velocity_world_mps;
        car.velocity_body_mps = p.velocity_body_mps;
        car.angular_velocity_body_radps = p.angular_velocity_body_radps;
        car.acceleration_body_mps2 = p.acceleration_body_mps2;
        let up = rotation::world_to_body(p.orientation, [0.0, 0.0, GRAVITY_MPS2]);
        car.specific_force_body_mps2 = std::array::from_fn(|i| p.acceleration_body_mps2[i] + up[i]);
        let c = &self.car;
        car.speed_mps = c.speed_mps.unwrap_or_else(|| norm(p.velocity_world_mps));
        for (out, w) in car.wheels.iter_mut().zip(&self.wheels) {
            out.suspension_travel_m = w.suspension_travel_m.unwrap_or(0.0);
            out.suspension_velocity_mps = w.suspension_velocity_mps.unwrap_or(0.0);
            out.angular_velocity_radps = w.angular_velocity_radps.unwrap_or(0.0);
            out.slip_ratio = w.slip_ratio.unwrap_or(0.0);
            out.slip_angle_rad = w.slip_angle_rad.unwrap_or(0.0);
            out.load_n = w.load_n.unwrap_or(0.0);
            out.temperature_c = w.temperature_c.unwrap_or(0.0);
            out.pressure_kpa = w.pressure_kpa.unwrap_or(0.0);
            out.in_contact = w.load_n.is_none_or(|load| load > 0.0);
        }
        let d = &mut car.drivetrain;
        d.engine_rpm = c.engine_rpm.unwrap_or(0.0);
        d.max_rpm = c.max_rpm.unwrap_or(0.0);
        d.idle_rpm = c.idle_rpm.unwrap_or(0.0);
        d.engine_running = d.engine_rpm > 0.0;
        d.gear = c.gear.unwrap_or(0);
        d.forward_gears = c.forward_gears.unwrap_or(0);
        let lap = &mut car.lap;
        lap.laps_completed = c.laps_completed.unwrap_or(0);
        lap.current_lap_s = c.current_lap_s.unwrap_or(0.0);
        lap.last_lap_s = c.last_lap_s.unwrap_or(0.0);
        lap.best_lap_s = c.best_lap_s.unwrap_or(0.0);
        lap.distance_m = c.lap_distance_m.unwrap_or(0.0);
        let controls = &mut car.controls;
        controls.steering = c.steer.unwrap_or(0.0);
        controls.throttle = c.throttle.unwrap_or(0.0);
        controls.brake = c.brake.unwrap_or(0.0);
        controls.clutch = c.clutch.unwrap_or(0.0);
        controls.handbrake = c.handbrake.unwrap_or(0.0);
        controls.ignition = true;
    }
}

#[cfg(test)]
mod tests;
