//! Where rigd's log goes, decided once at start: stderr (colours only on a terminal, no
//! timestamps under journald, which adds its own), or a file while the dashboard owns the
//! terminal (log lines written to the terminal would scribble over it).
//!
//! The file is `$XDG_STATE_HOME/rigd/rigd.log`, else `~/.local/state/rigd/rigd.log`, else
//! `rigd-UID.log` in the temporary directory; it is appended to, never truncated. The newest
//! warning or error is also kept (the [`NoticeFeed`] [`init`] returns) so the dashboard can
//! show it in its status line. While the log is a file, panic messages go there too, and so does file
//! descriptor 2 itself (whatever a library prints to stderr), so nothing writes over the
//! dashboard and nothing fails when the terminal closes (`eprintln!` panics on a hung-up
//! terminal, and a panic inside ratatui's panic hook aborts); [`LogTarget::tell`] still
//! reaches the terminal (waiting at most [`TELL_TIMEOUT_MS`] for it to take the line, so a
//! terminal that stopped reading cannot hold up the exit), and [`LogTarget::restore_stderr`]
//! gives fd 2 back on exit. Level from `RUST_LOG` (default info).

use std::fs::{File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// Longest wait for the terminal to take a [`LogTarget::tell`] line, ms: a terminal whose
/// reader stopped (a stalled ssh connection, a stuck dashboard that filled its buffer) would
/// otherwise block rigd's exit for good. The line is dropped then; the log file has it.
pub const TELL_TIMEOUT_MS: i32 = 200;

/// Longest notice kept, characters (the status line has one row).
const NOTICE_MAX_CHARS: usize = 160;

/// The newest warning or error, formatted for one status line: written by the logger,
/// read by the dashboard. Built by [`init`] and handed down to whoever shows it (clones share
/// it).
#[derive(Debug, Clone, Default)]
pub struct NoticeFeed(Arc<Mutex<Option<String>>>);

impl NoticeFeed {
    /// The newest warning or error logged (`HH:MM:SSZ WARN message`).
    pub fn latest(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    fn set(&self, notice: String) {
        *self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(notice);
    }
}

/// What [`init`] set up.
#[derive(Debug)]
pub struct Logging {
    /// Where the log goes.
    pub target: LogTarget,
    /// The newest warning or error, for the dashboard.
    pub notices: NoticeFeed,
    /// Why the log is not where it was asked to go, with the fix (print it before the
    /// dashboard starts).
    pub problem: Option<String>,
}

/// Where the log goes.
#[derive(Debug)]
pub enum LogTarget {
    /// Standard error (the terminal, or journald under systemd).
    Stderr,
    /// A file, because the dashboard owns the terminal.
    File {
        /// The log file.
        path: PathBuf,
        /// The terminal that fd 2 was before it was pointed at the log file (`None` when it
        /// could not be redirected and still is the terminal).
        terminal: Option<File>,
    },
}

impl LogTarget {
    /// Writes `rigd: text` to the terminal (the original stderr), ignoring failures: a closed
    /// terminal must not turn a message into a panic. While the log is a file, a terminal
    /// that takes no output within [`TELL_TIMEOUT_MS`] does not get the line.
    pub fn tell(&self, text: &str) {
        let line = format!("rigd: {text}\n");
        let _ = match self {
            LogTarget::File {
                terminal: Some(terminal),
                ..
            } => {
                if !writable_within(terminal.as_fd(), TELL_TIMEOUT_MS) {
                    return;
                }
                (&*terminal).write_all(line.as_bytes())
            }
            _ => std::io::stderr().write_all(line.as_bytes()),
        };
    }

    /// Points fd 2 back at the terminal (once the display is gone).
    pub fn restore_stderr(&self) {
        if let LogTarget::File {
            terminal: Some(terminal),
            ..
        } = self
        {
            // SAFETY: both descriptors are open for as long as `terminal` lives; dup2 only
            // replaces fd 2.
            unsafe { libc::dup2(terminal.as_raw_fd(), libc::STDERR_FILENO) };
        }
    }
}

/// True when `fd` takes output within `timeout_ms` (and has not hung up: then the write
/// would only fail).
fn writable_within(fd: BorrowedFd<'_>, timeout_ms: i32) -> bool {
    let events = crate::signals::poll_one(fd, libc::POLLOUT, timeout_ms);
    events & libc::POLLOUT != 0 && events & crate::signals::HANG_UP_EVENTS == 0
}

/// Points fd 2 at `log` and returns the terminal it was, or `None` (fd 2 unchanged) when the
/// descriptors cannot be duplicated.
fn redirect_stderr(log: &File) -> Option<File> {
    // SAFETY: dup has no memory-safety preconditions; a valid result is a new descriptor that
    // the returned File owns.
    let saved = unsafe { libc::dup(libc::STDERR_FILENO) };
    if saved < 0 {
        return None;
    }
    // SAFETY: `saved` was just created and is owned by nothing else.
    let terminal = unsafe { File::from_raw_fd(saved) };
    // SAFETY: `log` is open; dup2 only replaces fd 2.
    if unsafe { libc::dup2(log.as_raw_fd(), libc::STDERR_FILENO) } < 0 {
        return None;
    }
    Some(terminal)
}

/// The log file used while the dashboard is shown: `$XDG_STATE_HOME/rigd/rigd.log`, else
/// `$HOME/.local/state/rigd/rigd.log`, else `rigd-UID.log` in the temporary directory.
pub fn log_file_path() -> PathBuf {
    let non_empty = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(state) = non_empty("XDG_STATE_HOME") {
        return state.join("rigd").join("rigd.log");
    }
    if let Some(home) = non_empty("HOME") {
        return home.join(".local/state/rigd/rigd.log");
    }
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    std::env::temp_dir().join(format!("rigd-{uid}.log"))
}

fn open_log_file(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new().create(true).append(true).open(path)
}

/// Sets up logging: to the log file when `dashboard` is true and stderr is a terminal (the
/// dashboard draws there), else to stderr. A log file that cannot be opened falls back to
/// stderr, and the returned message says why and how to fix it (print it before the
/// dashboard starts).
pub fn init(dashboard: bool) -> Logging {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let notices = NoticeFeed::default();
    let mut problem = None;
    let file = if dashboard && std::io::stderr().is_terminal() {
        let path = log_file_path();
        match open_log_file(&path) {
            Ok(file) => Some((file, path)),
            Err(error) => {
                problem = Some(format!(
                    "cannot open the log file {}: {error}; logging to the terminal instead \
                     (fix: set XDG_STATE_HOME to a writable directory)",
                    path.display()
                ));
                None
            }
        }
    } else {
        None
    };
    let (output, target): (Box<dyn Layer<Registry> + Send + Sync>, LogTarget) = match file {
        Some((file, path)) => {
            let terminal = redirect_stderr(&file);
            (
                tracing_subscriber::fmt::layer()
                    .with_writer(Mutex::new(file))
                    .with_ansi(false)
                    .with_target(false)
                    .boxed(),
                LogTarget::File { path, terminal },
            )
        }
        None => {
            let journald = std::env::var_os("JOURNAL_STREAM").is_some();
            let ansi = std::io::stderr().is_terminal() && !journald;
            let layer = tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(ansi)
                .with_target(false);
            let layer = if journald {
                layer.without_time().boxed()
            } else {
                layer.boxed()
            };
            (layer, LogTarget::Stderr)
        }
    };
    tracing_subscriber::registry()
        .with(vec![output, NoticeLayer(notices.clone()).boxed()].with_filter(filter))
        .init();
    if matches!(target, LogTarget::File { .. }) {
        log_panics_too();
    }
    Logging {
        target,
        notices,
        problem,
    }
}

/// Puts panic messages in the log file as well: the default hook writes them to stderr only,
/// which the dashboard hides (ratatui's hook restores the terminal first, then calls this).
fn log_panics_too() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        tracing::error!("{info}");
        previous(info);
    }));
}

