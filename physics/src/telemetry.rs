//! The per-car telemetry record every step produces. The types are plain data and live in
//! rig-types (so encoders and the dashboard need not build the simulator); they are
//! re-exported here so `rig_physics::telemetry::...` paths keep working.
//!
//! Conventions (all SI, f64; spelled out in `rig_types::telemetry`): world frame right-handed
//! with `z` up; body frame ISO 8855 (`x` forward, `y` left, `z` up); wheels ordered FL, FR,
//! RL, RR ([`WHEEL_FL`] ..); slip ratio and slip angle with the Magic Formula's ISO signs.

pub use rig_types::telemetry::{
    CarTelemetry, DamageTelemetry, DiffTelemetry, DrivetrainTelemetry, LapTelemetry, ShiftRefusal,
    SurfaceKind, WheelTelemetry, DIFF_CENTRE, DIFF_FRONT, DIFF_REAR, WHEEL_FL, WHEEL_FR, WHEEL_RL,
    WHEEL_RR,
};
