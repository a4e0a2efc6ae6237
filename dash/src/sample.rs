//! One decoded packet as the dashboard sees it: the subset of channels the screen shows, in
//! the dashboard's own units and axes, independent of the wire format it came from.
//!
//! Every channel a format may lack is an `Option` (OutGauge has no tyres, Codemasters no loop
//! health, only rigd sends the wheel angle and rim torque): widgets show `--` for `None`
//! instead of a made-up zero. Units are SI except where
//! the name says otherwise. Axes follow the physics body frame (ISO 8855: x forward, y left);
//! wheels are ordered FL, FR, RL, RR.

use rig_protocols::telemetry::DashGauges;
use rig_protocols::{LoopHealth, MotionHoldTelemetry};
use rig_types::DamageTelemetry;

/// Index names of the four corners, in the order of [`Sample::tyres`].
pub const CORNER_NAMES: [&str; 4] = ["FL", "FR", "RL", "RR"];

/// The gear as the driver reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Gear {
    /// Reverse.
    Reverse,
    /// Neutral.
    #[default]
    Neutral,
    /// A forward gear, 1-based.
    Forward(u8),
}

impl Gear {
    /// Maps the physics convention (-1 reverse, 0 neutral, 1.. forward) to a gear.
    pub fn from_signed(gear: i8) -> Self {
        match gear {
            i8::MIN..=-1 => Gear::Reverse,
            0 => Gear::Neutral,
            // The match arm guarantees 1..=127, which fits a u8.
            forward => Gear::Forward(forward.unsigned_abs()),
        }
    }

    /// The label a dash shows: `R`, `N`, `1` ..
    pub fn label(self) -> String {
        match self {
            Gear::Reverse => "R".to_owned(),
            Gear::Neutral => "N".to_owned(),
            Gear::Forward(n) => n.to_string(),
        }
    }
}

/// One tyre's channels; each is present only when the format carries it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TyreSample {
    /// Vertical load, N.
    pub load_n: Option<f64>,
    /// Longitudinal slip ratio (positive when driving).
    pub slip_ratio: Option<f64>,
    /// Slip angle, rad.
    pub slip_angle_rad: Option<f64>,
    /// Tyre (tread surface) temperature, degrees C.
    pub temperature_c: Option<f64>,
    /// Tyre carcass temperature, degrees C.
    pub carcass_temperature_c: Option<f64>,
    /// Combined slip, normalised: 1 is the grip limit.
    pub combined_slip: Option<f64>,
    /// Wheel spin rate, rad/s.
    pub wheel_speed_radps: Option<f64>,
    /// Contact-patch speed (spin rate times radius), m/s.
    pub patch_speed_mps: Option<f64>,
    /// Suspension compression, m.
    pub suspension_travel_m: Option<f64>,
    /// Brake temperature, degrees C.
    pub brake_temperature_c: Option<f64>,
    /// Tyre pressure (gauge), kPa.
    pub pressure_kpa: Option<f64>,
    /// Tread wear, 0 (new) to 1 (worn out).
    pub wear: Option<f64>,
}

impl TyreSample {
    /// True when the format carries at least one tyre channel.
    pub fn has_any(&self) -> bool {
        [
            self.load_n,
            self.slip_ratio,
            self.slip_angle_rad,
            self.temperature_c,
            self.carcass_temperature_c,
            self.combined_slip,
            self.wheel_speed_radps,
            self.patch_speed_mps,
            self.suspension_travel_m,
            self.brake_temperature_c,
            self.pressure_kpa,
            self.wear,
        ]
        .iter()
        .any(Option::is_some)
    }
}

/// Lap and sector timing as reported by the source.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LapSample {
    /// Completed laps.
    pub laps_completed: u32,
    /// Current sector, 0-based.
    pub sector: u8,
    /// Time into the current lap, s.
    pub current_lap_s: f64,
    /// Last completed lap, s (0 when none).
    pub last_lap_s: f64,
    /// Best lap, s (0 when none).
    pub best_lap_s: f64,
    /// Sector times of the current lap so far, s (0 for sectors not reached).
    pub sector_times_s: [f64; 3],
    /// Best sector times, s (0 when none).
    pub best_sector_times_s: [f64; 3],
    /// False when the format carries no sector timing (the sector fields are then unused).
    pub has_sectors: bool,
    /// Position in the race, 1 = leading, when the source sends one.
    pub race_position: Option<u32>,
}

