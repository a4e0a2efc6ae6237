//! The health thread's account of force-feedback holds: each hold is logged once when it
//! starts (the link counts starts, so a hold shorter than the thread's one-second look is
//! still reported), its release once, and the FFB part of `STATUS=`. Nothing here touches the
//! RT thread: it reads [`FfbLink`]'s atomics.

use rig_protocols::FfbHold;

use super::link::FfbLink;

/// One line for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldLine {
    /// Log as a warning (a hold the user should know about) rather than information.
    pub warning: bool,
    /// The text.
    pub text: String,
}

/// What the health thread has reported so far for one session's link.
#[derive(Debug, Default)]
pub struct HoldLog {
    starts_seen: u32,
    reported_held: bool,
}

impl HoldLog {
    /// The line to log now, if a hold started or ended since the last call.
    pub fn next_line(&mut self, link: &FfbLink) -> Option<HoldLine> {
        let (starts, latest) = link.hold_starts();
        let now = link.hold();
        if starts > self.starts_seen {
            let more = starts - self.starts_seen - 1;
            self.starts_seen = starts;
            self.reported_held = now != FfbHold::None;
            let state = if self.reported_held {
                format!("held now: {}", now.label())
            } else {
                "released again".to_string()
            };
            let more = if more > 0 {
                format!(", {more} more hold(s) since the last report")
            } else {
                String::new()
            };
            return Some(HoldLine {
                warning: latest != FfbHold::Stopping,
                text: format!(
                    "force feedback held at zero: {} ({state}{more})",
                    latest.explanation()
                ),
            });
        }
        if self.reported_held && now == FfbHold::None {
            self.reported_held = false;
            return Some(HoldLine {
                warning: false,
                text: "force feedback on again (ramping in)".to_string(),
            });
        }
        None
    }

    /// The FFB part of `STATUS=` (empty while the force is not held).
    pub fn status(link: &FfbLink) -> String {
        match link.hold() {
            FfbHold::None => String::new(),
            hold => format!(" | ffb held: {}", hold.label()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rig_protocols::FfbStatus;

    fn publish(link: &FfbLink, hold: FfbHold) {
        link.publish_status(FfbStatus {
            hold,
            ..FfbStatus::default()
        });
    }

    #[test]
    fn a_short_fault_hold_is_logged_once_even_when_over_before_the_look() {
        let link = FfbLink::new();
        let mut log = HoldLog::default();
        assert_eq!(log.next_line(&link), None);
        publish(&link, FfbHold::Fault);
        publish(&link, FfbHold::None);
        let line = log.next_line(&link).expect("the hold is reported");
        assert!(line.warning);
        assert!(
            line.text.contains("fault_after_missed_ticks") && line.text.contains("released again"),
            "{}",
            line.text
        );
        assert_eq!(log.next_line(&link), None, "once");
        assert_eq!(HoldLog::status(&link), "");
    }

    #[test]
    fn a_lasting_hold_is_logged_on_start_and_release_and_shown_in_the_status() {
        let link = FfbLink::new();
        let mut log = HoldLog::default();
        for _ in 0..1000 {
            publish(&link, FfbHold::EmergencyStop);
        }
        let line = log.next_line(&link).unwrap();
        assert!(line.text.contains("held now: e-stop"), "{}", line.text);
        assert_eq!(log.next_line(&link), None);
        assert_eq!(HoldLog::status(&link), " | ffb held: e-stop");
        publish(&link, FfbHold::None);
        let line = log.next_line(&link).unwrap();
        assert!(!line.warning && line.text.contains("on again"));
        assert_eq!(log.next_line(&link), None);
    }

    #[test]
    fn several_holds_between_looks_are_counted() {
        let link = FfbLink::new();
        let mut log = HoldLog::default();
        for hold in [FfbHold::Fault, FfbHold::None, FfbHold::NoDevice] {
            publish(&link, hold);
        }
        let line = log.next_line(&link).unwrap();
        assert!(
            line.text.contains("not open") && line.text.contains("1 more hold(s)"),
            "{}",
            line.text
        );
    }
}
