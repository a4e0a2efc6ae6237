//! Process-wide, wait-free hand-off of the DIY serial devices' controls to the RT thread.
//!
//! Each running reader claims one of [`SLOTS`] slots and stores its latest
//! [`SerialControls`] field by field in atomics; the RT thread merges every claimed slot into
//! the player's input with [`merged`] (atomic loads only: no lock, no allocation). A torn read
//! across fields is harmless: every field is an independent, complete value. The edge memory
//! of the gear buttons lives in the slot too and is touched only by the RT thread.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use super::{SerialControls, SerialMerge};
use crate::runtime::player_input::PlayerInput;

/// Serial input devices that can be merged at the same time.
pub const SLOTS: usize = 4;

const NO_GEAR: i32 = i32::MIN;

struct Slot {
    claimed: AtomicBool,
    connected: AtomicBool,
    /// handbrake, clutch, throttle, brake as f64 bits; NaN = not reported.
    axes: [AtomicU64; 4],
    gear: AtomicI32,
    gear_up_presses: AtomicU32,
    gear_down_presses: AtomicU32,
    starter: AtomicBool,
    seen_up: AtomicU32,
    seen_down: AtomicU32,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            claimed: AtomicBool::new(false),
            connected: AtomicBool::new(false),
            axes: [const { AtomicU64::new(0x7FF8_0000_0000_0000) }; 4],
            gear: AtomicI32::new(NO_GEAR),
            gear_up_presses: AtomicU32::new(0),
            gear_down_presses: AtomicU32::new(0),
            starter: AtomicBool::new(false),
            seen_up: AtomicU32::new(0),
            seen_down: AtomicU32::new(0),
        }
    }
}

static TABLE: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];
static CLAIMED: AtomicUsize = AtomicUsize::new(0);

/// Claims a free slot (None when all are taken).
pub fn claim() -> Option<usize> {
    for (i, slot) in TABLE.iter().enumerate() {
        if slot
            .claimed
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            publish(i, &SerialControls::default());
            CLAIMED.fetch_add(1, Ordering::SeqCst);
            return Some(i);
        }
    }
    None
}

/// Releases a slot (its device no longer changes any control).
pub fn release(index: usize) {
    publish(index, &SerialControls::default());
    if TABLE[index].claimed.swap(false, Ordering::SeqCst) {
        CLAIMED.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Stores `state` in slot `index`.
pub fn publish(index: usize, state: &SerialControls) {
    let slot = &TABLE[index];
    let values = [state.handbrake, state.clutch, state.throttle, state.brake];
    for (cell, value) in slot.axes.iter().zip(values) {
        cell.store(value.unwrap_or(f64::NAN).to_bits(), Ordering::Relaxed);
    }
    slot.gear
        .store(state.gear.map_or(NO_GEAR, i32::from), Ordering::Relaxed);
    slot.gear_up_presses
        .store(state.gear_up_presses, Ordering::Relaxed);
    slot.gear_down_presses
        .store(state.gear_down_presses, Ordering::Relaxed);
    slot.starter.store(state.starter, Ordering::Relaxed);
    slot.connected.store(state.connected, Ordering::Release);
}

/// `input` with every claimed serial device merged into its controls (RT thread only).
pub fn merged(mut input: PlayerInput) -> PlayerInput {
    if CLAIMED.load(Ordering::Relaxed) == 0 {
        return input;
    }
    for slot in &TABLE {
        if !slot.claimed.load(Ordering::Relaxed) {
            continue;
        }
        let connected = slot.connected.load(Ordering::Acquire);
        let axis = |k: usize| {
            let v = f64::from_bits(slot.axes[k].load(Ordering::Relaxed));
            (!v.is_nan()).then_some(v)
        };
        let gear = slot.gear.load(Ordering::Relaxed);
        let state = SerialControls {
            connected,
            handbrake: axis(0),
            clutch: axis(1),
            throttle: axis(2),
            brake: axis(3),
            gear: (gear != NO_GEAR).then_some(gear as i8),
            gear_up_presses: slot.gear_up_presses.load(Ordering::Relaxed),
            gear_down_presses: slot.gear_down_presses.load(Ordering::Relaxed),
            starter: slot.starter.load(Ordering::Relaxed),
            ..SerialControls::default()
        };
        let mut merge = SerialMerge::remembering(
            slot.seen_up.load(Ordering::Relaxed),
            slot.seen_down.load(Ordering::Relaxed),
        );
        merge.apply(&state, &mut input.controls);
        let (up, down) = merge.seen();
        slot.seen_up.store(up, Ordering::Relaxed);
        slot.seen_down.store(down, Ordering::Relaxed);
    }
    input.controls = input.controls.sanitized();
    input
}
