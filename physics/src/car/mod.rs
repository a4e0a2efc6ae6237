//! One car: its parameters (built once from a [`CarSpec`]) and its state, advanced by
//! [`Car::step`] with no allocation.
//!
//! Model: a 6-DOF chassis (total mass for motion in the body's x/y plane, sprung mass along
//! body z, the full inertia tensor about the centre of gravity) on four corners. Each corner
//! has an unsprung mass sliding along the body z axis (travel DOF), a suspension force between
//! it and the body, a tyre spring and damper to the ground, and a wheel spin DOF updated
//! implicitly through the drivetrain. Tyre forces act on the body at the contact point except
//! their component along body z, which loads the unsprung mass. Each tyre also carries its
//! temperatures, pressure and wear ([`crate::tyre::thermal`]), which scale its grip and its
//! vertical spring from the next step on. Integration is semi-implicit
//! (symplectic) Euler. A step that would produce a non-finite state restores the previous pose
//! with the car brought to rest, so no NaN ever leaves `step`; the car records which value
//! went bad, in which phase ([`crate::quarantine`]), for the world to report.
//!
//! Sub-modules: [`step`] (the step's pipeline), [`phases`] (one file per phase: driver
//! inputs, suspension, contact, tyres, wheel spin, chassis forces, motion, telemetry),
//! [`quarantine`] (the finiteness check of the new state and its report), [`barrier`]
//! (collision response), [`body_contact`] (the body on the ground when the car is off its
//! wheels), [`damage`] (breaking parts and what a broken part changes).

mod barrier;
mod body_contact;
mod damage;
mod phases;
mod quarantine;
mod step;

use crate::aero::AeroSpec;
use crate::brakes::Brakes;
use crate::controls::Controls;
use crate::damage::{DamageSpec, DamageTelemetry};
use crate::drivetrain::Drivetrain;
use crate::math::{Mat3, Quat, Vec3};
use crate::quarantine::NonFinite;
use crate::spec::{CarSpec, GRAVITY_MPS2};
use crate::steering::{FrontWheelAngles, Steering};
use crate::suspension::{Alignment, Suspension};
use crate::telemetry::CarTelemetry;
use crate::track::{Track, TrackCoord, TrackHint};
use crate::tyre::thermal::TyreCondition;
use crate::tyre::{SlipState, Tyre};

/// Fixed geometry of one corner.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corner {
    /// Wheel centre at full droop, body frame (origin at the centre of gravity), m.
    pub droop_position: Vec3,
    /// Suspension of this corner.
    pub suspension: Suspension,
    /// Anti-roll bar rate of this corner's axle, N/m.
    pub anti_roll_bar: f64,
    /// Camber, toe and roll centre of this corner.
    pub alignment: Alignment,
}

/// Everything that changes from step to step (plain data: copied to restore after a fault).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CarState {
    /// Centre of gravity, world, m.
    pub position: Vec3,
    /// Orientation, body to world.
    pub orientation: Quat,
    /// Velocity of the centre of gravity, world, m/s.
    pub velocity: Vec3,
    /// Angular velocity, body frame, rad/s.
    pub angular_velocity_body: Vec3,
    /// Suspension compression from droop, m.
    pub travel: [f64; 4],
    /// Velocity of each unsprung mass along the body z axis, m/s.
    pub wheel_vertical_velocity: [f64; 4],
    /// Wheel spin rates, rad/s.
    pub wheel_omega: [f64; 4],
    /// Tyre carcass deflections.
    pub slip: [SlipState; 4],
    /// Tyre temperatures, pressure and wear (and the grip and stiffness factors from them).
    pub tyres: [TyreCondition; 4],
}

/// A car ready to step.
#[derive(Debug, Clone)]
pub struct Car {
    pub(crate) mass_kg: f64,
    pub(crate) sprung_mass_kg: f64,
    pub(crate) inertia: Mat3,
    pub(crate) inverse_inertia: Mat3,
    pub(crate) corners: [Corner; 4],
    /// The corners as built (a reset repairs broken links and rack from them).
    pub(crate) start_corners: [Corner; 4],
    /// Some corner has toe: the steer angles take it (skipped otherwise).
    pub(crate) has_toe: bool,
    pub(crate) tyre: Tyre,
    pub(crate) steering: Steering,
    /// Front road-wheel angles for the last rim angle (refreshed when it changes).
    pub(crate) front_angles: FrontWheelAngles,
    pub(crate) brakes: Brakes,
    pub(crate) brake_spec: crate::brakes::BrakeSpec,
    pub(crate) aero: AeroSpec,
    /// The aero as built (a reset refits broken wings from it).
    pub(crate) start_aero: AeroSpec,
    /// Breakable parts' strengths, when damage is on.
    pub(crate) damage: Option<DamageSpec>,
    /// Body x of the front and rear axles, where the downforce acts, m.
    pub(crate) aero_axles_x_m: [f64; 2],
    pub(crate) drivetrain: Drivetrain,
    /// The drivetrain as built (engine at idle, neutral): a reset restarts from it in place,
    /// without allocating, since a reset runs on the RT thread.
    pub(crate) start_drivetrain: Drivetrain,
    pub(crate) collision_points: [Vec3; 8],
    pub(crate) body_contact: body_contact::BodyContact,
    pub(crate) state: CarState,
    pub(crate) start_state: CarState,
    pub(crate) wheel_hints: [TrackHint; 4],
    pub(crate) body_hint: TrackHint,
    /// Track coordinates of the centre of gravity after the last step (one projection per
    /// step, shared by the lap timer, robots and the barrier broad phase).
    pub(crate) body_coord: TrackCoord,
    /// The position `body_coord` belongs to (a state set from outside no longer matches it).
    pub(crate) body_coord_position: Vec3,
    /// Largest distance of a collision point from the centre of gravity, m.
    pub(crate) collision_reach_m: f64,
    pub(crate) barrier_hints: [TrackHint; 8],
    pub(crate) controls: Controls,
    pub(crate) telemetry: CarTelemetry,
    pub(crate) time_s: f64,
    /// The fault the quarantine caught in the last step, until the world collects it.
    pub(crate) fault: Option<NonFinite>,
}

