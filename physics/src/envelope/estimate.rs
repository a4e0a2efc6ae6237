//! An [`Envelope`] computed from the car data without driving: what lap simulation and the
//! robot use when no measured envelope file is given.
//!
//! - Lateral: each axle carries its share of the car's mass; its two tyres run at their peak
//!   friction `|PDY1 + PDY2 dfz|` (the axle's coefficient set and grip scale) at the static
//!   load plus the axle's downforce, shifted left/right by the lateral load transfer the
//!   axle's share of roll stiffness (springs and anti-roll bar) gives it. Load sensitivity
//!   makes the transfer cost grip. The driven wheels also push the car through the turn
//!   against drag, rolling resistance and the tyres' own cornering drag (the lateral force
//!   times the tangent of the peak slip angle); an open differential gives both wheels the
//!   same thrust, so the light inside wheel runs out first (the friction ellipse takes the
//!   thrust out of its lateral capacity). That is why the limit falls with speed. The car's
//!   limit is the first axle to saturate.
//! - Braking, under the longitudinal load transfer, plus drag and rolling resistance: with ABS
//!   every wheel at its peak longitudinal friction, capped by each axle's share of the brake
//!   torque; without, one line pressure split by the brake bias, so the axle that reaches its
//!   peak first (the race car's light rear) sets the total (more pedal only locks it), as the
//!   measurement's best pedal finds.
//! - Drive: full-throttle engine torque (net curve, clutch capacity, the limiter's fade) in
//!   the gear giving the most acceleration, through the gearbox efficiency; capped by the
//!   driven axle's traction with the load moved onto or off it by the acceleration; less drag
//!   and rolling resistance; the engine's and wheels' inertia accelerated with the car (in
//!   first gear the engine alone adds a quarter of the road car's mass).
//!   Below the launch engine speed the clutch slips (the engine runs at the launch speed);
//!   past the top gear's rev limit the engine gives nothing and the car coasts.
//! - Upshift speeds: where the next gear accelerates the car harder (or the rev limit).
//! - Shift time: the gearbox's, plus the clutch work of a box that needs the pedal (as the
//!   robot shifts: [`crate::robot::gears::CLUTCH_WORK_S`]).
//! - The g-g shape between the axes: the friction circle (exponent 2) for braking; for
//!   driving the exponent through the drive left in a turn at the measurement's two combined
//!   points (half and 0.8 of the lateral limit at 20 m/s): the driven axle's traction beside
//!   its lateral force, through an open differential twice the light inside wheel's, less the
//!   tyres' cornering drag (the road car: see `docs/lapsim.md`).
//!
//! What it leaves out (so a measured envelope is better): camber and tyre temperature,
//! suspension geometry (roll centres), transient tyre and relaxation effects, and the
//! differentials' locking (a limited-slip axle is treated as sharing thrust by load). Its error against the
//! road car's measured figures is stated in `docs/lapsim.md` and held by a test.

use super::measure::{exponent_through, COMBINED_SHARES, COMBINED_SPEED_MPS};
use super::{Envelope, EnvelopePoint, EnvelopeSource, Provenance};
use crate::aero::AIR_DENSITY_KG_PER_M3;
use crate::drivetrain::engine::{Engine, LIMITER_BAND_RPM};
use crate::drivetrain::spec::{DifferentialSpec, Layout};
use crate::spec::{CarSpec, GRAVITY_MPS2};

/// Speed step between the estimate's points, m/s.
const SPEED_STEP_MPS: f64 = 2.0;
/// Highest speed estimated, m/s (the robot's planning ceiling).
const TOP_SPEED_MPS: f64 = 90.0;
/// Engine speed held by the slipping clutch at a launch: idle plus this share of the range.
const LAUNCH_FRACTION: f64 = 0.35;
/// Speed resolution of the upshift-speed search, m/s.
const UPSHIFT_SEARCH_STEP_MPS: f64 = 0.05;

