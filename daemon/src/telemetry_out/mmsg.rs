//! Batched UDP sends: several packets to one connected socket in one `sendmmsg(2)` call, so
//! a fast output (up to 1000 Hz to several destinations) pays one syscall per batch instead of
//! one per packet. Every packet gets its own result: a failed packet is counted as an error
//! and the batch continues with the next one (each packet is attempted exactly once).

use std::net::UdpSocket;
use std::os::fd::AsRawFd;

/// Most packets one call sends.
pub const MAX_BATCH: usize = 8;

/// Sends each of `packets` (at most [`MAX_BATCH`]) on the connected, non-blocking `socket`,
/// calling `record` once per packet in order with `None` (sent) or the error.
pub fn send_each(
    socket: &UdpSocket,
    packets: &[&[u8]],
    mut record: impl FnMut(Option<&std::io::Error>),
) {
    let count = packets.len().min(MAX_BATCH);
    // SAFETY: iovec and mmsghdr are plain C structs for which all-zero bytes are a valid
    // (empty) value.
    let mut iov: [libc::iovec; MAX_BATCH] = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let mut msgs: [libc::mmsghdr; MAX_BATCH] = unsafe { std::mem::zeroed() };
    for (i, packet) in packets.iter().take(count).enumerate() {
        iov[i] = libc::iovec {
            iov_base: packet.as_ptr() as *mut libc::c_void,
            iov_len: packet.len(),
        };
        msgs[i].msg_hdr.msg_iov = &mut iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    let mut next = 0;
    while next < count {
        // SAFETY: `msgs[next..count]` are initialised headers whose iovecs point at `packets`,
        // which outlive the call; the kernel only reads them (and writes `msg_len`). The fd is
        // owned by `socket`, which is borrowed for the whole call.
        let sent = unsafe {
            libc::sendmmsg(
                socket.as_raw_fd(),
                msgs.as_mut_ptr().add(next),
                (count - next) as libc::c_uint,
                libc::MSG_DONTWAIT,
            )
        };
        if sent > 0 {
            for _ in 0..sent {
                record(None);
            }
            next += sent as usize;
        } else {
            record(Some(&std::io::Error::last_os_error()));
            next += 1;
        }
    }
}
