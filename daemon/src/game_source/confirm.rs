//! Confirming a stream without a magic (LFS OutSim and OutSimPack2) before its samples reach
//! the RT thread: a datagram of OutSim's length is read only when every value is one a car
//! can have (`rig_protocols::game::lfs`), but random bytes of that length still pass that
//! check about once in 10^5. A random datagram never continues the previous one, though: the
//! receiver's [`Confirmation`] (not RT: it runs on the receiver thread) lets a sample of such
//! a stream through only when it continues the last one let through (its clock advanced by at most [`MAX_STEP_S`], its position is
//! within [`CONTINUITY_M`] of where the last one's velocity took the car, allowing
//! [`MAX_ACCELERATION_MPS2`] on top), or when it continues the one sample held back before it:
//! then both go through, in order. Anything else is held back in place of the held one, which
//! is dropped and counted as implausible garbage.
//!
//! So a stream goes live from its second consistent sample (the first is released with it, one
//! packet period late), a lone random datagram is not handed over (OutSim's clock is a u32 of
//! milliseconds: a random one lands within a second after the last about once in 4 million,
//! and its position must fit too), and a real teleport (a reset) still gets through: the
//! sample after it continues it, and the frame builder sees the jump and parks.
//! After [`FORGET_AFTER_NS`] without a sample the stream must be confirmed again.
//! Streams with a magic or a header pass unchecked.

use rig_protocols::game::{GameSample, GameStream};

/// Largest step of the game's clock between consecutive samples of a stream, s.
pub const MAX_STEP_S: f64 = 1.0;
/// How far a position may land from where the previous velocity took it, m (the frame
/// builder's jump threshold).
pub const CONTINUITY_M: f64 = super::JUMP_M;
/// Acceleration allowed on top of the velocity's reach, m/s^2 (5 g).
pub const MAX_ACCELERATION_MPS2: f64 = 50.0;
/// Speed allowed when a sample carries no world velocity, m/s.
const MAX_SPEED_MPS: f64 = 150.0;
/// After this long without a sample let through, the stream is confirmed afresh, ns.
pub const FORGET_AFTER_NS: u64 = 1_000_000_000;

/// What the receiver does with a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Admission {
    /// The sample held back before, confirmed by this one: hand it over first (its arrival
    /// and itself).
    pub release: Option<(u64, GameSample)>,
    /// Hand this sample over now (else it is held back).
    pub pass: bool,
    /// The sample held back before continued nothing: dropped, count it as implausible.
    pub dropped: bool,
}

/// Where a sample puts the car, and when.
#[derive(Debug, Clone, Copy)]
struct Point {
    arrival_ns: u64,
    time_s: Option<f64>,
    position_m: Option<[f64; 3]>,
    velocity_mps: Option<[f64; 3]>,
}

impl Point {
    fn of(arrival_ns: u64, sample: &GameSample) -> Point {
        Point {
            arrival_ns,
            time_s: sample.game_time_s,
            position_m: sample.motion.position_m,
            velocity_mps: sample.motion.velocity_world_mps,
        }
    }

    /// True when `next` continues this point (module docs).
    fn continued_by(&self, next: &Point) -> bool {
        let dt = match (self.time_s, next.time_s) {
            (Some(a), Some(b)) => b - a,
            _ => next.arrival_ns.saturating_sub(self.arrival_ns) as f64 * 1e-9,
        };
        if !(dt > 0.0 && dt <= MAX_STEP_S) {
            return false;
        }
        let (Some(from), Some(to)) = (self.position_m, next.position_m) else {
            return true;
        };
        let slack = CONTINUITY_M + 0.5 * MAX_ACCELERATION_MPS2 * dt * dt;
        let miss = match self.velocity_mps {
            Some(v) => (0..3)
                .map(|i| (to[i] - (from[i] + v[i] * dt)).powi(2))
                .sum::<f64>()
                .sqrt(),
            None => {
                let step = (0..3)
                    .map(|i| (to[i] - from[i]).powi(2))
                    .sum::<f64>()
                    .sqrt();
                (step - MAX_SPEED_MPS * dt).max(0.0)
            }
        };
        miss <= slack
    }
}

/// The receiver's confirmation of magic-less streams (module docs).
#[derive(Debug, Default)]
pub struct Confirmation {
    last: Option<Point>,
    held: Option<(u64, GameSample)>,
}

/// True for the streams whose samples must be confirmed.
pub fn needs_confirmation(stream: GameStream) -> bool {
    matches!(stream, GameStream::OutSim | GameStream::OutSimPack2)
}

