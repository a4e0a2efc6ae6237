//! Track geometry against closed-form values: lap length and closure, arc curvature 1/R,
//! clothoid curvature linear in distance, banking and elevation in heights and normals,
//! smooth normals across sample joins, surfaces in their zones, project/ground consistency,
//! barriers as solid half-spaces, and the inclined plane.

use rig_physics::track::spec::{PieceSpec, SurfaceName, TrackSpec, Turn};
use rig_physics::track::{builtin, Track, TrackHint, BUILTIN_NAMES};
use rig_physics::SurfaceKind;
use std::f64::consts::PI;

/// A document with no bumps, crown or kerbs around `pieces`.
fn plain_spec(pieces: Vec<PieceSpec>) -> TrackSpec {
    let text = "name = \"test\"\nhalf_width_m = 6.0\nrunoff_m = 10.0\n[[piece]]\nkind = \"straight\"\nlength_m = 1.0\n";
    let mut spec = TrackSpec::from_toml(text, "test").unwrap();
    spec.pieces = pieces;
    spec
}

/// Stadium: two straights of `straight` and two left half circles of radius `radius`.
fn stadium(straight: f64, radius: f64) -> Vec<PieceSpec> {
    vec![
        PieceSpec::straight(straight),
        PieceSpec::arc(radius, 180.0, Turn::Left),
        PieceSpec::straight(straight),
        PieceSpec::arc(radius, 180.0, Turn::Left),
    ]
}

fn left_of(heading: f64) -> [f64; 2] {
    [-heading.sin(), heading.cos()]
}

/// World point at `lateral` (horizontal, positive left) from the centreline at `s`.
fn point(track: &Track, s: f64, lateral: f64) -> [f64; 3] {
    let section = track.section(s);
    let left = left_of(section.heading_rad);
    [
        section.centre_m[0] + left[0] * lateral,
        section.centre_m[1] + left[1] * lateral,
        section.centre_m[2],
    ]
}

fn angle_between(a: [f64; 3], b: [f64; 3]) -> f64 {
    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    dot.clamp(-1.0, 1.0).acos()
}

#[test]
fn stadium_length_is_exact_and_the_lap_closes() {
    let track = Track::from_spec(&plain_spec(stadium(200.0, 50.0))).unwrap();
    let expected = 2.0 * 200.0 + 2.0 * PI * 50.0;
    assert!(
        (track.length_m() - expected).abs() < 1e-9,
        "{}",
        track.length_m()
    );
    let start = track.section(0.0);
    let end = track.section(track.length_m() - 1e-9);
    for k in 0..3 {
        assert!((start.centre_m[k] - end.centre_m[k]).abs() < 1e-6);
    }
    // Half-way round: the far end of the back straight is at (0, 100) heading west (to the
    // sub-millimetre accuracy of interpolating across a curvature step between samples).
    let far = track.section(200.0 + PI * 50.0 + 200.0);
    assert!(
        far.centre_m[0].abs() < 1e-3 && (far.centre_m[1] - 100.0).abs() < 1e-3,
        "{far:?}"
    );
    assert!((far.heading_rad.cos() + 1.0).abs() < 1e-5);
}

#[test]
fn every_builtin_lap_closes_in_position_heading_and_profile() {
    for name in BUILTIN_NAMES {
        let track = builtin(name).unwrap();
        let a = track.section(0.0);
        let b = track.section(track.length_m() - 1e-7);
        let gap = (a.centre_m[0] - b.centre_m[0]).hypot(a.centre_m[1] - b.centre_m[1]);
        assert!(gap < 1e-5, "{name}: gap {gap}");
        assert!((a.centre_m[2] - b.centre_m[2]).abs() < 1e-6, "{name}");
        let dh = (a.heading_rad - b.heading_rad + PI).rem_euclid(2.0 * PI) - PI;
        assert!(dh.abs() < 1e-6, "{name}: heading {dh}");
        assert!((a.half_width_left_m - b.half_width_left_m).abs() < 1e-9);
        assert!((a.bank_rad - b.bank_rad).abs() < 1e-9);
    }
}

