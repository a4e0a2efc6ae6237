//! Gear shifting and clutch work for a robot: when to change gear (at the power-optimal upshift
//! speeds of its envelope when it has them, else from engine speed and the gear ratios), the
//! clutch-press / request / release sequence a manual box needs (with a throttle blip on a
//! downshift to match the engine to the lower gear), launch and
//! anti-stall clutch slip, and the starter. Plain state, no allocation.

use super::limits::DriverLimits;
use crate::controls::GearRequest;
use crate::telemetry::CarTelemetry;

/// Upshift above this fraction of the rev limit (without power-optimal upshift speeds).
const UPSHIFT_FRACTION: f64 = 0.94;
/// Upshift at this fraction of the rev limit whatever the upshift speeds say.
const UPSHIFT_CEILING_FRACTION: f64 = 0.98;
/// Downshift when the lower gear would run below this fraction of the rev limit (without
/// power-optimal upshift speeds).
const DOWNSHIFT_FRACTION: f64 = 0.78;
/// With power-optimal upshift speeds: downshift below this share of the lower gear's upshift
/// speed (no hunting between two gears).
const DOWNSHIFT_HYSTERESIS: f64 = 0.97;
/// ... and only when the lower gear runs below this fraction of the rev limit.
const DOWNSHIFT_CEILING_FRACTION: f64 = 0.9;
/// Clutch fully pressed before the request, s.
const PRESS_S: f64 = 0.05;
/// Clutch release ramp after the gear is in, s.
const RELEASE_S: f64 = 0.15;
/// A shift that has not happened after this long is abandoned (refused), s.
const GIVE_UP_S: f64 = 1.0;
/// Time a clutch shift adds to the gearbox's own shift time: the press, and half the release
/// ramp (the drive comes back along it), s.
pub const CLUTCH_WORK_S: f64 = PRESS_S + 0.5 * RELEASE_S;
/// Pause between shifts, s.
const COOLDOWN_S: f64 = 0.4;
/// Launch slip control holds the engine near idle + this fraction of the usable rev range.
const LAUNCH_FRACTION: f64 = 0.35;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Driving,
    Pressing,
    Engaging,
    Releasing,
}

/// What the shifting logic asks for this step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GearOutput {
    /// Clutch pedal, 0 released ..= 1 pressed.
    pub clutch: f64,
    /// Gear request (an edge event).
    pub request: GearRequest,
    /// Throttle must be closed (shift in progress).
    pub lift: bool,
    /// Full throttle to match the engine to the lower gear of a downshift while the clutch is
    /// down (a blip), so engaging it does not brake the driven wheels into lock.
    pub blip: bool,
    /// Starter engaged.
    pub starter: bool,
}

/// Shift state of one robot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gears {
    phase: Phase,
    timer_s: f64,
    target: i8,
    /// The shift in progress goes to a lower gear.
    downshifting: bool,
    cooldown_s: f64,
}

impl Default for Gears {
    fn default() -> Self {
        Gears {
            phase: Phase::Driving,
            timer_s: 0.0,
            target: 0,
            downshifting: false,
            cooldown_s: 0.0,
        }
    }
}

impl Gears {
    /// The gear the robot wants at `speed_mps` given the current gear and engine speed.
    fn wanted(limits: &DriverLimits, gear: i8, rpm: f64, speed_mps: f64) -> i8 {
        let rev = limits.rev_limit_rpm;
        if gear <= 0 {
            // Out of neutral: first for a sequential box, else the lowest gear the road speed
            // does not over-rev (a rolling start).
            if limits.sequential {
                return 1;
            }
            let fits = (1..=limits.forward_gears)
                .find(|&g| limits.rpm_in_gear(g, speed_mps) < UPSHIFT_FRACTION * rev);
            return fits.unwrap_or(limits.forward_gears) as i8;
        }
        let g = gear as usize;
        let in_gear = limits.rpm_in_gear(g, speed_mps).max(rpm);
        // The power-optimal speed as the engine speed it means in this gear (the engine's own
        // speed, so tyre deflection and slip do not delay the shift).
        let upshift_due = match limits.upshift_speeds_mps.get(g - 1) {
            Some(&optimal) if optimal > 0.0 => {
                let optimal_rpm = limits
                    .rpm_in_gear(g, optimal)
                    .min(UPSHIFT_CEILING_FRACTION * rev);
                in_gear >= optimal_rpm
            }
            _ => in_gear > UPSHIFT_FRACTION * rev,
        };
        if g < limits.forward_gears && upshift_due {
            return gear + 1;
        }
        if g > 1 {
            let lower_rpm = limits.rpm_in_gear(g - 1, speed_mps);
            // With power-optimal speeds: down as soon as the lower gear gives more force and
            // does not over-rev (while braking, ready for the exit); else by engine speed.
            let downshift_due = match limits.upshift_speeds_mps.get(g - 2) {
                Some(&optimal) if optimal > 0.0 => {
                    speed_mps < DOWNSHIFT_HYSTERESIS * optimal
                        && lower_rpm < DOWNSHIFT_CEILING_FRACTION * rev
                }
                _ => lower_rpm < DOWNSHIFT_FRACTION * rev,
            };
            if downshift_due {
                return gear - 1;
            }
        }
        gear
    }

