//! From datagram bytes to a [`Sample`]: format detection (by size and magic, through
//! rig-protocols) or a forced format, then the mapping into the dashboard's view model.
//!
//! Native packets carry the whole physics frame and map channel for channel (wheel angle,
//! rim torque, clipping, slip angles, sectors, loop health). Every other format goes through
//! rig-protocols' common [`DashView`], which is already in rigd's units and axes, and every
//! channel the view carries is mapped (see its module for what each format sends); channels
//! it lacks stay `None`. Anything that does not decode is a [`Garbage`], never a panic.

use rig_protocols::telemetry::convert::RADPS_PER_RPM;
use rig_protocols::telemetry::{detect, DashGauges, DashView, Decoded, Format};
use rig_protocols::{FfbHold, Frame};
use rig_types::CarTelemetry;

use crate::sample::{Gear, LapSample, Sample, SteeringTorque, TyreSample};
use crate::state::Garbage;

/// Standard gravity, m/s^2 (rig-protocols reports g-forces in g).
const STANDARD_GRAVITY_MPS2: f64 = 9.80665;

/// Which format to decode datagrams as (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum FormatChoice {
    /// Recognise each datagram by its size and magic.
    #[default]
    Auto,
    /// rigd's native packet.
    Native,
    /// LFS / BeamNG OutGauge (92 or 96 bytes).
    Outgauge,
    /// LFS OutSim classic (64 or 68 bytes).
    Outsim,
    /// Forza Sled (232 bytes).
    ForzaSled,
    /// Forza Motorsport 7 Car Dash (311 bytes).
    ForzaFm7,
    /// Forza Horizon 4/5 (324 bytes).
    ForzaHorizon,
    /// Forza Motorsport 2023 (331 bytes).
    ForzaFm2023,
    /// Codemasters extradata=3 (264 bytes).
    Codemasters,
    /// BeamNG MotionSim (88 bytes).
    Beamng,
}

impl FormatChoice {
    /// The format to decode `bytes` as, or `None` when auto-detection recognises nothing.
    fn format_for(self, bytes: &[u8]) -> Option<Format> {
        let with_id = |plain_len: usize| (bytes.len() > plain_len).then_some(0);
        Some(match self {
            FormatChoice::Auto => return detect(bytes),
            FormatChoice::Native => Format::Native,
            FormatChoice::Outgauge => Format::OutGauge { id: with_id(92) },
            FormatChoice::Outsim => Format::OutSim { id: with_id(64) },
            FormatChoice::ForzaSled => Format::ForzaSled,
            FormatChoice::ForzaFm7 => Format::ForzaFm7Dash,
            FormatChoice::ForzaHorizon => Format::ForzaHorizon,
            FormatChoice::ForzaFm2023 => Format::ForzaFm2023,
            FormatChoice::Codemasters => Format::Codemasters,
            FormatChoice::Beamng => Format::BeamNgMotionSim,
        })
    }
}

/// Decodes one datagram.
pub fn decode(bytes: &[u8], choice: FormatChoice) -> Result<Sample, Garbage> {
    let len = bytes.len();
    let format = choice
        .format_for(bytes)
        .ok_or(Garbage::Unrecognised { len })?;
    let decoded = format.decode(bytes).map_err(|_| Garbage::Malformed {
        format: format.name(),
        len,
    })?;
    Ok(match &decoded {
        Decoded::Native(packet) => match packet.to_frame() {
            Ok(frame) => from_frame(&frame),
            // Unknown enum codes (a newer rigd): the continuous channels still show.
            Err(_) => from_dash_view(&decoded.dash_view()),
        },
        other => from_dash_view(&other.dash_view()),
    })
}

fn tyres_from_car(car: &CarTelemetry) -> [TyreSample; 4] {
    car.wheels.map(|w| TyreSample {
        load_n: Some(w.load_n),
        slip_ratio: Some(w.slip_ratio),
        slip_angle_rad: Some(w.slip_angle_rad),
        temperature_c: Some(w.temperature_c),
        carcass_temperature_c: Some(w.carcass_temperature_c),
        combined_slip: None,
        wheel_speed_radps: Some(w.angular_velocity_radps),
        patch_speed_mps: Some(w.angular_velocity_radps * w.radius_m),
        suspension_travel_m: Some(w.suspension_travel_m),
        brake_temperature_c: None,
        pressure_kpa: Some(w.pressure_kpa),
        wear: Some(w.wear),
    })
}

