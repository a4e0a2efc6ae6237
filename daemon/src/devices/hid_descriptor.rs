//! Just enough of a HID report descriptor to recognise a HID PID force-feedback device: the
//! usage pages its items declare. A base whose descriptor uses the Physical Interface Device
//! page (0x0F) is driven by the kernel's hid-pidff (bound as `hid-generic`, so the driver name
//! says nothing) or can be driven over hidraw; the full PID report layout is parsed elsewhere.
//!
//! Item format (HID 1.11, 6.2.2.2): a prefix byte `tag(4) type(2) size(2)` with 0, 1, 2 or 4
//! data bytes (size code 3 means 4), or the long item `0xFE len tag data...`. Usage Page is
//! the global item with tag 0 (prefix `0x04 | size`); an extended Usage (local tag 0, prefix
//! `0x08 | size`) with 4 data bytes carries its page in the upper 16 bits.

use std::path::Path;

/// The HID usage page of the Physical Interface Device class (force feedback).
pub const PID_USAGE_PAGE: u16 = 0x0F;

/// Every usage page `descriptor` declares, in order of first appearance. A truncated last
/// item is ignored.
pub fn usage_pages(descriptor: &[u8]) -> Vec<u16> {
    let mut pages = Vec::new();
    let mut note = |page: u16| {
        if !pages.contains(&page) {
            pages.push(page);
        }
    };
    let mut at = 0;
    while at < descriptor.len() {
        let prefix = descriptor[at];
        if prefix == 0xFE {
            // Long item: its data length is the next byte (no page can hide in one).
            let len = descriptor.get(at + 1).copied().unwrap_or(0);
            at += 3 + usize::from(len);
            continue;
        }
        let size = match prefix & 0x03 {
            3 => 4,
            n => usize::from(n),
        };
        let Some(data) = descriptor.get(at + 1..at + 1 + size) else {
            break;
        };
        let value = data
            .iter()
            .rev()
            .fold(0u32, |acc, b| (acc << 8) | u32::from(*b));
        match prefix & 0xFC {
            0x04 => note(value as u16),
            0x08 if size == 4 => note((value >> 16) as u16),
            _ => {}
        }
        at += 1 + size;
    }
    pages
}

/// True when `descriptor` uses the HID PID usage page.
pub fn declares_pid(descriptor: &[u8]) -> bool {
    usage_pages(descriptor).contains(&PID_USAGE_PAGE)
}

/// Reads the `report_descriptor` attribute of a HID device directory in sysfs (world
/// readable) and says whether it declares the PID page; false when it cannot be read.
pub fn hid_dir_declares_pid(hid_dir: &Path) -> bool {
    std::fs::read(hid_dir.join("report_descriptor")).is_ok_and(|d| declares_pid(&d))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start of a one-axis PID wheel descriptor: Generic Desktop joystick, then the PID
    /// page's Set Effect report.
    const PID_WHEEL: &[u8] = &[
        0x05, 0x01, // Usage Page (Generic Desktop)
        0x09, 0x04, // Usage (Joystick)
        0xA1, 0x01, // Collection (Application)
        0x09, 0x30, //   Usage (X)
        0x16, 0x01, 0x80, // Logical Minimum (-32767)
        0x26, 0xFF, 0x7F, // Logical Maximum (32767)
        0x75, 0x10, 0x95, 0x01, 0x81, 0x02, // 16 bits x1, Input
        0x05, 0x0F, //   Usage Page (PID)
        0x09, 0x21, //   Usage (Set Effect Report)
        0xA1, 0x02, //   Collection (Logical)
        0x85, 0x01, //     Report ID 1
        0x09, 0x22, //     Usage (Effect Block Index)
        0x15, 0x01, 0x25, 0x28, 0x75, 0x08, 0x95, 0x01, 0x91, 0x02, // Output
        0xC0, 0xC0,
    ];

    /// The G29's descriptor declares Generic Desktop and a vendor page, never PID.
    const G29_START: &[u8] = &[
        0x05, 0x01, 0x09, 0x04, 0xA1, 0x01, 0xA1, 0x02, 0x95, 0x01, 0x75, 0x0A, 0x15, 0x00, 0x26,
        0xFF, 0x03, 0x35, 0x00, 0x46, 0xFF, 0x03, 0x09, 0x30, 0x81, 0x02, 0x06, 0x00, 0xFF, 0x09,
        0x01, 0x95, 0x07, 0x75, 0x08, 0x91, 0x02, 0xC0, 0xC0,
    ];

    #[test]
    fn a_pid_wheel_declares_page_0x0f() {
        assert_eq!(usage_pages(PID_WHEEL), vec![0x01, 0x0F]);
        assert!(declares_pid(PID_WHEEL));
    }

    #[test]
    fn the_g29_does_not() {
        assert_eq!(usage_pages(G29_START), vec![0x01, 0xFF00]);
        assert!(!declares_pid(G29_START));
    }

    #[test]
    fn an_extended_usage_names_its_page_and_long_items_are_skipped() {
        // Long item whose data holds 0x05 0x0F (must not count), then Usage 0x000F0021.
        let d = [0xFE, 0x02, 0x10, 0x05, 0x0F, 0x0B, 0x21, 0x00, 0x0F, 0x00];
        assert_eq!(usage_pages(&d), vec![0x0F]);
        let hidden = [0xFE, 0x02, 0x10, 0x05, 0x0F];
        assert!(!declares_pid(&hidden));
    }

    #[test]
    fn a_truncated_item_stops_the_walk() {
        assert_eq!(usage_pages(&[0x05, 0x01, 0x06, 0x0F]), vec![0x01]);
        assert!(usage_pages(&[]).is_empty());
    }
}
