//! When the FFB writer's last few force-level writes started and returned (CLOCK_MONOTONIC,
//! [`crate::rt::clock::now_ns`]), so the input-to-force latency can be taken apart at the
//! write: the vmrig benchmark (tests/vmrig, docs/BENCHMARKS.md) puts these next to the
//! kernel's input timestamp and the device's arrival time. One writer thread records, anyone
//! reads; plain atomics, no locks, nothing allocated.

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

/// How many writes are kept.
pub const KEPT: usize = 16;

/// One level write: the level and when the write call started and returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelWrite {
    /// Constant-force level written, -32767 ..= 32767.
    pub level: i16,
    /// CLOCK_MONOTONIC ns when the write (EVIOCSFF, hidraw write) was called.
    pub started_ns: u64,
    /// CLOCK_MONOTONIC ns when it returned.
    pub returned_ns: u64,
}

#[derive(Debug, Default)]
struct Slot {
    level: AtomicI32,
    started_ns: AtomicU64,
    returned_ns: AtomicU64,
}

/// The last [`KEPT`] level writes.
#[derive(Debug, Default)]
pub struct WriteTimes {
    count: AtomicU64,
    slots: [Slot; KEPT],
}

impl WriteTimes {
    /// Writer thread: a level write that started and returned at these instants.
    pub fn record(&self, write: LevelWrite) {
        let n = self.count.load(Ordering::Relaxed);
        let slot = &self.slots[(n % KEPT as u64) as usize];
        slot.level.store(i32::from(write.level), Ordering::Relaxed);
        slot.started_ns.store(write.started_ns, Ordering::Relaxed);
        slot.returned_ns.store(write.returned_ns, Ordering::Relaxed);
        self.count.store(n + 1, Ordering::Release);
    }

    /// The kept writes, oldest first (a slot being overwritten while read may mix two
    /// writes: for diagnostics only).
    pub fn recent(&self) -> Vec<LevelWrite> {
        let n = self.count.load(Ordering::Acquire);
        let first = n.saturating_sub(KEPT as u64);
        (first..n)
            .map(|i| {
                let slot = &self.slots[(i % KEPT as u64) as usize];
                LevelWrite {
                    level: slot.level.load(Ordering::Relaxed) as i16,
                    started_ns: slot.started_ns.load(Ordering::Relaxed),
                    returned_ns: slot.returned_ns.load(Ordering::Relaxed),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_sixteen_writes_oldest_first() {
        let times = WriteTimes::default();
        assert!(times.recent().is_empty());
        for i in 0..20u64 {
            times.record(LevelWrite {
                level: i as i16,
                started_ns: i * 10,
                returned_ns: i * 10 + 3,
            });
        }
        let recent = times.recent();
        assert_eq!(recent.len(), KEPT);
        assert_eq!(recent[0].level, 4);
        assert_eq!(recent[KEPT - 1].started_ns, 190);
        assert_eq!(recent[KEPT - 1].returned_ns, 193);
    }
}
