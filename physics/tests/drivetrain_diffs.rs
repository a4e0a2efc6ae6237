//! Differential behaviour: Racer's locking rule and worked example (reference physics.md 2b),
//! GPL Salisbury ratios, and each type on a split-mu launch through the whole drivetrain.

mod drivetrain_support;

use drivetrain_support::*;
use rig_physics::drivetrain::differential::{salisbury_bias_ratio, BiasLock, Coupling};
use rig_physics::drivetrain::{DifferentialSpec, Drivetrain, WheelSpinInput};
use rig_physics::telemetry::{DIFF_CENTRE, DIFF_FRONT, DIFF_REAR};
use rig_physics::GearRequest;

fn lock(preload_nm: f64, bias_ratio: f64) -> BiasLock {
    BiasLock {
        preload_nm,
        bias_ratio,
    }
}

#[test]
fn racer_worked_example_and_discriminating_vectors() {
    let racer = lock(50.0, 1.5);
    assert_eq!(
        racer.excess_torque_nm(150.0, 100.0),
        0.0,
        "150:100 stays locked"
    );
    assert_eq!(
        racer.excess_torque_nm(160.0, 100.0),
        10.0,
        "160:100 gives 10 N m"
    );
    assert_eq!(racer.excess_torque_nm(100.0, 160.0), 10.0, "either side");
    let stiffer = lock(60.0, 1.5);
    assert_eq!(stiffer.excess_torque_nm(160.0, 100.0), 0.0);
    assert_eq!(stiffer.excess_torque_nm(170.0, 100.0), 10.0);
    // Discriminating vectors: 130:100 locked under both rules; preload 80 holds 160:100 under
    // the max(preload, (TBR-1) T_low) rule, where a TBR-only rule would let 10 N m through.
    assert_eq!(racer.excess_torque_nm(130.0, 100.0), 0.0);
    assert_eq!(lock(80.0, 1.5).excess_torque_nm(160.0, 100.0), 0.0);
    assert_eq!(lock(0.0, 1.5).excess_torque_nm(160.0, 100.0), 10.0);
}

/// Rear wheels rolling together at 10 rad/s in neutral with the given road torques; returns
/// `I * d(omega_L - omega_R)/dt` (the torque accelerating them apart) and the lock state.
fn racer_example_in_the_driveline(preload_nm: f64, left_nm: f64, right_nm: f64) -> (f64, bool) {
    let mut drivetrain = rwd(
        SEQUENTIAL,
        &format!("kind = \"torque_bias\"\nbias_ratio = 1.5\npreload_nm = {preload_nm}"),
    );
    let wheel = |road: f64| WheelSpinInput {
        omega_radps: 10.0,
        inertia_kgm2: 1.0,
        road_torque_nm: road,
        road_torque_slope: 0.0,
        brake_torque_nm: 0.0,
    };
    let inputs = [wheel(0.0), wheel(0.0), wheel(-left_nm), wheel(-right_nm)];
    let out = drivetrain.step(&ignition_on(), &inputs, DT);
    let apart = ((out[2] - out[3]) - 0.0) / DT;
    (apart, drivetrain.telemetry().diffs[DIFF_REAR].locked)
}

#[test]
fn racer_worked_example_holds_in_the_driveline_solve() {
    let (apart, locked) = racer_example_in_the_driveline(50.0, 100.0, 150.0);
    assert!(locked && apart.abs() < 1e-9, "{apart} {locked}");
    let (apart, locked) = racer_example_in_the_driveline(50.0, 100.0, 160.0);
    assert!(!locked && (apart - 10.0).abs() < 1e-6, "{apart}");
    let (apart, locked) = racer_example_in_the_driveline(60.0, 100.0, 160.0);
    assert!(locked && apart.abs() < 1e-9, "{apart}");
    let (apart, locked) = racer_example_in_the_driveline(60.0, 100.0, 170.0);
    assert!(!locked && (apart - 10.0).abs() < 1e-6, "{apart}");
    let (apart, locked) = racer_example_in_the_driveline(80.0, 100.0, 160.0);
    assert!(locked && apart.abs() < 1e-9, "{apart}");
}

