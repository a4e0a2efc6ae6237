//! The native rigd packet: every channel of a [`Frame`] in one little-endian datagram, so the
//! dashboard (and any tool) sees exactly what the simulation produced. Byte-by-byte layout:
//! `docs/telemetry-native.md`; the structs below are that table.
//!
//! Invariants: magic `RIGD`, [`NATIVE_VERSION`] bumps on any layout change (receivers reject
//! other versions, and fields are appended in a new version, never moved), the header states the packet length, continuous values are f64 in the
//! frame's own SI units and axes (nothing is converted), so `decode(encode(frame))` gives the
//! frame back bit for bit. Booleans are packed into flag bytes; enums are u8 codes.

use zerocopy::little_endian::{F64, U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

use crate::telemetry::DecodeError;
use rig_types::{
    CarTelemetry, Controls, DamageTelemetry, DiffTelemetry, DrivetrainTelemetry, FfbHold,
    FfbStatus, Frame, GearRequest, LapTelemetry, LoopHealth, MotionHoldTelemetry, ShiftRefusal,
    SurfaceKind, WheelTelemetry,
};

/// The four bytes every native packet starts with.
pub const NATIVE_MAGIC: [u8; 4] = *b"RIGD";
/// Layout version; receivers reject any other.
pub const NATIVE_VERSION: u16 = 3;
/// Size of a native packet.
pub const NATIVE_LEN: usize = core::mem::size_of::<NativePacket>();

/// Header (22 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeHeader {
    /// `RIGD`.
    pub magic: [u8; 4],
    /// [`NATIVE_VERSION`].
    pub version: U16,
    /// Total packet length, bytes.
    pub length: U16,
    /// Tick sequence number.
    pub sequence: U32,
    /// Car index (0 = player).
    pub car_index: U16,
    /// Simulation time, s.
    pub time_s: F64,
}
const _: () = assert!(core::mem::size_of::<NativeHeader>() == 22);

/// Pose, velocities and accelerations (26 f64, 208 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeMotion {
    /// World position, m.
    pub position_m: [F64; 3],
    /// Orientation quaternion w, x, y, z.
    pub orientation: [F64; 4],
    /// Roll, pitch, yaw, rad.
    pub roll_pitch_yaw_rad: [F64; 3],
    /// World velocity, m/s.
    pub velocity_world_mps: [F64; 3],
    /// Body velocity, m/s.
    pub velocity_body_mps: [F64; 3],
    /// Body angular velocity, rad/s.
    pub angular_velocity_body_radps: [F64; 3],
    /// Body kinematic acceleration, m/s^2.
    pub acceleration_body_mps2: [F64; 3],
    /// Body specific force, m/s^2.
    pub specific_force_body_mps2: [F64; 3],
    /// Speed over ground, m/s.
    pub speed_mps: F64,
}
const _: () = assert!(core::mem::size_of::<NativeMotion>() == 208);

/// One wheel (14 f64 + 2 bytes = 114 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeWheel {
    /// Vertical load, N.
    pub load_n: F64,
    /// Slip ratio.
    pub slip_ratio: F64,
    /// Slip angle, rad.
    pub slip_angle_rad: F64,
    /// Longitudinal force, N.
    pub force_long_n: F64,
    /// Lateral force, N.
    pub force_lat_n: F64,
    /// Aligning moment, N m.
    pub aligning_moment_nm: F64,
    /// Spin rate, rad/s.
    pub angular_velocity_radps: F64,
    /// Rolling radius, m.
    pub radius_m: F64,
    /// Steer angle, rad.
    pub steer_angle_rad: F64,
    /// Suspension compression, m.
    pub suspension_travel_m: F64,
    /// Suspension velocity, m/s.
    pub suspension_velocity_mps: F64,
    /// Tyre tread surface temperature, degC.
    pub temperature_c: F64,
    /// Drive torque, N m.
    pub drive_torque_nm: F64,
    /// Brake torque, N m.
    pub brake_torque_nm: F64,
    /// Surface code ([`surface_code`]).
    pub surface: u8,
    /// 1 while in contact.
    pub in_contact: u8,
}
const _: () = assert!(core::mem::size_of::<NativeWheel>() == 114);

