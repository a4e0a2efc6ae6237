//! The common view of a decoded packet: what a dashboard can show whatever format arrived.
//!
//! Every value is converted back to rigd's conventions (SI units, world z-up, wheels FL, FR,
//! RL, RR, gear -1 R / 0 N / 1.., steering +left, g-forces from the kinematic body
//! acceleration with lateral +left and longitudinal +accelerating). A channel the format does
//! not carry is `None`, never a made-up value.
//!
//! What each format carries beyond the basics (speed, rpm, gear, pedals):
//! - OutGauge: fuel, engine and oil temperature, oil pressure, turbo, the dash lights (which
//!   are available and which are on, in LFS `DL_*` bits, including the game's shift light).
//! - Forza: per wheel slip ratio, slip angle and combined slip (Forza sends them normalised,
//!   1 = the grip limit; ratio and angle are scaled back by the same nominal peaks the encoder
//!   uses), spin rate, suspension travel, tyre temperature (°F on the wire); handbrake, steer
//!   input, position, lap times, race position, fuel, boost (psi on the wire), engine power
//!   and torque.
//! - Codemasters: lap and sector times, current sector, per wheel contact-patch speed,
//!   suspension travel and velocity, brake temperature and tyre pressure (psi on the wire),
//!   fuel (in tank over capacity), race position, position.
//! - OutSimPack2: per wheel slip angle (from its tangent) and the steering-column torque when
//!   `EXTRA_1` is on, handbrake when `INPUTS` is on.
//!
//! Codemasters' brake temperature, tyre pressure and race position and Forza's race position
//! are 0 when the game does not model them (rigd sends 0 there too); 0 is read as "not sent"
//! for those, since no real tyre runs at 0 psi and positions start at 1.

use super::convert::STANDARD_GRAVITY_MPS2;
use super::forza::{self, gear_from_forza, Dash, Sled};
use super::lfs::outgauge::OutGaugePacket;
use super::lfs::outsim::{OsMain, LFS_WHEEL_ORDER, POSITION_SCALE};
use super::{codemasters, convert::gear_from_lfs, Decoded, Format};
use rig_types::{FfbStatus, LoopHealth};
use zerocopy::little_endian::F32;

/// One wheel in the common view.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DashWheel {
    /// Spin rate, rad/s.
    pub angular_velocity_radps: Option<f64>,
    /// Slip ratio (Forza: normalised by its nominal peak).
    pub slip_ratio: Option<f64>,
    /// Suspension compression, m.
    pub suspension_travel_m: Option<f64>,
    /// Vertical load, N.
    pub load_n: Option<f64>,
    /// Tyre temperature, degC.
    pub temperature_c: Option<f64>,
    /// Slip angle, rad (Forza: normalised slip angle times its nominal peak).
    pub slip_angle_rad: Option<f64>,
    /// Combined slip, normalised: 1 is the grip limit (Forza only).
    pub combined_slip: Option<f64>,
    /// Speed of the tyre's contact patch (wheel spin times radius), m/s.
    pub patch_speed_mps: Option<f64>,
    /// Suspension compression rate, m/s.
    pub suspension_velocity_mps: Option<f64>,
    /// Brake temperature, degC.
    pub brake_temperature_c: Option<f64>,
    /// Tyre pressure, kPa (gauge).
    pub tyre_pressure_kpa: Option<f64>,
    /// Tread wear, 0 (new) to 1 (worn out).
    pub tyre_wear: Option<f64>,
}

/// Lap timing in the common view.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DashLaps {
    /// Completed laps.
    pub laps_completed: Option<u32>,
    /// Current lap time, s.
    pub current_lap_s: Option<f64>,
    /// Last lap, s.
    pub last_lap_s: Option<f64>,
    /// Best lap, s.
    pub best_lap_s: Option<f64>,
    /// Distance into the lap, m.
    pub lap_distance_m: Option<f64>,
    /// Current sector, 0-based.
    pub sector: Option<u8>,
    /// Times of the first and second sector of the current lap, s (0 before reached).
    pub sector_times_s: Option<[f64; 2]>,
    /// Position in the race, 1 = leading.
    pub race_position: Option<u32>,
}

