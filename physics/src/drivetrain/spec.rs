//! The `[drivetrain]` table of a car document: engine, clutch, gearbox, layout and
//! differentials, with the range checks that turn a parsed table into a usable one.
//!
//! Units are in the field names (`_nm`, `_rpm`, `_kgm2`, `_s`, `_deg`, `_mps`); ratios and
//! fractions are dimensionless. Every table denies unknown fields so a typo is an error, not a
//! silently ignored setting. [`DrivetrainSpec::validate`] reports the first problem with the
//! dotted field path, the line where it sits and the range that would be accepted.

use crate::data::{invalid, DataError};
use serde::Deserialize;

/// The `[drivetrain]` table of a car document.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrivetrainSpec {
    /// Which wheels the engine drives.
    pub layout: Layout,
    /// AWD only: share of the centre differential's input torque sent to the front axle
    /// (0 < f < 1; 0.5 is an even split). Must be absent for RWD and FWD.
    #[serde(default)]
    pub front_torque_fraction: Option<f64>,
    /// The engine.
    pub engine: EngineSpec,
    /// The clutch between engine and gearbox.
    pub clutch: ClutchSpec,
    /// The gearbox and final drive.
    pub gearbox: GearboxSpec,
    /// Front axle differential (FWD and AWD).
    #[serde(default)]
    pub front_differential: Option<DifferentialSpec>,
    /// Rear axle differential (RWD and AWD).
    #[serde(default)]
    pub rear_differential: Option<DifferentialSpec>,
    /// Centre differential between the front and rear axles (AWD only).
    #[serde(default)]
    pub centre_differential: Option<DifferentialSpec>,
}

/// Which wheels are driven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Rear-wheel drive through the rear differential.
    Rwd,
    /// Front-wheel drive through the front differential.
    Fwd,
    /// All-wheel drive: centre differential feeding the front and rear differentials.
    Awd,
}

/// The `[drivetrain.engine]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// Engine speeds of the torque curve, rpm, strictly increasing.
    pub torque_curve_rpm: Vec<f64>,
    /// Full-throttle net crank torque at each speed (what a dyno measures), N m.
    pub torque_curve_nm: Vec<f64>,
    /// Rotating inertia of crank, flywheel and clutch, kg m^2.
    pub inertia_kgm2: f64,
    /// Speed the idle control holds with the throttle closed, rpm.
    pub idle_rpm: f64,
    /// A running engine below this speed stalls; a turning one above it with the ignition on
    /// fires (starter or bump start), rpm.
    pub stall_rpm: f64,
    /// Rev limiter: combustion torque fades to zero over the last
    /// [`crate::drivetrain::engine::LIMITER_BAND_RPM`] below this speed, rpm.
    pub rev_limit_rpm: f64,
    /// Internal friction, constant part, N m (always opposes rotation).
    pub friction_nm: f64,
    /// Internal friction growing with speed, N m per 1000 rpm.
    pub friction_nm_per_krpm: f64,
    /// Extra pumping drag with the throttle closed (engine braking), N m per 1000 rpm.
    pub engine_brake_nm_per_krpm: f64,
    /// Starter motor torque at the crank, N m.
    pub starter_torque_nm: f64,
    /// Speed at which the starter's torque has fallen to zero, rpm (above `stall_rpm`).
    pub starter_max_rpm: f64,
}

/// The `[drivetrain.clutch]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClutchSpec {
    /// Torque the fully engaged clutch can transmit before slipping, N m. The pedal scales it
    /// linearly (released 1, pressed 0).
    pub max_torque_nm: f64,
    /// Optional automatic (centrifugal) clutch: capacity grows from zero at idle to full at
    /// this engine speed, so the car cannot stall at rest and launches by slipping. rpm.
    #[serde(default)]
    pub auto_engage_rpm: Option<f64>,
}

/// How the driver selects gears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShiftMode {
    /// One gear at a time (paddles or a sequential lever): R <-> N <-> 1 <-> 2 ...
    Sequential,
    /// Any gear from any gear through the gate.
    HPattern,
}

/// The `[drivetrain.gearbox]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GearboxSpec {
    /// Sequential or H-pattern.
    pub mode: ShiftMode,
    /// Forward gear ratios, first gear first (engine turns per gearbox output turn, > 0).
    pub forward_ratios: Vec<f64>,
    /// Reverse gear ratio as a positive number (the direction is applied by the gearbox).
    pub reverse_ratio: f64,
    /// Final drive ratio (gearbox output turns per wheel turn), > 0.
    pub final_drive_ratio: f64,
    /// Mechanical efficiency of gearbox and final drive together, 0.5 ..= 1.
    pub efficiency: f64,
    /// Time the gearbox transmits no torque while changing gear, s.
    pub shift_time_s: f64,
    /// Gear changes (other than to neutral) are refused unless the clutch pedal is pressed.
    pub requires_clutch: bool,
    /// Reverse is refused while the driven wheels roll faster than this, m/s (walking pace).
    pub reverse_max_speed_mps: f64,
}

