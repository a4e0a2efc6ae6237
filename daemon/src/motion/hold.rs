//! Why a motion platform holds (parks, or fades out of its cues) and when it rejoins them: the
//! RT stage publishes a [`MotionHold`] through a wait-free latest-value slot whenever it
//! changes; the health thread ([`MotionHolds`]) logs each hold once with its cause (a short
//! hold between two looks is still counted and said), its end once ("rejoins its cues"), and
//! gives the motion part of `STATUS=`, the loop-health line and the dashboard's rig page,
//! with the hold counters. The stage also reports its hold to the RT loop each tick
//! ([`MotionHold::telemetry`]), which puts it in the frame, so the native telemetry packet
//! carries the state, cause and counters to rig-dash and any listener.
//!
//! A cause is generic over the loop's [`StopReason`] (exit, reload, fault, e-stop, idle, and
//! any reason a source adds): [`HoldCause::Stop`] carries it; the stage adds its own causes
//! (stale data, every link down).

use std::sync::Mutex;

use rig_protocols::MotionHoldTelemetry;

use super::safety::SafetyState;
use crate::rt::handoff::LatestReader;
use crate::rt::stage::StopReason;

/// Why a platform left its cues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldCause {
    /// The loop safe-stopped every output.
    Stop(StopReason),
    /// Simulation time stopped advancing: the cues fade to neutral (and park after long).
    StaleData,
    /// Every controller link of the platform is down.
    LinkDown,
}

impl HoldCause {
    /// A few words for `STATUS=` and the dashboard.
    pub fn label(self) -> &'static str {
        match self {
            HoldCause::Stop(StopReason::Exit) => "rigd stops",
            HoldCause::Stop(StopReason::Reload) => "reload",
            HoldCause::Stop(StopReason::Fault) => "loop fault (late loop or bad physics)",
            HoldCause::Stop(StopReason::EmergencyStop) => "e-stop",
            HoldCause::Stop(StopReason::Idle) => "nobody drives",
            HoldCause::Stop(StopReason::Source) => "game source not live",
            HoldCause::StaleData => "stale data",
            HoldCause::LinkDown => "no controller link",
        }
    }

    /// What happened and what brings the platform back, for the log.
    pub fn explanation(self) -> &'static str {
        match self {
            HoldCause::Stop(StopReason::Exit) => "rigd is stopping: parking",
            HoldCause::Stop(StopReason::Reload) => "the configuration is reloading: parking",
            HoldCause::Stop(StopReason::Fault) => {
                "the physics loop faulted (a late loop missed [loop] fault_after_missed_ticks \
                 deadlines in a row, or physics gave a non-finite value): parking; it rejoins \
                 after a second on time"
            }
            HoldCause::Stop(StopReason::EmergencyStop) => {
                "the e-stop is pressed: parking; it rejoins when the e-stop is released"
            }
            HoldCause::Stop(StopReason::Idle) => {
                "nobody drives and the loop idles: parking; it rejoins when a wheel or gamepad \
                 drives"
            }
            HoldCause::Stop(StopReason::Source) => {
                "the game's telemetry is not live (paused, in a menu, no packet for [source] \
                 lost_after_ms, or a jump in position): parking; it rejoins with a ramp when the \
                 game sends live data again"
            }
            HoldCause::StaleData => {
                "simulation time stopped advancing (paused or no data for [motion.platforms.safety] \
                 stale_after_ms): the cues fade to neutral, and the platform parks after \
                 idle_before_park_s"
            }
            HoldCause::LinkDown => {
                "every controller link is down: the platform holds where it is and parks when a \
                 link is back"
            }
        }
    }

    /// The cause's telemetry code (1..=8; 0 is "no hold").
    pub fn code(self) -> u8 {
        match self {
            HoldCause::Stop(StopReason::Exit) => 1,
            HoldCause::Stop(StopReason::Reload) => 2,
            HoldCause::Stop(StopReason::Fault) => 3,
            HoldCause::Stop(StopReason::EmergencyStop) => 4,
            HoldCause::Stop(StopReason::Idle) => 5,
            HoldCause::Stop(StopReason::Source) => 6,
            HoldCause::StaleData => 7,
            HoldCause::LinkDown => 8,
        }
    }

    /// True for a hold the user should be warned about (a fault, the e-stop, a lost link)
    /// rather than told about (a stop, reload, idle or a pause).
    pub fn is_warning(self) -> bool {
        matches!(
            self,
            HoldCause::Stop(StopReason::Fault | StopReason::EmergencyStop) | HoldCause::LinkDown
        )
    }
}

