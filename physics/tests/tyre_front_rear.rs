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
