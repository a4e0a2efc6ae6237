//! rig-dash: a terminal dashboard for rigd and for games that send UDP telemetry.
//!
//! Data flows one way: [`net::Receivers`] threads read UDP datagrams, [`source::decode`] turns
//! each into a [`sample::Sample`] (native rigd packets, OutGauge, OutSim, Forza, Codemasters,
//! BeamNG, recognised by size and magic through rig-protocols) or counts it as garbage, and the
//! render loop folds everything pending into a [`state::DashState`] once per frame and draws
//! it with ratatui ([`app::App`], widgets in [`ui`]).
//!
//! rigd embeds the dashboard through [`Dashboard::in_process`] (no socket: rigd hands its own
//! native packets to a [`PacketFeed`], leaving its telemetry port to a separate rig-dash), or
//! through [`Dashboard::bind`] and [`run_terminal`] like the binary:
//!
//! ```no_run
//! use std::sync::atomic::AtomicBool;
//! let stop = AtomicBool::new(false);
//! // Blocks until `q` (which also sets `stop`) or until another thread sets `stop`.
//! let ended = rig_dash::run_terminal(&rig_dash::DashOptions::default(), &stop)?;
//! # Ok::<(), rig_dash::DashError>(())
//! ```

pub mod app;
pub mod cli_assets;
pub mod host;
pub mod key_decode;
pub mod keys;
pub mod net;
pub mod sample;
pub mod source;
pub mod state;
pub mod terminal;
pub mod theme;
pub mod tty;
pub mod ui;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::AtomicBool;

pub use host::{HostFeed, HostInfo};
pub use net::PacketFeed;
pub use source::FormatChoice;
pub use terminal::Dashboard;

/// Frames drawn per second unless configured otherwise.
pub const DEFAULT_FPS: u32 = 30;

/// Where the dashboard listens unless told otherwise: rigd's native telemetry port on
/// loopback.
pub const DEFAULT_LISTEN: SocketAddr = SocketAddr::new(
    std::net::IpAddr::V4(Ipv4Addr::LOCALHOST),
    rig_protocols::NATIVE_DEFAULT_PORT,
);

/// How to run the dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DashOptions {
    /// UDP addresses to listen on (one receiver thread each).
    pub listen: Vec<SocketAddr>,
    /// Decode as this format, or detect per datagram.
    pub format: FormatChoice,
    /// Frames drawn per second (at least 1).
    pub fps: u32,
}

impl Default for DashOptions {
    fn default() -> Self {
        Self {
            listen: vec![DEFAULT_LISTEN],
            format: FormatChoice::Auto,
            fps: DEFAULT_FPS,
        }
    }
}

/// Why the dashboard returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user pressed `q`, `Esc` or Ctrl-C; the stop flag has been set.
    Quit,
    /// The stop flag was set by someone else.
    Stopped,
}

/// What can go wrong running the dashboard.
#[derive(Debug, thiserror::Error)]
pub enum DashError {
    /// A listening address could not be bound.
    #[error(
        "cannot listen on UDP {addr}: {source}; pick a free address with --listen ADDR:PORT \
         (another program, or another rig-dash, may hold this port)"
    )]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The OS error.
        source: std::io::Error,
    },
    /// A receiver thread could not be started.
    #[error("cannot start a UDP receiver thread: {0}; check the process and memory limits")]
    Thread(std::io::Error),
    /// Standard output is not a terminal.
    #[error(
        "rig-dash draws on a terminal but standard output is not one: run it in a terminal \
         (not through a pipe or a service)"
    )]
    NotATerminal,
    /// The terminal hung up or closed (its window or tmux server went away).
    #[error(
        "the terminal hung up or was closed, so the dashboard stopped; start it again from an \
         open terminal"
    )]
    TerminalGone,
    /// Drawing or reading the terminal failed.
    #[error("terminal error: {0}; check that the terminal is still open and supports raw mode")]
    Terminal(std::io::Error),
}

/// Runs the dashboard in the current terminal (alternate screen, raw mode) until the user
/// quits or `stop` becomes true, then restores the terminal.
///
/// The stop flag works both ways, so rigd can embed the dashboard: the caller sets it (for
/// example from its SIGTERM/SIGINT handler) to end the dashboard within one frame; the
/// dashboard sets it when the user presses `q`, `Esc` or Ctrl-C (raw mode turns Ctrl-C into a
/// key, so it never reaches a signal handler), telling the caller to shut down too.
/// The terminal is restored on every return and, by a drop guard, when the loop panics.
pub fn run_terminal(options: &DashOptions, stop: &AtomicBool) -> Result<Ended, DashError> {
    Dashboard::bind(options)?.run(stop)
}
