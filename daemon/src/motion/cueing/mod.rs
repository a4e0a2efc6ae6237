//! Motion cueing: turns the car's specific force, rates and slip angle into a platform pose
//! the rig can reproduce, at the loop rate (1 kHz), in f64, without allocating.
//!
//! [`filters`] holds the Tustin-designed building blocks, [`washout`] the classical washout
//! algorithm built from them.

pub mod filters;
pub mod washout;

pub use washout::{CueInput, Washout, G};

#[cfg(test)]
mod tests;