impl Car {
    /// Builds a car from a validated spec, at rest at `ground_position` (world, m) facing
    /// `yaw_rad`, its body aligned with the ground normal of `track` there.
    pub fn new(spec: &CarSpec, track: &Track, ground_position: [f64; 3], yaw_rad: f64) -> Car {
        let c = &spec.chassis;
        let a = c.cog_to_front_axle_m;
        let b = c.wheelbase_m - a;
        let [front_load, rear_load] = spec.static_wheel_loads_n();
        let sf = &spec.suspension.front;
        let sr = &spec.suspension.rear;
        let unsprung = 2.0 * (sf.unsprung_mass_kg + sr.unsprung_mass_kg);
        let tyre_k = spec.tyre.vertical_stiffness_n_per_m;
        let radius = spec.tyre.unloaded_radius_m;
        let corner = |x: f64, y: f64, load: f64, s: &crate::suspension::SuspensionSpec| {
            let sprung_load = load - s.unsprung_mass_kg * GRAVITY_MPS2;
            let centre_height = radius - load / tyre_k;
            Corner {
                droop_position: Vec3::new(
                    x,
                    y,
                    centre_height - c.cog_height_m - s.static_compression_m,
                ),
                suspension: Suspension::new(s, sprung_load),
                anti_roll_bar: s.anti_roll_bar_n_per_m,
                alignment: Alignment::new(s),
            }
        };
        let corners = [
            corner(a, 0.5 * c.track_front_m, front_load, sf),
            corner(a, -0.5 * c.track_front_m, front_load, sf),
            corner(-b, 0.5 * c.track_rear_m, rear_load, sr),
            corner(-b, -0.5 * c.track_rear_m, rear_load, sr),
        ];
        let inertia = Mat3::symmetric(c.inertia_kgm2, c.inertia_products_kgm2);
        let inverse_inertia = inertia.inverse().unwrap_or(Mat3::IDENTITY);
        let mean_corner_mass = c.mass_kg / 4.0;
        let tyre = Tyre::new(&spec.tyre, 0.5 * (front_load + rear_load), mean_corner_mass);
        let (hl, hw) = (0.5 * c.body_length_m, 0.5 * c.body_width_m);
        let front_overhang = hl + 0.5 * (a - b);
        let rear_overhang = -(hl - 0.5 * (a - b));
        let collision_points = [
            Vec3::new(front_overhang, hw, 0.0),
            Vec3::new(front_overhang, -hw, 0.0),
            Vec3::new(rear_overhang, hw, 0.0),
            Vec3::new(rear_overhang, -hw, 0.0),
            Vec3::new(front_overhang, 0.0, 0.0),
            Vec3::new(rear_overhang, 0.0, 0.0),
            Vec3::new(0.0, hw, 0.0),
            Vec3::new(0.0, -hw, 0.0),
        ];
        let brakes = Brakes::new(&spec.brakes, &tyre);
        let mut car = Car {
            mass_kg: c.mass_kg,
            sprung_mass_kg: c.mass_kg - unsprung,
            inertia,
            inverse_inertia,
            has_toe: corners.iter().any(|c| c.alignment.has_toe()),
            corners,
            start_corners: corners,
            tyre,
            steering: Steering::new(&spec.steering, c.wheelbase_m, c.track_front_m),
            front_angles: FrontWheelAngles::default(),
            brakes,
            brake_spec: spec.brakes.clone(),
            aero: spec.aero.clone(),
            start_aero: spec.aero.clone(),
            damage: spec.damage.filter(|d| d.enabled),
            aero_axles_x_m: [a, -b],
            drivetrain: Drivetrain::new(&spec.drivetrain),
            start_drivetrain: Drivetrain::new(&spec.drivetrain),
            collision_points,
            body_contact: body_contact::BodyContact::new(spec),
            state: CarState::default(),
            start_state: CarState::default(),
            wheel_hints: [TrackHint::default(); 4],
            body_hint: TrackHint::default(),
            body_coord: TrackCoord::default(),
            body_coord_position: Vec3::ZERO,
            collision_reach_m: collision_points
                .iter()
                .map(|p| p.length())
                .fold(0.0, f64::max),
            barrier_hints: [TrackHint::default(); 8],
            controls: Controls::default(),
            telemetry: CarTelemetry::default(),
            time_s: 0.0,
            fault: None,
        };
        let travel = [
            sf.static_compression_m,
            sf.static_compression_m,
            sr.static_compression_m,
            sr.static_compression_m,
        ];
        let ground = track.ground(
            ground_position[0],
            ground_position[1],
            &mut TrackHint::default(),
        );
        let normal = Vec3::from_array(ground.normal);
        let base = Vec3::new(ground_position[0], ground_position[1], ground.height_m);
        car.start_state = CarState {
            position: base + normal * c.cog_height_m,
            orientation: Quat::from_to(Vec3::Z, normal).product(Quat::from_yaw(yaw_rad)),
            travel,
            tyres: [car.tyre.thermal.start_condition(); 4],
            ..CarState::default()
        };
        car.state = car.start_state;
        car.drivetrain.set_wheel_radius_m(radius);
        car.start_drivetrain.set_wheel_radius_m(radius);
        car.refresh_track_coord(track);
        car
    }