#[test]
fn gpl_salisbury_60_30_2() {
    assert!((salisbury_bias_ratio(60.0, 2) - 1.5).abs() < 1e-12);
    assert!((salisbury_bias_ratio(30.0, 2) - 2.598_076_211_353_316).abs() < 1e-12);
    let spec: DifferentialSpec = toml::from_str(
        "kind = \"salisbury\"\npreload_nm = 0\npower_ramp_deg = 60\ncoast_ramp_deg = 30\nclutches = 2",
    )
    .unwrap();
    match Coupling::from_spec(&spec) {
        Coupling::Bias { power, coast } => {
            assert!((power.bias_ratio - 1.5).abs() < 1e-12);
            assert!((coast.bias_ratio - 2.598_076_211_353_316).abs() < 1e-12);
        }
        other => panic!("salisbury became {other:?}"),
    }
}

/// First gear, full throttle from 3 m/s with the right rear wheel on ice. Calls `check` every
/// step with the rig and the drivetrain.
fn split_mu_launch(drivetrain: &mut Drivetrain, mut check: impl FnMut(&Rig, &Drivetrain)) -> Rig {
    let mut rig = Rig::rolling(3.0);
    rig.mu[3] = 0.1;
    let mut controls = ignition_on();
    controls.gear_request = GearRequest::Up;
    rig.step(drivetrain, &controls);
    controls.gear_request = GearRequest::None;
    for _ in 0..100 {
        rig.step(drivetrain, &controls);
    }
    controls.throttle = 1.0;
    for _ in 0..1500 {
        rig.step(drivetrain, &controls);
        check(&rig, drivetrain);
    }
    rig
}

#[test]
fn open_diff_on_split_mu_spins_the_icy_wheel_with_equal_torques() {
    let mut drivetrain = rwd(SEQUENTIAL, "kind = \"open\"");
    let mut max_torque_gap: f64 = 0.0;
    let rig = split_mu_launch(&mut drivetrain, |_, d| {
        let t = d.drive_torques_nm();
        max_torque_gap = max_torque_gap.max((t[2] - t[3]).abs() / t[2].abs().max(1.0));
    });
    let t = drivetrain.drive_torques_nm();
    assert!(
        max_torque_gap < 1e-6,
        "open diff torques differ by {max_torque_gap}"
    );
    assert!(
        t[2] > 0.0 && t[2] <= 0.1 * rig.load_n[3] * rig.radius_m * 1.01,
        "{t:?}"
    );
    assert!(
        rig.omega[3] > 2.0 * rig.omega[2],
        "the icy wheel spins up: {:?}",
        rig.omega
    );
}

#[test]
fn spool_keeps_wheel_speeds_equal() {
    let mut drivetrain = rwd(SEQUENTIAL, "kind = \"spool\"");
    let rig = split_mu_launch(&mut drivetrain, |rig, d| {
        assert!(
            (rig.omega[2] - rig.omega[3]).abs() < 1e-9,
            "{:?}",
            rig.omega
        );
        assert!(d.telemetry().diffs[DIFF_REAR].locked);
    });
    let t = drivetrain.drive_torques_nm();
    assert!(
        t[2] > 3.0 * t[3],
        "the grippy side carries the torque: {t:?}"
    );
    assert!(rig.speed_mps > 5.0);
}

#[test]
fn viscous_transfers_coefficient_times_speed_difference() {
    let c = 40.0;
    let mut drivetrain = rwd(
        SEQUENTIAL,
        &format!("kind = \"viscous\"\ncoefficient_nm_s_per_rad = {c}"),
    );
    let mut seen_transfer: f64 = 0.0;
    split_mu_launch(&mut drivetrain, |rig, d| {
        let diff = d.telemetry().diffs[DIFF_REAR];
        let expected = c * (rig.omega[2] - rig.omega[3]).abs();
        assert!((diff.transfer_torque_nm - expected).abs() < 1e-9 * expected.max(1.0));
        // Drive torques differ by twice the transfer (one side gains it, the other loses it).
        let t = d.drive_torques_nm();
        assert!(((t[2] - t[3]).abs() - 2.0 * expected).abs() < 1e-6 * expected.max(1.0));
        seen_transfer = seen_transfer.max(diff.transfer_torque_nm);
    });
    assert!(
        seen_transfer > 50.0,
        "the test spun the icy wheel: {seen_transfer}"
    );
}

