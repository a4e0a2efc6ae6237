//! Surfaces as the tyre feels them: what each surface kind is made of (friction, micro- and
//! macrotexture, water film, deformability, rolling resistance, roughness for cues), and the
//! per-wheel [`SurfaceEffect`] the contact phase hands the tyre (grip scale, slip stretch,
//! relaxation-length scale, rolling resistance) from the surface, the wheel's speed and the
//! tyre's inflation pressure.
//!
//! Why here and not in the tyre: the surface changes the operating point the Magic Formula is
//! evaluated at, not its coefficients, so the tyre model stays the car's own and one effect
//! struct carries everything the ground does to it.
//!
//! Water (docs/surfaces.md has the derivation and numbers):
//! - Thin film: microtexture pierces a thin film; the wet friction ratio is
//!   `w_min + (1 - w_min) exp(-h_eff / microtexture)` with [`WET_FRICTION_FLOOR`] `w_min`.
//! - Effective film `h_eff = max(h - macrotexture / 2, 0)`: the water held in the texture's
//!   voids below the asperity tops does not lift the tyre ([`TEXTURE_VOID_FRACTION`]).
//! - Hydroplaning onset (full dynamic hydroplaning) from Horne's relation `V_p = 10.35
//!   sqrt(p_psi)` mph, i.e. [`HORNE_KMH_PER_SQRT_KPA`] `sqrt(p_kPa)` km/h, which holds at an
//!   effective film of [`HORNE_FILM_MM`]; thinner films raise it by `(2.5 mm / h_eff)^0.2`
//!   (at most [`MAX_FILM_CORRECTION`] times). A film the texture holds entirely (`h_eff = 0`)
//!   costs no grip and never lifts the tyre.
//! - Below onset the water's dynamic pressure (`~ v^2`) carries the share `(v / V_p)^2` of the
//!   footprint, which keeps only [`HYDROPLANING_RESIDUAL`] of the dry grip; the rest keeps the
//!   thin-film grip. At and above `V_p` the whole footprint is water-borne.
//!
//! Deformable surfaces (gravel, grass): the slip at peak force is `peak_slip_scale` times dry
//! asphalt's. The Magic Formula's friction scale alone moves the peak slip in proportion to
//! the grip (its slip stiffness stays, so `B = K / (C D)` grows as `D` shrinks), so the force
//! curve is stretched along both slip axes by `peak_slip_scale / grip_scale`: forces at slip
//! `s` are the low-grip curve's at `s grip_scale / peak_slip_scale`, and the slip stiffness
//! falls by that factor (the compliant feel of loose ground, not low-grip asphalt's).
//! Relaxation lengths grow by `relaxation_length_scale`, and the surface's rolling resistance
//! is added to the tyre's.

use crate::telemetry::SurfaceKind;
use serde::Deserialize;

/// Horne's hydroplaning relation, 10.35 mph per sqrt(psi), in km/h per sqrt(kPa):
/// `10.35 * 1.609344 / sqrt(6.894757)`.
pub const HORNE_KMH_PER_SQRT_KPA: f64 = 6.343_5;
/// The effective water film at which Horne's relation is taken to hold (a flooded surface), mm.
pub const HORNE_FILM_MM: f64 = 2.5;
/// Exponent of the thin-film correction `(HORNE_FILM_MM / h_eff)^x` of the onset speed.
pub const FILM_CORRECTION_EXPONENT: f64 = 0.2;
/// Largest thin-film correction of the onset speed (a film inside the texture never lifts a
/// road tyre at road speeds).
pub const MAX_FILM_CORRECTION: f64 = 3.0;
/// Share of the mean texture depth whose water drains in the texture's voids.
pub const TEXTURE_VOID_FRACTION: f64 = 0.5;
/// Wet friction ratio under a film too deep for the microtexture to pierce.
pub const WET_FRICTION_FLOOR: f64 = 0.6;
/// Grip left, as a share of the wet grip's dry value, where the footprint rides on water.
pub const HYDROPLANING_RESIDUAL: f64 = 0.1;
/// Smallest microtexture the thin-film law divides by, mm (polished surfaces).
const MIN_MICROTEXTURE_MM: f64 = 0.01;

