//! F1 24/25 as an output format: rigd's [`Frame`] written as the packets F1 dashboard apps
//! read (Motion, Motion Ex, Car Telemetry, Car Status, Lap Data, Session), exact sizes per
//! year, the player's car at index 0 and the other 21 cars zeroed.
//!
//! Header: `m_sessionUID` [`SESSION_UID`], `m_sessionTime` the frame's simulation time,
//! both frame identifiers the frame's tick sequence (so the packets of one frame share it),
//! game version 1.00, packet version 1, no secondary player (255).
//! Tyres: surface temperature, inner (carcass) temperature and pressure from rigd's tyre
//! model. Neutral values for what rigd does not model: brake and engine temperatures, DRS, ERS, assists, penalties, pit data, suspension acceleration, angular
//! acceleration, aero heights, camber: 0; fuel in tank and capacity: 1 (a full tank); race
//! and grid position 1; driver status "on track", result status "active"; track id -1
//! (unknown); the MFD closed (255). Rev lights light 15 LEDs from idle to the limiter.
//! Never allocates; non-finite values are written as 0 and integers saturate.

use rig_types::{Frame, SurfaceKind};

use super::layout as at;
use super::{
    F1Packet, F1Year, DIRECTION_SCALE, F1_WHEEL_ORDER, HEADER_LEN, KPA_PER_PSI, MPS_PER_KPH,
};
use crate::game::y_up::{body_rate_to_local, body_to_local, world_to_z_up};
use crate::telemetry::convert::{
    body_to_world, engine_power_w, finite_or_zero, front_steer_rad, total_distance_m,
    STANDARD_GRAVITY_MPS2,
};
use crate::telemetry::EncodeError;

/// `m_sessionUID` of rigd's packets ("rigd" in ASCII).
pub const SESSION_UID: u64 = 0x7269_6764;
/// LEDs of the rev-light bar (`m_revLightsBitValue` bit 0 ..= 14).
const REV_LIGHT_LEDS: f64 = 15.0;
/// Lap Data `m_driverStatus`: on track.
const DRIVER_STATUS_ON_TRACK: u8 = 4;
/// Lap Data `m_resultStatus`: active.
const RESULT_STATUS_ACTIVE: u8 = 2;
/// "Not set" for car indexes and lap numbers.
const NOT_SET: u8 = 255;

/// Little-endian writes; values that do not fit saturate, non-finite floats become 0.
struct Out<'a>(&'a mut [u8]);

impl Out<'_> {
    fn bytes(&mut self, at: usize, value: &[u8]) {
        if let Some(slot) = self.0.get_mut(at..at + value.len()) {
            slot.copy_from_slice(value);
        }
    }
    fn u8(&mut self, at: usize, value: u8) {
        self.bytes(at, &[value]);
    }
    fn u8_of(&mut self, at: usize, value: f64) {
        self.u8(at, finite_or_zero(value).round().clamp(0.0, 255.0) as u8);
    }
    fn i8(&mut self, at: usize, value: i8) {
        self.bytes(at, &value.to_le_bytes());
    }
    fn u16(&mut self, at: usize, value: u16) {
        self.bytes(at, &value.to_le_bytes());
    }
    fn u16_of(&mut self, at: usize, value: f64) {
        self.u16(at, finite_or_zero(value).round().clamp(0.0, 65535.0) as u16);
    }
    fn i16_of(&mut self, at: usize, value: f64) {
        let v = finite_or_zero(value).round().clamp(-32767.0, 32767.0) as i16;
        self.bytes(at, &v.to_le_bytes());
    }
    fn u32(&mut self, at: usize, value: u32) {
        self.bytes(at, &value.to_le_bytes());
    }
    fn u32_of(&mut self, at: usize, value: f64) {
        self.u32(
            at,
            finite_or_zero(value).round().clamp(0.0, 4.294_967_295e9) as u32,
        );
    }
    fn f32(&mut self, at: usize, value: f64) {
        self.bytes(at, &(finite_or_zero(value) as f32).to_le_bytes());
    }
    fn f32x3(&mut self, at: usize, v: [f64; 3]) {
        for (k, c) in v.iter().enumerate() {
            self.f32(at + 4 * k, *c);
        }
    }
    /// Four per-wheel values of rigd (FL, FR, RL, RR) in F1's order (RL, RR, FL, FR).
    fn wheels(&mut self, at: usize, value: impl Fn(usize) -> f64) {
        for (k, wheel) in F1_WHEEL_ORDER.iter().enumerate() {
            self.f32(at + 4 * k, value(*wheel));
        }
    }
}

/// Writes `packet` of `year` for `frame` into the start of `out`; returns its length.
pub fn encode(
    year: F1Year,
    packet: F1Packet,
    frame: &Frame,
    out: &mut [u8],
) -> Result<usize, EncodeError> {
    let len = packet.len(year);
    let available = out.len();
    let Some(out) = out.get_mut(..len) else {
        return Err(EncodeError::BufferTooSmall {
            needed: len,
            available,
        });
    };
    out.fill(0);
    let mut w = Out(out);
    write_header(&mut w, year, packet, frame);
    match packet {
        F1Packet::Motion => write_motion(&mut w, frame),
        F1Packet::MotionEx => write_motion_ex(&mut w, frame),
        F1Packet::CarTelemetry => write_car_telemetry(&mut w, frame),
        F1Packet::CarStatus => write_car_status(&mut w, frame),
        F1Packet::LapData => write_lap_data(&mut w, frame),
        F1Packet::Session => write_session(&mut w, frame),
    }
    Ok(len)
}