/// What the estimate needs from the car, per axle (0 front, 1 rear).
struct CarModel<'a> {
    car: &'a CarSpec,
    engine: Engine,
    mass_kg: f64,
    /// Static axle loads, N.
    axle_load_n: [f64; 2],
    /// Axle share of the total roll stiffness.
    roll_share: [f64; 2],
    track_m: [f64; 2],
    /// Tyre rolling radius at the static load, m (as the car's wheels roll).
    rolling_radius_m: f64,
    /// Share of the driving thrust each axle gives.
    drive_share: [f64; 2],
    /// Whether each axle's differential splits torque equally (open).
    open_differential: [bool; 2],
    /// Tangent of the slip angle at the lateral force peak (static load): cornering drag per
    /// unit of lateral force.
    cornering_drag_ratio: f64,
}

impl CarModel<'_> {
    fn new(car: &CarSpec) -> CarModel<'_> {
        let chassis = &car.chassis;
        let weight = chassis.mass_kg * GRAVITY_MPS2;
        let front_share = 1.0 - chassis.cog_to_front_axle_m / chassis.wheelbase_m;
        let track_m = [chassis.track_front_m, chassis.track_rear_m];
        let roll = |corner: &crate::suspension::SuspensionSpec, track: f64| {
            (corner.spring_rate_n_per_m + 2.0 * corner.anti_roll_bar_n_per_m) * track * track / 2.0
        };
        let roll_front = roll(&car.suspension.front, track_m[0]);
        let roll_rear = roll(&car.suspension.rear, track_m[1]);
        let total = roll_front + roll_rear;
        let drivetrain = &car.drivetrain;
        let drive_share = match drivetrain.layout {
            Layout::Fwd => [1.0, 0.0],
            Layout::Rwd => [0.0, 1.0],
            Layout::Awd => {
                let front = drivetrain.front_torque_fraction.unwrap_or(0.5);
                [front, 1.0 - front]
            }
        };
        let is_open = |differential: &Option<DifferentialSpec>| {
            matches!(differential, None | Some(DifferentialSpec::Open {}))
        };
        let axle_load_n = [weight * front_share, weight * (1.0 - front_share)];
        CarModel {
            drive_share,
            open_differential: [
                is_open(&drivetrain.front_differential),
                is_open(&drivetrain.rear_differential),
            ],
            cornering_drag_ratio: peak_slip_tangent(car, 0.25 * (axle_load_n[0] + axle_load_n[1])),
            car,
            engine: Engine::new(&car.drivetrain.engine),
            mass_kg: chassis.mass_kg,
            axle_load_n,
            rolling_radius_m: rolling_radius_m(car),
            roll_share: [roll_front / total, roll_rear / total],
            track_m,
        }
    }

    fn dynamic_pressure(speed_mps: f64) -> f64 {
        0.5 * AIR_DENSITY_KG_PER_M3 * speed_mps * speed_mps
    }

    /// Static load plus downforce per axle at `speed_mps`, N.
    fn axle_loads(&self, speed_mps: f64) -> [f64; 2] {
        let q = Self::dynamic_pressure(speed_mps);
        let aero = &self.car.aero;
        [
            self.axle_load_n[0] + q * aero.downforce_area_front_m2,
            self.axle_load_n[1] + q * aero.downforce_area_rear_m2,
        ]
    }

    /// Drag plus rolling resistance at `speed_mps`, N.
    fn resistance_n(&self, speed_mps: f64) -> f64 {
        let [front, rear] = self.axle_loads(speed_mps);
        Self::dynamic_pressure(speed_mps) * self.car.aero.drag_area_m2
            + self.car.tyre.rolling_resistance * (front + rear)
    }

    /// Peak lateral force of the axle's wheel at `load_n`, N.
    fn lateral_force(&self, axle: usize, load_n: f64) -> f64 {
        let tyre = &self.car.tyre;
        let load = load_n.max(0.0);
        tyre.axle_mf(axle).peak_mu_y(load) * tyre.axle_grip(axle).mu_y * load
    }

    /// Peak longitudinal force of the axle's wheel at `load_n`, N.
    fn longitudinal_force(&self, axle: usize, load_n: f64) -> f64 {
        let tyre = &self.car.tyre;
        let load = load_n.max(0.0);
        tyre.axle_mf(axle).peak_mu_x(load) * tyre.axle_grip(axle).mu_x * load
    }

    /// Steady lateral limit at `speed_mps`, m/s^2: the highest `ay` both axles can carry.
    fn lateral_limit(&self, speed_mps: f64) -> f64 {
        let loads = self.axle_loads(speed_mps);
        let height = self.car.chassis.cog_height_m;
        let carries = |ay: f64| {
            (0..2).all(|axle| {
                let transfer =
                    self.mass_kg * ay * height * self.roll_share[axle] / self.track_m[axle];
                let wheel = 0.5 * loads[axle];
                let thrust = self.drive_share[axle]
                    * (self.resistance_n(speed_mps)
                        + self.mass_kg * ay * self.cornering_drag_ratio);
                let wheel_loads = [wheel + transfer, wheel - transfer];
                let capacity: f64 = wheel_loads
                    .iter()
                    .map(|&load| {
                        let share = if self.open_differential[axle] {
                            0.5
                        } else {
                            load.max(0.0) / loads[axle]
                        };
                        let thrust_used = (share * thrust
                            / self.longitudinal_force(axle, load).max(1e-9))
                        .min(1.0);
                        self.lateral_force(axle, load) * (1.0 - thrust_used * thrust_used).sqrt()
                    })
                    .sum();
                let needed = self.mass_kg * ay * self.axle_load_n[axle]
                    / (self.axle_load_n[0] + self.axle_load_n[1]);
                capacity >= needed
            })
        };
        bisect(carries, 0.0, 60.0)
    }

    /// Straight-line braking limit at `speed_mps`, m/s^2 (positive).
    fn braking_limit(&self, speed_mps: f64) -> f64 {
        let loads = self.axle_loads(speed_mps);
        let brakes = &self.car.brakes;
        let radius = self.rolling_radius_m;
        let torque_cap = [
            brakes.max_torque_nm * brakes.front_bias / radius,
            brakes.max_torque_nm * (1.0 - brakes.front_bias) / radius,
        ];
        let resistance = self.resistance_n(speed_mps);
        let wheelbase = self.car.chassis.wheelbase_m;
        let height = self.car.chassis.cog_height_m;
        let bias = [brakes.front_bias, 1.0 - brakes.front_bias];
        let reaches = |decel: f64| {
            let transfer = self.mass_kg * decel * height / wheelbase;
            let axle_loads = [loads[0] + transfer, loads[1] - transfer];
            let peak = |axle: usize| 2.0 * self.longitudinal_force(axle, 0.5 * axle_loads[axle]);
            let force: f64 = if brakes.abs {
                // Each wheel held at its peak, the pedal's torque the cap.
                (0..2).map(|axle| peak(axle).min(torque_cap[axle])).sum()
            } else {
                // One line pressure: the bias splits the force, and the axle that reaches its
                // peak first locks (more pedal only slides it), so that axle sets the total.
                (0..2)
                    .filter(|&axle| bias[axle] > 0.0)
                    .map(|axle| peak(axle) / bias[axle])
                    .fold(brakes.max_torque_nm / radius, f64::min)
            };
            force + resistance >= self.mass_kg * decel
        };
        bisect(reaches, 0.0, 60.0)
    }

    /// Wheel force at full throttle in forward gear `gear` (0-based) at `speed_mps`, N; `None`
    /// past the rev limit.
    fn engine_force_in_gear(&self, gear: usize, speed_mps: f64) -> Option<f64> {
        let drivetrain = &self.car.drivetrain;
        let gearbox = &drivetrain.gearbox;
        let spec = &drivetrain.engine;
        let ratio = gearbox.forward_ratios[gear] * gearbox.final_drive_ratio;
        let radius = self.rolling_radius_m;
        let rpm = speed_mps / radius * ratio * 60.0 / std::f64::consts::TAU;
        if rpm > spec.rev_limit_rpm {
            return None;
        }
        let launch = spec.idle_rpm + LAUNCH_FRACTION * (spec.rev_limit_rpm - spec.idle_rpm);
        // The smooth limiter fades the torque over the last band below the rev limit.
        let limiter = ((spec.rev_limit_rpm - rpm) / LIMITER_BAND_RPM).clamp(0.0, 1.0);
        let torque =
            (limiter * self.engine.curve_nm(rpm.max(launch))).min(drivetrain.clutch.max_torque_nm);
        Some(torque * ratio * gearbox.efficiency / radius)
    }

    /// Mass plus the rotating parts (engine through gear `gear`, the four wheels) as seen at
    /// the road, kg.
    fn effective_mass_kg(&self, gear: usize) -> f64 {
        let drivetrain = &self.car.drivetrain;
        let gearbox = &drivetrain.gearbox;
        let ratio = gearbox.forward_ratios[gear] * gearbox.final_drive_ratio;
        let radius_sq = self.rolling_radius_m * self.rolling_radius_m;
        let rotating = drivetrain.engine.inertia_kgm2 * ratio * ratio * gearbox.efficiency
            + 4.0 * self.car.tyre.spin_inertia_kgm2;
        self.mass_kg + rotating / radius_sq
    }

    /// Full-throttle acceleration in gear `gear` at `speed_mps` with `traction_n` the most
    /// the driven wheels can push, m/s^2; `None` past the rev limit.
    fn drive_in_gear(&self, gear: usize, speed_mps: f64, traction_n: f64) -> Option<f64> {
        let force = self.engine_force_in_gear(gear, speed_mps)?.min(traction_n);
        Some((force - self.resistance_n(speed_mps)) / self.effective_mass_kg(gear))
    }

    /// Full-throttle acceleration at `speed_mps` in the best gear, m/s^2 (net of drag and
    /// rolling resistance, the rotating parts accelerated too).
    fn drive_limit(&self, speed_mps: f64) -> f64 {
        let loads = self.axle_loads(speed_mps);
        let wheelbase = self.car.chassis.wheelbase_m;
        let height = self.car.chassis.cog_height_m;
        let traction = |accel: f64| {
            let transfer = self.mass_kg * accel.max(0.0) * height / wheelbase;
            let axle_loads = [loads[0] - transfer, loads[1] + transfer];
            let axle = |a: usize| 2.0 * self.longitudinal_force(a, 0.5 * axle_loads[a]);
            match self.car.drivetrain.layout {
                Layout::Fwd => axle(0),
                Layout::Rwd => axle(1),
                Layout::Awd => axle(0) + axle(1),
            }
        };
        let gears = self.car.drivetrain.gearbox.forward_ratios.len();
        // Past the top gear's rev limit the engine gives nothing (the limiter): the car coasts.
        let coasting = -self.resistance_n(speed_mps) / self.mass_kg;
        let best = |traction_n: f64| {
            (0..gears)
                .filter_map(|gear| self.drive_in_gear(gear, speed_mps, traction_n))
                .reduce(f64::max)
                .unwrap_or(coasting)
        };
        // The acceleration the wheel force allows, with the load transfer that acceleration
        // causes: a few fixed-point steps converge (the transfer changes little).
        let mut accel = best(f64::INFINITY);
        for _ in 0..8 {
            accel = best(traction(accel));
        }
        accel
    }

    /// Full-throttle acceleration at `speed_mps` while cornering at `lateral_mps2`, m/s^2: the
    /// driven axles' traction left beside the lateral force each tyre carries (every tyre of an
    /// axle at the same share of its lateral peak, on the friction ellipse), where an open
    /// differential gives both wheels the same torque, so the light inside wheel sets it
    /// (twice its remaining force); less drag, rolling resistance and the tyres' cornering drag
    /// (lateral force times the tangent of the peak slip angle).
    fn drive_in_turn(&self, speed_mps: f64, lateral_mps2: f64) -> f64 {
        let loads = self.axle_loads(speed_mps);
        let height = self.car.chassis.cog_height_m;
        let wheelbase = self.car.chassis.wheelbase_m;
        let static_total = self.axle_load_n[0] + self.axle_load_n[1];
        let traction = |accel: f64| {
            let pitch = self.mass_kg * accel.max(0.0) * height / wheelbase;
            let axle_loads = [loads[0] - pitch, loads[1] + pitch];
            (0..2)
                .filter(|&axle| self.drive_share[axle] > 0.0)
                .map(|axle| {
                    let roll = self.mass_kg * lateral_mps2 * height * self.roll_share[axle]
                        / self.track_m[axle];
                    let wheel = 0.5 * axle_loads[axle];
                    let (inside, outside) = ((wheel - roll).max(0.0), wheel + roll);
                    let needed =
                        self.mass_kg * lateral_mps2 * self.axle_load_n[axle] / static_total;
                    let capacity =
                        self.lateral_force(axle, inside) + self.lateral_force(axle, outside);
                    let used = (needed / capacity.max(1e-9)).min(1.0);
                    let left = (1.0 - used * used).sqrt();
                    let remaining = |load: f64| self.longitudinal_force(axle, load) * left;
                    let axle_force = if self.open_differential[axle] {
                        2.0 * remaining(inside)
                    } else {
                        remaining(inside) + remaining(outside)
                    };
                    // The centre split gives each axle its share of the thrust: the first axle
                    // to run out limits the car.
                    axle_force / self.drive_share[axle]
                })
                .fold(f64::INFINITY, f64::min)
        };
        let cornering_drag = self.mass_kg * lateral_mps2 * self.cornering_drag_ratio;
        let gears = self.car.drivetrain.gearbox.forward_ratios.len();
        let coasting = -(self.resistance_n(speed_mps) + cornering_drag) / self.mass_kg;
        let best = |traction_n: f64| {
            (0..gears)
                .filter_map(|gear| {
                    let force = self.engine_force_in_gear(gear, speed_mps)?.min(traction_n);
                    Some(
                        (force - self.resistance_n(speed_mps) - cornering_drag)
                            / self.effective_mass_kg(gear),
                    )
                })
                .reduce(f64::max)
                .unwrap_or(coasting)
        };
        let mut accel = best(f64::INFINITY);
        for _ in 0..8 {
            accel = best(traction(accel));
        }
        accel
    }

    /// Superellipse exponent of the driving half of the g-g diagram: through the points
    /// [`Self::drive_in_turn`] gives at the measurement's combined runs (the shares
    /// [`COMBINED_SHARES`] of the lateral limit at [`COMBINED_SPEED_MPS`]), the mean of the two
    /// as `rigd envelope` takes it.
    fn drive_exponent(&self) -> f64 {
        let speed = COMBINED_SPEED_MPS;
        let (lateral, axis) = (self.lateral_limit(speed), self.drive_limit(speed));
        let exponents = COMBINED_SHARES.map(|share| {
            let x = (self.drive_in_turn(speed, share * lateral) / axis).max(0.0);
            exponent_through(x, share)
        });
        exponents.iter().sum::<f64>() / exponents.len() as f64
    }

    /// Road speeds of the power-optimal upshifts (where the next gear accelerates the car
    /// harder, or the rev limit), m/s.
    fn upshift_speeds(&self) -> Vec<f64> {
        let gears = self.car.drivetrain.gearbox.forward_ratios.len();
        (0..gears.saturating_sub(1))
            .map(|gear| {
                let mut speed = UPSHIFT_SEARCH_STEP_MPS;
                loop {
                    match self.drive_in_gear(gear, speed, f64::INFINITY) {
                        None => return speed - UPSHIFT_SEARCH_STEP_MPS,
                        Some(accel) => {
                            let next = self
                                .drive_in_gear(gear + 1, speed, f64::INFINITY)
                                .unwrap_or(f64::MIN);
                            if next > accel {
                                return speed;
                            }
                        }
                    }
                    speed += UPSHIFT_SEARCH_STEP_MPS;
                }
            })
            .collect()
    }
}

