//! Front and rear tyres may differ (issue 21): `[tyre.front]` / `[tyre.rear]` name an axle's
//! own coefficient set (built-in or `.tir`) and grip scales. A grippier rear tyre makes the
//! car understeer more (ISO 4138 steer ramp); naming the same set for both axles is the
//! single form to the last bit; bad axle tables fail with the line and the fix.

mod common;
use common::*;
use rig_physics::maneuver::{self, Maneuver};
use rig_physics::spec::CarSpec;
use rig_physics::track::Track;
use rig_physics::tyre::BUILTIN_TIR;
use rig_physics::{Controls, World};

const SET: &str = "coefficients = \"pacejka2006_205_60r15\"";

fn road_text() -> String {
    rig_physics::builtin::car_text("road").unwrap().to_string()
}

/// The road car's text with `extra` added after its `[tyre]` table.
fn with_axle_tables(extra: &str) -> String {
    road_text().replace("[drivetrain]", &format!("{extra}\n[drivetrain]"))
}

/// The understeer gradient of the ISO 4138 steer ramp at 80 km/h, deg/g.
fn understeer_deg_per_g(spec: &CarSpec) -> f64 {
    let ramp = Maneuver::SteerRamp {
        speed_kph: 80.0,
        steer_rate_deg_per_s: 10.0,
        max_steer_deg: 60.0,
    };
    let rows = maneuver::simulate(spec, &ramp).unwrap();
    let k = maneuver::understeer_gradient(&rows, spec.chassis.wheelbase_m, spec.steering.ratio)
        .expect("enough rows in the fit range");
    k.to_degrees() * G
}