/// Steering-column torque and, from rigd, the force-feedback state behind it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SteeringTorque {
    /// Torque at the rim, N m (positive pulls left).
    pub torque_nm: f64,
    /// Commanded output as a fraction of the device maximum, -1 ..= 1, when a device is driven.
    pub ffb_output: Option<f64>,
    /// True when the output is clipped this packet.
    pub clipping: bool,
    /// Share of recent ticks that clipped, 0 ..= 1, when known.
    pub clipping_share: Option<f64>,
    /// Why rigd holds the force at zero (`fault hold`, `e-stop`, `no device`, ...), if it does.
    pub ffb_hold: Option<&'static str>,
}

/// Everything the dashboard takes from one packet.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Sample {
    /// Short name of the wire format (`native`, `outgauge`, `forza`, ...).
    pub format: &'static str,
    /// Speed over ground, m/s.
    pub speed_mps: Option<f64>,
    /// Current gear.
    pub gear: Option<Gear>,
    /// Engine speed, rpm.
    pub rpm: Option<f64>,
    /// Rev limit, rpm (scales the RPM bar and places the shift lights).
    pub max_rpm: Option<f64>,
    /// Throttle pedal, 0 ..= 1.
    pub throttle: Option<f64>,
    /// Brake pedal, 0 ..= 1.
    pub brake: Option<f64>,
    /// Clutch pedal, 0 ..= 1 (1 = pressed).
    pub clutch: Option<f64>,
    /// Handbrake, 0 ..= 1.
    pub handbrake: Option<f64>,
    /// Steering-wheel angle, rad (positive left).
    pub steering_angle_rad: Option<f64>,
    /// Steering input as a fraction of full lock, -1 ..= 1 (positive left), for formats that
    /// send the input but not the wheel angle.
    pub steering_input: Option<f64>,
    /// Steering torque and clipping.
    pub steering_torque: Option<SteeringTorque>,
    /// Horizontal acceleration in the body frame, m/s^2: `[longitudinal (+forward), lateral (+left)]`.
    pub accel_mps2: Option<[f64; 2]>,
    /// Per-corner tyre channels, FL, FR, RL, RR.
    pub tyres: [TyreSample; 4],
    /// Lap and sector timing.
    pub lap: Option<LapSample>,
    /// Horizontal world position for the track map, m (`[x, y]`, any fixed planar frame).
    pub position_m: Option<[f64; 2]>,
    /// rigd's real-time loop health (native packets only).
    pub health: Option<LoopHealth>,
    /// rigd's motion platforms' holds (native packets from a rig with motion platforms).
    pub motion_holds: Option<MotionHoldTelemetry>,
    /// Engine gauges and dashboard lights (fuel, temperatures, boost, power; OutGauge lights).
    pub gauges: DashGauges,
    /// Broken parts (native packets only).
    pub damage: Option<DamageTelemetry>,
}

/// A motion hold cause's words, by its native telemetry code (`docs/telemetry-native.md`).
pub fn motion_hold_cause(code: u8) -> &'static str {
    match code {
        0 => "none",
        1 => "rigd stops",
        2 => "reload",
        3 => "loop fault",
        4 => "e-stop",
        5 => "nobody drives",
        6 => "game not live",
        7 => "stale data",
        8 => "no link",
        _ => "unknown",
    }
}

/// A motion platform's safety state's word, by its native telemetry code.
pub fn motion_state(code: u8) -> &'static str {
    match code {
        0 => "connecting",
        1 => "parked",
        2 => "raising",
        3 => "active",
        4 => "holding",
        5 => "idle",
        6 => "parking",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gear_labels_follow_the_physics_convention() {
        assert_eq!(Gear::from_signed(-1).label(), "R");
        assert_eq!(Gear::from_signed(0).label(), "N");
        assert_eq!(Gear::from_signed(3).label(), "3");
        assert_eq!(Gear::from_signed(i8::MIN), Gear::Reverse);
        assert_eq!(Gear::from_signed(i8::MAX), Gear::Forward(127));
    }
}
