//! Surfaces: water film and hydroplaning, deformable ground, and the built-in tracks' wet zone
//! and gravel stage, checked against formulas written out here (not the model's constants).
//!
//! Hydroplaning onset (docs/surfaces.md): Horne's relation V_p = 10.35 sqrt(p) mph with p in
//! psi, times min((2.5 mm / h_eff)^0.2, 3) with the effective film h_eff = h - MTD / 2.

mod common;
use common::*;
use rig_physics::surface::{Surface, SurfaceEffect};
use rig_physics::track::{builtin, Track, TrackHint};
use rig_physics::SurfaceKind;

/// Horne's onset speed with the film correction, m/s, computed from its published form.
fn documented_onset_mps(pressure_kpa: f64, film_mm: f64, macrotexture_mm: f64) -> f64 {
    let psi = pressure_kpa / 6.894_757;
    let mph = 10.35 * psi.sqrt();
    let effective = (film_mm - 0.5 * macrotexture_mm).max(0.0);
    if effective == 0.0 {
        // The texture holds all the water: nothing lifts the tyre.
        return f64::INFINITY;
    }
    mph * 1609.344 / 3600.0 * (2.5 / effective).powf(0.2).min(3.0)
}

fn wet(film_mm: f64, macrotexture_mm: f64) -> Surface {
    Surface {
        water_film_mm: film_mm,
        macrotexture_mm,
        ..Surface::WET
    }
    .prepared()
}

/// Largest longitudinal force of the road car's tyre at 4 kN over slip ratios, with the grip
/// and slip stretch `effect` gives (what the contact phase feeds the Magic Formula).
fn peak_fx(effect: &SurfaceEffect) -> (f64, f64) {
    let spec = car("road");
    let tyre = rig_physics::tyre::Tyre::new(&spec.tyre, 4000.0, 325.0);
    let mut best = (0.0, 0.0);
    for k in 1..=600 {
        let kappa = k as f64 * 0.001;
        let fx = tyre
            .forces(
                kappa * effect.slip_stretch_inverse,
                0.0,
                4000.0,
                effect.grip_scale,
            )
            .fx;
        if fx > best.0 {
            best = (fx, kappa);
        }
    }
    best
}