#[test]
fn a_lap_that_does_not_close_is_refused() {
    let mut pieces = stadium(200.0, 50.0);
    pieces[2] = PieceSpec::straight(260.0);
    let err = Track::from_spec(&plain_spec(pieces)).unwrap_err();
    assert!(err.message.contains("does not close"), "{err}");
    let mut pieces = stadium(200.0, 50.0);
    pieces[3] = PieceSpec::arc(50.0, 150.0, Turn::Left);
    let err = Track::from_spec(&plain_spec(pieces)).unwrap_err();
    assert!(err.message.contains("turns 330.00 degrees"), "{err}");
}

#[test]
fn arc_curvature_is_one_over_radius_in_query_and_geometry() {
    let radius = 50.0;
    let track = Track::from_spec(&plain_spec(stadium(200.0, radius))).unwrap();
    let mut hint = TrackHint::default();
    for s in [215.0, 280.0, 340.0] {
        let c = track.project(point(&track, s, 2.0), &mut hint);
        assert!((c.curvature_per_m - 1.0 / radius).abs() < 1e-9, "{c:?}");
        assert!((c.distance_m - s).abs() < 1e-6 && (c.lateral_m - 2.0).abs() < 1e-6);
        // Three centreline points 5 m apart lie on a circle of the radius.
        let p: Vec<[f64; 3]> = [-5.0, 0.0, 5.0]
            .iter()
            .map(|o| track.section(s + o).centre_m)
            .collect();
        let (a, b, c) = (
            (p[0][0] - p[1][0]).hypot(p[0][1] - p[1][1]),
            (p[1][0] - p[2][0]).hypot(p[1][1] - p[2][1]),
            (p[0][0] - p[2][0]).hypot(p[0][1] - p[2][1]),
        );
        let cross =
            (p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) - (p[1][1] - p[0][1]) * (p[2][0] - p[0][0]);
        let menger = 2.0 * cross / (a * b * c);
        assert!((menger - 1.0 / radius).abs() < 1e-6, "{menger}");
    }
    // A point 3 m outside the arc (right of a left turn) is at lateral -3.
    let centre_of_turn = [200.0, 50.0];
    let angle: f64 = 0.3;
    let p = [
        centre_of_turn[0] + (radius + 3.0) * angle.sin(),
        centre_of_turn[1] - (radius + 3.0) * angle.cos(),
        0.0,
    ];
    let c = track.project(p, &mut hint);
    assert!((c.lateral_m + 3.0).abs() < 1e-6, "{c:?}");
}

#[test]
fn clothoid_curvature_is_linear_in_distance() {
    // Straight, clothoid to R 40 over 60 m, arc, clothoid out, and the mirror image.
    let radius: f64 = 40.0;
    let spiral: f64 = 60.0;
    let spiral_angle = (spiral / (2.0 * radius)).to_degrees();
    let half = vec![
        PieceSpec::straight(100.0),
        PieceSpec::spiral(spiral, Some((radius, Turn::Left))),
        PieceSpec::arc(radius, 180.0 - 2.0 * spiral_angle, Turn::Left),
        PieceSpec::spiral(spiral, None),
    ];
    let pieces = [half.clone(), half].concat();
    let track = Track::from_spec(&plain_spec(pieces)).unwrap();
    let mut hint = TrackHint::default();
    let slope = 1.0 / radius / spiral;
    for u in [2.0, 10.5, 25.0, 37.3, 50.0, 58.0] {
        let c = track.project(point(&track, 100.0 + u, 0.0), &mut hint);
        assert!(
            (c.curvature_per_m - slope * u).abs() < 1e-4 * slope * spiral,
            "{u}: {c:?}"
        );
        let out = track.project(
            point(
                &track,
                100.0 + spiral + PI * radius * (180.0 - 2.0 * spiral_angle) / 180.0 + u,
                0.0,
            ),
            &mut hint,
        );
        assert!((out.curvature_per_m - (1.0 / radius - slope * u)).abs() < 1e-4 * slope * spiral);
    }
    // Clothoid heading grows with the square of distance: 0.5 * u^2 / (R L).
    for u in [20.0, 40.0, 60.0] {
        let h = track.section(100.0 + u).heading_rad;
        assert!((h - 0.5 * u * u * slope).abs() < 1e-5, "{u}: {h}");
    }
}

