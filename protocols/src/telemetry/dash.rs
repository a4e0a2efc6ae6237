//! The common view of a decoded packet: what a dashboard can show whatever format arrived.
//!
//! Every value is converted back to rigd's conventions (SI units, world z-up, wheels FL, FR,
//! RL, RR, gear -1 R / 0 N / 1.., steering +left, g-forces from the kinematic body
//! acceleration with lateral +left and longitudinal +accelerating). A channel the format does
//! not carry is `None`, never a made-up value.

use super::convert::STANDARD_GRAVITY_MPS2;
use super::forza::{self, gear_from_forza, Dash, Sled};
use super::lfs::outsim::{OsMain, LFS_WHEEL_ORDER, POSITION_SCALE};
use super::{codemasters, convert::gear_from_lfs, Decoded, Format};
use crate::frame::{FfbStatus, LoopHealth};
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
            g_lateral: None,
            g_longitudinal: None,
            position_m: None,
            wheels: None,
            laps: None,
            health: None,
            ffb: None,
        }
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
            w.temperature_c = dash.map(|d| (f(d.tire_temp[i]) - 32.0) * 5.0 / 9.0);
        }
        view.wheels = Some(wheels);
        if let Some(d) = dash {
            view.gear = Some(gear_from_forza(d.gear));
            view.throttle = Some(f64::from(d.accel) / 255.0);
            view.brake = Some(f64::from(d.brake) / 255.0);
            view.clutch = Some(f64::from(d.clutch) / 255.0);
            view.steer = Some(-f64::from(d.steer) / 127.0);
            view.position_m = Some([f(d.position[2]), -f(d.position[0]), f(d.position[1])]);
            view.laps = Some(DashLaps {
                laps_completed: Some(u32::from(d.lap_number.get())),
                current_lap_s: Some(f(d.current_lap)),
                last_lap_s: Some(f(d.last_lap)),
                best_lap_s: Some(f(d.best_lap)),
                lap_distance_m: None,
            });
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
                view.g_lateral = Some(car.acceleration_body_mps2[1] / STANDARD_GRAVITY_MPS2);
                view.g_longitudinal = Some(car.acceleration_body_mps2[0] / STANDARD_GRAVITY_MPS2);
                view.position_m = Some(car.position_m);
                view.wheels = Some(car.wheels.map(|w| DashWheel {
                    angular_velocity_radps: Some(w.angular_velocity_radps),
                    slip_ratio: Some(w.slip_ratio),
                    suspension_travel_m: Some(w.suspension_travel_m),
                    load_n: Some(w.load_n),
                    temperature_c: Some(w.temperature_c),
                }));
                view.laps = Some(DashLaps {
                    laps_completed: Some(car.lap.laps_completed),
                    current_lap_s: Some(car.lap.current_lap_s),
                    last_lap_s: Some(car.lap.last_lap_s),
                    best_lap_s: Some(car.lap.best_lap_s),
                    lap_distance_m: Some(car.lap.distance_m),
                });
                view.health = Some(frame.health);
                view.ffb = Some(frame.ffb);
                view
            }
            Decoded::OutGauge { packet: p, .. } => {
                let mut view = DashView::empty(format, f(p.speed_mps));
                view.time_s = Some(f64::from(p.time_ms.get()) / 1000.0);
                view.rpm = Some(f(p.rpm));
                view.gear = Some(gear_from_lfs(p.gear));
                view.throttle = Some(f(p.throttle));
                view.brake = Some(f(p.brake));
                view.clutch = Some(f(p.clutch));
                view
            }
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
                        };
                    }
                    view.wheels = Some(wheels);
                }
                view
            }
            Decoded::ForzaSled(s) => DashView::from_forza(format, s, None),
            Decoded::ForzaFm7Dash(p) => DashView::from_forza(format, &p.sled, Some(&p.dash)),
            Decoded::ForzaHorizon(p) => DashView::from_forza(format, &p.sled, Some(&p.dash)),
            Decoded::ForzaFm2023(p) => DashView::from_forza(format, &p.sled, Some(&p.dash)),
            Decoded::Codemasters(p) => {
                let mut view = DashView::empty(format, f(p.speed));
                view.time_s = Some(f(p.total_time));
                view.rpm = Some(f(p.engine_rate) * 10.0);
                view.max_rpm = Some(f(p.max_rpm) * 10.0);
                view.gear = Some(f(p.gear).round().clamp(-1.0, 127.0) as i8);
                view.throttle = Some(f(p.throttle));
                view.brake = Some(f(p.brake));
                view.clutch = Some(f(p.clutch));
                view.steer = Some(-f(p.steer));
                view.g_lateral = Some(f(p.g_force_lateral));
                view.g_longitudinal = Some(f(p.g_force_longitudinal));
                view.position_m = Some([f(p.position[0]), f(p.position[2]), f(p.position[1])]);
                let mut wheels = [DashWheel::default(); 4];
                for (cm, &ours) in codemasters::CODEMASTERS_WHEEL_ORDER.iter().enumerate() {
                    wheels[ours].suspension_travel_m = Some(f(p.suspension_position[cm]) / 1000.0);
                }
                view.wheels = Some(wheels);
                view.laps = Some(DashLaps {
                    laps_completed: Some(f(p.laps_completed).clamp(0.0, f64::from(u32::MAX)) as u32),
                    current_lap_s: Some(f(p.lap_time)),
                    last_lap_s: Some(f(p.last_lap_time)),
                    best_lap_s: None,
                    lap_distance_m: Some(f(p.lap_distance)),
                });
                view
            }
            Decoded::BeamNgMotionSim(p) => {
                let mut view = DashView::empty(format, norm(p.velocity));
                view.position_m = Some(p.position.map(f));
                view
            }
        }
    }
}
