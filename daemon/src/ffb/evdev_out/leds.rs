//! The shift lights of the FFB device: LED class devices (`<hid>::RPM1` .. `RPM5`, what
//! hid-lg4ff registers) or, when there are none, the Logitech `F8 12 mask` command on the
//! hidraw node. A failing LED write never stops the force feedback.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::super::stage::SHIFT_LEDS;
use super::FfbTarget;

/// Where the shift lights are written.
#[derive(Debug)]
pub(super) enum LedOutput {
    /// LED class devices `...::RPM1` .. `RPM5`, in order.
    Class(Vec<PathBuf>),
    /// hidraw node: the Logitech `F8 12 mask` command.
    Hidraw(PathBuf),
    /// No LEDs.
    None,
}

impl LedOutput {
    pub(super) fn for_target(target: &FfbTarget) -> LedOutput {
        let mut rpm: Vec<PathBuf> = target
            .leds
            .iter()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("::RPM"))
            })
            .cloned()
            .collect();
        rpm.sort();
        if !rpm.is_empty() {
            LedOutput::Class(rpm)
        } else if let (Some(raw), Some("logitech")) = (&target.hidraw, target.driver.as_deref()) {
            LedOutput::Hidraw(raw.clone())
        } else {
            LedOutput::None
        }
    }

    pub(super) fn write(&self, mask: u8) -> io::Result<()> {
        match self {
            LedOutput::Class(leds) => {
                for (i, led) in leds.iter().enumerate().take(usize::from(SHIFT_LEDS)) {
                    let on = mask & (1 << i) != 0;
                    write_led(led, on)?;
                }
                Ok(())
            }
            LedOutput::Hidraw(node) => fs::write(node, logitech_led_report(mask)),
            LedOutput::None => Ok(()),
        }
    }
}

fn write_led(dir: &Path, on: bool) -> io::Result<()> {
    fs::write(dir.join("brightness"), if on { "1" } else { "0" })
}

/// The Logitech classic LED command (reference 3.2): `F8 12 mask 00 00 00 00`, 5-bit mask.
pub fn logitech_led_report(mask: u8) -> [u8; 7] {
    [0xf8, 0x12, mask & 0x1f, 0, 0, 0, 0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn led_report_masks_five_bits() {
        assert_eq!(logitech_led_report(0xff), [0xf8, 0x12, 0x1f, 0, 0, 0, 0]);
    }
}