/// What a surface kind is made of. Built-in values per kind ([`Surface::of`]); a track file
/// may override any of them per kind (`[surface.wet]`, see [`SurfaceOverrides`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    /// What it is.
    pub kind: SurfaceKind,
    /// Dry friction scale on the tyre's peak forces (asphalt 1.0).
    pub grip_scale: f64,
    /// Microtexture (asperity height under 0.5 mm: adhesion, pierces thin water films), mm.
    pub microtexture_mm: f64,
    /// Macrotexture as mean texture depth (0.5-20 mm aggregate: drains water), mm.
    pub macrotexture_mm: f64,
    /// Water film depth, measured from the bottom of the texture, mm.
    pub water_film_mm: f64,
    /// The ground gives under the tyre (gravel, grass): the scales below apply.
    pub deformable: bool,
    /// Slip at peak force relative to dry asphalt's (1 on rigid ground).
    pub peak_slip_scale: f64,
    /// Growth of the tyre's relaxation lengths (1 on rigid ground).
    pub relaxation_length_scale: f64,
    /// Rolling resistance coefficient added to the tyre's own.
    pub rolling_resistance: f64,
    /// Amplitude of the deterministic short-wave roughness, m. It is already part of the
    /// heights and normals the track returns; this is for cues (rumble, FFB texture).
    pub roughness_m: f64,
    /// Derived water behaviour (from the fields above, see [`Surface::prepared`]).
    pub water: WaterGrip,
}

/// The parts of the water law that depend on the surface alone, computed once per track.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WaterGrip {
    /// Thin-film wet friction ratio (1 when dry).
    pub film_ratio: f64,
    /// Hydroplaning onset speed per sqrt(kPa) of inflation pressure, m/s (infinite when dry).
    pub onset_mps_per_sqrt_kpa: f64,
}

impl WaterGrip {
    /// A dry surface's.
    pub const DRY: WaterGrip = WaterGrip {
        film_ratio: 1.0,
        onset_mps_per_sqrt_kpa: f64::INFINITY,
    };
}

impl Surface {
    const fn base(kind: SurfaceKind, grip_scale: f64, texture_mm: [f64; 2]) -> Surface {
        Surface {
            kind,
            grip_scale,
            microtexture_mm: texture_mm[0],
            macrotexture_mm: texture_mm[1],
            water_film_mm: 0.0,
            deformable: false,
            peak_slip_scale: 1.0,
            relaxation_length_scale: 1.0,
            rolling_resistance: 0.0,
            roughness_m: 0.0,
            water: WaterGrip::DRY,
        }
    }

    /// Dry asphalt (texture of a dense asphalt wearing course).
    pub const ASPHALT: Surface = Surface::base(SurfaceKind::Asphalt, 1.0, [0.3, 0.8]);
    /// Painted kerb: paint fills the microtexture; a rumble.
    pub const KERB: Surface = Surface {
        rolling_resistance: 0.005,
        roughness_m: 0.006,
        ..Surface::base(SurfaceKind::Kerb, 0.9, [0.1, 0.5])
    };
    /// Grass: little grip, soft.
    pub const GRASS: Surface = Surface {
        deformable: true,
        peak_slip_scale: 1.4,
        relaxation_length_scale: 1.3,
        rolling_resistance: 0.04,
        roughness_m: 0.015,
        ..Surface::base(SurfaceKind::Grass, 0.6, [0.2, 5.0])
    };
    /// Gravel: low grip, the tyre ploughs (high peak slip, high drag).
    pub const GRAVEL: Surface = Surface {
        deformable: true,
        peak_slip_scale: 1.8,
        relaxation_length_scale: 1.5,
        rolling_resistance: 0.10,
        roughness_m: 0.02,
        ..Surface::base(SurfaceKind::Gravel, 0.5, [0.5, 10.0])
    };
    /// Wet asphalt: the asphalt under a 1 mm film (before [`Surface::prepared`] fills in the
    /// water law; [`Surface::of`] returns it prepared).
    pub const WET: Surface = Surface {
        water_film_mm: 1.0,
        rolling_resistance: 0.005,
        ..Surface::base(SurfaceKind::Wet, 1.0, [0.3, 0.8])
    };

    /// The built-in properties of a surface kind, prepared.
    pub fn of(kind: SurfaceKind) -> Surface {
        match kind {
            SurfaceKind::Asphalt => Surface::ASPHALT,
            SurfaceKind::Kerb => Surface::KERB,
            SurfaceKind::Grass => Surface::GRASS,
            SurfaceKind::Gravel => Surface::GRAVEL,
            SurfaceKind::Wet => Surface::WET,
        }
        .prepared()
    }