/// One differential. `kind` selects the type; each type takes only its own fields.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DifferentialSpec {
    /// Open: equal torque to both outputs, speeds free. (Braced so serde rejects stray
    /// fields: unit variants of a tagged enum would ignore them.)
    Open {},
    /// Spool (welded): both outputs turn together whatever the torques.
    Spool {},
    /// Viscous coupling: transfers `coefficient x speed difference` from fast to slow.
    Viscous {
        /// Transfer torque per rad/s of output speed difference, N m s/rad.
        coefficient_nm_s_per_rad: f64,
    },
    /// Clutch-pack limited slip: preload plus a torque bias ratio on power; the coast ratio
    /// follows from `ways` (1: no coast locking, 1.5: half, 2: same as power).
    ClutchLsd {
        /// Spring preload of the clutch pack, as a sustainable output torque difference, N m.
        preload_nm: f64,
        /// Torque bias ratio (high/low output torque) held on power, >= 1.
        power_bias_ratio: f64,
        /// 1, 1.5 or 2.
        ways: f64,
    },
    /// Salisbury (ramp and clutch) LSD as in Grand Prix Legends: bias ratio =
    /// cos(ramp angle) x (1 + clutches), at least 1.
    Salisbury {
        /// Spring preload, as a sustainable output torque difference, N m.
        preload_nm: f64,
        /// Ramp angle on power, degrees (lower locks more), 0 ..< 90.
        power_ramp_deg: f64,
        /// Ramp angle on coast, degrees, 0 ..< 90.
        coast_ramp_deg: f64,
        /// Friction clutches counted as GPL counts them: one clutch pack has two, so
        /// `1 + clutches = 1 + 2 x packs` (GPL "60/30/2" is one pack).
        clutches: u32,
    },
    /// Torque-sensing (Torsen-like): the high output may carry up to `bias_ratio` times the low
    /// one.
    TorqueBias {
        /// Torque bias ratio on power, >= 1.
        bias_ratio: f64,
        /// Torque bias ratio on coast, >= 1 (defaults to `bias_ratio`).
        #[serde(default)]
        coast_bias_ratio: Option<f64>,
        /// Optional preload, N m (default 0).
        #[serde(default)]
        preload_nm: f64,
    },
}

impl DrivetrainSpec {
    /// Checks ranges and the layout's consistency. `text` and `origin` are the car document
    /// and its name, used to point the error at the offending line.
    pub fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        let err = |field: &str, msg: String| Err(invalid(text, origin, field, msg));
        let diffs = [
            ("front_differential", &self.front_differential),
            ("rear_differential", &self.rear_differential),
            ("centre_differential", &self.centre_differential),
        ];
        let wanted: [bool; 3] = match self.layout {
            Layout::Rwd => [false, true, false],
            Layout::Fwd => [true, false, false],
            Layout::Awd => [true, true, true],
        };
        for ((name, diff), want) in diffs.iter().zip(wanted) {
            let field = format!("drivetrain.{name}");
            match (diff, want) {
                (None, true) => {
                    return err(
                        "drivetrain.layout",
                        format!(
                            "layout {:?} needs a [{field}] table; add one (e.g. kind = \"open\")",
                            self.layout
                        ),
                    )
                }
                (Some(_), false) => {
                    return err(
                        &field,
                        format!(
                            "layout {:?} does not use [{field}]; remove the table or change \
                             the layout",
                            self.layout
                        ),
                    )
                }
                (Some(d), true) => d.validate(text, origin, &field)?,
                (None, false) => {}
            }
        }
        match (self.layout, self.front_torque_fraction) {
            (Layout::Awd, None) => {
                return err(
                    "drivetrain.front_torque_fraction",
                    "AWD needs front_torque_fraction (share of torque to the front axle, e.g. \
                     0.4)"
                        .into(),
                )
            }
            (Layout::Awd, Some(f)) if !(f > 0.0 && f < 1.0) => {
                return err(
                    "drivetrain.front_torque_fraction",
                    format!("{f} is outside 0 < fraction < 1; use e.g. 0.4 for 40 % front"),
                )
            }
            (Layout::Rwd | Layout::Fwd, Some(_)) => {
                return err(
                    "drivetrain.front_torque_fraction",
                    "only AWD splits torque between axles; remove front_torque_fraction".into(),
                )
            }
            _ => {}
        }
        self.engine.validate(text, origin)?;
        self.clutch.validate(text, origin, &self.engine)?;
        self.gearbox.validate(text, origin)
    }
}