/// Engine and driveline (63 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeDrivetrain {
    /// Engine speed, rpm.
    pub engine_rpm: F64,
    /// Engine torque, N m.
    pub engine_torque_nm: F64,
    /// Rev limiter, rpm.
    pub max_rpm: F64,
    /// Idle, rpm.
    pub idle_rpm: F64,
    /// Gear: -1 R, 0 N, 1.. forward.
    pub gear: i8,
    /// Forward gears.
    pub forward_gears: u8,
    /// Bit 0 engine running, bit 1 clutch locked, bit 2 shifting.
    pub flags: u8,
    /// Transfer torque of the front, rear, centre differentials, N m.
    pub diff_transfer_torque_nm: [F64; 3],
    /// Per differential (front, rear, centre): bit 0 present, bit 1 locked.
    pub diff_flags: [u8; 3],
    /// Torque through the clutch, N m (negative on overrun).
    pub clutch_torque_nm: F64,
    /// Reason of the last refused gear change ([`shift_refusal_code`]).
    pub shift_refusal: u8,
    /// Refused gear changes so far (wrapping).
    pub shift_refusal_count: U32,
}
const _: () = assert!(core::mem::size_of::<NativeDrivetrain>() == 75);

/// Controls (5 f64 + 3 bytes = 43 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeControls {
    /// Steering -1..1, positive left.
    pub steering: F64,
    /// Throttle 0..1.
    pub throttle: F64,
    /// Brake 0..1.
    pub brake: F64,
    /// Clutch pedal 0..1.
    pub clutch: F64,
    /// Handbrake 0..1.
    pub handbrake: F64,
    /// 0 none, 1 up, 2 down, 3 select (gear in `gear_select`).
    pub gear_request: u8,
    /// Selected gear when `gear_request` is 3, else 0.
    pub gear_select: i8,
    /// Bit 0 ignition, bit 1 starter.
    pub flags: u8,
}
const _: () = assert!(core::mem::size_of::<NativeControls>() == 43);

/// Steering and force feedback (4 f64 + 1 byte = 33 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeSteering {
    /// Steering-wheel angle, rad, positive left.
    pub steering_wheel_angle_rad: F64,
    /// Rim torque, N m, positive pulls left.
    pub steering_torque_nm: F64,
    /// FFB output, -1..1 of the device maximum.
    pub ffb_output: F64,
    /// Share of recent ticks that clipped, 0..1.
    pub ffb_clipping_share: F64,
    /// Bit 0 FFB active, bit 1 clipping this tick, bits 2..=4 why the force is held
    /// ([`crate::FfbHold`] code, 0 = not held).
    pub ffb_flags: u8,
}
const _: () = assert!(core::mem::size_of::<NativeSteering>() == 33);

/// Lap and sector timing (12 f64 + 8 bytes = 104 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeLap {
    /// Distance along the centreline, m.
    pub distance_m: F64,
    /// Lateral offset, m, positive left.
    pub lateral_offset_m: F64,
    /// Lap length, m.
    pub track_length_m: F64,
    /// Current lap time, s.
    pub current_lap_s: F64,
    /// Last lap, s.
    pub last_lap_s: F64,
    /// Best lap, s.
    pub best_lap_s: F64,
    /// Sector times this lap, s.
    pub sector_times_s: [F64; 3],
    /// Best sector times, s.
    pub best_sector_times_s: [F64; 3],
    /// Completed laps.
    pub laps_completed: U32,
    /// Current sector, 0-based.
    pub sector: u8,
    /// Surface under the car ([`surface_code`]).
    pub surface: u8,
    /// Bit 0: barrier contact; broken parts: bit 1 front wing, bit 2 rear wing, bits 3-6
    /// suspension links FL FR RL RR, bit 7 steering rack.
    pub flags: u8,
}
const _: () = assert!(core::mem::size_of::<NativeLap>() == 103);

