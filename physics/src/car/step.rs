//! One fixed step of one car: suspension and tyre forces from the current state, the
//! drivetrain's implicit wheel update, then semi-implicit integration of chassis, unsprung
//! masses and slip states, barrier response, and the telemetry record.

use super::body_contact::GroundPlane;
use super::{Car, CarState, PLACEHOLDER_TYRE_TEMPERATURE_C};
use crate::controls::GearRequest;
use crate::drivetrain::WheelSpinInput;
use crate::math::{self, Vec3};
use crate::spec::GRAVITY_MPS2;
use crate::telemetry::{SurfaceKind, WheelTelemetry};
use crate::track::Track;
use crate::tyre::mf61::TyreForces;
use crate::tyre::SlipPrediction;

const GRAVITY: Vec3 = Vec3::new(0.0, 0.0, -GRAVITY_MPS2);

/// Per wheel (FL FR RL RR), the sign the tyre's side slip, lateral force and aligning moment
/// take through its mounting: right-side tyres are mounted mirrored, so their ply-steer and
/// conicity offsets cancel the left side's and a straight car runs straight.
const MOUNT_MIRROR: [f64; 4] = [1.0, -1.0, 1.0, -1.0];

/// Per-wheel intermediate results of one step (stack only).
#[derive(Clone, Copy, Default)]
struct WheelWork {
    forward: Vec3,
    lateral: Vec3,
    normal: Vec3,
    contact_offset: Vec3,
    load: f64,
    radius: f64,
    vx: f64,
    vy: f64,
    alpha: f64,
    dfx_domega: f64,
    forces: TyreForces,
    /// This step's slips (committed with the new spin rate).
    slip: SlipPrediction,
    surface: SurfaceKind,
    suspension_force: f64,
    travel_rate: f64,
    /// The wheel is held at a travel limit this step (rides with the body).
    at_limit: bool,
}

impl Car {
    /// Advances the car by `dt_s` (at most a few ms) on `track`. No allocation.
    pub fn step(&mut self, track: &Track, dt_s: f64) {
        self.integrate(track, dt_s);
        self.time_s += dt_s;
        self.telemetry.time_s = self.time_s;
        // Gear requests are edges: apply each once. Written only when set: the next step
        // reads the controls back at once, and a load over a pending one-byte store waits.
        if self.controls.gear_request != GearRequest::None {
            self.controls.gear_request = GearRequest::None;
        }
    }