#[test]
fn a_grippier_rear_tyre_makes_the_car_understeer_more() {
    let base = understeer_deg_per_g(&car("road"));
    // A rear tyre from its own .tir file, next to the car file, with 15 % more cornering
    // stiffness (PKY1) and lateral friction (PDY1): the two-set evaluation. (Friction alone
    // hardly moves the gradient: ISO 4138 reads it in the linear range, 0.5-4 m/s^2, where
    // the cornering stiffness rules.)
    let dir = std::env::temp_dir().join(format!("rigd-front-rear-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut grippy = BUILTIN_TIR.to_string();
    for (line, scaled) in [
        (
            "PDY1                     = -0.990",
            "PDY1                     = -1.1385",
        ),
        (
            "PKY1                     = -14.95",
            "PKY1                     = -17.1925",
        ),
    ] {
        assert!(grippy.contains(line), "{line}");
        grippy = grippy.replace(line, scaled);
    }
    std::fs::write(dir.join("grippy.tir"), grippy).unwrap();
    let text = with_axle_tables("[tyre.rear]\ncoefficients = \"grippy.tir\"\n");
    let path = dir.join("car.toml");
    std::fs::write(&path, &text).unwrap();
    let spec = CarSpec::from_toml(&text, path.to_str().unwrap()).unwrap();
    let [front, rear] = [spec.tyre.axle_mf(0), spec.tyre.axle_mf(1)];
    assert!((rear.pdy1 / front.pdy1 - 1.15).abs() < 1e-12);
    assert!((rear.pky1 / front.pky1 - 1.15).abs() < 1e-12);
    let grippy_rear = understeer_deg_per_g(&spec);
    println!(
        "understeer gradient: equal tyres {base:.3} deg/g, grippier rear {grippy_rear:.3} deg/g"
    );
    assert!(
        grippy_rear > base + 0.2,
        "{grippy_rear} deg/g against {base} deg/g"
    );
}

#[test]
fn an_axle_grip_scale_scales_that_axle_s_forces_only() {
    let text = with_axle_tables(&format!("[tyre.rear]\n{SET}\ngrip_scale_lat = 1.15\n"));
    let spec = CarSpec::from_toml(&text, "cars/test.toml").unwrap();
    let (world, id) = world_with(&spec, Track::flat());
    let tyre = world.car(id).tyre();
    assert!(tyre.rear_mf.is_none(), "one set: one evaluation");
    // Past the peak of the lateral force, four wheels at the same operating point.
    let forces = tyre.forces4([0.0; 4], [0.3; 4], [0.0; 4], [4000.0; 4], [1.0; 4]);
    let (front, rear) = (forces[0].fy, forces[2].fy);
    assert_eq!(forces[0], forces[1]);
    assert_eq!(forces[2], forces[3]);
    let [front_peak, rear_peak] = [0, 2].map(|lane| {
        (1..300)
            .map(|i| {
                let alpha = [i as f64 * 1e-3; 4];
                tyre.forces4([0.0; 4], alpha, [0.0; 4], [4000.0; 4], [1.0; 4])[lane]
                    .fy
                    .abs()
            })
            .fold(0.0, f64::max)
    });
    println!("at 0.3 rad: front {front:.1} N, rear {rear:.1} N; peaks {front_peak:.1} N, {rear_peak:.1} N");
    assert!(
        (rear_peak / front_peak - 1.15).abs() < 2e-3,
        "{rear_peak} / {front_peak}"
    );
}

#[test]
fn the_same_set_named_per_axle_is_the_single_form_bit_for_bit() {
    let single = car("road");
    let text = with_axle_tables(&format!(
        "[tyre.front]\n{SET}\n[tyre.rear]\n{SET}\ngrip_scale_long = 1.0\n"
    ));
    let per_axle = CarSpec::from_toml(&text, "cars/test.toml").unwrap();
    assert!(per_axle.tyre.rear.is_some());
    let mut world = World::new(Track::flat());
    let ids = [world.add_car(&single), world.add_car(&per_axle)];
    for id in ids {
        world.car_mut(id).set_speed(20.0);
    }
    for step in 0..4000 {
        let controls = Controls {
            ignition: true,
            steering: (step as f64 * 0.003).sin() * 0.5,
            brake: if step > 3000 { 0.6 } else { 0.0 },
            ..Controls::default()
        };
        for id in ids {
            world.set_controls(id, controls);
        }
        world.step(DT);
        let [a, b] = ids.map(|id| world.telemetry(id));
        // Cars at different places see the same flat ground: compare everything but where.
        assert_eq!(a.wheels, b.wheels, "step {step}");
        assert_eq!(a.velocity_body_mps, b.velocity_body_mps, "step {step}");
    }
}

#[test]
fn bad_axle_tables_name_the_line_and_the_fix() {
    let line_of =
        |text: &str, start: &str| text.lines().position(|l| l.starts_with(start)).unwrap() + 1;
    // Unknown set.
    let text = with_axle_tables("[tyre.rear]\ncoefficients = \"slicks\"\n");
    let err = CarSpec::from_toml(&text, "cars/test.toml").unwrap_err();
    assert_eq!(err.field, "tyre.rear.coefficients");
    assert_eq!(err.line, line_of(&text, "coefficients = \"slicks\""));
    assert!(
        err.message.contains("pacejka2006_205_60r15") && err.message.contains(".tir"),
        "{err}"
    );
    // Unknown key.
    let text = with_axle_tables(&format!("[tyre.front]\n{SET}\nradius_m = 0.3\n"));
    let err = CarSpec::from_toml(&text, "cars/test.toml").unwrap_err();
    assert_eq!(err.line, line_of(&text, "radius_m = 0.3"), "{err}");
    assert!(err.message.contains("radius_m"), "{err}");
    // Out of range.
    let text = with_axle_tables(&format!("[tyre.rear]\n{SET}\ngrip_scale_lat = 9.0\n"));
    let err = CarSpec::from_toml(&text, "cars/test.toml").unwrap_err();
    assert_eq!(err.field, "tyre.rear.grip_scale_lat");
    assert_eq!(err.line, line_of(&text, "grip_scale_lat = 9.0"));
    assert!(err.message.contains("between 0.05 and 5"), "{err}");
    // A missing .tir file.
    let text = with_axle_tables("[tyre.front]\ncoefficients = \"nowhere/front.tir\"\n");
    let err = CarSpec::from_toml(&text, "/tmp/rigd-no-such-dir/car.toml").unwrap_err();
    assert_eq!(err.field, "tyre.front.coefficients");
    assert_eq!(err.line, line_of(&text, "coefficients = \"nowhere"));
    assert!(err.message.contains("check the path"), "{err}");
}

/// The road car's text with `extra` added to its `[tyre.thermal]` table.
fn with_thermal(extra: &str) -> String {
    let last = "window_width_c = 45.0";
    assert!(road_text().contains(last));
    road_text().replace(last, &format!("{last}\n{extra}"))
}

#[test]
fn bad_thermal_values_name_the_line_and_the_fix() {
    let line_of =
        |text: &str, start: &str| text.lines().position(|l| l.starts_with(start)).unwrap() + 1;
    let text = with_thermal("worn_grip = 1.5");
    let err = CarSpec::from_toml(&text, "cars/test.toml").unwrap_err();
    assert_eq!(err.field, "tyre.thermal.worn_grip");
    assert_eq!(err.line, line_of(&text, "worn_grip = 1.5"));
    // A surface node too light for the explicit step.
    let text = with_thermal("surface_carcass_conductance_w_per_k = 90000.0");
    let err = CarSpec::from_toml(&text, "cars/test.toml").unwrap_err();
    assert_eq!(err.field, "tyre.thermal.surface_heat_capacity_j_per_k");
    assert!(err.message.contains("raise the heat capacity"), "{err}");
    let text = with_thermal("optimum_temp = 90");
    let err = CarSpec::from_toml(&text, "cars/test.toml").unwrap_err();
    assert_eq!(err.line, line_of(&text, "optimum_temp = 90"), "{err}");
    // The off switch.
    let text = with_thermal("enabled = false");
    assert!(
        !CarSpec::from_toml(&text, "cars/test.toml")
            .unwrap()
            .tyre
            .thermal
            .enabled
    );
}

/// A car whose rear tyre (its own `.tir`) has a higher nominal load (FNOMIN 5000 N against
/// 4000 N) and a softer slip stiffness (PKX1 x 0.6, so its braking force peaks at a larger
/// slip): what the coefficient set decides besides the forces comes from each axle's own set,
/// the low-speed slip damping, FZMAX (3 FNOMIN) and the tyre's bottoming deflection, and the
/// ABS's peak-slip target. Under an ABS stop the rear wheels are held at the rear tyre's peak.
#[test]
fn a_rear_tyre_of_its_own_gives_the_rear_its_damping_fzmax_and_abs_target() {
    let dir = std::env::temp_dir().join(format!("rigd-rear-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rear_tir = BUILTIN_TIR.to_string();
    for (line, changed) in [
        (
            "FNOMIN                   = 4000",
            "FNOMIN                   = 5000",
        ),
        (
            "PKX1                     = 21.51",
            "PKX1                     = 12.906",
        ),
    ] {
        assert!(rear_tir.contains(line), "{line}");
        rear_tir = rear_tir.replace(line, changed);
    }
    std::fs::write(dir.join("rear.tir"), rear_tir).unwrap();
    let text = with_axle_tables("[tyre.rear]\ncoefficients = \"rear.tir\"\n");
    let path = dir.join("car.toml");
    std::fs::write(&path, &text).unwrap();
    let spec = CarSpec::from_toml(&text, path.to_str().unwrap()).unwrap();
    let (world, id) = world_with(&spec, Track::flat());
    let tyre = world.car(id).tyre();
    let [front, rear] = tyre.axles;

    // FZMAX and the rim: 3 FNOMIN per axle, the bottoming deflection where the spring carries
    // it, and the Magic Formula evaluated at no more than each axle's own FZMAX.
    assert_eq!(front.fz_max_n, 12_000.0);
    assert_eq!(rear.fz_max_n, 15_000.0);
    assert!((rear.max_deflection_m / front.max_deflection_m - 1.25).abs() < 1e-12);
    let k = tyre.vertical_stiffness;
    assert!((tyre.radial_load(1, rear.max_deflection_m, 0.0) - 15_000.0).abs() < 1e-6);
    assert!(tyre.radial_load(1, front.max_deflection_m + 0.001, 0.0) - 12_000.0 - 0.001 * k < 1e-6);
    let beyond = tyre.forces4([0.05; 4], [0.1; 4], [0.0; 4], [30_000.0; 4], [1.0; 4]);
    let at_own_max = tyre.forces4(
        [0.05; 4],
        [0.1; 4],
        [0.0; 4],
        [12_000.0, 12_000.0, 15_000.0, 15_000.0],
        [1.0; 4],
    );
    assert_eq!(beyond, at_own_max);
    let under_front_max = tyre.forces4([0.05; 4], [0.1; 4], [0.0; 4], [13_000.0; 4], [1.0; 4]);
    assert_ne!(
        under_front_max[2], at_own_max[2],
        "the rear is not held at the front's FZMAX"
    );

    // Low-speed damping: critical against the corner mass with each set's own slip
    // stiffnesses at the car's typical corner load, tau = 2 sqrt(m sigma / K).
    let [front_load, rear_load] = spec.static_wheel_loads_n();
    let load = 0.5 * (front_load + rear_load);
    for (axle, limits) in [front, rear].iter().enumerate() {
        let mf = spec.tyre.axle_mf(axle);
        let stiffness = [
            mf.long_slip_stiffness(load).abs(),
            mf.cornering_stiffness(load).abs(),
        ];
        let sigma = tyre.sigma_m;
        let mass = spec.chassis.mass_kg / 4.0;
        for i in 0..2 {
            let tau = 2.0 * (mass * sigma[i] / stiffness[i]).sqrt();
            assert!(
                (limits.low_speed_tau_s[i] / tau - 1.0).abs() < 1e-12,
                "axle {axle}: {:?} vs {tau}",
                limits.low_speed_tau_s
            );
        }
    }
    assert!(rear.low_speed_tau_s[0] > 1.05 * front.low_speed_tau_s[0]);

    // The ABS target: each axle's own peak braking slip.
    let abs = rig_physics::brakes::abs::Abs::new(true, tyre);
    for load in [2000.0, 3500.0, 5000.0] {
        let [front_peak, rear_peak] =
            [0, 1].map(|axle| rig_physics::brakes::abs::peak_braking_slip(tyre, axle, load, 1.0));
        assert!(
            rear_peak > 1.2 * front_peak,
            "{load} N: {rear_peak} vs {front_peak}"
        );
        for (axle, peak) in [front_peak, rear_peak].into_iter().enumerate() {
            let target = abs.target_slip(axle, load, 1.0);
            assert!(
                (target / peak - 1.0).abs() < 0.01,
                "axle {axle} at {load} N: {target} vs {peak}"
            );
        }
    }

    // An ABS stop from 100 km/h: between 20 and 8 m/s the rear wheels' slip sits at the rear
    // tyre's peak for their load, not at the front tyre's.
    let (mut world, id) = world_with(&spec, Track::flat());
    world.car_mut(id).set_speed(100.0 / 3.6);
    world.set_controls(
        id,
        Controls {
            brake: 1.0,
            ..idle()
        },
    );
    let (mut rear_error, mut samples) = (0.0, 0.0);
    let mut front_target_error = 0.0;
    for _ in 0..6000 {
        world.step(DT);
        let t = world.telemetry(id);
        if !(8.0..20.0).contains(&t.speed_mps) {
            continue;
        }
        for w in &t.wheels[2..] {
            let slip = -w.slip_ratio;
            rear_error += (slip / abs.target_slip(1, w.load_n, 1.0) - 1.0).abs();
            front_target_error += (slip / abs.target_slip(0, w.load_n, 1.0) - 1.0).abs();
            samples += 1.0;
        }
    }
    let (rear_error, front_target_error) = (rear_error / samples, front_target_error / samples);
    println!(
        "ABS stop, rear slip off the rear peak by {:.1} % (mean), off the front tyre's by {:.1} %",
        100.0 * rear_error,
        100.0 * front_target_error
    );
    assert!(samples > 1000.0);
    assert!(
        rear_error < 0.05,
        "rear slip off its own peak by {rear_error}"
    );
    assert!(front_target_error > 0.2, "{front_target_error}");
}

/// A car whose tyres are `.tir` files, its document with the files embedded
/// (`embed_property_files`, what a replay records), rebuilds after the files are gone with the
/// same coefficient sets; a car naming no file comes back as it was, byte for byte.
#[test]
fn a_car_with_its_tir_files_embedded_rebuilds_without_them() {
    use rig_physics::tyre::embed_property_files;
    let dir = std::env::temp_dir().join(format!("rigd-embedded-tir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rear = BUILTIN_TIR.replace(
        "PKY1                     = -14.95",
        "PKY1                     = -17.1925",
    );
    std::fs::write(dir.join("front.tir"), BUILTIN_TIR).unwrap();
    std::fs::write(dir.join("rear.tir"), &rear).unwrap();
    let text = with_axle_tables("[tyre.rear]\ncoefficients = \"rear.tir\"\n")
        .replace(SET, "coefficients = \"front.tir\"");
    assert!(text.contains("coefficients = \"front.tir\""));
    let path = dir.join("car.toml");
    let origin = path.to_str().unwrap();
    let with_files = CarSpec::from_toml(&text, origin).unwrap();
    let embedded = embed_property_files(&text, origin).unwrap();
    std::fs::remove_file(dir.join("front.tir")).unwrap();
    std::fs::remove_file(dir.join("rear.tir")).unwrap();
    assert!(
        CarSpec::from_toml(&text, origin).is_err(),
        "the files are gone"
    );
    let rebuilt = CarSpec::from_toml(&embedded, origin).unwrap();
    for axle in 0..2 {
        assert_eq!(rebuilt.tyre.axle_mf(axle), with_files.tyre.axle_mf(axle));
        assert_eq!(
            rebuilt.tyre.axle_grip(axle),
            with_files.tyre.axle_grip(axle)
        );
    }
    assert_ne!(rebuilt.tyre.axle_mf(0), rebuilt.tyre.axle_mf(1));
    assert_eq!(
        rebuilt.tyre.unloaded_radius_m,
        with_files.tyre.unloaded_radius_m
    );
    assert_eq!(rebuilt.chassis, with_files.chassis);
    // Embedding what is embedded changes nothing; a built-in set is left as written.
    assert_eq!(embed_property_files(&embedded, origin).unwrap(), embedded);
    let road = road_text();
    assert_eq!(embed_property_files(&road, "builtin:road").unwrap(), road);
    let _ = std::fs::remove_dir_all(&dir);
}
