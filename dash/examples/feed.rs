//! A test sender for rig-dash: native rigd packets on loopback at a fixed rate, with a car
//! driving a circle (speed, rpm, gear, pedals, position and g all changing), so the dashboard
//! redraws something new every frame. Used by `scripts/bench-dash.sh`; handy for trying the
//! dashboard without rigd:
//!
//! `cargo run -p rig-dash --example feed -- 127.0.0.1:29777 1000 60`
//! (destination, packets per second, seconds; garbage is mixed in with a fourth argument
//! `garbage`).

use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use rig_protocols::{Format, Frame};

fn frame_at(t: f64, sequence: u32) -> Frame {
    let mut frame = Frame {
        sequence,
        ..Frame::default()
    };
    let car = &mut frame.car;
    let radius = 150.0;
    let speed = 30.0 + 10.0 * (t * 0.5).sin();
    let angle = t * 0.2;
    car.time_s = t;
    car.speed_mps = speed;
    car.position_m = [radius * angle.cos(), radius * angle.sin(), 0.0];
    car.acceleration_body_mps2 = [3.0 * (t * 0.5).cos(), speed * speed / radius, 0.0];
    car.drivetrain.max_rpm = 7500.0;
    car.drivetrain.engine_rpm = 4000.0 + 3400.0 * (0.5 + 0.5 * (t * 1.3).sin());
    car.drivetrain.gear = 2 + (t as i8 / 3) % 4;
    car.controls.throttle = 0.5 + 0.5 * (t * 1.3).sin();
    car.controls.brake = (0.5 * (t * 0.7).cos()).max(0.0);
    car.steering_wheel_angle_rad = 0.6 * (t * 0.9).sin();
    car.steering_torque_nm = 8.0 * (t * 0.9).sin();
    car.lap.current_lap_s = t % 90.0;
    car.lap.laps_completed = (t / 90.0) as u32;
    for wheel in &mut car.wheels {
        wheel.load_n = 3500.0 + 800.0 * (t * 2.0).sin();
        wheel.temperature_c = 80.0;
    }
    frame.health.tick_rate_hz = 1000.0;
    frame
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: feed DEST_ADDR:PORT RATE_HZ SECONDS [garbage]";
    let destination: SocketAddr = args.first().ok_or(usage)?.parse()?;
    let rate_hz: f64 = args.get(1).ok_or(usage)?.parse()?;
    let seconds: f64 = args.get(2).ok_or(usage)?.parse()?;
    let with_garbage = args.get(3).is_some_and(|a| a == "garbage");

    let socket = UdpSocket::bind("127.0.0.1:0")?;
    let mut buffer = vec![0u8; rig_protocols::telemetry::MAX_PACKET_LEN];
    let period = Duration::from_secs_f64(1.0 / rate_hz);
    let start = Instant::now();
    let mut next = start;
    let mut sequence = 0u32;
    while start.elapsed().as_secs_f64() < seconds {
        let t = start.elapsed().as_secs_f64();
        let len = Format::Native.encode(&frame_at(t, sequence), &mut buffer)?;
        // Unreachable ports (dashboard not started yet) are fine: keep sending.
        let _ = socket.send_to(&buffer[..len], destination);
        if with_garbage {
            let _ = socket.send_to(&buffer[..len / 2], destination);
        }
        sequence = sequence.wrapping_add(1);
        next += period;
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
        }
    }
    Ok(())
}
