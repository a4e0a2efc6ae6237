//! An SMC3 controller emulator, written for these tests from the protocol of the published
//! SMC3 v0.7.0 sketch (SimulatorMotorController/SMC3, `SMC3.ino`): 5-byte commands
//! `[` cmd hi lo `]` read by the sketch's receive state machine (a byte other than `[` while
//! idle is an error and skipped; a command whose fifth byte is not `]` is an error and
//! dropped), every target 512 at boot, position commands `A`/`B`/`C` clipped to the input
//! window (100..923 by default; `[S..]`..`[U..]` set it as `min, 1023 - min`), and the
//! board's answers: `[ver]` -> `[v 0x00 0x46]` (version 0.70), `[rdA]`..`[rdC]` ->
//! `[A feedback/4 target/4]` (the emulated motors sit on their targets).
//!
//! [`BoardOnPty`] runs one board on a pty master: what rigd writes is fed to the board, its
//! answers go back to rigd, and each complete `A B C` frame is kept with what rigd sent.

#![allow(dead_code)] // each test binary uses its own subset

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::motion_pty::Pty;

/// The firmware's boot target of every motor.
pub const BOOT_TARGET: u16 = 512;
/// The firmware's default input clip window.
pub const DEFAULT_CLIP: (u16, u16) = (100, 923);

/// The two-actuator test seat the SMC3 tests drive: crank range, speed and acceleration limits,
/// frame rate and park position.
pub const RANGE_DEG: f64 = 60.0;
pub const MAX_SPEED_DEG_PER_S: f64 = 120.0;
pub const MAX_ACCEL_DEG_PER_S2: f64 = 1200.0;
pub const RATE_HZ: f64 = 100.0;
/// Below the firmware window's reach: rigd parks at the edge of its usable travel.
pub const PARK_POSITION: f64 = -0.9;

/// The test seat as a `[[motion.platforms]]` table named `name`, with `output` as its one
/// output's keys.
pub fn seat_platform(name: &str, output: &str) -> String {
    format!(
        r#"
[[motion.platforms]]
name = "{name}"

[motion.platforms.geometry]
layout = "vertical"
actuator_points_m = [[-0.40, 0.25], [-0.40, -0.25]]
crank_radius_m = 0.10

[motion.platforms.actuators]
range_deg = {RANGE_DEG}
max_speed_deg_per_s = {MAX_SPEED_DEG_PER_S}
max_accel_deg_per_s2 = {MAX_ACCEL_DEG_PER_S2}
park_position = {PARK_POSITION}

[motion.platforms.cueing]
sway_gain = 3.0
surge_gain = 3.0
roll_limit_deg = 40.0
pitch_limit_deg = 40.0

[[motion.platforms.outputs]]
{output}
"#
    )
}

/// The usable travel: the firmware window's narrower side (100 of 0..1023) less 5 %.
pub fn usable_travel() -> f64 {
    f64::from(BOOT_TARGET - 1 - DEFAULT_CLIP.0) / 511.0 * 0.95
}

/// Largest change between two frames: v_max x frame period, in counts, plus rounding.
pub fn max_step() -> u16 {
    (MAX_SPEED_DEG_PER_S / RATE_HZ / RANGE_DEG * 512.0).ceil() as u16 + 1
}

/// Largest change of the step between frames: a_max x period^2, in counts, plus rounding.
pub fn max_step_change() -> u16 {
    (MAX_ACCEL_DEG_PER_S2 / (RATE_HZ * RATE_HZ) / RANGE_DEG * 512.0).ceil() as u16 + 2
}

/// One emulated SMC3 board.
#[derive(Debug, Clone)]
pub struct Smc3Board {
    /// The motors' targets (after clipping).
    pub targets: [u16; 3],
    /// The input clip window per motor.
    pub clip: [(u16, u16); 3],
    /// The last value received per motor, before clipping.
    pub received: [u16; 3],
    /// Received values the board had to clip.
    pub clipped: u32,
    /// Bytes or commands the receive state machine rejected.
    pub errors: u32,
    /// Every `A B C` frame as received (raw values, before clipping).
    pub frames: Vec<[u16; 3]>,
    buffer: [u8; 4],
    filled: Option<usize>,
    /// Answers not yet sent to the host.
    pub replies: Vec<u8>,
}

impl Smc3Board {
    /// A board just out of reset.
    pub fn boot() -> Smc3Board {
        Smc3Board {
            targets: [BOOT_TARGET; 3],
            clip: [DEFAULT_CLIP; 3],
            received: [BOOT_TARGET; 3],
            clipped: 0,
            errors: 0,
            frames: Vec::new(),
            buffer: [0; 4],
            filled: None,
            replies: Vec::new(),
        }
    }

