//! Serial line budget: how many bits a UART spends per byte and whether a frame size and
//! rate fit a baud rate. rigd refuses a device whose frames need more than 80 % of the line
//! (a saturated UART queues frames in the kernel and the platform lags further every second).
//!
//! Bits per byte = 1 start bit + data bits + parity bit (if any) + stop bits (8N1 = 10).

/// Parity setting of a serial line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Parity {
    /// No parity bit (the usual `N` of 8N1).
    #[default]
    None,
    /// Odd parity.
    Odd,
    /// Even parity.
    Even,
}

/// Bits on the wire for one byte: start + data + parity + stop.
pub fn line_bits_per_byte(data_bits: u8, parity: Parity, stop_bits: u8) -> u32 {
    let parity_bits = if parity == Parity::None { 0 } else { 1 };
    1 + u32::from(data_bits) + parity_bits + u32::from(stop_bits)
}

/// The share of a serial line that a frame stream uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SerialBudget {
    /// Bytes per frame (the longest frame the encoder can produce).
    pub frame_bytes: usize,
    /// Frames per second.
    pub rate_hz: f64,
    /// Line speed, bit/s.
    pub baud: u32,
    /// Bits on the wire per byte (10 for 8N1).
    pub bits_per_byte: u32,
}

impl SerialBudget {
    /// Most of the line rigd lets a device use.
    pub const MAX_SHARE: f64 = 0.8;

    /// Share of the line used, 0 ..= (1 = saturated; more = impossible).
    pub fn line_share(&self) -> f64 {
        self.frame_bytes as f64 * self.rate_hz * f64::from(self.bits_per_byte)
            / f64::from(self.baud)
    }

    /// True when the stream fits inside [`Self::MAX_SHARE`] of the line.
    pub fn fits(&self) -> bool {
        self.line_share() <= Self::MAX_SHARE
    }

    /// The highest frame rate the line could carry at 100 %, Hz.
    pub fn max_rate_hz(&self) -> f64 {
        f64::from(self.baud) / (self.frame_bytes as f64 * f64::from(self.bits_per_byte))
    }

    /// The highest frame rate inside the 80 % budget, Hz.
    pub fn max_allowed_rate_hz(&self) -> f64 {
        self.max_rate_hz() * Self::MAX_SHARE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(frame_bytes: usize, baud: u32, rate_hz: f64) -> SerialBudget {
        SerialBudget {
            frame_bytes,
            rate_hz,
            baud,
            bits_per_byte: line_bits_per_byte(8, Parity::None, 1),
        }
    }

    /// The serial budget table of the motion reference, section 1.2.
    #[test]
    fn reference_budget_table() {
        let rows = [
            (15, 500_000, 1000.0, 0.30, 3333.0, true),
            (12, 115_200, 500.0, 0.52, 960.0, true),
            (28, 250_000, 1000.0, 1.12, 893.0, false),
            (28, 250_000, 500.0, 0.56, 893.0, true),
            (15, 115_200, 1000.0, 1.30, 768.0, false),
            (11, 921_600, 1000.0, 0.12, 8378.0, true),
        ];
        for (bytes, baud, rate, share, max_rate, fits) in rows {
            let b = budget(bytes, baud, rate);
            assert!((b.line_share() - share).abs() < 0.005, "{bytes} B @ {baud}");
            assert!(
                (b.max_rate_hz() - max_rate).abs() < 1.0,
                "{bytes} B @ {baud}"
            );
            assert_eq!(b.fits(), fits, "{bytes} B @ {baud} {rate} Hz");
        }
    }

    #[test]
    fn bits_per_byte() {
        assert_eq!(line_bits_per_byte(8, Parity::None, 1), 10);
        assert_eq!(line_bits_per_byte(8, Parity::Even, 2), 12);
        assert_eq!(line_bits_per_byte(7, Parity::Odd, 1), 10);
    }
}
