//! A fixed-size latency histogram for the RT thread: allocated once, then recording and
//! percentile queries never allocate.
//!
//! Buckets (microseconds): 1 us wide below 1 ms, 10 us wide from 1 to 10 ms, 1 ms wide from
//! 10 ms to 1 s, and one overflow bucket. Percentiles are nearest-rank and report the bucket's
//! upper edge (so they never under-state a latency); the exact maximum is kept separately.

const FINE_LIMIT_US: u64 = 1_000;
const MID_LIMIT_US: u64 = 10_000;
const MID_WIDTH_US: u64 = 10;
const COARSE_LIMIT_US: u64 = 1_000_000;
const COARSE_WIDTH_US: u64 = 1_000;
const FINE_BUCKETS: usize = FINE_LIMIT_US as usize;
const MID_BUCKETS: usize = ((MID_LIMIT_US - FINE_LIMIT_US) / MID_WIDTH_US) as usize;
const COARSE_BUCKETS: usize = ((COARSE_LIMIT_US - MID_LIMIT_US) / COARSE_WIDTH_US) as usize;
/// Number of buckets including the overflow bucket.
pub const BUCKETS: usize = FINE_BUCKETS + MID_BUCKETS + COARSE_BUCKETS + 1;

/// Counts of samples per latency bucket, plus count and exact maximum.
#[derive(Debug, Clone)]
pub struct Histogram {
    counts: Box<[u32; BUCKETS]>,
    samples: u64,
    max_ns: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl Histogram {
    /// An empty histogram (allocates its buckets once, here).
    pub fn new() -> Histogram {
        Histogram {
            counts: Box::new([0; BUCKETS]),
            samples: 0,
            max_ns: 0,
        }
    }

    fn bucket_of(us: u64) -> usize {
        if us < FINE_LIMIT_US {
            us as usize
        } else if us < MID_LIMIT_US {
            FINE_BUCKETS + ((us - FINE_LIMIT_US) / MID_WIDTH_US) as usize
        } else if us < COARSE_LIMIT_US {
            FINE_BUCKETS + MID_BUCKETS + ((us - MID_LIMIT_US) / COARSE_WIDTH_US) as usize
        } else {
            BUCKETS - 1
        }
    }

    /// Upper edge of a bucket, microseconds.
    fn upper_edge_us(bucket: usize) -> u64 {
        if bucket < FINE_BUCKETS {
            bucket as u64 + 1
        } else if bucket < FINE_BUCKETS + MID_BUCKETS {
            FINE_LIMIT_US + (bucket - FINE_BUCKETS + 1) as u64 * MID_WIDTH_US
        } else if bucket < BUCKETS - 1 {
            MID_LIMIT_US + (bucket - FINE_BUCKETS - MID_BUCKETS + 1) as u64 * COARSE_WIDTH_US
        } else {
            u64::MAX
        }
    }

    /// Records one sample, nanoseconds.
    pub fn record(&mut self, ns: u64) {
        let bucket = Histogram::bucket_of(ns / 1_000);
        self.counts[bucket] = self.counts[bucket].saturating_add(1);
        self.samples += 1;
        self.max_ns = self.max_ns.max(ns);
    }

    /// Number of samples recorded.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Largest sample, microseconds (0 when empty).
    pub fn max_us(&self) -> f64 {
        self.max_ns as f64 / 1_000.0
    }

    /// Nearest-rank percentile `p` (0 < p <= 100), microseconds: the upper edge of the bucket
    /// holding that rank, capped at the exact maximum. 0 when empty.
    pub fn percentile_us(&self, p: f64) -> f64 {
        if self.samples == 0 {
            return 0.0;
        }
        let rank = ((p / 100.0) * self.samples as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (bucket, &count) in self.counts.iter().enumerate() {
            seen += u64::from(count);
            if seen >= rank {
                let edge = Histogram::upper_edge_us(bucket) as f64;
                return edge.min(self.max_us());
            }
        }
        self.max_us()
    }

    /// Adds every sample of `other` into `self`.
    pub fn merge(&mut self, other: &Histogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            *mine = mine.saturating_add(*theirs);
        }
        self.samples += other.samples;
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// Forgets every sample (no allocation).
    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.samples = 0;
        self.max_ns = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank_upper_edges() {
        let mut h = Histogram::new();
        for us in 1..=100u64 {
            h.record(us * 1_000 + 500);
        }
        // 100 samples 1.5 .. 100.5 us: p50 is the 50th sample (50.5 us, bucket 50..51).
        assert_eq!(h.percentile_us(50.0), 51.0);
        assert_eq!(h.percentile_us(99.0), 100.0);
        assert_eq!(h.percentile_us(100.0), 100.5);
        assert_eq!(h.max_us(), 100.5);
    }

    #[test]
    fn coarse_ranges_and_overflow_keep_order() {
        let mut h = Histogram::new();
        h.record(2_345_000); // 2.345 ms -> 10 us bucket
        h.record(25_500_000); // 25.5 ms -> 1 ms bucket
        h.record(3_000_000_000); // 3 s -> overflow
        assert_eq!(h.percentile_us(33.0), 2_350.0);
        assert_eq!(h.percentile_us(66.0), 26_000.0);
        assert_eq!(h.percentile_us(100.0), 3_000_000.0);
        h.clear();
        assert_eq!(h.samples(), 0);
        assert_eq!(h.percentile_us(99.0), 0.0);
    }
}