    /// Feeds bytes as the sketch's serial receive loop reads them.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            match self.filled {
                None if byte == b'[' => self.filled = Some(0),
                None => self.errors += 1,
                Some(n) => {
                    self.buffer[n] = byte;
                    if n == 3 {
                        self.filled = None;
                        if self.buffer[3] == b']' {
                            self.command();
                        } else {
                            self.errors += 1;
                        }
                    } else {
                        self.filled = Some(n + 1);
                    }
                }
            }
        }
    }

    fn command(&mut self) {
        let [cmd, hi, lo, _] = self.buffer;
        let value = u16::from(hi) * 256 + u16::from(lo);
        match cmd {
            b'A' | b'B' | b'C' => {
                let motor = usize::from(cmd - b'A');
                self.received[motor] = value;
                let (min, max) = self.clip[motor];
                if value > max || value < min {
                    self.clipped += 1;
                }
                self.targets[motor] = value.clamp(min, max);
                if cmd == b'C' {
                    self.frames.push(self.received);
                }
            }
            b'S' | b'T' | b'U' => {
                let motor = usize::from(cmd - b'S');
                self.clip[motor] = (u16::from(lo), 1023 - u16::from(lo));
            }
            b'v' if [hi, lo] == *b"er" => self.replies.extend([b'[', b'v', 0x00, 0x46, b']']),
            b'r' if hi == b'd' && (b'A'..=b'C').contains(&lo) => {
                let target = self.targets[usize::from(lo - b'A')] / 4;
                // The emulated motor sits on its target: feedback = target.
                self.replies
                    .extend([b'[', lo, target as u8, target as u8, b']']);
            }
            _ => {}
        }
    }
}

/// A board answering on a pty master from its own thread.
pub struct BoardOnPty {
    /// The board (frames, counters).
    pub board: Arc<Mutex<Smc3Board>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Pty>>,
}

impl BoardOnPty {
    /// Boots a board behind `pty` (as an Uno does when its port is opened).
    pub fn start(pty: Pty) -> BoardOnPty {
        let board = Arc::new(Mutex::new(Smc3Board::boot()));
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, done) = (board.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                let bytes = pty.read_for(Duration::from_millis(5));
                let replies = {
                    let mut board = shared.lock().unwrap();
                    board.feed(&bytes);
                    std::mem::take(&mut board.replies)
                };
                if !replies.is_empty() {
                    pty.write(&replies);
                }
            }
            pty
        });
        BoardOnPty {
            board,
            stop,
            thread: Some(thread),
        }
    }

    /// The frames received so far.
    pub fn frames(&self) -> Vec<[u16; 3]> {
        self.board.lock().unwrap().frames.clone()
    }

    /// Waits until `done` holds for the frames, or panics after `timeout`.
    pub fn wait_for(&self, timeout: Duration, done: impl Fn(&[[u16; 3]]) -> bool) -> Vec<[u16; 3]> {
        let start = Instant::now();
        loop {
            let frames = self.frames();
            if done(&frames) {
                return frames;
            }
            assert!(
                start.elapsed() < timeout,
                "timed out after {} frames; last {:?}",
                frames.len(),
                frames.last()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the board and closes the pty (the cable is pulled).
    pub fn unplug(mut self) -> Smc3Board {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            drop(thread.join().unwrap());
        }
        self.board.lock().unwrap().clone()
    }
}

#[test]
fn the_emulator_parses_clips_and_answers_as_the_sketch_does() {
    let mut board = Smc3Board::boot();
    assert_eq!(board.targets, [512; 3]);
    // Garbage before a command is skipped byte by byte; a bad end byte drops the command.
    board.feed(b"xx[A\x03\xFF]");
    assert_eq!((board.errors, board.targets[0]), (2, 923));
    assert_eq!(board.clipped, 1);
    board.feed(b"[B\x00\x10)");
    assert_eq!((board.errors, board.targets[1]), (3, 512));
    board.feed(b"[B\x00\x10][C\x01\xFF]");
    assert_eq!(board.targets, [923, 100, 511]);
    assert_eq!(board.frames, vec![[1023, 16, 511]]);
    board.feed(b"[ver][rdB]");
    assert_eq!(
        board.replies,
        [b'[', b'v', 0, 0x46, b']', b'[', b'B', 25, 25, b']']
    );
    // Wider limits as `[S..]` sets them.
    board.feed(b"[S\x17\x17][A\x03\xFF]");
    assert_eq!(board.targets[0], 1000);
}
