//! Engine and clutch behaviour through the whole drivetrain: idle control, stalling, starting,
//! the clutch's locked state at the bite point, and a car held on the brakes in gear.

mod drivetrain_support;

use drivetrain_support::*;
use rig_physics::{Controls, GearRequest};

/// Presses the clutch, selects `gear` on the H-pattern box and waits out the shift.
fn select_gear(rig: &mut Rig, d: &mut rig_physics::drivetrain::Drivetrain, gear: i8, brake: f64) {
    let mut controls = Controls {
        clutch: 1.0,
        brake,
        gear_request: GearRequest::Select(gear),
        ..ignition_on()
    };
    rig.step(d, &controls);
    controls.gear_request = GearRequest::None;
    for _ in 0..400 {
        rig.step(d, &controls);
    }
    assert_eq!(d.telemetry().gear, gear);
    assert!(!d.telemetry().shifting);
}

#[test]
fn idle_in_neutral_holds_within_50_rpm() {
    let mut d = rwd(H_PATTERN, "kind = \"open\"");
    let mut rig = Rig::new();
    let controls = ignition_on();
    let mut worst: f64 = 0.0;
    for _ in 0..10_000 {
        rig.step(&mut d, &controls);
        worst = worst.max((d.telemetry().engine_rpm - 850.0).abs());
    }
    assert!(worst < 50.0, "idle wandered {worst} rpm");
    // After a blip the idle control brings it back.
    let blip = Controls {
        throttle: 1.0,
        ..controls
    };
    for _ in 0..300 {
        rig.step(&mut d, &blip);
    }
    assert!(d.telemetry().engine_rpm > 2500.0, "blip revs the engine");
    for _ in 0..4000 {
        rig.step(&mut d, &controls);
    }
    let rpm = d.telemetry().engine_rpm;
    assert!((rpm - 850.0).abs() < 50.0, "back to idle: {rpm}");
    assert!(d.telemetry().engine_running);
}

#[test]
fn releasing_the_clutch_at_rest_in_third_without_throttle_stalls() {
    let mut d = rwd(H_PATTERN, "kind = \"open\"");
    let mut rig = Rig::new();
    select_gear(&mut rig, &mut d, 3, 0.0);
    assert!(d.telemetry().engine_running);
    let mut controls = ignition_on();
    for i in 0..3000 {
        controls.clutch = (1.0 - i as f64 / 500.0).max(0.0);
        rig.step(&mut d, &controls);
    }
    let t = d.telemetry();
    assert!(!t.engine_running, "stalled");
    assert!(t.engine_rpm < 450.0, "{}", t.engine_rpm);
    assert!(
        t.engine_rpm.abs() < 1e-9,
        "a stalled engine comes to rest: {}",
        t.engine_rpm
    );
}

#[test]
fn slipping_the_clutch_in_first_with_throttle_launches_without_stalling() {
    let mut d = rwd(H_PATTERN, "kind = \"open\"");
    let mut rig = Rig::new();
    select_gear(&mut rig, &mut d, 1, 0.0);
    let mut controls = Controls {
        throttle: 0.4,
        ..ignition_on()
    };
    for i in 0..4000 {
        controls.clutch = (1.0 - i as f64 / 1500.0).max(0.0);
        rig.step(&mut d, &controls);
        assert!(d.telemetry().engine_running, "stalled at step {i}");
    }
    assert!(
        d.telemetry().clutch_locked,
        "clutch locks once synchronised"
    );
    assert!(rig.speed_mps > 3.0, "{}", rig.speed_mps);
}

