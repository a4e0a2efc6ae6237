//! `rigd motion test`: the rig check. Jogs each configured motion platform (or the one
//! named) through its axes one at a time ([`crate::motion::jog`]), slowly and well inside
//! its reach, printing which axis moves and which way, so a builder can check the wiring and
//! the directions before racing. It drives the same stage, writers, tracker and limits as
//! `rigd run`: the platform raises from park to neutral first and parks at the end. SIGINT
//! (Ctrl-C), SIGTERM or the terminal closing park it at once, through the writers' own ramp,
//! before the command exits.

use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use rig_config::motion::PlatformConfig;

use super::BadInvocation;
use crate::motion::jog::JogPlan;
use crate::motion::kinematics::Pose;
use crate::motion::panic_park::PanicPark;
use crate::motion::safety::SafetyState;
use crate::motion::stage::MotionStage;
use crate::rt::stage::{RtStage, StopReason};
use crate::signals::{self, ControllingTerminal, Signal};

/// Longest wait for a platform's controller link and its raise to neutral.
const RAISE_TIMEOUT: Duration = Duration::from_secs(60);
/// Neutral is held this long between the raise and the first move, and after the last.
const SETTLE: Duration = Duration::from_millis(500);

/// How `rigd motion test` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// Every axis of every platform was jogged.
    Done,
    /// A signal stopped it.
    Stopped,
}

/// Runs the rig check on `platform` (every platform when `None`) of `config`, each move
/// `move_s` long.
pub fn run(
    config_path: Option<&std::path::Path>,
    platform: Option<&str>,
    move_s: f64,
) -> Result<()> {
    let config = crate::runtime::config_load::load_config(config_path)?;
    if !(move_s.is_finite() && move_s >= 0.2) {
        return Err(BadInvocation(format!(
            "--move-seconds {move_s} is too short (fix: 0.2 or more; the default 2 moves slowly)"
        ))
        .into());
    }
    let platforms: Vec<&PlatformConfig> = config
        .motion
        .platforms
        .iter()
        .filter(|p| platform.is_none_or(|name| p.name == name))
        .collect();
    if platforms.is_empty() {
        let names: Vec<&str> = config
            .motion
            .platforms
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        return Err(BadInvocation(match platform {
            Some(name) if !names.is_empty() => format!(
                "no motion platform is called `{name}` (fix: one of {})",
                names.join(", ")
            ),
            _ => "the configuration has no [[motion.platforms]] to test (fix: add one; examples/motion-*.toml show how, or pass --config)".into(),
        })
        .into());
    }
    let tick_hz = f64::from(config.realtime.rate_hz);
    let panic_park = PanicPark::new();
    panic_park.hook_once();
    let terminal = ControllingTerminal::open();
    for platform in platforms {
        let limits = platform
            .actuators
            .limits(platform.geometry.is_rotary())
            .ok_or_else(|| {
                anyhow!(
                    "motion platform `{}`: actuator limits missing (run `rigd check-config`)",
                    platform.name
                )
            })?;
        let kinematics = crate::motion::platform_from_config(&platform.geometry)?;
        let plan = JogPlan::new(&kinematics, limits.usable_half_travel, move_s);
        println!(
            "{}: raising to neutral, then {} moves of {move_s} s ({:.0} s); Ctrl-C parks",
            platform.name,
            plan.moves().len(),
            plan.duration_s()
        );
        let mut stage = crate::motion::platform_stage(platform, tick_hz, &panic_park)?;
        let ending = jog(&mut stage, &plan, tick_hz, &terminal, &platform.name);
        stage.safe_stop(StopReason::Exit);
        // Dropping the stage waits for its writers to finish the park ramp and close.
        drop(stage);
        match ending? {
            Ending::Done => println!("{}: parked", platform.name),
            Ending::Stopped => {
                println!("{}: stopped, parked", platform.name);
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Ticks `stage` through `plan` at `tick_hz`: raise, the moves, neutral. Stops at a signal.
fn jog(
    stage: &mut MotionStage,
    plan: &JogPlan,
    tick_hz: f64,
    terminal: &ControllingTerminal,
    name: &str,
) -> Result<Ending> {
    let period = Duration::from_secs_f64(1.0 / tick_hz);
    let start = Instant::now();
    let mut next_tick = start;
    let mut raised_at: Option<Instant> = None;
    let mut announced: Option<usize> = None;
    loop {
        if matches!(
            signals::wait(Duration::ZERO, terminal),
            Some(Signal::Stop | Signal::TerminalClosed)
        ) {
            return Ok(Ending::Stopped);
        }
        let now = Instant::now();
        let pose = match raised_at {
            None => {
                // At neutral once the stage is up and every writer has joined it (a writer
                // homing from an unknown start moves at the homing speed until then).
                if stage.state() == SafetyState::Active && stage.writers_following() {
                    raised_at = Some(now);
                    println!("{name}: at neutral");
                } else if now - start > RAISE_TIMEOUT {
                    return Err(anyhow!(
                        "motion platform `{name}` did not come up within {} s (state {:?}): check the controller's cable, power and serial_port or udp_target",
                        RAISE_TIMEOUT.as_secs(),
                        stage.state()
                    ));
                }
                Pose::NEUTRAL
            }
            Some(raised) => {
                let t = (now - raised).saturating_sub(SETTLE).as_secs_f64();
                match plan.at(t) {
                    Some((index, pose)) => {
                        if announced != Some(index) {
                            println!("{name}: {}", plan.moves()[index].describe());
                            announced = Some(index);
                        }
                        pose
                    }
                    None if t > plan.duration_s() + SETTLE.as_secs_f64() => {
                        return Ok(Ending::Done)
                    }
                    None => Pose::NEUTRAL,
                }
            }
        };
        stage.jog_tick(&pose);
        next_tick += period;
        let now = Instant::now();
        if next_tick > now {
            std::thread::sleep(next_tick - now);
        } else {
            // Behind (a busy machine): carry on from now rather than rushing to catch up.
            next_tick = now;
        }
    }
}
