//! The live display in the daemon's own terminal (only when stdout is a terminal).
//!
//! The display is the rig-dash dashboard, listening on rigd's own native telemetry
//! destinations on this host (loopback), so it shows exactly what a separate `rig-dash` would.
//! When no native output goes to loopback, or its port is taken (a standalone rig-dash already
//! listens there), it falls back to a one-line status (speed, rpm, gear, lap, tick p99) read
//! from the frame slot, and logs why. Contract for any display: ask the daemon to stop through
//! [`StopRequest`] (never exit the process itself), and restore the terminal when dropped.
//!
//! Keys and signals: the dashboard puts the terminal in raw mode, so Ctrl-C arrives as a key,
//! not as SIGINT; `q`, `Esc` and Ctrl-C end the dashboard and request the daemon's stop.
//! SIGTERM/SIGINT from elsewhere stop the daemon, which drops the [`Display`]: that sets the
//! dashboard's stop flag, and it restores the terminal within one frame. When the terminal
//! itself goes away (window closed, ssh dropped) the display asks the daemon to stop too: an
//! interactive rigd nobody can see or stop any more must not keep driving a wheel. (The
//! hang-up's SIGHUP arrives as a reload first, which is harmless.)
//!
//! What the packets do not carry reaches the dashboard through [`Display::show`] (rig-dash's
//! host feed): the newest logged warning for its status line (the log itself goes to a file
//! while the dashboard owns the terminal) and rigd's per-destination telemetry counters for
//! its rig page.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use rig_config::telemetry::{effective_outputs, TelemetryFormat, TelemetryOutput};
use rig_protocols::Frame;

use crate::handoff::LatestReader;

const REFRESH: Duration = Duration::from_millis(100);

/// Lets a display (or anything else off the RT thread) ask the daemon to stop cleanly.
#[derive(Debug, Clone, Default)]
pub struct StopRequest(Arc<AtomicBool>);

impl StopRequest {
    /// Asks the daemon to run its safe stop and exit.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once a stop was asked for.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The running display; dropping it stops it and restores the terminal.
#[derive(Debug)]
pub struct Display {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    /// The dashboard's host feed (`None` for the one-line status).
    host: Option<rig_dash::HostFeed>,
}

/// Title of the dashboard panel with the telemetry counters.
pub const TELEMETRY_PANEL_TITLE: &str = "rigd telemetry out";
/// Most lines that panel gets, so the rig page keeps its other panels at 80x24.
pub const TELEMETRY_PANEL_MAX_LINES: usize = 6;

/// `lines` cut to [`TELEMETRY_PANEL_MAX_LINES`], the last one saying how many were left out
/// and where to see them all.
pub fn panel_lines(mut lines: Vec<String>) -> Vec<String> {
    if lines.len() > TELEMETRY_PANEL_MAX_LINES {
        let hidden = lines.len() - (TELEMETRY_PANEL_MAX_LINES - 1);
        lines.truncate(TELEMETRY_PANEL_MAX_LINES - 1);
        lines.push(format!(
            "+{hidden} more destination(s): all in `systemctl status rigd` and the log"
        ));
    }
    lines
}

impl Display {
    /// Shows `notice` (the newest warning) in the dashboard's status line and
    /// `telemetry_lines` (one per destination) on its rig page; the one-line status shows
    /// neither.
    pub fn show(&self, notice: Option<String>, telemetry_lines: Vec<String>) {
        if let Some(host) = &self.host {
            host.set_notice(notice);
            host.set_lines(TELEMETRY_PANEL_TITLE, panel_lines(telemetry_lines));
        }
    }
}

/// The addresses the dashboard listens on: every destination of an enabled native telemetry
/// output (the built-in default when none is configured) that is on loopback.
pub fn dashboard_addresses(telemetry: &[TelemetryOutput]) -> Vec<SocketAddr> {
    let mut addresses: Vec<SocketAddr> = effective_outputs(telemetry)
        .iter()
        .filter(|output| output.format == TelemetryFormat::Native)
        .flat_map(|output| output.destinations.iter())
        .filter_map(|destination| destination.parse::<SocketAddr>().ok())
        .filter(|address| address.ip().is_loopback())
        .collect();
    addresses.sort();
    addresses.dedup();
    addresses
}

/// The display chosen before the loop starts. The dashboard's sockets are bound here, before
/// the telemetry stage sends its first packet, so the demo does not start with a "connection
/// refused" warning for its own dashboard port.
pub struct PreparedDisplay {
    /// The bound dashboard, or `None` for the one-line status.
    dashboard: Option<rig_dash::Dashboard>,
}

impl std::fmt::Debug for PreparedDisplay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.dashboard.is_some() {
            "dashboard"
        } else {
            "status line"
        };
        f.debug_tuple("PreparedDisplay").field(&kind).finish()
    }
}

