//! Reading F1 24/25 datagrams into [`GameSample`]s: the header check and one reader per
//! packet type rigd uses (the player's car only). Pure, allocation-free; every float is
//! checked finite (a non-finite field becomes `None`), every index bounds-checked.

use super::layout as at;
use super::packet_len;
use super::{
    F1Packet, F1Year, DIRECTION_SCALE, F1_TYRE_RADIUS_M, F1_WHEEL_ORDER, HEADER_LEN, KPA_PER_PSI,
    MAX_CARS, MPS_PER_KPH, PACKET_ID_COUNT,
};
use crate::game::y_up::{local_rate_to_body, local_to_body, world_to_z_up, BodyAxes};
use crate::game::{GameDecodeError, GameSample};
use crate::telemetry::convert::STANDARD_GRAVITY_MPS2;

/// Little-endian field reads that never panic (out of range reads as zero; lengths are
/// checked before any read, so that never happens in practice).
#[derive(Clone, Copy)]
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn array<const N: usize>(self, at: usize) -> [u8; N] {
        self.0
            .get(at..at + N)
            .and_then(|s| s.try_into().ok())
            .unwrap_or([0; N])
    }
    fn u8(self, at: usize) -> u8 {
        self.0.get(at).copied().unwrap_or(0)
    }
    fn i8(self, at: usize) -> i8 {
        i8::from_le_bytes(self.array(at))
    }
    fn u16(self, at: usize) -> u16 {
        u16::from_le_bytes(self.array(at))
    }
    fn i16(self, at: usize) -> i16 {
        i16::from_le_bytes(self.array(at))
    }
    fn u32(self, at: usize) -> u32 {
        u32::from_le_bytes(self.array(at))
    }
    /// An f32 field, `None` when not finite.
    fn f32(self, at: usize) -> Option<f64> {
        let x = f64::from(f32::from_le_bytes(self.array(at)));
        x.is_finite().then_some(x)
    }
    fn f32x3(self, at: usize) -> Option<[f64; 3]> {
        Some([self.f32(at)?, self.f32(at + 4)?, self.f32(at + 8)?])
    }
    /// Four f32 in F1's wheel order, in rigd's order.
    fn wheels(self, at: usize) -> [Option<f64>; 4] {
        let mut out = [None; 4];
        for (k, wheel) in F1_WHEEL_ORDER.iter().enumerate() {
            out[*wheel] = self.f32(at + 4 * k);
        }
        out
    }
}

/// What the header says.
struct Header {
    year: F1Year,
    packet_id: u8,
    session_time_s: Option<f64>,
    player: usize,
}

fn read_header(bytes: &[u8]) -> Option<Header> {
    if bytes.len() < HEADER_LEN {
        return None;
    }
    let b = Bytes(bytes);
    let year = F1Year::from_packet_format(b.u16(at::PACKET_FORMAT))?;
    let packet_id = b.u8(at::PACKET_ID);
    (packet_id < PACKET_ID_COUNT).then_some(Header {
        year,
        packet_id,
        session_time_s: b.f32(at::SESSION_TIME),
        player: usize::from(b.u8(at::PLAYER_CAR)),
    })
}

/// True when `bytes` has F1 24/25's header and exactly the size its year's specification
/// gives its packet id (for auto-detection: no other game's packet passes this).
pub fn matches(bytes: &[u8]) -> bool {
    read_header(bytes).is_some_and(|h| packet_len(h.year, h.packet_id) == Some(bytes.len()))
}

/// Decodes one F1 24/25 datagram (Motion, Motion Ex, Car Telemetry, Car Status, Lap Data,
/// Session); another valid packet type is [`GameDecodeError::Ignored`].
pub fn decode(bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    let header = read_header(bytes).ok_or(GameDecodeError::Unrecognised { len: bytes.len() })?;
    let stream = header.year.stream();
    let invalid = |reason| GameDecodeError::Invalid { stream, reason };
    if packet_len(header.year, header.packet_id) != Some(bytes.len()) {
        return Err(invalid(
            "its size is not the size of its packet id in this year's specification (is the \
             game's UDP Format set to the year rigd reads?)",
        ));
    }
    let Some(packet) = F1Packet::from_id(header.packet_id) else {
        return Err(GameDecodeError::Ignored {
            stream,
            packet_id: header.packet_id,
        });
    };
    if header.player >= MAX_CARS {
        return Err(invalid("m_playerCarIndex is beyond the 22 cars"));
    }
    let mut sample = GameSample::empty(stream);
    sample.game_time_s = header.session_time_s;
    let b = Bytes(bytes);
    match packet {
        F1Packet::Motion => read_motion(b, header.player, &mut sample),
        F1Packet::MotionEx => read_motion_ex(b, &mut sample),
        F1Packet::CarTelemetry => read_car_telemetry(b, header.player, &mut sample),
        F1Packet::CarStatus => read_car_status(b, header.player, &mut sample),
        F1Packet::LapData => read_lap_data(b, header.player, &mut sample),
        F1Packet::Session => {
            let paused = b.u8(at::SESSION_GAME_PAUSED) != 0;
            let spectating = b.u8(at::SESSION_IS_SPECTATING) != 0;
            sample.driving = Some(!paused && !spectating);
        }
    }
    Ok(sample)
}