/// Maps a whole rigd frame (native packets).
pub fn from_frame(frame: &Frame) -> Sample {
    let car = &frame.car;
    let lap = &car.lap;
    let ffb = &frame.ffb;
    Sample {
        format: Format::Native.name(),
        speed_mps: Some(car.speed_mps),
        gear: Some(Gear::from_signed(car.drivetrain.gear)),
        rpm: Some(car.drivetrain.engine_rpm),
        max_rpm: Some(car.drivetrain.max_rpm),
        throttle: Some(car.controls.throttle),
        brake: Some(car.controls.brake),
        clutch: Some(car.controls.clutch),
        handbrake: Some(car.controls.handbrake),
        steering_angle_rad: Some(car.steering_wheel_angle_rad),
        steering_input: Some(car.controls.steering),
        steering_torque: Some(SteeringTorque {
            torque_nm: car.steering_torque_nm,
            ffb_output: ffb.active.then_some(ffb.output),
            clipping: ffb.active && ffb.clipping,
            clipping_share: ffb.active.then_some(ffb.clipping_share),
            ffb_hold: (ffb.hold != FfbHold::None).then(|| ffb.hold.label()),
        }),
        accel_mps2: Some([car.acceleration_body_mps2[0], car.acceleration_body_mps2[1]]),
        tyres: tyres_from_car(car),
        lap: Some(LapSample {
            laps_completed: lap.laps_completed,
            sector: lap.sector,
            current_lap_s: lap.current_lap_s,
            last_lap_s: lap.last_lap_s,
            best_lap_s: lap.best_lap_s,
            sector_times_s: lap.sector_times_s,
            best_sector_times_s: lap.best_sector_times_s,
            has_sectors: true,
            race_position: None,
        }),
        position_m: Some([car.position_m[0], car.position_m[1]]),
        health: Some(frame.health),
        motion_holds: (frame.motion.platforms > 0).then_some(frame.motion),
        damage: Some(car.damage),
        gauges: DashGauges {
            engine_torque_nm: Some(car.drivetrain.engine_torque_nm),
            engine_power_w: Some(
                car.drivetrain.engine_torque_nm * car.drivetrain.engine_rpm * RADPS_PER_RPM,
            ),
            ..DashGauges::default()
        },
    }
}