#[test]
fn banking_tilts_heights_and_normals_towards_the_inside() {
    let track = builtin("oval").unwrap();
    let mut hint = TrackHint::default();
    // Middle of turns 1-2: 200 m straight, 80 m clothoid, half the arc.
    let s = 200.0 + 80.0 + 0.5 * 200.0 * 157.0817_f64.to_radians();
    let section = track.section(s);
    let bank = 18.0_f64.to_radians();
    assert!((section.bank_rad - bank).abs() < 1e-9, "{section:?}");
    let inside = point(&track, s, 5.0);
    let outside = point(&track, s, -5.0);
    let h_in = track.ground(inside[0], inside[1], &mut hint).height_m;
    let h_out = track.ground(outside[0], outside[1], &mut hint).height_m;
    // 10 m across at tan(18 deg); the oval's 5 mm bumps allow a little slack.
    assert!(
        ((h_out - h_in) - 10.0 * bank.tan()).abs() < 0.02,
        "{h_in} {h_out}"
    );
    let n = track
        .ground(section.centre_m[0], section.centre_m[1], &mut hint)
        .normal;
    let left = left_of(section.heading_rad);
    let lateral = n[0] * left[0] + n[1] * left[1];
    assert!((lateral - bank.sin()).abs() < 0.01, "{n:?}");
    // On the straight: level.
    let straight = track.section(100.0);
    let n = track
        .ground(straight.centre_m[0], straight.centre_m[1], &mut hint)
        .normal;
    assert!(n[2] > 0.999, "{n:?}");
}

#[test]
fn elevation_follows_the_piece_heights_with_a_continuous_grade() {
    let mut pieces = stadium(300.0, 60.0);
    pieces[0].end_height_m = Some(12.0);
    pieces[1].end_height_m = Some(12.0);
    let track = Track::from_spec(&plain_spec(pieces)).unwrap();
    let mut hint = TrackHint::default();
    assert!((track.section(300.0).centre_m[2] - 12.0).abs() < 1e-4);
    assert!(track.section(0.0).centre_m[2].abs() < 1e-9);
    // Mid-straight grade near the mean 4 %, and the normal leans back by it.
    let mid = track.section(150.0);
    assert!(mid.grade > 0.03 && mid.grade < 0.08, "{}", mid.grade);
    let g = track.ground(mid.centre_m[0], mid.centre_m[1], &mut hint);
    assert!((g.height_m - mid.centre_m[2]).abs() < 1e-9);
    assert!(
        (g.normal[0] + mid.grade / (1.0 + mid.grade * mid.grade).sqrt()).abs() < 1e-6,
        "{g:?}"
    );
    // Grade is continuous everywhere (C1 height): no jumps between 0.5 m steps.
    let mut last = track.section(0.0).grade;
    let mut s = 0.5;
    while s < track.length_m() {
        let grade = track.section(s).grade;
        assert!(
            (grade - last).abs() < 0.002,
            "grade jumps at {s}: {last} -> {grade}"
        );
        last = grade;
        s += 0.5;
    }
}

#[test]
fn normals_are_smooth_across_sample_joins_and_match_the_height_gradient() {
    let track = builtin("circuit").unwrap();
    let mut hint = TrackHint::default();
    // Over the crest, through the banked sweeper (s 700 .. 1150) at 2.5 m left of centre.
    let mut previous = None;
    let mut s = 700.0;
    while s < 1150.0 {
        let p = point(&track, s, 2.5);
        let g = track.ground(p[0], p[1], &mut hint);
        if let Some(prev) = previous {
            let turn = angle_between(prev, g.normal);
            assert!(turn < 2e-4, "normal turns {turn} rad in 1 cm at {s}");
        }
        previous = Some(g.normal);
        // The normal is the height field's gradient.
        let h = 1e-4;
        let zx = (track.ground(p[0] + h, p[1], &mut hint).height_m
            - track.ground(p[0] - h, p[1], &mut hint).height_m)
            / (2.0 * h);
        let zy = (track.ground(p[0], p[1] + h, &mut hint).height_m
            - track.ground(p[0], p[1] - h, &mut hint).height_m)
            / (2.0 * h);
        let norm = (zx * zx + zy * zy + 1.0).sqrt();
        let fd = [-zx / norm, -zy / norm, 1.0 / norm];
        assert!(
            angle_between(fd, g.normal) < 2e-3,
            "at {s}: {fd:?} vs {:?}",
            g.normal
        );
        s += 0.01;
    }
}

