//! Codemasters legacy "extradata" UDP (DiRT Rally, DiRT Rally 2.0, DiRT 4, GRID): with
//! `extradata="3"` a flat array of 66 little-endian f32 (264 bytes), no header.
//!
//! Conventions: wheel arrays are RL, RR, FL, FR; engine rates are rpm / 10; gear is a float
//! with 0 = N and -1 = R in DiRT Rally 2.0 but 10 = R in DiRT Rally ([`gear_from_codemasters`]
//! reads both; rigd sends -1); everything, including counters and flags, is f32.
//! World vectors use Codemasters' y-up axes: `(X, Y, Z) = (our x, our z, our y)` (the world
//! height goes to Y); "left" and "forward" are the car's unit axes in those world axes.
//! Steer is -1 (left) .. 1 (right), the opposite sign of ours. G-forces are the kinematic body
//! accelerations divided by standard gravity (lateral positive left, longitudinal positive
//! accelerating). Suspension position is compression in mm (community convention), suspension
//! velocity in mm/s. Neutral values for what the sim does not model: KERS, DRS, TC, ABS, in
//! pits, SLI Pro, race position, total laps, brake temperature and tyre pressure: 0; fuel in
//! tank and capacity: 1 (a full tank, so fraction-based gauges read 100 %).

use zerocopy::little_endian::F32;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::telemetry::convert::{
    body_to_world, f32_of, total_distance_m, KPA_PER_PSI, STANDARD_GRAVITY_MPS2,
};
use crate::telemetry::DecodeError;
use rig_types::{Frame, WHEEL_FL, WHEEL_FR, WHEEL_RL, WHEEL_RR};

/// Size of an extradata=3 packet.
pub const CODEMASTERS_LEN: usize = 264;
/// Codemasters' wheel order as indices into our FL, FR, RL, RR arrays.
pub const CODEMASTERS_WHEEL_ORDER: [usize; 4] = [WHEEL_RL, WHEEL_RR, WHEEL_FL, WHEEL_FR];

/// The 66-float extradata=3 packet; the doc comment of each field names its index.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct CodemastersPacket {
    /// 0: total time, s.
    pub total_time: F32,
    /// 1: lap time, s.
    pub lap_time: F32,
    /// 2: lap distance, m.
    pub lap_distance: F32,
    /// 3: total distance, m.
    pub total_distance: F32,
    /// 4..=6: world position X, Y (up), Z, m.
    pub position: [F32; 3],
    /// 7: speed, m/s.
    pub speed: F32,
    /// 8..=10: world velocity, m/s.
    pub velocity: [F32; 3],
    /// 11..=13: the car's left unit vector in world axes.
    pub left_vector: [F32; 3],
    /// 14..=16: the car's forward unit vector in world axes.
    pub forward_vector: [F32; 3],
    /// 17..=20: suspension position RL RR FL FR, mm.
    pub suspension_position: [F32; 4],
    /// 21..=24: suspension velocity RL RR FL FR, mm/s.
    pub suspension_velocity: [F32; 4],
    /// 25..=28: wheel patch speed RL RR FL FR, m/s.
    pub wheel_patch_speed: [F32; 4],
    /// 29: throttle 0..1.
    pub throttle: F32,
    /// 30: steer -1 (left) .. 1 (right).
    pub steer: F32,
    /// 31: brake 0..1.
    pub brake: F32,
    /// 32: clutch 0..1.
    pub clutch: F32,
    /// 33: gear, 0 N, -1 R (DiRT Rally 2.0) or 10 R (DiRT Rally).
    pub gear: F32,
    /// 34: lateral g.
    pub g_force_lateral: F32,
    /// 35: longitudinal g.
    pub g_force_longitudinal: F32,
    /// 36: current lap, 0-based.
    pub current_lap: F32,
    /// 37: engine rate, rpm / 10.
    pub engine_rate: F32,
    /// 38: native SLI Pro support.
    pub sli_pro_support: F32,
    /// 39: race position.
    pub race_position: F32,
    /// 40: KERS level.
    pub kers_level: F32,
    /// 41: KERS maximum.
    pub kers_max: F32,
    /// 42: DRS.
    pub drs: F32,
    /// 43: traction control.
    pub traction_control: F32,
    /// 44: ABS.
    pub abs: F32,
    /// 45: fuel in tank.
    pub fuel_in_tank: F32,
    /// 46: fuel capacity.
    pub fuel_capacity: F32,
    /// 47: in pits.
    pub in_pits: F32,
    /// 48: sector, 0-based.
    pub sector: F32,
    /// 49: sector 1 time, s.
    pub sector1_time: F32,
    /// 50: sector 2 time, s.
    pub sector2_time: F32,
    /// 51..=54: brake temperature RL RR FL FR, degC.
    pub brake_temperature: [F32; 4],
    /// 55..=58: tyre pressure RL RR FL FR, psi.
    pub tyre_pressure: [F32; 4],
    /// 59: laps completed.
    pub laps_completed: F32,
    /// 60: total laps.
    pub total_laps: F32,
    /// 61: track length, m.
    pub track_length: F32,
    /// 62: last lap time, s.
    pub last_lap_time: F32,
    /// 63: max rpm / 10.
    pub max_rpm: F32,
    /// 64: idle rpm / 10.
    pub idle_rpm: F32,
    /// 65: number of forward gears.
    pub max_gears: F32,
}
const _: () = assert!(core::mem::size_of::<CodemastersPacket>() == CODEMASTERS_LEN);

