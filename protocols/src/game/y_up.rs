//! Games whose world is y-up and left-handed (Codemasters' EGO engine behind F1, Polyphony's
//! GT7): their vectors in rigd's z-up right-handed frame, and a car's attitude from the axes
//! they send. Shared so every such decoder (and the F1 encoder) maps axes the same way.
//!
//! The game's world is `X, Y (up), Z` and its car-local frame `X right, Y up, Z forward`,
//! both left-handed. A world vector maps as `(x, y, z) = (X, Z, Y)` (the same swap as
//! Codemasters extradata in `telemetry::codemasters`), a car-local one as
//! `(x forward, y left, z up) = (Z, -X, Y)`. Both maps are reflections, so an angular
//! velocity (an axial vector, whose sign follows the handedness) also changes sign:
//! `(roll, pitch, yaw) rates = (-Z, X, -Y)`.

/// A world vector of the game (y up, left-handed) in rigd's world (z up, right-handed); the
/// map is its own inverse, so it also takes rigd's vectors to the game's.
pub fn world_to_z_up(v: [f64; 3]) -> [f64; 3] {
    [v[0], v[2], v[1]]
}

/// A car-local vector of the game (X right, Y up, Z forward) in rigd's body frame.
pub fn local_to_body(v: [f64; 3]) -> [f64; 3] {
    [v[2], -v[0], v[1]]
}

/// A body vector of rigd in the game's car-local frame (inverse of [`local_to_body`]).
pub fn body_to_local(v: [f64; 3]) -> [f64; 3] {
    [-v[1], v[2], v[0]]
}

/// A car-local angular velocity of the game in rigd's body frame (roll, pitch, yaw rates).
pub fn local_rate_to_body(w: [f64; 3]) -> [f64; 3] {
    [-w[2], w[0], -w[1]]
}

/// A body angular velocity of rigd in the game's car-local frame (inverse of
/// [`local_rate_to_body`]).
pub fn body_rate_to_local(w: [f64; 3]) -> [f64; 3] {
    [w[1], -w[2], -w[0]]
}

/// How far a sent axis may be from unit length, or two axes from perpendicular (as the dot
/// product), before the attitude is rejected as garbage: F1 sends them as int16 / 32767.
const AXIS_TOLERANCE: f64 = 0.05;

/// The car's body axes in rigd's world frame (unit, right-handed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyAxes {
    /// Body x (forward) in the world.
    pub forward: [f64; 3],
    /// Body y (left) in the world.
    pub left: [f64; 3],
    /// Body z (up) in the world.
    pub up: [f64; 3],
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn scaled(v: [f64; 3], k: f64) -> [f64; 3] {
    v.map(|c| c * k)
}

impl BodyAxes {
    /// The axes from the car's forward and right unit vectors, both already in rigd's world
    /// frame. `None` unless both are finite, of unit length and perpendicular (within
    /// [`AXIS_TOLERANCE`]): zeros or noise must not become an attitude.
    pub fn from_forward_right(forward: [f64; 3], right: [f64; 3]) -> Option<BodyAxes> {
        let unit = |v: [f64; 3]| {
            let n = dot(v, v).sqrt();
            (n.is_finite() && (n - 1.0).abs() <= AXIS_TOLERANCE).then(|| scaled(v, 1.0 / n))
        };
        let forward = unit(forward)?;
        let right = unit(right)?;
        if dot(forward, right).abs() > AXIS_TOLERANCE {
            return None;
        }
        // Make `left` exactly perpendicular to `forward`, then complete the frame.
        let along = dot(right, forward);
        let left = unit(scaled(
            [
                right[0] - along * forward[0],
                right[1] - along * forward[1],
                right[2] - along * forward[2],
            ],
            -1.0,
        ))?;
        let up = cross(forward, left);
        Some(BodyAxes { forward, left, up })
    }

    /// Roll, pitch, yaw (Tait-Bryan z-y-x, rigd's signs: pitch positive nose down, yaw
    /// positive to the left of the world x axis), rad.
    pub fn roll_pitch_yaw(&self) -> [f64; 3] {
        let yaw = self.forward[1].atan2(self.forward[0]);
        let pitch = -self.forward[2].clamp(-1.0, 1.0).asin();
        let roll = self.left[2].atan2(self.up[2]);
        [roll, pitch, yaw]
    }

    /// A world vector in the body frame.
    pub fn world_to_body(&self, v: [f64; 3]) -> [f64; 3] {
        [dot(v, self.forward), dot(v, self.left), dot(v, self.up)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
    }

    #[test]
    fn a_level_car_facing_the_games_z_axis_faces_rigds_y_axis() {
        // Game: forward +Z, right +X, both level.
        let axes = BodyAxes::from_forward_right(
            world_to_z_up([0.0, 0.0, 1.0]),
            world_to_z_up([1.0, 0.0, 0.0]),
        )
        .unwrap();
        assert!(close(axes.up, [0.0, 0.0, 1.0]), "{axes:?}");
        assert!(close(
            axes.roll_pitch_yaw(),
            [0.0, 0.0, std::f64::consts::FRAC_PI_2]
        ));
    }

    #[test]
    fn nose_up_is_negative_pitch_and_left_side_up_is_positive_roll() {
        let s = 0.1_f64.sin();
        let c = 0.1_f64.cos();
        // Nose up by 0.1 rad, heading rigd's +x: forward has +z.
        let pitched = BodyAxes::from_forward_right([c, 0.0, s], [0.0, -1.0, 0.0]).unwrap();
        assert!(close(pitched.roll_pitch_yaw(), [0.0, -0.1, 0.0]));
        // Rolled right by 0.1 rad (left side up): the right axis points down.
        let rolled = BodyAxes::from_forward_right([1.0, 0.0, 0.0], [0.0, -c, -s]).unwrap();
        assert!(close(rolled.roll_pitch_yaw(), [0.1, 0.0, 0.0]));
    }

    #[test]
    fn zero_or_skewed_axes_are_no_attitude() {
        assert!(BodyAxes::from_forward_right([0.0; 3], [0.0, -1.0, 0.0]).is_none());
        assert!(BodyAxes::from_forward_right([1.0, 0.0, 0.0], [0.7, 0.7, 0.0]).is_none());
        assert!(BodyAxes::from_forward_right([f64::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]).is_none());
    }

    #[test]
    fn local_maps_invert() {
        let v = [1.0, 2.0, 3.0];
        assert_eq!(body_to_local(local_to_body(v)), v);
        assert_eq!(body_rate_to_local(local_rate_to_body(v)), v);
        // A left turn: the game's left-hand yaw rate about +Y is negative.
        assert_eq!(local_rate_to_body([0.0, -0.5, 0.0]), [0.0, 0.0, 0.5]);
    }
}
