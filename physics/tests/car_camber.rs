//! Suspension geometry: the built-in tyre's camber thrust against the Magic Formula's camber
//! terms written out here; a car whose front camber gain or rear bump steer changes shows the understeer-
//! gradient change the geometry predicts (ISO 4138 constant-speed steer ramp); roll centres
//! take the predicted share of the roll out of the springs.

mod common;

use common::car;
use rig_physics::maneuver::{self, Maneuver};
use rig_physics::tyre::mf61::{GripScale, MfVersion, PACEJKA_2006_205_60R15 as MF};

/// Lateral force at zero slip angle and slip ratio, MF 6.1's camber form (the built-in set's,
/// Pacejka 2006 Table A3.1): gamma* = sin(gamma),
/// Fy = Dy sin(Cy atan(By SHy - Ey (By SHy - atan(By SHy)))) + SVy with
/// SVyg = Fz (PVY3 + PVY4 dfz) gamma*, SVy = Fz (PVY1 + PVY2 dfz) + SVyg,
/// Kyg0 = Fz (PKY6 + PKY7 dfz), SHy = PHY1 + PHY2 dfz + (Kyg0 gamma* - SVyg) / Kya,
/// mu_y = (PDY1 + PDY2 dfz) (1 - PDY3 gamma*^2),
/// Kya = PKY1 Fz0 sin(PKY4 atan(Fz / ((PKY2 + PKY5 gamma*^2) Fz0))) (1 - PKY3 |gamma*|),
/// Ey = (PEY1 + PEY2 dfz) (1 + PEY5 gamma*^2 - (PEY3 + PEY4 gamma*) sgn(SHy)), at most 1.
fn fy_at_zero_slip(gamma: f64, fz: f64) -> f64 {
    let m = &MF;
    let g = gamma.sin();
    let dfz = (fz - m.fnomin) / m.fnomin;
    let ky = m.pky1
        * m.fnomin
        * (m.pky4 * (fz / ((m.pky2 + m.pky5 * g * g) * m.fnomin)).atan()).sin()
        * (1.0 - m.pky3 * g.abs());
    let svy_camber = fz * (m.pvy3 + m.pvy4 * dfz) * g;
    let ky_camber = fz * (m.pky6 + m.pky7 * dfz);
    let shy = m.phy1 + m.phy2 * dfz + (ky_camber * g - svy_camber) / ky;
    let svy = fz * (m.pvy1 + m.pvy2 * dfz) + svy_camber;
    let mu = (m.pdy1 + m.pdy2 * dfz) * (1.0 - m.pdy3 * g * g);
    let (c, d) = (m.pcy1, mu * fz);
    let b = ky / (c * d);
    let sign = if shy >= 0.0 { 1.0 } else { -1.0 };
    let e =
        ((m.pey1 + m.pey2 * dfz) * (1.0 + m.pey5 * g * g - (m.pey3 + m.pey4 * g) * sign)).min(1.0);
    let bx = b * shy;
    d * (c * (bx - e * (bx - bx.atan())).atan()).sin() + svy
}

