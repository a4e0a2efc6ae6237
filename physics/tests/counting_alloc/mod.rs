//! The counting global allocator of the no-allocation tests: it forwards to the system
//! allocator and counts allocations and reallocations made on the thread that asked to count
//! (the harness's own threads may allocate meanwhile, which is not the code under test).
//! A test binary installs it with `#[global_allocator] static GLOBAL: Counting = Counting;`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The counting allocator.
pub struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// Counts one allocation when this thread is counting.
fn count() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
    }
}

// SAFETY: forwards to the system allocator unchanged; only bumps a thread-local counter.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Starts counting this thread's allocations from zero.
pub fn start_counting() {
    ALLOCATIONS.with(|a| a.set(0));
    COUNTING.with(|c| c.set(true));
}

/// Stops counting and returns this thread's allocations since [`start_counting`].
pub fn stop_counting() -> usize {
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get)
}