    /// One step of shifting; `dt_s` since the previous call.
    pub fn update(
        &mut self,
        limits: &DriverLimits,
        telemetry: &CarTelemetry,
        speed_mps: f64,
        dt_s: f64,
    ) -> GearOutput {
        let dt = &telemetry.drivetrain;
        let mut out = GearOutput {
            clutch: 0.0,
            request: GearRequest::None,
            lift: false,
            blip: false,
            starter: false,
        };
        if limits.forward_gears == 0 || dt.forward_gears == 0 {
            return out;
        }
        if !dt.engine_running {
            out.starter = true;
            out.clutch = 1.0;
            return out;
        }
        self.cooldown_s = (self.cooldown_s - dt_s).max(0.0);
        self.timer_s += dt_s;
        let needs_clutch = limits.shift_needs_clutch;
        match self.phase {
            Phase::Driving => {
                let wanted = Gears::wanted(limits, dt.gear, dt.engine_rpm, speed_mps);
                if wanted != dt.gear && self.cooldown_s == 0.0 && !dt.shifting {
                    self.target = wanted;
                    self.downshifting = wanted < dt.gear;
                    self.timer_s = 0.0;
                    if needs_clutch {
                        self.phase = Phase::Pressing;
                        out.clutch = 1.0;
                        out.lift = true;
                    } else {
                        self.phase = Phase::Engaging;
                        out.request = GearRequest::Select(wanted);
                    }
                    return out;
                }
                out.clutch = self.slip_clutch(limits, dt.gear, dt.engine_rpm, speed_mps);
            }
            Phase::Pressing => {
                out.clutch = 1.0;
                out.lift = true;
                out.blip = self.blip_due(limits, dt.engine_rpm, speed_mps);
                if self.timer_s >= PRESS_S {
                    out.request = GearRequest::Select(self.target);
                    self.phase = Phase::Engaging;
                    self.timer_s = 0.0;
                }
            }
            Phase::Engaging => {
                out.clutch = if needs_clutch { 1.0 } else { 0.0 };
                out.lift = dt.shifting;
                out.blip = needs_clutch && self.blip_due(limits, dt.engine_rpm, speed_mps);
                if dt.gear == self.target && !dt.shifting {
                    self.phase = Phase::Releasing;
                    self.timer_s = 0.0;
                } else if self.timer_s > GIVE_UP_S {
                    self.phase = Phase::Driving;
                    self.cooldown_s = COOLDOWN_S;
                }
            }
            Phase::Releasing => {
                let ramp = if needs_clutch {
                    1.0 - (self.timer_s / RELEASE_S).min(1.0)
                } else {
                    0.0
                };
                out.clutch = ramp.max(self.slip_clutch(limits, dt.gear, dt.engine_rpm, speed_mps));
                out.blip = ramp > 0.0 && self.blip_due(limits, dt.engine_rpm, speed_mps);
                if ramp == 0.0 {
                    self.phase = Phase::Driving;
                    self.cooldown_s = COOLDOWN_S;
                }
            }
        }
        out
    }

    /// Whether a downshift in progress needs the engine revved up: it runs below what the
    /// target gear turns it at `speed_mps`.
    fn blip_due(&self, limits: &DriverLimits, rpm: f64, speed_mps: f64) -> bool {
        self.downshifting
            && self.target > 0
            && rpm < limits.rpm_in_gear(self.target as usize, speed_mps)
    }

    /// Clutch slip for launches and against stalling: pressed at idle, released once the
    /// engine runs at the launch speed or the road speed carries it there.
    fn slip_clutch(&self, limits: &DriverLimits, gear: i8, rpm: f64, speed_mps: f64) -> f64 {
        if limits.auto_clutch || gear == 0 {
            return 0.0;
        }
        let idle = limits.idle_rpm;
        let launch = idle + LAUNCH_FRACTION * (limits.rev_limit_rpm - idle);
        if limits.rpm_in_gear(gear.max(1) as usize, speed_mps) >= launch {
            return 0.0;
        }
        ((launch - rpm) / (launch - idle)).clamp(0.0, 1.0)
    }
}