/// Dashboard warning lights as the game reports them, in LFS OutGauge `DL_*` bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DashLights {
    /// Lights the car has (`DashLights`).
    pub available: u32,
    /// Lights on now (`ShowLights`).
    pub on: u32,
}

impl DashLights {
    /// Whether the light with bit `mask` is on; `None` when the car does not have it.
    pub fn state(&self, mask: u32) -> Option<bool> {
        (self.available & mask != 0).then_some(self.on & mask != 0)
    }
}

/// Engine and car gauges beyond rpm.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DashGauges {
    /// Fuel left, 0..1 of the tank.
    pub fuel_fraction: Option<f64>,
    /// Engine (coolant) temperature, degC.
    pub engine_temp_c: Option<f64>,
    /// Oil temperature, degC.
    pub oil_temp_c: Option<f64>,
    /// Oil pressure, bar.
    pub oil_pressure_bar: Option<f64>,
    /// Turbo boost, bar (gauge).
    pub boost_bar: Option<f64>,
    /// Engine power, W.
    pub engine_power_w: Option<f64>,
    /// Engine torque, N m.
    pub engine_torque_nm: Option<f64>,
    /// Dashboard lights.
    pub lights: Option<DashLights>,
}

/// A summary of any decoded packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DashView {
    /// The format it came in.
    pub format: Format,
    /// Tick sequence (native only).
    pub sequence: Option<u32>,
    /// Simulation time, s.
    pub time_s: Option<f64>,
    /// Speed, m/s.
    pub speed_mps: f64,
    /// Engine speed, rpm.
    pub rpm: Option<f64>,
    /// Rev limiter, rpm.
    pub max_rpm: Option<f64>,
    /// Gear: -1 R, 0 N, 1.. forward.
    pub gear: Option<i8>,
    /// Throttle 0..1.
    pub throttle: Option<f64>,
    /// Brake 0..1.
    pub brake: Option<f64>,
    /// Clutch pedal 0..1.
    pub clutch: Option<f64>,
    /// Steering -1..1, positive left.
    pub steer: Option<f64>,
    /// Handbrake 0..1.
    pub handbrake: Option<f64>,
    /// Steering-wheel angle, rad, positive left.
    pub steering_wheel_angle_rad: Option<f64>,
    /// Steering-column torque, N m, positive pulling left.
    pub steering_torque_nm: Option<f64>,
    /// Lateral acceleration, g, positive left.
    pub g_lateral: Option<f64>,
    /// Longitudinal acceleration, g, positive accelerating.
    pub g_longitudinal: Option<f64>,
    /// World position, m (z up).
    pub position_m: Option<[f64; 3]>,
    /// Wheels FL, FR, RL, RR.
    pub wheels: Option<[DashWheel; 4]>,
    /// Lap timing.
    pub laps: Option<DashLaps>,
    /// Loop health (native only).
    pub health: Option<LoopHealth>,
    /// Force-feedback state (native only).
    pub ffb: Option<FfbStatus>,
    /// Engine and car gauges.
    pub gauges: DashGauges,
}

/// Pounds per square inch in kPa.
const KPA_PER_PSI: f64 = 6.894_757;
/// Pounds per square inch in bar.
const BAR_PER_PSI: f64 = KPA_PER_PSI / 100.0;

/// `Some(v)` unless `v` is exactly 0, which these fields send for "not modelled".
fn unless_zero(v: f64) -> Option<f64> {
    (v != 0.0).then_some(v)
}

fn fahrenheit_to_celsius(f: f64) -> f64 {
    (f - 32.0) * 5.0 / 9.0
}

fn f(v: F32) -> f64 {
    f64::from(v.get())
}

fn norm(v: [F32; 3]) -> f64 {
    v.iter().map(|c| f(*c) * f(*c)).sum::<f64>().sqrt()
}

