//! Axis mapping: raw evdev values to normalised controls. Pure functions, property-tested.
//!
//! Pedals and levers: calibrate (raw_min -> 0, raw_max -> 1), invert, inner deadzone (rest
//! end reads 0), outer deadzone (far end reads 1), then the response curve (gamma or points).
//! Steering: calibrate to -1 (full left) ..= +1 (full right) of the base's range, with an
//! optional symmetric deadzone; the rim angle follows from `steering.range_deg` and the
//! control is that angle over half the car's lock (past it the control stays at +-1 and the
//! FFB soft lock pushes back). Outputs are always finite and inside their range.

use rig_config::devices::{AxisMapping, CombinedSplit, SteeringConfig};

/// A response curve.
#[derive(Debug, Clone, PartialEq)]
pub enum Curve {
    /// output = input ^ gamma.
    Gamma(f64),
    /// Piecewise linear through `[input, output]` points (validated: 0..1, increasing).
    Points(Vec<[f64; 2]>),
}

impl Curve {
    /// The curve of a mapping.
    pub fn of(mapping: &AxisMapping) -> Curve {
        if mapping.curve.len() >= 2 {
            Curve::Points(mapping.curve.clone())
        } else {
            Curve::Gamma(mapping.gamma)
        }
    }

    /// Applies the curve to `x` in 0 ..= 1.
    pub fn apply(&self, x: f64) -> f64 {
        let x = clamp01(x);
        let y = match self {
            Curve::Gamma(g) => x.powf(*g),
            Curve::Points(points) => {
                let mut y = points.last().map_or(x, |p| p[1]);
                for w in points.windows(2) {
                    let ([x0, y0], [x1, y1]) = (w[0], w[1]);
                    if x <= x1 {
                        let t = if x1 > x0 { (x - x0) / (x1 - x0) } else { 1.0 };
                        y = y0 + t * (y1 - y0);
                        break;
                    }
                }
                y
            }
        };
        clamp01(y)
    }
}