/// Tyre rolling radius of `car` at its static load (unloaded radius less the deflection
/// under a quarter of the weight), m.
pub fn rolling_radius_m(car: &CarSpec) -> f64 {
    car.tyre.unloaded_radius_m
        - car.chassis.mass_kg * GRAVITY_MPS2 / 4.0 / car.tyre.vertical_stiffness_n_per_m
}

/// Tangent of the slip angle where the car's front tyre's pure lateral force peaks at
/// `load_n` (searched on the coefficient set).
fn peak_slip_tangent(car: &CarSpec, load_n: f64) -> f64 {
    let tyre = &car.tyre;
    let (mf, grip) = (tyre.axle_mf(0), tyre.axle_grip(0));
    let force = |tan_alpha: f64| mf.combined(0.0, tan_alpha, load_n, grip).fy.abs();
    (1..=400)
        .map(|i| f64::from(i) * 0.001)
        .fold((0.0, 0.0), |(best_tan, best_force), tan_alpha| {
            let f = force(tan_alpha);
            if f > best_force {
                (tan_alpha, f)
            } else {
                (best_tan, best_force)
            }
        })
        .0
}

/// The largest `x` in `[low, high]` where `holds(x)` (which holds at `low` and, once false,
/// stays false), to 1e-9.
fn bisect(holds: impl Fn(f64) -> bool, mut low: f64, mut high: f64) -> f64 {
    if holds(high) {
        return high;
    }
    while high - low > 1e-9 {
        let mid = 0.5 * (low + high);
        if holds(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    low
}

impl Envelope {
    /// The envelope of `car` computed from its data (provenance [`EnvelopeSource::Estimated`]);
    /// see the module header for the model and what it leaves out.
    pub fn estimate(car: &CarSpec) -> Envelope {
        let model = CarModel::new(car);
        let count = (TOP_SPEED_MPS / SPEED_STEP_MPS).round() as usize + 1;
        let points = (0..count)
            .map(|i| {
                let speed_mps = i as f64 * SPEED_STEP_MPS;
                EnvelopePoint {
                    speed_mps,
                    lateral_mps2: model.lateral_limit(speed_mps),
                    braking_mps2: model.braking_limit(speed_mps),
                    drive_mps2: model.drive_limit(speed_mps),
                    coast_mps2: model.resistance_n(speed_mps) / model.mass_kg,
                }
            })
            .collect();
        Envelope {
            car_name: car.name.clone(),
            car_digest: crate::identity::digest_of(car),
            provenance: Provenance {
                source: EnvelopeSource::Estimated,
                rigd_version: env!("CARGO_PKG_VERSION").to_string(),
                method: format!(
                    "estimated from the car data every {SPEED_STEP_MPS} m/s to \
                     {TOP_SPEED_MPS} m/s: peak tyre friction with load transfer, downforce, \
                     drag, engine curve and gearing, brake torque, driven-axle traction"
                ),
            },
            points,
            brake_exponent: 2.0,
            drive_exponent: model.drive_exponent(),
            shift_time_s: car.drivetrain.gearbox.shift_time_s
                + if car.drivetrain.gearbox.requires_clutch {
                    crate::robot::gears::CLUTCH_WORK_S
                } else {
                    0.0
                },
            upshift_speeds_mps: model.upshift_speeds(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_road_cars_estimate_and_its_error_against_the_measured_figures() {
        let car = crate::spec::builtin::car("road").unwrap();
        let envelope = Envelope::estimate(&car);
        let lateral_14 = envelope.lateral_limit_mps2(14.0);
        let lateral_50 = envelope.lateral_limit_mps2(50.0);
        let braking = envelope.braking_limit_mps2(100.0 / 3.6);
        println!(
            "slip {:.3}, lateral {lateral_14:.2} at 14, {lateral_50:.2} at 50, braking {braking:.2}, \
             drive {:.2} at 10, upshifts {:?}",
            CarModel::new(&car).cornering_drag_ratio,
            envelope.drive_limit_mps2(10.0),
            envelope.upshift_speeds_mps
        );
        assert_eq!(envelope.provenance.source, EnvelopeSource::Estimated);
        assert_eq!(envelope.upshift_speeds_mps.len(), 4);
        // Measured (issue 25): 8.1 m/s^2 at 14 m/s, 7.6 at 50 m/s, braking 11.7 m/s^2.
        // Stated in docs/lapsim.md: +1.9 %, +1.2 %, +4.1 %.
        let error = |estimated: f64, measured: f64| estimated / measured - 1.0;
        assert!(error(lateral_14, 8.1).abs() < 0.03, "{lateral_14}");
        assert!(error(lateral_50, 7.6).abs() < 0.03, "{lateral_50}");
        assert!(error(braking, 11.7).abs() < 0.05, "{braking}");
        // The lateral limit falls with speed (the driven wheels' thrust against drag).
        assert!(lateral_50 < lateral_14);
    }

    /// Past its top gear's rev limit (the race car: 86.6 m/s) a car coasts: the estimate's
    /// drive there is the coasting deceleration, not "no gear" (it was -1.8e308, which planned
    /// the race and rally robots to a standstill on the oval, whose turns they take flat out).
    #[test]
    fn past_the_top_gears_rev_limit_the_car_coasts() {
        for name in crate::spec::builtin::car_names() {
            let car = crate::spec::builtin::car(name).unwrap();
            let envelope = Envelope::estimate(&car);
            let top = envelope.points.last().unwrap();
            assert_eq!(top.drive_mps2, -top.coast_mps2, "{name}");
            assert!(
                envelope
                    .points
                    .iter()
                    .all(|p| p.drive_mps2 >= -p.coast_mps2 && p.drive_mps2.is_finite()),
                "{name}"
            );
        }
    }

    /// Without ABS one line pressure brakes both axles in the bias's proportion, so the axle
    /// that reaches its peak first sets the car's braking (the race car: the rear, light under
    /// the load transfer and 40 % of the torque); with ABS each wheel is held at its peak.
    #[test]
    fn without_abs_the_first_axle_to_lock_sets_the_braking_limit() {
        let mut car = crate::spec::builtin::car("race").unwrap();
        assert!(!car.brakes.abs);
        let speed = 20.0;
        let without = Envelope::estimate(&car).braking_limit_mps2(speed);
        let model = CarModel::new(&car);
        let transfer =
            car.chassis.mass_kg * without * car.chassis.cog_height_m / car.chassis.wheelbase_m;
        let rear_load = model.axle_loads(speed)[1] - transfer;
        let rear_peak = 2.0 * model.longitudinal_force(1, 0.5 * rear_load);
        let total = rear_peak / (1.0 - car.brakes.front_bias) + model.resistance_n(speed);
        assert!(
            (total / car.chassis.mass_kg - without).abs() < 1e-6,
            "{without} vs {}",
            total / car.chassis.mass_kg
        );
        car.brakes.abs = true;
        let with = Envelope::estimate(&car).braking_limit_mps2(speed);
        println!("race car braking at {speed} m/s: {without:.2} m/s^2 without ABS, {with:.2} with");
        assert!(without < 0.95 * with, "{without} vs {with}");
    }
}
