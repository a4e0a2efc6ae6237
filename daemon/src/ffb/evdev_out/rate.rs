//! How often the writer may send the device a new level, and which kind of kernel driver it
//! feeds (the kind decides how many reports one update costs).
//!
//! The kernel queues what it cannot send at once (usbhid: 256 reports, then "control queue
//! full" and dropped reports) and `EVIOCSFF` returns before the device took anything, so a
//! writer faster than the device builds a queue of stale forces in front of its own zero.
//! The cap therefore comes from what the device is measured to take: on a HID PID base the
//! writer times a burst of harmless level updates through to the kernel's own wait for
//! usbhid's queue to drain ([`DRAIN_PROBE_UPDATES`], done before the effect first plays), and
//! uses at most [`DRAIN_SHARE`] of that throughput, less the keep-alive reports. Without a
//! measurement the driver-name table of reference 2.6 is the fallback; `update_rate_hz`
//! from the config is always an upper bound.

/// Which kind of kernel force-feedback driver the event node belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverKind {
    /// hid-pidff / hid-universal-pidff on a HID PID base (its report descriptor declares usage
    /// page 0x0F). A level change is one Set Constant Force report; a play is one Effect
    /// Operation report that restarts the effect's finite duration on the device.
    HidPid,
    /// Every other driver (ff-memless ones such as hid-lg4ff, HID++, tmff2, ...): an update is
    /// followed by a play, which ff-memless needs (see `OpenDevice::send_level`).
    Other,
}

impl DriverKind {
    /// The kind of a device whose report descriptor does (`hid_pid_page`) or does not
    /// declare the PID usage page.
    pub fn from_pid_page(hid_pid_page: bool) -> DriverKind {
        if hid_pid_page {
            DriverKind::HidPid
        } else {
            DriverKind::Other
        }
    }
}

/// Level updates timed to measure a PID base's throughput (about 16 ms at 1 kHz).
pub const DRAIN_PROBE_UPDATES: u32 = 16;
/// Share of the measured throughput the writer plans to use: the rest absorbs the keep-alive
/// plays, the stop and the device being slower for a while, so no queue builds up.
pub const DRAIN_SHARE: f64 = 0.5;
/// The lowest cap the writer ever uses, Hz (a slower device still gets its zero on time
/// because the stop never waits for the cap).
pub const MIN_RATE_HZ: f64 = 20.0;
/// The fallback for HID PID bases when nothing was measured (reference 2.6: ~1 kHz).
pub const PID_FALLBACK_HZ: f64 = 1000.0;

/// Default update-rate cap for a kernel driver name (reference 2.6): hid-lg4ff accepts about
/// one report per 4 ms, HID++ wheels queue every command synchronously, hid-tmff2 coalesces on
/// an 8 ms timer, PID bases take about 1 kHz. Unknown drivers get the conservative 250 Hz.
pub fn default_update_rate_hz(driver: Option<&str>) -> f64 {
    match driver.unwrap_or("") {
        "logitech-hidpp-device" => 150.0,
        "logitech" | "lg4ff" | "hid-lg4ff" => 250.0,
        "tmff2" | "hid-tmff2" | "hid-tmff-new" | "t300rs" => 125.0,
        "hid-pidff" | "hid-universal-pidff" | "universal-pidff" => PID_FALLBACK_HZ,
        "fanatec" | "ftec_csl_elite" | "hid-fanatecff" => 500.0,
        _ => 250.0,
    }
}

/// The chosen cap and why, for the log.
#[derive(Debug, Clone, PartialEq)]
pub struct RateChoice {
    /// Level updates per second at most.
    pub hz: f64,
    /// Why this rate, in words.
    pub why: String,
}

