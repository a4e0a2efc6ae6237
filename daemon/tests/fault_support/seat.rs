//! The seat the motion fault tests (`fault_motion.rs`, `fault_panic.rs`) run rigd with: an
//! emulated SMC3 board (tests/smc3_board) behind a pty reached through a stable link, its
//! output table, the park position, and the checks both make on the frames the board got (every
//! move within the seat's speed and acceleration limits; the seat parked, rose and follows its
//! cues). Kept apart from `fault_support/mod.rs` because it needs the board's modules, which
//! only these two test binaries compile in (`#[path]` in each).

#![allow(dead_code)] // each of the two uses its own subset

use std::path::Path;

use crate::fault_support::point_link;
use crate::motion_pty::Pty;
use crate::smc3_board::{max_step, max_step_change, usable_travel, BoardOnPty};
use crate::smc3_wire::counts;

/// The `[[motion.platform]]` output table of an SMC3 board on `link`.
pub fn smc3_output(link: &Path) -> String {
    format!(
        "preset = \"smc3\"\nserial_port = \"{}\"\npost_open_delay_ms = 300\n",
        link.display()
    )
}

/// The park position in board counts (both actuators fully down).
pub fn park() -> u16 {
    counts(-usable_travel())
}

/// A board behind a fresh pty, reachable at `link` (a controller plugged in at a fixed path).
pub fn plug_board(link: &Path) -> BoardOnPty {
    let pty = Pty::open();
    point_link(link, &pty.slave_path);
    BoardOnPty::start(pty)
}

/// Every frame after `from` moves within the speed and acceleration limits (the step before
/// `frames` is taken as the first one's).
pub fn assert_ramp(from: [u16; 3], frames: &[[u16; 3]], what: &str) {
    let mut previous = from;
    let mut previous_step = [0i32; 2];
    for (n, f) in frames.iter().enumerate() {
        for axis in 0..2 {
            let step = i32::from(f[axis]) - i32::from(previous[axis]);
            assert!(
                step.unsigned_abs() <= u32::from(max_step()),
                "{what}: frame {n} axis {axis} stepped {step} counts ({previous:?} -> {f:?}), limit {}",
                max_step()
            );
            let change = (step - previous_step[axis]).unsigned_abs();
            assert!(
                n == 0 || change <= u32::from(max_step_change()),
                "{what}: frame {n} axis {axis} step changed by {change} counts, limit {}",
                max_step_change()
            );
            previous_step[axis] = step;
        }
        previous = *f;
    }
}

/// Every frame of `frames` moves within the seat's speed and acceleration limits.
pub fn assert_within_limits(frames: &[[u16; 3]], what: &str) {
    if let Some((first, rest)) = frames.split_first() {
        assert_ramp(*first, rest, what);
    }
}

/// True once the seat parked, rose and has moved in more than `moves` frames since.
pub fn following_cues(frames: &[[u16; 3]], moves: usize) -> bool {
    let parked = frames.iter().position(|f| f[0] == park() && f[1] == park());
    parked.is_some_and(|p| frames[p..].windows(2).filter(|w| w[0] != w[1]).count() > moves)
}