    /// Projects the current position onto `track` (after the state was set from outside) and
    /// starts the wheels' ground queries from the body's place on the track: the wheels are
    /// within a couple of metres of it, so their first query walks a few samples instead of
    /// scanning the whole lap (built, reset or moved).
    pub(crate) fn refresh_track_coord(&mut self, track: &Track) {
        let position = self.state.position;
        let (coord, surface) = track.project_with_surface(position.to_array(), &mut self.body_hint);
        self.wheel_hints = [self.body_hint; 4];
        self.body_coord = coord;
        self.body_coord_position = position;
        self.telemetry.surface = surface;
    }

    /// Track coordinates of the car's centre of gravity after the last step (or where it was
    /// built or reset).
    pub fn track_coord(&self) -> &TrackCoord {
        &self.body_coord
    }

    /// Puts the car back where it started, at rest, with fresh brakes and driveline state.
    pub fn reset(&mut self) {
        self.repair();
        self.state = self.start_state;
        self.brakes = Brakes::new(&self.brake_spec, &self.tyre);
        self.telemetry = CarTelemetry::default();
        self.drivetrain.restart_from(&self.start_drivetrain);
        self.controls = Controls::default();
    }

    /// Sets the controls used from the next step on (sanitised).
    pub fn set_controls(&mut self, controls: Controls) {
        self.controls = controls.sanitized();
    }

    /// The state after the last step.
    pub fn state(&self) -> &CarState {
        &self.state
    }

    /// Replaces the state (test rigs and manoeuvres: initial conditions, kicks).
    pub fn set_state(&mut self, state: CarState) {
        self.state = state;
    }

    /// Rolls the car straight ahead at `speed_mps` (body x), wheels turning at the matching
    /// rate and tyres undeflected: the starting condition of the manoeuvres.
    pub fn set_speed(&mut self, speed_mps: f64) {
        let rot = self.state.orientation.to_mat3();
        self.state.velocity = rot.column(0) * speed_mps;
        self.state.angular_velocity_body = Vec3::ZERO;
        let radius = self.rolling_radius_m();
        self.state.wheel_omega = [speed_mps / radius; 4];
        self.state.slip = Default::default();
    }

    /// Tyre rolling radius at the static load, m.
    pub fn rolling_radius_m(&self) -> f64 {
        let load = self.mass_kg * GRAVITY_MPS2 / 4.0;
        self.tyre.radius_m - load / self.tyre.vertical_stiffness
    }

    /// Line pressure of the brakes, 0..1 of full.
    pub fn brake_pressure(&self) -> f64 {
        self.brakes.pressure
    }

    /// The drivetrain (gear, engine state).
    pub fn drivetrain(&self) -> &Drivetrain {
        &self.drivetrain
    }

    /// Telemetry after the last step.
    pub fn telemetry(&self) -> &CarTelemetry {
        &self.telemetry
    }

    /// Total mass, kg.
    pub fn mass_kg(&self) -> f64 {
        self.mass_kg
    }

    /// The tyre model.
    pub fn tyre(&self) -> &Tyre {
        &self.tyre
    }

    /// The steering geometry.
    pub fn steering(&self) -> &Steering {
        &self.steering
    }

    /// The aerodynamics as they are now (a broken wing has lost its share of downforce).
    pub fn aero(&self) -> &AeroSpec {
        &self.aero
    }

    /// Which parts are broken.
    pub fn damage(&self) -> DamageTelemetry {
        self.telemetry.damage
    }

    /// Tyre inflation (gauge) pressure of `wheel` the surface model reads, kPa: the tyre
    /// model's live pressure (its hot pressure while the model is off).
    #[inline]
    pub fn tyre_pressure_kpa(&self, wheel: usize) -> f64 {
        self.state.tyres[wheel].pressure_kpa
    }
}
