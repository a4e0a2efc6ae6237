//! Vector helpers the game decoders share: reading a wire float as an optional finite value,
//! and the car's body axes (forward, left, up) from the direction vectors or angles a game
//! sends, giving body-frame vectors and rigd's roll, pitch, yaw.
//!
//! Why here: Codemasters, EA WRC and LFS send the car's orientation in different forms
//! (two direction vectors, three, or three angles); turning each into one orthonormal
//! [`Basis`] keeps the conversion to rigd's conventions in one tested place. Invariant: every
//! function returns finite values or `None`, whatever the input.

/// `x` as f64 when it is finite.
pub(crate) fn finite(x: f32) -> Option<f64> {
    x.is_finite().then_some(f64::from(x))
}

/// The three components as f64 when all are finite.
pub(crate) fn finite3(v: [f32; 3]) -> Option<[f64; 3]> {
    Some([finite(v[0])?, finite(v[1])?, finite(v[2])?])
}

/// Dot product.
pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Cross product `a x b`.
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Shortest length a direction vector may have before it counts as missing (games send zero
/// vectors in menus).
const MIN_DIRECTION_LEN: f64 = 1e-3;

/// `v` scaled to unit length; `None` when it is too short or not finite.
pub(crate) fn unit(v: [f64; 3]) -> Option<[f64; 3]> {
    let len = dot(v, v).sqrt();
    (len.is_finite() && len > MIN_DIRECTION_LEN).then(|| v.map(|c| c / len))
}

/// `v` minus its component along the unit vector `axis`.
fn reject(v: [f64; 3], axis: [f64; 3]) -> [f64; 3] {
    let along = dot(v, axis);
    [
        v[0] - along * axis[0],
        v[1] - along * axis[1],
        v[2] - along * axis[2],
    ]
}

/// The car's body axes in rigd's world frame (z up): x forward, y left, z up, orthonormal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Basis {
    /// Body x (forward) in world axes.
    pub forward: [f64; 3],
    /// Body y (left) in world axes.
    pub left: [f64; 3],
    /// Body z (up) in world axes.
    pub up: [f64; 3],
}

impl Basis {
    /// From the forward and left vectors and, when the game sends it, the up vector. Left is
    /// made perpendicular to forward first (and up to both), so slightly skewed game vectors
    /// still give a rotation.
    ///
    /// Without an up vector the car is taken to be upright: up is `forward x left` or its
    /// opposite, whichever points up. A game whose world axes are mirrored relative to the
    /// decoder's mapping then still gives the right roll, pitch and body-frame vectors (only
    /// the yaw direction would flip), instead of a car read as upside down.
    pub(crate) fn from_axes(
        forward: [f64; 3],
        left: [f64; 3],
        up: Option<[f64; 3]>,
    ) -> Option<Basis> {
        let forward = unit(forward)?;
        let left = unit(reject(left, forward))?;
        let sent_up = up.and_then(|up| unit(reject(reject(up, forward), left)));
        let up = sent_up.unwrap_or_else(|| {
            let up = cross(forward, left);
            if up[2] < 0.0 {
                up.map(|c| -c)
            } else {
                up
            }
        });
        Some(Basis { forward, left, up })
    }

    /// From rigd's roll, pitch, yaw (Tait-Bryan z-y-x): the columns of `Rz(yaw) Ry(pitch)
    /// Rx(roll)`.
    pub(crate) fn from_roll_pitch_yaw([roll, pitch, yaw]: [f64; 3]) -> Basis {
        let (sr, cr) = roll.sin_cos();
        let (sp, cp) = pitch.sin_cos();
        let (sy, cy) = yaw.sin_cos();
        Basis {
            forward: [cy * cp, sy * cp, -sp],
            left: [cy * sp * sr - sy * cr, sy * sp * sr + cy * cr, cp * sr],
            up: [cy * sp * cr + sy * sr, sy * sp * cr - cy * sr, cp * cr],
        }
    }

    /// A world vector in body axes.
    pub(crate) fn body_of(&self, v: [f64; 3]) -> [f64; 3] {
        [dot(self.forward, v), dot(self.left, v), dot(self.up, v)]
    }

    /// A body vector in world axes.
    #[cfg(test)]
    pub(crate) fn world_of(&self, v: [f64; 3]) -> [f64; 3] {
        [
            self.forward[0] * v[0] + self.left[0] * v[1] + self.up[0] * v[2],
            self.forward[1] * v[0] + self.left[1] * v[1] + self.up[1] * v[2],
            self.forward[2] * v[0] + self.left[2] * v[1] + self.up[2] * v[2],
        ]
    }

    /// Roll, pitch, yaw in rigd's signs (roll positive left side up, pitch positive nose
    /// down, yaw positive turning left from world +x).
    pub(crate) fn roll_pitch_yaw(&self) -> [f64; 3] {
        let yaw = self.forward[1].atan2(self.forward[0]);
        let pitch = (-self.forward[2]).clamp(-1.0, 1.0).asin();
        let roll = self.left[2].atan2(self.up[2]);
        [roll, pitch, yaw]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
    }

    #[test]
    fn angles_survive_a_trip_through_the_axes() {
        let rpy = [0.2, -0.3, 2.5];
        let basis = Basis::from_roll_pitch_yaw(rpy);
        assert!(close(basis.roll_pitch_yaw(), rpy));
        let again = Basis::from_axes(basis.forward, basis.left, None).expect("unit axes");
        assert!(close(again.up, basis.up));
        assert!(close(
            basis.body_of(basis.world_of([1.0, 2.0, 3.0])),
            [1.0, 2.0, 3.0]
        ));
    }

    #[test]
    fn a_car_rolled_left_side_up_has_positive_roll_and_nose_down_positive_pitch() {
        // Left side up: the left axis points partly up.
        let rolled = Basis::from_axes([1.0, 0.0, 0.0], [0.0, 0.9, 0.1], None).unwrap();
        assert!(rolled.roll_pitch_yaw()[0] > 0.09);
        let nose_down = Basis::from_axes([0.95, 0.0, -0.3], [0.0, 1.0, 0.0], None).unwrap();
        assert!(nose_down.roll_pitch_yaw()[1] > 0.29);
    }

    #[test]
    fn without_an_up_vector_the_car_is_upright_with_one_it_may_be_inverted() {
        // Mirrored axes (left on the wrong side of forward): still upright, roll unchanged.
        let mirrored = Basis::from_axes([1.0, 0.0, 0.0], [0.0, -0.9, 0.1], None).unwrap();
        assert!(mirrored.up[2] > 0.99 && (mirrored.roll_pitch_yaw()[0] - 0.11).abs() < 0.01);
        let inverted = Basis::from_axes([1.0, 0.0, 0.0], [0.0, -1.0, 0.0], Some([0.0, 0.0, -1.0]));
        let [roll, _, _] = inverted.unwrap().roll_pitch_yaw();
        assert!((roll.abs() - std::f64::consts::PI).abs() < 1e-9, "{roll}");
    }

    #[test]
    fn zero_or_parallel_vectors_give_no_basis() {
        assert_eq!(Basis::from_axes([0.0; 3], [0.0, 1.0, 0.0], None), None);
        assert_eq!(
            Basis::from_axes([1.0, 0.0, 0.0], [2.0, 0.0, 0.0], None),
            None
        );
        assert_eq!(finite(f32::NAN), None);
        assert_eq!(finite3([1.0, f32::INFINITY, 0.0]), None);
    }
}
