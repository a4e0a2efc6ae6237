use rig_physics::{builtin, track::Track, Controls, World};
fn main() {
    let name = std::env::args().nth(1).unwrap_or("road".into());
    let spec = builtin::car(&name).unwrap();
    let mut w = World::new(Track::flat());
    let id = w.add_car(&spec);
    let mut c = Controls {
        ignition: true,
        ..Default::default()
    };
    let mut gear_set = false;
    for i in 0..20000 {
        let t = i as f64 * 0.001;
        c.throttle = if t > 2.0 && t < 10.0 { 1.0 } else { 0.0 };
        c.brake = if t > 12.0 { 0.6 } else { 0.0 };
        c.steering = if t > 6.0 && t < 9.0 { 0.1 } else { 0.0 };
        c.starter = t < 1.0;
        c.clutch = if t > 1.8 && t < 2.0 { 1.0 } else { 0.0 };
        c.gear_request = rig_physics::GearRequest::None;
        if t > 1.9 && !gear_set {
            c.gear_request = rig_physics::GearRequest::Select(1);
            gear_set = true;
        }
        w.set_controls(id, c);
        w.step(0.001);
        if i == 1901 || i == 1902 {
            println!(
                "{:?} {:?}",
                w.telemetry(id).controls.gear_request,
                w.telemetry(id).drivetrain
            );
        }
        if i % 500 == 0 {
            let tl = w.telemetry(id);
            println!("t={:.1} pos=({:.2},{:.2},{:.4}) v={:.2} yawr={:.3} ay={:.2} loads={:?} om={:?} rpy={:?} steerT={:.2} rpm={:.0} gear={}",
                t, tl.position_m[0], tl.position_m[1], tl.position_m[2], tl.speed_mps, tl.angular_velocity_body_radps[2],
                tl.acceleration_body_mps2[1],
                tl.wheels.iter().map(|w| w.load_n.round()).collect::<Vec<_>>(),
                tl.wheels.iter().map(|w| (w.angular_velocity_radps*100.0).round()/100.0).collect::<Vec<_>>(),
                tl.roll_pitch_yaw_rad.iter().map(|x| (x*1000.0).round()/1000.0).collect::<Vec<_>>(), tl.steering_torque_nm, tl.drivetrain.engine_rpm, tl.drivetrain.gear);
        }
    }
}
