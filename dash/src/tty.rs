//! Key input from the controlling terminal, with a hang-up that is noticed, not spun on.
//!
//! Why not crossterm's event reader: in crossterm 0.28 a terminal that hangs up (its window
//! closed, its tmux server killed) makes the reader's `read` return 0 or `EIO` forever, and the
//! reader retries without returning, even past its timeout. The dashboard then spun at a third
//! of a core inside `event::poll`, never saw its stop flag, and so ignored SIGTERM. Here one
//! `poll(2)` with a timeout waits for input; a hang-up (`POLLHUP`, `POLLERR`, `POLLNVAL`), end
//! of file or a read error is reported once as [`TerminalGone`], and a signal (`EINTR`) returns
//! at once so the caller checks its stop flag.
//!
//! The terminal is standard input when that is a terminal, else `/dev/tty`: the same device
//! crossterm puts in raw mode. Resizes are not signalled; [`TtyInput::size`] reads the current
//! size cheaply (one `ioctl`) so the caller can compare.

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::time::Duration;

use ratatui::crossterm::event::KeyEvent;

use crate::key_decode::decode_keys;

/// Bytes read per wake-up: many keys, far more than a person types in one frame.
const READ_BUFFER_LEN: usize = 256;

/// The terminal hung up, closed, or failed to read: it will never deliver a key again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the terminal hung up or was closed")]
pub struct TerminalGone;

/// Where keys are read from.
#[derive(Debug)]
enum Device {
    /// Standard input (not closed on drop).
    Stdin,
    /// A terminal opened or handed in by the caller.
    Owned(OwnedFd),
}

/// Reads key presses from a terminal.
#[derive(Debug)]
pub struct TtyInput {
    device: Device,
}

impl TtyInput {
    /// The controlling terminal: standard input when it is a terminal, else `/dev/tty`.
    pub fn open() -> io::Result<Self> {
        use std::io::IsTerminal;
        if io::stdin().is_terminal() {
            return Ok(Self {
                device: Device::Stdin,
            });
        }
        let tty = File::options().read(true).open("/dev/tty")?;
        Ok(Self::from_fd(tty.into()))
    }

    /// Reads from `fd` (a terminal, for example a pty's slave side in a test).
    pub fn from_fd(fd: OwnedFd) -> Self {
        Self {
            device: Device::Owned(fd),
        }
    }

    fn raw_fd(&self) -> RawFd {
        match &self.device {
            Device::Stdin => libc::STDIN_FILENO,
            Device::Owned(fd) => fd.as_raw_fd(),
        }
    }

    /// Waits up to `timeout` for input and appends the key presses read to `keys`.
    ///
    /// Returns early, possibly with no keys, when a signal arrives. Never retries a failed
    /// read: a hang-up, end of file or read error is [`TerminalGone`].
    pub fn wait(
        &mut self,
        timeout: Duration,
        keys: &mut Vec<KeyEvent>,
    ) -> Result<(), TerminalGone> {
        let fd = self.raw_fd();
        let mut poll_fd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // Round up so a sub-millisecond wait sleeps instead of spinning.
        let timeout_ms = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int;
        // SAFETY: `poll_fd` is a valid pollfd for the duration of the call; count is 1.
        let ready = unsafe { libc::poll(&mut poll_fd, 1, timeout_ms) };
        if ready < 0 {
            return interrupted_or_gone(io::Error::last_os_error());
        }
        if ready == 0 {
            return Ok(());
        }
        if poll_fd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            return Err(TerminalGone);
        }
        let mut buffer = [0u8; READ_BUFFER_LEN];
        // SAFETY: `buffer` is writable for its whole length; poll reported the fd readable, so
        // the read does not block.
        let read = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len()) };
        match read {
            // Raw mode reads at least one byte; zero is end of file: the terminal is gone.
            0 => Err(TerminalGone),
            n if n < 0 => interrupted_or_gone(io::Error::last_os_error()),
            n => {
                decode_keys(&buffer[..n.unsigned_abs()], keys);
                Ok(())
            }
        }
    }

    /// The terminal's size in cells (columns, rows), or `None` when it cannot be read.
    pub fn size(&self) -> Option<(u16, u16)> {
        let mut size = libc::winsize {
            ws_row: 0,
            ws_col: 0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCGWINSZ writes one `winsize` to the pointer, which is valid.
        let result = unsafe { libc::ioctl(self.raw_fd(), libc::TIOCGWINSZ, &mut size) };
        (result == 0).then_some((size.ws_col, size.ws_row))
    }
}

/// A signal or a spurious wake-up is "no input yet"; anything else means the terminal is gone.
fn interrupted_or_gone(error: io::Error) -> Result<(), TerminalGone> {
    match error.kind() {
        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock => Ok(()),
        _ => Err(TerminalGone),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::time::Instant;

    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

    use super::*;

    /// A real pseudo-terminal pair: (master, slave).
    fn pty() -> (File, OwnedFd) {
        let (mut master, mut slave) = (-1, -1);
        let size = libc::winsize {
            ws_row: 24,
            ws_col: 80,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two fds; name and termios may be null; `size` is valid.
        let result = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(result, 0, "openpty: {}", io::Error::last_os_error());
        // SAFETY: openpty succeeded, so both fds are open and owned by nobody else.
        unsafe {
            use std::os::fd::FromRawFd;
            (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave))
        }
    }

    fn raw_mode(fd: &OwnedFd) {
        // SAFETY: tcgetattr/tcsetattr on an open terminal fd with a valid termios.
        unsafe {
            let mut termios = std::mem::zeroed::<libc::termios>();
            assert_eq!(libc::tcgetattr(fd.as_raw_fd(), &mut termios), 0);
            libc::cfmakeraw(&mut termios);
            assert_eq!(libc::tcsetattr(fd.as_raw_fd(), libc::TCSANOW, &termios), 0);
        }
    }

    #[test]
    fn reads_keys_and_the_size_through_a_real_pty() {
        let (mut master, slave) = pty();
        raw_mode(&slave);
        let mut input = TtyInput::from_fd(slave);
        assert_eq!(input.size(), Some((80, 24)));
        master.write_all(b"f\x1b[C").unwrap();
        let mut keys = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        while keys.len() < 2 && Instant::now() < deadline {
            input.wait(Duration::from_millis(100), &mut keys).unwrap();
        }
        assert_eq!(
            keys,
            vec![
                KeyEvent::new(KeyCode::Char('f'), KeyModifiers::NONE),
                KeyEvent::new(KeyCode::Right, KeyModifiers::NONE),
            ]
        );
        let mut none = Vec::new();
        input.wait(Duration::from_millis(20), &mut none).unwrap();
        assert!(none.is_empty(), "a quiet terminal times out with no keys");
    }

    #[test]
    fn a_hung_up_terminal_is_reported_once_instead_of_spun_on() {
        let (master, slave) = pty();
        raw_mode(&slave);
        let mut input = TtyInput::from_fd(slave);
        drop(master);
        // The old reader never returned here. A 10 s timeout must not be waited out: the
        // hang-up is ready at once.
        let started = Instant::now();
        let result = input.wait(Duration::from_secs(10), &mut Vec::new());
        assert_eq!(result, Err(TerminalGone));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "took {:?}",
            started.elapsed()
        );
    }
}