/// Loop health (10 x 8 bytes = 80 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeHealth {
    /// Ticks since start.
    pub ticks: U64,
    /// Measured tick rate, Hz.
    pub tick_rate_hz: F64,
    /// Wake latency p50, us.
    pub wake_latency_p50_us: F64,
    /// Wake latency p99, us.
    pub wake_latency_p99_us: F64,
    /// Wake latency max, us.
    pub wake_latency_max_us: F64,
    /// Tick work p99 (wake to end of tick: physics and stages), us.
    pub tick_work_p99_us: F64,
    /// Ticks more than 250 us late.
    pub late_ticks_250us: U64,
    /// Ticks more than 1 ms late.
    pub late_ticks_1ms: U64,
    /// Dropped simulation time, ms.
    pub dropped_time_ms: F64,
    /// Physics step p99 (one world step alone), us. Appended in version 2.
    pub physics_step_p99_us: F64,
}
const _: () = assert!(core::mem::size_of::<NativeHealth>() == 80);

/// The motion platforms' holds (5 bytes + 4 u32 = 21 bytes). Appended in version 3.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeMotionHolds {
    /// Motion platforms running (0: none).
    pub platforms: u8,
    /// Platforms holding now.
    pub held: u8,
    /// Safety state code of the reported platform ([`MotionHoldTelemetry::state`]).
    pub state: u8,
    /// Cause code of its hold in progress, 0 none ([`MotionHoldTelemetry::cause`]).
    pub cause: u8,
    /// Cause code of its latest hold, 0 never held.
    pub latest: u8,
    /// Holds since start, every platform and cause.
    pub holds: U32,
    /// Of them: loop faults.
    pub fault_holds: U32,
    /// Of them: e-stops.
    pub estop_holds: U32,
    /// Of them: stale data.
    pub stale_holds: U32,
}
const _: () = assert!(core::mem::size_of::<NativeMotionHolds>() == 21);

/// One tyre's condition beyond the surface temperature in [`NativeWheel`] (3 f64 = 24
/// bytes). Appended in version 3.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativeTyre {
    /// Carcass temperature, degC.
    pub carcass_temperature_c: F64,
    /// Inflation pressure (gauge), kPa.
    pub pressure_kpa: F64,
    /// Tread wear, 0 (new) to 1 (worn out).
    pub wear: F64,
}
const _: () = assert!(core::mem::size_of::<NativeTyre>() == 24);

/// The whole native packet.
#[derive(
    Debug, Clone, Copy, PartialEq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct NativePacket {
    /// Bytes 0..22.
    pub header: NativeHeader,
    /// Bytes 22..230.
    pub motion: NativeMotion,
    /// Bytes 230..686: FL, FR, RL, RR.
    pub wheels: [NativeWheel; 4],
    /// Bytes 686..761.
    pub drivetrain: NativeDrivetrain,
    /// Bytes 761..804.
    pub controls: NativeControls,
    /// Bytes 804..837.
    pub steering: NativeSteering,
    /// Bytes 837..940.
    pub lap: NativeLap,
    /// Bytes 940..1020.
    pub health: NativeHealth,
    /// Bytes 1020..1041 (version 3).
    pub motion_holds: NativeMotionHolds,
    /// Bytes 1041..1137: FL, FR, RL, RR (version 3).
    pub tyres: [NativeTyre; 4],
}
const _: () = assert!(core::mem::size_of::<NativePacket>() == 1137);

/// The u8 code of a surface: 0 asphalt, 1 kerb, 2 grass, 3 gravel, 4 wet.
pub fn surface_code(surface: SurfaceKind) -> u8 {
    surface as u8
}

/// The u8 code of a shift refusal: 0 none, 1 reverse too fast, 2 clutch required, 3 no such
/// gear, 4 one gear at a time, 5 shift in progress.
pub fn shift_refusal_code(refusal: ShiftRefusal) -> u8 {
    match refusal {
        ShiftRefusal::None => 0,
        ShiftRefusal::ReverseTooFast => 1,
        ShiftRefusal::ClutchRequired => 2,
        ShiftRefusal::NoSuchGear => 3,
        ShiftRefusal::OneGearAtATime => 4,
        ShiftRefusal::ShiftInProgress => 5,
    }
}

