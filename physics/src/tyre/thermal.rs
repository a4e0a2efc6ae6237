//! Tyre temperature, inflation pressure and wear: three thermal nodes per tyre (tread
//! surface, carcass, inflation gas), the gas law for the pressure, and tread wear from slip
//! energy; and from them the tyre's grip and vertical-stiffness factors.
//!
//! Why here: the Magic Formula set is measured at one temperature and pressure on a new
//! tyre; this module says how far the tyre has drifted from that point. The car's step feeds
//! it the slip power, the rolling power, the speed and the air and track temperatures
//! ([`ThermalModel::update`]); the next step's forces take its [`TyreCondition::grip`] and
//! its vertical spring its [`TyreCondition::stiffness_scale`].
//!
//! Heat balance (W; temperatures in degrees C; docs/tyres.md has the same equations, their
//! steady state and the defaults' time constants):
//!
//! ```text
//! C_s dT_s/dt = q eta P_slip - G_sc (T_s - T_c) - h(v) A_s (T_s - T_air) - G_r (T_s - T_track)
//! C_c dT_c/dt = (1 - q) eta P_slip + P_roll + G_sc (T_s - T_c) - G_cg (T_c - T_g)
//!               - h(v) A_c (T_c - T_air)
//! C_g dT_g/dt = G_cg (T_c - T_g)
//! h(v) = h0 + h1 sqrt(v)
//! ```
//!
//! with P_slip = |Fx v_sx| + |Fy v_sy| (force times slip velocity), P_roll the rolling
//! resistance's power (hysteresis), G_r only while the tyre touches the road. Explicit Euler
//! at the car's step: stable while dt G_ii / C_i < 1 for every node (G_ii the sum of the
//! node's conductances, Gershgorin), which [`ThermalSpec::validate`] checks up to
//! [`STABLE_UP_TO_SPEED_MPS`] and [`MAX_STEP_S`].
//!
//! Grip: a window around the optimum surface temperature, `1 - (1 - g_far) x^4 / (1 + x^4)`
//! with `x = (T_s - T_opt) / width` (1 at the optimum with a flat top: within a quarter width
//! less than 0.4 % of the loss; halfway to `g_far` one width away; smooth everywhere; one
//! division); times `1 + k_p dp` for the pressure (dp the relative
//! gauge pressure change from the hot pressure) and `1 - (1 - g_worn) wear` for the tread.
//! Pressure: ideal gas at constant volume, absolute pressure proportional to the absolute
//! gas temperature, equal to the hot pressure at the optimum temperature. Vertical stiffness
//! `k (1 + s_p dp)`. Wear: `dW/dt = P_slip / E_life`, W from 0 (new) to 1 (worn out).

use serde::Deserialize;

use crate::data::DataError;
use crate::spec::check_range;

/// Atmospheric pressure the gauge pressures are read against, kPa.
pub const ATMOSPHERE_KPA: f64 = 101.325;
/// 0 degrees C in kelvin.
pub const ZERO_C_IN_K: f64 = 273.15;
/// Fastest speed the stability check of the explicit integration covers, m/s.
pub const STABLE_UP_TO_SPEED_MPS: f64 = 150.0;
/// Longest step the stability check covers, s (the world steps 1 ms; a car step is at most a
/// few ms).
pub const MAX_STEP_S: f64 = 0.005;
/// Temperatures stay in this range, degrees C (the clamp also turns a NaN from a faulted step
/// into a finite value, so no NaN is kept in the thermal state).
const TEMPERATURE_RANGE_C: [f64; 2] = [-60.0, 600.0];
/// Smallest grip and stiffness factor (a tyre far outside every window still grips a little
/// and carries its load).
const MIN_FACTOR: f64 = 0.05;

