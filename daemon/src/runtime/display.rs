//! The live display in the daemon's own terminal (only when stdout is a terminal).
//!
//! The display is the rig-dash dashboard, fed in-process: a feeder thread reads the newest
//! frame from the frame slot at the rate of rigd's native telemetry output to this host
//! (loopback), encodes it as the native packet that output sends and hands the bytes to the
//! dashboard, which decodes them as it decodes a datagram. So it shows exactly what a separate
//! `rig-dash` listening on that output shows, and it binds no socket: the output's port stays
//! free for a separate rig-dash, and both can run at once (or `rigd run --no-display` and
//! rig-dash in another terminal). When no native output goes to loopback there is nothing a
//! rig-dash would show, and the display is a one-line status (speed, rpm, gear, lap, wake p99)
//! read from the frame slot; the log says why. Contract for any display: ask the daemon to stop through
//! [`StopRequest`] (never exit the process itself), and restore the terminal when dropped.
//! Dropping a [`Display`] waits at most [`DISPLAY_STOP_TIMEOUT`] for its thread: a thread stuck
//! writing to a terminal that takes no output is left behind rather than holding up the exit,
//! and the terminal's raw mode is switched off from the dropping thread (settings only).
//!
//! Keys and signals: the dashboard puts the terminal in raw mode, so Ctrl-C arrives as a key,
//! not as SIGINT; `q`, `Esc` and Ctrl-C end the dashboard and request the daemon's stop.
//! SIGTERM/SIGINT from elsewhere stop the daemon, which drops the [`Display`]: that sets the
//! dashboard's stop flag, and it restores the terminal within one frame. When the terminal
//! itself goes away (window closed, ssh dropped) the display asks the daemon to stop too
//! ([`StopCause::TerminalClosed`]): an interactive rigd nobody can see or stop any more must
//! not keep driving a wheel. The hang-up shows either as the dashboard's `TerminalGone` (its
//! key wait saw it) or as a drawing error (a frame was being drawn when the terminal went:
//! `EIO`); a drawing error is a closed terminal when stdout has hung up, and only otherwise
//! leaves rigd running without its dashboard. The hang-up's SIGHUP stops the daemon by itself
//! as well ([`crate::signals`]); whichever comes first wins.
//!
//! What the packets do not carry reaches the dashboard through [`Display::show`] (rig-dash's
//! host feed): the newest logged warning for its status line (the log itself goes to a file
//! while the dashboard owns the terminal), who drives (and why) for its title bar, and rigd's
//! per-destination telemetry counters for its rig page.

use std::io::Write;
use std::net::SocketAddr;
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rig_config::telemetry::{effective_outputs, TelemetryFormat, TelemetryOutput};
use rig_protocols::telemetry::{Format, MAX_PACKET_LEN};
use rig_protocols::Frame;

use super::bounded_join::join_within;
use crate::logging::NoticeFeed;
use crate::rt::handoff::LatestReader;

const REFRESH: Duration = Duration::from_millis(100);

/// Longest wait for the display thread when the display is dropped: it checks its stop flag
/// every frame (at most 100 ms apart).
pub const DISPLAY_STOP_TIMEOUT: Duration = Duration::from_secs(1);

/// Why a display asked the daemon to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum StopCause {
    /// The user quit the dashboard (`q`, `Esc`, Ctrl-C).
    Quit = 1,
    /// The terminal the display draws on hung up.
    TerminalClosed = 2,
}

/// Lets a display (or anything else off the RT thread) ask the daemon to stop cleanly.
#[derive(Debug, Clone, Default)]
pub struct StopRequest(Arc<AtomicU8>);