fn shift_refusal_from_code(code: u8) -> Result<ShiftRefusal, DecodeError> {
    Ok(match code {
        0 => ShiftRefusal::None,
        1 => ShiftRefusal::ReverseTooFast,
        2 => ShiftRefusal::ClutchRequired,
        3 => ShiftRefusal::NoSuchGear,
        4 => ShiftRefusal::OneGearAtATime,
        5 => ShiftRefusal::ShiftInProgress,
        other => return Err(DecodeError::invalid("rigd native", "shift_refusal", other)),
    })
}

fn surface_from_code(code: u8) -> Result<SurfaceKind, DecodeError> {
    Ok(match code {
        0 => SurfaceKind::Asphalt,
        1 => SurfaceKind::Kerb,
        2 => SurfaceKind::Grass,
        3 => SurfaceKind::Gravel,
        4 => SurfaceKind::Wet,
        other => return Err(DecodeError::invalid("rigd native", "surface", other)),
    })
}

fn f64s<const N: usize>(v: [f64; N]) -> [F64; N] {
    v.map(F64::new)
}

fn get<const N: usize>(v: [F64; N]) -> [f64; N] {
    v.map(F64::get)
}

fn bit(flags: u8, n: u8) -> bool {
    flags & (1 << n) != 0
}

fn encode_wheel(w: &WheelTelemetry) -> NativeWheel {
    NativeWheel {
        load_n: F64::new(w.load_n),
        slip_ratio: F64::new(w.slip_ratio),
        slip_angle_rad: F64::new(w.slip_angle_rad),
        force_long_n: F64::new(w.force_long_n),
        force_lat_n: F64::new(w.force_lat_n),
        aligning_moment_nm: F64::new(w.aligning_moment_nm),
        angular_velocity_radps: F64::new(w.angular_velocity_radps),
        radius_m: F64::new(w.radius_m),
        steer_angle_rad: F64::new(w.steer_angle_rad),
        suspension_travel_m: F64::new(w.suspension_travel_m),
        suspension_velocity_mps: F64::new(w.suspension_velocity_mps),
        temperature_c: F64::new(w.temperature_c),
        drive_torque_nm: F64::new(w.drive_torque_nm),
        brake_torque_nm: F64::new(w.brake_torque_nm),
        surface: surface_code(w.surface),
        in_contact: u8::from(w.in_contact),
    }
}

fn encode_drivetrain(d: &DrivetrainTelemetry) -> NativeDrivetrain {
    NativeDrivetrain {
        engine_rpm: F64::new(d.engine_rpm),
        engine_torque_nm: F64::new(d.engine_torque_nm),
        max_rpm: F64::new(d.max_rpm),
        idle_rpm: F64::new(d.idle_rpm),
        gear: d.gear,
        forward_gears: d.forward_gears,
        flags: u8::from(d.engine_running)
            | u8::from(d.clutch_locked) << 1
            | u8::from(d.shifting) << 2,
        diff_transfer_torque_nm: d.diffs.map(|x| F64::new(x.transfer_torque_nm)),
        diff_flags: d
            .diffs
            .map(|x| u8::from(x.present) | u8::from(x.locked) << 1),
        clutch_torque_nm: F64::new(d.clutch_torque_nm),
        shift_refusal: shift_refusal_code(d.shift_refusal),
        shift_refusal_count: U32::new(d.shift_refusal_count),
    }
}

fn encode_controls(c: &Controls) -> NativeControls {
    let (gear_request, gear_select) = match c.gear_request {
        GearRequest::None => (0, 0),
        GearRequest::Up => (1, 0),
        GearRequest::Down => (2, 0),
        GearRequest::Select(g) => (3, g),
    };
    NativeControls {
        steering: F64::new(c.steering),
        throttle: F64::new(c.throttle),
        brake: F64::new(c.brake),
        clutch: F64::new(c.clutch),
        handbrake: F64::new(c.handbrake),
        gear_request,
        gear_select,
        flags: u8::from(c.ignition) | u8::from(c.starter) << 1,
    }
}

