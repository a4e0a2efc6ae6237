//! The daemon's runtime: the pinned real-time physics loop and everything wired around it
//! (output stages, player input hand-off, terminal display).
//!
//! Ownership: the RT thread owns the `World` and the output stages; every other thread talks
//! to it only through the wait-free slots of [`crate::handoff`].

pub mod player_input;
pub mod stages;
