//! The track document (`TrackSpec`, TOML): what a track author writes, and its validation.
//!
//! A track is a closed centreline that starts at the start line heading along `start_heading_deg`
//! and is made of `[[piece]]`s (straights, constant-radius arcs, clothoid spirals). Every
//! profile value a piece names (height, banking, half widths, run-off) is the value reached at
//! the piece's *end*; the builder blends smoothly from the previous piece's end value, and the
//! first piece starts from the last piece's end value (the lap is periodic). Units are in the
//! field names; angles in degrees, distances in metres.
//!
//! Validation turns every out-of-range value into a [`DataError`] naming the document, the
//! line and column of the value, the dotted field (`piece[3].radius_m`) and what is expected.

use serde::Deserialize;

use super::road_profile::RoughnessSpec;
use crate::data::{invalid, parse_toml, DataError};
use crate::surface::SurfaceTable;
use crate::telemetry::SurfaceKind;

/// A whole track document.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrackSpec {
    /// Display name.
    pub name: String,
    /// Seed of the deterministic bump phases (same seed, same bumps).
    #[serde(default)]
    pub seed: u64,
    /// World heading of the centreline at the start line, degrees (0 = +x, 90 = +y).
    #[serde(default)]
    pub start_heading_deg: f64,
    /// Banking at the start line, degrees (positive lowers the left edge); pieces that name
    /// no `bank_deg` keep it, so a constantly banked circle needs only this.
    #[serde(default)]
    pub start_bank_deg: f64,
    /// Half width of the racing surface on each side at the start line, m.
    pub half_width_m: f64,
    /// Distance from the racing surface's edge (outer kerb edge where a kerb is) to the
    /// barrier at the start line, m.
    pub runoff_m: f64,
    /// Height of the crown (centre above the edges), m. 0 for a flat cross-section.
    #[serde(default)]
    pub crown_m: f64,
    /// Width of the kerb band outside the edge where pieces or zones lay kerbs, m.
    #[serde(default = "default_kerb_width_m")]
    pub kerb_width_m: f64,
    /// Peak height of a kerb above the track edge, m.
    #[serde(default = "default_kerb_height_m")]
    pub kerb_height_m: f64,
    /// Surface between the edge (or kerb) and the barrier unless a piece or zone says otherwise.
    #[serde(default = "default_runoff_surface")]
    pub runoff_surface: SurfaceName,
    /// Surface of the racing surface unless a zone says otherwise (default asphalt; a rally
    /// stage's is gravel).
    #[serde(default = "default_racing_surface")]
    pub racing_surface: SurfaceName,
    /// Per-kind surface properties overriding the built-in ones (`[surface.wet]`
    /// `water_film_mm = 2.0`, ...; see `crate::surface`).
    #[serde(default)]
    pub surface: SurfaceTable,
    /// Road roughness from an ISO 8608 road class over the whole track (none without it).
    #[serde(default)]
    pub roughness: Option<RoughnessSpec>,
    /// Distances along the lap where sectors 2 and 3 begin, m (default: thirds of the lap).
    #[serde(default)]
    pub sector_starts_m: Option<[f64; 2]>,
    /// Distance between grid slots, m.
    #[serde(default = "default_grid_spacing_m")]
    pub grid_spacing_m: f64,
    /// Air temperature (tyre cooling), degrees C.
    #[serde(default = "default_air_temp_c")]
    pub air_temp_c: f64,
    /// Road surface temperature (tyre contact cooling), degrees C.
    #[serde(default = "default_track_temp_c")]
    pub track_temp_c: f64,
    /// Long-wave deterministic bumps of the whole track.
    #[serde(default)]
    pub bumps: BumpSpec,
    /// The centreline, in driving order from the start line.
    #[serde(rename = "piece")]
    pub pieces: Vec<PieceSpec>,
    /// Extra surface zones (wet patches, gravel traps, kerbs by distance).
    #[serde(default, rename = "zone")]
    pub zones: Vec<ZoneSpec>,
}

/// Deterministic bumps of the whole driving surface.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BumpSpec {
    /// Peak amplitude, m (0 for a billiard-table track).
    #[serde(default)]
    pub amplitude_m: f64,
    /// Dominant wavelength along the track, m.
    #[serde(default = "default_bump_wavelength_m")]
    pub wavelength_m: f64,
}

impl Default for BumpSpec {
    fn default() -> Self {
        BumpSpec {
            amplitude_m: 0.0,
            wavelength_m: default_bump_wavelength_m(),
        }
    }
}