/// The speed at which a tyre's peak force has fallen to what a fully water-borne footprint
/// keeps (within 1 %), found by bisection over the surface effect the contact phase uses, is
/// the documented onset speed within 5 %, for several pressures, films and textures; onset
/// rises with pressure and with macrotexture.
#[test]
fn hydroplaning_onset_follows_the_documented_formula() {
    for pressure in [150.0, 220.0, 300.0] {
        for (film, texture) in [(2.0, 0.5), (5.0, 0.5), (10.0, 1.5), (3.0, 2.0)] {
            let surface = wet(film, texture);
            let residual = peak_fx(&SurfaceEffect::of(&surface, 1e3, pressure)).0;
            let (mut lo, mut hi) = (0.0, 300.0);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if peak_fx(&SurfaceEffect::of(&surface, mid, pressure)).0 <= 1.01 * residual {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            let expected = documented_onset_mps(pressure, film, texture);
            assert!(
                (hi / expected - 1.0).abs() < 0.05,
                "{pressure} kPa, {film} mm on {texture} mm: onset {hi:.2} m/s, formula {expected:.2}"
            );
            assert!((surface.hydroplaning_speed_mps(pressure) / expected - 1.0).abs() < 1e-4);
        }
    }
    // Rises with pressure and with macrotexture (the texture drains part of the film).
    let v = |p: f64, mtd: f64| wet(3.0, mtd).hydroplaning_speed_mps(p);
    assert!(v(300.0, 1.0) > v(200.0, 1.0) && v(200.0, 2.0) > v(200.0, 1.0));
    // 220 kPa on a flooded road (2.5 mm of effective film): 94 km/h, Horne's figure.
    assert!((wet(2.5, 0.0).hydroplaning_speed_mps(220.0) * 3.6 - 94.1).abs() < 0.3);
    // A film the texture holds never lifts the tyre.
    assert_eq!(wet(0.4, 0.8).hydroplaning_speed_mps(220.0), f64::INFINITY);
}

/// Grip against water depth: dry grip with no film, falling as the film deepens towards the
/// thin-film floor (0.6 of dry) at walking pace, and falling with speed at a given film.
#[test]
fn grip_falls_with_water_depth_and_speed() {
    let grip = |film: f64, speed: f64| {
        let surface = if film == 0.0 {
            Surface::of(SurfaceKind::Asphalt)
        } else {
            wet(film, 0.8)
        };
        SurfaceEffect::of(&surface, speed, 220.0).grip_scale
    };
    assert_eq!(grip(0.0, 5.0), 1.0);
    let depths = [0.0, 0.5, 0.8, 1.0, 1.5, 2.0, 5.0];
    for pair in depths.windows(2) {
        assert!(
            grip(pair[1], 2.0) < grip(pair[0], 2.0),
            "{pair:?}: {} then {}",
            grip(pair[0], 2.0),
            grip(pair[1], 2.0)
        );
    }
    // Below half the texture the film drains: no loss. Deep film: the floor.
    assert_eq!(grip(0.4, 2.0), 1.0);
    assert!((grip(5.0, 0.0) - 0.6).abs() < 1e-3);
    // 1 mm: exp(-(1 - 0.4) / 0.3) of the microtexture's share left.
    let thin = 0.6 + 0.4 * (-0.6f64 / 0.3).exp();
    assert!((grip(1.0, 0.0) - thin).abs() < 1e-12);
    for pair in [5.0, 15.0, 25.0, 35.0].windows(2) {
        assert!(grip(1.0, pair[1]) < grip(1.0, pair[0]));
    }
}

/// Mean deceleration of the road car braking hard for `seconds` from `speed` on `track`.
fn braking_deceleration(track: Track, speed: f64, seconds: f64) -> f64 {
    let (mut world, id) = world_with(&car("road"), track);
    run(&mut world, id, idle(), 0.5);
    world.car_mut(id).set_speed(speed);
    let controls = rig_physics::Controls {
        brake: 1.0,
        clutch: 1.0,
        ..idle()
    };
    let t = run(&mut world, id, controls, seconds);
    (speed - t.speed_mps) / seconds
}

/// Through the car: braking hard on a flooded plane above the onset speed the car barely
/// slows (the footprint rides on water), well below it it stops at the thin-film grip; on a
/// 1 mm wet plane at town speed it brakes at the wet share of the dry deceleration.
#[test]
fn a_car_aquaplanes_above_the_onset_and_brakes_below_it() {
    let flooded = wet(6.0, 0.8);
    let onset = flooded.hydroplaning_speed_mps(220.0);
    let above = braking_deceleration(Track::plane_of(0.0, flooded), 1.4 * onset, 0.4);
    let below = braking_deceleration(Track::plane_of(0.0, flooded), 0.4 * onset, 0.4);
    assert!(above < 0.2 * G, "above onset: {:.2} m/s^2", above);
    assert!(below > 0.4 * G, "below onset: {:.2} m/s^2", below);

    let dry = braking_deceleration(Track::flat(), 12.0, 0.6);
    let damp = braking_deceleration(Track::plane_of(0.0, wet(1.0, 0.8)), 12.0, 0.6);
    let ratio = damp / dry;
    assert!((0.55..0.85).contains(&ratio), "wet/dry {ratio:.3}");
}

/// A deformable surface raises the slip at peak force by its peak-slip scale over dry
/// asphalt's (the tyre's own curve, sampled every 0.001, at gravel's half grip), and through
/// the car: cornering gently on a deformable plane with asphalt's friction, each front tyre
/// needs 1.8 times the slip angle for its lateral force (the cornering stiffness falls by the
/// scale).
#[test]
fn a_deformable_surface_raises_the_peak_slip() {
    let asphalt = Surface::of(SurfaceKind::Asphalt);
    let gravel = Surface::of(SurfaceKind::Gravel);
    let (_, peak_asphalt) = peak_fx(&SurfaceEffect::of(&asphalt, 10.0, 220.0));
    let (_, peak_gravel) = peak_fx(&SurfaceEffect::of(&gravel, 10.0, 220.0));
    let ratio = peak_gravel / peak_asphalt;
    assert!(
        (ratio - gravel.peak_slip_scale).abs() < 0.03,
        "peak slip {peak_gravel} on gravel, {peak_asphalt} on asphalt"
    );

    let soft = Surface {
        deformable: true,
        peak_slip_scale: 1.8,
        ..asphalt
    };
    // Cornering stiffness of the front-left tyre from two gentle steady turns (the slope
    // between them: the tyre's ply-steer and conicity offsets cancel).
    let stiffness = |track: Track| {
        let turn = |steering: f64| {
            let (mut world, id) = world_with(&car("road"), track.clone());
            run(&mut world, id, idle(), 0.5);
            world.car_mut(id).set_speed(12.0);
            let controls = rig_physics::Controls {
                steering,
                clutch: 1.0,
                ..idle()
            };
            let t = run(&mut world, id, controls, 3.0);
            (t.wheels[0].force_lat_n, t.wheels[0].slip_angle_rad)
        };
        let ((f1, a1), (f2, a2)) = (turn(0.03), turn(0.06));
        ((f2 - f1) / (a2 - a1)).abs()
    };
    let ratio = stiffness(Track::flat()) / stiffness(Track::plane_of(0.0, soft));
    assert!(
        (ratio / 1.8 - 1.0).abs() < 0.05,
        "cornering stiffness ratio {ratio:.3}"
    );
}

/// The circuit's wet zone carries its water film (slower onset than a flooded road: 1 mm on
/// 0.8 mm texture) and the gravel stage is gravel all the way round, deformable, with the
/// ISO class C profile making its centreline rougher than the circuit's.
#[test]
fn the_circuit_has_a_wet_zone_and_the_gravel_stage_is_gravel() {
    let circuit = builtin("circuit").unwrap();
    let mut hint = TrackHint::default();
    let section = circuit.section(1420.0);
    let ground = circuit.ground(section.centre_m[0], section.centre_m[1], &mut hint);
    assert_eq!(ground.surface.kind, SurfaceKind::Wet);
    assert!(ground.surface.water_film_mm > 0.0);
    let onset = ground.surface.hydroplaning_speed_mps(220.0);
    assert!((onset / documented_onset_mps(220.0, 1.0, 0.8) - 1.0).abs() < 1e-3);

    let stage = builtin("gravel").unwrap();
    let roughness = |track: &Track| {
        // Height differences 0.5 m apart along the centreline (the bumps' 25 m waves hardly
        // change over that; the road profile's short waves do).
        let mut hint = TrackHint::default();
        let mut sum = 0.0;
        let mut count = 0.0;
        let mut s = 1.0;
        while s < track.length_m() - 1.0 {
            let (a, b) = (track.section(s), track.section(s + 0.5));
            let ga = track.ground(a.centre_m[0], a.centre_m[1], &mut hint);
            let gb = track.ground(b.centre_m[0], b.centre_m[1], &mut hint);
            assert_eq!(ga.surface.kind, track_kind(track));
            let dz = (gb.height_m - b.centre_m[2]) - (ga.height_m - a.centre_m[2]);
            sum += dz * dz;
            count += 1.0;
            s += 0.5;
        }
        (sum / count).sqrt()
    };
    fn track_kind(track: &Track) -> SurfaceKind {
        if track.name() == "Gravel stage" {
            SurfaceKind::Gravel
        } else {
            SurfaceKind::Asphalt
        }
    }
    let rough = roughness(&stage);
    let smooth = roughness(&builtin("oval").unwrap());
    assert!(
        rough > 3.0 * smooth && rough > 0.002,
        "gravel {rough:e}, oval {smooth:e}"
    );
    let gravel = stage
        .ground(
            stage.section(5.0).centre_m[0],
            stage.section(5.0).centre_m[1],
            &mut hint,
        )
        .surface;
    assert!(gravel.deformable && gravel.peak_slip_scale > 1.0);
}

/// A deformable surface's relaxation-length scale delays the tyre's force build-up: 20 ms
/// after a step of steer at 15 m/s, the front tyre's lateral force on ground that doubles the
/// relaxation length (friction and peak slip as asphalt's) is well below asphalt's
/// (first-order lag: 1 - exp(-t v / sigma) with twice sigma is ~0.6 of it at this time), and
/// both settle to the same force.
#[test]
fn relaxation_length_scale_delays_the_force_build_up() {
    let asphalt = Surface::of(SurfaceKind::Asphalt);
    let slow = Surface {
        deformable: true,
        relaxation_length_scale: 2.0,
        ..asphalt
    };
    let lateral_force = |surface: Surface, seconds: f64| {
        let (mut world, id) = world_with(&car("road"), Track::plane_of(0.0, surface));
        run(&mut world, id, idle(), 0.5);
        world.car_mut(id).set_speed(15.0);
        let controls = rig_physics::Controls {
            steering: 0.05,
            clutch: 1.0,
            ..idle()
        };
        run(&mut world, id, controls, seconds).wheels[0].force_lat_n
    };
    let early = lateral_force(slow, 0.02) / lateral_force(asphalt, 0.02);
    assert!(
        (0.4..0.8).contains(&early),
        "20 ms: {early:.3} of asphalt's force"
    );
    let settled = lateral_force(slow, 3.0) / lateral_force(asphalt, 3.0);
    assert!((settled - 1.0).abs() < 0.02, "settled: {settled:.4}");
}
