//! `rigd bench loop`: the real RT loop (world, robots, stages from the config; the robot drives
//! the player car, the loop never idles) run for a set time, then wake-latency percentiles, late-tick counts, tick-work and physics-step
//! percentiles, in the same terms as cyclictest (latency = wake-up time minus the absolute
//! deadline).

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use rig_config::Config;

use crate::input::player_input::PlayerInput;
use crate::rt::setup;
use crate::runtime::health::HealthTotals;
use crate::runtime::rt_loop::{Command, FrameSlots, LoopParts, LoopShared, LoopTiming};
use crate::runtime::rt_thread::RtThread;
use crate::runtime::session_links::SessionLinks;
use crate::runtime::simulation::Simulation;
use crate::runtime::stages::build_output_stages;

/// Runs the loop of `config` for `seconds` and prints the report.
pub fn run_loop(config: &Config, seconds: f64) -> Result<()> {
    let setup::ProcessSetup {
        core,
        pm_qos: _pm_qos,
        mut refused,
    } = setup::ProcessSetup::prepare(&config.realtime);
    let sim = Simulation::build(&config.sim, config.realtime.rate_hz)?;
    let cars = sim.car_count();
    let (_input_writer, input) = crate::rt::handoff::latest_value(PlayerInput::DISCONNECTED);
    let (slots, _readers) = FrameSlots::new(1);
    let links = SessionLinks::standalone();
    let parts = LoopParts {
        sim,
        stages: build_output_stages(config, &links)?,
        input,
        slots,
        ffb: links.ffb,
        game: None,
    };
    let shared = Arc::new(LoopShared::default());
    // The robot drives: the benchmark measures the loop at its full rate, never idle.
    let timing = LoopTiming {
        idle_period_ns: None,
        ..LoopTiming::from_config(&config.realtime)
    };
    let (rt, rt_refused) = RtThread::start(parts, timing, shared.clone(), &config.realtime)?;
    refused.extend(rt_refused);
    if let Some(warning) = setup::warning(&refused) {
        tracing::warn!("{warning}");
    }
    std::thread::sleep(Duration::from_secs_f64(seconds.max(0.1)));
    shared.request(Command::Exit);
    let exit = rt.join()?;
    let policy = if refused.iter().any(|r| r.what.starts_with("SCHED_FIFO")) {
        "SCHED_OTHER (FIFO refused)".to_string()
    } else {
        format!("SCHED_FIFO {}", config.realtime.priority)
    };
    println!(
        "rigd bench loop: {seconds} s at {} Hz, {policy}, core {core}, mlockall {}, pm_qos {:?}, spin {} us, {cars} car(s)",
        config.realtime.rate_hz,
        if refused.iter().any(|r| r.what.starts_with("memory")) || !config.realtime.lock_memory { "no" } else { "yes" },
        config.realtime.pm_qos,
        config.realtime.final_spin_us(),
    );
    print!("{}", report(&exit.totals));
    Ok(())
}

/// The report lines (stable format: scripts/bench-loop.sh parses them).
pub fn report(t: &HealthTotals) -> String {
    format!(
        "wake latency us: samples {} p50 {:.0} p99 {:.0} p99.9 {:.0} max {:.0}\n\
         late wake-ups: >100us {} >250us {} >1ms {}; missed ticks {}; dropped time {:.1} ms\n\
         tick work us: p50 {:.0} p99 {:.0} p99.9 {:.0} max {:.0}\n\
         physics step us: p50 {:.0} p99 {:.0} p99.9 {:.0} max {:.0}\n",
        t.wake.samples(),
        t.wake.percentile_us(50.0),
        t.wake.percentile_us(99.0),
        t.wake.percentile_us(99.9),
        t.wake.max_us(),
        t.late_100us,
        t.late_250us,
        t.late_1ms,
        t.missed_ticks,
        t.dropped_ns as f64 / 1e6,
        t.work.percentile_us(50.0),
        t.work.percentile_us(99.0),
        t.work.percentile_us(99.9),
        t.work.max_us(),
        t.physics_step.percentile_us(50.0),
        t.physics_step.percentile_us(99.0),
        t.physics_step.percentile_us(99.9),
        t.physics_step.max_us(),
    )
}