fn read_motion(b: Bytes, player: usize, sample: &mut GameSample) {
    let car = HEADER_LEN + player * at::MOTION_STRIDE;
    let motion = &mut sample.motion;
    motion.position_m = b.f32x3(car + at::MOTION_POSITION).map(world_to_z_up);
    let velocity = b.f32x3(car + at::MOTION_VELOCITY).map(world_to_z_up);
    motion.velocity_world_mps = velocity;
    let direction = |off: usize| {
        world_to_z_up([0, 2, 4].map(|k| f64::from(b.i16(car + off + k)) / DIRECTION_SCALE))
    };
    let Some(axes) =
        BodyAxes::from_forward_right(direction(at::MOTION_FORWARD), direction(at::MOTION_RIGHT))
    else {
        return;
    };
    motion.roll_pitch_yaw_rad = Some(axes.roll_pitch_yaw());
    motion.velocity_body_mps = velocity.map(|v| axes.world_to_body(v));
    // Specific force in the car frame (X right, Y up, Z forward), then gravity added back
    // to get the kinematic acceleration rigd's sample holds.
    let g_forces = (|| {
        Some([
            b.f32(car + at::MOTION_G_LATERAL)?,
            b.f32(car + at::MOTION_G_VERTICAL)?,
            b.f32(car + at::MOTION_G_LONGITUDINAL)?,
        ])
    })();
    motion.acceleration_body_mps2 = g_forces.map(|g| {
        let specific = local_to_body(g.map(|c| c * STANDARD_GRAVITY_MPS2));
        let gravity = axes.world_to_body([0.0, 0.0, -STANDARD_GRAVITY_MPS2]);
        [0, 1, 2].map(|k| specific[k] + gravity[k])
    });
}

fn read_motion_ex(b: Bytes, sample: &mut GameSample) {
    let motion = &mut sample.motion;
    motion.velocity_body_mps = b.f32x3(at::EX_LOCAL_VELOCITY).map(local_to_body);
    motion.angular_velocity_body_radps = b.f32x3(at::EX_ANGULAR_VELOCITY).map(local_rate_to_body);
    let travel = b.wheels(at::EX_SUSPENSION_POSITION);
    let travel_rate = b.wheels(at::EX_SUSPENSION_VELOCITY);
    let speed = b.wheels(at::EX_WHEEL_SPEED);
    let slip_ratio = b.wheels(at::EX_SLIP_RATIO);
    let slip_angle = b.wheels(at::EX_SLIP_ANGLE);
    let load = b.wheels(at::EX_VERTICAL_FORCE);
    for (i, wheel) in sample.wheels.iter_mut().enumerate() {
        wheel.suspension_travel_m = travel[i].map(|mm| mm / 1000.0);
        wheel.suspension_velocity_mps = travel_rate[i].map(|mm| mm / 1000.0);
        wheel.angular_velocity_radps = speed[i].map(|v| v / F1_TYRE_RADIUS_M);
        wheel.slip_ratio = slip_ratio[i];
        wheel.slip_angle_rad = slip_angle[i].map(|a| -a);
        wheel.load_n = load[i];
    }
}

fn read_car_telemetry(b: Bytes, player: usize, sample: &mut GameSample) {
    let car = HEADER_LEN + player * at::TELEMETRY_STRIDE;
    let out = &mut sample.car;
    out.speed_mps = Some(f64::from(b.u16(car + at::TELEMETRY_SPEED_KPH)) * MPS_PER_KPH);
    out.throttle = b.f32(car + at::TELEMETRY_THROTTLE);
    out.steer = b.f32(car + at::TELEMETRY_STEER).map(|s| -s);
    out.brake = b.f32(car + at::TELEMETRY_BRAKE);
    out.clutch = Some(f64::from(b.u8(car + at::TELEMETRY_CLUTCH)) / 100.0);
    out.gear = Some(b.i8(car + at::TELEMETRY_GEAR).clamp(-1, 9));
    out.engine_rpm = Some(f64::from(b.u16(car + at::TELEMETRY_RPM)));
    let pressure = b.wheels(car + at::TELEMETRY_TYRE_PRESSURE);
    for (k, wheel) in F1_WHEEL_ORDER.iter().enumerate() {
        let temperature = b.u8(car + at::TELEMETRY_TYRE_SURFACE_TEMP + k);
        sample.wheels[*wheel].temperature_c = Some(f64::from(temperature));
        sample.wheels[*wheel].pressure_kpa = pressure[*wheel].map(|psi| psi * KPA_PER_PSI);
    }
}

fn read_car_status(b: Bytes, player: usize, sample: &mut GameSample) {
    let car = HEADER_LEN + player * at::STATUS_STRIDE;
    let out = &mut sample.car;
    out.max_rpm = Some(f64::from(b.u16(car + at::STATUS_MAX_RPM)));
    out.idle_rpm = Some(f64::from(b.u16(car + at::STATUS_IDLE_RPM)));
    out.forward_gears = Some(b.u8(car + at::STATUS_MAX_GEARS));
    let fuel = b.f32(car + at::STATUS_FUEL_IN_TANK);
    let capacity = b.f32(car + at::STATUS_FUEL_CAPACITY).filter(|c| *c > 0.0);
    out.fuel_fraction = fuel
        .zip(capacity)
        .map(|(f, c)| f / c)
        .filter(|x| x.is_finite());
}

fn read_lap_data(b: Bytes, player: usize, sample: &mut GameSample) {
    let car = HEADER_LEN + player * at::LAP_STRIDE;
    let out = &mut sample.car;
    out.last_lap_s = Some(f64::from(b.u32(car + at::LAP_LAST_MS)) / 1000.0);
    out.current_lap_s = Some(f64::from(b.u32(car + at::LAP_CURRENT_MS)) / 1000.0);
    out.lap_distance_m = b.f32(car + at::LAP_DISTANCE);
    let position = b.u8(car + at::LAP_CAR_POSITION);
    out.race_position = (position > 0).then_some(u32::from(position));
    // `m_currentLapNum` counts from 1 on the first lap.
    out.laps_completed = Some(u32::from(
        b.u8(car + at::LAP_CURRENT_LAP_NUM).saturating_sub(1),
    ));
}
