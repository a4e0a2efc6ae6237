//! The tyre: Magic Formula 6.1 forces ([`mf61`]) driven by first-order slip states
//! (relaxation lengths), plus the tyre's vertical spring, rolling resistance and grip scale,
//! and its temperature, pressure and wear ([`thermal`]).
//!
//! Front and rear may differ: `[tyre]` is the tyre of both axles unless `[tyre.front]` or
//! `[tyre.rear]` names another coefficient set (and grip scales) for that axle. The four
//! wheels are still evaluated side by side: with one set, once; with two, each set over the
//! four lanes, the front lanes taken from the first and the rear lanes from the second.
//!
//! Slip states (why): the kinematic slips `(omega r - vx) / |vx|` and `vy / |vx|` are singular
//! at standstill and make the wheel spin stiff (1/v). Here each wheel carries carcass
//! deflections `u_x`, `u_y` (m) with `du/dt = slip velocity - |vx| u / sigma`; the slips fed
//! to the MF are `u / sigma`, which equal the kinematic slips in steady state and become a
//! damped spring at standstill, so a parked car neither creeps nor jitters. Below
//! [`LOW_SPEED_FADE_MPS`] a damping term `tau du/dt` (critically damping the tyre spring
//! against the corner's mass) is added; it vanishes in steady state.
//! Units: m, m/s, rad, N, N m.

pub mod mf61;
pub mod thermal;
pub mod tir;

use crate::data::{invalid, DataError};
use crate::math::F64x4;
use mf61::{GripScale, Mf61, PreparedMf61, TyreForces, PACEJKA_2006_205_60R15};
use serde::Deserialize;
use thermal::{ThermalModel, ThermalSpec};

/// Speed below which the low-speed slip damping is active (fading linearly to 0 here), m/s.
pub const LOW_SPEED_FADE_MPS: f64 = 5.0;
/// Largest longitudinal slip the carcass deflection can represent (full sliding).
const MAX_SLIP_RATIO: f64 = 1.5;
/// Largest tan(slip angle) the carcass deflection can represent.
const MAX_TAN_SLIP_ANGLE: f64 = 1.5;
/// FZMAX as a multiple of the nominal load: the Magic Formula is evaluated at no more than this
/// (its fits hold to ~2-3 FNOMIN; far beyond, the lateral peak mu of the 205/60R15 set changes
/// sign near 7.8 FNOMIN). Also the load at which the tyre bottoms on its rim.
pub const FZ_MAX_NOMINAL_LOADS: f64 = 3.0;
/// Rim (bottomed tyre) stiffness as a multiple of the tyre's radial stiffness.
pub const RIM_STIFFNESS_FACTOR: f64 = 10.0;
/// Rim damping, fraction of critical against a quarter of the car's mass (compression only).
pub const RIM_DAMPING_RATIO: f64 = 0.2;

/// Names of the built-in MF coefficient sets.
pub const COEFFICIENT_SETS: &[&str] = &["pacejka2006_205_60r15"];

/// The built-in set as a property file (the same numbers as [`PACEJKA_2006_205_60R15`]; a
/// test holds the two together).
pub const BUILTIN_TIR: &str = include_str!("../../data/tyres/pacejka2006_205_60r15.tir");