/// A world vector of ours (z up) in Codemasters' world axes (y up).
pub fn to_codemasters_axes(v: [f64; 3]) -> [F32; 3] {
    [f32_of(v[0]), f32_of(v[2]), f32_of(v[1])]
}

/// Encodes `frame` as the 264-byte extradata=3 packet.
pub fn encode(frame: &Frame) -> CodemastersPacket {
    let car = &frame.car;
    let c = &car.controls;
    let dt = &car.drivetrain;
    let lap = &car.lap;
    let per_wheel = |f: &dyn Fn(&rig_types::WheelTelemetry) -> f64| {
        CODEMASTERS_WHEEL_ORDER.map(|i| f32_of(f(&car.wheels[i])))
    };
    CodemastersPacket {
        total_time: f32_of(car.time_s),
        lap_time: f32_of(lap.current_lap_s),
        lap_distance: f32_of(lap.distance_m),
        total_distance: f32_of(total_distance_m(car)),
        position: to_codemasters_axes(car.position_m),
        speed: f32_of(car.speed_mps),
        velocity: to_codemasters_axes(car.velocity_world_mps),
        left_vector: to_codemasters_axes(body_to_world(car, [0.0, 1.0, 0.0])),
        forward_vector: to_codemasters_axes(body_to_world(car, [1.0, 0.0, 0.0])),
        suspension_position: per_wheel(&|w| w.suspension_travel_m * 1000.0),
        suspension_velocity: per_wheel(&|w| w.suspension_velocity_mps * 1000.0),
        wheel_patch_speed: per_wheel(&|w| w.angular_velocity_radps * w.radius_m),
        throttle: f32_of(c.throttle),
        steer: f32_of(-c.steering),
        brake: f32_of(c.brake),
        clutch: f32_of(c.clutch),
        gear: f32_of(f64::from(dt.gear)),
        g_force_lateral: f32_of(car.acceleration_body_mps2[1] / STANDARD_GRAVITY_MPS2),
        g_force_longitudinal: f32_of(car.acceleration_body_mps2[0] / STANDARD_GRAVITY_MPS2),
        current_lap: f32_of(f64::from(lap.laps_completed)),
        engine_rate: f32_of(dt.engine_rpm / 10.0),
        sli_pro_support: F32::new(0.0),
        race_position: F32::new(0.0),
        kers_level: F32::new(0.0),
        kers_max: F32::new(0.0),
        drs: F32::new(0.0),
        traction_control: F32::new(0.0),
        abs: F32::new(0.0),
        fuel_in_tank: F32::new(1.0),
        fuel_capacity: F32::new(1.0),
        in_pits: F32::new(0.0),
        sector: f32_of(f64::from(lap.sector)),
        sector1_time: f32_of(lap.sector_times_s[0]),
        sector2_time: f32_of(lap.sector_times_s[1]),
        brake_temperature: [F32::new(0.0); 4],
        tyre_pressure: per_wheel(&|w| w.pressure_kpa / KPA_PER_PSI),
        laps_completed: f32_of(f64::from(lap.laps_completed)),
        total_laps: F32::new(0.0),
        track_length: f32_of(lap.track_length_m),
        last_lap_time: f32_of(lap.last_lap_s),
        max_rpm: f32_of(dt.max_rpm / 10.0),
        idle_rpm: f32_of(dt.idle_rpm / 10.0),
        max_gears: f32_of(f64::from(dt.forward_gears)),
    }
}

/// The gear float DiRT Rally sends for reverse (DiRT Rally 2.0 and rigd send -1).
pub const DIRT_RALLY_REVERSE_GEAR: f32 = 10.0;

/// A gear float in our convention (-1 R, 0 N, 1..): -1 and DiRT Rally's 10 are reverse, other
/// values are rounded and kept in -1 ..= 9 (no car of these games has ten forward gears).
pub fn gear_from_codemasters(gear: f32) -> i8 {
    let gear = gear.round();
    if gear == DIRT_RALLY_REVERSE_GEAR {
        return -1;
    }
    // NaN saturates to 0 (neutral) in the cast.
    gear.clamp(-1.0, 9.0) as i8
}

/// Decodes a 264-byte extradata=3 packet.
pub fn decode(bytes: &[u8]) -> Result<CodemastersPacket, DecodeError> {
    CodemastersPacket::read_from_bytes(bytes)
        .map_err(|_| DecodeError::size("Codemasters extradata=3", CODEMASTERS_LEN, bytes.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reverse_is_minus_one_or_dirt_rallys_ten() {
        assert_eq!(gear_from_codemasters(10.0), -1, "DiRT Rally reverse");
        assert_eq!(gear_from_codemasters(-1.0), -1, "DiRT Rally 2.0 reverse");
        assert_eq!(gear_from_codemasters(0.0), 0);
        assert_eq!(gear_from_codemasters(1.0), 1);
        assert_eq!(gear_from_codemasters(6.0), 6);
        assert_eq!(gear_from_codemasters(-7.0), -1);
        assert_eq!(gear_from_codemasters(f32::NAN), 0);
    }
}