/// What a piece of centreline is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PieceKind {
    /// Zero curvature for `length_m`.
    Straight,
    /// Constant curvature `1 / radius_m` through `angle_deg`.
    Arc,
    /// Clothoid: curvature linear in distance from the previous piece's end curvature to
    /// `1 / end_radius_m` (0 without it) over `length_m`.
    Spiral,
}

/// Which way a curve turns, seen in the driving direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Turn {
    /// Curving left (positive curvature).
    Left,
    /// Curving right (negative curvature).
    Right,
}

/// Which edges something applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Sides {
    /// The left edge only.
    Left,
    /// The right edge only.
    Right,
    /// Both edges.
    Both,
}

impl Sides {
    /// True when this includes `side` (0 = left, 1 = right).
    pub fn includes(self, side: usize) -> bool {
        matches!(
            (self, side),
            (Sides::Both, _) | (Sides::Left, 0) | (Sides::Right, 1)
        )
    }
}

/// Surface names as written in documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SurfaceName {
    /// Dry asphalt.
    Asphalt,
    /// Painted kerb.
    Kerb,
    /// Grass.
    Grass,
    /// Gravel.
    Gravel,
    /// Wet asphalt.
    Wet,
}

impl SurfaceName {
    /// The telemetry kind of this surface.
    pub fn kind(self) -> SurfaceKind {
        match self {
            SurfaceName::Asphalt => SurfaceKind::Asphalt,
            SurfaceName::Kerb => SurfaceKind::Kerb,
            SurfaceName::Grass => SurfaceKind::Grass,
            SurfaceName::Gravel => SurfaceKind::Gravel,
            SurfaceName::Wet => SurfaceKind::Wet,
        }
    }
}

/// One piece of centreline with the profile values reached at its end.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceSpec {
    /// Straight, arc or spiral.
    pub kind: PieceKind,
    /// Length along the centreline (straight, spiral), m.
    pub length_m: Option<f64>,
    /// Radius of an arc, m.
    pub radius_m: Option<f64>,
    /// Heading change of an arc, degrees.
    pub angle_deg: Option<f64>,
    /// Radius at the end of a spiral, m (omit to end straight).
    pub end_radius_m: Option<f64>,
    /// Direction of an arc, or of a spiral's end curvature.
    pub turn: Option<Turn>,
    /// Centreline height at the end of the piece, m.
    pub end_height_m: Option<f64>,
    /// Banking at the end of the piece, degrees; positive lowers the left edge (banked for a
    /// left-hand turn), negative lowers the right edge.
    pub bank_deg: Option<f64>,
    /// Half width of the racing surface left of the centreline at the end of the piece, m.
    pub half_width_left_m: Option<f64>,
    /// Half width right of the centreline at the end of the piece, m.
    pub half_width_right_m: Option<f64>,
    /// Run-off width beyond the left edge (or kerb) to the barrier at the end of the piece, m.
    pub runoff_left_m: Option<f64>,
    /// Run-off width beyond the right edge at the end of the piece, m.
    pub runoff_right_m: Option<f64>,
    /// Kerbs along this whole piece.
    pub kerbs: Option<Sides>,
    /// Run-off surface along this whole piece (both sides).
    pub runoff_surface: Option<SurfaceName>,
}

impl PieceSpec {
    fn of_kind(kind: PieceKind) -> PieceSpec {
        PieceSpec {
            kind,
            length_m: None,
            radius_m: None,
            angle_deg: None,
            end_radius_m: None,
            turn: None,
            end_height_m: None,
            bank_deg: None,
            half_width_left_m: None,
            half_width_right_m: None,
            runoff_left_m: None,
            runoff_right_m: None,
            kerbs: None,
            runoff_surface: None,
        }
    }

    /// A straight of `length_m` with no profile changes.
    pub fn straight(length_m: f64) -> PieceSpec {
        PieceSpec {
            length_m: Some(length_m),
            ..PieceSpec::of_kind(PieceKind::Straight)
        }
    }

    /// An arc of `radius_m` through `angle_deg` turning `turn`.
    pub fn arc(radius_m: f64, angle_deg: f64, turn: Turn) -> PieceSpec {
        PieceSpec {
            radius_m: Some(radius_m),
            angle_deg: Some(angle_deg),
            turn: Some(turn),
            ..PieceSpec::of_kind(PieceKind::Arc)
        }
    }