impl StopRequest {
    /// Asks the daemon to run its safe stop and exit (the first cause asked for is kept).
    pub fn request(&self, cause: StopCause) {
        let _ = self
            .0
            .compare_exchange(0, cause as u8, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The cause once a stop was asked for.
    pub fn requested(&self) -> Option<StopCause> {
        match self.0.load(Ordering::Relaxed) {
            1 => Some(StopCause::Quit),
            2 => Some(StopCause::TerminalClosed),
            _ => None,
        }
    }
}

/// What the daemon does when the dashboard returned with `ended`: the user's quit and a
/// terminal that went away stop it; a drawing error while the terminal is still there
/// (`terminal_hung_up` false) leaves it running without the dashboard (`None`).
fn stop_cause(
    ended: &Result<rig_dash::Ended, rig_dash::DashError>,
    terminal_hung_up: impl FnOnce() -> bool,
) -> Option<StopCause> {
    match ended {
        Ok(rig_dash::Ended::Quit) => Some(StopCause::Quit),
        Ok(rig_dash::Ended::Stopped) => None,
        Err(rig_dash::DashError::TerminalGone) => Some(StopCause::TerminalClosed),
        Err(_) if terminal_hung_up() => Some(StopCause::TerminalClosed),
        Err(_) => None,
    }
}

/// Longest the feeder sleeps between two looks at the stop flag.
const FEED_MAX_SLEEP: Duration = Duration::from_millis(50);

/// The running display; dropping it stops it and restores the terminal.
#[derive(Debug)]
pub struct Display {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
    /// The thread feeding the dashboard rigd's frames (`None` for the one-line status).
    feeder: Option<JoinHandle<()>>,
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
    /// Shows `notice` (the newest warning) in the dashboard's status line,
    /// `telemetry_lines` (one per destination) on its rig page and `driver` (who drives, and
    /// why; `None` for a replay) in its title bar; the one-line status shows none of them.
    pub fn show(
        &self,
        notice: Option<String>,
        telemetry_lines: Vec<String>,
        driver: Option<String>,
    ) {
        if let Some(host) = &self.host {
            host.set_notice(notice);
            host.set_lines(TELEMETRY_PANEL_TITLE, panel_lines(telemetry_lines));
            host.set_driver(driver);
        }
    }

    /// Draws `points_m` (the robots' racing line, world metres) on the dashboard's map, or no
    /// line when None; the one-line status shows nothing.
    pub fn show_racing_line(&self, points_m: Option<Arc<[[f64; 2]]>>) {
        if let Some(host) = &self.host {
            host.set_racing_line(points_m);
        }
    }
}

/// The addresses a separate rig-dash can listen on to see what the in-process dashboard shows:
/// every destination of an enabled native telemetry output (the built-in default when none is
/// configured) that is on loopback.
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

/// The packet rate of the in-process dashboard: the fastest enabled native output to
/// loopback (the built-in default when none is configured), `None` when there is none.
pub fn dashboard_rate_hz(telemetry: &[TelemetryOutput]) -> Option<u32> {
    effective_outputs(telemetry)
        .iter()
        .filter(|output| output.format == TelemetryFormat::Native)
        .filter(|output| {
            output.destinations.iter().any(|destination| {
                destination
                    .parse::<SocketAddr>()
                    .is_ok_and(|address| address.ip().is_loopback())
            })
        })
        .map(|output| output.rate_hz)
        .max()
}

/// The in-process dashboard and what feeds it.
struct InProcessDashboard {
    dashboard: rig_dash::Dashboard,
    feed: rig_dash::PacketFeed,
    rate_hz: u32,
}

/// The display chosen before the loop starts.
pub struct PreparedDisplay {
    /// The in-process dashboard, or `None` for the one-line status.
    dashboard: Option<InProcessDashboard>,
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

/// The in-process dashboard when a native output of `telemetry` goes to loopback (the log
/// names the addresses a separate rig-dash can listen on), else the one-line status.
pub fn prepare(telemetry: &[TelemetryOutput]) -> PreparedDisplay {
    let listen = dashboard_addresses(telemetry);
    let Some(rate_hz) = dashboard_rate_hz(telemetry).filter(|_| !listen.is_empty()) else {
        tracing::info!(
            "no native telemetry output goes to 127.0.0.1, so the dashboard has nothing to \
             show: using the one-line status; add a [[telemetry]] entry with format = \"native\" \
             and destinations = [\"127.0.0.1:{}\"] for the dashboard",
            rig_protocols::NATIVE_DEFAULT_PORT
        );
        return PreparedDisplay { dashboard: None };
    };
    let addresses = listen
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    tracing::info!(
        "the dashboard shows rigd's native packets in-process at {rate_hz} Hz; `rig-dash` in \
         another terminal shows the same on {addresses} (`rigd run --no-display` leaves this \
         terminal to the log)"
    );
    let (dashboard, feed) = rig_dash::Dashboard::in_process(rig_dash::DEFAULT_FPS);
    PreparedDisplay {
        dashboard: Some(InProcessDashboard {
            dashboard,
            feed,
            rate_hz,
        }),
    }
}

/// Starts the prepared display on its own thread: the dashboard with the thread feeding it
/// `frames`, or the one-line status reading `frames` and showing the newest of `notices`.
pub fn start(
    prepared: PreparedDisplay,
    frames: LatestReader<Frame>,
    stop_daemon: StopRequest,
    notices: NoticeFeed,
) -> std::io::Result<Display> {
    let Some(InProcessDashboard {
        dashboard,
        feed,
        rate_hz,
    }) = prepared.dashboard
    else {
        return start_status_line(frames, stop_daemon, notices);
    };
    let host = rig_dash::HostFeed::default();
    let dashboard = dashboard.with_host(host.clone());
    let stop = Arc::new(AtomicBool::new(false));
    let feeder_stop = stop.clone();
    let feeder = std::thread::Builder::new()
        .name("rigd-dash-feed".into())
        .spawn(move || feed_frames(frames, &feed, rate_hz, &feeder_stop))?;
    let stop_flag = stop.clone();
    let handle = std::thread::Builder::new()
        .name("rigd-dashboard".into())
        .spawn(move || {
            let ended = dashboard.run(&stop_flag);
            match stop_cause(&ended, || {
                crate::signals::hung_up(std::io::stdout().as_fd())
            }) {
                Some(cause) => stop_daemon.request(cause),
                None => {
                    if let Err(error) = ended {
                        tracing::warn!("the dashboard stopped, rigd runs on: {error}");
                    }
                }
            }
        })?;
    Ok(Display {
        stop,
        handle: Some(handle),
        feeder: Some(feeder),
        host: Some(host),
    })
}

/// Hands the dashboard the newest frame as a native packet about `rate_hz` times a second
/// (only frames it has not sent yet) until `stop` or until the dashboard is gone.
fn feed_frames(
    mut frames: LatestReader<Frame>,
    feed: &rig_dash::PacketFeed,
    rate_hz: u32,
    stop: &AtomicBool,
) {
    let period = Duration::from_secs_f64(1.0 / f64::from(rate_hz.max(1)));
    let mut packet = vec![0u8; MAX_PACKET_LEN];
    let mut next = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now >= next {
            if frames.has_update() {
                let frame = frames.read();
                if let Ok(len) = Format::Native.encode(&frame, &mut packet) {
                    if !feed.send(&packet[..len]) {
                        return;
                    }
                }
            }
            next += period;
            if next <= now {
                // Fell behind (suspended): restart the cadence, do not burst.
                next = now + period;
            }
        }
        std::thread::sleep(
            next.saturating_duration_since(Instant::now())
                .min(FEED_MAX_SLEEP),
        );
    }
}

/// The fallback display: one status line, redrawn ten times a second (a failed write means
/// the terminal is gone: the daemon is asked to stop), with the newest logged warning after it (the log goes to a file while a display is shown), cut to the terminal's
/// width so it never wraps (a wrapped line would not be redrawn in place). It takes no keys:
/// Ctrl-C reaches the daemon as SIGINT.
fn start_status_line(
    mut frames: LatestReader<Frame>,
    stop_daemon: StopRequest,
    notices: NoticeFeed,
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
                if let Some(notice) = notices.latest() {
                    line = format!("{line}  |  {notice}");
                }
                let line = fit_width(&line, stdout_columns());
                if write!(out, "\r\x1b[2K{line}")
                    .and_then(|()| out.flush())
                    .is_err()
                {
                    stop_daemon.request(StopCause::TerminalClosed);
                    return;
                }
            }
            let _ = writeln!(out);
            let _ = out.flush();
        })?;
    Ok(Display {
        stop,
        handle: Some(handle),
        feeder: None,
        host: None,
    })
}