    fn integrate(&mut self, track: &Track, dt: f64) {
        let controls = self.controls;
        // The start-of-step state, read in place (no copy): nothing writes `self.state` until
        // the drivetrain has run, and from then on each field is read before it is written.
        let st = &self.state;
        let rot = st.orientation.to_mat3();
        let xb = rot.column(0);
        let yb = rot.column(1);
        let zb = rot.column(2);
        let omega_w = rot.mul_vec(st.angular_velocity_body);

        let rim = self.steering.rim_angle(controls.steering);
        self.steering
            .update_front_angles(rim, &mut self.front_angles);
        let [front_l, front_r] = self.front_angles.sin_cos;
        let steer_sin_cos = [front_l, front_r, (0.0, 1.0), (0.0, 1.0)];
        let speed = st.velocity.length();
        let brake_nm = self.brakes.step(
            controls.brake,
            controls.handbrake,
            &self.telemetry.wheels,
            speed,
            dt,
        );

        let mut work = [WheelWork::default(); 4];
        // Each hardpoint's world offset under this step's rotation, rotated once and used by
        // the suspension rates, the wheel centres, the suspension torque and the new travel.
        let hardpoint = |i: usize| rot.mul_vec(self.corners[i].droop_position);
        let hardpoints = [hardpoint(0), hardpoint(1), hardpoint(2), hardpoint(3)];
        // Suspension forces (spring, bump stop, damper) from travel and its rate. A hardpoint's
        // velocity along body z is v.zb + (omega x r).zb, the latter in body coordinates
        // (rotations keep cross and dot products): no rotated vectors needed.
        let v_z = st.velocity.dot(zb);
        let w_body = st.angular_velocity_body;
        for (i, w) in work.iter_mut().enumerate() {
            let corner = &self.corners[i];
            let d = corner.droop_position;
            let s_dot = st.wheel_vertical_velocity[i] - (v_z + (w_body.x * d.y - w_body.y * d.x));
            w.travel_rate = s_dot;
            w.suspension_force = corner.suspension.spring_force(st.travel[i])
                + corner.suspension.damper_force(s_dot, dt);
        }
        // Anti-roll bars: force proportional to the left/right travel difference.
        for axle in [0, 2] {
            let diff = st.travel[axle] - st.travel[axle + 1];
            let f = self.corners[axle].anti_roll_bar * diff;
            work[axle].suspension_force += f;
            work[axle + 1].suspension_force -= f;
        }

        // Tyre contact, slips and forces at the start-of-step spin rates: contact and slip
        // prediction wheel by wheel, then the Magic Formula for the four wheels side by side
        // (their independent chains overlap), then the spin-rate inputs.
        let mut kappa = [0.0; 4];
        let mut tan_alpha = [0.0; 4];
        let mut loads = [0.0; 4];
        let mut surface_grip = [0.0; 4];
        let mut rolling_coefficient = [0.0; 4];
        for i in 0..4 {
            let w = &mut work[i];
            // The wheel centre is `travel` along body z from the droop hardpoint.
            let r_wc = hardpoints[i] + zb * st.travel[i];
            let centre = st.position + r_wc;
            let ground = track.ground(centre.x, centre.y, &mut self.wheel_hints[i]);
            let n = Vec3::from_array(ground.normal);
            let distance = (centre.z - ground.height_m) * n.z;
            // The tyre is a disc in the wheel plane, not a sphere: leaned over by `lean` (the
            // ground normal along the body's y axis; steer ignored) its lowest point is nearer
            // the centre, so a car on its side rests on its body, not on tyres pressed sideways
            // into the ground. Below 3 degrees of lean a series replaces the square root
            // (error under 1e-6 of the radius).
            let lean = n.dot(yb);
            let lean2 = lean * lean;
            let reach = if lean2 < 0.0025 {
                1.0 - 0.5 * lean2
            } else {
                (1.0 - lean2).sqrt()
            };
            let deflection = self.tyre.radius_m * reach - distance;
            let v_body_wc = st.velocity + omega_w.cross(r_wc);
            let v_wc = v_body_wc + zb * (st.wheel_vertical_velocity[i] - v_body_wc.dot(zb));
            w.normal = n;
            w.surface = ground.surface.kind;
            w.radius = self.tyre.radius_m - deflection.max(0.0);
            let (sin_d, cos_d) = steer_sin_cos[i];
            let heading = xb * cos_d + yb * sin_d;
            w.forward = (heading - n * heading.dot(n)).normalized_or(xb);
            w.lateral = n.cross(w.forward);
            w.contact_offset = r_wc - n * distance;
            if deflection > 0.0 {
                let rate = -v_wc.dot(n);
                w.load = self.tyre.radial_load(deflection, rate);
            }
            surface_grip[i] = ground.surface.grip_scale;
            rolling_coefficient[i] =
                self.tyre.rolling_resistance + ground.surface.rolling_resistance;
            if w.load > 0.0 {
                let v_cp = st.velocity + omega_w.cross(w.contact_offset);
                w.vx = v_cp.dot(w.forward);
                w.vy = v_cp.dot(w.lateral);
                let pred =
                    st.slip[i].predict(&self.tyre, w.vx, w.vy, st.wheel_omega[i], w.radius, dt);
                w.slip = pred;
                kappa[i] = pred.kappa_at_omega0;
                tan_alpha[i] = MOUNT_MIRROR[i] * pred.alpha;
                loads[i] = w.load;
            }
        }
        let forces = self.tyre.forces4(kappa, tan_alpha, loads, surface_grip);
        let mut spin = [WheelSpinInput::default(); 4];
        for i in 0..4 {
            let w = &mut work[i];
            let omega0 = st.wheel_omega[i];
            let mut road_torque = 0.0;
            let mut slope = 0.0;
            if w.load > 0.0 {
                w.alpha = math::atan(w.slip.alpha);
                w.forces = forces[i];
                w.forces.fy *= MOUNT_MIRROR[i];
                w.forces.mz *= MOUNT_MIRROR[i];
                w.dfx_domega = w.forces.dfx_dkappa.max(0.0) * w.slip.dkappa_domega;
                road_torque = -w.forces.fx * w.radius;
                slope = -w.dfx_domega * w.radius;
            }
            let rolling = rolling_coefficient[i] * w.load * w.radius;
            spin[i] = WheelSpinInput {
                omega_radps: omega0,
                inertia_kgm2: self.tyre.spin_inertia,
                road_torque_nm: road_torque,
                road_torque_slope: slope,
                brake_torque_nm: brake_nm[i] + rolling,
            };
        }

        let new_omega = self.drivetrain.step(&controls, &spin, dt);

        // `self.state` becomes the new state from here on, field by field; what a fault must
        // restore is kept aside.
        let start_position = self.state.position;
        let start_orientation = self.state.orientation;
        let start_travel = self.state.travel;
        let start_velocity = self.state.velocity;

        // Forces on the chassis and the unsprung masses.
        let mut force = Vec3::ZERO;
        let mut torque = Vec3::ZERO;
        let mut wheel_accel = [0.0; 4];
        let gravity_z = GRAVITY.dot(zb);
        for i in 0..4 {
            let w = &mut work[i];
            let omega1 = if new_omega[i].is_finite() {
                new_omega[i]
            } else {
                0.0
            };
            let omega0 = self.state.wheel_omega[i];
            self.state.wheel_omega[i] = omega1;
            if w.load > 0.0 {
                w.forces.fx += w.dfx_domega * (omega1 - omega0);
                self.state.slip[i].commit(&self.tyre, &w.slip, w.vx, omega1, w.radius, dt);
            } else {
                self.state.slip[i] = Default::default();
            }
            let tyre_force = w.forward * w.forces.fx + w.lateral * w.forces.fy + w.normal * w.load;
            let along_z = tyre_force.dot(zb);
            let in_plane = tyre_force - zb * along_z;
            force += in_plane;
            torque += w.contact_offset.cross(in_plane) + w.normal * w.forces.mz;
            // At a travel limit the wheel rides with the body, so the limit passes on the
            // force that holds the wheel there (tyre load plus the wheel's weight), not the
            // spring's: at full bump a bottomed tyre then stops the body (not only the unsprung
            // mass, the body driving the wheel through the ground), and at full droop the
            // spring's preload no longer pushes an airborne body (energy from nowhere: the
            // wheel's reaction is discarded at the limit).
            let held = along_z + self.corners[i].suspension.unsprung_mass_kg * gravity_z;
            let travel_max = self.corners[i].suspension.travel_m;
            if (start_travel[i] >= travel_max && held > w.suspension_force)
                || (start_travel[i] <= 0.0 && held < w.suspension_force)
            {
                w.suspension_force = held;
                w.at_limit = true;
            }
            let r_hp = hardpoints[i];
            let suspension = zb * w.suspension_force;
            force += suspension;
            torque += r_hp.cross(suspension);
            let m_u = self.corners[i].suspension.unsprung_mass_kg;
            wheel_accel[i] = (along_z - w.suspension_force) / m_u + gravity_z;
        }

        // Aerodynamics: drag at the centre of gravity, downforce at the axles.
        if speed > 1e-6 {
            force += start_velocity * (-self.aero.drag_n(speed) / speed);
            let [df_front, df_rear] = self.aero.downforce_n(start_velocity.dot(xb));
            for (axle_x, df) in self.aero_axles_x_m.iter().zip([df_front, df_rear]) {
                force += zb * -df;
                // (xb axle_x) x (-zb df) = yb axle_x df: the axles lie on the body's x axis.
                torque += yb * (axle_x * df);
            }
        }

        // Body on the ground (a car off its wheels); free while it is on them. The planes are
        // read straight from the wheels' records (no gathered copy).
        let plane = |k: usize| GroundPlane {
            offset: work[k].contact_offset,
            normal: work[k].normal,
        };
        self.body_contact.apply(
            track,
            &rot,
            start_position,
            start_velocity,
            omega_w,
            plane,
            &self.wheel_hints,
            &mut force,
            &mut torque,
        );

        // Chassis: anisotropic translational mass (unsprung masses move with the body in its
        // x/y plane, separately along z); Euler's equations for rotation.
        let f_body = rot.transpose_mul_vec(force);
        let accel_body = Vec3::new(
            f_body.x / self.mass_kg,
            f_body.y / self.mass_kg,
            f_body.z / self.sprung_mass_kg,
        );
        let accel = rot.mul_vec(accel_body) + GRAVITY;
        let tau_body = rot.transpose_mul_vec(torque);
        let gyro = w_body.cross(self.inertia.mul_vec(w_body));
        let alpha_body = self.inverse_inertia.mul_vec(tau_body - gyro);

        self.state.velocity = start_velocity + accel * dt;
        self.state.angular_velocity_body = w_body + alpha_body * dt;
        for (v, a) in self
            .state
            .wheel_vertical_velocity
            .iter_mut()
            .zip(wheel_accel)
        {
            *v += a * dt;
        }
        let barrier = self.barrier_response(track, &rot);
        // From the barrier-corrected position (the new state started at `st`): a penetration push
        // must not be overwritten, or a car scraping a narrowing barrier ends up beyond it.
        self.state.position += self.state.velocity * dt;
        self.state.orientation =
            start_orientation.integrate_body_rate(self.state.angular_velocity_body, dt);

        // Travel from the unsprung masses' motion relative to the body; hard limits carry
        // the wheel with the body.
        let v_z1 = self.state.velocity.dot(zb);
        let w_body1 = self.state.angular_velocity_body;
        for (i, w) in work.iter().enumerate() {
            let corner = &self.corners[i];
            let d = corner.droop_position;
            let body_z = v_z1 + (w_body1.x * d.y - w_body1.y * d.x);
            let s_dot = self.state.wheel_vertical_velocity[i] - body_z;
            let s = start_travel[i] + s_dot * dt;
            let travel_max = corner.suspension.travel_m;
            if w.at_limit {
                // Held by the limit: stays there, moving with the body (else it drifts off the
                // limit by micrometres and back, a two-step ripple of the body): its travel
                // is left as it was.
                self.state.wheel_vertical_velocity[i] = body_z;
            } else if s < 0.0 {
                self.state.travel[i] = 0.0;
                self.state.wheel_vertical_velocity[i] = body_z;
            } else if s > travel_max {
                self.state.travel[i] = travel_max;
                self.state.wheel_vertical_velocity[i] = body_z;
            } else {
                self.state.travel[i] = s;
            }
        }
        self.fill_telemetry(track, &work, brake_nm, accel, rim, barrier);
        if !state_is_finite(&self.state) {
            // A fault must never leave the car: restore and bring it to rest.
            self.state = CarState {
                velocity: Vec3::ZERO,
                angular_velocity_body: Vec3::ZERO,
                wheel_vertical_velocity: [0.0; 4],
                wheel_omega: [0.0; 4],
                slip: Default::default(),
                position: start_position,
                orientation: start_orientation,
                travel: start_travel,
            };
            self.telemetry = Default::default();
            self.refresh_track_coord(track);
        }
    }