/// What a platform's stage publishes (`Copy`, through a latest-value slot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MotionHold {
    /// The safety state.
    pub state: SafetyState,
    /// The cause of the hold in progress (`None`: following its cues, or never held).
    pub cause: Option<HoldCause>,
    /// The cause of the latest hold.
    pub latest: Option<HoldCause>,
    /// Holds since the stage started.
    pub holds: u32,
    /// Of them: loop faults (late loop, bad physics).
    pub fault_holds: u32,
    /// Of them: e-stops.
    pub estop_holds: u32,
    /// Of them: stale data.
    pub stale_holds: u32,
}

impl MotionHold {
    /// A hold for `cause` begins (or replaces the one in progress).
    pub fn begin(&mut self, cause: HoldCause) {
        self.cause = Some(cause);
        self.latest = Some(cause);
        self.holds = self.holds.wrapping_add(1);
        match cause {
            HoldCause::Stop(StopReason::Fault) => self.fault_holds += 1,
            HoldCause::Stop(StopReason::EmergencyStop) => self.estop_holds += 1,
            HoldCause::StaleData => self.stale_holds += 1,
            _ => {}
        }
    }

    /// The platform follows its cues again.
    pub fn rejoin(&mut self) {
        self.cause = None;
    }

    /// The hold as telemetry carries it for one platform (codes of `docs/telemetry-native.md`,
    /// "motion holds").
    pub fn telemetry(&self) -> MotionHoldTelemetry {
        MotionHoldTelemetry {
            platforms: 1,
            held: u8::from(self.cause.is_some()),
            state: self.state as u8,
            cause: self.cause.map_or(0, HoldCause::code),
            latest: self.latest.map_or(0, HoldCause::code),
            holds: self.holds,
            fault_holds: self.fault_holds,
            estop_holds: self.estop_holds,
            stale_holds: self.stale_holds,
        }
    }

    /// The state in words: `active`, or `parking (e-stop)`.
    pub fn state_text(&self) -> String {
        let state = format!("{:?}", self.state).to_lowercase();
        match self.cause {
            Some(cause) => format!("{state} ({})", cause.label()),
            None => state,
        }
    }

    /// The counters in words (empty before the first hold).
    pub fn counters_text(&self) -> String {
        if self.holds == 0 {
            return String::new();
        }
        format!(
            ", {} hold(s): fault {}, e-stop {}, stale {}",
            self.holds, self.fault_holds, self.estop_holds, self.stale_holds
        )
    }
}

/// One platform's slot as the health thread sees it.
struct PlatformHolds {
    name: String,
    reader: LatestReader<MotionHold>,
    holds_seen: u32,
    reported_held: bool,
}

/// One line for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldLine {
    /// Log it as a warning rather than information.
    pub warning: bool,
    /// The text.
    pub text: String,
}

/// Every motion platform of a session, for the health thread (the RT thread never touches
/// this lock: the stages hold only their slot's writing end).
#[derive(Default)]
pub struct MotionHolds {
    platforms: Mutex<Vec<PlatformHolds>>,
}

impl std::fmt::Debug for MotionHolds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MotionHolds")
    }
}

