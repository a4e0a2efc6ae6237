//! The shared real-time primitives: the monotonic clock and its waits ([`clock`]), the
//! wait-free hand-offs between the RT thread and everyone else ([`handoff`]), the output
//! stage trait the RT thread drives ([`stage`]), the process and thread set-up for real-time
//! work (core pinning, SCHED_FIFO, memory locking, PM QoS: [`setup`]) and spawning a thread
//! with it ([`thread`]).
//!
//! Layering: features (`ffb`, `input`, `motion`, `telemetry_out`) and the `runtime` that wires
//! them together import this module; it imports none of them (nothing under `rt` names another
//! module of the crate).

pub mod clock;
pub mod handoff;
pub mod setup;
pub mod stage;
pub mod thread;