fn write_header(w: &mut Out, year: F1Year, packet: F1Packet, frame: &Frame) {
    w.u16(at::PACKET_FORMAT, year.packet_format());
    w.u8(at::GAME_YEAR, year.game_year());
    w.u8(at::MAJOR_VERSION, 1);
    w.u8(at::PACKET_VERSION, 1);
    w.u8(at::PACKET_ID, packet.id());
    w.bytes(at::SESSION_UID, &SESSION_UID.to_le_bytes());
    w.f32(at::SESSION_TIME, frame.car.time_s);
    w.u32(at::FRAME_ID, frame.sequence);
    w.u32(at::OVERALL_FRAME_ID, frame.sequence);
    w.u8(at::PLAYER_CAR, 0);
    w.u8(at::SECONDARY_PLAYER_CAR, NOT_SET);
}

fn write_motion(w: &mut Out, frame: &Frame) {
    let car = &frame.car;
    let base = HEADER_LEN;
    w.f32x3(base + at::MOTION_POSITION, world_to_z_up(car.position_m));
    w.f32x3(
        base + at::MOTION_VELOCITY,
        world_to_z_up(car.velocity_world_mps),
    );
    let forward = world_to_z_up(body_to_world(car, [1.0, 0.0, 0.0]));
    let right = world_to_z_up(body_to_world(car, [0.0, -1.0, 0.0]));
    for k in 0..3 {
        w.i16_of(
            base + at::MOTION_FORWARD + 2 * k,
            forward[k] * DIRECTION_SCALE,
        );
        w.i16_of(base + at::MOTION_RIGHT + 2 * k, right[k] * DIRECTION_SCALE);
    }
    let g = body_to_local(
        car.specific_force_body_mps2
            .map(|a| a / STANDARD_GRAVITY_MPS2),
    );
    w.f32(base + at::MOTION_G_LATERAL, g[0]);
    w.f32(base + at::MOTION_G_VERTICAL, g[1]);
    w.f32(base + at::MOTION_G_LONGITUDINAL, g[2]);
    let [roll, pitch, yaw] = car.roll_pitch_yaw_rad;
    w.f32(base + at::MOTION_YAW, -yaw);
    w.f32(base + at::MOTION_PITCH, pitch);
    w.f32(base + at::MOTION_ROLL, -roll);
}

fn write_motion_ex(w: &mut Out, frame: &Frame) {
    let car = &frame.car;
    let wheel = |i: usize| &car.wheels[i];
    w.wheels(at::EX_SUSPENSION_POSITION, |i| {
        wheel(i).suspension_travel_m * 1000.0
    });
    w.wheels(at::EX_SUSPENSION_VELOCITY, |i| {
        wheel(i).suspension_velocity_mps * 1000.0
    });
    w.wheels(at::EX_WHEEL_SPEED, |i| {
        wheel(i).angular_velocity_radps * wheel(i).radius_m
    });
    w.wheels(at::EX_SLIP_RATIO, |i| wheel(i).slip_ratio);
    w.wheels(at::EX_SLIP_ANGLE, |i| -wheel(i).slip_angle_rad);
    w.wheels(at::EX_LAT_FORCE, |i| -wheel(i).force_lat_n);
    w.wheels(at::EX_LONG_FORCE, |i| wheel(i).force_long_n);
    w.f32x3(at::EX_LOCAL_VELOCITY, body_to_local(car.velocity_body_mps));
    w.f32x3(
        at::EX_ANGULAR_VELOCITY,
        body_rate_to_local(car.angular_velocity_body_radps),
    );
    w.f32(at::EX_FRONT_WHEELS_ANGLE, -front_steer_rad(car));
    w.wheels(at::EX_VERTICAL_FORCE, |i| wheel(i).load_n);
}

/// F1's `m_surfaceType` for rigd's surface.
fn surface_code(surface: SurfaceKind) -> u8 {
    match surface {
        SurfaceKind::Asphalt | SurfaceKind::Wet => 0,
        SurfaceKind::Kerb => 1,
        SurfaceKind::Gravel => 4,
        SurfaceKind::Grass => 7,
    }
}