/// The `[tyre.thermal]` table: temperature, pressure and wear of every tyre of the car.
/// Defaults: docs/tyres.md says where each comes from.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ThermalSpec {
    /// The model runs (`false`: every tyre stays at its start condition, grip 1).
    pub enabled: bool,
    /// Surface temperature of peak grip, degrees C.
    pub optimum_temp_c: f64,
    /// Distance from the optimum at which half of the grip loss of `grip_far_from_window`
    /// has set in, degrees C.
    pub window_width_c: f64,
    /// Grip factor far from the window (the curve's floor), 0..1.
    pub grip_far_from_window: f64,
    /// Temperature of all three nodes at the start and after a reset, degrees C (default:
    /// `optimum_temp_c`, so a car starts with the grip its coefficient set states).
    pub start_temp_c: Option<f64>,
    /// Heat capacity of the tread surface layer, J/K.
    pub surface_heat_capacity_j_per_k: f64,
    /// Heat capacity of the carcass (the rest of the tyre), J/K.
    pub carcass_heat_capacity_j_per_k: f64,
    /// Heat capacity of the inflation gas, J/K.
    pub gas_heat_capacity_j_per_k: f64,
    /// Conductance between surface and carcass, W/K.
    pub surface_carcass_conductance_w_per_k: f64,
    /// Conductance between carcass and gas (inner liner), W/K.
    pub carcass_gas_conductance_w_per_k: f64,
    /// Conductance from the surface into the road through the contact patch, W/K.
    pub road_conductance_w_per_k: f64,
    /// Tread area cooled by the air, m^2.
    pub surface_area_m2: f64,
    /// Sidewall area (carcass) cooled by the air, m^2.
    pub sidewall_area_m2: f64,
    /// Convection coefficient at standstill, h0, W/(m^2 K).
    pub convection_still_w_per_m2k: f64,
    /// Growth of the convection coefficient with the square root of speed, h1,
    /// W/(m^2 K) per sqrt(m/s).
    pub convection_speed_w_per_m2k_per_sqrt_mps: f64,
    /// Share of the slip power that heats the tyre (the rest heats the road), 0..1.
    pub slip_heat_share: f64,
    /// Share of the tyre's slip heat that enters the surface node (the rest the carcass), 0..1.
    pub slip_heat_surface_share: f64,
    /// Gauge inflation pressure with the gas at `optimum_temp_c`, kPa: the pressure the
    /// coefficient set and `vertical_stiffness_n_per_m` hold at.
    pub hot_pressure_kpa: f64,
    /// Relative vertical-stiffness change per relative pressure change (dk/k over dp/p).
    pub stiffness_pressure_sensitivity: f64,
    /// Relative grip change per relative pressure change (negative: over-inflation shrinks
    /// the contact patch).
    pub grip_pressure_sensitivity: f64,
    /// Slip energy that wears the tread out (wear 0 -> 1), MJ.
    pub tread_life_slip_energy_mj: f64,
    /// Grip factor of a worn-out tread, 0..1.
    pub worn_grip: f64,
}

impl Default for ThermalSpec {
    fn default() -> ThermalSpec {
        ThermalSpec {
            enabled: true,
            optimum_temp_c: 85.0,
            window_width_c: 40.0,
            grip_far_from_window: 0.75,
            start_temp_c: None,
            surface_heat_capacity_j_per_k: 300.0,
            carcass_heat_capacity_j_per_k: 12_000.0,
            gas_heat_capacity_j_per_k: 80.0,
            surface_carcass_conductance_w_per_k: 150.0,
            carcass_gas_conductance_w_per_k: 10.0,
            road_conductance_w_per_k: 15.0,
            surface_area_m2: 0.35,
            sidewall_area_m2: 0.3,
            convection_still_w_per_m2k: 10.0,
            convection_speed_w_per_m2k_per_sqrt_mps: 15.0,
            slip_heat_share: 0.3,
            slip_heat_surface_share: 0.7,
            hot_pressure_kpa: 220.0,
            stiffness_pressure_sensitivity: 0.6,
            grip_pressure_sensitivity: -0.05,
            tread_life_slip_energy_mj: 200.0,
            worn_grip: 0.65,
        }
    }
}

impl ThermalSpec {
    /// Start temperature of the three nodes, degrees C.
    pub fn start_temp(&self) -> f64 {
        self.start_temp_c.unwrap_or(self.optimum_temp_c)
    }

    /// Convection coefficient at `speed_mps`, W/(m^2 K).
    pub fn convection_w_per_m2k(&self, speed_mps: f64) -> f64 {
        self.convection_still_w_per_m2k
            + self.convection_speed_w_per_m2k_per_sqrt_mps * speed_mps.abs().sqrt()
    }

