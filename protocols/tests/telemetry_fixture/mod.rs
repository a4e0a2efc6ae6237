//! The fixed physics state every telemetry golden and round-trip test encodes, and a byte
//! buffer builder for writing expected packets by hand from the reference tables.
//!
//! The car is yawed by exactly pi (quaternion `[0, 0, 0, 1]`), so body-to-world rotation is
//! exact in floating point: body `(x, y, z)` is world `(-x, -y, z)`. Every channel has a
//! distinct value so a swapped field or wheel shows up in the bytes.
#![allow(dead_code)] // each test binary uses its own subset

use rig_types::{
    CarTelemetry, Controls, DiffTelemetry, DrivetrainTelemetry, FfbHold, FfbStatus, Frame,
    GearRequest, LapTelemetry, LoopHealth, MotionHoldTelemetry, ShiftRefusal, SurfaceKind,
    WheelTelemetry,
};

/// Per-wheel surfaces: FR is on a kerb, RL on grass.
pub const SURFACES: [SurfaceKind; 4] = [
    SurfaceKind::Asphalt,
    SurfaceKind::Kerb,
    SurfaceKind::Grass,
    SurfaceKind::Asphalt,
];

/// Wheel `i` (0 FL, 1 FR, 2 RL, 3 RR) of the fixture.
pub fn wheel(i: usize) -> WheelTelemetry {
    let k = i as f64;
    WheelTelemetry {
        load_n: 3000.0 + 100.0 * k,
        slip_ratio: 0.01 * (k + 1.0),
        slip_angle_rad: 0.02 * (k + 1.0),
        force_long_n: 500.0 + 10.0 * k,
        force_lat_n: -200.0 - 10.0 * k,
        aligning_moment_nm: 5.0 + k,
        angular_velocity_radps: 95.0 + k,
        radius_m: 0.31,
        steer_angle_rad: [0.05, 0.04, 0.0, 0.0][i],
        suspension_travel_m: 0.05 + 0.01 * k,
        suspension_velocity_mps: 0.1 * k - 0.1,
        temperature_c: 80.0 + k,
        carcass_temperature_c: 70.0 + k,
        pressure_kpa: 210.0 + 2.0 * k,
        wear: 0.1 * (k + 1.0),
        drive_torque_nm: 100.0 + k,
        brake_torque_nm: 50.0 + k,
        surface: SURFACES[i],
        in_contact: i != 2,
    }
}

/// The fixture frame.
pub fn frame() -> Frame {
    let mut diffs = [DiffTelemetry::default(); 3];
    diffs[1] = DiffTelemetry {
        present: true,
        locked: false,
        transfer_torque_nm: 40.0,
    };
    Frame {
        sequence: 12345,
        car_index: 0,
        car: CarTelemetry {
            time_s: 12.5,
            position_m: [100.5, -20.25, 3.0],
            orientation: [0.0, 0.0, 0.0, 1.0],
            roll_pitch_yaw_rad: [0.02, -0.01, std::f64::consts::PI],
            velocity_world_mps: [-30.0, -1.5, 0.25],
            velocity_body_mps: [30.0, 1.5, 0.25],
            angular_velocity_body_radps: [0.1, -0.2, 0.3],
            acceleration_body_mps2: [2.0, -4.0, 0.5],
            specific_force_body_mps2: [2.0, -4.0, 10.31],
            speed_mps: 30.04,
            wheels: [wheel(0), wheel(1), wheel(2), wheel(3)],
            steering_wheel_angle_rad: 0.5,
            steering_torque_nm: 3.5,
            controls: Controls {
                steering: 0.25,
                throttle: 0.75,
                brake: 0.1,
                clutch: 0.2,
                handbrake: 0.5,
                gear_request: GearRequest::Select(3),
                ignition: true,
                starter: false,
            },
            drivetrain: DrivetrainTelemetry {
                engine_rpm: 6500.0,
                engine_torque_nm: 250.0,
                max_rpm: 7200.0,
                idle_rpm: 900.0,
                engine_running: true,
                gear: 3,
                forward_gears: 6,
                clutch_locked: true,
                shifting: false,
                diffs,
                clutch_torque_nm: 240.0,
                shift_refusal: ShiftRefusal::ClutchRequired,
                shift_refusal_count: 4,
            },
            lap: LapTelemetry {
                distance_m: 1234.5,
                lateral_offset_m: 1.25,
                track_length_m: 3000.0,
                laps_completed: 2,
                sector: 1,
                current_lap_s: 45.5,
                last_lap_s: 92.25,
                best_lap_s: 90.5,
                sector_times_s: [30.5, 0.0, 0.0],
                best_sector_times_s: [30.0, 31.0, 29.5],
            },
            barrier_contact: false,
            surface: SurfaceKind::Asphalt,
            damage: Default::default(),
        },
        health: LoopHealth {
            ticks: 12500,
            tick_rate_hz: 999.5,
            wake_latency_p50_us: 12.0,
            wake_latency_p99_us: 48.0,
            wake_latency_max_us: 310.0,
            tick_work_p99_us: 35.0,
            physics_step_p99_us: 9.5,
            late_ticks_250us: 3,
            late_ticks_1ms: 1,
            dropped_time_ms: 0.5,
        },
        ffb: FfbStatus {
            active: true,
            output: 0.6,
            clipping: true,
            clipping_share: 0.05,
            hold: FfbHold::None,
        },
        motion: MotionHoldTelemetry {
            platforms: 2,
            held: 1,
            state: 6,
            cause: 4,
            latest: 4,
            holds: 5,
            fault_holds: 1,
            estop_holds: 2,
            stale_holds: 1,
        },
    }
}

