//! Phase 8, telemetry: the step's [`CarTelemetry`](crate::telemetry::CarTelemetry) record
//! from the new state and the phases' results, and the one projection of the body onto the
//! track per step (the surface under the car; the lap timer, robots and the barrier broad
//! phase read the same coordinates).
//!
//! Inputs: the new state, each [`WheelWork`], the brake torques, the acceleration, the rim
//! angle, the barrier flag, the drivetrain's and steering's records. Outputs: the car's
//! telemetry, `body_coord` and `body_coord_position`.

use super::{WheelWork, GRAVITY};
use crate::car::Car;
use crate::math::Vec3;
use crate::telemetry::WheelTelemetry;
use crate::track::Track;

impl Car {
    pub(in crate::car) fn fill_telemetry(
        &mut self,
        track: &Track,
        work: &[WheelWork; 4],
        brake_nm: [f64; 4],
        accel_world: Vec3,
        rim_angle: f64,
        barrier: bool,
    ) {
        let st = &self.state;
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
                temperature_c: st.tyres[i].surface_c,
                carcass_temperature_c: st.tyres[i].carcass_c,
                pressure_kpa: st.tyres[i].pressure_kpa,
                wear: st.tyres[i].wear,
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