/// Checks `lo <= value <= hi` (and finiteness) for one field.
fn check_range(
    text: &str,
    origin: &str,
    field: &str,
    value: f64,
    lo: f64,
    hi: f64,
    hint: &str,
) -> Result<(), DataError> {
    if value.is_finite() && value >= lo && value <= hi {
        Ok(())
    } else {
        Err(invalid(
            text,
            origin,
            field,
            format!("{value} is outside {lo} ..= {hi}; {hint}"),
        ))
    }
}

impl EngineSpec {
    fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        let f = |name: &str| format!("drivetrain.engine.{name}");
        let rpm = &self.torque_curve_rpm;
        if rpm.len() < 2 || rpm.len() != self.torque_curve_nm.len() {
            return Err(invalid(
                text,
                origin,
                &f("torque_curve_nm"),
                format!(
                    "torque_curve_rpm has {} points and torque_curve_nm {}; give both the same \
                     number of points, at least 2",
                    rpm.len(),
                    self.torque_curve_nm.len()
                ),
            ));
        }
        if rpm
            .windows(2)
            .any(|w| w[1].partial_cmp(&w[0]) != Some(std::cmp::Ordering::Greater))
            || !rpm[0].is_finite()
            || rpm[0] < 0.0
        {
            return Err(invalid(
                text,
                origin,
                &f("torque_curve_rpm"),
                "speeds must be finite, >= 0 and strictly increasing; sort the points",
            ));
        }
        for &t in &self.torque_curve_nm {
            check_range(
                text,
                origin,
                &f("torque_curve_nm"),
                t,
                0.0,
                1.0e5,
                "torques are full-throttle net crank torques, >= 0",
            )?;
        }
        check_range(
            text,
            origin,
            &f("inertia_kgm2"),
            self.inertia_kgm2,
            0.01,
            10.0,
            "typical engines are 0.1 ..= 0.3",
        )?;
        check_range(
            text,
            origin,
            &f("stall_rpm"),
            self.stall_rpm,
            50.0,
            self.idle_rpm - 100.0,
            "it must sit at least 100 rpm below idle_rpm",
        )?;
        check_range(
            text,
            origin,
            &f("idle_rpm"),
            self.idle_rpm,
            self.stall_rpm + 100.0,
            self.rev_limit_rpm - 1000.0,
            "idle must sit between stall_rpm + 100 and rev_limit_rpm - 1000",
        )?;
        check_range(
            text,
            origin,
            &f("rev_limit_rpm"),
            self.rev_limit_rpm,
            rpm[0],
            rpm[rpm.len() - 1],
            "the limiter must lie inside the torque curve's speed range",
        )?;
        if rpm[0] > self.idle_rpm {
            return Err(invalid(
                text,
                origin,
                &f("torque_curve_rpm"),
                format!(
                    "the curve starts at {} rpm, above idle_rpm {}; add a point at or below idle",
                    rpm[0], self.idle_rpm
                ),
            ));
        }
        for (name, v) in [
            ("friction_nm", self.friction_nm),
            ("friction_nm_per_krpm", self.friction_nm_per_krpm),
            ("engine_brake_nm_per_krpm", self.engine_brake_nm_per_krpm),
            ("starter_torque_nm", self.starter_torque_nm),
        ] {
            check_range(text, origin, &f(name), v, 0.0, 1.0e4, "use a value >= 0")?;
        }
        check_range(
            text,
            origin,
            &f("starter_max_rpm"),
            self.starter_max_rpm,
            self.stall_rpm + 1.0,
            self.rev_limit_rpm,
            "the starter must spin the engine above stall_rpm to start it",
        )
    }
}

impl ClutchSpec {
    fn validate(&self, text: &str, origin: &str, engine: &EngineSpec) -> Result<(), DataError> {
        check_range(
            text,
            origin,
            "drivetrain.clutch.max_torque_nm",
            self.max_torque_nm,
            1.0,
            1.0e5,
            "it should exceed the engine's peak torque (typically by 20 ..= 50 %)",
        )?;
        if let Some(rpm) = self.auto_engage_rpm {
            check_range(
                text,
                origin,
                "drivetrain.clutch.auto_engage_rpm",
                rpm,
                engine.idle_rpm + 100.0,
                engine.rev_limit_rpm,
                "the automatic clutch must engage between idle_rpm + 100 and rev_limit_rpm",
            )?;
        }
        Ok(())
    }
}

