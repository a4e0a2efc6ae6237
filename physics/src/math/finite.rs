//! [`FiniteProbe`]: whether many f64 values are all finite, with a multiply and an add per
//! value instead of a test and a branch each.
//!
//! `x * 0.0` is (+-)0 for every finite `x` and NaN for an infinite or NaN one, so a sum of
//! such products is zero exactly when every value is finite, whatever the order of the
//! additions. The sums run in four independent lanes (one per wheel, say) so the adds do not
//! form one long chain of dependent operations. The quarantine's check points use it.

/// Four running sums of `x * 0.0`; [`FiniteProbe::all_finite`] is true when every value added
/// was finite.
#[derive(Debug, Clone, Copy)]
pub struct FiniteProbe {
    lanes: [f64; 4],
}

impl Default for FiniteProbe {
    fn default() -> Self {
        FiniteProbe::new()
    }
}

impl FiniteProbe {
    /// An empty probe. The lanes start at -0.0, the identity of addition (`-0.0 + x` is `x`
    /// for every x), so the first add costs nothing.
    #[inline(always)]
    pub fn new() -> FiniteProbe {
        FiniteProbe { lanes: [-0.0; 4] }
    }

    /// Adds one value to `lane` (0 to 3).
    #[inline(always)]
    pub fn add(&mut self, lane: usize, x: f64) {
        self.lanes[lane & 3] += x * 0.0;
    }

    /// Adds four values, one per lane.
    #[inline(always)]
    pub fn add4(&mut self, xs: [f64; 4]) {
        for (lane, x) in self.lanes.iter_mut().zip(xs) {
            *lane += x * 0.0;
        }
    }

    /// True when every value added was finite.
    #[inline(always)]
    pub fn all_finite(self) -> bool {
        let l = self.lanes;
        (l[0] + l[1]) + (l[2] + l[3]) == 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_exactly_when_no_value_is_infinite_or_nan() {
        let mut probe = FiniteProbe::new();
        probe.add4([1e300, -1e300, -0.0, f64::MAX]);
        probe.add(2, f64::MIN_POSITIVE);
        assert!(probe.all_finite());
        assert!(FiniteProbe::new().all_finite());
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for lane in 0..4 {
                let mut p = probe;
                p.add(lane, bad);
                assert!(!p.all_finite(), "{bad} in lane {lane}");
                let mut xs = [1.0; 4];
                xs[lane] = bad;
                let mut p = probe;
                p.add4(xs);
                assert!(!p.all_finite(), "{bad} in add4 lane {lane}");
            }
        }
    }
}