#[test]
fn camber_thrust_at_zero_slip_is_the_mf_camber_term_with_the_iso_sign() {
    // The table's camber coefficients (Pacejka 2006 Table A3.1, docs/tyres.md's two sources):
    // the oracle below must run on them, in the MF 6.1 form.
    assert_eq!(MF.version, MfVersion::Mf61);
    assert_eq!(
        [MF.pky6, MF.pky7, MF.phy3, MF.qbz4, MF.qbz5],
        [-0.92, -0.24, 0.0, 0.0, -0.227]
    );
    let gamma = 2f64.to_radians();
    // Camber thrust at 2 degrees from these equations, worked out apart from this code
    // (docs/tyres.md): -55.9 / -128.5 / -217.9 N (MF 5.2's form with PHY3 gave -108 / -195 /
    // -255 N).
    for (fz, stated) in [(2000.0, -55.9), (4000.0, -128.5), (6000.0, -217.9)] {
        let ours = MF
            .combined_cambered(0.0, 0.0, gamma, fz, GripScale::UNITY)
            .fy;
        let upright = MF.combined_cambered(0.0, 0.0, 0.0, fz, GripScale::UNITY).fy;
        let formula = fy_at_zero_slip(gamma, fz);
        assert!(
            (ours - formula).abs() <= 1e-9 * formula.abs().max(1.0),
            "Fz {fz}: ours {ours}, formula {formula}"
        );
        // ISO: positive inclination leans the top of the wheel to its right (-y); the thrust
        // points the way the wheel leans.
        let thrust = ours - upright;
        assert!(thrust < 0.0, "Fz {fz}: camber thrust {thrust} N");
        assert!(
            (thrust - stated).abs() < 0.1,
            "Fz {fz}: camber thrust {thrust} N, stated {stated} N"
        );
        println!("Fz {fz}: camber thrust at 2 deg {thrust:.1} N");
    }
    // At the nominal load, 2 degrees give about 130 N: a camber stiffness near 0.08 of the
    // cornering stiffness, as for radial car tyres.
    let thrust = MF
        .combined_cambered(0.0, 0.0, gamma, 4000.0, GripScale::UNITY)
        .fy
        - MF.combined_cambered(0.0, 0.0, 0.0, 4000.0, GripScale::UNITY)
            .fy;
    let ratio = (thrust / gamma) / MF.cornering_stiffness(4000.0);
    assert!(
        (0.05..0.25).contains(&ratio),
        "camber / cornering stiffness {ratio}"
    );
}

/// Understeer gradient (rad per m/s^2), roll gradient (rad per m/s^2) and left-right load
/// transfer (N per m/s^2) of `spec` from the constant-speed steer ramp at 80 km/h.
fn gradients(spec: &rig_physics::CarSpec) -> (f64, f64, f64) {
    let ramp = Maneuver::SteerRamp {
        speed_kph: 80.0,
        steer_rate_deg_per_s: 4.0,
        max_steer_deg: 60.0,
    };
    let rows = maneuver::simulate(spec, &ramp).unwrap();
    let k = maneuver::understeer_gradient(&rows, spec.chassis.wheelbase_m, spec.steering.ratio)
        .unwrap();
    let fit: Vec<_> = rows
        .iter()
        .filter(|r| (0.5..4.0).contains(&r.lateral_accel_mps2.abs()))
        .collect();
    let roll = fit
        .iter()
        .map(|r| r.roll_rad / r.lateral_accel_mps2)
        .sum::<f64>()
        / fit.len() as f64;
    let transfer = fit
        .iter()
        .map(|r| {
            let [fl, fr, rl, rr] = r.wheel_loads_n;
            (fl + rl - fr - rr) / r.lateral_accel_mps2
        })
        .sum::<f64>()
        / fit.len() as f64;
    (k, roll, transfer)
}

#[test]
fn front_camber_gain_changes_the_understeer_gradient_as_camber_thrust_predicts() {
    let base = car("road");
    let mut gained = base.clone();
    // -40 deg/m: the compressed outside wheel gains negative camber, taking back part of the
    // outward lean body roll gives it (full compensation would be -1 / (track / 2) rad/m).
    let gain_deg_per_m = -40.0;
    gained.suspension.front.camber_gain_deg_per_m = gain_deg_per_m;
    let (k0, roll0, _) = gradients(&base);
    let (k1, _, _) = gradients(&gained);
    // Prediction: in roll phi both front wheels lean outward by phi (1 + g t / 2) (g in rad/m,
    // t the track); camber thrust C_g gamma against the cornering stiffness C_a moves the
    // front slip angle needed per m/s^2 by (C_g / C_a) phi' g t / 2.
    let fz = base.static_wheel_loads_n()[0];
    let (gamma, tyre) = (0.01, &MF);
    let camber_stiffness = (tyre
        .combined_cambered(0.0, 0.0, gamma, fz, GripScale::UNITY)
        .fy
        - tyre
            .combined_cambered(0.0, 0.0, 0.0, fz, GripScale::UNITY)
            .fy)
        / gamma;
    let ratio = camber_stiffness / tyre.cornering_stiffness(fz);
    let half_track = 0.5 * base.chassis.track_front_m;
    let expected = ratio * roll0.abs() * gain_deg_per_m.to_radians() * half_track;
    let change = k1 - k0;
    println!(
        "understeer gradient {:.3} -> {:.3} deg/g (change {:.3}, expected {:.3}); roll \
         gradient {:.2} deg/g",
        k0.to_degrees() * 9.81,
        k1.to_degrees() * 9.81,
        change.to_degrees() * 9.81,
        expected.to_degrees() * 9.81,
        roll0.to_degrees().abs() * 9.81
    );
    assert!(
        change < 0.0,
        "more negative camber in bump must reduce understeer"
    );
    assert!(
        (change / expected - 1.0).abs() < 0.5,
        "change {change:e} vs expected {expected:e}"
    );
}