fn clamp01(x: f64) -> f64 {
    if x.is_finite() {
        x.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// One resolved axis mapping (calibration known).
#[derive(Debug, Clone, PartialEq)]
pub struct AxisMap {
    /// Raw value at the rest / left end.
    pub raw_min: i32,
    /// Raw value at the pressed / right end.
    pub raw_max: i32,
    /// Reverse the direction.
    pub invert: bool,
    /// Deadzone at the rest end (or around centre for steering), share of travel.
    pub inner_deadzone: f64,
    /// Deadzone at the far end, share of travel.
    pub outer_deadzone: f64,
    /// Response curve.
    pub curve: Curve,
    /// Which half of a combined axis is the throttle.
    pub combined_split: CombinedSplit,
}

impl AxisMap {
    /// Resolves `mapping`, taking the calibration the config leaves out from the kernel's
    /// axis range.
    pub fn new(mapping: &AxisMapping, kernel_min: i32, kernel_max: i32) -> AxisMap {
        AxisMap {
            raw_min: mapping.raw_min.unwrap_or(kernel_min),
            raw_max: mapping.raw_max.unwrap_or(kernel_max),
            invert: mapping.invert,
            inner_deadzone: mapping.inner_deadzone,
            outer_deadzone: mapping.outer_deadzone,
            curve: Curve::of(mapping),
            combined_split: mapping.combined_split,
        }
    }

    /// Raw value as 0 ..= 1 of the calibrated travel, inverted if asked.
    pub fn unit(&self, raw: i32) -> f64 {
        let span = f64::from(self.raw_max) - f64::from(self.raw_min);
        if span == 0.0 {
            return 0.0;
        }
        let x = clamp01((f64::from(raw) - f64::from(self.raw_min)) / span);
        if self.invert {
            1.0 - x
        } else {
            x
        }
    }

    fn deadzones(&self, x: f64) -> f64 {
        let live = (1.0 - self.inner_deadzone - self.outer_deadzone).max(1e-6);
        clamp01((x - self.inner_deadzone) / live)
    }

    /// A pedal or lever: 0 ..= 1 after deadzones and the curve.
    pub fn pedal(&self, raw: i32) -> f64 {
        self.curve.apply(self.deadzones(self.unit(raw)))
    }

    /// Steering position, -1 (full left) ..= +1 (full right) of the base's range, without
    /// deadzone (what the rim really does).
    pub fn steering_position(&self, raw: i32) -> f64 {
        self.unit(raw) * 2.0 - 1.0
    }

    /// A combined-pedal axis: `(throttle, brake)`, each 0 ..= 1 after deadzones and the curve.
    pub fn combined(&self, raw: i32) -> (f64, f64) {
        let centred = self.unit(raw) * 2.0 - 1.0;
        let (throttle_side, brake_side) = match self.combined_split {
            CombinedSplit::ThrottleHigh => (centred.max(0.0), (-centred).max(0.0)),
            CombinedSplit::ThrottleLow => ((-centred).max(0.0), centred.max(0.0)),
        };
        (
            self.curve.apply(self.deadzones(throttle_side)),
            self.curve.apply(self.deadzones(brake_side)),
        )
    }

    /// Steering control for the car from a raw value: rim angle over half the car's lock,
    /// positive left, clamped to -1 ..= 1 (the soft lock takes over past the lock).
    pub fn steering_control(&self, raw: i32, steering: &SteeringConfig) -> f64 {
        let position = self.steering_position(raw);
        let magnitude = position.abs();
        let live = (1.0 - self.inner_deadzone - self.outer_deadzone).max(1e-6);
        let shaped = if magnitude <= self.inner_deadzone {
            0.0
        } else {
            ((magnitude - self.inner_deadzone) / live).min(1.0)
        };
        let rim_left_deg = -position.signum() * shaped * steering.range_deg / 2.0;
        let control = rim_left_deg / (steering.effective_car_lock_deg() / 2.0);
        if control.is_finite() {
            control.clamp(-1.0, 1.0)
        } else {
            0.0
        }
    }

    /// The rim angle from centre, rad, positive left (for the FFB soft lock and damping).
    pub fn rim_angle_rad(&self, raw: i32, steering: &SteeringConfig) -> f64 {
        (-self.steering_position(raw) * steering.range_deg / 2.0).to_radians()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rig_config::devices::AxisFunction;

    fn mapping(function: AxisFunction) -> AxisMapping {
        AxisMapping {
            function,
            device: "wheel".into(),
            code: "ABS_Z".into(),
            raw_min: None,
            raw_max: None,
            invert: false,
            inner_deadzone: 0.0,
            outer_deadzone: 0.0,
            gamma: 1.0,
            curve: Vec::new(),
            combined_split: CombinedSplit::ThrottleHigh,
        }
    }

    #[test]
    fn g29_pedal_released_high_inverts_to_zero() {
        // The G29 reports pedals 255 released and 0 fully pressed.
        let m = AxisMapping {
            invert: true,
            ..mapping(AxisFunction::Brake)
        };
        let a = AxisMap::new(&m, 0, 255);
        assert_eq!(a.pedal(255), 0.0);
        assert_eq!(a.pedal(0), 1.0);
    }

    #[test]
    fn deadzones_and_gamma_shape_the_travel() {
        let m = AxisMapping {
            inner_deadzone: 0.1,
            outer_deadzone: 0.1,
            gamma: 2.0,
            ..mapping(AxisFunction::Throttle)
        };
        let a = AxisMap::new(&m, 0, 1000);
        assert_eq!(a.pedal(50), 0.0);
        assert_eq!(a.pedal(950), 1.0);
        // Middle of the live travel (0.5) squared.
        assert!((a.pedal(500) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn curve_points_interpolate() {
        let m = AxisMapping {
            curve: vec![[0.0, 0.0], [0.5, 0.2], [1.0, 1.0]],
            ..mapping(AxisFunction::Brake)
        };
        let a = AxisMap::new(&m, 0, 100);
        assert!((a.pedal(25) - 0.1).abs() < 1e-12);
        assert!((a.pedal(75) - 0.6).abs() < 1e-12);
    }

    #[test]
    fn steering_maps_the_range_onto_the_cars_lock() {
        let a = AxisMap::new(&mapping(AxisFunction::Steering), 0, 65535);
        let cfg = SteeringConfig {
            range_deg: 900.0,
            car_lock_deg: Some(540.0),
        };
        // Full left on the base is 450 deg left, past the car's 270: clamped to +1 (left).
        assert_eq!(a.steering_control(0, &cfg), 1.0);
        assert_eq!(a.steering_control(65535, &cfg), -1.0);
        // 90 deg right of centre: 90 / 270 of the car's lock.
        let raw = (32767.5 + 65535.0 * 90.0 / 900.0) as i32;
        assert!((a.steering_control(raw, &cfg) + 90.0 / 270.0).abs() < 1e-3);
        assert!((a.rim_angle_rad(0, &cfg) - 450f64.to_radians()).abs() < 1e-9);
    }

    #[test]
    fn combined_pedals_split_at_centre() {
        let a = AxisMap::new(&mapping(AxisFunction::CombinedPedals), 0, 200);
        assert_eq!(a.combined(100), (0.0, 0.0));
        assert_eq!(a.combined(200), (1.0, 0.0));
        assert_eq!(a.combined(0), (0.0, 1.0));
        let low = AxisMap {
            combined_split: CombinedSplit::ThrottleLow,
            ..a
        };
        assert_eq!(low.combined(0), (1.0, 0.0));
    }

    proptest! {
        #[test]
        fn pedal_outputs_stay_in_range_and_are_monotonic(
            raw_min in -70000i32..70000,
            raw_max in -70000i32..70000,
            inner in 0.0f64..0.45,
            outer in 0.0f64..0.44,
            gamma in 0.2f64..5.0,
            a in any::<i32>(),
            b in any::<i32>(),
        ) {
            prop_assume!(raw_min != raw_max);
            let m = AxisMapping {
                raw_min: Some(raw_min),
                raw_max: Some(raw_max),
                inner_deadzone: inner,
                outer_deadzone: outer,
                gamma,
                ..mapping(AxisFunction::Throttle)
            };
            let map = AxisMap::new(&m, 0, 1);
            let (pa, pb) = (map.pedal(a), map.pedal(b));
            prop_assert!((0.0..=1.0).contains(&pa) && (0.0..=1.0).contains(&pb));
            // Moving the raw value towards raw_max never lowers the output.
            let towards_max = |x: i32| if raw_max > raw_min { f64::from(x) } else { -f64::from(x) };
            if towards_max(a) <= towards_max(b) {
                prop_assert!(pa <= pb + 1e-12);
            }
            let (t, br) = map.combined(a);
            prop_assert!((0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&br));
            prop_assert!(t == 0.0 || br == 0.0);
        }

        #[test]
        fn curve_points_stay_in_range(
            mids in proptest::collection::vec((0.01f64..0.99, 0.0f64..1.0), 0..6),
            x in any::<f64>(),
        ) {
            let mut xs: Vec<f64> = mids.iter().map(|m| m.0).collect();
            xs.sort_by(f64::total_cmp);
            xs.dedup();
            let mut ys: Vec<f64> = mids.iter().map(|m| m.1).collect();
            ys.sort_by(f64::total_cmp);
            let mut points = vec![[0.0, 0.0]];
            points.extend(xs.iter().zip(ys.iter()).map(|(x, y)| [*x, *y]));
            points.push([1.0, 1.0]);
            let c = Curve::Points(points);
            let y = c.apply(x);
            prop_assert!((0.0..=1.0).contains(&y));
        }

        #[test]
        fn steering_control_is_bounded_and_odd(raw in 0i32..=65535, lock in 90.0f64..900.0) {
            let a = AxisMap::new(&mapping(AxisFunction::Steering), 0, 65535);
            let cfg = SteeringConfig { range_deg: 900.0, car_lock_deg: Some(lock) };
            let s = a.steering_control(raw, &cfg);
            prop_assert!((-1.0..=1.0).contains(&s));
            let mirrored = a.steering_control(65535 - raw, &cfg);
            prop_assert!((s + mirrored).abs() < 1e-9);
        }
    }
}
