//! What a real OutSim or OutGauge packet can hold, so that random bytes of exactly their
//! lengths (64/68 and 92/96: neither format has a magic) are not read as a car.
//!
//! Each check is a range no car reaches, with a wide margin, or a bit the format does not
//! define. The ranges are log-wide because random bits are: a random f32 is below 1 in
//! magnitude about half the time, so a bound of 100 or of 1000 rejects about as much; the
//! rejection comes from how many values must all hold.
//! - **OutSim** (`OSMain`): 12 floats finite and within bounds (angular velocity 100 rad/s,
//!   angles 4 pi, acceleration 1000 m/s^2 (100 g, a crash), velocity 500 m/s) and the
//!   position within 20 km of the map's origin, 2 km vertically. Random 64-byte datagrams
//!   pass about once in 10^5 (measured by the tests); the bridge's receiver therefore also
//!   requires each OutSim sample to continue the one before it (rigd's
//!   `game_source::confirm`), which a random one does not.
//! - **OutGauge**: only the `OG_*` flag bits InSim.txt defines; the gear -2..=30 (LFS: 0 R,
//!   1 N, 2 first; BeamNG sends its gear index + 1, which is -1 in park); no dash light bit
//!   above 23 (LFS and BeamNG define bits 0-22); pedals and fuel in 0..1 (1e-3 margin);
//!   speed, rpm, turbo, temperatures and oil pressure finite and bounded. Random 92-byte
//!   datagrams pass about once in 10^12.

use std::f32::consts::PI;

use crate::telemetry::lfs::outgauge::{OutGaugePacket, OG_BAR, OG_CTRL, OG_KM, OG_SHIFT, OG_TURBO};
use crate::telemetry::lfs::outsim::{OsMain, POSITION_SCALE};

/// Largest angular velocity component, rad/s.
const MAX_ANGULAR_VELOCITY_RADPS: f32 = 100.0;
/// Largest heading, pitch or roll magnitude, rad (LFS does not say whether heading wraps).
const MAX_ANGLE_RAD: f32 = 4.0 * PI;
/// Largest acceleration component, m/s^2.
const MAX_ACCELERATION_MPS2: f32 = 1000.0;
/// Largest velocity component, m/s.
const MAX_VELOCITY_MPS: f32 = 500.0;
/// Farthest a car is from the map's origin horizontally, m.
const MAX_HORIZONTAL_M: f64 = 20_000.0;
/// Farthest a car is from the map's origin vertically, m.
const MAX_VERTICAL_M: f64 = 2_000.0;

/// The `OG_*` flag bits InSim.txt defines.
const OUTGAUGE_FLAGS: u16 = OG_SHIFT | OG_CTRL | OG_TURBO | OG_KM | OG_BAR;
/// Dash light bits beyond every `DL_*` LFS and BeamNG define.
const UNDEFINED_DASH_LIGHTS: u32 = 0xff00_0000;
/// Gear byte range, as a signed value.
const GEARS: std::ops::RangeInclusive<i8> = -2..=30;
/// Largest speed, m/s; engine speed, rpm; turbo, bar; temperature, degC; oil pressure, bar.
const MAX_OUTGAUGE_SPEED_MPS: f32 = 1000.0;
const MAX_RPM: f32 = 100_000.0;
const MAX_TURBO_BAR: f32 = 100.0;
const MAX_TEMPERATURE_C: f32 = 10_000.0;
const MAX_OIL_PRESSURE_BAR: f32 = 1000.0;
/// Margin around 0..1 for pedals and fuel.
const UNIT_MARGIN: f32 = 1e-3;

fn within(x: f32, bound: f32) -> bool {
    x.is_finite() && x.abs() <= bound
}

fn all_within(v: &[zerocopy::little_endian::F32], bound: f32) -> bool {
    v.iter().all(|c| within(c.get(), bound))
}

fn unit(x: f32) -> bool {
    (-UNIT_MARGIN..=1.0 + UNIT_MARGIN).contains(&x)
}

/// The first `OSMain` channel out of its range, or `None` when all are plausible.
pub fn outsim_main(main: &OsMain) -> Option<&'static str> {
    let position = main.position.map(|p| f64::from(p.get()) / POSITION_SCALE);
    if !all_within(&main.angular_velocity, MAX_ANGULAR_VELOCITY_RADPS) {
        Some("angular velocity")
    } else if !all_within(&[main.heading, main.pitch, main.roll], MAX_ANGLE_RAD) {
        Some("heading, pitch or roll")
    } else if !all_within(&main.acceleration, MAX_ACCELERATION_MPS2) {
        Some("acceleration")
    } else if !all_within(&main.velocity, MAX_VELOCITY_MPS) {
        Some("velocity")
    } else if position[0].abs() > MAX_HORIZONTAL_M || position[1].abs() > MAX_HORIZONTAL_M {
        Some("position (x, y)")
    } else if position[2].abs() > MAX_VERTICAL_M {
        Some("position (z)")
    } else {
        None
    }
}

/// The first OutGauge channel out of its range, or `None` when all are plausible.
pub fn outgauge(p: &OutGaugePacket) -> Option<&'static str> {
    if p.flags.get() & !OUTGAUGE_FLAGS != 0 {
        Some("flags")
    } else if !GEARS.contains(&(p.gear as i8)) {
        Some("gear")
    } else if (p.dash_lights.get() | p.show_lights.get()) & UNDEFINED_DASH_LIGHTS != 0 {
        Some("dash lights")
    } else if ![p.fuel, p.throttle, p.brake, p.clutch]
        .iter()
        .all(|x| unit(x.get()))
    {
        Some("pedals or fuel")
    } else if !within(p.speed_mps.get(), MAX_OUTGAUGE_SPEED_MPS) || !within(p.rpm.get(), MAX_RPM) {
        Some("speed or rpm")
    } else if !within(p.turbo_bar.get(), MAX_TURBO_BAR)
        || !all_within(&[p.engine_temp_c, p.oil_temp_c], MAX_TEMPERATURE_C)
        || !within(p.oil_pressure_bar.get(), MAX_OIL_PRESSURE_BAR)
    {
        Some("turbo, temperatures or oil pressure")
    } else {
        None
    }
}
