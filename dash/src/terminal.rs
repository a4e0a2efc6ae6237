//! The terminal loop: draw at a fixed frame rate from the newest packets, react to keys and
//! resizes in between, and leave the terminal as it was found on every exit path.
//!
//! Each frame drains every pending packet (all counted, the newest shown), so 1 kHz input
//! costs one channel drain per frame and never starves drawing; waiting for keys is bounded by
//! the time to the next frame and by [`MAX_WAIT`], and a signal cuts it short, so the stop flag
//! (set by a SIGTERM handler or an embedding program) is seen within one frame period.
//!
//! A terminal that goes away (hang-up, end of file or error reading keys) ends the loop with
//! [`DashError::TerminalGone`] at once: keys come through [`TtyInput`], which reports a
//! hang-up instead of retrying it in a busy loop the way crossterm's event reader does. The
//! receiver threads stop when the [`Dashboard`] is dropped on the way out. Nothing on the way
//! out prints or panics when the terminal is gone (see `enter_terminal`).

use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::{DefaultTerminal, Terminal};

use crate::app::{App, Flow};
use crate::keys::action_for;
use crate::net::{PacketFeed, Receivers};
use crate::state::DashState;
use crate::tty::TtyInput;
use crate::{DashError, DashOptions, Ended};

/// Longest wait for keys between two checks of the terminal size and the stop flag (matters at
/// low frame rates: a resize is redrawn and a stop seen within this time).
pub const MAX_WAIT: Duration = Duration::from_millis(50);

/// Restores the terminal when dropped (raw mode off, main screen back), so errors, early
/// returns and panics leave it usable. Failures are ignored: on a terminal that hung up there
/// is nothing to restore, and nothing here may print (see [`enter_terminal`]).
struct TerminalGuard;

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = disable_raw_mode();
        let _ = execute!(io::stdout(), LeaveAlternateScreen);
    }
}

/// Takes the terminal out of raw mode by its settings alone, writing nothing to it: for an
/// embedding program whose dashboard thread is stuck writing to a terminal that takes no
/// output (the guard above never runs then). The shell gets echo and line editing back; the
/// alternate screen stays until the terminal is reset, since leaving it needs output.
pub fn release_raw_mode() -> io::Result<()> {
    disable_raw_mode()
}

/// Raw mode, the alternate screen and a ratatui terminal, with the guard that undoes them.
///
/// Not `ratatui::try_init`/`restore`: those print with `eprintln!` when restoring fails, which
/// panics when stderr is the terminal that just hung up, and a second such print while that
/// panic unwinds aborted the process (rig-dash, or the whole of an embedding rigd, with
/// SIGABRT). `try_init` also adds a process-wide panic hook on every call, which an embedding
/// program that restarts the dashboard would stack up.
fn enter_terminal() -> io::Result<(DefaultTerminal, TerminalGuard)> {
    enable_raw_mode()?;
    let guard = TerminalGuard;
    execute!(io::stdout(), EnterAlternateScreen)?;
    Ok((Terminal::new(CrosstermBackend::new(io::stdout()))?, guard))
}

/// Drops `terminal` after showing the cursor again. When that fails (the terminal is gone)
/// the terminal is leaked instead: its `Drop` would retry and report the failure with
/// `eprintln!`, which panics on a dead stderr. The leak is two screen buffers, once.
fn close_terminal(mut terminal: DefaultTerminal) {
    if terminal.show_cursor().is_err() {
        std::mem::forget(terminal);
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

    /// A dashboard bound to no socket, drawing `fps` frames per second of the packets handed
    /// to the returned feed: how rigd shows its own frames (as its native packets) in its
    /// terminal while its telemetry port stays free for a separate rig-dash.
    pub fn in_process(fps: u32) -> (Self, PacketFeed) {
        let (receivers, feed) = Receivers::in_process();
        let dashboard = Self {
            receivers,
            fps,
            host: None,
        };
        (dashboard, feed)
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
        let mut input = TtyInput::open().map_err(DashError::Terminal)?;
        let (mut terminal, guard) = enter_terminal().map_err(DashError::Terminal)?;
        let state = DashState::new(self.receivers.origins().to_vec(), Instant::now());
        let app = App::new(state, Instant::now());
        let ended = event_loop(
            &mut terminal,
            &mut input,
            app,
            &self.receivers,
            self.fps,
            self.host.as_ref(),
            stop,
        );
        close_terminal(terminal);
        drop(guard);
        let ended = ended?;
        if ended == Ended::Quit {
            stop.store(true, Ordering::SeqCst);
        }
        Ok(ended)
    }
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    input: &mut TtyInput,
    mut app: App,
    receivers: &Receivers,
    fps: u32,
    host: Option<&crate::host::HostFeed>,
    stop: &AtomicBool,
) -> Result<Ended, DashError> {
    let period = Duration::from_secs_f64(1.0 / f64::from(fps.max(1)));
    let mut next_frame = Instant::now();
    let mut redraw = true;
    let mut size = input.size();
    let mut keys = Vec::new();
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
        let timeout = next_frame
            .saturating_duration_since(Instant::now())
            .min(MAX_WAIT);
        keys.clear();
        input
            .wait(timeout, &mut keys)
            .map_err(|_| DashError::TerminalGone)?;
        for &key in &keys {
            if let Some(action) = action_for(key) {
                if app.apply(action) == Flow::Quit {
                    return Ok(Ended::Quit);
                }
                redraw = true;
            }
        }
        let current_size = input.size();
        if current_size != size {
            size = current_size;
            redraw = true;
        }
    }
}