/// Binds the dashboard on the loopback native telemetry destinations of `telemetry`, or picks
/// the one-line status when there is none or its port cannot be bound (said in the log).
pub fn prepare(telemetry: &[TelemetryOutput]) -> PreparedDisplay {
    let listen = dashboard_addresses(telemetry);
    if listen.is_empty() {
        tracing::info!(
            "no native telemetry output goes to 127.0.0.1, so the dashboard has nothing to \
             show: using the one-line status; add a [[telemetry]] entry with format = \"native\" \
             and destinations = [\"127.0.0.1:{}\"] for the dashboard",
            rig_protocols::NATIVE_DEFAULT_PORT
        );
        return PreparedDisplay { dashboard: None };
    }
    let options = rig_dash::DashOptions {
        listen,
        ..rig_dash::DashOptions::default()
    };
    match rig_dash::Dashboard::bind(&options) {
        Ok(dashboard) => PreparedDisplay {
            dashboard: Some(dashboard),
        },
        Err(error) => {
            tracing::warn!("dashboard unavailable, using the one-line status: {error}");
            PreparedDisplay { dashboard: None }
        }
    }
}

/// Starts the prepared display on its own thread: the dashboard, or the one-line status
/// reading `frames`.
pub fn start(
    prepared: PreparedDisplay,
    frames: LatestReader<Frame>,
    stop_daemon: StopRequest,
) -> std::io::Result<Display> {
    let Some(dashboard) = prepared.dashboard else {
        return start_status_line(frames, stop_daemon);
    };
    let host = rig_dash::HostFeed::default();
    let dashboard = dashboard.with_host(host.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let stop_flag = stop.clone();
    let handle = std::thread::Builder::new()
        .name("rigd-dashboard".into())
        .spawn(move || match dashboard.run(&stop_flag) {
            Ok(rig_dash::Ended::Quit) => stop_daemon.request(),
            Ok(rig_dash::Ended::Stopped) => {}
            Err(rig_dash::DashError::TerminalGone) => {
                tracing::warn!(
                    "the terminal running rigd closed: stopping safely (run rigd as the \
                     systemd service to keep it running without a terminal)"
                );
                stop_daemon.request();
            }
            Err(error) => tracing::warn!("the dashboard stopped, rigd runs on: {error}"),
        })?;
    Ok(Display {
        stop,
        handle: Some(handle),
        host: Some(host),
    })
}

/// The fallback display: one status line, redrawn ten times a second (a failed write means
/// the terminal is gone: the daemon is asked to stop), with the newest logged warning after it (the log goes to a file while a display is shown), cut to the terminal's
/// width so it never wraps (a wrapped line would not be redrawn in place). It takes no keys:
/// Ctrl-C reaches the daemon as SIGINT.
fn start_status_line(
    mut frames: LatestReader<Frame>,
    stop_daemon: StopRequest,
) -> std::io::Result<Display> {
    let stop = Arc::new(AtomicBool::new(false));
    let stop_flag = stop.clone();
    let handle = std::thread::Builder::new()
        .name("rigd-display".into())
        .spawn(move || {
            let mut out = std::io::stdout();
            while !stop_flag.load(Ordering::Relaxed) {
                std::thread::sleep(REFRESH);
                let mut line = status_line(&frames.read());
                if let Some(notice) = crate::cli::logging::latest_notice() {
                    line = format!("{line}  |  {notice}");
                }
                let line = fit_width(&line, stdout_columns());
                if write!(out, "\r\x1b[2K{line}")
                    .and_then(|()| out.flush())
                    .is_err()
                {
                    tracing::warn!(
                        "the terminal running rigd closed: stopping safely (run rigd as the \
                         systemd service to keep it running without a terminal)"
                    );
                    stop_daemon.request();
                    return;
                }
            }
            let _ = writeln!(out);
            let _ = out.flush();
        })?;
    Ok(Display {
        stop,
        handle: Some(handle),
        host: None,
    })
}

impl Drop for Display {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// The width of the terminal on stdout, in columns (80 when it cannot be read).
fn stdout_columns() -> usize {
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct passed; a zeroed one is valid.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    // SAFETY: as above; fd 1 is only queried.
    let rc = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
    if rc == 0 && size.ws_col > 0 {
        usize::from(size.ws_col)
    } else {
        80
    }
}

/// `line` cut to `columns - 1` characters (the last column stays free: writing into it makes
/// some terminals wrap).
fn fit_width(line: &str, columns: usize) -> String {
    line.chars().take(columns.saturating_sub(1)).collect()
}

fn lap_time(seconds: f64) -> String {
    if !(seconds.is_finite() && seconds > 0.0) {
        return "-:--.---".into();
    }
    let minutes = (seconds / 60.0).floor();
    format!("{}:{:06.3}", minutes as u64, seconds - minutes * 60.0)
}

/// The status line for one frame.
pub fn status_line(frame: &Frame) -> String {
    let car = &frame.car;
    let gear = match car.drivetrain.gear {
        g if g < 0 => "R".to_string(),
        0 => "N".to_string(),
        g => g.to_string(),
    };
    format!(
        "{:6.1} km/h  {:5.0} rpm  gear {}  lap {}  last {}  best {}  |  {:4.0} Hz  tick p99 {:.0} us  late>1ms {}",
        car.speed_mps * 3.6,
        car.drivetrain.engine_rpm,
        gear,
        car.lap.laps_completed + 1,
        lap_time(car.lap.last_lap_s),
        lap_time(car.lap.best_lap_s),
        frame.health.tick_rate_hz,
        frame.health.wake_latency_p99_us,
        frame.health.late_ticks_1ms,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashboard_listens_on_loopback_native_destinations_only() {
        let default = dashboard_addresses(&[]);
        assert_eq!(
            default,
            vec![SocketAddr::from((
                [127, 0, 0, 1],
                rig_protocols::NATIVE_DEFAULT_PORT
            ))]
        );
        let mut lan = TelemetryOutput::default_native();
        lan.destinations = vec!["192.168.1.20:29777".into(), "127.0.0.1:30000".into()];
        let mut forza = TelemetryOutput::default_native();
        forza.format = TelemetryFormat::ForzaHorizon;
        forza.destinations = vec!["127.0.0.1:5300".into()];
        assert_eq!(
            dashboard_addresses(&[lan.clone(), forza.clone()]),
            vec![SocketAddr::from(([127, 0, 0, 1], 30000))]
        );
        lan.enabled = false;
        assert!(dashboard_addresses(&[lan, forza]).is_empty());
    }

    #[test]
    fn sixteen_destinations_fit_the_panel_and_say_how_many_are_hidden() {
        let lines: Vec<String> = (0..16).map(|i| format!("destination {i}")).collect();
        let shown = panel_lines(lines);
        assert_eq!(shown.len(), TELEMETRY_PANEL_MAX_LINES);
        assert_eq!(shown[4], "destination 4");
        assert!(shown[5].starts_with("+11 more destination(s)"), "{shown:?}");
        assert_eq!(panel_lines(vec!["one".into()]), vec!["one".to_string()]);
    }

    #[test]
    fn the_status_line_never_wraps() {
        let line = "123 km/h  |  03:12:45Z WARN telemetry ü";
        assert_eq!(fit_width(line, 12), "123 km/h  |");
        assert_eq!(fit_width(line, 200), line);
        assert_eq!(fit_width(line, 0), "");
    }

    #[test]
    fn status_line_shows_speed_rpm_gear_lap_and_p99() {
        let mut frame = Frame::default();
        frame.car.speed_mps = 25.0;
        frame.car.drivetrain.engine_rpm = 5400.0;
        frame.car.drivetrain.gear = 3;
        frame.car.lap.laps_completed = 1;
        frame.car.lap.last_lap_s = 92.456;
        frame.health.wake_latency_p99_us = 54.0;
        frame.health.tick_rate_hz = 1000.0;
        let line = status_line(&frame);
        for part in [
            "90.0 km/h",
            "5400 rpm",
            "gear 3",
            "lap 2",
            "last 1:32.456",
            "best -:--.---",
            "tick p99 54 us",
        ] {
            assert!(line.contains(part), "`{part}` missing in `{line}`");
        }
    }
}
