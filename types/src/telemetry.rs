//! The per-car telemetry record: every channel the simulation produces, as one plain `Copy`
//! struct that the real-time thread can publish each tick without allocating. rig-physics
//! fills it; encoders, force feedback, motion cueing and the dashboard read it.
//!
//! Conventions (all SI, f64):
//! - World frame: right-handed, `z` up, gravity along `-z`. Track and car positions are in metres.
//! - Body frame (ISO 8855): `x` forward, `y` left, `z` up, origin at the centre of gravity.
//!   Roll is about `x` (positive: left side up... i.e. right-hand rule), pitch about `y`
//!   (positive: nose down), yaw about `z` (positive: turning left).
//! - Wheels are always ordered front-left, front-right, rear-left, rear-right ([`WHEEL_FL`] ..).
//! - Slip ratio `kappa = (omega * r - v_x) / |v_x|` (positive when driving), slip angle `alpha`
//!   in radians with the Magic Formula's ISO sign (a left-turning car has negative alpha at the
//!   front wheels and positive lateral force).
//!
//! Consumers (telemetry encoders, FFB, motion cueing, the dashboard) map these channels into
//! their own units and axes; nothing here is format-specific. Fields may be added, never
//! renamed or removed without updating every consumer.

use crate::controls::Controls;

/// Index of the front-left wheel in every per-wheel array.
pub const WHEEL_FL: usize = 0;
/// Index of the front-right wheel.
pub const WHEEL_FR: usize = 1;
/// Index of the rear-left wheel.
pub const WHEEL_RL: usize = 2;
/// Index of the rear-right wheel.
pub const WHEEL_RR: usize = 3;

/// The surface under a wheel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
#[repr(u8)]
pub enum SurfaceKind {
    /// Dry asphalt, the reference surface (grip scale 1).
    #[default]
    Asphalt = 0,
    /// Painted kerb.
    Kerb = 1,
    /// Grass verge.
    Grass = 2,
    /// Gravel trap.
    Gravel = 3,
    /// Wet asphalt.
    Wet = 4,
}

/// One wheel's channels.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WheelTelemetry {
    /// Vertical tyre load, N (0 when airborne).
    pub load_n: f64,
    /// Longitudinal slip ratio (dimensionless, positive when driving).
    pub slip_ratio: f64,
    /// Slip angle, rad (ISO sign).
    pub slip_angle_rad: f64,
    /// Longitudinal tyre force in the wheel frame, N (positive forward).
    pub force_long_n: f64,
    /// Lateral tyre force in the wheel frame, N (positive left).
    pub force_lat_n: f64,
    /// Aligning moment about the contact normal, N m.
    pub aligning_moment_nm: f64,
    /// Spin rate, rad/s (positive rolling forward).
    pub angular_velocity_radps: f64,
    /// Rolling radius, m.
    pub radius_m: f64,
    /// Road-wheel steer angle, rad (positive left).
    pub steer_angle_rad: f64,
    /// Suspension compression from full droop, m (0 = fully extended).
    pub suspension_travel_m: f64,
    /// Suspension compression speed, m/s (positive compressing).
    pub suspension_velocity_mps: f64,
    /// Tyre tread surface temperature, degrees C.
    pub temperature_c: f64,
    /// Tyre carcass temperature, degrees C.
    pub carcass_temperature_c: f64,
    /// Tyre inflation pressure (gauge), kPa.
    pub pressure_kpa: f64,
    /// Tread wear, 0 (new) to 1 (worn out).
    pub wear: f64,
    /// Drive torque delivered by the driveline to this wheel, N m.
    pub drive_torque_nm: f64,
    /// Brake torque applied to this wheel, N m (magnitude).
    pub brake_torque_nm: f64,
    /// Surface under the contact patch.
    pub surface: SurfaceKind,
    /// True while the tyre touches the ground.
    pub in_contact: bool,
}

/// Why a gear change was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum ShiftRefusal {
    /// No refusal (telemetry default).
    #[default]
    None,
    /// Reverse requested while the car rolls faster than walking pace.
    ReverseTooFast,
    /// This gearbox needs the clutch pedal pressed to change gear.
    ClutchRequired,
    /// The requested gear does not exist (past top gear, below reverse, or out of range).
    NoSuchGear,
    /// A sequential box moves one gear at a time.
    OneGearAtATime,
    /// A previous change is still in progress.
    ShiftInProgress,
}

/// One differential's state.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DiffTelemetry {
    /// True when this differential exists in the car's layout.
    pub present: bool,
    /// True while the two outputs turn as one (locked state).
    pub locked: bool,
    /// Torque moved from the faster to the slower output, N m.
    pub transfer_torque_nm: f64,
}

