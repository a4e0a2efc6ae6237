//! The rig check's motion (`rigd motion test`): each axis the platform has (surge, sway,
//! heave, roll, pitch, yaw, in that order), one at a time, out to the positive side, back to
//! neutral, out to the negative side and back, on smooth half-cosine moves. Each side goes to
//! [`JOG_SHARE`] of how far the platform reaches along that axis alone (found with the same
//! workspace clamp the cueing uses), so a builder sees clearly which way each axis moves
//! without coming near the ends. Pure: a pose for a time; the stage's tracker still keeps
//! every actuator inside its travel, speed and acceleration limits.

use super::kinematics::{Platform, Pose};

/// Share of the reachable excursion an axis is jogged to.
pub const JOG_SHARE: f64 = 0.5;

/// Names and positive directions of the pose components, in [`Pose::to_array`] order.
const AXES: [(&str, &str, &str); 6] = [
    ("surge", "forward", "back"),
    ("sway", "left", "right"),
    ("heave", "up", "down"),
    ("roll", "left side up", "right side up"),
    ("pitch", "nose down", "nose up"),
    ("yaw", "nose left", "nose right"),
];

/// One move of the jog.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JogMove {
    /// Pose component index (0 surge .. 5 yaw).
    pub axis: usize,
    /// Pose at the start of the move.
    pub from: f64,
    /// Pose at its end (m or rad).
    pub to: f64,
}

impl JogMove {
    /// What this move does, for the builder watching the rig.
    pub fn describe(&self) -> String {
        let (name, positive, negative) = AXES[self.axis];
        let (amount, unit) = if self.axis < 3 {
            (self.to.abs() * 1000.0, "mm")
        } else {
            (self.to.abs().to_degrees(), "deg")
        };
        if self.to == 0.0 {
            format!("{name}: back to neutral")
        } else if self.to > 0.0 {
            format!("{name} +: {positive}, {amount:.1} {unit}")
        } else {
            format!("{name} -: {negative}, {amount:.1} {unit}")
        }
    }
}

/// The moves of one platform and their timing.
#[derive(Debug, Clone, PartialEq)]
pub struct JogPlan {
    moves: Vec<JogMove>,
    move_s: f64,
}

impl JogPlan {
    /// Four moves per axis the platform has, each `move_s` long, to [`JOG_SHARE`] of the
    /// reach along that axis (within `limit`, the usable half travel).
    pub fn new(platform: &Platform, limit: f64, move_s: f64) -> JogPlan {
        let mut moves = Vec::new();
        for &axis in platform.degrees_of_freedom() {
            let reach = |sign: f64| {
                let mut pose = [0.0; 6];
                // 1 m or 1 rad (57 deg) is past any platform's reach.
                pose[axis] = sign;
                platform
                    .clamp_pose(&Pose::from_array(pose), limit)
                    .map_or(0.0, |(_, _, scale)| sign * scale)
            };
            let (up, down) = (JOG_SHARE * reach(1.0), JOG_SHARE * reach(-1.0));
            for (from, to) in [(0.0, up), (up, 0.0), (0.0, down), (down, 0.0)] {
                moves.push(JogMove { axis, from, to });
            }
        }
        JogPlan { moves, move_s }
    }

    /// Every move, in order.
    pub fn moves(&self) -> &[JogMove] {
        &self.moves
    }

    /// Length of the whole jog, s.
    pub fn duration_s(&self) -> f64 {
        self.moves.len() as f64 * self.move_s
    }

    /// The move under way at `t_s` and the pose then (neutral after the end).
    pub fn at(&self, t_s: f64) -> Option<(usize, Pose)> {
        let index = (t_s.max(0.0) / self.move_s) as usize;
        let m = self.moves.get(index)?;
        let u = (t_s / self.move_s - index as f64).clamp(0.0, 1.0);
        let s = 0.5 - 0.5 * (std::f64::consts::PI * u).cos();
        let mut pose = [0.0; 6];
        pose[m.axis] = m.from + (m.to - m.from) * s;
        Some((index, Pose::from_array(pose)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::motion::kinematics::{PlanarDrive, StewartGeometry};

    #[test]
    fn a_stewart_platform_jogs_all_six_axes_in_order_within_its_reach() {
        let platform =
            Platform::StewartLinear(StewartGeometry::paired(0.55, 0.35, 20.0, 20.0, 0.6));
        let plan = JogPlan::new(&platform, 0.07, 2.0);
        let axes: Vec<usize> = plan.moves().iter().map(|m| m.axis).collect();
        assert_eq!(axes.len(), 24);
        assert!(axes.windows(2).all(|w| w[0] <= w[1]), "{axes:?}");
        assert_eq!(plan.duration_s(), 48.0);
        for m in plan.moves() {
            let (_, actuators, scale) = platform
                .clamp_pose(
                    &Pose::from_array(std::array::from_fn(
                        |k| if k == m.axis { m.to } else { 0.0 },
                    )),
                    0.07,
                )
                .unwrap();
            assert_eq!(scale, 1.0, "inside the reach: {m:?}");
            assert!(
                actuators.as_slice().iter().all(|v| v.abs() <= 0.6 * 0.07),
                "{m:?}"
            );
        }
        // Surge + goes forward, back to neutral at the end of its second move.
        assert!(plan.moves()[0].to > 0.01 && plan.moves()[2].to < -0.01);
        assert_eq!(
            plan.moves()[0].describe(),
            format!("surge +: forward, {:.1} mm", plan.moves()[0].to * 1000.0)
        );
        let (index, pose) = plan.at(3.0).unwrap();
        assert_eq!(index, 1);
        assert!((pose.surge_m - 0.5 * plan.moves()[0].to).abs() < 1e-12);
        assert!(plan.at(48.0).is_none());
    }

    #[test]
    fn a_two_actuator_seat_jogs_roll_then_pitch() {
        let platform = Platform::Planar {
            points: [[-0.4, 0.25], [-0.4, -0.25], [0.0; 2], [0.0; 2]],
            count: 2,
            drive: PlanarDrive::Crank { radius_m: 0.1 },
        };
        let plan = JogPlan::new(&platform, 1.0, 1.0);
        let axes: Vec<usize> = plan.moves().iter().map(|m| m.axis).collect();
        assert_eq!(axes, [3, 3, 3, 3, 4, 4, 4, 4]);
        assert!(plan.moves()[0]
            .describe()
            .starts_with("roll +: left side up"));
        assert!(plan.moves()[6].describe().starts_with("pitch -: nose up"));
    }
}