/// The `[tyre]` table of a car document: the tyre of all four wheels, unless `front` or
/// `rear` gives an axle its own coefficient set.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TyreSpec {
    /// Built-in MF coefficient set (see [`COEFFICIENT_SETS`]) or the path of a `.tir`
    /// property file (relative to the car file), read by [`TyreSpec::resolve`].
    pub coefficients: String,
    /// The text of the `.tir` file `coefficients` names, used instead of reading the file
    /// (what [`embed_property_files`] writes, so a recorded car rebuilds without its files).
    #[serde(default)]
    pub tir_text: Option<String>,
    /// Unloaded radius, m.
    pub unloaded_radius_m: f64,
    /// Radial (vertical) stiffness, N/m.
    pub vertical_stiffness_n_per_m: f64,
    /// Radial damping, N s/m.
    pub vertical_damping_ns_per_m: f64,
    /// Longitudinal relaxation length, m.
    pub relaxation_length_long_m: f64,
    /// Lateral relaxation length, m.
    pub relaxation_length_lat_m: f64,
    /// Rolling resistance coefficient (torque = coefficient x load x radius).
    pub rolling_resistance: f64,
    /// Longitudinal friction scale on the coefficient set (MF lambda_mu_x).
    #[serde(default = "one")]
    pub grip_scale_long: f64,
    /// Lateral friction scale on the coefficient set (MF lambda_mu_y).
    #[serde(default = "one")]
    pub grip_scale_lat: f64,
    /// Spin inertia of wheel, tyre, hub and brake disc, kg m^2.
    pub spin_inertia_kgm2: f64,
    /// The coefficient set `coefficients` names (filled by [`TyreSpec::resolve`]).
    #[serde(skip, default = "builtin_set")]
    pub set: Mf61,
    /// The set's own friction scales (a `.tir` file's LMUX, LMUY; 1 for built-in sets).
    #[serde(skip, default = "unity_grip")]
    pub set_grip: GripScale,
    /// `[tyre.front]`: the front axle's own coefficient set (default: this table's).
    #[serde(default)]
    pub front: Option<AxleTyreSpec>,
    /// `[tyre.rear]`: the rear axle's own coefficient set (default: this table's).
    #[serde(default)]
    pub rear: Option<AxleTyreSpec>,
    /// `[tyre.thermal]`: temperature, pressure and wear of every tyre.
    #[serde(default)]
    pub thermal: ThermalSpec,
}

/// `[tyre.front]` or `[tyre.rear]`: an axle whose tyre differs from `[tyre]`'s in its
/// coefficient set and grip scales (size, stiffness, relaxation, inertia and thermal data
/// stay `[tyre]`'s).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxleTyreSpec {
    /// Built-in MF coefficient set or the path of a `.tir` file (relative to the car file).
    pub coefficients: String,
    /// The text of that `.tir` file, used instead of reading it (see [`TyreSpec::tir_text`]).
    #[serde(default)]
    pub tir_text: Option<String>,
    /// Longitudinal friction scale (default: `[tyre]`'s `grip_scale_long`).
    pub grip_scale_long: Option<f64>,
    /// Lateral friction scale (default: `[tyre]`'s `grip_scale_lat`).
    pub grip_scale_lat: Option<f64>,
    /// The coefficient set `coefficients` names (filled by [`TyreSpec::resolve`]).
    #[serde(skip, default = "builtin_set")]
    pub set: Mf61,
    /// The set's own friction scales.
    #[serde(skip, default = "unity_grip")]
    pub set_grip: GripScale,
}

fn one() -> f64 {
    1.0
}

fn builtin_set() -> Mf61 {
    PACEJKA_2006_205_60R15
}

fn unity_grip() -> GripScale {
    GripScale::UNITY
}

/// Whether `coefficients` names a property file rather than a built-in set.
fn is_tir_path(coefficients: &str) -> bool {
    coefficients.to_ascii_lowercase().ends_with(".tir")
}

/// The error for a `coefficients` value that is neither a built-in set nor a `.tir` path.
fn unknown_set(coefficients: &str, table: &str, text: &str, origin: &str) -> DataError {
    invalid(
        text,
        origin,
        &format!("{table}.coefficients"),
        format!(
            "unknown coefficient set '{coefficients}'; expected one of {COEFFICIENT_SETS:?} or \
             the path of a .tir property file"
        ),
    )
}

/// Where the `.tir` path `coefficients` of a car document from `origin` points: relative
/// paths are taken from the car file's directory.
fn tir_path(coefficients: &str, origin: &str) -> std::path::PathBuf {
    let path = std::path::Path::new(coefficients);
    match std::path::Path::new(origin).parent() {
        Some(dir) if !origin.starts_with("builtin:") && path.is_relative() => dir.join(path),
        _ => path.to_path_buf(),
    }
}

/// Reads the `.tir` file at `path` that table `table` of the car document names.
fn read_tir(
    path: &std::path::Path,
    table: &str,
    text: &str,
    origin: &str,
) -> Result<String, DataError> {
    std::fs::read_to_string(path).map_err(|err| {
        invalid(
            text,
            origin,
            &format!("{table}.coefficients"),
            format!(
                "cannot read the tyre property file {}: {err}; check the path (relative to the car file)",
                path.display()
            ),
        )
    })
}