/// Picks the update-rate cap: the config's `update_rate_hz` (else the fallback for the
/// driver) as the upper bound, lowered to [`DRAIN_SHARE`] of `drained_reports_per_s` minus
/// the `keep_alive_hz` plays when the device's throughput was measured.
pub fn choose_update_rate(
    config_hz: Option<f64>,
    kind: DriverKind,
    driver: Option<&str>,
    drained_reports_per_s: Option<f64>,
    keep_alive_hz: f64,
) -> RateChoice {
    let (ceiling, ceiling_why) = match (config_hz, kind) {
        (Some(hz), _) => (hz, format!("update_rate_hz = {hz}")),
        (None, DriverKind::HidPid) => (
            PID_FALLBACK_HZ,
            format!("HID PID base default {PID_FALLBACK_HZ} Hz"),
        ),
        (None, DriverKind::Other) => {
            let hz = default_update_rate_hz(driver);
            (
                hz,
                format!(
                    "default for driver {} ({hz} Hz)",
                    driver.unwrap_or("unknown")
                ),
            )
        }
    };
    let Some(drained) = drained_reports_per_s.filter(|d| d.is_finite() && *d > 0.0) else {
        return RateChoice {
            hz: ceiling,
            why: format!("{ceiling_why}; device throughput not measured"),
        };
    };
    let usable = (drained * DRAIN_SHARE - keep_alive_hz).max(MIN_RATE_HZ);
    if usable < ceiling {
        RateChoice {
            hz: usable,
            why: format!(
                "device measured to take {drained:.0} reports/s: {:.0} % of it less \
                 {keep_alive_hz:.0} keep-alive plays/s (below {ceiling_why})",
                DRAIN_SHARE * 100.0
            ),
        }
    } else {
        RateChoice {
            hz: ceiling,
            why: format!("{ceiling_why}; device measured to take {drained:.0} reports/s"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_caps_follow_the_reference_table() {
        assert_eq!(default_update_rate_hz(Some("logitech")), 250.0);
        assert_eq!(default_update_rate_hz(Some("logitech-hidpp-device")), 150.0);
        assert_eq!(default_update_rate_hz(Some("hid-tmff2")), 125.0);
        assert_eq!(default_update_rate_hz(Some("hid-universal-pidff")), 1000.0);
        assert_eq!(default_update_rate_hz(None), 250.0);
    }

    #[test]
    fn a_pid_base_bound_by_hid_generic_gets_the_pid_default_not_250() {
        let kind = DriverKind::from_pid_page(true);
        let choice = choose_update_rate(None, kind, Some("hid-generic"), None, 20.0);
        assert_eq!(choice.hz, 1000.0);
        assert!(choice.why.contains("HID PID"), "{}", choice.why);
        let other = choose_update_rate(None, DriverKind::Other, Some("hid-generic"), None, 20.0);
        assert_eq!(other.hz, 250.0);
    }

    #[test]
    fn a_slow_device_lowers_the_cap_to_half_its_throughput_less_keep_alives() {
        // 300 reports/s drained: 150 usable, 20 of them keep-alive plays.
        let choice = choose_update_rate(Some(1000.0), DriverKind::HidPid, None, Some(300.0), 20.0);
        assert!((choice.hz - 130.0).abs() < 1e-9, "{choice:?}");
        assert!(choice.why.contains("300 reports/s"), "{}", choice.why);
    }

    #[test]
    fn a_fast_device_keeps_the_configured_bound() {
        let choice = choose_update_rate(Some(500.0), DriverKind::HidPid, None, Some(8000.0), 20.0);
        assert_eq!(choice.hz, 500.0);
        assert!(
            choice.why.contains("update_rate_hz = 500"),
            "{}",
            choice.why
        );
    }

    #[test]
    fn the_cap_never_drops_below_the_floor_and_ignores_nonsense() {
        let slow = choose_update_rate(None, DriverKind::HidPid, None, Some(10.0), 20.0);
        assert_eq!(slow.hz, MIN_RATE_HZ);
        let nan = choose_update_rate(None, DriverKind::HidPid, None, Some(f64::NAN), 20.0);
        assert_eq!(nan.hz, PID_FALLBACK_HZ);
    }
}