fn write_car_telemetry(w: &mut Out, frame: &Frame) {
    let car = &frame.car;
    let c = &car.controls;
    let dt = &car.drivetrain;
    let base = HEADER_LEN;
    w.u16_of(base + at::TELEMETRY_SPEED_KPH, car.speed_mps / MPS_PER_KPH);
    w.f32(base + at::TELEMETRY_THROTTLE, c.throttle);
    w.f32(base + at::TELEMETRY_STEER, -c.steering);
    w.f32(base + at::TELEMETRY_BRAKE, c.brake);
    w.u8_of(base + at::TELEMETRY_CLUTCH, c.clutch * 100.0);
    w.i8(base + at::TELEMETRY_GEAR, dt.gear);
    w.u16_of(base + at::TELEMETRY_RPM, dt.engine_rpm);
    let span = dt.max_rpm - dt.idle_rpm;
    let lit = if span > 0.0 {
        finite_or_zero((dt.engine_rpm - dt.idle_rpm) / span).clamp(0.0, 1.0)
    } else {
        0.0
    };
    w.u8_of(base + at::TELEMETRY_REV_LIGHTS_PERCENT, lit * 100.0);
    let leds = (lit * REV_LIGHT_LEDS).round() as u32;
    w.u16(
        base + at::TELEMETRY_REV_LIGHTS_BITS,
        ((1u32 << leds) - 1) as u16,
    );
    for (k, wheel) in F1_WHEEL_ORDER.iter().enumerate() {
        let tyre = &car.wheels[*wheel];
        w.u8_of(
            base + at::TELEMETRY_TYRE_SURFACE_TEMP + k,
            tyre.temperature_c,
        );
        w.u8_of(
            base + at::TELEMETRY_TYRE_INNER_TEMP + k,
            tyre.carcass_temperature_c,
        );
        w.u8(
            base + at::TELEMETRY_SURFACE_TYPE + k,
            surface_code(tyre.surface),
        );
    }
    w.wheels(base + at::TELEMETRY_TYRE_PRESSURE, |i| {
        car.wheels[i].pressure_kpa / KPA_PER_PSI
    });
    w.u8(at::TELEMETRY_MFD_PANEL, NOT_SET);
    w.u8(at::TELEMETRY_MFD_PANEL + 1, NOT_SET);
}

fn write_car_status(w: &mut Out, frame: &Frame) {
    let car = &frame.car;
    let dt = &car.drivetrain;
    let base = HEADER_LEN;
    w.f32(base + at::STATUS_FUEL_IN_TANK, 1.0);
    w.f32(base + at::STATUS_FUEL_CAPACITY, 1.0);
    w.u16_of(base + at::STATUS_MAX_RPM, dt.max_rpm);
    w.u16_of(base + at::STATUS_IDLE_RPM, dt.idle_rpm);
    w.u8(base + at::STATUS_MAX_GEARS, dt.forward_gears);
    w.f32(base + at::STATUS_ENGINE_POWER_ICE, engine_power_w(car));
}

/// A sector time as F1's milliseconds part (0 ..= 59 999) and whole minutes.
fn minutes_and_ms(time_s: f64) -> (u8, u16) {
    let ms = (finite_or_zero(time_s).max(0.0) * 1000.0).round() as u64;
    ((ms / 60_000).min(255) as u8, (ms % 60_000) as u16)
}

fn write_lap_data(w: &mut Out, frame: &Frame) {
    let lap = &frame.car.lap;
    let base = HEADER_LEN;
    w.u32_of(base + at::LAP_LAST_MS, lap.last_lap_s * 1000.0);
    w.u32_of(base + at::LAP_CURRENT_MS, lap.current_lap_s * 1000.0);
    let (minutes, ms) = minutes_and_ms(lap.sector_times_s[0]);
    w.u16(base + at::LAP_SECTOR1_MS, ms);
    w.u8(base + at::LAP_SECTOR1_MIN, minutes);
    let (minutes, ms) = minutes_and_ms(lap.sector_times_s[1]);
    w.u16(base + at::LAP_SECTOR2_MS, ms);
    w.u8(base + at::LAP_SECTOR2_MIN, minutes);
    w.f32(base + at::LAP_DISTANCE, lap.distance_m);
    w.f32(base + at::LAP_TOTAL_DISTANCE, total_distance_m(&frame.car));
    w.u8(base + at::LAP_CAR_POSITION, 1);
    w.u8_of(
        base + at::LAP_CURRENT_LAP_NUM,
        f64::from(lap.laps_completed) + 1.0,
    );
    w.u8(base + at::LAP_SECTOR, lap.sector.min(2));
    w.u8(base + at::LAP_GRID_POSITION, 1);
    w.u8(base + at::LAP_DRIVER_STATUS, DRIVER_STATUS_ON_TRACK);
    w.u8(base + at::LAP_RESULT_STATUS, RESULT_STATUS_ACTIVE);
    w.u8(base + at::LAP_SPEED_TRAP_LAP, NOT_SET);
    w.u8(at::LAP_TIME_TRIAL_PB_CAR, NOT_SET);
    w.u8(at::LAP_TIME_TRIAL_PB_CAR + 1, NOT_SET);
}

fn write_session(w: &mut Out, frame: &Frame) {
    w.u16_of(at::SESSION_TRACK_LENGTH, frame.car.lap.track_length_m);
    w.i8(at::SESSION_TRACK_ID, -1);
    w.u8(at::SESSION_GAME_PAUSED, 0);
    w.u8(at::SESSION_IS_SPECTATING, 0);
    w.u8(at::SESSION_SPECTATOR_CAR, NOT_SET);
}
