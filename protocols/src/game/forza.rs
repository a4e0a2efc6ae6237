//! Forza "Data Out" read as a game-bridge source: Sled (232 bytes), FM7 Car Dash (311),
//! Forza Horizon 4/5 (324) and Forza Motorsport 2023 Car Dash (331), chosen by length. The wire
//! structs are [`crate::telemetry::forza`]'s (the same bytes rigd sends as an output).
//!
//! Axes, as in the encoder: Forza's local frame is X right, Y up, Z forward, so a body vector
//! (acceleration, velocity, angular velocity with X pitch, Y yaw, Z roll) maps to rigd's
//! x forward, y left, z up as `(Z, -X, Y)`, world positions likewise. Angles: rigd's yaw and
//! roll are Forza's, rigd's pitch (positive nose down) is minus Forza's (positive nose up).
//! Forza's acceleration is the kinematic one (no gravity), as [`GameMotion`] wants.
//!
//! What is read: `IsRaceOn` as `driving` (0 = paused, in a menu or a replay), the game's
//! millisecond clock, rpm (current, idle, max), acceleration, velocity, angular velocity,
//! yaw/pitch/roll, per wheel the travel in metres (`SuspensionTravelMeters`; the normalised
//! 0..1 travel is used only when the metres are not finite), spin, slip ratio and angle (sent
//! normalised: scaled back by the encoder's nominal peaks); the Dash part adds position, speed,
//! pedals, gear, steer, fuel, laps, race position and tyre temperatures (sent in degF). A lap
//! time or race position of 0 means "none" in Forza and is `None` here.
//!
//! [`matches`] accepts a datagram of one of the four lengths whose `IsRaceOn` is 0 or 1 and
//! whose rpm values are finite and between 0 and 100 000 (Forza has no magic number; random
//! bytes of the right length pass this with a probability of about 1e-9).

use zerocopy::little_endian::F32;
use zerocopy::FromBytes;

use super::{GameDecodeError, GameSample, GameStream};
use crate::telemetry::forza::{
    gear_from_forza, Dash, Fm2023Packet, Fm7DashPacket, HorizonPacket, Sled, FM2023_LEN,
    FM7_DASH_LEN, HORIZON_LEN, NOMINAL_PEAK_SLIP_ANGLE_RAD, NOMINAL_PEAK_SLIP_RATIO,
    NOMINAL_SUSPENSION_TRAVEL_M, SLED_LEN,
};

/// Highest rpm value a real Forza packet carries (anything above is not Forza).
const MAX_PLAUSIBLE_RPM: f32 = 100_000.0;

/// The stream a datagram of `len` bytes would be.
fn stream_of_len(len: usize) -> Option<GameStream> {
    match len {
        SLED_LEN => Some(GameStream::ForzaSled),
        FM7_DASH_LEN => Some(GameStream::ForzaFm7Dash),
        HORIZON_LEN => Some(GameStream::ForzaHorizon),
        FM2023_LEN => Some(GameStream::ForzaFm2023),
        _ => None,
    }
}

/// The Sled block of a Forza datagram of any of the four lengths.
fn sled_of(bytes: &[u8]) -> Option<Sled> {
    stream_of_len(bytes.len())?;
    Sled::read_from_prefix(bytes).ok().map(|(sled, _)| sled)
}

fn plausible_rpm(value: F32) -> bool {
    let rpm = value.get();
    rpm.is_finite() && (0.0..=MAX_PLAUSIBLE_RPM).contains(&rpm)
}

/// True when `bytes` has a Forza length, `IsRaceOn` 0 or 1 and plausible rpm values.
pub fn matches(bytes: &[u8]) -> bool {
    sled_of(bytes).is_some_and(|sled| {
        matches!(sled.is_race_on.get(), 0 | 1)
            && plausible_rpm(sled.engine_max_rpm)
            && plausible_rpm(sled.engine_idle_rpm)
            && plausible_rpm(sled.current_engine_rpm)
    })
}

/// A finite f32 as f64.
fn finite(value: F32) -> Option<f64> {
    let v = f64::from(value.get());
    v.is_finite().then_some(v)
}

/// A Forza local vector (X right, Y up, Z forward) in rigd's axes, when all three are finite.
fn rigd_axes(v: [F32; 3]) -> Option<[f64; 3]> {
    let [x, y, z] = [finite(v[0])?, finite(v[1])?, finite(v[2])?];
    Some([z, -x, y])
}

/// A 0..255 pedal as 0..1.
fn pedal(value: u8) -> Option<f64> {
    Some(f64::from(value) / 255.0)
}

/// A lap time where 0 (or anything not positive and finite) means "none".
fn lap_time(value: F32) -> Option<f64> {
    finite(value).filter(|t| *t > 0.0)
}