fn encode_lap(car: &CarTelemetry) -> NativeLap {
    let l = &car.lap;
    NativeLap {
        distance_m: F64::new(l.distance_m),
        lateral_offset_m: F64::new(l.lateral_offset_m),
        track_length_m: F64::new(l.track_length_m),
        current_lap_s: F64::new(l.current_lap_s),
        last_lap_s: F64::new(l.last_lap_s),
        best_lap_s: F64::new(l.best_lap_s),
        sector_times_s: f64s(l.sector_times_s),
        best_sector_times_s: f64s(l.best_sector_times_s),
        laps_completed: U32::new(l.laps_completed),
        sector: l.sector,
        surface: surface_code(car.surface),
        flags: u8::from(car.barrier_contact)
            | u8::from(car.damage.front_wing) << 1
            | u8::from(car.damage.rear_wing) << 2
            | u8::from(car.damage.links[0]) << 3
            | u8::from(car.damage.links[1]) << 4
            | u8::from(car.damage.links[2]) << 5
            | u8::from(car.damage.links[3]) << 6
            | u8::from(car.damage.steering_rack) << 7,
    }
}

fn encode_health(h: &LoopHealth) -> NativeHealth {
    NativeHealth {
        ticks: U64::new(h.ticks),
        tick_rate_hz: F64::new(h.tick_rate_hz),
        wake_latency_p50_us: F64::new(h.wake_latency_p50_us),
        wake_latency_p99_us: F64::new(h.wake_latency_p99_us),
        wake_latency_max_us: F64::new(h.wake_latency_max_us),
        tick_work_p99_us: F64::new(h.tick_work_p99_us),
        late_ticks_250us: U64::new(h.late_ticks_250us),
        late_ticks_1ms: U64::new(h.late_ticks_1ms),
        dropped_time_ms: F64::new(h.dropped_time_ms),
        physics_step_p99_us: F64::new(h.physics_step_p99_us),
    }
}

/// Encodes every channel of `frame`.
pub fn encode(frame: &Frame) -> NativePacket {
    let car = &frame.car;
    NativePacket {
        header: NativeHeader {
            magic: NATIVE_MAGIC,
            version: U16::new(NATIVE_VERSION),
            length: U16::new(NATIVE_LEN as u16),
            sequence: U32::new(frame.sequence),
            car_index: U16::new(frame.car_index),
            time_s: F64::new(car.time_s),
        },
        motion: NativeMotion {
            position_m: f64s(car.position_m),
            orientation: f64s(car.orientation),
            roll_pitch_yaw_rad: f64s(car.roll_pitch_yaw_rad),
            velocity_world_mps: f64s(car.velocity_world_mps),
            velocity_body_mps: f64s(car.velocity_body_mps),
            angular_velocity_body_radps: f64s(car.angular_velocity_body_radps),
            acceleration_body_mps2: f64s(car.acceleration_body_mps2),
            specific_force_body_mps2: f64s(car.specific_force_body_mps2),
            speed_mps: F64::new(car.speed_mps),
        },
        wheels: car.wheels.map(|w| encode_wheel(&w)),
        drivetrain: encode_drivetrain(&car.drivetrain),
        controls: encode_controls(&car.controls),
        steering: NativeSteering {
            steering_wheel_angle_rad: F64::new(car.steering_wheel_angle_rad),
            steering_torque_nm: F64::new(car.steering_torque_nm),
            ffb_output: F64::new(frame.ffb.output),
            ffb_clipping_share: F64::new(frame.ffb.clipping_share),
            ffb_flags: u8::from(frame.ffb.active)
                | u8::from(frame.ffb.clipping) << 1
                | (frame.ffb.hold.code() & 0x07) << 2,
        },
        lap: encode_lap(car),
        health: encode_health(&frame.health),
        motion_holds: encode_motion_holds(&frame.motion),
        tyres: car.wheels.map(|w| NativeTyre {
            carcass_temperature_c: F64::new(w.carcass_temperature_c),
            pressure_kpa: F64::new(w.pressure_kpa),
            wear: F64::new(w.wear),
        }),
    }
}