impl Confirmation {
    /// What to do with `sample`, arrived at `arrival_ns`.
    pub fn admit(&mut self, arrival_ns: u64, sample: &GameSample) -> Admission {
        let mut admission = Admission {
            release: None,
            pass: true,
            dropped: false,
        };
        if !needs_confirmation(sample.stream) {
            return admission;
        }
        let point = Point::of(arrival_ns, sample);
        let recent = self
            .last
            .filter(|last| arrival_ns.saturating_sub(last.arrival_ns) <= FORGET_AFTER_NS);
        let held = self.held.take();
        let confirms_held = held
            .as_ref()
            .is_some_and(|(at, h)| Point::of(*at, h).continued_by(&point));
        if recent.is_some_and(|last| last.continued_by(&point)) {
            // Continues the stream: a sample held meanwhile continued nothing.
            admission.dropped = held.is_some();
        } else if confirms_held {
            // Confirms the held one: a new stream, or the stream after a jump.
            admission.release = held;
        } else {
            admission.dropped = held.is_some();
            admission.pass = false;
            self.held = Some((arrival_ns, *sample));
            return admission;
        }
        self.last = Some(point);
        admission
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PERIOD_NS: u64 = 16_666_667;

    /// An OutSim sample at game time `t` s, at `x` m along x moving at `v` m/s.
    fn outsim(t: f64, x: f64, v: f64) -> GameSample {
        let mut sample = GameSample::empty(GameStream::OutSim);
        sample.game_time_s = Some(t);
        sample.motion.position_m = Some([x, 20.0, 1.0]);
        sample.motion.velocity_world_mps = Some([v, 0.0, 0.0]);
        sample
    }

    /// The car cruising at 30 m/s: sample `k` at 60 Hz.
    fn cruising(k: u64, offset_m: f64) -> (u64, GameSample) {
        let t = k as f64 / 60.0;
        (k * PERIOD_NS, outsim(100.0 + t, offset_m + 30.0 * t, 30.0))
    }

    const PASS: Admission = Admission {
        release: None,
        pass: true,
        dropped: false,
    };

    #[test]
    fn a_stream_goes_through_from_its_second_sample_with_the_first_released_before_it() {
        let mut gate = Confirmation::default();
        let (at0, first) = cruising(1, 0.0);
        assert_eq!(
            gate.admit(at0, &first),
            Admission {
                release: None,
                pass: false,
                dropped: false
            }
        );
        let (at1, second) = cruising(2, 0.0);
        assert_eq!(
            gate.admit(at1, &second),
            Admission {
                release: Some((at0, first)),
                pass: true,
                dropped: false
            }
        );
        for k in 3..200 {
            let (at, sample) = cruising(k, 0.0);
            assert_eq!(gate.admit(at, &sample), PASS, "sample {k}");
        }
        // Other streams pass unchecked.
        let forza = GameSample::empty(GameStream::ForzaSled);
        assert_eq!(Confirmation::default().admit(0, &forza), PASS);
    }

    #[test]
    fn a_lone_odd_sample_in_a_live_stream_is_dropped_and_a_real_jump_goes_through() {
        let mut gate = Confirmation::default();
        for k in 1..10 {
            let (at, sample) = cruising(k, 0.0);
            gate.admit(at, &sample);
        }
        // Random bytes that happen to be plausible: held, then dropped when the stream goes on.
        let odd = outsim(5_123.0, -7_000.0, 3.0);
        assert!(!gate.admit(9 * PERIOD_NS + 1, &odd).pass);
        let (at, next) = cruising(10, 0.0);
        assert_eq!(
            gate.admit(at, &next),
            Admission {
                release: None,
                pass: true,
                dropped: true
            }
        );
        // A 500 m teleport: held, and released by the sample that continues it.
        let (at, jumped) = cruising(11, 500.0);
        assert!(!gate.admit(at, &jumped).pass);
        let (at2, after) = cruising(12, 500.0);
        assert_eq!(
            gate.admit(at2, &after),
            Admission {
                release: Some((at, jumped)),
                pass: true,
                dropped: false
            }
        );
        // A second later without samples the stream is confirmed afresh.
        let (at, late) = cruising(12 + 70, 500.0);
        assert!(!gate.admit(at, &late).pass);
    }

    #[test]
    fn the_clock_must_advance_by_at_most_a_second() {
        let mut gate = Confirmation::default();
        gate.admit(0, &outsim(10.0, 0.0, 0.0));
        assert!(
            !gate.admit(PERIOD_NS, &outsim(10.0, 0.0, 0.0)).pass,
            "same time"
        );
        assert!(
            !gate.admit(2 * PERIOD_NS, &outsim(9.9, 0.0, 0.0)).pass,
            "back"
        );
        assert!(
            !gate.admit(3 * PERIOD_NS, &outsim(11.0, 0.0, 0.0)).pass,
            "1.1 s on"
        );
        assert!(gate.admit(4 * PERIOD_NS, &outsim(11.5, 0.0, 0.0)).pass);
    }

    proptest! {
        /// Samples that each pass OutSim's plausibility but come from random bytes (any clock
        /// in the u32 milliseconds OutSim sends, anywhere in the 20 km map, any velocity it
        /// allows) are never handed over, one after another, however many.
        #[test]
        fn independent_plausible_samples_never_go_through(
            samples in proptest::collection::vec(
                (0u32..u32::MAX, -20_000.0f64..20_000.0, -20_000.0f64..20_000.0,
                 -2_000.0f64..2_000.0, -500.0f64..500.0, -500.0f64..500.0),
                1..200,
            )
        ) {
            let mut gate = Confirmation::default();
            for (k, (ms, x, y, z, vx, vy)) in samples.into_iter().enumerate() {
                let mut sample = GameSample::empty(GameStream::OutSim);
                sample.game_time_s = Some(f64::from(ms) / 1000.0);
                sample.motion.position_m = Some([x, y, z]);
                sample.motion.velocity_world_mps = Some([vx, vy, 0.0]);
                let admission = gate.admit(k as u64 * PERIOD_NS, &sample);
                prop_assert!(!admission.pass && admission.release.is_none(), "{k}: {admission:?}");
            }
        }
    }
}