/// Keeps the newest warning or error in its [`NoticeFeed`]. Never on the RT thread (it never
/// logs).
struct NoticeLayer(NoticeFeed);

impl<S: Subscriber> Layer<S> for NoticeLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let level = *event.metadata().level();
        if level > Level::WARN {
            return;
        }
        let mut message = MessageText(String::new());
        event.record(&mut message);
        let notice = notice_text(level, &message.0, SystemTime::now());
        self.0.set(notice);
    }
}

/// `03:12:45Z WARN text`, cut to [`NOTICE_MAX_CHARS`] with an ellipsis.
fn notice_text(level: Level, message: &str, at: SystemTime) -> String {
    let seconds_of_day = at
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() % 86_400);
    let mut text = format!(
        "{:02}:{:02}:{:02}Z {level} {}",
        seconds_of_day / 3600,
        seconds_of_day / 60 % 60,
        seconds_of_day % 60,
        message.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    if text.chars().count() > NOTICE_MAX_CHARS {
        text = text.chars().take(NOTICE_MAX_CHARS - 1).collect::<String>() + "…";
    }
    text
}

/// Collects an event's `message` field.
struct MessageText(String);

impl Visit for MessageText {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0 = value.to_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_pty::pty_pair;
    use std::os::unix::fs::OpenOptionsExt;
    use std::time::{Duration, Instant};