fn encode_motion_holds(m: &MotionHoldTelemetry) -> NativeMotionHolds {
    NativeMotionHolds {
        platforms: m.platforms,
        held: m.held,
        state: m.state,
        cause: m.cause,
        latest: m.latest,
        holds: U32::new(m.holds),
        fault_holds: U32::new(m.fault_holds),
        estop_holds: U32::new(m.estop_holds),
        stale_holds: U32::new(m.stale_holds),
    }
}

/// Decodes a native packet, checking length, magic and version.
pub fn decode(bytes: &[u8]) -> Result<NativePacket, DecodeError> {
    if bytes.len() >= 4 && bytes[..4] != NATIVE_MAGIC {
        let mut found = [0; 4];
        found.copy_from_slice(&bytes[..4]);
        return Err(DecodeError::BadMagic {
            format: "rigd native",
            expected: NATIVE_MAGIC,
            found,
        });
    }
    if bytes.len() >= 6 {
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != NATIVE_VERSION {
            return Err(DecodeError::UnsupportedVersion {
                found: version,
                supported: NATIVE_VERSION,
            });
        }
    }
    let packet = NativePacket::read_from_bytes(bytes)
        .map_err(|_| DecodeError::size("rigd native", NATIVE_LEN, bytes.len()))?;
    if usize::from(packet.header.length.get()) != NATIVE_LEN {
        return Err(DecodeError::invalid(
            "rigd native",
            "length",
            packet.header.length.get(),
        ));
    }
    Ok(packet)
}

