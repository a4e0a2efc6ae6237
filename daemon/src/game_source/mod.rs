//! The game bridge's frame source: vehicle state from a game's UDP telemetry instead of the
//! built-in simulation (issue 20). [`frames`] turns decoded samples into one frame per tick.

pub mod frames;