/// Engine, clutch and gearbox channels.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DrivetrainTelemetry {
    /// Engine speed, rpm.
    pub engine_rpm: f64,
    /// Net engine torque at the crank, N m.
    pub engine_torque_nm: f64,
    /// Rev-limiter rpm (for shift lights and dashboards).
    pub max_rpm: f64,
    /// Idle rpm.
    pub idle_rpm: f64,
    /// Engine running (not stalled).
    pub engine_running: bool,
    /// Current gear: -1 reverse, 0 neutral, 1.. forward.
    pub gear: i8,
    /// Number of forward gears.
    pub forward_gears: u8,
    /// True while the clutch is in its locked (no slip) state.
    pub clutch_locked: bool,
    /// True while a shift is in progress (torque cut).
    pub shifting: bool,
    /// Front, rear and centre differentials.
    pub diffs: [DiffTelemetry; 3],
    /// Torque the clutch passes from the engine to the gearbox, N m (negative on overrun).
    pub clutch_torque_nm: f64,
    /// Reason of the most recent refused gear change ([`ShiftRefusal::None`] if none yet).
    pub shift_refusal: ShiftRefusal,
    /// Refused gear changes so far (wrapping): a change of value signals a new refusal.
    pub shift_refusal_count: u32,
}

/// Index of the front differential in [`DrivetrainTelemetry::diffs`].
pub const DIFF_FRONT: usize = 0;
/// Index of the rear differential.
pub const DIFF_REAR: usize = 1;
/// Index of the centre differential.
pub const DIFF_CENTRE: usize = 2;

/// Where the car is on the track and how its laps went.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LapTelemetry {
    /// Distance along the centreline from the start line, m.
    pub distance_m: f64,
    /// Lateral offset from the centreline, m (positive left).
    pub lateral_offset_m: f64,
    /// Length of the track's lap, m.
    pub track_length_m: f64,
    /// Completed laps.
    pub laps_completed: u32,
    /// Current sector, 0-based.
    pub sector: u8,
    /// Time into the current lap, s.
    pub current_lap_s: f64,
    /// Last completed lap, s (0 when none yet).
    pub last_lap_s: f64,
    /// Best lap, s (0 when none yet).
    pub best_lap_s: f64,
    /// Sector times of the current lap so far, s (0 for sectors not reached).
    pub sector_times_s: [f64; 3],
    /// Best sector times, s (0 when none yet).
    pub best_sector_times_s: [f64; 3],
}

/// Every channel of one car after a step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CarTelemetry {
    /// Simulation time, s.
    pub time_s: f64,
    /// Position of the centre of gravity in the world frame, m.
    pub position_m: [f64; 3],
    /// Orientation as a unit quaternion `[w, x, y, z]` (body to world).
    pub orientation: [f64; 4],
    /// Roll, pitch, yaw (Tait-Bryan z-y-x), rad.
    pub roll_pitch_yaw_rad: [f64; 3],
    /// Velocity in the world frame, m/s.
    pub velocity_world_mps: [f64; 3],
    /// Velocity in the body frame, m/s.
    pub velocity_body_mps: [f64; 3],
    /// Angular velocity in the body frame, rad/s.
    pub angular_velocity_body_radps: [f64; 3],
    /// Kinematic acceleration of the centre of gravity in the body frame, m/s^2.
    pub acceleration_body_mps2: [f64; 3],
    /// Specific force in the body frame (what an accelerometer reads: acceleration minus
    /// gravity), m/s^2. At rest on flat ground this is `[0, 0, +9.81]`.
    pub specific_force_body_mps2: [f64; 3],
    /// Speed over ground, m/s.
    pub speed_mps: f64,
    /// The four wheels, FL, FR, RL, RR.
    pub wheels: [WheelTelemetry; 4],
    /// Steering-wheel angle, rad (positive left).
    pub steering_wheel_angle_rad: f64,
    /// Steering-column torque at the rim, N m: the force-feedback source signal (positive
    /// pulls the rim to the left).
    pub steering_torque_nm: f64,
    /// The controls applied in this step (after sanitising).
    pub controls: Controls,
    /// Engine and driveline.
    pub drivetrain: DrivetrainTelemetry,
    /// Lap position and timing.
    pub lap: LapTelemetry,
    /// True while any part of the car touches a barrier.
    pub barrier_contact: bool,
    /// Surface under the centre of gravity's track position (off-track detection).
    pub surface: SurfaceKind,
    /// Which breakable parts are broken (all whole after a reset).
    pub damage: DamageTelemetry,
}

/// Breakable parts, true when broken (rig-physics' `damage` module says what breaks them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct DamageTelemetry {
    /// The front wing (its share of the front downforce is lost).
    pub front_wing: bool,
    /// The rear wing (its share of the rear downforce is lost).
    pub rear_wing: bool,
    /// Each corner's suspension link, FL FR RL RR (that wheel's toe and camber knocked out).
    pub links: [bool; 4],
    /// The steering rack (the front wheels carry a steering offset).
    pub steering_rack: bool,
}

impl DamageTelemetry {
    /// True when any part is broken.
    pub fn any(&self) -> bool {
        self.front_wing || self.rear_wing || self.steering_rack || self.links.iter().any(|l| *l)
    }
}
