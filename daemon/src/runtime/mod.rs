//! The daemon's runtime: the pinned real-time physics loop and everything wired around it
//! (output stages, the player's input slot, world, terminal display, systemd, start/stop/
//! reload). It wires the features together; the features never import it.
//!
//! Ownership: the RT thread owns the world and the output stages while it runs
//! ([`rt_loop::LoopParts`]); every other thread talks to it only through atomics
//! ([`rt_loop::LoopShared`]) and the wait-free slots of [`crate::rt::handoff`].

pub mod bounded_join;
pub mod config_load;
pub mod display;
pub mod health;
pub mod health_log;
pub mod histogram;
pub mod planted_panic;
pub mod robots;
pub mod rt_loop;
pub mod rt_thread;
pub mod service;
pub mod session_links;
pub mod simulation;
pub mod stages;
pub mod systemd;
pub mod who_drives;