impl MotionHolds {
    /// Adds platform `name`'s slot (when its stage is built).
    pub fn register(&self, name: &str, reader: LatestReader<MotionHold>) {
        self.lock().push(PlatformHolds {
            name: name.to_string(),
            reader,
            holds_seen: 0,
            reported_held: false,
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<PlatformHolds>> {
        self.platforms
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The lines to log now: each hold that began since the last call (once), each rejoin.
    pub fn lines(&self) -> Vec<HoldLine> {
        let mut out = Vec::new();
        for p in self.lock().iter_mut() {
            let now = p.reader.read();
            if now.holds != p.holds_seen {
                let more = now.holds.wrapping_sub(p.holds_seen).saturating_sub(1);
                p.holds_seen = now.holds;
                p.reported_held = now.cause.is_some();
                let Some(latest) = now.latest else { continue };
                let state = if p.reported_held {
                    format!("{} now", now.state_text())
                } else {
                    "rejoined its cues already".to_string()
                };
                let more = if more > 0 {
                    format!(", {more} more hold(s) since the last report")
                } else {
                    String::new()
                };
                out.push(HoldLine {
                    warning: latest.is_warning(),
                    text: format!(
                        "motion platform `{}` left its cues: {} ({state}{more})",
                        p.name,
                        latest.explanation()
                    ),
                });
            } else if p.reported_held && now.cause.is_none() {
                p.reported_held = false;
                out.push(HoldLine {
                    warning: false,
                    text: format!(
                        "motion platform `{}` rejoins its cues (after: {})",
                        p.name,
                        now.latest.map_or("a hold", HoldCause::label)
                    ),
                });
            }
        }
        out
    }

    /// One line per platform (`motion seat: active, 2 hold(s): ...`), for the dashboard's
    /// rig page and, joined, `STATUS=` and the health line.
    pub fn status_lines(&self) -> Vec<String> {
        self.lock()
            .iter_mut()
            .map(|p| {
                let now = p.reader.read();
                format!(
                    "motion {}: {}{}",
                    p.name,
                    now.state_text(),
                    now.counters_text()
                )
            })
            .collect()
    }

    /// The motion part of `STATUS=` (empty without platforms).
    pub fn status(&self) -> String {
        self.status_lines()
            .iter()
            .map(|line| format!(" | {line}"))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rt::handoff::latest_value;

    #[test]
    fn telemetry_carries_the_state_cause_and_counters_as_documented_codes() {
        let mut hold = MotionHold::default();
        assert_eq!(hold.telemetry().platforms, 1);
        assert_eq!((hold.telemetry().state, hold.telemetry().cause), (0, 0));
        hold.begin(HoldCause::Stop(StopReason::Fault));
        hold.begin(HoldCause::Stop(StopReason::EmergencyStop));
        hold.state = SafetyState::Parking;
        let t = hold.telemetry();
        assert_eq!((t.held, t.state, t.cause, t.latest), (1, 6, 4, 4));
        assert_eq!(
            (t.holds, t.fault_holds, t.estop_holds, t.stale_holds),
            (2, 1, 1, 0)
        );
        hold.rejoin();
        hold.state = SafetyState::Active;
        let t = hold.telemetry();
        assert_eq!((t.held, t.state, t.cause, t.latest), (0, 3, 0, 4));
        assert_eq!(HoldCause::StaleData.code(), 7);
        assert_eq!(HoldCause::LinkDown.code(), 8);
    }

    #[test]
    fn a_short_fault_hold_is_said_once_and_its_rejoin_once() {
        let holds = MotionHolds::default();
        let (mut writer, reader) = latest_value(MotionHold::default());
        holds.register("seat", reader);
        let mut hold = MotionHold {
            state: SafetyState::Active,
            ..MotionHold::default()
        };
        writer.write(hold);
        assert!(holds.lines().is_empty());
        hold.begin(HoldCause::Stop(StopReason::Fault));
        hold.state = SafetyState::Parking;
        writer.write(hold);
        let lines = holds.lines();
        assert_eq!(lines.len(), 1);
        assert!(lines[0].warning);
        assert!(
            lines[0].text.contains("late loop") && lines[0].text.contains("parking (loop fault"),
            "{}",
            lines[0].text
        );
        assert_eq!(
            holds.status(),
            " | motion seat: parking (loop fault (late loop or bad physics)), 1 hold(s): fault 1, e-stop 0, stale 0"
        );
        assert!(holds.lines().is_empty(), "said once");
        hold.state = SafetyState::Active;
        hold.rejoin();
        writer.write(hold);
        let lines = holds.lines();
        assert_eq!(lines.len(), 1);
        assert!(!lines[0].warning && lines[0].text.contains("rejoins its cues"));
        assert!(holds.lines().is_empty());
        // Two holds between looks: the latest is said, the other counted.
        hold.begin(HoldCause::StaleData);
        hold.rejoin();
        hold.begin(HoldCause::Stop(StopReason::EmergencyStop));
        writer.write(hold);
        let lines = holds.lines();
        assert!(lines[0].text.contains("e-stop") && lines[0].text.contains("1 more hold(s)"));
    }
}
