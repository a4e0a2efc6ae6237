//! Small f64 vector, matrix and quaternion helpers for the car model.
//!
//! Written here (not a linear-algebra crate) so every operation is plain IEEE arithmetic in a
//! fixed order: the same inputs give bit-identical results on every run. Quaternions are
//! `[w, x, y, z]`, unit length, rotating body-frame vectors into the world frame.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A 3-vector, metres, newtons or radians per second depending on use.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3 {
    /// x component.
    pub x: f64,
    /// y component.
    pub y: f64,
    /// z component.
    pub z: f64,
}

impl Vec3 {
    /// The zero vector.
    pub const ZERO: Vec3 = Vec3::new(0.0, 0.0, 0.0);
    /// World up (z).
    pub const Z: Vec3 = Vec3::new(0.0, 0.0, 1.0);

    /// Builds a vector.
    pub const fn new(x: f64, y: f64, z: f64) -> Vec3 {
        Vec3 { x, y, z }
    }

    /// From an array `[x, y, z]`.
    pub const fn from_array(a: [f64; 3]) -> Vec3 {
        Vec3::new(a[0], a[1], a[2])
    }

    /// As an array `[x, y, z]`.
    pub const fn to_array(self) -> [f64; 3] {
        [self.x, self.y, self.z]
    }

    /// Dot product.
    pub fn dot(self, o: Vec3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// Cross product.
    pub fn cross(self, o: Vec3) -> Vec3 {
        Vec3::new(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }

    /// Euclidean length.
    pub fn length(self) -> f64 {
        self.dot(self).sqrt()
    }

    /// Unit vector in the same direction, or `fallback` when the length is (near) zero.
    pub fn normalized_or(self, fallback: Vec3) -> Vec3 {
        let len = self.length();
        if len > 1e-12 {
            self * (1.0 / len)
        } else {
            fallback
        }
    }

    /// True when every component is finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.z.is_finite()
    }
}

impl Add for Vec3 {
    type Output = Vec3;
    fn add(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}

impl AddAssign for Vec3 {
    fn add_assign(&mut self, o: Vec3) {
        *self = *self + o;
    }
}

impl Sub for Vec3 {
    type Output = Vec3;
    fn sub(self, o: Vec3) -> Vec3 {
        Vec3::new(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}

impl SubAssign for Vec3 {
    fn sub_assign(&mut self, o: Vec3) {
        *self = *self - o;
    }
}

impl Mul<f64> for Vec3 {
    type Output = Vec3;
    fn mul(self, s: f64) -> Vec3 {
        Vec3::new(self.x * s, self.y * s, self.z * s)
    }
}

impl Neg for Vec3 {
    type Output = Vec3;
    fn neg(self) -> Vec3 {
        Vec3::new(-self.x, -self.y, -self.z)
    }
}

/// A 3x3 matrix stored by rows.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Mat3 {
    /// Rows.
    pub rows: [Vec3; 3],
}

impl Mat3 {
    /// The identity matrix.
    pub const IDENTITY: Mat3 = Mat3 {
        rows: [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ],
    };

    /// A symmetric matrix from its diagonal and off-diagonal (xy, xz, yz) entries.
    pub fn symmetric(diag: [f64; 3], off: [f64; 3]) -> Mat3 {
        Mat3 {
            rows: [
                Vec3::new(diag[0], off[0], off[1]),
                Vec3::new(off[0], diag[1], off[2]),
                Vec3::new(off[1], off[2], diag[2]),
            ],
        }
    }

    /// Matrix times vector.
    pub fn mul_vec(&self, v: Vec3) -> Vec3 {
        Vec3::new(
            self.rows[0].dot(v),
            self.rows[1].dot(v),
            self.rows[2].dot(v),
        )
    }

    /// Transposed matrix times vector.
    pub fn transpose_mul_vec(&self, v: Vec3) -> Vec3 {
        self.rows[0] * v.x + self.rows[1] * v.y + self.rows[2] * v.z
    }

    /// Column `i` (for a rotation matrix: body axis `i` in world coordinates).
    pub fn column(&self, i: usize) -> Vec3 {
        match i {
            0 => Vec3::new(self.rows[0].x, self.rows[1].x, self.rows[2].x),
            1 => Vec3::new(self.rows[0].y, self.rows[1].y, self.rows[2].y),
            _ => Vec3::new(self.rows[0].z, self.rows[1].z, self.rows[2].z),
        }
    }

    /// Determinant.
    pub fn determinant(&self) -> f64 {
        self.rows[0].dot(self.rows[1].cross(self.rows[2]))
    }

    /// Inverse, or `None` when singular.
    pub fn inverse(&self) -> Option<Mat3> {
        let det = self.determinant();
        if det.abs() <= 1e-300 || !det.is_finite() {
            return None;
        }
        let [a, b, c] = self.rows;
        // Columns of the inverse are the cross products of the rows, divided by det.
        let c0 = b.cross(c) * (1.0 / det);
        let c1 = c.cross(a) * (1.0 / det);
        let c2 = a.cross(b) * (1.0 / det);
        Some(Mat3 {
            rows: [
                Vec3::new(c0.x, c1.x, c2.x),
                Vec3::new(c0.y, c1.y, c2.y),
                Vec3::new(c0.z, c1.z, c2.z),
            ],
        })
    }
}

/// A unit quaternion `w + xi + yj + zk` rotating body vectors into the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quat {
    /// Scalar part.
    pub w: f64,
    /// i part.
    pub x: f64,
    /// j part.
    pub y: f64,
    /// k part.
    pub z: f64,
}

impl Default for Quat {
    fn default() -> Self {
        Quat::IDENTITY
    }
}

impl Quat {
    /// No rotation.
    pub const IDENTITY: Quat = Quat {
        w: 1.0,
        x: 0.0,
        y: 0.0,
        z: 0.0,
    };