impl NativePacket {
    /// The frame this packet carries (the exact inverse of [`encode`]).
    pub fn to_frame(&self) -> Result<Frame, DecodeError> {
        let m = &self.motion;
        let d = &self.drivetrain;
        let c = &self.controls;
        let l = &self.lap;
        let h = &self.health;
        let s = &self.steering;
        let mut wheels = [WheelTelemetry::default(); 4];
        for ((out, w), t) in wheels.iter_mut().zip(&self.wheels).zip(&self.tyres) {
            *out = WheelTelemetry {
                load_n: w.load_n.get(),
                slip_ratio: w.slip_ratio.get(),
                slip_angle_rad: w.slip_angle_rad.get(),
                force_long_n: w.force_long_n.get(),
                force_lat_n: w.force_lat_n.get(),
                aligning_moment_nm: w.aligning_moment_nm.get(),
                angular_velocity_radps: w.angular_velocity_radps.get(),
                radius_m: w.radius_m.get(),
                steer_angle_rad: w.steer_angle_rad.get(),
                suspension_travel_m: w.suspension_travel_m.get(),
                suspension_velocity_mps: w.suspension_velocity_mps.get(),
                temperature_c: w.temperature_c.get(),
                carcass_temperature_c: t.carcass_temperature_c.get(),
                pressure_kpa: t.pressure_kpa.get(),
                wear: t.wear.get(),
                drive_torque_nm: w.drive_torque_nm.get(),
                brake_torque_nm: w.brake_torque_nm.get(),
                surface: surface_from_code(w.surface)?,
                in_contact: w.in_contact != 0,
            };
        }
        let mut diffs = [DiffTelemetry::default(); 3];
        for (i, diff) in diffs.iter_mut().enumerate() {
            *diff = DiffTelemetry {
                present: bit(d.diff_flags[i], 0),
                locked: bit(d.diff_flags[i], 1),
                transfer_torque_nm: d.diff_transfer_torque_nm[i].get(),
            };
        }
        let gear_request = match c.gear_request {
            0 => GearRequest::None,
            1 => GearRequest::Up,
            2 => GearRequest::Down,
            3 => GearRequest::Select(c.gear_select),
            other => return Err(DecodeError::invalid("rigd native", "gear_request", other)),
        };
        let car = CarTelemetry {
            time_s: self.header.time_s.get(),
            position_m: get(m.position_m),
            orientation: get(m.orientation),
            roll_pitch_yaw_rad: get(m.roll_pitch_yaw_rad),
            velocity_world_mps: get(m.velocity_world_mps),
            velocity_body_mps: get(m.velocity_body_mps),
            angular_velocity_body_radps: get(m.angular_velocity_body_radps),
            acceleration_body_mps2: get(m.acceleration_body_mps2),
            specific_force_body_mps2: get(m.specific_force_body_mps2),
            speed_mps: m.speed_mps.get(),
            wheels,
            steering_wheel_angle_rad: s.steering_wheel_angle_rad.get(),
            steering_torque_nm: s.steering_torque_nm.get(),
            controls: Controls {
                steering: c.steering.get(),
                throttle: c.throttle.get(),
                brake: c.brake.get(),
                clutch: c.clutch.get(),
                handbrake: c.handbrake.get(),
                gear_request,
                ignition: bit(c.flags, 0),
                starter: bit(c.flags, 1),
            },
            drivetrain: DrivetrainTelemetry {
                engine_rpm: d.engine_rpm.get(),
                engine_torque_nm: d.engine_torque_nm.get(),
                max_rpm: d.max_rpm.get(),
                idle_rpm: d.idle_rpm.get(),
                engine_running: bit(d.flags, 0),
                gear: d.gear,
                forward_gears: d.forward_gears,
                clutch_locked: bit(d.flags, 1),
                shifting: bit(d.flags, 2),
                diffs,
                clutch_torque_nm: d.clutch_torque_nm.get(),
                shift_refusal: shift_refusal_from_code(d.shift_refusal)?,
                shift_refusal_count: d.shift_refusal_count.get(),
            },
            lap: LapTelemetry {
                distance_m: l.distance_m.get(),
                lateral_offset_m: l.lateral_offset_m.get(),
                track_length_m: l.track_length_m.get(),
                laps_completed: l.laps_completed.get(),
                sector: l.sector,
                current_lap_s: l.current_lap_s.get(),
                last_lap_s: l.last_lap_s.get(),
                best_lap_s: l.best_lap_s.get(),
                sector_times_s: get(l.sector_times_s),
                best_sector_times_s: get(l.best_sector_times_s),
            },
            barrier_contact: bit(l.flags, 0),
            surface: surface_from_code(l.surface)?,
            damage: DamageTelemetry {
                front_wing: bit(l.flags, 1),
                rear_wing: bit(l.flags, 2),
                links: [3, 4, 5, 6].map(|n| bit(l.flags, n)),
                steering_rack: bit(l.flags, 7),
            },
        };
        Ok(Frame {
            sequence: self.header.sequence.get(),
            car_index: self.header.car_index.get(),
            car,
            health: LoopHealth {
                ticks: h.ticks.get(),
                tick_rate_hz: h.tick_rate_hz.get(),
                wake_latency_p50_us: h.wake_latency_p50_us.get(),
                wake_latency_p99_us: h.wake_latency_p99_us.get(),
                wake_latency_max_us: h.wake_latency_max_us.get(),
                tick_work_p99_us: h.tick_work_p99_us.get(),
                physics_step_p99_us: h.physics_step_p99_us.get(),
                late_ticks_250us: h.late_ticks_250us.get(),
                late_ticks_1ms: h.late_ticks_1ms.get(),
                dropped_time_ms: h.dropped_time_ms.get(),
            },
            ffb: FfbStatus {
                active: bit(s.ffb_flags, 0),
                output: s.ffb_output.get(),
                clipping: bit(s.ffb_flags, 1),
                clipping_share: s.ffb_clipping_share.get(),
                hold: FfbHold::from_code((s.ffb_flags >> 2) & 0x07),
            },
            motion: MotionHoldTelemetry {
                platforms: self.motion_holds.platforms,
                held: self.motion_holds.held,
                state: self.motion_holds.state,
                cause: self.motion_holds.cause,
                latest: self.motion_holds.latest,
                holds: self.motion_holds.holds.get(),
                fault_holds: self.motion_holds.fault_holds.get(),
                estop_holds: self.motion_holds.estop_holds.get(),
                stale_holds: self.motion_holds.stale_holds.get(),
            },
        })
    }
}
