//! The live display in the daemon's own terminal (only when stdout is a terminal).
//!
//! For now a one-line status (speed, rpm, gear, lap, tick p99) redrawn ten times a second;
//! the rig-dash dashboard replaces the body of [`start`] later. Contract for any display:
//! read frames only from the given slot, ask the daemon to stop through
//! [`StopRequest`] (never exit the process itself), and restore the terminal when dropped.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

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
}

/// Starts the display on its own thread, reading `frames`.
pub fn start(
    mut frames: LatestReader<Frame>,
    stop_daemon: StopRequest,
) -> std::io::Result<Display> {
    let _ = stop_daemon; // the one-line status takes no keys: Ctrl-C reaches the daemon as SIGINT
    let stop = Arc::new(AtomicBool::new(false));
    let stop_flag = stop.clone();
    let handle = std::thread::Builder::new()
        .name("rigd-display".into())
        .spawn(move || {
            let mut out = std::io::stdout();
            while !stop_flag.load(Ordering::Relaxed) {
                std::thread::sleep(REFRESH);
                let line = status_line(&frames.read());
                let _ = write!(out, "\r\x1b[2K{line}");
                let _ = out.flush();
            }
            let _ = writeln!(out);
            let _ = out.flush();
        })?;
    Ok(Display {
        stop,
        handle: Some(handle),
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