    /// Each node's total conductance over its heat capacity at `speed_mps` (surface on the
    /// road, carcass, gas), 1/s: the rates whose largest bounds the explicit step.
    pub fn node_rates_per_s(&self, speed_mps: f64) -> [f64; 3] {
        let h = self.convection_w_per_m2k(speed_mps);
        let surface = self.surface_carcass_conductance_w_per_k
            + self.road_conductance_w_per_k
            + h * self.surface_area_m2;
        let carcass = self.surface_carcass_conductance_w_per_k
            + self.carcass_gas_conductance_w_per_k
            + h * self.sidewall_area_m2;
        [
            surface / self.surface_heat_capacity_j_per_k,
            carcass / self.carcass_heat_capacity_j_per_k,
            self.carcass_gas_conductance_w_per_k / self.gas_heat_capacity_j_per_k,
        ]
    }

    /// Checks ranges and the stability of the explicit integration; `text`/`origin` locate
    /// errors.
    pub fn validate(&self, text: &str, origin: &str) -> Result<(), DataError> {
        let field = |name: &str| format!("tyre.thermal.{name}");
        let ranges = [
            ("optimum_temp_c", self.optimum_temp_c, 0.0, 300.0),
            ("window_width_c", self.window_width_c, 1.0, 300.0),
            ("grip_far_from_window", self.grip_far_from_window, 0.05, 1.0),
            ("start_temp_c", self.start_temp(), -50.0, 300.0),
            (
                "surface_heat_capacity_j_per_k",
                self.surface_heat_capacity_j_per_k,
                1.0,
                1e6,
            ),
            (
                "carcass_heat_capacity_j_per_k",
                self.carcass_heat_capacity_j_per_k,
                1.0,
                1e7,
            ),
            (
                "gas_heat_capacity_j_per_k",
                self.gas_heat_capacity_j_per_k,
                0.1,
                1e5,
            ),
            (
                "surface_carcass_conductance_w_per_k",
                self.surface_carcass_conductance_w_per_k,
                0.0,
                1e5,
            ),
            (
                "carcass_gas_conductance_w_per_k",
                self.carcass_gas_conductance_w_per_k,
                0.0,
                1e5,
            ),
            (
                "road_conductance_w_per_k",
                self.road_conductance_w_per_k,
                0.0,
                1e5,
            ),
            ("surface_area_m2", self.surface_area_m2, 0.0, 10.0),
            ("sidewall_area_m2", self.sidewall_area_m2, 0.0, 10.0),
            (
                "convection_still_w_per_m2k",
                self.convection_still_w_per_m2k,
                0.0,
                1e4,
            ),
            (
                "convection_speed_w_per_m2k_per_sqrt_mps",
                self.convection_speed_w_per_m2k_per_sqrt_mps,
                0.0,
                1e4,
            ),
            ("slip_heat_share", self.slip_heat_share, 0.0, 1.0),
            (
                "slip_heat_surface_share",
                self.slip_heat_surface_share,
                0.0,
                1.0,
            ),
            ("hot_pressure_kpa", self.hot_pressure_kpa, 20.0, 2000.0),
            (
                "stiffness_pressure_sensitivity",
                self.stiffness_pressure_sensitivity,
                0.0,
                2.0,
            ),
            (
                "grip_pressure_sensitivity",
                self.grip_pressure_sensitivity,
                -2.0,
                2.0,
            ),
            (
                "tread_life_slip_energy_mj",
                self.tread_life_slip_energy_mj,
                1e-3,
                1e6,
            ),
            ("worn_grip", self.worn_grip, 0.05, 1.0),
        ];
        for (name, value, lo, hi) in ranges {
            check_range(text, origin, &field(name), value, lo, hi)?;
        }
        let names = [
            "surface_heat_capacity_j_per_k",
            "carcass_heat_capacity_j_per_k",
            "gas_heat_capacity_j_per_k",
        ];
        let rates = self.node_rates_per_s(STABLE_UP_TO_SPEED_MPS);
        for (name, rate) in names.into_iter().zip(rates) {
            if rate * MAX_STEP_S >= 1.0 {
                return Err(crate::data::invalid(
                    text,
                    origin,
                    &field(name),
                    format!(
                        "this node's conductances over its heat capacity ({rate:.0} 1/s at \
                         {STABLE_UP_TO_SPEED_MPS} m/s) are too fast for the explicit \
                         integration at a {} ms step (need below {:.0} 1/s); raise the heat \
                         capacity or lower the conductances",
                        MAX_STEP_S * 1e3,
                        1.0 / MAX_STEP_S
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// One tyre's thermal, pressure and wear state (plain data, part of the car's state).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TyreCondition {
    /// Tread surface temperature, degrees C.
    pub surface_c: f64,
    /// Carcass temperature, degrees C.
    pub carcass_c: f64,
    /// Inflation gas temperature, degrees C.
    pub gas_c: f64,
    /// Tread wear, 0 (new) to 1 (worn out).
    pub wear: f64,
    /// Gauge inflation pressure, kPa.
    pub pressure_kpa: f64,
    /// Friction scale from temperature, pressure and wear (multiplies the MF lambda_mu).
    pub grip: f64,
    /// Vertical stiffness scale from the pressure.
    pub stiffness_scale: f64,
}

impl Default for TyreCondition {
    /// A new tyre at the default optimum: the coefficient set's own grip and stiffness.
    fn default() -> TyreCondition {
        let spec = ThermalSpec::default();
        TyreCondition::at(&spec, spec.optimum_temp_c)
    }
}

impl TyreCondition {
    /// A new tyre with every node at `temp_c` (pressure, grip and stiffness from them).
    pub fn at(spec: &ThermalSpec, temp_c: f64) -> TyreCondition {
        let model = ThermalModel::new(spec);
        let mut condition = TyreCondition {
            surface_c: temp_c,
            carcass_c: temp_c,
            gas_c: temp_c,
            wear: 0.0,
            pressure_kpa: spec.hot_pressure_kpa,
            grip: 1.0,
            stiffness_scale: 1.0,
        };
        model.refresh_factors(&mut condition);
        condition
    }
}

/// What heats and cools one tyre during a step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HeatInput {
    /// Slip power |Fx v_sx| + |Fy v_sy|, W.
    pub slip_power_w: f64,
    /// Rolling-resistance power (hysteresis), W.
    pub rolling_power_w: f64,
    /// The tyre touches the road (road conduction on).
    pub in_contact: bool,
}

/// [`ThermalSpec`] prepared for the per-step update (reciprocals and products worked out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThermalModel {
    /// The model runs.
    pub enabled: bool,
    spec: ThermalSpec,
    inv_surface_capacity: f64,
    inv_carcass_capacity: f64,
    inv_gas_capacity: f64,
    /// eta q and eta (1 - q): slip heat into surface and carcass per watt of slip power.
    slip_to_surface: f64,
    slip_to_carcass: f64,
    inv_width: f64,
    /// 1 - g_far.
    window_depth: f64,
    /// Hot absolute pressure over the optimum's absolute temperature, kPa/K.
    absolute_pressure_per_k: f64,
    /// d(relative gauge pressure)/d(gas temperature), 1/K.
    relative_pressure_per_k: f64,
    inv_life_j: f64,
    /// 1 - g_worn.
    wear_depth: f64,
}

impl ThermalModel {
    /// Prepares `spec` (validated).
    pub fn new(spec: &ThermalSpec) -> ThermalModel {
        let hot_absolute = spec.hot_pressure_kpa + ATMOSPHERE_KPA;
        let absolute_pressure_per_k = hot_absolute / (spec.optimum_temp_c + ZERO_C_IN_K);
        ThermalModel {
            enabled: spec.enabled,
            spec: *spec,
            inv_surface_capacity: 1.0 / spec.surface_heat_capacity_j_per_k,
            inv_carcass_capacity: 1.0 / spec.carcass_heat_capacity_j_per_k,
            inv_gas_capacity: 1.0 / spec.gas_heat_capacity_j_per_k,
            slip_to_surface: spec.slip_heat_share * spec.slip_heat_surface_share,
            slip_to_carcass: spec.slip_heat_share * (1.0 - spec.slip_heat_surface_share),
            inv_width: 1.0 / spec.window_width_c,
            window_depth: 1.0 - spec.grip_far_from_window,
            absolute_pressure_per_k,
            relative_pressure_per_k: absolute_pressure_per_k / spec.hot_pressure_kpa,
            inv_life_j: 1.0 / (spec.tread_life_slip_energy_mj * 1e6),
            wear_depth: 1.0 - spec.worn_grip,
        }
    }

    /// The spec this model was built from.
    pub fn spec(&self) -> &ThermalSpec {
        &self.spec
    }

    /// A new tyre at the spec's start temperature.
    pub fn start_condition(&self) -> TyreCondition {
        TyreCondition::at(&self.spec, self.spec.start_temp())
    }

    /// The air-cooling conductances h(v) A (surface, carcass) at `speed_mps`, W/K: the same
    /// for the four tyres of a car, so worked out once per step (one square root).
    #[inline]
    pub fn air_conductances_w_per_k(&self, speed_mps: f64) -> [f64; 2] {
        let h = self.spec.convection_w_per_m2k(speed_mps);
        [
            h * self.spec.surface_area_m2,
            h * self.spec.sidewall_area_m2,
        ]
    }

    /// Advances one tyre by `dt_s` (explicit Euler) with air at `air_c`, road at `track_c`
    /// and the air conductances of [`ThermalModel::air_conductances_w_per_k`]; then its
    /// pressure, grip and stiffness factors. Nothing changes when the model is off.
    #[inline]
    pub fn update(
        &self,
        tyre: &mut TyreCondition,
        input: &HeatInput,
        air_conductance_w_per_k: [f64; 2],
        [air_c, track_c]: [f64; 2],
        dt_s: f64,
    ) {
        if !self.enabled {
            return;
        }
        let s = &self.spec;
        let [air_surface, air_carcass] = air_conductance_w_per_k;
        let (t_s, t_c, t_g) = (tyre.surface_c, tyre.carcass_c, tyre.gas_c);
        let road = if input.in_contact {
            s.road_conductance_w_per_k * (t_s - track_c)
        } else {
            0.0
        };
        let to_carcass = s.surface_carcass_conductance_w_per_k * (t_s - t_c);
        let to_gas = s.carcass_gas_conductance_w_per_k * (t_c - t_g);
        let surface_w = self.slip_to_surface * input.slip_power_w
            - to_carcass
            - air_surface * (t_s - air_c)
            - road;
        let carcass_w =
            self.slip_to_carcass * input.slip_power_w + input.rolling_power_w + to_carcass
                - to_gas
                - air_carcass * (t_c - air_c);
        let [low, high] = TEMPERATURE_RANGE_C;
        let bounded = |t: f64| t.max(low).min(high);
        tyre.surface_c = bounded(t_s + dt_s * self.inv_surface_capacity * surface_w);
        tyre.carcass_c = bounded(t_c + dt_s * self.inv_carcass_capacity * carcass_w);
        tyre.gas_c = bounded(t_g + dt_s * self.inv_gas_capacity * to_gas);
        // max/min rather than clamp: clamp keeps a NaN, max turns it into the bound.
        #[allow(clippy::manual_clamp)]
        let wear = (tyre.wear + dt_s * self.inv_life_j * input.slip_power_w)
            .max(0.0)
            .min(1.0);
        tyre.wear = wear;
        self.refresh_factors(tyre);
    }

    /// Pressure, grip and stiffness factors from the temperatures and wear. Exactly 1 (grip,
    /// stiffness) for a new tyre at the optimum.
    #[inline]
    pub fn refresh_factors(&self, tyre: &mut TyreCondition) {
        let dt_gas = tyre.gas_c - self.spec.optimum_temp_c;
        tyre.pressure_kpa = self.spec.hot_pressure_kpa + self.absolute_pressure_per_k * dt_gas;
        let dp = self.relative_pressure_per_k * dt_gas;
        let x = (tyre.surface_c - self.spec.optimum_temp_c) * self.inv_width;
        let x2 = x * x;
        let x4 = x2 * x2;
        let window = 1.0 - self.window_depth * x4 / (1.0 + x4);
        let pressure = 1.0 + self.spec.grip_pressure_sensitivity * dp;
        let tread = 1.0 - self.wear_depth * tyre.wear;
        tyre.grip = (window * pressure * tread).max(MIN_FACTOR);
        tyre.stiffness_scale =
            (1.0 + self.spec.stiffness_pressure_sensitivity * dp).max(MIN_FACTOR);
    }

    /// The grip factor of the temperature window alone at surface temperature `surface_c`.
    pub fn window_grip(&self, surface_c: f64) -> f64 {
        let x = (surface_c - self.spec.optimum_temp_c) * self.inv_width;
        let x4 = x * x * x * x;
        1.0 - self.window_depth * x4 / (1.0 + x4)
    }
}