/// Loads the set `coefficients` of table `table` names (see [`TyreSpec::resolve`]), from
/// `embedded` (the table's `tir_text`) when given.
fn load_set(
    coefficients: &str,
    embedded: Option<&str>,
    table: &str,
    text: &str,
    origin: &str,
) -> Result<(Mf61, GripScale), DataError> {
    if !is_tir_path(coefficients) {
        if !COEFFICIENT_SETS.contains(&coefficients) {
            return Err(unknown_set(coefficients, table, text, origin));
        }
        return Ok((PACEJKA_2006_205_60R15, GripScale::UNITY));
    }
    let path = tir_path(coefficients, origin);
    if let Some(tir_text) = embedded {
        let tyre = tir::parse(tir_text, &format!("{} (embedded)", path.display()))?;
        return Ok((tyre.mf, tyre.grip));
    }
    let tir_text = read_tir(&path, table, text, origin)?;
    let tyre = tir::parse(&tir_text, &path.display().to_string())?;
    Ok((tyre.mf, tyre.grip))
}

/// The car document `text` (read from `origin`) with the text of every `.tir` file its
/// `[tyre]`, `[tyre.front]` and `[tyre.rear]` tables name added to that table as `tir_text`,
/// so the car can be rebuilt where the files are not (what a replay records). `text` comes
/// back unchanged when no table names a file; otherwise the document is written out again by
/// the TOML library (same values, its own layout, comments dropped). A file that cannot be
/// read is the error [`CarSpec::from_toml`](crate::CarSpec::from_toml) would give.
pub fn embed_property_files(text: &str, origin: &str) -> Result<String, DataError> {
    let mut document: toml::Table = crate::data::parse_toml(text, origin)?;
    let Some(toml::Value::Table(tyre)) = document.get_mut("tyre") else {
        return Ok(text.to_string());
    };
    let mut embedded = false;
    let mut embed = |table: &mut toml::Table, name: &str| -> Result<(), DataError> {
        let Some(toml::Value::String(coefficients)) = table.get("coefficients") else {
            return Ok(());
        };
        if !is_tir_path(coefficients) || table.contains_key("tir_text") {
            return Ok(());
        }
        let path = tir_path(coefficients, origin);
        let tir_text = read_tir(&path, name, text, origin)?;
        table.insert("tir_text".into(), toml::Value::String(tir_text));
        embedded = true;
        Ok(())
    };
    embed(tyre, "tyre")?;
    for axle in ["front", "rear"] {
        if let Some(toml::Value::Table(table)) = tyre.get_mut(axle) {
            embed(table, &format!("tyre.{axle}"))?;
        }
    }
    if !embedded {
        return Ok(text.to_string());
    }
    toml::to_string(&document).map_err(|err| {
        invalid(
            text,
            origin,
            "tyre",
            format!("cannot write the car document with its tyre files embedded: {err}"),
        )
    })
}

impl TyreSpec {
    /// Loads the coefficient sets `coefficients` (and each axle table's) name: a built-in
    /// set, or a `.tir` file whose path is taken relative to the directory of the car file
    /// `origin` (errors in the file carry its own path and line), or the file's text the table
    /// holds as `tir_text`.
    pub fn resolve(&mut self, text: &str, origin: &str) -> Result<(), DataError> {
        let embedded = self.tir_text.as_deref();
        (self.set, self.set_grip) = load_set(&self.coefficients, embedded, "tyre", text, origin)?;
        for (axle, name) in [
            (&mut self.front, "tyre.front"),
            (&mut self.rear, "tyre.rear"),
        ] {
            if let Some(axle) = axle {
                let embedded = axle.tir_text.as_deref();
                (axle.set, axle.set_grip) =
                    load_set(&axle.coefficients, embedded, name, text, origin)?;
            }
        }
        Ok(())
    }

