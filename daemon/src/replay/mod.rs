//! Bit-identical record and replay (docs/replay.md): `rigd run --record FILE` writes what the
//! physics consumed at every step, with the car, track, rate and build, to a compact file;
//! `rigd replay FILE` re-runs the physics from it without devices and checks that every
//! frame comes out bit for bit the same.
//!
//! [`format`] is the file format (pure); [`digest`] the frames' physics bytes and their
//! digests; [`recorder`] the RT-side observer and its writer thread; [`player`] the replay;
//! [`build_id`] which build wrote a file. This module depends on the runtime (the world, the
//! display, the telemetry stages), never the reverse: the CLI hands the recorder to
//! `rigd run` as a [`crate::runtime::service::RecordedWorldFactory`].

pub mod build_id;
pub mod digest;
pub mod format;
pub mod player;
pub mod recorder;
