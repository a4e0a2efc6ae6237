//! Motion platforms: cueing (vehicle motion to platform pose), kinematics (pose to actuator
//! values), safety (state machine, rate-limited tracker, parking), controller output (a
//! writer per serial or UDP output, all stepped by one writer thread, [`writers`]) and the RT
//! stage that ties them to the 1 kHz loop; [`jog`] is the rig check's motion (`rigd motion
//! test`).
//!
//! [`stages`] builds one [`stage::MotionStage`] per `[[motion.platforms]]` (off the RT
//! thread: it allocates, spawns the one writer thread for every platform's outputs and
//! installs the [`panic_park`] hook), registers
//! each stage's hold slot with the session's [`hold::MotionHolds`] and logs the config's
//! deliberate deviations (a baud overriding the firmware's) once.

pub mod cueing;
pub mod hold;
pub mod jog;
pub mod kinematics;
pub mod link;
pub mod panic_park;
pub mod safety;
pub mod stage;
pub mod tracker;
pub mod writer;
pub mod writers;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use rig_config::motion::{ticks_per_frame, ActuatorLimits, GeometryConfig, PlatformConfig};
use rig_config::Config;
use rig_protocols::motion::{parse_escapes, Encoder, FrameKind, TemplateEncoder};

use crate::rt::handoff::{latest_value, LatestReader};
use crate::rt::stage::RtStage;
use hold::MotionHolds;
use kinematics::{PlanarDrive, Platform, RotaryStewart, StewartGeometry, MAX_ACTUATORS};
use panic_park::PanicPark;
use stage::{MotionStage, OutputPort};
use tracker::Tracker;
use writer::{LinkTarget, OutputCommand, OutputWriter, WriterEnds, WriterSetup, WriterStatus};
use writers::{StageWriters, WriterThread};

/// Commands buffered between the RT stage and a writer.
const RING_CAPACITY: usize = 64;

/// The kinematic model of a platform's geometry.
pub fn platform_from_config(geometry: &GeometryConfig) -> Result<Platform> {
    Ok(match geometry {
        GeometryConfig::Vertical {
            actuator_points_m,
            crank_radius_m,
        } => {
            let mut points = [[0.0; 2]; 4];
            for (slot, p) in points.iter_mut().zip(actuator_points_m) {
                *slot = *p;
            }
            Platform::Planar {
                points,
                count: actuator_points_m.len().min(4),
                drive: match crank_radius_m {
                    Some(radius_m) => PlanarDrive::Crank {
                        radius_m: *radius_m,
                    },
                    None => PlanarDrive::Linear,
                },
            }
        }
        GeometryConfig::StewartLinear {
            base_radius_m,
            platform_radius_m,
            base_pair_angle_deg,
            platform_pair_angle_deg,
            home_height_m,
        } => Platform::StewartLinear(StewartGeometry::paired(
            *base_radius_m,
            *platform_radius_m,
            *base_pair_angle_deg,
            *platform_pair_angle_deg,
            *home_height_m,
        )),
        GeometryConfig::StewartRotary {
            base_radius_m,
            platform_radius_m,
            base_pair_angle_deg,
            platform_pair_angle_deg,
            arm_length_m,
            rod_length_m,
        } => Platform::StewartRotary(RotaryStewart::paired(
            *base_radius_m,
            *platform_radius_m,
            *base_pair_angle_deg,
            *platform_pair_angle_deg,
            *arm_length_m,
            *rod_length_m,
        )?),
    })
}

/// A platform's outputs, built but not running: their writers (for the writer thread) and
/// the stage's ends of them.
struct PlatformOutputs {
    platform: Platform,
    limits: ActuatorLimits,
    writers: Vec<OutputWriter>,
    /// Per output: its command ring, its status slot and its ticks per frame.
    ports: Vec<(
        rtrb::Producer<OutputCommand>,
        LatestReader<WriterStatus>,
        u32,
    )>,
    shutdown: Arc<AtomicBool>,
    finished: std::sync::mpsc::Receiver<()>,
}

impl PlatformOutputs {
    /// The platform's RT stage, its outputs written by `thread`.
    fn into_stage(
        self,
        config: &PlatformConfig,
        tick_hz: f64,
        thread: &Arc<WriterThread>,
    ) -> MotionStage {
        let ports = self
            .ports
            .into_iter()
            .map(|(commands, status, every_ticks)| OutputPort {
                commands,
                status,
                every_ticks,
                countdown: every_ticks,
                last_status: WriterStatus::default(),
            })
            .collect();
        let writers = StageWriters {
            thread: Arc::clone(thread),
            shutdown: self.shutdown,
            finished: self.finished,
        };
        MotionStage::new(config, self.platform, self.limits, tick_hz, ports, writers)
    }
}

