//! What a program embedding the dashboard (rigd) shows besides the packets: a notice for the
//! status line (rigd's newest warning, since its log goes to a file while the dashboard owns
//! the terminal), who drives for the title bar, and extra lines for the rig page (rigd's per-destination telemetry
//! counters), under a title of its choice, and the racing line the robots drive (rigd's
//! `[sim] robot_line`, as horizontal world points) for the track map.
//!
//! The embedder updates a [`HostFeed`] from any thread (never a real-time one: it takes a
//! lock); the render loop copies it into [`crate::state::DashState::host`] once per frame.
//! A standalone rig-dash has no feed and shows neither.

use std::sync::{Arc, Mutex, MutexGuard};

/// The embedder's notice and extra lines, as drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostInfo {
    /// One line for the status line (shown as a warning), e.g. the newest logged warning.
    pub notice: Option<String>,
    /// Title of the rig page's extra panel.
    pub title: String,
    /// The extra panel's lines (no panel when empty).
    pub lines: Vec<String>,
    /// Who drives the car, and why when nobody or the robot does (rigd: e.g. `robot: wheel
    /// 'wheel' (046d:c24f) not found; plug it in`), for the title bar.
    pub driver: Option<String>,
    /// The racing line the robots drive, world `[x, y]` in metres, drawn on the track map
    /// (shared: the render loop copies the info every frame).
    pub racing_line_m: Option<Arc<[[f64; 2]]>>,
}

/// A shared, updatable [`HostInfo`]; clones share the same value.
#[derive(Debug, Clone, Default)]
pub struct HostFeed(Arc<Mutex<HostInfo>>);

impl HostFeed {
    fn lock(&self) -> MutexGuard<'_, HostInfo> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Replaces the status-line notice.
    pub fn set_notice(&self, notice: Option<String>) {
        self.lock().notice = notice;
    }

    /// Replaces the rig page's extra panel.
    pub fn set_lines(&self, title: &str, lines: Vec<String>) {
        let mut info = self.lock();
        info.title = title.to_owned();
        info.lines = lines;
    }

    /// Replaces who drives.
    pub fn set_driver(&self, driver: Option<String>) {
        self.lock().driver = driver;
    }

    /// Replaces the racing line drawn on the map (`None`: no line).
    pub fn set_racing_line(&self, points_m: Option<Arc<[[f64; 2]]>>) {
        self.lock().racing_line_m = points_m;
    }

    /// A copy of the current value.
    pub fn get(&self) -> HostInfo {
        self.lock().clone()
    }
}