impl Drop for Display {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(feeder) = self.feeder.take() {
            // It sleeps at most FEED_MAX_SLEEP between looks at the flag and never blocks.
            let _ = join_within(feeder, DISPLAY_STOP_TIMEOUT);
        }
        if let Some(handle) = self.handle.take() {
            if join_within(handle, DISPLAY_STOP_TIMEOUT).is_err() {
                // The thread is stuck in a write: put the terminal's settings back from here
                // (no output needed), so the shell is usable after rigd exits.
                let raw_mode_off = rig_dash::terminal::release_raw_mode().is_ok();
                tracing::warn!(
                    "the display did not stop within {} s (its terminal takes no output); \
                     rigd exits with that terminal's raw mode {}, but the screen may still \
                     show the dashboard (fix: `reset` in that terminal)",
                    DISPLAY_STOP_TIMEOUT.as_secs(),
                    if raw_mode_off {
                        "switched off"
                    } else {
                        "still on (it could not be switched off)"
                    }
                );
            }
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

/// The status line for one frame; before the first frame (the slot still holds the default
/// one) it says so instead of showing zeros, and the wake p99 reads `-` until rigd's first
/// health window has closed.
pub fn status_line(frame: &Frame) -> String {
    if *frame == Frame::default() {
        return "waiting for the first frame: -- km/h  -- rpm".to_owned();
    }
    let car = &frame.car;
    let gear = match car.drivetrain.gear {
        g if g < 0 => "R".to_string(),
        0 => "N".to_string(),
        g => g.to_string(),
    };
    let wake_p99 = if super::health::first_window_closed(&frame.health) {
        format!("{:.0}", frame.health.wake_latency_p99_us)
    } else {
        "-".to_owned()
    };
    format!(
        "{:6.1} km/h  {:5.0} rpm  gear {}  lap {}  last {}  best {}  |  {:>4} Hz  wake p99 {} us  late>1ms {}",
        car.speed_mps * 3.6,
        car.drivetrain.engine_rpm,
        gear,
        car.lap.laps_completed + 1,
        lap_time(car.lap.last_lap_s),
        lap_time(car.lap.best_lap_s),
        super::health::tick_rate_text(&frame.health),
        wake_p99,
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
    fn the_dashboard_is_fed_at_the_fastest_loopback_native_rate() {
        assert_eq!(
            dashboard_rate_hz(&[]),
            Some(rig_config::telemetry::DEFAULT_RATE_HZ)
        );
        let mut slow = TelemetryOutput::default_native();
        slow.rate_hz = 30;
        let mut fast = TelemetryOutput::default_native();
        fast.rate_hz = 250;
        let mut lan = TelemetryOutput::default_native();
        lan.rate_hz = 1000;
        lan.destinations = vec!["192.168.1.20:29777".into()];
        assert_eq!(
            dashboard_rate_hz(&[slow, fast.clone(), lan.clone()]),
            Some(250)
        );
        fast.enabled = false;
        assert_eq!(dashboard_rate_hz(&[fast, lan]), None);
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
    fn a_closed_terminal_stops_the_daemon_however_the_dashboard_saw_it() {
        use rig_dash::{DashError, Ended};
        let eio = || DashError::Terminal(std::io::Error::from_raw_os_error(libc::EIO));
        let never_asked = || -> bool { panic!("the terminal need not be checked") };
        assert_eq!(
            stop_cause(&Ok(Ended::Quit), never_asked),
            Some(StopCause::Quit)
        );
        assert_eq!(stop_cause(&Ok(Ended::Stopped), never_asked), None);
        assert_eq!(
            stop_cause(&Err(DashError::TerminalGone), never_asked),
            Some(StopCause::TerminalClosed)
        );
        // A frame was being drawn when the terminal hung up.
        assert_eq!(
            stop_cause(&Err(eio()), || true),
            Some(StopCause::TerminalClosed)
        );
        // Drawing failed on a terminal that is still there: rigd runs on.
        assert_eq!(stop_cause(&Err(eio()), || false), None);
    }

    #[test]
    fn the_first_stop_cause_asked_for_is_kept() {
        let request = StopRequest::default();
        assert_eq!(request.requested(), None);
        request.request(StopCause::TerminalClosed);
        request.clone().request(StopCause::Quit);
        assert_eq!(request.requested(), Some(StopCause::TerminalClosed));
    }

    #[test]
    fn the_status_line_never_wraps() {
        let line = "123 km/h  |  03:12:45Z WARN telemetry ü";
        assert_eq!(fit_width(line, 12), "123 km/h  |");
        assert_eq!(fit_width(line, 200), line);
        assert_eq!(fit_width(line, 0), "");
    }

    #[test]
    fn the_status_line_has_no_zeros_before_the_first_frame_and_window() {
        assert_eq!(
            status_line(&Frame::default()),
            "waiting for the first frame: -- km/h  -- rpm"
        );
        let mut frame = Frame {
            sequence: 40,
            ..Frame::default()
        };
        frame.car.speed_mps = 1.0;
        let line = status_line(&frame);
        assert!(line.contains("   - Hz  wake p99 - us"), "{line}");
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
            "1000 Hz",
            "wake p99 54 us",
        ] {
            assert!(line.contains(part), "`{part}` missing in `{line}`");
        }
    }
}