#[test]
fn clutch_lsd_holds_the_split_within_its_bias_ratio() {
    let mut drivetrain = rwd(
        SEQUENTIAL,
        "kind = \"clutch_lsd\"\npreload_nm = 40\npower_bias_ratio = 2.5\nways = 1.5",
    );
    let mut locked_steps = 0;
    split_mu_launch(&mut drivetrain, |_, d| {
        if d.telemetry().diffs[DIFF_REAR].locked {
            locked_steps += 1;
        }
    });
    let t = drivetrain.drive_torques_nm();
    assert!(
        t[2] > t[3] * 1.5,
        "more torque to the grippy wheel than open: {t:?}"
    );
    assert!(locked_steps < 1500, "spins up past its bias ratio on ice");
}

#[test]
fn awd_centre_diff_splits_as_configured() {
    let text = spec_toml(
        "layout = \"awd\"\nfront_torque_fraction = 0.35",
        SEQUENTIAL,
        "[front_differential]\nkind = \"open\"\n[rear_differential]\nkind = \"open\"\n\
         [centre_differential]\nkind = \"open\"",
    );
    let mut drivetrain = Drivetrain::new(&spec(&text));
    let mut rig = Rig::rolling(3.0);
    let mut controls = ignition_on();
    controls.gear_request = GearRequest::Up;
    rig.step(&mut drivetrain, &controls);
    controls.gear_request = GearRequest::None;
    controls.throttle = 0.6;
    for i in 0..1000 {
        rig.step(&mut drivetrain, &controls);
        let t = drivetrain.drive_torques_nm();
        let total: f64 = t.iter().sum();
        if i > 100 {
            assert!(total > 100.0);
            let front = (t[0] + t[1]) / total;
            assert!((front - 0.35).abs() < 1e-6, "front share {front}");
        }
    }
    let d = drivetrain.telemetry();
    assert!(d.diffs[DIFF_FRONT].present && d.diffs[DIFF_REAR].present);
    assert!(d.diffs[DIFF_CENTRE].present);
}

#[test]
fn awd_viscous_centre_couples_axles_when_one_spins() {
    let text = spec_toml(
        "layout = \"awd\"\nfront_torque_fraction = 0.5",
        SEQUENTIAL,
        "[front_differential]\nkind = \"open\"\n[rear_differential]\n\
         kind = \"clutch_lsd\"\npreload_nm = 30\npower_bias_ratio = 2\nways = 1.5\n\
         [centre_differential]\nkind = \"viscous\"\ncoefficient_nm_s_per_rad = 60",
    );
    let mut drivetrain = Drivetrain::new(&spec(&text));
    let mut rig = Rig::rolling(3.0);
    rig.mu[0] = 0.1;
    rig.mu[1] = 0.1;
    let mut controls = ignition_on();
    controls.gear_request = GearRequest::Up;
    rig.step(&mut drivetrain, &controls);
    controls.gear_request = GearRequest::None;
    controls.throttle = 1.0;
    for _ in 0..1000 {
        rig.step(&mut drivetrain, &controls);
    }
    let t = drivetrain.drive_torques_nm();
    let centre = drivetrain.telemetry().diffs[DIFF_CENTRE];
    let front_axle = (rig.omega[0] + rig.omega[1]) / 2.0;
    let rear_axle = (rig.omega[2] + rig.omega[3]) / 2.0;
    assert!(front_axle > rear_axle, "icy front spins faster");
    assert!((centre.transfer_torque_nm - 60.0 * (front_axle - rear_axle)).abs() < 1e-6);
    assert!(
        t[2] + t[3] > t[0] + t[1],
        "the viscous centre moves torque rearwards: {t:?}"
    );
}
