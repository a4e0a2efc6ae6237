//! The seat mover every game test drives: an SMC3 with three vertical actuators on a pty
//! (A = left crank at y = +0.25 m and B = right crank, both 0.40 m behind the pivot, C 0.40 m
//! in front; counts rise as a crank lifts its side), its config, and what the tests read from
//! its frames: park, raised, the travel and speed limits.

use std::time::{Duration, Instant};

use crate::motion_pty::Pty;
use crate::smc3_wire::{counts, smc3_frames};

pub const RANGE_DEG: f64 = 60.0;
pub const MAX_SPEED_DEG_PER_S: f64 = 120.0;
pub const RATE_HZ: f64 = 100.0;
pub const PARK_POSITION: f64 = -0.8;

/// The `[[motion.platforms]]` of the seat on `port`.
pub fn config(port: &std::path::Path) -> String {
    format!(
        r#"[[motion.platforms]]
name = "seat"

[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25], [0.40, 0.0]]
crank_radius_m = 0.10

[motion.platforms.actuators]
range_deg = {RANGE_DEG}
max_speed_deg_per_s = {MAX_SPEED_DEG_PER_S}
max_accel_deg_per_s2 = 1200.0
park_position = {PARK_POSITION}

[motion.platforms.cueing]
traction_loss_gain = 0.0

[[motion.platforms.outputs]]
preset = "smc3"
serial_port = "{}"
rate_hz = {RATE_HZ}
post_open_delay_ms = 100
"#,
        port.display()
    )
}

/// The park position inside rigd's usable travel: the SMC3 firmware's window (100 of
/// 0..1023 is -411/511) less the 5 % margin.
pub fn park() -> u16 {
    counts(PARK_POSITION.max(-411.0 / 511.0 * 0.95))
}

pub fn at_park(f: &[u16; 3]) -> bool {
    f[0].abs_diff(park()) <= 2 && f[1].abs_diff(park()) <= 2
}

/// No step larger than v_max x dt, nothing outside the usable travel.
pub fn assert_within_limits(frames: &[[u16; 3]], what: &str) {
    let max_step = (MAX_SPEED_DEG_PER_S / RATE_HZ / RANGE_DEG * 512.0).ceil() as u16 + 1;
    for w in frames.windows(2) {
        for axis in 0..2 {
            let step = w[1][axis].abs_diff(w[0][axis]);
            assert!(
                step <= max_step,
                "{what}: stepped {step} counts {:?} -> {:?}",
                w[0],
                w[1]
            );
        }
    }
    let (lo, hi) = (counts(-0.95) - 1, counts(0.95) + 1);
    for f in frames {
        assert!(
            (lo..=hi).contains(&f[0]) && (lo..=hi).contains(&f[1]),
            "{what}: {f:?} outside the usable travel"
        );
    }
}

/// Mean of `f` over `frames`.
pub fn mean(frames: &[[u16; 3]], f: impl Fn(&[u16; 3]) -> f64) -> f64 {
    frames.iter().map(f).sum::<f64>() / frames.len().max(1) as f64
}

/// Means of the two rear cranks (A left, B right).
pub fn rear(frames: &[[u16; 3]]) -> [f64; 2] {
    [
        mean(frames, |f| f64::from(f[0])),
        mean(frames, |f| f64::from(f[1])),
    ]
}

/// The pty's frames, all of them kept for the limits check.
pub struct Seat {
    pub pty: Pty,
    pub all: Vec<[u16; 3]>,
}

impl Seat {
    pub fn new() -> Seat {
        Seat {
            pty: Pty::open(),
            all: Vec::new(),
        }
    }

    pub fn read(&mut self, window: Duration) -> Vec<[u16; 3]> {
        let frames = smc3_frames(&self.pty.read_for(window));
        self.all.extend(&frames);
        frames
    }

    pub fn read_until(
        &mut self,
        what: &str,
        timeout: Duration,
        done: impl Fn(&[[u16; 3]]) -> bool,
    ) -> Vec<[u16; 3]> {
        let start = Instant::now();
        let mut frames = Vec::new();
        loop {
            frames.extend(self.read(Duration::from_millis(100)));
            if done(&frames) {
                return frames;
            }
            assert!(
                start.elapsed() < timeout,
                "{what}: timed out after {} frames; last {:?}",
                frames.len(),
                frames.last()
            );
        }
    }

    /// Waits until the seat has come to the middle of its travel and moved on from there for
    /// `active_frames` more frames (the ramp done: Active).
    pub fn raised(&mut self, what: &str, active_frames: usize) {
        self.read_until(what, Duration::from_secs(30), |frames| {
            frames
                .iter()
                .position(|f| f[0].abs_diff(511) <= 4 && f[1].abs_diff(511) <= 4)
                .is_some_and(|i| frames.len() > i + active_frames)
        });
    }

    /// Waits until the seat has reached park. Any frame counts, not only the newest: a
    /// jump's hold is short (park, then raise again at once), and a test thread a busy
    /// machine deschedules reads long chunks whose last frame may already be rising.
    pub fn parked(&mut self, what: &str) {
        self.read_until(what, Duration::from_secs(30), |frames| {
            frames.iter().any(at_park)
        });
    }
}
