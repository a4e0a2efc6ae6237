//! rigd: the real-time sim-racing rig daemon.
//!
//! The binary (`src/main.rs`) is a thin edge over [`cli`]; everything it runs lives in these
//! modules. Layering, from the edge inwards (a module imports only modules below it):
//!
//! - [`cli`]: the command line, its subcommands and the exit codes;
//! - [`runtime`]: `rigd run` (the RT loop, the world, the session, systemd, the display);
//! - features: [`input`] (evdev, gamepad and serial devices merged into one player input),
//!   [`ffb`], [`motion`], [`telemetry_out`], [`game_source`] (the game bridge's frames);
//! - shared ground: [`rt`] (clock, hand-offs, stage trait, RT set-up), [`devices`],
//!   [`signals`], [`logging`].
//!
//! `tests/module_layering.rs` fails on an import circle between these modules.

pub mod cli;
pub mod devices;
pub mod ffb;
pub mod game_source;
pub mod input;
pub mod logging;
pub mod motion;
pub mod replay;
pub mod rt;
pub mod runtime;
pub mod signals;
pub mod telemetry_out;
#[cfg(test)]
mod test_pty;
