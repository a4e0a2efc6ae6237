//! `[loop]`: the real-time physics thread: rate, core, priority, wait strategy, catch-up and
//! fault policy. Defaults follow docs/runtime.md (measured in the realtime reference):
//! SCHED_FIFO 80 on the last core, plain absolute-deadline sleep, PM QoS held.
use serde::Deserialize;

use crate::problem::{Report, Validate};

/// How the daemon asks the CPU not to enter deep idle states while it runs (PM QoS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PmQos {
    /// No request: idle states stay as the system configured them.
    Off,
    /// Hold `/dev/cpu_dma_latency` open with `pm_qos_latency_us` for the daemon's lifetime
    /// (every core; released automatically when the process exits).
    DmaLatency,
    /// Write `n/a` (poll only) to the RT core's `power/pm_qos_resume_latency_us`; only that
    /// core pays; the previous value is restored on exit.
    RtCore,
}

/// Where the telemetry sender thread runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TelemetrySenderCore {
    /// On the physics core, in the loop's idle time: it wakes half a period after a deadline
    /// and starts no send later than 0.3 periods after that, so it is done before the next
    /// deadline, and the other cores see no wake-up of rigd's for telemetry. Measured on a
    /// 2-vCPU VM: better in some series, worse in others (docs/BENCHMARKS.md, session 5).
    RtCore,
    /// On every core but the physics core (the default).
    OtherCores,
}

/// What the loop does while nobody drives: no wheel or gamepad delivers controls (none is
/// configured, or it is unplugged).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WhenNobodyDrives {
    /// The player car brakes to a stop and the loop idles: it wakes about 20 times a second
    /// (on its usual deadline grid, without the final spin), steps no physics, holds force
    /// feedback at zero and parks motion platforms, and returns to its full rate within a
    /// tick of a wheel or gamepad appearing. The default: a service with nothing plugged in
    /// costs almost nothing.
    Idle,
    /// The built-in robot drives the player car at the full rate (the demo:
    /// `scripts/run-demo.sh`, or `rigd run --robot`).
    Robot,
}

/// With `telemetry_sender_core = "rt-core"`, how far into a period after the between-ticks
/// instant (half a period after a deadline) the sender may start a send, tenths of the period
/// (0.3 ms at 1 kHz: 0.2 ms stay before the next deadline for the send itself). The loop's
/// final spin must start after that window ([`LoopConfig::final_spin_us`]).
pub const RT_CORE_SENDER_SLACK_TENTHS: u32 = 3;

/// The `[loop]` section.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LoopConfig {
    /// Loop rate, Hz (one physics step of 1 / rate_hz per tick), 100 ..= 2000.
    pub rate_hz: u32,
    /// CPU core the physics thread is pinned to; absent = the last online core.
    pub core: Option<u32>,
    /// SCHED_FIFO priority of the physics thread, 1 ..= 98 (99 is left to the kernel's own
    /// watchdog threads). Used when permitted (LimitRTPRIO, CAP_SYS_NICE or root).
    pub priority: u8,
    /// Lock the daemon's memory (mlockall, current pages and pages as they are touched) when
    /// permitted (LimitMEMLOCK, CAP_IPC_LOCK or root).
    pub lock_memory: bool,
    /// Sleep until this many microseconds before each deadline, then spin to it, so the tick
    /// starts on time even when the wake-up is late (0 = pure sleep). Absent: half the period
    /// (500 at 1 kHz), or a fifth of it with `telemetry_sender_core = "rt-core"`; see
    /// [`LoopConfig::final_spin_us`]. The sleep never gets shorter than a tenth of the period:
    /// a long tick shortens the spin instead.
    pub spin_us: Option<u32>,
    /// After a late wake-up, run at most this many extra physics steps to catch up with wall
    /// time; anything later is dropped and counted (`dropped_time_ms` in the loop health).
    pub max_catch_up_steps: u32,
    /// PM QoS request held while running: `off`, `dma-latency` or `rt-core`.
    pub pm_qos: PmQos,
    /// Value written to `/dev/cpu_dma_latency` with `pm_qos = "dma-latency"`, microseconds.
    pub pm_qos_latency_us: u32,
    /// This many consecutive missed ticks put every output in its safe state (fault) until
    /// the loop runs on time for a second again.
    pub fault_after_missed_ticks: u32,
    /// The systemd watchdog is no longer petted when the tick counter has not advanced for
    /// this long, milliseconds.
    pub stall_timeout_ms: u32,
    /// Where the telemetry sender thread runs: `other-cores` (the default) or `rt-core` (in
    /// the loop's idle time between ticks).
    pub telemetry_sender_core: TelemetrySenderCore,
    /// While no wheel or gamepad drives: `idle` (the default: the car parks and the loop
    /// wakes about 20 times a second until a device appears) or `robot` (the robot drives
    /// at the full rate, as in the demo; `rigd run --robot` sets it too).
    pub when_nobody_drives: WhenNobodyDrives,
}

