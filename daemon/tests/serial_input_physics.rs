//! A DIY serial input device over a pty pair (the real serialport crate on the slave side)
//! drives the handbrake and the gear of a car in the real physics; garbage lines are counted
//! and change nothing.

mod motion_pty;

use std::time::{Duration, Instant};

use motion_pty::Pty;
use rig_config::motion::{
    SerialAxisConfig, SerialAxisFunction, SerialButtonConfig, SerialButtonFunction,
    SerialInputConfig,
};
use rig_physics::{Controls, World};
use rigd::input::serial::{start, SerialControls, SerialMerge};

fn wait_for(
    reader: &mut rigd::rt::handoff::LatestReader<SerialControls>,
    what: &str,
    done: impl Fn(&SerialControls) -> bool,
) -> SerialControls {
    let start = Instant::now();
    loop {
        let state = reader.read();
        if done(&state) {
            return state;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{what}: {state:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn handbrake_and_gear_from_a_serial_device_reach_the_physics() {
    let pty = Pty::open();
    let config = SerialInputConfig {
        name: "handbrake box".into(),
        serial_port: pty.slave_path.display().to_string(),
        baud: 115_200,
        gear_selector: true,
        axes: vec![SerialAxisConfig {
            letter: "H".into(),
            function: SerialAxisFunction::Handbrake,
            raw_min: 100,
            raw_max: 900,
        }],
        buttons: vec![SerialButtonConfig {
            index: 2,
            function: SerialButtonFunction::GearUp,
        }],
    };
    let (_reader_thread, mut slot) = start(&config).unwrap();
    wait_for(&mut slot, "device opens", |s| s.connected);

    pty.write(b"# handbrake box v1\r\nH 740\r\nnoise!\nG 2\n\xff\xfe\n");
    let state = wait_for(&mut slot, "lines arrive", |s| {
        s.gear == Some(2) && s.garbage_lines == 2
    });
    assert_eq!(state.handbrake, Some(0.8));

    // The player's other devices give throttle and hold the clutch down (the road car's
    // H-pattern box refuses a gear without it); the serial box adds handbrake and gear.
    let track = rig_physics::track::builtin("circuit").unwrap();
    let spec = rig_physics::builtin::car("road").unwrap();
    let mut world = World::new(track);
    let car = world.add_car(&spec);
    let mut merge = SerialMerge::default();
    let dt = 0.001;
    let mut step = |world: &mut World,
                    slot: &mut rigd::rt::handoff::LatestReader<SerialControls>,
                    ticks: usize| {
        for _ in 0..ticks {
            let mut controls = Controls {
                throttle: 0.3,
                clutch: 1.0,
                ignition: true,
                ..Controls::default()
            };
            merge.apply(&slot.read(), &mut controls);
            world.set_controls(car, controls);
            world.step(dt);
        }
        world.telemetry(car)
    };
    let t = step(&mut world, &mut slot, 1500);
    assert!(
        (t.controls.handbrake - 0.8).abs() < 1e-12,
        "handbrake {}",
        t.controls.handbrake
    );
    assert_eq!(t.drivetrain.gear, 2, "the shifter's gear is engaged");

    // Release the handbrake and move the lever to 3rd.
    pty.write(b"H 100\nG 3\n");
    wait_for(&mut slot, "second lines", |s| s.gear == Some(3));
    let t = step(&mut world, &mut slot, 1500);
    assert_eq!(t.controls.handbrake, 0.0);
    assert_eq!(t.drivetrain.gear, 3);
    assert_eq!(
        slot.read().garbage_lines,
        2,
        "garbage counted, nothing else"
    );
}
