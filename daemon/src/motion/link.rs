//! A motion controller's link (serial port or UDP socket), written without ever waiting: the
//! one writer thread serves every output ([`super::writers`]), so a port that takes nothing
//! must not hold back the other ports' frames.
//!
//! A frame goes out whole or not at all from the controller's point of view: when a port
//! takes only the head of a frame, the rest is queued here and goes out before anything else
//! (a torn frame would put the controller out of step); while a rest is queued or the port
//! takes nothing, new frames are skipped, not queued behind it (the controller gets the
//! newest frame once the port takes data again, never a backlog). A port that has taken no
//! whole frame for [`WRITE_TIMEOUT`] counts as lost: the write fails with `TimedOut`, as the
//! blocking write with a 200 ms timeout did before.
//!
//! No `tcdrain` per frame: it returned once the frame had left the UART, which paced the
//! writer at the line's speed, but every command still queued (in the ring instead of the
//! kernel buffer), so it never kept the seat off stale frames. What keeps the line from
//! backing up is the config's bound (a frame rate needing at most 80 % of the baud), and a
//! port that stalls is caught by the timeout above. On a real UART `tcdrain` also slept until
//! the frame was out, one more wake-up per frame, and it had no timeout (a stalled USB adapter
//! held the writer, its watchdog and the shutdown's park). Closing the port still lets the
//! kernel send what is queued (the tty layer's closing wait), so the stop string goes out.

use std::io::{self, ErrorKind};
use std::net::UdpSocket;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use super::writer::LinkTarget;

/// Longest a port may take no whole frame before the link counts as lost.
pub const WRITE_TIMEOUT: Duration = Duration::from_millis(200);

enum Port {
    Serial(serialport::TTYPort),
    Udp(UdpSocket),
}

/// An open link to a controller.
pub struct Link {
    port: Port,
    /// The part of a frame the port has not taken yet (it goes out before anything else).
    rest: Vec<u8>,
    /// Since when the port has not taken a whole frame.
    busy_since: Option<Instant>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("rest", &self.rest.len())
            .field("busy_since", &self.busy_since)
            .finish()
    }
}

impl Link {
    /// Opens `target` for writes that never wait.
    pub fn open(target: &LinkTarget) -> io::Result<Link> {
        let port = match target {
            LinkTarget::Serial {
                path,
                baud,
                data_bits,
                parity,
                stop_bits,
            } => {
                let port = serialport::new(path, *baud)
                    .data_bits(match data_bits {
                        5 => serialport::DataBits::Five,
                        6 => serialport::DataBits::Six,
                        7 => serialport::DataBits::Seven,
                        _ => serialport::DataBits::Eight,
                    })
                    .parity(match parity {
                        rig_protocols::motion::Parity::None => serialport::Parity::None,
                        rig_protocols::motion::Parity::Odd => serialport::Parity::Odd,
                        rig_protocols::motion::Parity::Even => serialport::Parity::Even,
                    })
                    .stop_bits(if *stop_bits == 2 {
                        serialport::StopBits::Two
                    } else {
                        serialport::StopBits::One
                    })
                    .open_native()
                    .map_err(io::Error::other)?;
                let fd = port.as_raw_fd();
                // SAFETY: fcntl on the descriptor `port` owns; no memory is passed.
                let set = unsafe {
                    let flags = libc::fcntl(fd, libc::F_GETFL);
                    flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
                };
                if !set {
                    return Err(io::Error::last_os_error());
                }
                Port::Serial(port)
            }
            LinkTarget::Udp(addr) => {
                let bind = if addr.is_ipv4() {
                    "0.0.0.0:0"
                } else {
                    "[::]:0"
                };
                let socket = UdpSocket::bind(bind)?;
                socket.connect(addr)?;
                socket.set_nonblocking(true)?;
                Port::Udp(socket)
            }
        };
        Ok(Link {
            port,
            rest: Vec::with_capacity(256),
            busy_since: None,
        })
    }

    /// Bytes the port took now (0 when it takes nothing without waiting).
    fn write_some(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let result = match &mut self.port {
            Port::Serial(port) => {
                // SAFETY: `bytes` is a valid buffer of its length; the descriptor is owned by
                // `port` and open.
                let n =
                    unsafe { libc::write(port.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            }
            // A refused datagram (no listener yet) is not a broken link.
            Port::Udp(socket) => match socket.send(bytes) {
                Err(e) if e.kind() == ErrorKind::ConnectionRefused => Ok(bytes.len()),
                other => other,
            },
        };
        match result {
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => Ok(0),
            other => other,
        }
    }

    /// The port took less than it was given at `now`: fine until it has been so for
    /// [`WRITE_TIMEOUT`].
    fn busy(&mut self, now: Instant) -> io::Result<()> {
        let since = *self.busy_since.get_or_insert(now);
        if now.saturating_duration_since(since) >= WRITE_TIMEOUT {
            return Err(io::Error::new(
                ErrorKind::TimedOut,
                "the controller took nothing for 200 ms: write timed out",
            ));
        }
        Ok(())
    }

    /// True while part of a frame waits to go out.
    pub fn has_rest(&self) -> bool {
        !self.rest.is_empty()
    }

    /// Sends what the port takes of a part-written frame's rest.
    pub fn push_rest(&mut self, now: Instant) -> io::Result<()> {
        if self.rest.is_empty() {
            return Ok(());
        }
        let rest = std::mem::take(&mut self.rest);
        let written = self.write_some(&rest);
        self.rest = rest;
        let n = written?;
        self.rest.drain(..n);
        if self.rest.is_empty() {
            self.busy_since = None;
            Ok(())
        } else {
            self.busy(now)
        }
    }

    /// Writes `frame` if the port takes it now (the rest of an earlier frame first). True when
    /// it went out (whole, or its head with the rest queued); false when it was skipped (a
    /// rest still queued, or the port took nothing). Fails on an error of the port, or when it
    /// has taken no whole frame for [`WRITE_TIMEOUT`].
    pub fn write_frame(&mut self, frame: &[u8], now: Instant) -> io::Result<bool> {
        if frame.is_empty() {
            return Ok(true);
        }
        self.push_rest(now)?;
        if self.has_rest() {
            return self.busy(now).map(|()| false);
        }
        let n = self.write_some(frame)?;
        if n == frame.len() {
            self.busy_since = None;
            return Ok(true);
        }
        if n > 0 {
            self.rest.extend_from_slice(&frame[n..]);
        }
        self.busy(now).map(|()| n > 0)
    }
}