/// Builds one platform's outputs (not started).
fn platform_outputs(
    config: &PlatformConfig,
    tick_hz: f64,
    panic_park: &Arc<PanicPark>,
) -> Result<PlatformOutputs> {
    let platform = platform_from_config(&config.geometry)?;
    let limits = config.limits().ok_or_else(|| {
        anyhow!(
            "motion platform `{}`: actuator limits missing (run `rigd check-config`)",
            config.name
        )
    })?;
    let count = platform.actuator_count();
    let mut reverse = [false; MAX_ACTUATORS];
    for (slot, r) in reverse.iter_mut().zip(&config.actuators.reverse) {
        *slot = *r;
    }
    // The whole neutral pose must fit, or nothing can be cued safely.
    platform
        .clamp_pose(&kinematics::Pose::NEUTRAL, limits.usable_half_travel)
        .with_context(|| {
            format!(
                "motion platform `{}`: neutral is outside the actuator travel",
                config.name
            )
        })?;
    let shutdown = Arc::new(AtomicBool::new(false));
    let (finished_sender, finished) = std::sync::mpsc::channel();
    let mut ports = Vec::new();
    let mut writers = Vec::new();
    for (i, out) in config.outputs.iter().enumerate() {
        let name = format!("{}/{}", config.name, i);
        let resolved = out
            .resolve()
            .map_err(|e| anyhow!("motion output {name}: {e}"))?;
        let encoder = match resolved.kind {
            FrameKind::KnaufinatorBinary => Encoder::KnaufinatorBinary {
                bits: resolved.bits,
            },
            FrameKind::Motion4SimPosition => Encoder::Motion4SimPosition,
            FrameKind::Template => Encoder::Template(
                TemplateEncoder::new(&resolved.template, resolved.bits, resolved.format)
                    .with_context(|| format!("motion output {name}"))?,
            ),
        };
        let target = match (&out.serial_port, &out.udp_target) {
            (Some(path), _) => LinkTarget::Serial {
                path: path.clone(),
                baud: resolved.baud,
                data_bits: out.data_bits,
                parity: out.parity.into(),
                stop_bits: out.stop_bits,
            },
            (None, Some(addr)) => LinkTarget::Udp(
                addr.parse()
                    .with_context(|| format!("motion output {name}: udp_target `{addr}`"))?,
            ),
            (None, None) => {
                return Err(anyhow!(
                    "motion output {name}: set serial_port or udp_target"
                ))
            }
        };
        let every_ticks = ticks_per_frame(tick_hz, resolved.rate_hz);
        let setup = WriterSetup {
            name: name.clone(),
            target,
            encoder,
            platform,
            tick_dt_s: 1.0 / tick_hz,
            every_ticks,
            post_open_delay: Duration::from_millis(u64::from(out.post_open_delay_ms)),
            start: parse_escapes(&resolved.start),
            start_delay: Duration::from_millis(u64::from(out.start_delay_ms)),
            stop: parse_escapes(&resolved.stop),
            stop_delay: Duration::from_millis(u64::from(out.stop_delay_ms)),
            limits,
            count,
            reverse,
            boot_position: resolved.boot_position,
            // Only opening a serial port resets a board (DTR); a UDP link resets nothing.
            resets_on_open: resolved.resets_on_open && out.serial_port.is_some(),
            watchdog: Duration::from_millis(u64::from(config.safety.writer_watchdog_ms)),
        };
        let (producer, consumer) = rtrb::RingBuffer::new(RING_CAPACITY);
        let park = Tracker::park_position(&limits);
        let (status_writer, status_reader) = latest_value(WriterStatus {
            last_sent: park,
            ..WriterStatus::default()
        });
        let ends = WriterEnds {
            commands: consumer,
            status: status_writer,
            shutdown: shutdown.clone(),
            panic_park: Arc::clone(panic_park),
            finished: finished_sender.clone(),
        };
        writers.push(OutputWriter::new(setup, ends));
        ports.push((producer, status_reader, every_ticks));
    }
    Ok(PlatformOutputs {
        platform,
        limits,
        writers,
        ports,
        shutdown,
        finished,
    })
}

/// Builds the stage of one platform with a writer thread of its own for its outputs (the
/// rig check's jog and tests; `rigd run` shares one thread among all platforms, [`stages`]).
pub fn platform_stage(
    config: &PlatformConfig,
    tick_hz: f64,
    panic_park: &Arc<PanicPark>,
) -> Result<MotionStage> {
    let mut outputs = platform_outputs(config, tick_hz, panic_park)?;
    let thread = WriterThread::spawn(std::mem::take(&mut outputs.writers))
        .context("cannot start the motion writer thread")?;
    Ok(outputs.into_stage(config, tick_hz, &thread))
}

/// One RT stage per configured motion platform (none when `[motion]` has no platforms); their
/// writers park on a panic through `panic_park`, whose hook is installed here (once).
pub fn stages(
    config: &Config,
    panic_park: &Arc<PanicPark>,
    holds: &MotionHolds,
) -> Result<Vec<Box<dyn RtStage>>> {
    if config.motion.platforms.is_empty() {
        return Ok(Vec::new());
    }
    for warning in config.motion.warnings() {
        tracing::warn!("{warning}");
    }
    panic_park.hook_once();
    let tick_hz = f64::from(config.realtime.rate_hz);
    let mut built = Vec::new();
    let mut writers = Vec::new();
    for platform in &config.motion.platforms {
        let mut outputs = platform_outputs(platform, tick_hz, panic_park)?;
        writers.append(&mut outputs.writers);
        built.push(outputs);
    }
    // One writer thread for every output of every platform (module docs of `writers`).
    let thread = WriterThread::spawn(writers).context("cannot start the motion writer thread")?;
    let mut out: Vec<Box<dyn RtStage>> = Vec::new();
    for (platform, outputs) in config.motion.platforms.iter().zip(built) {
        let mut stage = outputs.into_stage(platform, tick_hz, &thread);
        if let Some(reader) = stage.take_hold_reader() {
            holds.register(stage.name(), reader);
        }
        out.push(Box::new(stage));
    }
    Ok(out)
}
