//! Pseudo-terminal pairs for the motion and serial-input tests: the code under test opens the
//! slave path with the real `serialport` crate, the test reads and writes the master.

#![allow(dead_code)] // each test binary uses its own subset

#[path = "../../src/test_pty.rs"]
mod test_pty;

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// An open pty master and the path of its slave.
pub struct Pty {
    pub master: OwnedFd,
    pub slave_path: PathBuf,
}

impl Pty {
    /// A new pair in raw mode (no echo, no newline translation). The slave is closed again;
    /// the device stays while the master is open.
    pub fn open() -> Pty {
        let (master, slave) = test_pty::pty_pair();
        let mut name = [0 as libc::c_char; 128];
        let rc = unsafe { libc::ttyname_r(slave.as_raw_fd(), name.as_mut_ptr(), name.len()) };
        assert_eq!(rc, 0, "ttyname_r");
        let slave_path = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            libc::tcgetattr(slave.as_raw_fd(), &mut t);
            libc::cfmakeraw(&mut t);
            libc::tcsetattr(slave.as_raw_fd(), libc::TCSANOW, &t);
            let flags = libc::fcntl(master.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(master.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        drop(slave);
        Pty {
            master,
            slave_path: PathBuf::from(slave_path),
        }
    }

    /// Whatever arrives on the master within `window`.
    pub fn read_for(&self, window: Duration) -> Vec<u8> {
        let end = Instant::now() + window;
        let mut out = Vec::new();
        let mut buf = [0u8; 4096];
        while Instant::now() < end {
            let n =
                unsafe { libc::read(self.master.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
            if n > 0 {
                out.extend_from_slice(&buf[..n as usize]);
            } else {
                // EAGAIN (nothing yet) or EIO (no slave open yet): look again shortly.
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        out
    }

    /// Writes `bytes` to the master (the slave reads them).
    pub fn write(&self, bytes: &[u8]) {
        let mut rest = bytes;
        while !rest.is_empty() {
            let n =
                unsafe { libc::write(self.master.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
            if n > 0 {
                rest = &rest[n as usize..];
            } else {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}
