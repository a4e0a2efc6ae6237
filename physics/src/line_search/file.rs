//! The line file: a racing line found by the line search (`rigd line`), for the robot and
//! `[sim] robot_line`. TOML: the car and track it was made for (names and identity digests,
//! [`crate::identity::digest_of`]), the stations (count and spacing), one lateral offset per
//! station, the lap time it was found with and where it came from.
//!
//! Loading refuses a line for another car or track (or a changed one), a wrong station count,
//! a non-finite offset and an offset that puts the car's side beyond the racing surface, each
//! with a message that says what is wrong and how to fix it.

use serde::{Deserialize, Serialize};

use super::drive::Course;
use crate::identity::digest_of;

/// The file format version written and read.
pub const FORMAT: u32 = 1;
/// Offsets may exceed the bounds by this much (rounding in the written decimals), m.
const BOUND_SLACK_M: f64 = 1e-6;

/// How a line was found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The tool and version that wrote it.
    pub tool: String,
    /// Search seed.
    pub seed: u64,
    /// Search iterations done.
    pub iterations: u64,
    /// Flying lap of the line the search started from (the robot's planned line), s.
    pub start_lap_s: f64,
    /// The search strategy ([`super::Strategy::name`]; files written before it was
    /// recorded were found by `random`).
    #[serde(default = "random_search")]
    pub search: String,
}

fn random_search() -> String {
    super::Strategy::Random.name().to_string()
}

/// A racing line for one car on one track.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LineFile {
    /// File format version ([`FORMAT`]).
    pub format: u32,
    /// Name of the car it was found for.
    pub car: String,
    /// Identity digest of that car's spec, hex.
    pub car_digest: String,
    /// Name of the track.
    pub track: String,
    /// Identity digest of the track, hex.
    pub track_digest: String,
    /// Number of stations (evenly spaced from the start line).
    pub station_count: usize,
    /// Centreline distance between stations, m.
    pub station_spacing_m: f64,
    /// Flying-lap time of this line when it was found, s.
    pub lap_s: f64,
    /// How it was found.
    pub provenance: Provenance,
    /// Lateral offset of the line at each station, m (positive left).
    pub offsets_m: Vec<f64>,
}

/// Why a line file cannot be used.
#[allow(missing_docs)] // Each variant's #[error] text says what its fields are.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LineFileError {
    #[error("{origin}: not a line file: {message}; write it with `rigd line`")]
    Syntax { origin: String, message: String },
    #[error("{origin}: format {found} is not the supported {FORMAT}; find the line again with `rigd line`")]
    Format { origin: String, found: u32 },
    #[error(
        "{origin}: the line was found for car {made_for}, this is {this}; run `rigd line \
         --car ...` for this car or pick its line file"
    )]
    OtherCar {
        origin: String,
        made_for: String,
        this: String,
    },
    #[error(
        "{origin}: the line was found for track {made_for}, this is {this}; run `rigd line \
         --track ...` for this track or pick its line file"
    )]
    OtherTrack {
        origin: String,
        made_for: String,
        this: String,
    },
    #[error(
        "{origin}: station_count is {count} with {offsets} offsets, the track needs {needed}; \
         the file is damaged or for another track version: run `rigd line` again"
    )]
    StationCount {
        origin: String,
        count: usize,
        offsets: usize,
        needed: usize,
    },
    #[error("{origin}: offsets_m[{index}] is {value}, not a finite number; run `rigd line` again")]
    NotFinite {
        origin: String,
        index: usize,
        value: f64,
    },
    #[error(
        "{origin}: offsets_m[{index}] = {value:.3} m puts the car outside the track edges there \
         (allowed {lo:.3} ..= {hi:.3} m); run `rigd line` again"
    )]
    OutsideEdges {
        origin: String,
        index: usize,
        value: f64,
        lo: f64,
        hi: f64,
    },
}

/// A digest as written in the file.
fn hex(digest: u64) -> String {
    format!("{digest:016x}")
}

impl LineFile {
    /// The file for the line `offsets_m` found on `course`.
    pub fn new(course: &Course, offsets_m: &[f64], lap_s: f64, provenance: Provenance) -> LineFile {
        LineFile {
            format: FORMAT,
            car: course.car().name.clone(),
            car_digest: hex(digest_of(course.car())),
            track: course.track().name().to_string(),
            track_digest: hex(digest_of(course.track())),
            station_count: offsets_m.len(),
            station_spacing_m: course.spacing_m(),
            lap_s,
            provenance,
            offsets_m: offsets_m.to_vec(),
        }
    }

    /// The TOML text of the file.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# A racing line found by `rigd line` (docs/line-search.md): lateral offsets from the\n\
             # centreline at evenly spaced stations, for the car and track named below.\n{body}"
        )
    }

    /// Parses a line file's text (syntax and fields only; [`LineFile::check`] checks it
    /// against a car and track). `origin` names the file in messages.
    pub fn parse(text: &str, origin: &str) -> Result<LineFile, LineFileError> {
        let file: LineFile = toml::from_str(text).map_err(|e| LineFileError::Syntax {
            origin: origin.to_string(),
            message: e.message().to_string(),
        })?;
        if file.format != FORMAT {
            return Err(LineFileError::Format {
                origin: origin.to_string(),
                found: file.format,
            });
        }
        Ok(file)
    }

    /// Checks the line against `course` (same car, same track, one finite offset per station,
    /// every offset inside the edges) and returns its offsets.
    pub fn check(&self, course: &Course, origin: &str) -> Result<Vec<f64>, LineFileError> {
        let origin = origin.to_string();
        let car_digest = hex(digest_of(course.car()));
        if self.car_digest != car_digest {
            return Err(LineFileError::OtherCar {
                origin,
                made_for: format!("{:?} ({})", self.car, self.car_digest),
                this: format!("{:?} ({car_digest})", course.car().name),
            });
        }
        let track_digest = hex(digest_of(course.track()));
        if self.track_digest != track_digest {
            return Err(LineFileError::OtherTrack {
                origin,
                made_for: format!("{:?} ({})", self.track, self.track_digest),
                this: format!("{:?} ({track_digest})", course.track().name()),
            });
        }
        let needed = course.station_count();
        if self.station_count != needed || self.offsets_m.len() != needed {
            return Err(LineFileError::StationCount {
                origin,
                count: self.station_count,
                offsets: self.offsets_m.len(),
                needed,
            });
        }
        for (index, &value) in self.offsets_m.iter().enumerate() {
            if !value.is_finite() {
                return Err(LineFileError::NotFinite {
                    origin,
                    index,
                    value,
                });
            }
            let (lo, hi) = course.bounds_m(index);
            if value < lo - BOUND_SLACK_M || value > hi + BOUND_SLACK_M {
                return Err(LineFileError::OutsideEdges {
                    origin,
                    index,
                    value,
                    lo,
                    hi,
                });
            }
        }
        Ok(self.offsets_m.clone())
    }
}