    /// Checks ranges; `text`/`origin` locate errors.
    pub fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        let sets = [
            ("tyre", &self.coefficients),
            ("tyre.front", &self.axle_coefficients(0)),
            ("tyre.rear", &self.axle_coefficients(1)),
        ];
        for (table, coefficients) in sets {
            if !is_tir_path(coefficients) && !COEFFICIENT_SETS.contains(&coefficients.as_str()) {
                return Err(unknown_set(coefficients, table, text, origin));
            }
        }
        for (axle, table) in [(&self.front, "tyre.front"), (&self.rear, "tyre.rear")] {
            let Some(axle) = axle else { continue };
            for (name, scale) in [
                ("grip_scale_long", axle.grip_scale_long),
                ("grip_scale_lat", axle.grip_scale_lat),
            ] {
                if let Some(scale) = scale {
                    let field = format!("{table}.{name}");
                    crate::spec::check_range(text, origin, &field, scale, 0.05, 5.0)?;
                }
            }
        }
        self.thermal.validate(text, origin)?;
        let positive = [
            ("tyre.unloaded_radius_m", self.unloaded_radius_m, 0.05, 1.5),
            (
                "tyre.vertical_stiffness_n_per_m",
                self.vertical_stiffness_n_per_m,
                1e4,
                5e6,
            ),
            (
                "tyre.relaxation_length_long_m",
                self.relaxation_length_long_m,
                0.01,
                3.0,
            ),
            (
                "tyre.relaxation_length_lat_m",
                self.relaxation_length_lat_m,
                0.01,
                3.0,
            ),
            ("tyre.grip_scale_long", self.grip_scale_long, 0.05, 5.0),
            ("tyre.grip_scale_lat", self.grip_scale_lat, 0.05, 5.0),
            ("tyre.spin_inertia_kgm2", self.spin_inertia_kgm2, 0.01, 50.0),
        ];
        for (field, value, lo, hi) in positive {
            crate::spec::check_range(text, origin, field, value, lo, hi)?;
        }
        crate::spec::check_range(
            text,
            origin,
            "tyre.vertical_damping_ns_per_m",
            self.vertical_damping_ns_per_m,
            0.0,
            1e5,
        )?;
        crate::spec::check_range(
            text,
            origin,
            "tyre.rolling_resistance",
            self.rolling_resistance,
            0.0,
            0.2,
        )?;
        Ok(())
    }

    /// The MF coefficient set named by `coefficients` (as resolved).
    pub fn mf(&self) -> Mf61 {
        self.set
    }

    fn axle(&self, axle: usize) -> Option<&AxleTyreSpec> {
        [&self.front, &self.rear][axle].as_ref()
    }

    fn axle_coefficients(&self, axle: usize) -> String {
        self.axle(axle)
            .map_or_else(|| self.coefficients.clone(), |a| a.coefficients.clone())
    }

    /// The MF coefficient set of axle `axle` (0 front, 1 rear), as resolved.
    pub fn axle_mf(&self, axle: usize) -> Mf61 {
        self.axle(axle).map_or(self.set, |a| a.set)
    }

    /// The friction scales of axle `axle` (0 front, 1 rear): the car file's grip scales
    /// times the set's own.
    pub fn axle_grip(&self, axle: usize) -> GripScale {
        let (long, lat, set) = match self.axle(axle) {
            Some(a) => (
                a.grip_scale_long.unwrap_or(self.grip_scale_long),
                a.grip_scale_lat.unwrap_or(self.grip_scale_lat),
                a.set_grip,
            ),
            None => (self.grip_scale_long, self.grip_scale_lat, self.set_grip),
        };
        GripScale {
            mu_x: long * set.mu_x,
            mu_y: lat * set.mu_y,
        }
    }
}

/// What an axle's coefficient set decides besides its forces: the friction scales, the
/// low-speed slip damping (from the set's slip stiffnesses), FZMAX (from its FNOMIN) and the
/// deflection at which the tyre bottoms on its rim there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxleTyre {
    /// The axle's Magic Formula coefficients.
    pub mf: Mf61,
    /// The axle's friction scales (the car file's times the set's own).
    pub grip: GripScale,
    /// Low-speed damping times (long, lat) at standstill, s.
    pub low_speed_tau_s: [f64; 2],
    /// Largest load the Magic Formula is evaluated at (FZMAX), N.
    pub fz_max_n: f64,
    /// Radial deflection at which the tyre bottoms on its rim (where its spring carries
    /// FZMAX), m.
    pub max_deflection_m: f64,
}