impl DashView {
    fn empty(format: Format, speed_mps: f64) -> DashView {
        DashView {
            format,
            sequence: None,
            time_s: None,
            speed_mps,
            rpm: None,
            max_rpm: None,
            gear: None,
            throttle: None,
            brake: None,
            clutch: None,
            steer: None,
            handbrake: None,
            steering_wheel_angle_rad: None,
            steering_torque_nm: None,
            g_lateral: None,
            g_longitudinal: None,
            position_m: None,
            wheels: None,
            laps: None,
            health: None,
            ffb: None,
            gauges: DashGauges::default(),
        }
    }

    fn from_outgauge(format: Format, p: &OutGaugePacket) -> DashView {
        let mut view = DashView::empty(format, f(p.speed_mps));
        view.time_s = Some(f64::from(p.time_ms.get()) / 1000.0);
        view.rpm = Some(f(p.rpm));
        view.gear = Some(gear_from_lfs(p.gear));
        view.throttle = Some(f(p.throttle));
        view.brake = Some(f(p.brake));
        view.clutch = Some(f(p.clutch));
        view.gauges = DashGauges {
            fuel_fraction: Some(f(p.fuel)),
            engine_temp_c: Some(f(p.engine_temp_c)),
            oil_temp_c: Some(f(p.oil_temp_c)),
            oil_pressure_bar: Some(f(p.oil_pressure_bar)),
            boost_bar: Some(f(p.turbo_bar)),
            lights: Some(DashLights {
                available: p.dash_lights.get(),
                on: p.show_lights.get(),
            }),
            ..DashGauges::default()
        };
        view
    }

    fn from_codemasters(format: Format, p: &codemasters::CodemastersPacket) -> DashView {
        let mut view = DashView::empty(format, f(p.speed));
        view.time_s = Some(f(p.total_time));
        view.rpm = Some(f(p.engine_rate) * 10.0);
        view.max_rpm = Some(f(p.max_rpm) * 10.0);
        view.gear = Some(codemasters::gear_from_codemasters(p.gear.get()));
        view.throttle = Some(f(p.throttle));
        view.brake = Some(f(p.brake));
        view.clutch = Some(f(p.clutch));
        view.steer = Some(-f(p.steer));
        view.g_lateral = Some(f(p.g_force_lateral));
        view.g_longitudinal = Some(f(p.g_force_longitudinal));
        view.position_m = Some([f(p.position[0]), f(p.position[2]), f(p.position[1])]);
        let mut wheels = [DashWheel::default(); 4];
        for (cm, &ours) in codemasters::CODEMASTERS_WHEEL_ORDER.iter().enumerate() {
            let wheel = &mut wheels[ours];
            wheel.suspension_travel_m = Some(f(p.suspension_position[cm]) / 1000.0);
            wheel.suspension_velocity_mps = Some(f(p.suspension_velocity[cm]) / 1000.0);
            wheel.patch_speed_mps = Some(f(p.wheel_patch_speed[cm]));
            wheel.brake_temperature_c = unless_zero(f(p.brake_temperature[cm]));
            wheel.tyre_pressure_kpa =
                unless_zero(f(p.tyre_pressure[cm])).map(|psi| psi * KPA_PER_PSI);
        }
        view.wheels = Some(wheels);
        view.laps = Some(DashLaps {
            laps_completed: Some(f(p.laps_completed).clamp(0.0, f64::from(u32::MAX)) as u32),
            current_lap_s: Some(f(p.lap_time)),
            last_lap_s: Some(f(p.last_lap_time)),
            best_lap_s: None,
            lap_distance_m: Some(f(p.lap_distance)),
            sector: Some(f(p.sector).clamp(0.0, 2.0) as u8),
            sector_times_s: Some([f(p.sector1_time), f(p.sector2_time)]),
            race_position: unless_zero(f(p.race_position).clamp(0.0, f64::from(u32::MAX)))
                .map(|position| position as u32),
        });
        let capacity = f(p.fuel_capacity);
        view.gauges.fuel_fraction = (capacity > 0.0).then(|| f(p.fuel_in_tank) / capacity);
        view
    }

