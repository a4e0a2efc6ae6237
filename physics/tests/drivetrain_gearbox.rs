//! Gear changes through the whole drivetrain: refused shifts surface as events and telemetry
//! with their reason, accepted ones cut torque for the shift time.

mod drivetrain_support;

use drivetrain_support::*;
use rig_physics::drivetrain::{GearEvent, ShiftRefusal};
use rig_physics::{Controls, GearRequest};

#[test]
fn reverse_above_walking_speed_is_refused_with_a_reason() {
    let mut d = rwd(SEQUENTIAL, "kind = \"open\"");
    d.set_wheel_radius_m(0.31);
    // Rolling forward at 5 m/s in neutral, ask for reverse (sequential: down from neutral).
    let mut rig = Rig::rolling(5.0);
    let down = Controls {
        gear_request: GearRequest::Down,
        ..ignition_on()
    };
    rig.step(&mut d, &down);
    assert_eq!(
        d.last_event(),
        Some(GearEvent::Refused {
            requested: -1,
            reason: ShiftRefusal::ReverseTooFast
        })
    );
    let t = d.telemetry();
    assert_eq!(t.gear, 0);
    assert_eq!(t.shift_refusal, ShiftRefusal::ReverseTooFast);
    assert_eq!(t.shift_refusal_count, 1);
    // The event lasts one step; the telemetry keeps the latest reason and the count.
    rig.step(&mut d, &ignition_on());
    assert_eq!(d.last_event(), None);
    assert_eq!(d.telemetry().shift_refusal_count, 1);
    // At walking pace it engages.
    let mut slow = Rig::rolling(1.0);
    slow.step(&mut d, &down);
    assert_eq!(d.last_event(), Some(GearEvent::Shifted { from: 0, to: -1 }));
}

#[test]
fn h_pattern_without_the_clutch_is_refused_when_the_car_requires_it() {
    let mut d = rwd(H_PATTERN, "kind = \"open\"");
    let mut rig = Rig::new();
    let select = Controls {
        gear_request: GearRequest::Select(1),
        ..ignition_on()
    };
    rig.step(&mut d, &select);
    assert_eq!(
        d.last_event(),
        Some(GearEvent::Refused {
            requested: 1,
            reason: ShiftRefusal::ClutchRequired
        })
    );
    assert_eq!(d.telemetry().shift_refusal, ShiftRefusal::ClutchRequired);
    let with_clutch = Controls {
        clutch: 1.0,
        ..select
    };
    rig.step(&mut d, &with_clutch);
    assert_eq!(d.last_event(), Some(GearEvent::Shifted { from: 0, to: 1 }));
}

#[test]
fn a_shift_cuts_drive_torque_for_the_shift_time() {
    let mut d = rwd(SEQUENTIAL, "kind = \"open\"");
    let mut rig = Rig::rolling(8.0);
    let mut c = Controls {
        gear_request: GearRequest::Up,
        throttle: 0.5,
        ..ignition_on()
    };
    rig.step(&mut d, &c);
    c.gear_request = GearRequest::None;
    for _ in 0..1000 {
        rig.step(&mut d, &c);
    }
    assert!(d.drive_torques_nm()[2] > 50.0, "{:?}", d.drive_torques_nm());
    c.gear_request = GearRequest::Up;
    rig.step(&mut d, &c);
    c.gear_request = GearRequest::None;
    let mut cut_steps = 0;
    while d.telemetry().shifting {
        assert!(d.drive_torques_nm()[2].abs() < 1e-6);
        assert_eq!(d.telemetry().gear, 2);
        rig.step(&mut d, &c);
        cut_steps += 1;
    }
    // shift_time_s = 0.05 at 1 ms steps (the request step counts as the first).
    assert_eq!(cut_steps, 49);
    for _ in 0..300 {
        rig.step(&mut d, &c);
    }
    assert!(d.drive_torques_nm()[2] > 20.0, "drive resumes in second");
}