    /// This surface with its [`WaterGrip`] computed from its texture and water film.
    pub fn prepared(mut self) -> Surface {
        let h_eff = self.effective_film_mm();
        // A film the texture holds entirely neither wets the contact nor lifts the tyre.
        self.water = if h_eff > 0.0 {
            let micro = self.microtexture_mm.max(MIN_MICROTEXTURE_MM);
            WaterGrip {
                film_ratio: WET_FRICTION_FLOOR
                    + (1.0 - WET_FRICTION_FLOOR) * (-h_eff / micro).exp(),
                onset_mps_per_sqrt_kpa: HORNE_KMH_PER_SQRT_KPA / 3.6 * film_correction(h_eff),
            }
        } else {
            WaterGrip::DRY
        };
        self
    }

    /// The water film that can lift the tyre: the film less what the texture's voids hold, mm.
    pub fn effective_film_mm(&self) -> f64 {
        (self.water_film_mm - TEXTURE_VOID_FRACTION * self.macrotexture_mm).max(0.0)
    }

    /// Speed at which a tyre at `pressure_kpa` fully hydroplanes here, m/s (infinite when dry).
    pub fn hydroplaning_speed_mps(&self, pressure_kpa: f64) -> f64 {
        self.water.onset_mps_per_sqrt_kpa * pressure_kpa.max(0.0).sqrt()
    }
}

/// Onset-speed factor of an effective film `h_eff_mm` (> 0) relative to Horne's flooded
/// surface.
fn film_correction(h_eff_mm: f64) -> f64 {
    (HORNE_FILM_MM / h_eff_mm)
        .powf(FILM_CORRECTION_EXPONENT)
        .min(MAX_FILM_CORRECTION)
}

/// What the ground under one wheel does to its tyre this step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SurfaceEffect {
    /// Friction scale on the tyre's peak forces (dry grip, water film and hydroplaning).
    pub grip_scale: f64,
    /// `grip_scale / peak_slip_scale` on deformable ground (1 otherwise): the slips are
    /// multiplied by it before the Magic Formula.
    pub slip_stretch_inverse: f64,
    /// `1 / relaxation_length_scale`.
    pub relaxation_inverse: f64,
    /// Rolling resistance coefficient added to the tyre's own.
    pub rolling_resistance: f64,
}

impl SurfaceEffect {
    /// Asphalt's: no change to the tyre.
    pub const NEUTRAL: SurfaceEffect = SurfaceEffect {
        grip_scale: 1.0,
        slip_stretch_inverse: 1.0,
        relaxation_inverse: 1.0,
        rolling_resistance: 0.0,
    };

    /// The effect of `surface` on a tyre rolling at `speed_mps` (forward speed of its
    /// contact patch) inflated to `pressure_kpa`.
    #[inline]
    pub fn of(surface: &Surface, speed_mps: f64, pressure_kpa: f64) -> SurfaceEffect {
        let (slip_stretch_inverse, relaxation_inverse) = if surface.deformable {
            (
                surface.grip_scale / surface.peak_slip_scale,
                1.0 / surface.relaxation_length_scale,
            )
        } else {
            (1.0, 1.0)
        };
        SurfaceEffect {
            grip_scale: surface.grip_scale * water_ratio(surface, speed_mps, pressure_kpa),
            slip_stretch_inverse,
            relaxation_inverse,
            rolling_resistance: surface.rolling_resistance,
        }
    }
}

/// The wet grip as a share of the dry grip at `speed_mps` and `pressure_kpa` (1 when dry).
#[inline]
pub fn water_ratio(surface: &Surface, speed_mps: f64, pressure_kpa: f64) -> f64 {
    let water = &surface.water;
    if water.film_ratio == 1.0 {
        return 1.0;
    }
    let onset = water.onset_mps_per_sqrt_kpa * pressure_kpa.max(0.0).sqrt();
    let ratio = speed_mps / onset;
    let borne = (ratio * ratio).min(1.0);
    water.film_ratio * (1.0 - borne) + HYDROPLANING_RESIDUAL * borne
}