    /// A clothoid of `length_m` ending at `end` (radius and direction; `None` ends straight).
    pub fn spiral(length_m: f64, end: Option<(f64, Turn)>) -> PieceSpec {
        PieceSpec {
            length_m: Some(length_m),
            end_radius_m: end.map(|(r, _)| r),
            turn: end.map(|(_, t)| t),
            ..PieceSpec::of_kind(PieceKind::Spiral)
        }
    }
}

/// Where a zone's surface applies across the track.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Band {
    /// The racing surface between the edges.
    Track,
    /// The kerb band just outside the edge.
    Kerb,
    /// From the edge (or kerb) to the barrier.
    Runoff,
}

/// A surface over a distance range.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoneSpec {
    /// The surface laid.
    pub surface: SurfaceName,
    /// Which band across the track it covers.
    pub band: Band,
    /// Which sides (for the track band: which half of the racing surface).
    pub side: Sides,
    /// Start distance along the lap, m.
    pub from_m: f64,
    /// End distance along the lap, m (may be below `from_m` to wrap over the line).
    pub to_m: f64,
}

fn default_kerb_width_m() -> f64 {
    1.2
}
fn default_kerb_height_m() -> f64 {
    0.03
}
fn default_runoff_surface() -> SurfaceName {
    SurfaceName::Grass
}
fn default_racing_surface() -> SurfaceName {
    SurfaceName::Asphalt
}
fn default_grid_spacing_m() -> f64 {
    8.0
}
fn default_air_temp_c() -> f64 {
    crate::track::DEFAULT_AIR_TEMP_C
}
fn default_track_temp_c() -> f64 {
    crate::track::DEFAULT_TRACK_TEMP_C
}
fn default_bump_wavelength_m() -> f64 {
    20.0
}

/// A validation failure before the text is known: field path, message, and which array item
/// (for locating the line).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SpecProblem {
    /// Dotted field path (`piece[3].radius_m`).
    pub field: String,
    /// What is wrong and what is expected.
    pub message: String,
}

impl SpecProblem {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> SpecProblem {
        SpecProblem {
            field: field.into(),
            message: message.into(),
        }
    }

    /// Turns the problem into a [`DataError`] pointing at the field in `text` (the header of
    /// its `[[piece]]` or `[[zone]]` when the key is not written).
    pub(crate) fn into_error(self, text: &str, origin: &str) -> DataError {
        invalid(text, origin, &self.field, self.message)
    }
}

impl TrackSpec {
    /// Parses and validates a track document. `origin` names it in errors (a path or
    /// `builtin:<name>`).
    pub fn from_toml(text: &str, origin: &str) -> Result<TrackSpec, DataError> {
        let spec: TrackSpec = parse_toml(text, origin)?;
        spec.validate()
            .map_err(|problem| problem.into_error(text, origin))?;
        Ok(spec)
    }

    /// Checks every value that parsed but may be out of range (geometry that needs the built
    /// centreline, such as closure, is checked by the builder).
    pub(crate) fn validate(&self) -> Result<(), SpecProblem> {
        positive("half_width_m", self.half_width_m, 0.5, 100.0)?;
        range("runoff_m", self.runoff_m, 0.0, 500.0)?;
        range("start_bank_deg", self.start_bank_deg, -45.0, 45.0)?;
        range("crown_m", self.crown_m, 0.0, 0.5)?;
        positive("kerb_width_m", self.kerb_width_m, 0.1, 10.0)?;
        range("kerb_height_m", self.kerb_height_m, 0.0, 0.2)?;
        positive("grid_spacing_m", self.grid_spacing_m, 4.0, 100.0)?;
        range("air_temp_c", self.air_temp_c, -50.0, 60.0)?;
        range("track_temp_c", self.track_temp_c, -50.0, 90.0)?;
        range("bumps.amplitude_m", self.bumps.amplitude_m, 0.0, 0.2)?;
        positive("bumps.wavelength_m", self.bumps.wavelength_m, 1.0, 1000.0)?;
        if !self.start_heading_deg.is_finite() {
            return Err(SpecProblem::new(
                "start_heading_deg",
                "expected a finite angle in degrees",
            ));
        }
        if let Err((field, message)) = self.surface.surfaces() {
            return Err(SpecProblem::new(field, message));
        }
        if self.pieces.is_empty() {
            return Err(SpecProblem::new(
                "piece",
                "a track needs at least one [[piece]] of centreline",
            ));
        }
        for (i, piece) in self.pieces.iter().enumerate() {
            validate_piece(i, piece)?;
        }
        for (i, zone) in self.zones.iter().enumerate() {
            for (name, value) in [("from_m", zone.from_m), ("to_m", zone.to_m)] {
                if !(value.is_finite() && value >= 0.0) {
                    return Err(SpecProblem::new(
                        format!("zone[{i}].{name}"),
                        "expected a distance along the lap >= 0 m",
                    ));
                }
            }
            if zone.from_m == zone.to_m {
                return Err(SpecProblem::new(
                    format!("zone[{i}].to_m"),
                    "a zone must cover some distance: make to_m differ from from_m",
                ));
            }
        }
        Ok(())
    }
}

