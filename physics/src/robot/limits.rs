//! What a robot driver knows about its car: grip, geometry, steering range, aero, gearing and
//! brakes, taken from the car document once at construction (never during `drive`), and the
//! grip-only envelope those limits give a robot built without the car's own [`Envelope`].

use crate::envelope::{Envelope, EnvelopePoint, EnvelopeSource, Provenance};
use crate::spec::{CarSpec, GRAVITY_MPS2};

/// Air density used for the aero estimate, kg/m^3.
const AIR_DENSITY_KG_PER_M3: f64 = 1.225;
/// Peak friction of the built-in tyre coefficient set before `grip_scale_*`: the lateral peak
/// of Pacejka's 205/60R15 set near its nominal load (|PDY1| = 0.99, a little more at the
/// lighter loads of a car's corners).
const BASE_TYRE_MU: f64 = 0.99;
/// Relative friction lost per unit of relative load above the nominal load (that set's
/// PDY2 / |PDY1| = 0.145 / 0.99): heavier-loaded tyres grip proportionally less.
const LOAD_SENSITIVITY: f64 = 0.146;
/// The coefficient set's nominal wheel load (FNOMIN), N.
const NOMINAL_LOAD_N: f64 = 4000.0;
/// Most forward gears a robot tracks.
pub const MAX_GEARS: usize = 10;

/// The car as the robot sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DriverLimits {
    /// Lateral friction coefficient at the nominal wheel load.
    pub mu_lat: f64,
    /// Relative friction lost per unit of relative load above [`DriverLimits::nominal_load_n`].
    pub load_sensitivity: f64,
    /// Wheel load at which `mu_lat` and `mu_long` hold, N.
    pub nominal_load_n: f64,
    /// Usable longitudinal friction coefficient (braking).
    pub mu_long: f64,
    /// Fraction of the car's weight on the driven wheels (traction when accelerating).
    pub driven_weight_fraction: f64,
    /// Which wheels the engine drives, in telemetry order (FL, FR, RL, RR): the ones the
    /// robot's traction control watches.
    pub driven_wheels: [bool; 4],
    /// Mass, kg.
    pub mass_kg: f64,
    /// Downforce per speed squared, N/(m/s)^2.
    pub downforce_n_per_mps2: f64,
    /// Wheelbase, m.
    pub wheelbase_m: f64,
    /// Mean road-wheel angle at full steering input, rad.
    pub max_steer_rad: f64,
    /// Half the body width, m.
    pub half_width_m: f64,
    /// Rolling radius of the tyres at the static load, m.
    pub wheel_radius_m: f64,
    /// Forward gear ratios times the final drive (engine turns per wheel turn); 0 past the
    /// last gear. All zero for a car without a gearbox model.
    pub overall_ratios: [f64; MAX_GEARS],
    /// Number of forward gears.
    pub forward_gears: usize,
    /// Rev limit, rpm.
    pub rev_limit_rpm: f64,
    /// Idle speed, rpm.
    pub idle_rpm: f64,
    /// True when a gear change needs the clutch pedal pressed.
    pub shift_needs_clutch: bool,
    /// True for a sequential box (one gear at a time, also out of neutral).
    pub sequential: bool,
    /// True when the clutch engages by itself (centrifugal): no launch control needed.
    pub auto_clutch: bool,
    /// Speed the robot never plans above, m/s.
    pub top_speed_mps: f64,
    /// Deceleration per unit of brake pedal below the tyres' limit (full brake torque over
    /// wheel radius and mass), m/s^2.
    pub brake_decel_per_pedal_mps2: f64,
    /// True when the car has ABS: the robot keeps the pedal and lets it hold the wheels at
    /// their peak slip (without, the robot eases the pedal itself).
    pub abs: bool,
    /// Road speed at which to leave forward gear `i + 1` for the next, m/s (0: near the rev
    /// limit, see [`super::gears`]).
    pub upshift_speeds_mps: [f64; MAX_GEARS],
}

/// Speed step of the grip-only envelope, m/s.
const GRIP_ENVELOPE_STEP_MPS: f64 = 5.0;