#[test]
fn surfaces_lie_in_their_zones() {
    let track = builtin("circuit").unwrap();
    let mut hint = TrackHint::default();
    let kind_at = |s: f64, d: f64, hint: &mut TrackHint| {
        let p = point(&track, s, d);
        track.ground(p[0], p[1], hint).surface.kind
    };
    assert_eq!(kind_at(50.0, 0.0, &mut hint), SurfaceKind::Asphalt);
    assert_eq!(kind_at(50.0, 9.0, &mut hint), SurfaceKind::Grass);
    assert_eq!(kind_at(1420.0, 2.0, &mut hint), SurfaceKind::Wet);
    assert_eq!(kind_at(1420.0, -2.0, &mut hint), SurfaceKind::Wet);
    assert_eq!(kind_at(1460.0, 2.0, &mut hint), SurfaceKind::Asphalt);
    // Turn 1's arc (s 167 .. 208): kerbs both sides, gravel beyond.
    assert_eq!(kind_at(190.0, 6.6, &mut hint), SurfaceKind::Kerb);
    // The right edge widens to 7.5 m through turn 1.
    assert_eq!(kind_at(190.0, -7.0, &mut hint), SurfaceKind::Asphalt);
    assert_eq!(kind_at(190.0, -8.1, &mut hint), SurfaceKind::Kerb);
    assert_eq!(kind_at(190.0, 10.0, &mut hint), SurfaceKind::Gravel);
    let gravel = {
        let p = point(&track, 190.0, 10.0);
        track.ground(p[0], p[1], &mut hint).surface
    };
    assert!(gravel.grip_scale < 0.6 && gravel.rolling_resistance > 0.05);
    // The kerb is raised (3 cm peak) in its middle.
    let edge = {
        let p = point(&track, 190.0, 6.0);
        track.ground(p[0], p[1], &mut hint).height_m
    };
    let kerb = {
        let p = point(&track, 190.0, 6.6);
        track.ground(p[0], p[1], &mut hint).height_m
    };
    assert!(kerb - edge > 0.015, "kerb {kerb} edge {edge}");
    // Skidpad: paved beyond the edges.
    let skidpad = builtin("skidpad").unwrap();
    let p = point(&skidpad, 30.0, -28.0);
    assert_eq!(
        skidpad
            .ground(p[0], p[1], &mut TrackHint::default())
            .surface
            .kind,
        SurfaceKind::Asphalt
    );
    // A zone of every surface kind maps to its kind.
    let mut spec = plain_spec(stadium(200.0, 50.0));
    spec.runoff_surface = SurfaceName::Gravel;
    let gravel_track = Track::from_spec(&spec).unwrap();
    let p = point(&gravel_track, 100.0, 9.0);
    assert_eq!(
        gravel_track
            .ground(p[0], p[1], &mut TrackHint::default())
            .surface
            .kind,
        SurfaceKind::Gravel
    );
}

#[test]
fn project_and_ground_agree_everywhere_on_every_builtin() {
    for name in BUILTIN_NAMES {
        let track = builtin(name).unwrap();
        let mut hint = TrackHint::default();
        let mut seed = 0x1234_5678_u64;
        let mut rand = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..2000 {
            let s = rand() * track.length_m();
            let section = track.section(s);
            let d =
                (rand() * 2.0 - 1.0) * section.half_width_right_m.min(section.half_width_left_m);
            let p = point(&track, s, d);
            let c = track.project(p, &mut hint);
            let ds = (c.distance_m - s + track.length_m() / 2.0).rem_euclid(track.length_m())
                - track.length_m() / 2.0;
            assert!(ds.abs() < 1e-4, "{name} at {s}: {c:?}");
            assert!((c.lateral_m - d).abs() < 1e-4, "{name} at {s}: {c:?}");
            let g = track.ground(p[0], p[1], &mut hint);
            // Crown, bumps and banking stay within a few centimetres of the sloped section.
            let expected = section.centre_m[2] - d * section.bank_rad.tan();
            assert!(
                (g.height_m - expected).abs() < 0.06,
                "{name} at {s},{d}: {} vs {expected}",
                g.height_m
            );
            assert!(g.normal[2] > 0.9, "{name}: {g:?}");
        }
    }
}