#[test]
fn roll_centres_move_lateral_load_transfer_from_roll_to_the_links() {
    // Roll moment of the sprung mass about the roll axis: m a (h_cg - h_rc); with both roll
    // centres at h the roll gradient shrinks by about (h_cg - h) / h_cg (the unsprung masses
    // and the tyres' own deflection make it approximate), and the total load transfer stays.
    let base = car("road");
    let mut raised = base.clone();
    let h = 0.10;
    raised.suspension.front.roll_centre_height_m = h;
    raised.suspension.rear.roll_centre_height_m = h;
    let (_, roll0, transfer0) = gradients(&base);
    let (_, roll1, transfer1) = gradients(&raised);
    let expected = (base.chassis.cog_height_m - h) / base.chassis.cog_height_m;
    let ratio = roll1 / roll0;
    println!("roll gradient ratio {ratio:.3}, expected about {expected:.3}");
    assert!(
        (ratio - expected).abs() < 0.05,
        "ratio {ratio}, expected {expected}"
    );
    // Total load transfer m a h_cg / t: the same within a few per cent (the body rolls less,
    // so its centre of gravity moves out less).
    println!("load transfer {transfer0:.1} -> {transfer1:.1} N per m/s^2");
    assert!(
        (transfer1 / transfer0 - 1.0).abs() < 0.03,
        "{transfer0} vs {transfer1}"
    );
}

#[test]
fn rear_bump_steer_adds_roll_understeer_as_its_geometry_predicts() {
    // Toe-in with compression at the rear: in roll the outside rear wheel toes in and the
    // inside one out, both steering with the turn by g (t / 2) phi, which adds to the
    // understeer gradient one for one (rear steer angle per m/s^2).
    let base = car("road");
    let mut steered = base.clone();
    let toe_gain_deg_per_m = 10.0;
    steered.suspension.rear.toe_gain_deg_per_m = toe_gain_deg_per_m;
    let (k0, roll0, _) = gradients(&base);
    let (k1, _, _) = gradients(&steered);
    let expected = toe_gain_deg_per_m.to_radians() * 0.5 * base.chassis.track_rear_m * roll0.abs();
    let change = k1 - k0;
    println!(
        "understeer gradient {:.3} -> {:.3} deg/g (change {:.3}, expected {:.3})",
        k0.to_degrees() * 9.81,
        k1.to_degrees() * 9.81,
        change.to_degrees() * 9.81,
        expected.to_degrees() * 9.81
    );
    assert!(
        (change / expected - 1.0).abs() < 0.3,
        "change {change:e} vs expected {expected:e}"
    );
    // Static toe alone (symmetric) keeps the car straight.
    let mut toed = base.clone();
    toed.suspension.front.static_toe_deg = 0.3;
    toed.suspension.rear.static_toe_deg = 0.2;
    let step = Maneuver::StepSteer {
        speed_kph: 80.0,
        steer_deg: 0.0,
        duration_s: 3.0,
    };
    let rows = maneuver::simulate(&toed, &step).unwrap();
    let worst = rows
        .iter()
        .map(|r| r.yaw_rate_radps.abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-3, "yaw rate {worst} rad/s with symmetric toe");
}
