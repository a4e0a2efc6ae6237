//! The terminal loop: draw at a fixed frame rate from the newest packets, react to keys and
//! resizes in between, and leave the terminal as it was found on every exit path.
//!
//! Each frame drains every pending packet (all counted, the newest shown), so 1 kHz input
//! costs one channel drain per frame and never starves drawing; waiting for keys is bounded by
//! the time to the next frame, so the stop flag is seen within one frame period.

use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{self, Event};
use ratatui::DefaultTerminal;

use crate::app::{App, Flow};
use crate::keys::action_for;
use crate::net::Receivers;
use crate::state::DashState;
use crate::{DashError, DashOptions, Ended};

/// Restores the terminal when dropped, so errors and early returns leave it usable.
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

/// A dashboard whose sockets are bound, ready to take over the terminal.
///
/// Binding first and drawing second lets an embedding program (rigd) report a busy port
/// before it gives the terminal away.
#[derive(Debug)]
pub struct Dashboard {
    receivers: Receivers,
    fps: u32,
    host: Option<crate::host::HostFeed>,
}

impl Dashboard {
    /// Binds every listening address and starts the receiver threads.
    pub fn bind(options: &DashOptions) -> Result<Self, DashError> {
        Ok(Self {
            receivers: Receivers::bind(&options.listen, options.format)?,
            fps: options.fps,
            host: None,
        })
    }

    /// Shows what the embedding program puts in `feed` (read once per frame).
    pub fn with_host(mut self, feed: crate::host::HostFeed) -> Self {
        self.host = Some(feed);
        self
    }

    /// The bound addresses.
    pub fn local_addrs(&self) -> &[std::net::SocketAddr] {
        self.receivers.local_addrs()
    }

    /// Takes over this process's terminal until `q` or `stop`; see [`crate::run_terminal`].
    pub fn run(self, stop: &AtomicBool) -> Result<Ended, DashError> {
        if !io::stdout().is_terminal() {
            return Err(DashError::NotATerminal);
        }
        let terminal = ratatui::try_init().map_err(DashError::Terminal)?;
        let _guard = TerminalGuard;
        let state = DashState::new(self.receivers.local_addrs().to_vec(), Instant::now());
        let app = App::new(state, Instant::now());
        let ended = event_loop(
            terminal,
            app,
            &self.receivers,
            self.fps,
            self.host.as_ref(),
            stop,
        )?;
        if ended == Ended::Quit {
            stop.store(true, Ordering::SeqCst);
        }
        Ok(ended)
    }
}

fn event_loop(
    mut terminal: DefaultTerminal,
    mut app: App,
    receivers: &Receivers,
    fps: u32,
    host: Option<&crate::host::HostFeed>,
    stop: &AtomicBool,
) -> Result<Ended, DashError> {
    let period = Duration::from_secs_f64(1.0 / f64::from(fps.max(1)));
    let mut next_frame = Instant::now();
    let mut redraw = true;
    loop {
        if stop.load(Ordering::SeqCst) {
            return Ok(Ended::Stopped);
        }
        let now = Instant::now();
        if redraw || now >= next_frame {
            app.live_mut().ingest(receivers.drain());
            let dropped = receivers.take_dropped();
            app.live_mut().count_dropped(dropped);
            if let Some(feed) = host {
                app.live_mut().host = feed.get();
            }
            app.set_now(now);
            terminal
                .draw(|frame| frame.render_widget(&app, frame.area()))
                .map_err(DashError::Terminal)?;
            next_frame += period;
            if next_frame <= now {
                // Fell behind (suspended, slow terminal): restart the cadence, do not burst.
                next_frame = now + period;
            }
            redraw = false;
        }
        let timeout = next_frame.saturating_duration_since(Instant::now());
        if !event::poll(timeout).map_err(DashError::Terminal)? {
            continue;
        }
        match event::read().map_err(DashError::Terminal)? {
            Event::Key(key) => {
                if let Some(action) = action_for(key) {
                    if app.apply(action) == Flow::Quit {
                        return Ok(Ended::Quit);
                    }
                    redraw = true;
                }
            }
            Event::Resize(..) => redraw = true,
            _ => {}
        }
    }
}