impl DriverLimits {
    /// Reads the limits of a validated car document.
    pub fn from_car(car: &CarSpec) -> DriverLimits {
        let gearbox = &car.drivetrain.gearbox;
        let mut overall_ratios = [0.0; MAX_GEARS];
        for (slot, ratio) in overall_ratios.iter_mut().zip(&gearbox.forward_ratios) {
            *slot = ratio * gearbox.final_drive_ratio;
        }
        let front_share = 1.0 - car.chassis.cog_to_front_axle_m / car.chassis.wheelbase_m;
        let driven_weight_fraction = match car.drivetrain.layout {
            crate::drivetrain::spec::Layout::Fwd => front_share,
            crate::drivetrain::spec::Layout::Rwd => 1.0 - front_share,
            crate::drivetrain::spec::Layout::Awd => 1.0,
        };
        let (front_driven, rear_driven) = match car.drivetrain.layout {
            crate::drivetrain::spec::Layout::Fwd => (true, false),
            crate::drivetrain::spec::Layout::Rwd => (false, true),
            crate::drivetrain::spec::Layout::Awd => (true, true),
        };
        DriverLimits {
            driven_wheels: [front_driven, front_driven, rear_driven, rear_driven],
            mu_lat: BASE_TYRE_MU * car.tyre.grip_scale_lat,
            load_sensitivity: LOAD_SENSITIVITY,
            nominal_load_n: NOMINAL_LOAD_N,
            mu_long: BASE_TYRE_MU * car.tyre.grip_scale_long,
            driven_weight_fraction,
            mass_kg: car.chassis.mass_kg,
            downforce_n_per_mps2: 0.5
                * AIR_DENSITY_KG_PER_M3
                * (car.aero.downforce_area_front_m2 + car.aero.downforce_area_rear_m2),
            wheelbase_m: car.chassis.wheelbase_m,
            max_steer_rad: (car.steering.rim_lock_deg / car.steering.ratio).to_radians(),
            half_width_m: 0.5 * car.chassis.body_width_m,
            wheel_radius_m: crate::envelope::estimate::rolling_radius_m(car),
            overall_ratios,
            forward_gears: gearbox.forward_ratios.len().min(MAX_GEARS),
            rev_limit_rpm: car.drivetrain.engine.rev_limit_rpm,
            idle_rpm: car.drivetrain.engine.idle_rpm,
            shift_needs_clutch: gearbox.requires_clutch,
            sequential: gearbox.mode == crate::drivetrain::spec::ShiftMode::Sequential,
            auto_clutch: car.drivetrain.clutch.auto_engage_rpm.is_some(),
            top_speed_mps: 90.0,
            brake_decel_per_pedal_mps2: car.brakes.max_torque_nm
                / (car.tyre.unloaded_radius_m * car.chassis.mass_kg),
            abs: car.brakes.abs,
            upshift_speeds_mps: [0.0; MAX_GEARS],
        }
    }

    /// These limits with the power-optimal upshift speeds of `envelope`.
    pub fn with_upshifts_of(mut self, envelope: &Envelope) -> DriverLimits {
        self.upshift_speeds_mps = [0.0; MAX_GEARS];
        for (slot, speed) in self
            .upshift_speeds_mps
            .iter_mut()
            .zip(&envelope.upshift_speeds_mps)
        {
            *slot = *speed;
        }
        self
    }

    /// The envelope these limits describe by grip alone: `mu_lat` and `mu_long` on the weight
    /// plus downforce, traction on the driven wheels' share, no engine, no drag, no shifts.
    /// What [`crate::robot::Robot::new`] plans with.
    pub fn envelope(&self) -> Envelope {
        let count = (self.top_speed_mps / GRIP_ENVELOPE_STEP_MPS).ceil() as usize + 1;
        let points = (0..count)
            .map(|i| {
                let speed_mps = i as f64 * GRIP_ENVELOPE_STEP_MPS;
                let grip_mps2 =
                    GRAVITY_MPS2 + self.downforce_n_per_mps2 * speed_mps * speed_mps / self.mass_kg;
                EnvelopePoint {
                    speed_mps,
                    lateral_mps2: self.mu_lat * grip_mps2,
                    braking_mps2: self.mu_long * grip_mps2,
                    drive_mps2: self.mu_long * grip_mps2 * self.driven_weight_fraction,
                    coast_mps2: 0.0,
                }
            })
            .collect();
        Envelope {
            car_name: String::new(),
            car_digest: 0,
            provenance: Provenance {
                source: EnvelopeSource::Estimated,
                rigd_version: env!("CARGO_PKG_VERSION").to_string(),
                method: "grip-only, from a robot's driver limits".to_string(),
            },
            points,
            brake_exponent: 2.0,
            drive_exponent: 2.0,
            shift_time_s: 0.0,
            upshift_speeds_mps: Vec::new(),
        }
    }

    /// Friction scale at `speed_mps` from the mean wheel load (weight plus downforce): 1 at
    /// the nominal load, less above it.
    pub fn load_factor(&self, speed_mps: f64) -> f64 {
        let load = (self.mass_kg * 9.81 + self.downforce_n_per_mps2 * speed_mps * speed_mps) / 4.0;
        let relative = (load - self.nominal_load_n) / self.nominal_load_n;
        (1.0 - self.load_sensitivity * relative).clamp(0.5, 1.3)
    }

    /// Engine speed in forward gear `gear` (1-based) at road speed `speed_mps`, rpm.
    pub fn rpm_in_gear(&self, gear: usize, speed_mps: f64) -> f64 {
        if gear == 0 || gear > self.forward_gears {
            return 0.0;
        }
        let wheel_radps = speed_mps / self.wheel_radius_m;
        wheel_radps * self.overall_ratios[gear - 1] * 60.0 / std::f64::consts::TAU
    }
}