    /// Rotation by `angle_rad` about the world z axis.
    pub fn from_yaw(angle_rad: f64) -> Quat {
        let (s, c) = (0.5 * angle_rad).sin_cos();
        Quat {
            w: c,
            x: 0.0,
            y: 0.0,
            z: s,
        }
    }

    /// The shortest rotation turning unit vector `from` onto unit vector `to`.
    pub fn from_to(from: Vec3, to: Vec3) -> Quat {
        let d = from.dot(to);
        if d < -1.0 + 1e-12 {
            // Opposite: half a turn about any axis perpendicular to `from`.
            let axis = from
                .cross(Vec3::new(1.0, 0.0, 0.0))
                .normalized_or(Vec3::new(0.0, 1.0, 0.0));
            return Quat {
                w: 0.0,
                x: axis.x,
                y: axis.y,
                z: axis.z,
            };
        }
        let c = from.cross(to);
        Quat {
            w: 1.0 + d,
            x: c.x,
            y: c.y,
            z: c.z,
        }
        .normalized()
    }

    /// Hamilton product `self * o`.
    pub fn product(self, o: Quat) -> Quat {
        Quat {
            w: self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
            x: self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            y: self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            z: self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
        }
    }

    /// The same rotation scaled back to unit length (identity if degenerate).
    pub fn normalized(self) -> Quat {
        let n = (self.w * self.w + self.x * self.x + self.y * self.y + self.z * self.z).sqrt();
        if n > 1e-12 && n.is_finite() {
            let s = 1.0 / n;
            Quat {
                w: self.w * s,
                x: self.x * s,
                y: self.y * s,
                z: self.z * s,
            }
        } else {
            Quat::IDENTITY
        }
    }

    /// Advances the orientation by the body-frame angular velocity over `dt_s`
    /// (first-order exponential map, renormalised).
    pub fn integrate_body_rate(self, omega_body: Vec3, dt_s: f64) -> Quat {
        let h = 0.5 * dt_s;
        let dq = Quat {
            w: 0.0,
            x: omega_body.x * h,
            y: omega_body.y * h,
            z: omega_body.z * h,
        };
        let d = self.product(dq);
        Quat {
            w: self.w + d.w,
            x: self.x + d.x,
            y: self.y + d.y,
            z: self.z + d.z,
        }
        .normalized()
    }

    /// Rotation matrix (body to world).
    pub fn to_mat3(self) -> Mat3 {
        let Quat { w, x, y, z } = self;
        let (xx, yy, zz) = (x * x, y * y, z * z);
        let (xy, xz, yz) = (x * y, x * z, y * z);
        let (wx, wy, wz) = (w * x, w * y, w * z);
        Mat3 {
            rows: [
                Vec3::new(1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy)),
                Vec3::new(2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx)),
                Vec3::new(2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy)),
            ],
        }
    }

    /// Roll, pitch, yaw (Tait-Bryan z-y-x), rad.
    pub fn roll_pitch_yaw(self) -> [f64; 3] {
        let Quat { w, x, y, z } = self;
        let roll = (2.0 * (w * x + y * z)).atan2(1.0 - 2.0 * (x * x + y * y));
        let pitch = (2.0 * (w * y - z * x)).clamp(-1.0, 1.0).asin();
        let yaw = (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z));
        [roll, pitch, yaw]
    }

    /// As `[w, x, y, z]`.
    pub fn to_array(self) -> [f64; 4] {
        [self.w, self.x, self.y, self.z]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaw_rotation_turns_x_into_y() {
        let m = Quat::from_yaw(std::f64::consts::FRAC_PI_2).to_mat3();
        let v = m.mul_vec(Vec3::new(1.0, 0.0, 0.0));
        assert!((v.x).abs() < 1e-12 && (v.y - 1.0).abs() < 1e-12);
        let back = m.transpose_mul_vec(v);
        assert!((back.x - 1.0).abs() < 1e-12);
    }

    #[test]
    fn from_to_turns_z_onto_a_slope_normal() {
        let n = Vec3::new(-0.1, 0.0, 1.0).normalized_or(Vec3::Z);
        let z = Quat::from_to(Vec3::Z, n).to_mat3().column(2);
        assert!((z - n).length() < 1e-12);
    }

    #[test]
    fn inverse_of_symmetric_inertia() {
        let m = Mat3::symmetric([500.0, 2000.0, 2200.0], [0.0, 50.0, 0.0]);
        let inv = m.inverse().unwrap();
        let v = Vec3::new(1.0, 2.0, 3.0);
        let back = inv.mul_vec(m.mul_vec(v));
        assert!((back - v).length() < 1e-12);
    }
}