/// Decodes a Forza datagram (any of the four layouts, by length).
pub fn decode(bytes: &[u8]) -> Result<GameSample, GameDecodeError> {
    let stream =
        stream_of_len(bytes.len()).ok_or(GameDecodeError::Unrecognised { len: bytes.len() })?;
    let invalid = |reason| GameDecodeError::Invalid { stream, reason };
    let sled = sled_of(bytes).ok_or(invalid("shorter than the Sled block"))?;
    let driving = match sled.is_race_on.get() {
        0 => false,
        1 => true,
        _ => return Err(invalid("IsRaceOn is neither 0 nor 1")),
    };
    if !(plausible_rpm(sled.engine_max_rpm)
        && plausible_rpm(sled.engine_idle_rpm)
        && plausible_rpm(sled.current_engine_rpm))
    {
        return Err(invalid("an rpm value is not a number between 0 and 100000"));
    }
    let mut sample = GameSample::empty(stream);
    sample.driving = Some(driving);
    sample.game_time_s = Some(f64::from(sled.timestamp_ms.get()) / 1000.0);
    read_sled(&sled, &mut sample);
    let dash = match stream {
        GameStream::ForzaSled => None,
        GameStream::ForzaFm7Dash => Fm7DashPacket::read_from_bytes(bytes).ok().map(|p| p.dash),
        GameStream::ForzaHorizon => HorizonPacket::read_from_bytes(bytes).ok().map(|p| p.dash),
        _ => Fm2023Packet::read_from_bytes(bytes).ok().map(|p| p.dash),
    };
    if let Some(dash) = dash {
        read_dash(&dash, &mut sample);
    }
    Ok(sample)
}

fn read_sled(sled: &Sled, sample: &mut GameSample) {
    let motion = &mut sample.motion;
    motion.acceleration_body_mps2 = rigd_axes(sled.acceleration);
    motion.velocity_body_mps = rigd_axes(sled.velocity);
    motion.angular_velocity_body_radps = rigd_axes(sled.angular_velocity);
    motion.roll_pitch_yaw_rad = match (finite(sled.roll), finite(sled.pitch), finite(sled.yaw)) {
        (Some(roll), Some(pitch), Some(yaw)) => Some([roll, -pitch, yaw]),
        _ => None,
    };
    let car = &mut sample.car;
    car.engine_rpm = finite(sled.current_engine_rpm);
    car.max_rpm = finite(sled.engine_max_rpm);
    car.idle_rpm = finite(sled.engine_idle_rpm);
    for (i, wheel) in sample.wheels.iter_mut().enumerate() {
        wheel.suspension_travel_m = finite(sled.suspension_travel_meters[i]).or_else(|| {
            finite(sled.normalized_suspension_travel[i])
                .map(|t| t.clamp(0.0, 1.0) * NOMINAL_SUSPENSION_TRAVEL_M)
        });
        wheel.angular_velocity_radps = finite(sled.wheel_rotation_speed[i]);
        wheel.slip_ratio = finite(sled.tire_slip_ratio[i]).map(|s| s * NOMINAL_PEAK_SLIP_RATIO);
        wheel.slip_angle_rad =
            finite(sled.tire_slip_angle[i]).map(|s| s * NOMINAL_PEAK_SLIP_ANGLE_RAD);
    }
}

fn read_dash(dash: &Dash, sample: &mut GameSample) {
    sample.motion.position_m = rigd_axes(dash.position);
    let car = &mut sample.car;
    car.speed_mps = finite(dash.speed);
    car.throttle = pedal(dash.accel);
    car.brake = pedal(dash.brake);
    car.clutch = pedal(dash.clutch);
    car.handbrake = pedal(dash.hand_brake);
    car.gear = Some(gear_from_forza(dash.gear));
    // -127 full left .. 127 full right; rigd's steer is positive left.
    car.steer = Some((-f64::from(dash.steer) / 127.0).clamp(-1.0, 1.0));
    car.fuel_fraction = finite(dash.fuel).map(|f| f.clamp(0.0, 1.0));
    car.laps_completed = Some(u32::from(dash.lap_number.get()));
    car.current_lap_s = finite(dash.current_lap).map(|t| t.max(0.0));
    car.last_lap_s = lap_time(dash.last_lap);
    car.best_lap_s = lap_time(dash.best_lap);
    car.race_position = (dash.race_position != 0).then_some(u32::from(dash.race_position));
    for (wheel, temperature_f) in sample.wheels.iter_mut().zip(dash.tire_temp) {
        wheel.temperature_c = finite(temperature_f).map(|f| (f - 32.0) * 5.0 / 9.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_pick_the_stream_and_others_are_unrecognised() {
        for (len, stream) in [
            (232, GameStream::ForzaSled),
            (311, GameStream::ForzaFm7Dash),
            (324, GameStream::ForzaHorizon),
            (331, GameStream::ForzaFm2023),
        ] {
            let bytes = vec![0u8; len];
            assert!(matches(&bytes));
            assert_eq!(decode(&bytes).unwrap().stream, stream);
        }
        for len in [0, 231, 233, 310, 500] {
            assert!(!matches(&vec![0u8; len]));
            assert_eq!(
                decode(&vec![0u8; len]),
                Err(GameDecodeError::Unrecognised { len })
            );
        }
    }

    #[test]
    fn a_race_on_flag_other_than_0_or_1_is_not_forza() {
        let mut bytes = vec![0u8; SLED_LEN];
        bytes[0] = 7;
        assert!(!matches(&bytes));
        assert!(matches!(
            decode(&bytes),
            Err(GameDecodeError::Invalid { stream: GameStream::ForzaSled, .. })
        ));
        bytes[0] = 0;
        bytes[16..20].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(!matches(&bytes), "a NaN rpm");
    }
}