#[test]
fn held_on_the_brakes_with_the_clutch_engaged_no_wheel_speed_sign_flips() {
    let mut d = rwd(H_PATTERN, "kind = \"open\"");
    let mut rig = Rig::new();
    select_gear(&mut rig, &mut d, 1, 1.0);
    let mut controls = Controls {
        brake: 1.0,
        throttle: 0.3,
        ..ignition_on()
    };
    let mut flips = 0;
    let mut last = rig.omega;
    for i in 0..5000 {
        controls.clutch = (1.0 - i as f64 / 300.0).max(0.0);
        rig.step(&mut d, &controls);
        for (w, (now, before)) in rig.omega.iter().zip(last).enumerate() {
            if now * before < 0.0 {
                flips += 1;
            }
            assert!(now.abs() < 1e-6, "wheel {w} creeps: {now}");
        }
        last = rig.omega;
    }
    assert_eq!(flips, 0);
    assert!(
        !d.telemetry().engine_running,
        "the brakes win: the engine stalls"
    );
    assert!(rig.speed_mps.abs() < 1e-3);
}

#[test]
fn clutch_held_at_the_bite_point_at_idle_does_not_chatter() {
    let mut d = rwd(H_PATTERN, "kind = \"open\"");
    let mut rig = Rig::new();
    select_gear(&mut rig, &mut d, 1, 1.0);
    // 350 N m x 0.92 release short of full = ~28 N m: a bite the idle control can carry.
    let controls = Controls {
        brake: 1.0,
        clutch: 0.92,
        ..ignition_on()
    };
    let mut toggles = 0;
    let mut was_locked = d.telemetry().clutch_locked;
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    for i in 0..5000 {
        rig.step(&mut d, &controls);
        let t = d.telemetry();
        if t.clutch_locked != was_locked {
            toggles += 1;
        }
        was_locked = t.clutch_locked;
        if i > 1000 {
            lo = lo.min(t.engine_rpm);
            hi = hi.max(t.engine_rpm);
        }
        assert!(t.engine_running);
    }
    assert_eq!(toggles, 0, "clutch state chattered");
    assert!(hi - lo < 1.0, "rpm oscillates: {lo} .. {hi}");
    assert!(
        lo > 850.0 - 100.0,
        "idle sags too much under the bite: {lo}"
    );
    // Released the rest of the way in gear at rest with the brakes on: it stalls, cleanly.
    let released = Controls {
        clutch: 0.0,
        ..controls
    };
    for _ in 0..2000 {
        rig.step(&mut d, &released);
    }
    assert!(!d.telemetry().engine_running);
}

#[test]
fn starter_restarts_a_stalled_engine_and_ignition_off_stops_it() {
    let mut d = rwd(H_PATTERN, "kind = \"open\"");
    let mut rig = Rig::new();
    let off = Controls::default();
    for _ in 0..3000 {
        rig.step(&mut d, &off);
    }
    assert!(!d.telemetry().engine_running);
    assert_eq!(
        d.telemetry().engine_rpm,
        0.0,
        "ignition off: the engine runs down"
    );
    // The starter is wired through the ignition switch: without it nothing turns.
    let crank = Controls {
        starter: true,
        ..off
    };
    for _ in 0..1000 {
        rig.step(&mut d, &crank);
    }
    assert_eq!(d.telemetry().engine_rpm, 0.0);
    let start = Controls {
        starter: true,
        ..ignition_on()
    };
    for _ in 0..500 {
        rig.step(&mut d, &start);
    }
    assert!(d.telemetry().engine_running);
    for _ in 0..4000 {
        rig.step(&mut d, &ignition_on());
    }
    let rpm = d.telemetry().engine_rpm;
    assert!((rpm - 850.0).abs() < 50.0, "settles at idle: {rpm}");
}

#[test]
fn rev_limiter_caps_the_engine_in_neutral() {
    let mut d = rwd(H_PATTERN, "kind = \"open\"");
    let mut rig = Rig::new();
    let flat_out = Controls {
        throttle: 1.0,
        ..ignition_on()
    };
    let mut peak: f64 = 0.0;
    for _ in 0..3000 {
        rig.step(&mut d, &flat_out);
        peak = peak.max(d.telemetry().engine_rpm);
    }
    assert!(peak <= 6800.0 && peak > 6600.0, "peak {peak}");
}