/// The tyre model of one car, built from its spec: one tyre for the four wheels, except the
/// coefficient set and what follows from it (friction scales, low-speed damping, FZMAX),
/// which may differ between the axles.
#[derive(Debug, Clone)]
pub struct Tyre {
    /// Magic Formula coefficients of the front axle (of all four wheels unless `rear_mf`).
    pub mf: Mf61,
    /// `mf` prepared for evaluation (what [`Tyre::forces`] uses; built by [`Tyre::new`]).
    pub prepared_mf: PreparedMf61,
    /// The rear axle's set, prepared, when it differs from the front's.
    pub rear_mf: Option<PreparedMf61>,
    /// Per axle (0 front, 1 rear): its set and what follows from it.
    pub axles: [AxleTyre; 2],
    /// Friction scales per wheel lane (FL FR RL RR): longitudinal, lateral.
    pub lane_grip: [F64x4; 2],
    /// Temperature, pressure and wear model (the same for the four tyres).
    pub thermal: ThermalModel,
    /// Unloaded radius, m.
    pub radius_m: f64,
    /// Radial stiffness, N/m.
    pub vertical_stiffness: f64,
    /// Radial damping, N s/m.
    pub vertical_damping: f64,
    /// Relaxation lengths (long, lat), m.
    pub sigma_m: [f64; 2],
    /// Their reciprocals (long, lat), 1/m (the slip states multiply by them every step).
    pub inv_sigma_per_m: [f64; 2],
    /// Rolling resistance coefficient.
    pub rolling_resistance: f64,
    /// Spin inertia, kg m^2.
    pub spin_inertia: f64,
    /// Rim contact stiffness beyond an axle's `max_deflection_m`, N/m.
    pub rim_stiffness: f64,
    /// Rim contact damping while compressing, N s/m.
    pub rim_damping: f64,
}

impl Tyre {
    /// Builds the tyre; `static_load_n` (a typical corner load) and `corner_mass_kg` set the
    /// low-speed damping so the standstill tyre spring is critically damped (each axle with
    /// its own set's slip stiffnesses).
    pub fn new(spec: &TyreSpec, static_load_n: f64, corner_mass_kg: f64) -> Tyre {
        let sigma = [spec.relaxation_length_long_m, spec.relaxation_length_lat_m];
        let axles = [0, 1].map(|axle| {
            let mf = spec.axle_mf(axle);
            let stiffness = [
                mf.long_slip_stiffness(static_load_n).abs(),
                mf.cornering_stiffness(static_load_n).abs(),
            ];
            // Spring rate at standstill is K / sigma; critical damping c = 2 sqrt(k m) =
            // K tau / sigma.
            let tau = |i: usize| 2.0 * (corner_mass_kg * sigma[i] / stiffness[i].max(1.0)).sqrt();
            let fz_max_n = FZ_MAX_NOMINAL_LOADS * mf.fnomin;
            AxleTyre {
                mf,
                grip: spec.axle_grip(axle),
                low_speed_tau_s: [tau(0), tau(1)],
                fz_max_n,
                max_deflection_m: fz_max_n / spec.vertical_stiffness_n_per_m,
            }
        });
        let [front, rear] = axles;
        let rim_stiffness = RIM_STIFFNESS_FACTOR * spec.vertical_stiffness_n_per_m;
        Tyre {
            mf: front.mf,
            prepared_mf: front.mf.prepare(),
            rear_mf: (rear.mf != front.mf).then(|| rear.mf.prepare()),
            axles,
            lane_grip: [
                F64x4::from_array([
                    front.grip.mu_x,
                    front.grip.mu_x,
                    rear.grip.mu_x,
                    rear.grip.mu_x,
                ]),
                F64x4::from_array([
                    front.grip.mu_y,
                    front.grip.mu_y,
                    rear.grip.mu_y,
                    rear.grip.mu_y,
                ]),
            ],
            thermal: ThermalModel::new(&spec.thermal),
            radius_m: spec.unloaded_radius_m,
            vertical_stiffness: spec.vertical_stiffness_n_per_m,
            vertical_damping: spec.vertical_damping_ns_per_m,
            sigma_m: sigma,
            inv_sigma_per_m: [1.0 / sigma[0], 1.0 / sigma[1]],
            rolling_resistance: spec.rolling_resistance,
            spin_inertia: spec.spin_inertia_kgm2,
            rim_stiffness,
            rim_damping: 2.0 * RIM_DAMPING_RATIO * (rim_stiffness * corner_mass_kg).sqrt(),
        }
    }