    fn set_outsim_main(&mut self, main: &OsMain) {
        self.position_m = Some(main.position.map(|p| f64::from(p.get()) / POSITION_SCALE));
    }

    fn from_forza(format: Format, sled: &Sled, dash: Option<&Dash>) -> DashView {
        let speed = dash.map_or_else(|| norm(sled.velocity), |d| f(d.speed));
        let mut view = DashView::empty(format, speed);
        view.time_s = Some(f64::from(sled.timestamp_ms.get()) / 1000.0);
        view.rpm = Some(f(sled.current_engine_rpm));
        view.max_rpm = Some(f(sled.engine_max_rpm));
        view.g_lateral = Some(-f(sled.acceleration[0]) / STANDARD_GRAVITY_MPS2);
        view.g_longitudinal = Some(f(sled.acceleration[2]) / STANDARD_GRAVITY_MPS2);
        let mut wheels = [DashWheel::default(); 4];
        for (i, w) in wheels.iter_mut().enumerate() {
            w.angular_velocity_radps = Some(f(sled.wheel_rotation_speed[i]));
            w.slip_ratio = Some(f(sled.tire_slip_ratio[i]) * forza::NOMINAL_PEAK_SLIP_RATIO);
            w.suspension_travel_m = Some(f(sled.suspension_travel_meters[i]));
            w.slip_angle_rad =
                Some(f(sled.tire_slip_angle[i]) * forza::NOMINAL_PEAK_SLIP_ANGLE_RAD);
            w.combined_slip = Some(f(sled.tire_combined_slip[i]));
            w.temperature_c = dash.map(|d| fahrenheit_to_celsius(f(d.tire_temp[i])));
        }
        view.wheels = Some(wheels);
        if let Some(d) = dash {
            view.gear = Some(gear_from_forza(d.gear));
            view.throttle = Some(f64::from(d.accel) / 255.0);
            view.brake = Some(f64::from(d.brake) / 255.0);
            view.clutch = Some(f64::from(d.clutch) / 255.0);
            view.handbrake = Some(f64::from(d.hand_brake) / 255.0);
            view.steer = Some(-f64::from(d.steer) / 127.0);
            view.position_m = Some([f(d.position[2]), -f(d.position[0]), f(d.position[1])]);
            view.laps = Some(DashLaps {
                laps_completed: Some(u32::from(d.lap_number.get())),
                current_lap_s: Some(f(d.current_lap)),
                last_lap_s: Some(f(d.last_lap)),
                best_lap_s: Some(f(d.best_lap)),
                race_position: (d.race_position != 0).then_some(u32::from(d.race_position)),
                ..DashLaps::default()
            });
            view.gauges = DashGauges {
                fuel_fraction: Some(f(d.fuel)),
                boost_bar: Some(f(d.boost) * BAR_PER_PSI),
                engine_power_w: Some(f(d.power)),
                engine_torque_nm: Some(f(d.torque)),
                ..DashGauges::default()
            };
        }
        view
    }
}

impl Decoded {
    /// The format this packet was decoded as.
    pub fn format(&self) -> Format {
        match self {
            Decoded::Native(_) => Format::Native,
            Decoded::OutGauge { id, .. } => Format::OutGauge { id: *id },
            Decoded::OutSim { id, .. } => Format::OutSim { id: *id },
            Decoded::OutSimPack2(p) => Format::OutSimPack2 {
                options: p.options,
                id: p.id.unwrap_or(0),
            },
            Decoded::ForzaSled(_) => Format::ForzaSled,
            Decoded::ForzaFm7Dash(_) => Format::ForzaFm7Dash,
            Decoded::ForzaHorizon(_) => Format::ForzaHorizon,
            Decoded::ForzaFm2023(_) => Format::ForzaFm2023,
            Decoded::Codemasters(_) => Format::Codemasters,
            Decoded::BeamNgMotionSim(_) => Format::BeamNgMotionSim,
            Decoded::F1 { year, packet, .. } => Format::F1 {
                year: *year,
                packet: *packet,
            },
        }
    }