/// Per-kind overrides a track file may give (`[surface.gravel]` etc.); unset fields keep the
/// built-in values of [`Surface::of`].
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurfaceOverrides {
    /// Dry friction scale.
    pub grip_scale: Option<f64>,
    /// Microtexture, mm.
    pub microtexture_mm: Option<f64>,
    /// Macrotexture (mean texture depth), mm.
    pub macrotexture_mm: Option<f64>,
    /// Water film depth, mm.
    pub water_film_mm: Option<f64>,
    /// Whether the ground deforms under the tyre.
    pub deformable: Option<bool>,
    /// Growth of the slip at peak force on a deformable surface.
    pub peak_slip_scale: Option<f64>,
    /// Growth of the relaxation lengths on a deformable surface.
    pub relaxation_length_scale: Option<f64>,
    /// Rolling resistance coefficient added to the tyre's.
    pub rolling_resistance: Option<f64>,
    /// Short-wave roughness amplitude, m.
    pub roughness_m: Option<f64>,
}

/// Overrides for each surface kind a track file may name.
#[derive(Debug, Clone, Copy, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurfaceTable {
    /// Dry asphalt.
    #[serde(default)]
    pub asphalt: SurfaceOverrides,
    /// Painted kerbs.
    #[serde(default)]
    pub kerb: SurfaceOverrides,
    /// Grass.
    #[serde(default)]
    pub grass: SurfaceOverrides,
    /// Gravel.
    #[serde(default)]
    pub gravel: SurfaceOverrides,
    /// Wet asphalt.
    #[serde(default)]
    pub wet: SurfaceOverrides,
}

/// A surface value out of range: the dotted field and what is expected.
pub(crate) type SurfaceProblem = (String, String);

impl SurfaceTable {
    /// The five surfaces (indexed by `SurfaceKind as usize`) with the overrides applied and
    /// prepared, or the first value out of range.
    pub(crate) fn surfaces(&self) -> Result<[Surface; 5], SurfaceProblem> {
        let entries = [
            ("asphalt", SurfaceKind::Asphalt, &self.asphalt),
            ("kerb", SurfaceKind::Kerb, &self.kerb),
            ("grass", SurfaceKind::Grass, &self.grass),
            ("gravel", SurfaceKind::Gravel, &self.gravel),
            ("wet", SurfaceKind::Wet, &self.wet),
        ];
        let mut out = [Surface::ASPHALT; 5];
        for (name, kind, overrides) in entries {
            out[kind as usize] = overrides.apply(name, Surface::of(kind))?;
        }
        Ok(out)
    }
}

impl SurfaceOverrides {
    fn apply(&self, name: &str, mut s: Surface) -> Result<Surface, SurfaceProblem> {
        let field = |key: &str| format!("surface.{name}.{key}");
        let check = |key: &str, value: Option<f64>, lo: f64, hi: f64, unit: &str| match value {
            Some(v) if !(v.is_finite() && v >= lo && v <= hi) => {
                Err((field(key), format!("got {v}, expected {lo} to {hi} {unit}")))
            }
            _ => Ok(value),
        };
        let set = |target: &mut f64, value: Option<f64>| {
            if let Some(v) = value {
                *target = v;
            }
        };
        set(
            &mut s.grip_scale,
            check("grip_scale", self.grip_scale, 0.05, 2.0, "(asphalt 1.0)")?,
        );
        set(
            &mut s.microtexture_mm,
            check("microtexture_mm", self.microtexture_mm, 0.0, 0.5, "mm")?,
        );
        set(
            &mut s.macrotexture_mm,
            check("macrotexture_mm", self.macrotexture_mm, 0.0, 20.0, "mm")?,
        );
        set(
            &mut s.water_film_mm,
            check("water_film_mm", self.water_film_mm, 0.0, 50.0, "mm")?,
        );
        set(
            &mut s.rolling_resistance,
            check("rolling_resistance", self.rolling_resistance, 0.0, 0.5, "")?,
        );
        set(
            &mut s.roughness_m,
            check("roughness_m", self.roughness_m, 0.0, 0.1, "m")?,
        );
        if let Some(deformable) = self.deformable {
            s.deformable = deformable;
            if !deformable {
                (s.peak_slip_scale, s.relaxation_length_scale) = (1.0, 1.0);
            }
        }
        for (key, value, target) in [
            (
                "peak_slip_scale",
                self.peak_slip_scale,
                &mut s.peak_slip_scale,
            ),
            (
                "relaxation_length_scale",
                self.relaxation_length_scale,
                &mut s.relaxation_length_scale,
            ),
        ] {
            if value.is_some() && !s.deformable {
                return Err((
                    field(key),
                    format!("only a deformable surface stretches the tyre: set surface.{name}.deformable = true or remove {key}"),
                ));
            }
            set(target, check(key, value, 1.0, 5.0, "(1 on rigid ground)")?);
        }
        Ok(s.prepared())
    }
}
