//! Test support: a pseudo-terminal pair for the unit tests of terminal handling (hang-up
//! detection in `signals`, the bounded last words in `logging`) and, included by path,
//! the motion and serial-input tests' `motion_pty`. Test builds only.

use std::os::fd::{FromRawFd, OwnedFd};

/// A pseudo-terminal pair: (master, slave).
pub fn pty_pair() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes two descriptors; name, termios and size may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned by nothing else.
    unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}
