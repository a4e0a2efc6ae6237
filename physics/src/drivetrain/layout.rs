//! Driveline coordinates of a layout: which speeds are independent and how the wheels follow.
//!
//! DOF 0 is the engine (crank), DOF 1 the root carrier that the gearbox drives (`omega_crank =
//! total ratio x omega_root` when the clutch is locked). The remaining DOFs are the speed
//! differences across each differential (`delta = omega_a - omega_b`; a = left or front).
//! A differential with torque split `s` to output `a` has `omega_carrier = s omega_a + (1 - s)
//! omega_b`, hence `omega_a = carrier + (1 - s) delta` and `omega_b = carrier - s delta`
//! (power-consistent: the outputs get `s` and `1 - s` of the input torque when open).
//! - RWD/FWD: `[engine, axle carrier, axle delta]`.
//! - AWD: `[engine, centre carrier, centre delta (front - rear), front delta, rear delta]`.
//!
//! Undriven wheels have zero rows and spin on their own.

use super::solver::MAX_DOFS;
use super::spec::Layout;
use crate::telemetry::{DIFF_CENTRE, DIFF_FRONT, DIFF_REAR};

/// One differential's place in the coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiffPlace {
    /// Index in [`crate::telemetry::DrivetrainTelemetry::diffs`].
    pub telemetry_index: usize,
    /// DOF of its speed difference.
    pub delta_dof: usize,
    /// Wheels behind output `a` (left or front) and `b`.
    pub wheels_a: [usize; 2],
    /// Wheels behind output `b`.
    pub wheels_b: [usize; 2],
    /// Number of wheels per output (1 for an axle, 2 for the centre).
    pub wheels_per_side: usize,
}

/// Coordinate maps of one layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayoutMap {
    /// DOFs including the engine.
    pub dofs: usize,
    /// Wheel speed = `wheel_rows[w] . coordinates` (zero rows for undriven wheels).
    pub wheel_rows: [[f64; MAX_DOFS]; 4],
    /// Which wheels the driveline turns.
    pub driven: [bool; 4],
    /// Coordinates (DOF 1..) from wheel speeds: `coordinate_rows[i] . omegas`.
    pub coordinate_rows: [[f64; 4]; MAX_DOFS],
    /// The differentials present.
    pub diffs: [Option<DiffPlace>; 3],
}

fn axle(telemetry_index: usize, delta_dof: usize, left: usize, right: usize) -> DiffPlace {
    DiffPlace {
        telemetry_index,
        delta_dof,
        wheels_a: [left, left],
        wheels_b: [right, right],
        wheels_per_side: 1,
    }
}

impl LayoutMap {
    /// The map of `layout`; `front_fraction` is the centre split for AWD.
    pub fn new(layout: Layout, front_fraction: f64) -> LayoutMap {
        let mut map = LayoutMap {
            dofs: 3,
            wheel_rows: [[0.0; MAX_DOFS]; 4],
            driven: [false; 4],
            coordinate_rows: [[0.0; 4]; MAX_DOFS],
            diffs: [None; 3],
        };
        match layout {
            Layout::Rwd | Layout::Fwd => {
                let (left, right, index) = if layout == Layout::Rwd {
                    (2, 3, DIFF_REAR)
                } else {
                    (0, 1, DIFF_FRONT)
                };
                map.wheel_rows[left] = [0.0, 1.0, 0.5, 0.0, 0.0];
                map.wheel_rows[right] = [0.0, 1.0, -0.5, 0.0, 0.0];
                map.driven[left] = true;
                map.driven[right] = true;
                map.coordinate_rows[1][left] = 0.5;
                map.coordinate_rows[1][right] = 0.5;
                map.coordinate_rows[2][left] = 1.0;
                map.coordinate_rows[2][right] = -1.0;
                map.diffs[index] = Some(axle(index, 2, left, right));
            }
            Layout::Awd => {
                let s = front_fraction;
                map.dofs = 5;
                map.wheel_rows = [
                    [0.0, 1.0, 1.0 - s, 0.5, 0.0],
                    [0.0, 1.0, 1.0 - s, -0.5, 0.0],
                    [0.0, 1.0, -s, 0.0, 0.5],
                    [0.0, 1.0, -s, 0.0, -0.5],
                ];
                map.driven = [true; 4];
                map.coordinate_rows[1] = [0.5 * s, 0.5 * s, 0.5 * (1.0 - s), 0.5 * (1.0 - s)];
                map.coordinate_rows[2] = [0.5, 0.5, -0.5, -0.5];
                map.coordinate_rows[3] = [1.0, -1.0, 0.0, 0.0];
                map.coordinate_rows[4] = [0.0, 0.0, 1.0, -1.0];
                map.diffs[DIFF_FRONT] = Some(axle(DIFF_FRONT, 3, 0, 1));
                map.diffs[DIFF_REAR] = Some(axle(DIFF_REAR, 4, 2, 3));
                map.diffs[DIFF_CENTRE] = Some(DiffPlace {
                    telemetry_index: DIFF_CENTRE,
                    delta_dof: 2,
                    wheels_a: [0, 1],
                    wheels_b: [2, 3],
                    wheels_per_side: 2,
                });
            }
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip_through_wheel_speeds() {
        let omegas = [11.0, 9.0, 14.0, 12.5];
        for layout in [Layout::Rwd, Layout::Fwd, Layout::Awd] {
            let map = LayoutMap::new(layout, 0.35);
            let mut x = [0.0; MAX_DOFS];
            for (i, row) in map.coordinate_rows.iter().enumerate().skip(1) {
                x[i] = row.iter().zip(omegas).map(|(a, b)| a * b).sum();
            }
            for (w, omega) in omegas.iter().enumerate() {
                if map.driven[w] {
                    let back: f64 = map.wheel_rows[w].iter().zip(x).map(|(a, b)| a * b).sum();
                    assert!((back - omega).abs() < 1e-12, "{layout:?} wheel {w}");
                }
            }
        }
    }
}
