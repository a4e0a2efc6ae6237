//! Numeric checks of the motion reference, sections 3 and 7: planar displacements, Stewart
//! leg lengths and arm angles, rod identity, conditioning, forward(inverse) round trips,
//! unreachable poses and the whole-pose clamp.

use super::*;

fn deg(d: f64) -> f64 {
    d.to_radians()
}

fn pose(surge: f64, sway: f64, heave: f64, roll_deg: f64, pitch_deg: f64, yaw_deg: f64) -> Pose {
    Pose {
        surge_m: surge,
        sway_m: sway,
        heave_m: heave,
        roll_rad: deg(roll_deg),
        pitch_rad: deg(pitch_deg),
        yaw_rad: deg(yaw_deg),
    }
}

fn seat_mover(drive: PlanarDrive) -> Platform {
    Platform::Planar {
        points: [[-0.40, 0.25], [-0.40, -0.25], [0.0; 2], [0.0; 2]],
        count: 2,
        drive,
    }
}

fn three_actuator() -> Platform {
    Platform::Planar {
        points: [[0.30, 0.25], [0.30, -0.25], [-0.40, 0.0], [0.0; 2]],
        count: 3,
        drive: PlanarDrive::Linear,
    }
}

fn reference_stewart() -> StewartGeometry {
    StewartGeometry::paired(0.55, 0.35, 20.0, 20.0, 0.60)
}

fn reference_rotary() -> RotaryStewart {
    RotaryStewart::paired(0.55, 0.35, 20.0, 20.0, 0.15, 0.62).unwrap()
}

fn reference_poses() -> [Pose; 7] {
    [
        Pose::NEUTRAL,
        pose(0.0, 0.0, 0.05, 0.0, 0.0, 0.0),
        pose(0.05, 0.0, 0.0, 0.0, 0.0, 0.0),
        pose(0.0, 0.0, 0.0, 5.0, 0.0, 0.0),
        pose(0.0, 0.0, 0.0, 0.0, 5.0, 0.0),
        pose(0.0, 0.0, 0.0, 0.0, 0.0, 5.0),
        pose(0.02, -0.03, 0.04, 3.0, -4.0, 6.0),
    ]
}

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "{what}[{i}]: got {g}, want {w}");
    }
}

#[test]
fn seat_mover_displacements() {
    let p = seat_mover(PlanarDrive::Linear);
    let cases = [
        (pose(0.0, 0.0, 0.0, 5.0, 0.0, 0.0), [0.021789, -0.021789]),
        (pose(0.0, 0.0, 0.0, 0.0, 5.0, 0.0), [0.034862, 0.034862]),
        (pose(0.0, 0.0, 0.0, 5.0, 5.0, 0.0), [0.056568, 0.013156]),
    ];
    for (q, want) in cases {
        assert_close(p.inverse(&q).unwrap().as_slice(), &want, 1e-6, "seat mover");
    }
    let crank = seat_mover(PlanarDrive::Crank { radius_m: 0.10 });
    let a = crank.inverse(&pose(0.0, 0.0, 0.0, 5.0, 0.0, 0.0)).unwrap();
    assert!((a.values[0].to_degrees() - 12.585).abs() < 1e-3);
    // Mirrored roll gives mirrored strokes.
    let left = p.inverse(&pose(0.0, 0.0, 0.0, 4.0, 0.0, 0.0)).unwrap();
    let right = p.inverse(&pose(0.0, 0.0, 0.0, -4.0, 0.0, 0.0)).unwrap();
    assert_close(
        &[left.values[0], left.values[1]],
        &[right.values[1], right.values[0]],
        1e-15,
        "mirror",
    );
}

#[test]
fn three_actuator_displacements() {
    let p = three_actuator();
    let cases = [
        (pose(0.0, 0.0, 0.03, 0.0, 0.0, 0.0), [0.03, 0.03, 0.03]),
        (
            pose(0.0, 0.0, 0.0, 4.0, 0.0, 0.0),
            [0.017439, -0.017439, 0.0],
        ),
        (
            pose(0.0, 0.0, 0.0, 0.0, 4.0, 0.0),
            [-0.020927, -0.020927, 0.027903],
        ),
    ];
    for (q, want) in cases {
        assert_close(
            p.inverse(&q).unwrap().as_slice(),
            &want,
            1e-6,
            "three actuator",
        );
    }
}

#[test]
fn stewart_linear_leg_length_table() {
    let g = reference_stewart();
    let table: [[f64; 6]; 7] = [
        [0.700052; 6],
        [0.743352; 6],
        [0.678901, 0.678901, 0.723433, 0.702466, 0.702466, 0.723433],
        [0.679872, 0.719937, 0.725096, 0.704716, 0.695637, 0.675995],
        [0.683718, 0.683718, 0.690928, 0.725982, 0.725982, 0.690928],
        [0.685293, 0.716075, 0.685293, 0.716075, 0.685293, 0.716075],
        [0.718192, 0.763296, 0.755642, 0.752472, 0.681182, 0.748050],
    ];
    for (q, want) in reference_poses().iter().zip(table) {
        assert_close(&g.leg_lengths(q), &want, 1e-6, "leg lengths");
    }
}