    /// The common dashboard summary of this packet.
    pub fn dash_view(&self) -> DashView {
        let format = self.format();
        match self {
            Decoded::Native(p) => {
                // A native packet that does not convert (bad enum code) still shows its
                // continuous channels; `to_frame` only fails on codes.
                let Ok(frame) = p.to_frame() else {
                    return DashView::empty(format, p.motion.speed_mps.get());
                };
                let car = &frame.car;
                let mut view = DashView::empty(format, car.speed_mps);
                view.sequence = Some(frame.sequence);
                view.time_s = Some(car.time_s);
                view.rpm = Some(car.drivetrain.engine_rpm);
                view.max_rpm = Some(car.drivetrain.max_rpm);
                view.gear = Some(car.drivetrain.gear);
                view.throttle = Some(car.controls.throttle);
                view.brake = Some(car.controls.brake);
                view.clutch = Some(car.controls.clutch);
                view.steer = Some(car.controls.steering);
                view.handbrake = Some(car.controls.handbrake);
                view.steering_wheel_angle_rad = Some(car.steering_wheel_angle_rad);
                view.steering_torque_nm = Some(car.steering_torque_nm);
                view.g_lateral = Some(car.acceleration_body_mps2[1] / STANDARD_GRAVITY_MPS2);
                view.g_longitudinal = Some(car.acceleration_body_mps2[0] / STANDARD_GRAVITY_MPS2);
                view.position_m = Some(car.position_m);
                view.wheels = Some(car.wheels.map(|w| DashWheel {
                    angular_velocity_radps: Some(w.angular_velocity_radps),
                    slip_ratio: Some(w.slip_ratio),
                    suspension_travel_m: Some(w.suspension_travel_m),
                    load_n: Some(w.load_n),
                    temperature_c: Some(w.temperature_c),
                    slip_angle_rad: Some(w.slip_angle_rad),
                    combined_slip: None,
                    patch_speed_mps: Some(w.angular_velocity_radps * w.radius_m),
                    suspension_velocity_mps: Some(w.suspension_velocity_mps),
                    brake_temperature_c: None,
                    tyre_pressure_kpa: Some(w.pressure_kpa),
                    tyre_wear: Some(w.wear),
                }));
                view.laps = Some(DashLaps {
                    laps_completed: Some(car.lap.laps_completed),
                    current_lap_s: Some(car.lap.current_lap_s),
                    last_lap_s: Some(car.lap.last_lap_s),
                    best_lap_s: Some(car.lap.best_lap_s),
                    lap_distance_m: Some(car.lap.distance_m),
                    sector: Some(car.lap.sector),
                    sector_times_s: Some([car.lap.sector_times_s[0], car.lap.sector_times_s[1]]),
                    race_position: None,
                });
                view.health = Some(frame.health);
                view.ffb = Some(frame.ffb);
                view
            }
            Decoded::OutGauge { packet: p, .. } => DashView::from_outgauge(format, p),
            Decoded::OutSim { packet: p, .. } => {
                let mut view = DashView::empty(format, norm(p.main.velocity));
                view.time_s = Some(f64::from(p.time_ms.get()) / 1000.0);
                view.set_outsim_main(&p.main);
                view
            }
            Decoded::OutSimPack2(p) => {
                let speed = p.main.map_or(0.0, |m| norm(m.velocity));
                let mut view = DashView::empty(format, speed);
                view.time_s = p.time_ms.map(|t| f64::from(t) / 1000.0);
                if let Some(main) = &p.main {
                    view.set_outsim_main(main);
                }
                if let Some(inputs) = &p.inputs {
                    view.throttle = Some(f(inputs.throttle));
                    view.brake = Some(f(inputs.brake));
                    view.clutch = Some(f(inputs.clutch));
                    view.handbrake = Some(f(inputs.handbrake));
                }
                if let Some(drive) = &p.drive {
                    view.gear = Some(gear_from_lfs(drive.gear));
                    view.rpm = Some(
                        f(drive.engine_angular_velocity_radps) / super::convert::RADPS_PER_RPM,
                    );
                }
                if let Some(distance) = &p.distance {
                    view.laps = Some(DashLaps {
                        lap_distance_m: Some(f(distance.current_lap_distance_m)),
                        ..DashLaps::default()
                    });
                }
                if let Some(lfs_wheels) = &p.wheels {
                    let mut wheels = [DashWheel::default(); 4];
                    for (w, &ours) in lfs_wheels.iter().zip(&LFS_WHEEL_ORDER) {
                        wheels[ours] = DashWheel {
                            angular_velocity_radps: Some(f(w.angular_velocity_radps)),
                            slip_ratio: Some(f(w.slip_ratio)),
                            suspension_travel_m: Some(f(w.suspension_deflection_m)),
                            load_n: Some(f(w.vertical_load_n)),
                            temperature_c: Some(f64::from(w.air_temp_c)),
                            slip_angle_rad: Some(f(w.tan_slip_angle).atan()),
                            ..DashWheel::default()
                        };
                    }
                    view.wheels = Some(wheels);
                }
                if let Some(extra) = &p.extra {
                    view.steering_torque_nm = Some(f(extra.steer_torque_nm));
                }
                view
            }
            Decoded::ForzaSled(s) => DashView::from_forza(format, s, None),
            Decoded::ForzaFm7Dash(p) => DashView::from_forza(format, &p.sled, Some(&p.dash)),
            Decoded::ForzaHorizon(p) => DashView::from_forza(format, &p.sled, Some(&p.dash)),
            Decoded::ForzaFm2023(p) => {
                let mut view = DashView::from_forza(format, &p.sled, Some(&p.dash));
                if let Some(wheels) = view.wheels.as_mut() {
                    for (w, wear) in wheels.iter_mut().zip(p.tire_wear) {
                        w.tyre_wear = Some(f(wear));
                    }
                }
                view
            }
            Decoded::Codemasters(p) => DashView::from_codemasters(format, p),
            Decoded::BeamNgMotionSim(p) => {
                let mut view = DashView::empty(format, norm(p.velocity));
                view.position_m = Some(p.position.map(f));
                view
            }
            Decoded::F1 { sample, .. } => {
                let car = &sample.car;
                let mut view = DashView::empty(format, car.speed_mps.unwrap_or(0.0));
                view.time_s = sample.game_time_s;
                view.rpm = car.engine_rpm;
                view.max_rpm = car.max_rpm;
                view.gear = car.gear;
                view.throttle = car.throttle;
                view.brake = car.brake;
                view.clutch = car.clutch;
                view.steer = car.steer;
                view.position_m = sample.motion.position_m;
                view.gauges.fuel_fraction = car.fuel_fraction;
                view
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::{decode_any, MAX_PACKET_LEN};
    use zerocopy::IntoBytes;

    fn frame() -> crate::Frame {
        let mut frame = crate::Frame::default();
        let car = &mut frame.car;
        car.speed_mps = 30.0;
        car.controls.handbrake = 0.4;
        car.controls.steering = -0.5;
        car.lap.sector = 1;
        car.lap.sector_times_s = [31.5, 0.0, 0.0];
        for wheel in &mut car.wheels {
            wheel.slip_angle_rad = 0.07;
            wheel.slip_ratio = 0.05;
            wheel.radius_m = 0.3;
            wheel.angular_velocity_radps = 100.0;
            wheel.suspension_velocity_mps = 0.2;
        }
        frame
    }

    fn view_of(format: Format, frame: &crate::Frame) -> DashView {
        let mut bytes = [0u8; MAX_PACKET_LEN];
        let len = format.encode(frame, &mut bytes).unwrap();
        decode_any(&bytes[..len]).unwrap().dash_view()
    }

    #[test]
    fn forza_carries_slip_angle_combined_slip_handbrake_and_gauges() {
        let view = view_of(Format::ForzaHorizon, &frame());
        let wheel = view.wheels.unwrap()[0];
        assert!((wheel.slip_angle_rad.unwrap() - 0.07).abs() < 1e-6);
        // Normalised: hypot(0.05 / 0.1, 0.07 / 0.14) = hypot(0.5, 0.5).
        assert!((wheel.combined_slip.unwrap() - 0.5f64.hypot(0.5)).abs() < 1e-6);
        assert_eq!(wheel.load_n, None, "Forza sends no wheel load");
        assert!((view.handbrake.unwrap() - 102.0 / 255.0).abs() < 1e-9);
        assert!((view.steer.unwrap() + 64.0 / 127.0).abs() < 1e-9);
        assert_eq!(view.steering_wheel_angle_rad, None);
        assert_eq!(view.steering_torque_nm, None);
        assert_eq!(view.gauges.fuel_fraction, Some(1.0));
        assert_eq!(view.gauges.boost_bar, Some(0.0));
        assert_eq!(view.laps.unwrap().race_position, None, "0 means no race");
        assert_eq!(view.gauges.lights, None);
    }

    #[test]
    fn codemasters_carries_sectors_wheel_speeds_and_suspension_velocity() {
        let view = view_of(Format::Codemasters, &frame());
        let laps = view.laps.unwrap();
        assert_eq!(laps.sector, Some(1));
        assert_eq!(laps.sector_times_s, Some([31.5, 0.0]));
        assert_eq!(laps.race_position, None);
        let wheel = view.wheels.unwrap()[2];
        assert!((wheel.patch_speed_mps.unwrap() - 30.0).abs() < 1e-4);
        assert!((wheel.suspension_velocity_mps.unwrap() - 0.2).abs() < 1e-6);
        // rigd does not model brake temperature or tyre pressure and sends 0: not shown.
        assert_eq!(wheel.brake_temperature_c, None);
        assert_eq!(wheel.tyre_pressure_kpa, None);
        assert_eq!(view.gauges.fuel_fraction, Some(1.0));
    }

    #[test]
    fn codemasters_brake_temperature_and_pressure_from_a_game() {
        let mut packet = codemasters::encode(&frame());
        // Wheel order RL, RR, FL, FR: index 2 is our FL (0).
        packet.brake_temperature[2] = F32::new(450.0);
        packet.tyre_pressure[2] = F32::new(26.0);
        packet.race_position = F32::new(4.0);
        packet.fuel_in_tank = F32::new(15.0);
        packet.fuel_capacity = F32::new(60.0);
        let view = decode_any(packet.as_bytes()).unwrap().dash_view();
        let front_left = view.wheels.unwrap()[0];
        assert_eq!(front_left.brake_temperature_c, Some(450.0));
        assert!((front_left.tyre_pressure_kpa.unwrap() - 179.26).abs() < 0.01);
        assert_eq!(view.laps.unwrap().race_position, Some(4));
        assert_eq!(view.gauges.fuel_fraction, Some(0.25));
    }

    #[test]
    fn outgauge_carries_gauges_and_lights() {
        let mut packet = super::super::lfs::outgauge::encode(&frame());
        packet.engine_temp_c = F32::new(91.0);
        packet.oil_pressure_bar = F32::new(3.5);
        packet.fuel = F32::new(0.3);
        let view = decode_any(packet.as_bytes()).unwrap().dash_view();
        assert_eq!(view.gauges.engine_temp_c, Some(91.0));
        assert_eq!(view.gauges.oil_pressure_bar, Some(3.5));
        assert!((view.gauges.fuel_fraction.unwrap() - 0.3).abs() < 1e-6);
        let lights = view.gauges.lights.unwrap();
        // rigd's encoder: shift off (rpm 0), handbrake on (0.4), neutral on (gear 0).
        use super::super::lfs::outgauge::{DL_HANDBRAKE, DL_NEUTRAL, DL_SHIFT};
        assert_eq!(lights.state(DL_SHIFT), Some(false));
        assert_eq!(lights.state(DL_HANDBRAKE), Some(true));
        assert_eq!(lights.state(DL_NEUTRAL), Some(true));
        assert_eq!(lights.state(1 << 10), None, "no ABS light in this car");
        assert_eq!(
            view.handbrake, None,
            "OutGauge has only the light, no position"
        );
        assert_eq!(view.wheels, None);
    }
}
