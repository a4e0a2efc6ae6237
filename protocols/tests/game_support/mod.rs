//! What the game decoders' tests share: the check that a decoded sample holds only finite
//! values (every decoder promises it on any input), and the random datagrams the property
//! tests feed them. Included by each `game_*.rs` test with `mod game_support;`.

#![allow(dead_code)] // each test binary uses its own subset

use proptest::prelude::*;
use rig_protocols::game::GameSample;

/// Every floating-point channel of `sample` (motion, car, the four wheels, the clock) is
/// finite where present.
pub fn all_finite(sample: &GameSample) -> bool {
    let m = &sample.motion;
    let vectors = [
        m.position_m,
        m.velocity_world_mps,
        m.velocity_body_mps,
        m.acceleration_body_mps2,
        m.angular_velocity_body_radps,
        m.roll_pitch_yaw_rad,
    ];
    let c = &sample.car;
    let scalars = [
        sample.game_time_s,
        c.speed_mps,
        c.engine_rpm,
        c.max_rpm,
        c.idle_rpm,
        c.throttle,
        c.brake,
        c.clutch,
        c.handbrake,
        c.steer,
        c.fuel_fraction,
        c.current_lap_s,
        c.last_lap_s,
        c.best_lap_s,
        c.lap_distance_m,
    ];
    let wheels = sample.wheels.iter().flat_map(|w| {
        [
            w.suspension_travel_m,
            w.suspension_velocity_mps,
            w.angular_velocity_radps,
            w.slip_ratio,
            w.slip_angle_rad,
            w.load_n,
            w.temperature_c,
            w.pressure_kpa,
        ]
    });
    vectors.iter().flatten().flatten().all(|x| x.is_finite())
        && scalars.iter().flatten().all(|x| x.is_finite())
        && wheels.flatten().all(|x| x.is_finite())
}

/// Random bytes of any length below `max_len`.
pub fn any_bytes(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max_len)
}

/// Random bytes of exactly `len` (to cut to a stream's size).
pub fn bytes_of(len: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), len)
}