#[test]
fn a_stale_hint_still_finds_the_right_place() {
    let track = builtin("circuit").unwrap();
    for s in [10.0, 1000.0, 2500.0, 3300.0] {
        let p = point(&track, s, 1.0);
        for segment in [0, 700, 2999, 123_456] {
            let mut hint = TrackHint { segment };
            let c = track.project(p, &mut hint);
            assert!((c.distance_m - s).abs() < 1e-4, "{s} from {segment}: {c:?}");
        }
    }
}

#[test]
fn barriers_are_solid_half_spaces_that_nothing_tunnels_through() {
    let track = builtin("circuit").unwrap();
    let mut hint = TrackHint::default();
    let s = 50.0;
    let section = track.section(s);
    let left = left_of(section.heading_rad);
    assert!(track
        .barrier_contact(point(&track, s, 0.0), 0.5, &mut hint)
        .is_none());
    // 0.2 m into the left barrier with a 0.5 m sphere.
    let hit = track
        .barrier_contact(
            point(&track, s, section.barrier_left_m - 0.3),
            0.5,
            &mut hint,
        )
        .unwrap();
    assert!((hit.depth_m - 0.2).abs() < 1e-6, "{hit:?}");
    assert!((hit.normal[0] + left[0]).abs() < 1e-6 && (hit.normal[1] + left[1]).abs() < 1e-6);
    // A point crossing the right barrier at 100 m/s in 1 ms steps is in contact on every
    // step once past, however deep, with the normal always pointing back to the track.
    let mut d = -section.barrier_right_m + 2.05;
    let mut contacts = 0;
    for _ in 0..100 {
        d -= 0.1;
        let p = point(&track, s, d);
        if let Some(hit) = track.barrier_contact(p, 0.0, &mut hint) {
            contacts += 1;
            assert!((hit.depth_m - (-d - section.barrier_right_m)).abs() < 1e-6);
            assert!(hit.normal[0] * left[0] + hit.normal[1] * left[1] > 0.999);
        }
    }
    assert_eq!(contacts, 80);
}

#[test]
fn the_inclined_plane_rises_along_x() {
    let track = Track::plane(0.10);
    let mut hint = TrackHint::default();
    let g = track.ground(20.0, -3.0, &mut hint);
    assert!((g.height_m - 2.0).abs() < 1e-12);
    let n = g.normal;
    assert!((n[0] + 0.1 / 1.01_f64.sqrt()).abs() < 1e-12 && n[1] == 0.0);
    assert!((n[2] - 1.0 / 1.01_f64.sqrt()).abs() < 1e-12);
    assert!(track
        .barrier_contact([1e6, 1e6, 0.0], 1.0, &mut hint)
        .is_none());
    let (p, yaw) = track.start_pose(2);
    assert!((p[2] - 0.1 * p[0]).abs() < 1e-12 && yaw == 0.0);
}

#[test]
fn start_slots_sit_on_the_ground_behind_the_line() {
    let track = builtin("circuit").unwrap();
    let mut hint = TrackHint::default();
    for slot in 0..6 {
        let (p, yaw) = track.start_pose(slot);
        let c = track.project(p, &mut hint);
        let behind = track.length_m() - c.distance_m;
        assert!(
            (behind - (6.0 + 8.0 * slot as f64)).abs() < 1e-3,
            "{slot}: {c:?}"
        );
        assert!(c.lateral_m.abs() < c.half_width_left_m);
        assert!((yaw - c.heading_rad).abs() < 1e-9);
        let g = track.ground(p[0], p[1], &mut hint);
        assert!((g.height_m - p[2]).abs() < 1e-12);
    }
}

#[test]
fn building_twice_gives_identical_answers() {
    let a = builtin("circuit").unwrap();
    let b = builtin("circuit").unwrap();
    let (mut ha, mut hb) = (TrackHint::default(), TrackHint::default());
    for i in 0..500 {
        let s = i as f64 * 6.7;
        let p = point(&a, s, (i % 13) as f64 - 6.0);
        let (ga, gb) = (a.ground(p[0], p[1], &mut ha), b.ground(p[0], p[1], &mut hb));
        assert_eq!(ga.height_m.to_bits(), gb.height_m.to_bits());
        assert_eq!(ga.normal.map(f64::to_bits), gb.normal.map(f64::to_bits));
    }
}
