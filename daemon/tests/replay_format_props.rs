//! Property tests of the recording decoder (the input `rigd replay` trusts least): arbitrary
//! bytes, and valid recordings with bytes changed, cut or appended, give a recording or an
//! error and never panic; every valid recording round-trips exactly; every decoded recording
//! encodes back to the bytes it came from. (fuzz/fuzz_targets/recording.rs runs the same
//! decoder under libFuzzer.)

use proptest::prelude::*;
use rig_physics::{Controls, GearRequest};
use rigd::replay::format::{self, Header, Recording, StepInput, CHECKPOINT_EVERY_STEPS};

fn step_input() -> impl Strategy<Value = StepInput> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::array::uniform5(any::<f64>()),
        prop_oneof![
            Just(GearRequest::None),
            Just(GearRequest::Up),
            Just(GearRequest::Down),
            any::<i8>().prop_map(GearRequest::Select),
        ],
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(connected, reset, a, gear_request, ignition, starter)| StepInput {
                connected,
                reset,
                controls: Controls {
                    steering: a[0],
                    throttle: a[1],
                    brake: a[2],
                    clutch: a[3],
                    handbrake: a[4],
                    gear_request,
                    ignition,
                    starter,
                },
            },
        )
}

/// A recording as the recorder writes it: runs, a checkpoint after every run that completes
/// a multiple of the checkpoint interval.
fn recording() -> impl Strategy<Value = Recording> {
    (
        "[ -~]{0,12}",
        "[ -~]{0,40}",
        1u32..=2000,
        0u32..=200,
        "[ -~]{0,60}",
        prop::collection::vec((1u32..=1500, step_input(), any::<u64>()), 0..12),
        0u64..5,
    )
        .prop_map(|(version, build, rate_hz, robots, text, pieces, lost)| {
            let mut runs = Vec::new();
            let mut checkpoints = Vec::new();
            let mut steps = 0u64;
            for (count, step, digest) in pieces {
                // Split a run where it crosses a checkpoint, as the writer does.
                let mut left = u64::from(count);
                while left > 0 {
                    let to_checkpoint = CHECKPOINT_EVERY_STEPS - steps % CHECKPOINT_EVERY_STEPS;
                    let take = left.min(to_checkpoint);
                    runs.push((take as u32, step));
                    steps += take;
                    left -= take;
                    if steps % CHECKPOINT_EVERY_STEPS == 0 {
                        checkpoints.push((steps, digest));
                    }
                }
            }
            Recording {
                header: Header {
                    rigd_version: version,
                    build,
                    rate_hz,
                    robots,
                    car_name: "road".into(),
                    car_toml: text.clone(),
                    track_name: "circuit".into(),
                    track_toml: text.clone(),
                    robot_line_name: "line.toml".into(),
                    robot_line_text: text,
                },
                runs,
                checkpoints,
                steps,
                lost_steps: lost,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = format::decode(&bytes);
        let mut with_magic = format::MAGIC.to_vec();
        with_magic.extend_from_slice(&[1, 0]);
        with_magic.extend_from_slice(&bytes);
        if let Ok(recording) = format::decode(&with_magic) {
            prop_assert_eq!(format::encode(&recording), with_magic);
        }
    }

    #[test]
    fn valid_recordings_round_trip(recording in recording()) {
        let bytes = format::encode(&recording);
        let decoded = format::decode(&bytes).unwrap();
        // NaN controls compare unequal with ==; compare the bytes again instead.
        prop_assert_eq!(format::encode(&decoded), bytes);
        prop_assert_eq!(decoded.steps, recording.steps);
        prop_assert_eq!(decoded.checkpoints, recording.checkpoints);
    }

    #[test]
    fn changed_cut_or_extended_recordings_never_panic_and_are_refused(
        recording in recording(),
        at in any::<prop::sample::Index>(),
        flip in 1u8..=255,
        cut in any::<prop::sample::Index>(),
        extra in prop::collection::vec(any::<u8>(), 1..20),
    ) {
        let bytes = format::encode(&recording);
        let mut changed = bytes.clone();
        changed[at.index(bytes.len())] ^= flip;
        prop_assert!(format::decode(&changed).is_err());
        prop_assert!(format::decode(&bytes[..cut.index(bytes.len())]).is_err());
        let mut longer = bytes.clone();
        longer.extend_from_slice(&extra);
        prop_assert!(format::decode(&longer).is_err());
    }
}