    #[test]
    fn telling_a_terminal_that_takes_no_output_gives_up() {
        let (master, slave) = pty_pair();
        // Fill the terminal's buffer through a second, non-blocking opening of it (nobody
        // reads the master side), as a stalled ssh session would.
        let filler = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(format!("/proc/self/fd/{}", slave.as_raw_fd()))
            .unwrap();
        // The pty moves data to the master's side in the background: fill until a whole
        // round takes nothing.
        loop {
            let mut taken = 0;
            while let Ok(n) = (&filler).write(&[b'x'; 4096]) {
                taken += n;
            }
            if taken == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let target = LogTarget::File {
            path: PathBuf::from("unused.log"),
            terminal: Some(File::from(slave)),
        };
        let (done, finished) = std::sync::mpsc::channel();
        let start = Instant::now();
        std::thread::spawn(move || {
            target.tell("the log of this run is in unused.log");
            let _ = done.send(());
        });
        // Generous: the bound is 200 ms; a loaded 2-core machine may delay the thread.
        finished
            .recv_timeout(Duration::from_secs(10))
            .expect("tell blocked on a terminal that takes no output");
        assert!(start.elapsed() >= Duration::from_millis(TELL_TIMEOUT_MS as u64));
        drop(master);
    }

    #[test]
    fn telling_a_live_terminal_writes_the_line() {
        let (master, slave) = pty_pair();
        let target = LogTarget::File {
            path: PathBuf::from("unused.log"),
            terminal: Some(File::from(slave)),
        };
        target.tell("the log goes to unused.log");
        let mut buffer = [0u8; 256];
        // SAFETY: `buffer` is writable for its length; the master has the line ready.
        let read = unsafe { libc::read(master.as_raw_fd(), buffer.as_mut_ptr().cast(), 256) };
        let text = String::from_utf8_lossy(&buffer[..read.max(0) as usize]).into_owned();
        assert!(
            text.contains("rigd: the log goes to unused.log"),
            "{text:?}"
        );
    }

    #[test]
    fn notices_carry_the_utc_time_and_level_and_fit_one_line() {
        let at = UNIX_EPOCH + Duration::from_secs(86_400 * 3 + 3 * 3600 + 12 * 60 + 45);
        assert_eq!(
            notice_text(Level::WARN, "telemetry to 127.0.0.1:4000:\n  refused", at),
            "03:12:45Z WARN telemetry to 127.0.0.1:4000: refused"
        );
        let long = notice_text(Level::ERROR, &"x".repeat(500), at);
        assert_eq!(long.chars().count(), NOTICE_MAX_CHARS);
        assert!(long.ends_with('…'));
    }
}