    fn fill_telemetry(
        &mut self,
        track: &Track,
        work: &[WheelWork; 4],
        brake_nm: [f64; 4],
        accel_world: Vec3,
        rim_angle: f64,
        barrier: bool,
    ) {
        let st = &self.state;
        // One body projection per step: the surface under the car here, and the lap position
        // and barrier broad phase read the same coordinates. Made first and stored last: the
        // result comes back through memory, and copying it right after the call would wait
        // for the callee's stores to complete.
        let projection = track.project_with_surface(st.position.to_array(), &mut self.body_hint);
        let rot = st.orientation.to_mat3();
        let t = &mut self.telemetry;
        t.position_m = st.position.to_array();
        t.orientation = st.orientation.to_array();
        t.roll_pitch_yaw_rad = st.orientation.roll_pitch_yaw();
        t.velocity_world_mps = st.velocity.to_array();
        t.velocity_body_mps = rot.transpose_mul_vec(st.velocity).to_array();
        t.angular_velocity_body_radps = st.angular_velocity_body.to_array();
        t.acceleration_body_mps2 = rot.transpose_mul_vec(accel_world).to_array();
        t.specific_force_body_mps2 = rot.transpose_mul_vec(accel_world - GRAVITY).to_array();
        t.speed_mps = st.velocity.length();
        let drive = self.drivetrain.drive_torques_nm();
        let [steer_l, steer_r] = self.front_angles.angles_rad;
        let steer = [steer_l, steer_r, 0.0, 0.0];
        for i in 0..4 {
            let w = &work[i];
            t.wheels[i] = WheelTelemetry {
                load_n: w.load,
                slip_ratio: w.slip.kappa_at_omega0,
                slip_angle_rad: w.alpha,
                force_long_n: w.forces.fx,
                force_lat_n: w.forces.fy,
                aligning_moment_nm: w.forces.mz,
                angular_velocity_radps: st.wheel_omega[i],
                radius_m: w.radius,
                steer_angle_rad: steer[i],
                suspension_travel_m: st.travel[i],
                suspension_velocity_mps: w.travel_rate,
                temperature_c: PLACEHOLDER_TYRE_TEMPERATURE_C,
                drive_torque_nm: drive[i],
                brake_torque_nm: brake_nm[i],
                surface: w.surface,
                in_contact: w.load > 0.0,
            };
        }
        t.steering_wheel_angle_rad = rim_angle;
        t.steering_torque_nm = self.steering.rim_torque(
            [work[0].forces.mz, work[1].forces.mz],
            [work[0].forces.fy, work[1].forces.fy],
        );
        t.controls = self.controls;
        t.drivetrain = self.drivetrain.telemetry();
        t.barrier_contact = barrier;
        t.surface = projection.1;
        self.body_coord = projection.0;
        self.body_coord_position = st.position;
    }
}