impl GearboxSpec {
    fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        let f = |name: &str| format!("drivetrain.gearbox.{name}");
        if self.forward_ratios.is_empty() || self.forward_ratios.len() > i8::MAX as usize {
            return Err(invalid(
                text,
                origin,
                &f("forward_ratios"),
                "give at least one forward gear ratio (and at most 127)",
            ));
        }
        for &r in &self.forward_ratios {
            check_range(
                text,
                origin,
                &f("forward_ratios"),
                r,
                0.05,
                20.0,
                "gear ratios are engine turns per output turn, > 0",
            )?;
        }
        check_range(
            text,
            origin,
            &f("reverse_ratio"),
            self.reverse_ratio,
            0.05,
            20.0,
            "give the reverse ratio as a positive number",
        )?;
        check_range(
            text,
            origin,
            &f("final_drive_ratio"),
            self.final_drive_ratio,
            0.5,
            20.0,
            "typical final drives are 2.5 ..= 5",
        )?;
        check_range(
            text,
            origin,
            &f("efficiency"),
            self.efficiency,
            0.5,
            1.0,
            "typical gearboxes are 0.9 ..= 0.97",
        )?;
        check_range(
            text,
            origin,
            &f("shift_time_s"),
            self.shift_time_s,
            0.0,
            2.0,
            "a sequential box takes about 0.05 s, a road H-pattern about 0.3 s",
        )?;
        check_range(
            text,
            origin,
            &f("reverse_max_speed_mps"),
            self.reverse_max_speed_mps,
            0.0,
            10.0,
            "walking pace is about 1.5 m/s",
        )
    }
}

impl DifferentialSpec {
    fn validate(&self, text: &str, origin: &str, table: &str) -> Result<(), DataError> {
        let f = |name: &str| format!("{table}.{name}");
        let preload = |p: f64| {
            check_range(
                text,
                origin,
                &f("preload_nm"),
                p,
                0.0,
                1.0e4,
                "preload is a torque difference, >= 0",
            )
        };
        let bias = |name: &str, b: f64| {
            check_range(
                text,
                origin,
                &f(name),
                b,
                1.0,
                100.0,
                "a torque bias ratio is high/low output torque, >= 1 (1 = open)",
            )
        };
        let ramp = |name: &str, deg: f64| {
            check_range(
                text,
                origin,
                &f(name),
                deg,
                0.0,
                89.9,
                "ramp angles are degrees below 90 (GPL uses 30 ..= 85)",
            )
        };
        match *self {
            DifferentialSpec::Open {} | DifferentialSpec::Spool {} => Ok(()),
            DifferentialSpec::Viscous {
                coefficient_nm_s_per_rad,
            } => check_range(
                text,
                origin,
                &f("coefficient_nm_s_per_rad"),
                coefficient_nm_s_per_rad,
                0.0,
                1.0e4,
                "typical viscous couplings are 10 ..= 100 N m s/rad",
            ),
            DifferentialSpec::ClutchLsd {
                preload_nm,
                power_bias_ratio,
                ways,
            } => {
                preload(preload_nm)?;
                bias("power_bias_ratio", power_bias_ratio)?;
                if ways == 1.0 || ways == 1.5 || ways == 2.0 {
                    Ok(())
                } else {
                    Err(invalid(
                        text,
                        origin,
                        &f("ways"),
                        format!("{ways} is not a clutch LSD type; use 1, 1.5 or 2"),
                    ))
                }
            }
            DifferentialSpec::Salisbury {
                preload_nm,
                power_ramp_deg,
                coast_ramp_deg,
                clutches,
            } => {
                preload(preload_nm)?;
                ramp("power_ramp_deg", power_ramp_deg)?;
                ramp("coast_ramp_deg", coast_ramp_deg)?;
                if clutches > 20 {
                    return Err(invalid(
                        text,
                        origin,
                        &f("clutches"),
                        format!("{clutches} clutches is implausible; use 0 ..= 20"),
                    ));
                }
                Ok(())
            }
            DifferentialSpec::TorqueBias {
                bias_ratio,
                coast_bias_ratio,
                preload_nm,
            } => {
                bias("bias_ratio", bias_ratio)?;
                if let Some(c) = coast_bias_ratio {
                    bias("coast_bias_ratio", c)?;
                }
                preload(preload_nm)
            }
        }
    }
}