fn validate_piece(i: usize, piece: &PieceSpec) -> Result<(), SpecProblem> {
    let field = |name: &str| format!("piece[{i}].{name}");
    let require = |name: &str, value: Option<f64>, what: &str| {
        value.ok_or_else(|| {
            SpecProblem::new(
                field(name),
                format!("missing: a {:?} piece needs {name} ({what})", piece.kind),
            )
        })
    };
    let forbid = |name: &str, present: bool| {
        if present {
            Err(SpecProblem::new(
                field(name),
                format!(
                    "not used by a {:?} piece: remove it (straight: length_m; arc: radius_m, \
                     angle_deg, turn; spiral: length_m, optional end_radius_m and turn)",
                    piece.kind
                ),
            ))
        } else {
            Ok(())
        }
    };
    match piece.kind {
        PieceKind::Straight => {
            let length = require("length_m", piece.length_m, "metres > 0")?;
            positive(&field("length_m"), length, 0.1, 100_000.0)?;
            forbid("radius_m", piece.radius_m.is_some())?;
            forbid("angle_deg", piece.angle_deg.is_some())?;
            forbid("end_radius_m", piece.end_radius_m.is_some())?;
            forbid("turn", piece.turn.is_some())?;
        }
        PieceKind::Arc => {
            let radius = require("radius_m", piece.radius_m, "metres > 0")?;
            positive(&field("radius_m"), radius, 5.0, 100_000.0)?;
            let angle = require("angle_deg", piece.angle_deg, "degrees in 0 .. 360")?;
            positive(&field("angle_deg"), angle, 1e-3, 360.0)?;
            if piece.turn.is_none() {
                return Err(SpecProblem::new(
                    field("turn"),
                    "missing: an arc needs turn = \"left\" or \"right\"",
                ));
            }
            forbid("length_m", piece.length_m.is_some())?;
            forbid("end_radius_m", piece.end_radius_m.is_some())?;
        }
        PieceKind::Spiral => {
            let length = require("length_m", piece.length_m, "metres > 0")?;
            positive(&field("length_m"), length, 0.5, 100_000.0)?;
            if let Some(radius) = piece.end_radius_m {
                positive(&field("end_radius_m"), radius, 5.0, 100_000.0)?;
                if piece.turn.is_none() {
                    return Err(SpecProblem::new(
                        field("turn"),
                        "missing: a spiral with end_radius_m needs turn = \"left\" or \"right\"",
                    ));
                }
            }
            forbid("radius_m", piece.radius_m.is_some())?;
            forbid("angle_deg", piece.angle_deg.is_some())?;
        }
    }
    if let Some(bank) = piece.bank_deg {
        range(&field("bank_deg"), bank, -45.0, 45.0)?;
    }
    if let Some(height) = piece.end_height_m {
        range(&field("end_height_m"), height, -1000.0, 1000.0)?;
    }
    for (name, value) in [
        ("half_width_left_m", piece.half_width_left_m),
        ("half_width_right_m", piece.half_width_right_m),
    ] {
        if let Some(v) = value {
            positive(&field(name), v, 0.5, 100.0)?;
        }
    }
    for (name, value) in [
        ("runoff_left_m", piece.runoff_left_m),
        ("runoff_right_m", piece.runoff_right_m),
    ] {
        if let Some(v) = value {
            range(&field(name), v, 0.0, 500.0)?;
        }
    }
    Ok(())
}

/// `value` must be finite and in `lo ..= hi` with `lo > 0`.
fn positive(field: &str, value: f64, lo: f64, hi: f64) -> Result<(), SpecProblem> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(SpecProblem::new(
            field,
            format!("got {value}, expected a positive value from {lo} to {hi}"),
        ))
    }
}

/// `value` must be finite and in `lo ..= hi`.
fn range(field: &str, value: f64, lo: f64, hi: f64) -> Result<(), SpecProblem> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(SpecProblem::new(
            field,
            format!("got {value}, expected a value from {lo} to {hi}"),
        ))
    }
}
