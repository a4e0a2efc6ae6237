//! Stand-in frame builder for the game bridge (replaced by the resampling builder of the
//! "bridge-motion" branch, which keeps this API): holds the latest sample's channels and
//! says whether the stream may move a platform. No resampling, no differentiation.

use rig_physics::CarTelemetry;
use rig_protocols::game::GameSample;

/// How the game source is judged (from `[source]` and the loop rate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameFrameSettings {
    /// No sample for this long: the stream is lost, ns.
    pub lost_after_ns: u64,
    /// A position step larger than this is a jump, m.
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
    /// On this tick: the car jumped (teleport, reset).
    Jumped,
}

/// The latest sample and the source's condition.
#[derive(Debug, Clone)]
pub struct GameFrames {
    settings: GameFrameSettings,
    latest: Option<GameSample>,
    last_arrival_ns: u64,
    jumped: bool,
    time_s: f64,
}

impl GameFrames {
    /// A builder with no sample yet.
    pub fn new(settings: &GameFrameSettings) -> GameFrames {
        GameFrames {
            settings: *settings,
            latest: None,
            last_arrival_ns: 0,
            jumped: false,
            time_s: 0.0,
        }
    }

    /// Takes a sample that arrived at `arrival_ns`.
    pub fn push(&mut self, arrival_ns: u64, sample: &GameSample) {
        let before = self.latest.and_then(|s| s.motion.position_m);
        if let (Some(a), Some(b)) = (before, sample.motion.position_m) {
            let d = (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt();
            self.jumped |= d > self.settings.jump_m;
        }
        self.latest = Some(*sample);
        self.last_arrival_ns = arrival_ns;
    }

    /// The frame for the tick at `now_ns` into `car`, and the condition.
    pub fn frame_at(&mut self, now_ns: u64, car: &mut CarTelemetry) -> SourceCondition {
        let Some(sample) = self.latest else {
            return SourceCondition::Waiting;
        };
        if now_ns.saturating_sub(self.last_arrival_ns) > self.settings.lost_after_ns {
            return SourceCondition::Lost;
        }
        let m = &sample.motion;
        car.position_m = m.position_m.unwrap_or(car.position_m);
        car.velocity_body_mps = m.velocity_body_mps.unwrap_or(car.velocity_body_mps);
        car.acceleration_body_mps2 = m.acceleration_body_mps2.unwrap_or([0.0; 3]);
        car.angular_velocity_body_radps = m.angular_velocity_body_radps.unwrap_or([0.0; 3]);
        car.roll_pitch_yaw_rad = m.roll_pitch_yaw_rad.unwrap_or(car.roll_pitch_yaw_rad);
        let a = car.acceleration_body_mps2;
        car.specific_force_body_mps2 = [a[0], a[1], a[2] + 9.81];
        car.speed_mps = sample.car.speed_mps.unwrap_or(car.speed_mps);
        car.drivetrain.engine_rpm = sample.car.engine_rpm.unwrap_or(0.0);
        if std::mem::take(&mut self.jumped) {
            return SourceCondition::Jumped;
        }
        if sample.driving == Some(false) {
            return SourceCondition::Paused;
        }
        self.time_s += self.settings.tick_period_ns as f64 * 1e-9;
        car.time_s = self.time_s;
        SourceCondition::Live
    }
}
