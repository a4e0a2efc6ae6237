//! The daemon's runtime: the pinned real-time physics loop and everything wired around it
//! (output stages, player input hand-off, world, terminal display, start/stop/reload).
//!
//! Ownership: the RT thread owns the world and the output stages while it runs
//! ([`rt_loop::LoopParts`]); every other thread talks to it only through atomics
//! ([`rt_loop::LoopShared`]) and the wait-free slots of [`crate::handoff`].

pub mod bounded_join;
pub mod clock;
pub mod display;
pub mod health;
pub mod histogram;
pub mod player_input;
pub mod robots;
pub mod rt_loop;
pub mod rt_setup;
pub mod rt_thread;
pub mod service;
pub mod simulation;
pub mod stages;
