//! The pause button (`function = "pause"`): on its rising edge the real loop stops stepping the
//! physics while it keeps its rate; every frame then shows the car where it stood, with no
//! acceleration, rotation or rim torque (gravity alone in the specific force), and the FFB
//! link says "paused" so the stage centres the rim; the next press resumes the physics, and a
//! pause ends by itself when nobody is at the controls any more. Driven tick by tick through
//! [`RtLoop::wake`] on a virtual clock, so nothing sleeps.

use std::sync::{Arc, Mutex};

use rig_config::Config;
use rig_physics::{Controls, GearRequest};
use rig_protocols::Frame;
use rigd::ffb::FfbLink;
use rigd::input::player_input::PlayerInput;
use rigd::rt::clock::now_ns;
use rigd::rt::handoff::latest_value;
use rigd::rt::stage::{RtStage, StopReason};
use rigd::runtime::rt_loop::{FrameSlots, LoopMode, LoopParts, LoopShared, LoopTiming, RtLoop};
use rigd::runtime::simulation::Simulation;

/// Keeps the newest frame the loop handed its stages.
struct LastFrame(Arc<Mutex<Frame>>);

impl RtStage for LastFrame {
    fn on_tick(&mut self, frame: &Frame) {
        *self.0.lock().unwrap() = *frame;
    }
    fn safe_stop(&mut self, _reason: StopReason) {}
    fn resume(&mut self) {}
}

#[test]
fn the_pause_button_holds_the_car_still_and_centres_the_rim_until_pressed_again() {
    let mut config = Config::default();
    config.sim.robots = 0;
    let sim = Simulation::build(&config.sim, config.realtime.rate_hz).unwrap();
    let (mut input, input_reader) = latest_value(PlayerInput::DISCONNECTED);
    let (slots, _readers) = FrameSlots::new(0);
    let last = Arc::new(Mutex::new(Frame::default()));
    let link = FfbLink::new();
    let parts = LoopParts {
        sim,
        stages: vec![Box::new(LastFrame(last.clone()))],
        input: input_reader,
        slots,
        ffb: link.clone(),
        game: None,
    };
    let mut timing = LoopTiming::from_config(&config.realtime);
    timing.spin_ns = 0;
    let shared = Arc::new(LoopShared::default());
    let mut rt_loop = RtLoop::new(parts, timing, shared.clone());
    let mut deadline = now_ns();
    let mut ticks = |n: u32| {
        for _ in 0..n {
            deadline = rt_loop.wake(deadline, deadline + 20_000);
        }
        *last.lock().unwrap()
    };

    let driving = PlayerInput {
        connected: true,
        controls: Controls {
            throttle: 0.8,
            brake: 0.0,
            steering: 0.2,
            ..Controls::SAFE_STOP
        },
        ..PlayerInput::DISCONNECTED
    };
    let pressed = PlayerInput {
        pause_requested: true,
        ..driving
    };
    // First gear in with the clutch down, then away.
    input.write(PlayerInput {
        controls: Controls {
            clutch: 1.0,
            throttle: 0.0,
            gear_request: GearRequest::Select(1),
            ..driving.controls
        },
        ..driving
    });
    ticks(300);
    // Away on a slipping clutch, as a driver would, then clutch up.
    input.write(PlayerInput {
        controls: Controls {
            clutch: 0.5,
            ..driving.controls
        },
        ..driving
    });
    ticks(1_000);
    input.write(driving);
    let moving = ticks(3_000);
    assert!(moving.car.speed_mps > 5.0, "{}", moving.car.speed_mps);

    input.write(pressed);
    let first = ticks(1);
    input.write(driving);
    let held = ticks(500);
    assert_eq!(shared.mode(), LoopMode::Paused);
    assert!(link.drive().paused);
    assert_eq!(held.car.position_m, first.car.position_m, "no physics step");
    assert_eq!(held.car.time_s, first.car.time_s);
    assert_eq!(held.car.speed_mps, first.car.speed_mps);
    assert_eq!(held.car.acceleration_body_mps2, [0.0; 3]);
    assert_eq!(held.car.angular_velocity_body_radps, [0.0; 3]);
    assert_eq!(held.car.steering_torque_nm, 0.0);
    // Gravity alone: 9.81 m/s^2 of specific force, whatever the car was doing.
    let g: f64 = held
        .car
        .specific_force_body_mps2
        .iter()
        .map(|a| a * a)
        .sum::<f64>()
        .sqrt();
    assert!((g - 9.80665).abs() < 0.05, "specific force {g}");
    assert_eq!(
        held.sequence,
        first.sequence + 500,
        "the loop keeps its rate"
    );

    // Holding the button does not toggle again; the next press resumes.
    input.write(pressed);
    ticks(10);
    input.write(driving);
    let resumed = ticks(200);
    assert_eq!(shared.mode(), LoopMode::Driving);
    assert!(!link.drive().paused);
    assert!(
        resumed.car.time_s > held.car.time_s + 0.19,
        "{}",
        resumed.car.time_s
    );
    assert_ne!(resumed.car.position_m, held.car.position_m);

    // Paused, then the wheel goes away: the pause ends with the driver.
    input.write(pressed);
    ticks(1);
    input.write(driving);
    ticks(10);
    assert!(link.drive().paused);
    input.write(PlayerInput::DISCONNECTED);
    ticks(1);
    assert!(!link.drive().paused);
}