    /// The prepared coefficient set of axle `axle` (0 front, 1 rear).
    pub fn axle_prepared_mf(&self, axle: usize) -> &PreparedMf61 {
        match (&self.rear_mf, axle) {
            (Some(rear), 1) => rear,
            _ => &self.prepared_mf,
        }
    }

    /// Radial load of a tyre on axle `axle` at `deflection_m` (> 0) compressing at
    /// `rate_mps`, N (never pulls). Past the axle's `max_deflection_m` the tyre has bottomed: its spring stays at FZMAX and the stiffer rim
    /// contact, damped while compressing only (it dissipates, never adds energy), takes the
    /// rest, so a wheel cannot sink through the ground.
    #[inline]
    pub fn radial_load(&self, axle: usize, deflection_m: f64, rate_mps: f64) -> f64 {
        self.radial_load_scaled(axle, deflection_m, rate_mps, 1.0)
    }

    /// [`Tyre::radial_load`] with the tyre's spring scaled by `stiffness_scale` (its
    /// inflation pressure, [`thermal::TyreCondition::stiffness_scale`]); the rim is not.
    #[inline]
    pub fn radial_load_scaled(
        &self,
        axle: usize,
        deflection_m: f64,
        rate_mps: f64,
        stiffness_scale: f64,
    ) -> f64 {
        let max_deflection_m = self.axles[axle].max_deflection_m;
        let spring = self.vertical_stiffness * stiffness_scale;
        let tyre = spring * deflection_m.min(max_deflection_m) + self.vertical_damping * rate_mps;
        let bottomed = deflection_m - max_deflection_m;
        let rim = if bottomed > 0.0 {
            self.rim_stiffness * bottomed + self.rim_damping * rate_mps.max(0.0)
        } else {
            0.0
        };
        (tyre + rim).max(0.0)
    }

    /// Forces of the front tyre at the given slips, load (evaluated at no more than FZMAX) and
    /// surface grip. One operating point in every lane of [`Tyre::forces4`].
    pub fn forces(&self, kappa: f64, alpha: f64, fz_n: f64, surface_grip: f64) -> TyreForces {
        let [forces, ..] = self.forces4(
            [kappa; 4],
            [alpha; 4],
            [0.0; 4],
            [fz_n; 4],
            [surface_grip; 4],
        );
        forces
    }

    /// [`Tyre::forces`] for the four wheels at once (lane i is wheel i: slip ratio, alpha*,
    /// inclination angle (ISO, rad), load, surface grip), evaluated side by side
    /// ([`PreparedMf61::combined4_cambered`]); with a rear set of its own, both sets are
    /// evaluated over the four lanes and each axle takes its own (each at no more than its
    /// own FZMAX). A wheel without load gets zero forces.
    pub fn forces4(
        &self,
        kappa: [f64; 4],
        alpha: [f64; 4],
        gamma: [f64; 4],
        fz_n: [f64; 4],
        surface_grip: [f64; 4],
    ) -> [TyreForces; 4] {
        let grip = F64x4::from_array(surface_grip);
        let [mu_x, mu_y] = self.lane_grip;
        let (kappa, alpha, gamma) = (
            F64x4::from_array(kappa),
            F64x4::from_array(alpha),
            F64x4::from_array(gamma),
        );
        let fz_n = F64x4::from_array(fz_n);
        let fz = fz_n.min(self.axles[0].fz_max_n);
        let (mu_x, mu_y) = (grip * mu_x, grip * mu_y);
        let front = self
            .prepared_mf
            .combined4_cambered(kappa, alpha, gamma, fz, mu_x, mu_y);
        match &self.rear_mf {
            None => front,
            Some(rear_mf) => {
                let fz = fz_n.min(self.axles[1].fz_max_n);
                let rear = rear_mf.combined4_cambered(kappa, alpha, gamma, fz, mu_x, mu_y);
                [front[0], front[1], rear[2], rear[3]]
            }
        }
    }
}