/// Maps rig-protocols' common summary (every non-native format).
pub fn from_dash_view(view: &DashView) -> Sample {
    let accel_mps2 = match (view.g_longitudinal, view.g_lateral) {
        (Some(long), Some(lat)) => {
            Some([long * STANDARD_GRAVITY_MPS2, lat * STANDARD_GRAVITY_MPS2])
        }
        _ => None,
    };
    let tyres = view.wheels.map_or_else(Default::default, |wheels| {
        wheels.map(|w| TyreSample {
            load_n: w.load_n,
            slip_ratio: w.slip_ratio,
            slip_angle_rad: w.slip_angle_rad,
            temperature_c: w.temperature_c,
            carcass_temperature_c: None,
            combined_slip: w.combined_slip,
            wheel_speed_radps: w.angular_velocity_radps,
            patch_speed_mps: w.patch_speed_mps,
            suspension_travel_m: w.suspension_travel_m,
            brake_temperature_c: w.brake_temperature_c,
            pressure_kpa: w.tyre_pressure_kpa,
            wear: w.tyre_wear,
        })
    });
    let lap = view.laps.and_then(|laps| {
        let any = laps.laps_completed.is_some()
            || laps.current_lap_s.is_some()
            || laps.last_lap_s.is_some()
            || laps.best_lap_s.is_some()
            || laps.race_position.is_some();
        let [sector_1, sector_2] = laps.sector_times_s.unwrap_or_default();
        any.then(|| LapSample {
            laps_completed: laps.laps_completed.unwrap_or(0),
            sector: laps.sector.unwrap_or(0),
            current_lap_s: laps.current_lap_s.unwrap_or(0.0),
            last_lap_s: laps.last_lap_s.unwrap_or(0.0),
            best_lap_s: laps.best_lap_s.unwrap_or(0.0),
            sector_times_s: [sector_1, sector_2, 0.0],
            best_sector_times_s: [0.0; 3],
            has_sectors: laps.sector.is_some(),
            race_position: laps.race_position,
        })
    });
    Sample {
        format: view.format.name(),
        speed_mps: Some(view.speed_mps),
        gear: view.gear.map(Gear::from_signed),
        rpm: view.rpm,
        max_rpm: view.max_rpm,
        throttle: view.throttle,
        brake: view.brake,
        clutch: view.clutch,
        handbrake: view.handbrake,
        steering_angle_rad: view.steering_wheel_angle_rad,
        steering_input: view.steer,
        steering_torque: view.steering_torque_nm.map(|torque_nm| SteeringTorque {
            torque_nm,
            ffb_output: None,
            clipping: false,
            clipping_share: None,
            ffb_hold: None,
        }),
        accel_mps2,
        tyres,
        lap,
        position_m: view.position_m.map(|p| [p[0], p[1]]),
        health: view.health,
        motion_holds: None,
        gauges: view.gauges,
        damage: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rig_protocols::{FfbStatus, LoopHealth};

    proptest! {
        #[test]
        fn arbitrary_bytes_decode_or_count_as_garbage(
            bytes in proptest::collection::vec(any::<u8>(), 0..600),
            forced in proptest::sample::select(vec![
                FormatChoice::Auto,
                FormatChoice::Native,
                FormatChoice::Outgauge,
                FormatChoice::ForzaHorizon,
                FormatChoice::Codemasters,
            ]),
        ) {
            match decode(&bytes, forced) {
                Ok(sample) => prop_assert!(!sample.format.is_empty()),
                Err(Garbage::Unrecognised { len } | Garbage::Malformed { len, .. }) => {
                    prop_assert_eq!(len, bytes.len())
                }
            }
        }

        #[test]
        fn every_size_of_a_native_prefix_is_handled(cut in 0usize..2000) {
            let bytes = encode(Format::Native, &frame());
            let cut = cut.min(bytes.len());
            let _ = decode(&bytes[..cut], FormatChoice::Auto);
        }
    }

    fn frame() -> Frame {
        let mut frame = Frame::default();
        let car = &mut frame.car;
        car.speed_mps = 34.0;
        car.drivetrain.gear = 3;
        car.drivetrain.engine_rpm = 6800.0;
        car.drivetrain.max_rpm = 7500.0;
        car.controls.throttle = 0.85;
        car.controls.handbrake = 0.25;
        car.steering_wheel_angle_rad = 0.5;
        car.steering_torque_nm = 6.5;
        car.acceleration_body_mps2 = [2.0, 9.0, 0.0];
        car.position_m = [10.0, -20.0, 1.0];
        car.wheels[2].slip_angle_rad = -0.05;
        car.lap.sector = 1;
        car.lap.sector_times_s = [28.1, 0.0, 0.0];
        frame.ffb = FfbStatus {
            active: true,
            output: 0.65,
            clipping: true,
            clipping_share: 0.01,
            hold: FfbHold::None,
        };
        frame.health = LoopHealth {
            wake_latency_p99_us: 45.0,
            ..LoopHealth::default()
        };
        frame
    }

    fn encode(format: Format, frame: &Frame) -> Vec<u8> {
        let mut out = vec![0; rig_protocols::telemetry::MAX_PACKET_LEN];
        let len = format.encode(frame, &mut out).unwrap();
        out.truncate(len);
        out
    }

    #[test]
    fn a_held_force_reaches_the_dashboard_through_a_native_packet() {
        let mut held = frame();
        held.ffb = FfbStatus {
            active: false,
            hold: FfbHold::Fault,
            ..held.ffb
        };
        let sample = decode(&encode(Format::Native, &held), FormatChoice::Auto).unwrap();
        let torque = sample.steering_torque.unwrap();
        assert_eq!(torque.ffb_output, None);
        assert_eq!(torque.ffb_hold, Some("fault hold"));
        let running = decode(&encode(Format::Native, &frame()), FormatChoice::Auto).unwrap();
        assert_eq!(running.steering_torque.unwrap().ffb_hold, None);
    }

    #[test]
    fn native_packets_map_every_shown_channel() {
        let bytes = encode(Format::Native, &frame());
        let sample = decode(&bytes, FormatChoice::Auto).unwrap();
        assert_eq!(sample.format, "rigd native");
        assert_eq!(sample.speed_mps, Some(34.0));
        assert_eq!(sample.gear, Some(Gear::Forward(3)));
        assert_eq!(sample.rpm, Some(6800.0));
        assert_eq!(sample.max_rpm, Some(7500.0));
        assert_eq!(sample.handbrake, Some(0.25));
        assert_eq!(sample.steering_angle_rad, Some(0.5));
        let torque = sample.steering_torque.unwrap();
        assert_eq!(torque.torque_nm, 6.5);
        assert_eq!(torque.ffb_output, Some(0.65));
        assert!(torque.clipping);
        assert_eq!(sample.accel_mps2, Some([2.0, 9.0]));
        assert_eq!(sample.position_m, Some([10.0, -20.0]));
        assert_eq!(sample.tyres[2].slip_angle_rad, Some(-0.05));
        let lap = sample.lap.unwrap();
        assert!(lap.has_sectors);
        assert_eq!((lap.sector, lap.sector_times_s[0]), (1, 28.1));
        assert_eq!(sample.health.unwrap().wake_latency_p99_us, 45.0);
    }

    #[test]
    fn outgauge_maps_dash_basics_and_leaves_the_rest_empty() {
        let bytes = encode(Format::OutGauge { id: None }, &frame());
        let sample = decode(&bytes, FormatChoice::Auto).unwrap();
        assert_eq!(sample.format, "LFS OutGauge");
        assert!((sample.speed_mps.unwrap() - 34.0).abs() < 1e-4);
        assert_eq!(sample.gear, Some(Gear::Forward(3)));
        assert!((sample.rpm.unwrap() - 6800.0).abs() < 1e-2);
        assert!((sample.throttle.unwrap() - 0.85).abs() < 1e-6);
        assert_eq!(sample.health, None);
        assert_eq!(sample.steering_torque, None);
        assert!(!sample.tyres.iter().any(TyreSample::has_any));
    }

    #[test]
    fn forza_and_codemasters_are_detected() {
        for format in [Format::ForzaHorizon, Format::Codemasters] {
            let bytes = encode(format, &frame());
            let sample = decode(&bytes, FormatChoice::Auto).unwrap();
            assert_eq!(sample.format, format.name());
            assert!(
                (sample.speed_mps.unwrap() - 34.0).abs() < 1e-3,
                "{format:?}"
            );
            assert_eq!(sample.gear, Some(Gear::Forward(3)), "{format:?}");
        }
    }

    #[test]
    fn garbage_is_classified() {
        assert_eq!(
            decode(&[1, 2, 3], FormatChoice::Auto),
            Err(Garbage::Unrecognised { len: 3 })
        );
        let mut bytes = encode(Format::Native, &frame());
        bytes.truncate(100);
        assert_eq!(
            decode(&bytes, FormatChoice::Auto),
            Err(Garbage::Unrecognised { len: 100 })
        );
        assert_eq!(
            decode(&bytes, FormatChoice::Native),
            Err(Garbage::Malformed {
                format: "rigd native",
                len: 100
            })
        );
    }

    #[test]
    fn a_forced_format_rejects_other_formats() {
        let bytes = encode(Format::OutGauge { id: None }, &frame());
        assert!(decode(&bytes, FormatChoice::Outgauge).is_ok());
        assert!(matches!(
            decode(&bytes, FormatChoice::Codemasters),
            Err(Garbage::Malformed { .. })
        ));
    }
}