/// A zeroed buffer that expected packets are written into at explicit offsets.
pub struct Golden(pub Vec<u8>);

impl Golden {
    /// `len` zero bytes.
    pub fn new(len: usize) -> Golden {
        Golden(vec![0; len])
    }
    /// Raw bytes at `off`.
    pub fn bytes(&mut self, off: usize, b: &[u8]) {
        self.0[off..off + b.len()].copy_from_slice(b);
    }
    /// f32 from an f64 value.
    pub fn f32(&mut self, off: usize, v: f64) {
        self.bytes(off, &(v as f32).to_le_bytes());
    }
    /// Consecutive f32 values.
    pub fn f32s(&mut self, off: usize, vs: &[f64]) {
        for (i, v) in vs.iter().enumerate() {
            self.f32(off + 4 * i, *v);
        }
    }
    /// f64.
    pub fn f64(&mut self, off: usize, v: f64) {
        self.bytes(off, &v.to_le_bytes());
    }
    /// Consecutive f64 values.
    pub fn f64s(&mut self, off: usize, vs: &[f64]) {
        for (i, v) in vs.iter().enumerate() {
            self.f64(off + 8 * i, *v);
        }
    }
    /// i32.
    pub fn i32(&mut self, off: usize, v: i32) {
        self.bytes(off, &v.to_le_bytes());
    }
    /// u32.
    pub fn u32(&mut self, off: usize, v: u32) {
        self.bytes(off, &v.to_le_bytes());
    }
    /// u16.
    pub fn u16(&mut self, off: usize, v: u16) {
        self.bytes(off, &v.to_le_bytes());
    }
    /// u64.
    pub fn u64(&mut self, off: usize, v: u64) {
        self.bytes(off, &v.to_le_bytes());
    }
    /// One byte.
    pub fn u8(&mut self, off: usize, v: u8) {
        self.0[off] = v;
    }
}

/// Asserts two packets are equal, naming the first differing offset.
pub fn assert_bytes_eq(actual: &[u8], expected: &[u8]) {
    assert_eq!(actual.len(), expected.len(), "packet length");
    if let Some(at) = actual.iter().zip(expected).position(|(a, e)| a != e) {
        panic!(
            "first difference at byte {at}: got {:02x?}, expected {:02x?} (4-byte window)",
            &actual[at..(at + 4).min(actual.len())],
            &expected[at..(at + 4).min(expected.len())]
        );
    }
}