/// One wheel's carcass deflections, m.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SlipState {
    /// Longitudinal deflection, m.
    pub u_x: f64,
    /// Lateral deflection, m.
    pub u_y: f64,
}

/// The slips of one step as an affine function of the wheel's new spin rate.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SlipPrediction {
    /// Effective slip ratio if the wheel kept its current spin rate.
    pub kappa_at_omega0: f64,
    /// d(effective slip ratio)/d(omega), s/rad (>= 0).
    pub dkappa_domega: f64,
    /// Effective slip angle (tan), rad.
    pub alpha: f64,
    /// 1 / (1 + dt |vx| / sigma) (long, lat): the implicit decay of the deflections this step,
    /// shared by [`SlipState::commit`].
    pub decay: [f64; 2],
    /// The new lateral deflection (it does not depend on the spin rate), m.
    pub u_y: f64,
}

impl SlipState {
    fn fade(vx_abs: f64) -> f64 {
        (1.0 - vx_abs / LOW_SPEED_FADE_MPS).max(0.0)
    }

    /// Slips for this step of a tyre on axle `axle` given the contact-patch velocity
    /// (`[vx, vy]`: forward, left, m/s), the spin rate `omega0` and rolling radius at the start
    /// of the step.
    #[inline]
    pub fn predict(
        &self,
        tyre: &Tyre,
        axle: usize,
        [vx, vy]: [f64; 2],
        omega0: f64,
        radius_m: f64,
        dt_s: f64,
    ) -> SlipPrediction {
        let vx_abs = vx.abs();
        let fade = Self::fade(vx_abs);
        let [sx, sy] = tyre.sigma_m;
        let [inv_sx, inv_sy] = tyre.inv_sigma_per_m;
        let [tau_x, tau_y] = tyre.axles[axle].low_speed_tau_s;
        // Reciprocals once (this runs for every wheel every step; divisions are the slow
        // part of it). The damping terms are zero above the fade speed.
        let fade_rate = if fade > 0.0 { fade / dt_s } else { 0.0 };
        let decay_dt = dt_s * vx_abs;
        // Longitudinal: u_new(omega) = (u + dt (omega r - vx)) / (1 + dt |vx| / sigma).
        let decay_x = 1.0 / (1.0 + decay_dt * inv_sx);
        let damp_x = fade_rate * tau_x;
        let gain_x = (1.0 + damp_x) * inv_sx;
        let u_x_free = (self.u_x + dt_s * (omega0 * radius_m - vx)) * decay_x;
        let u_x0 = Self::clamp_u(u_x_free, sx * MAX_SLIP_RATIO);
        let kappa0 = gain_x * u_x0 - damp_x * self.u_x * inv_sx;
        let clamped = u_x_free != u_x0;
        let dkappa = if clamped {
            0.0
        } else {
            gain_x * dt_s * radius_m * decay_x
        };
        // Lateral.
        let decay_y = 1.0 / (1.0 + decay_dt * inv_sy);
        let u_y1 = Self::clamp_u((self.u_y + dt_s * vy) * decay_y, sy * MAX_TAN_SLIP_ANGLE);
        let damp_y = fade_rate * tau_y;
        let alpha = (u_y1 * (1.0 + damp_y) - damp_y * self.u_y) * inv_sy;
        SlipPrediction {
            kappa_at_omega0: kappa0,
            dkappa_domega: dkappa,
            alpha,
            decay: [decay_x, decay_y],
            u_y: u_y1,
        }
    }

    fn clamp_u(u: f64, limit: f64) -> f64 {
        u.clamp(-limit, limit)
    }

    /// Advances the deflections with the wheel's new spin rate `omega1`, from this step's
    /// `prediction` (same kinematics as [`SlipState::predict`]).
    pub fn commit(
        &mut self,
        tyre: &Tyre,
        prediction: &SlipPrediction,
        vx: f64,
        omega1: f64,
        radius_m: f64,
        dt_s: f64,
    ) {
        let u_x = (self.u_x + dt_s * (omega1 * radius_m - vx)) * prediction.decay[0];
        self.u_x = Self::clamp_u(u_x, tyre.sigma_m[0] * MAX_SLIP_RATIO);
        self.u_y = prediction.u_y;
    }
}
