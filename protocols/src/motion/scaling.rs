//! Normalised axis value (-1 ..= 1) to an unsigned integer of `bits` bits, exactly as the
//! SimTools v3 interface plugins compute it (so firmware tuned for SimTools sees the same
//! numbers): with `H = 2^(bits-1)`, `p > 0 -> p*H + (H-1)`, `p <= 0 -> (H-1) - |p|*(H-1)`,
//! rounded half to even. The centre is `H - 1` (511 for 10 bits), not `H`.
//!
//! Invariant: the result is always inside `0 ..= 2^bits - 1`; non-finite input encodes the
//! centre and out-of-range input is clamped, so no frame ever carries a garbage value.

/// Fewest bits a SimTools-style output may use.
pub const MIN_BITS: u8 = 7;
/// Most bits a SimTools-style output may use.
pub const MAX_BITS: u8 = 32;

/// The integer for axis value `p` at `bits` resolution (`bits` is clamped to 7 ..= 32).
pub fn axis_to_counts(p: f64, bits: u8) -> u32 {
    let bits = bits.clamp(MIN_BITS, MAX_BITS);
    let half = (1u64 << (bits - 1)) as f64;
    let p = if p.is_finite() {
        p.clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let value = if p > 0.0 {
        p * half + (half - 1.0)
    } else {
        (half - 1.0) - (-p) * (half - 1.0)
    };
    let max = ((1u64 << bits) - 1) as f64;
    value.round_ties_even().clamp(0.0, max) as u32
}

/// The axis value whose integer at `bits` resolution is `counts` (the inverse of
/// [`axis_to_counts`] on its grid; `bits` clamped to 7 ..= 32, `counts` to the range): how
/// rigd reads a firmware's boot target or clip limit.
pub fn counts_to_axis(counts: u32, bits: u8) -> f64 {
    let bits = bits.clamp(MIN_BITS, MAX_BITS);
    let half = (1u64 << (bits - 1)) as f64;
    let max = ((1u64 << bits) - 1) as f64;
    let c = f64::from(counts).min(max);
    if c > half - 1.0 {
        (c - (half - 1.0)) / half
    } else {
        (c - (half - 1.0)) / (half - 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_to_axis_inverts_the_scaling() {
        for bits in [8u8, 10, 12, 16, 24] {
            for counts in [0u32, 1, 100, 127, 511, 512, 923, 1023] {
                let counts = counts.min((1 << bits) - 1);
                assert_eq!(axis_to_counts(counts_to_axis(counts, bits), bits), counts);
            }
        }
        // SMC3's default clip window, as axis values.
        assert!((counts_to_axis(100, 10) + 411.0 / 511.0).abs() < 1e-12);
        assert!((counts_to_axis(923, 10) - 412.0 / 512.0).abs() < 1e-12);
        assert_eq!(counts_to_axis(512, 10), 1.0 / 512.0);
    }

    /// The computed SimTools table of the motion reference, section 1.1.
    #[test]
    fn simtools_scaling_table() {
        let table: [(u8, [u32; 5]); 5] = [
            (8, [0, 64, 127, 191, 255]),
            (10, [0, 256, 511, 767, 1023]),
            (12, [0, 1024, 2047, 3071, 4095]),
            (16, [0, 16384, 32767, 49151, 65535]),
            (24, [0, 4194304, 8388607, 12582911, 16777215]),
        ];
        for (bits, expected) in table {
            let got: Vec<u32> = [-1.0, -0.5, 0.0, 0.5, 1.0]
                .iter()
                .map(|&p| axis_to_counts(p, bits))
                .collect();
            assert_eq!(got, expected, "{bits} bits");
        }
    }

    #[test]
    fn half_values_round_to_even() {
        // 63.5 -> 64 and 1023.5 -> 1024 (banker's rounding, like .NET Math.Round).
        assert_eq!(axis_to_counts(-0.5, 8), 64);
        assert_eq!(axis_to_counts(-0.5, 12), 1024);
    }

    #[test]
    fn garbage_input_stays_in_range() {
        assert_eq!(axis_to_counts(f64::NAN, 10), 511);
        assert_eq!(axis_to_counts(f64::INFINITY, 10), 511);
        assert_eq!(axis_to_counts(7.0, 10), 1023);
        assert_eq!(axis_to_counts(-7.0, 32), 0);
        assert_eq!(axis_to_counts(1.0, 32), u32::MAX);
    }
}