#[test]
fn stewart_rotary_arm_angle_table() {
    let r = reference_rotary();
    assert!((r.geometry.home_height_m - 0.547101).abs() < 1e-6);
    let table: [[f64; 6]; 7] = [
        [0.0; 6],
        [20.0056; 6],
        [-9.0291, -9.0291, 6.9222, 5.2835, 5.2835, 6.9222],
        [-8.8847, 9.0435, 11.3908, 2.0716, -1.9764, -10.6636],
        [-7.2713, -7.2713, -4.0222, 11.8415, 11.8415, -4.0222],
        [-4.5395, 5.7012, -4.5395, 5.7012, -4.5395, 5.7012],
        [7.4744, 31.5451, 28.6510, 25.1960, -2.7297, 17.9132],
    ];
    for (q, want) in reference_poses().iter().zip(table) {
        let angles = r.arm_angles(q).unwrap().map(f64::to_degrees);
        assert_close(&angles, &want, 1e-4, "arm angles");
        // Independent check: the rod from the rebuilt arm tip to the platform joint has
        // exactly the rod length.
        let legs = r.geometry.leg_vectors(q);
        for i in 0..6 {
            let joint = [
                legs[i][0] + r.geometry.base[i][0],
                legs[i][1] + r.geometry.base[i][1],
                legs[i][2] + r.geometry.base[i][2],
            ];
            let tip = r.arm_tip(i, angles[i].to_radians());
            let d = [joint[0] - tip[0], joint[1] - tip[1], joint[2] - tip[2]];
            assert!((pose::norm(d) - 0.62).abs() < 1e-9);
        }
    }
}

#[test]
fn condition_number_at_home() {
    let k = reference_stewart().condition_number(&Pose::NEUTRAL);
    assert!((k - 4.85).abs() < 0.01, "kappa {k}");
    let flat =
        StewartGeometry::paired(0.55, 0.35, 20.0, 20.0, 0.02).condition_number(&Pose::NEUTRAL);
    assert!((flat - 52.6).abs() < 0.1, "kappa {flat}");
}

#[test]
fn forward_inverse_round_trips_over_a_grid() {
    let platforms = [
        Platform::StewartLinear(reference_stewart()),
        Platform::StewartRotary(reference_rotary()),
        three_actuator(),
        seat_mover(PlanarDrive::Linear),
        seat_mover(PlanarDrive::Crank { radius_m: 0.10 }),
    ];
    for platform in platforms {
        for s in [-1.0, -0.5, 0.5, 1.0] {
            for q in reference_poses() {
                let q =
                    platform.reachable_components(Pose::from_array(q.to_array().map(|v| v * s)));
                let a = platform.inverse(&q).unwrap();
                let (back, iterations) = platform.forward(&a, Pose::NEUTRAL).unwrap();
                assert!(iterations <= 10, "{platform:?} {iterations} iterations");
                let err = back
                    .to_array()
                    .iter()
                    .zip(q.to_array())
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                assert!(err < 1e-9, "{platform:?}: round trip error {err}");
            }
        }
    }
}

#[test]
fn unreachable_pose_is_an_error_not_nan() {
    let r = Platform::StewartRotary(reference_rotary());
    assert_eq!(
        r.inverse(&pose(0.0, 0.0, 0.5, 0.0, 0.0, 0.0)),
        Err(KinematicsError::Unreachable { actuator: 0 })
    );
    let crank = seat_mover(PlanarDrive::Crank { radius_m: 0.10 });
    assert!(matches!(
        crank.inverse(&pose(0.0, 0.0, 0.0, 40.0, 0.0, 0.0)),
        Err(KinematicsError::Unreachable { .. })
    ));
    let mut nan = Pose::NEUTRAL;
    nan.roll_rad = f64::NAN;
    assert_eq!(r.inverse(&nan), Err(KinematicsError::NotFinite));
}

#[test]
fn clamp_scales_the_whole_pose_toward_neutral() {
    let p = Platform::StewartLinear(reference_stewart());
    let wanted = pose(0.02, -0.03, 0.04, 3.0, -4.0, 6.0);
    let limit = 0.03;
    let (clamped, actuators, k) = p.clamp_pose(&wanted, limit).unwrap();
    assert!(k > 0.0 && k < 1.0);
    // Same direction: every component scaled by the same factor.
    for (c, w) in clamped.to_array().iter().zip(wanted.to_array()) {
        assert!((c - w * k).abs() < 1e-12);
    }
    let worst = actuators
        .as_slice()
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(
        worst <= limit && worst > limit - 1e-5,
        "worst actuator {worst}"
    );
    // A reachable pose is untouched; an unreachable one is scaled, not refused.
    let small = pose(0.0, 0.0, 0.01, 0.0, 0.0, 0.0);
    assert_eq!(p.clamp_pose(&small, limit).unwrap().2, 1.0);
    let rotary = Platform::StewartRotary(reference_rotary());
    let (_, a, k) = rotary
        .clamp_pose(&pose(0.0, 0.0, 0.5, 0.0, 0.0, 0.0), deg(60.0))
        .unwrap();
    assert!(k < 0.5 && a.as_slice().iter().all(|v| v.is_finite()));
    // Non-finite wishes clamp to neutral.
    let mut nan = wanted;
    nan.heave_m = f64::INFINITY;
    assert_eq!(p.clamp_pose(&nan, limit).unwrap().0, Pose::NEUTRAL);
}