fn state_is_finite(s: &CarState) -> bool {
    // x * 0 is (+-)0 for every finite x and NaN for an infinite or NaN one, so the sum of
    // those products is zero exactly when every component is finite, whatever the order of
    // the additions: a multiply and an add per component instead of a test and a branch,
    // summed in four independent lanes (one per wheel) so that the adds are not one long chain
    // of dependent operations.
    let (p, v, w, q) = (
        s.position,
        s.velocity,
        s.angular_velocity_body,
        s.orientation,
    );
    let mut lanes = [
        p.x * 0.0 + v.x * 0.0 + w.x * 0.0 + q.w * 0.0,
        p.y * 0.0 + v.y * 0.0 + w.y * 0.0 + q.x * 0.0,
        p.z * 0.0 + v.z * 0.0 + w.z * 0.0 + q.y * 0.0,
        q.z * 0.0,
    ];
    for (i, lane) in lanes.iter_mut().enumerate() {
        *lane += s.travel[i] * 0.0
            + s.wheel_vertical_velocity[i] * 0.0
            + s.wheel_omega[i] * 0.0
            + s.slip[i].u_x * 0.0
            + s.slip[i].u_y * 0.0;
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) == 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_is_finite_unless_some_component_is_infinite_or_nan() {
        let base = CarState {
            position: Vec3::new(1e300, -1e300, 0.0),
            velocity: Vec3::new(-0.0, 3.0, f64::MAX),
            ..CarState::default()
        };
        assert!(state_is_finite(&base));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut s = base;
            s.slip[3].u_y = bad;
            assert!(!state_is_finite(&s));
            let mut s = base;
            s.orientation.z = bad;
            assert!(!state_is_finite(&s));
            let mut s = base;
            s.wheel_omega[0] = bad;
            assert!(!state_is_finite(&s));
        }
    }
}