impl Default for LoopConfig {
    fn default() -> Self {
        LoopConfig {
            rate_hz: 1000,
            core: None,
            priority: 80,
            lock_memory: true,
            spin_us: None,
            max_catch_up_steps: 5,
            pm_qos: PmQos::DmaLatency,
            pm_qos_latency_us: 0,
            fault_after_missed_ticks: 20,
            stall_timeout_ms: 250,
            telemetry_sender_core: TelemetrySenderCore::OtherCores,
            when_nobody_drives: WhenNobodyDrives::Idle,
        }
    }
}

impl LoopConfig {
    /// The tick period, nanoseconds.
    pub fn period_ns(&self) -> u64 {
        1_000_000_000 / u64::from(self.rate_hz.max(1))
    }

    /// The final spin the loop runs with, microseconds: `spin_us` when set, else half the
    /// period, or a fifth of it when the telemetry sender shares the physics core (it sends
    /// between 0.5 and 0.8 of a period after each deadline, so the spin must start later).
    pub fn final_spin_us(&self) -> u32 {
        self.spin_us.unwrap_or(match self.telemetry_sender_core {
            TelemetrySenderCore::RtCore => self.rt_core_sender_max_spin_us(),
            TelemetrySenderCore::OtherCores => self.period_us() / 2,
        })
    }

    fn period_us(&self) -> u32 {
        1_000_000 / self.rate_hz.max(1)
    }

    /// The longest spin that leaves the telemetry sender on the physics core its window: the
    /// window ends `RT_CORE_SENDER_SLACK_TENTHS` after the middle of the period.
    fn rt_core_sender_max_spin_us(&self) -> u32 {
        self.period_us() * (5 - RT_CORE_SENDER_SLACK_TENTHS) / 10
    }
}

impl Validate for LoopConfig {
    fn validate(&self, field: &str, report: &mut Report) {
        report.check_range(&format!("{field}.rate_hz"), self.rate_hz, 100..=2000);
        report.check_range(&format!("{field}.priority"), self.priority, 1..=98);
        let period_us = self.period_us();
        let spin_us = self.final_spin_us();
        if spin_us >= period_us {
            report.problem(
                format!("{field}.spin_us"),
                format!("{spin_us} us of spinning is not less than the {period_us} us tick period"),
                "use 0 (pure sleep) or up to half the period to hide wake-up latency, or remove the key for half the period",
            );
        }
        let rt_core_sender_spin_max_us = self.rt_core_sender_max_spin_us();
        if self.telemetry_sender_core == TelemetrySenderCore::RtCore
            && spin_us > rt_core_sender_spin_max_us
        {
            report.problem(
                format!("{field}.spin_us"),
                format!(
                    "{spin_us} us of spinning leaves the telemetry sender on the physics core no time to send (telemetry_sender_core = \"rt-core\" sends between 0.5 and 0.8 of the {period_us} us period)"
                ),
                format!("lower spin_us to {rt_core_sender_spin_max_us} or less, or set telemetry_sender_core = \"other-cores\""),
            );
        }
        report.check_range(
            &format!("{field}.max_catch_up_steps"),
            self.max_catch_up_steps,
            0..=50,
        );
        report.check_range(
            &format!("{field}.fault_after_missed_ticks"),
            self.fault_after_missed_ticks,
            1..=10_000,
        );
        report.check_range(
            &format!("{field}.stall_timeout_ms"),
            self.stall_timeout_ms,
            20..=10_000,
        );
        if let Some(core) = self.core {
            let online = online_cores();
            if core as usize >= online {
                report.problem(
                    format!("{field}.core"),
                    format!("core {core} does not exist: this machine has {online} online cores (0 ..= {})", online - 1),
                    "pick an existing core, or remove the key to use the last core",
                );
            }
        }
    }
}

/// Number of online CPU cores of the machine (at least 1), from
/// `/sys/devices/system/cpu/online`. Not `available_parallelism`: that counts only the cores
/// the calling thread may use, and rigd keeps its main thread off the RT core, so a SIGHUP
/// reload would otherwise see one core fewer and reject a valid `core`.
pub fn online_cores() -> usize {
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|list| count_cpu_list(&list))
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// The number of CPUs in a kernel CPU list such as `0-3,6`; `None` when it does not parse.
fn count_cpu_list(list: &str) -> Option<usize> {
    list.trim()
        .split(',')
        .map(|range| match range.split_once('-') {
            Some((first, last)) => {
                let (first, last): (usize, usize) = (first.parse().ok()?, last.parse().ok()?);
                last.checked_sub(first).map(|n| n + 1)
            }
            None => range.parse::<usize>().ok().map(|_| 1),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_count_every_listed_cpu() {
        assert_eq!(count_cpu_list("0-1\n"), Some(2));
        assert_eq!(count_cpu_list("0"), Some(1));
        assert_eq!(count_cpu_list("0,2-3,8-15"), Some(11));
        assert_eq!(count_cpu_list("3-1"), None);
        assert_eq!(count_cpu_list(""), None);
    }
}
