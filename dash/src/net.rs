//! Receivers: one thread per listening UDP socket, decoding each datagram and handing it to the
//! render loop through one bounded channel; or, for a dashboard embedded in rigd, a
//! [`PacketFeed`] through which rigd hands over its own native packets with no socket at all,
//! so the dashboard in rigd's terminal leaves rigd's telemetry port to a separate rig-dash.
//! The render loop never touches a socket.
//!
//! Invariants: the hand-off is bounded ([`CHANNEL_CAPACITY`]); when it is full the receiver
//! (or the feed) drops the packet and counts it (the render loop reports the count) rather
//! than wait or grow. Sockets block for at most [`POLL_INTERVAL`] so the threads notice
//! [`Receivers`] being dropped; dropping joins them.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};

use crate::source::{decode, FormatChoice};
use crate::state::{Origin, Packet};
use crate::DashError;

/// Datagrams buffered between the receivers and the render loop (4 s at 1 kHz).
pub const CHANNEL_CAPACITY: usize = 4096;
/// Longest a receiver blocks before checking whether it should stop.
pub const POLL_INTERVAL: Duration = Duration::from_millis(100);
/// Receive buffer: the largest UDP payload, so oversized datagrams are seen whole (and
/// rejected by size) instead of truncated into a valid-looking length.
const RECEIVE_BUFFER_LEN: usize = 65_536;

/// The running receiver threads.
#[derive(Debug)]
pub struct Receivers {
    packets: Receiver<Packet>,
    dropped: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    local_addrs: Vec<SocketAddr>,
    origins: Vec<Origin>,
    threads: Vec<JoinHandle<()>>,
}

impl Receivers {
    /// Binds every address and starts one receiver thread per socket.
    pub fn bind(addrs: &[SocketAddr], format: FormatChoice) -> Result<Self, DashError> {
        let sockets = addrs
            .iter()
            .map(|&addr| {
                let socket =
                    UdpSocket::bind(addr).map_err(|source| DashError::Bind { addr, source })?;
                socket
                    .set_read_timeout(Some(POLL_INTERVAL))
                    .map_err(|source| DashError::Bind { addr, source })?;
                Ok(socket)
            })
            .collect::<Result<Vec<_>, DashError>>()?;
        let local_addrs: Vec<SocketAddr> = sockets
            .iter()
            .zip(addrs)
            .map(|(socket, &addr)| socket.local_addr().unwrap_or(addr))
            .collect();
        let (sender, packets) = crossbeam_channel::bounded(CHANNEL_CAPACITY);
        let dropped = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let threads = sockets
            .into_iter()
            .map(|socket| {
                let worker = Worker {
                    socket,
                    format,
                    sender: sender.clone(),
                    dropped: Arc::clone(&dropped),
                    stop: Arc::clone(&stop),
                };
                std::thread::Builder::new()
                    .name("rig-dash-udp".to_owned())
                    .spawn(move || worker.run())
                    .map_err(DashError::Thread)
            })
            .collect::<Result<Vec<_>, DashError>>()?;
        Ok(Self {
            packets,
            dropped,
            stop,
            origins: local_addrs.iter().copied().map(Origin::Udp).collect(),
            local_addrs,
            threads,
        })
    }

    /// No socket: packets come through the returned feed only (a dashboard embedded in rigd).
    pub fn in_process() -> (Self, PacketFeed) {
        let (sender, packets) = crossbeam_channel::bounded(CHANNEL_CAPACITY);
        let dropped = Arc::new(AtomicU64::new(0));
        let feed = PacketFeed {
            sender,
            dropped: Arc::clone(&dropped),
        };
        let receivers = Self {
            packets,
            dropped,
            stop: Arc::new(AtomicBool::new(false)),
            local_addrs: Vec::new(),
            origins: vec![Origin::InProcess],
            threads: Vec::new(),
        };
        (receivers, feed)
    }

    /// The bound addresses (with the actual port when port 0 was asked for); none in-process.
    pub fn local_addrs(&self) -> &[SocketAddr] {
        &self.local_addrs
    }

    /// Where packets come from, as the dashboard shows it.
    pub fn origins(&self) -> &[Origin] {
        &self.origins
    }

    /// Every packet received since the last call, without waiting.
    pub fn drain(&self) -> crossbeam_channel::TryIter<'_, Packet> {
        self.packets.try_iter()
    }

    /// Datagrams dropped because the channel was full, since the last call.
    pub fn take_dropped(&self) -> u64 {
        self.dropped.swap(0, Ordering::Relaxed)
    }
}

impl Drop for Receivers {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            // A receiver that panicked has nothing left to clean up.
            let _ = thread.join();
        }
    }
}

/// Hands rigd's own packets to an in-process dashboard (see [`Receivers::in_process`]).
#[derive(Debug, Clone)]
pub struct PacketFeed {
    sender: Sender<Packet>,
    dropped: Arc<AtomicU64>,
}

impl PacketFeed {
    /// Decodes `bytes` exactly as a received datagram (format detected by size and magic) and
    /// hands the packet over without waiting; a full hand-off drops and counts it. False once
    /// the dashboard is gone.
    pub fn send(&self, bytes: &[u8]) -> bool {
        let packet = Packet {
            from: Origin::InProcess,
            received_at: Instant::now(),
            decoded: decode(bytes, FormatChoice::Auto),
        };
        hand_over(&self.sender, &self.dropped, packet)
    }
}

/// Sends `packet` to the render loop without waiting, counting it in `dropped` when the
/// channel is full; false when the render loop is gone.
fn hand_over(sender: &Sender<Packet>, dropped: &AtomicU64, packet: Packet) -> bool {
    match sender.try_send(packet) {
        Ok(()) => true,
        Err(TrySendError::Full(_)) => {
            dropped.fetch_add(1, Ordering::Relaxed);
            true
        }
        Err(TrySendError::Disconnected(_)) => false,
    }
}

struct Worker {
    socket: UdpSocket,
    format: FormatChoice,
    sender: Sender<Packet>,
    dropped: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl Worker {
    fn run(self) {
        let mut buffer = vec![0u8; RECEIVE_BUFFER_LEN];
        while !self.stop.load(Ordering::Relaxed) {
            // Timeouts and transient errors (ICMP-induced ECONNREFUSED and the like) only
            // mean "nothing to read now".
            let Ok((len, from)) = self.socket.recv_from(&mut buffer) else {
                continue;
            };
            let packet = Packet {
                from: Origin::Udp(from),
                received_at: Instant::now(),
                decoded: decode(&buffer[..len], self.format),
            };
            if !hand_over(&self.sender, &self.dropped, packet) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receives_and_classifies_real_datagrams() {
        let receivers =
            Receivers::bind(&["127.0.0.1:0".parse().unwrap()], FormatChoice::Auto).unwrap();
        let target = receivers.local_addrs()[0];
        assert_ne!(target.port(), 0);
        let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
        let mut native = vec![0; rig_protocols::telemetry::MAX_PACKET_LEN];
        let len = rig_protocols::Format::Native
            .encode(&rig_protocols::Frame::default(), &mut native)
            .unwrap();
        sender.send_to(&native[..len], target).unwrap();
        sender.send_to(b"garbage", target).unwrap();
        let mut packets = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(5);
        while packets.len() < 2 && Instant::now() < deadline {
            packets.extend(receivers.drain());
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(packets.len(), 2);
        assert!(packets[0].decoded.is_ok());
        assert_eq!(packets[0].from, Origin::Udp(sender.local_addr().unwrap()));
        assert!(packets[1].decoded.is_err());
        assert_eq!(receivers.take_dropped(), 0);
    }

    #[test]
    fn an_in_process_feed_decodes_like_a_socket_and_binds_nothing() {
        let (receivers, feed) = Receivers::in_process();
        assert!(receivers.local_addrs().is_empty());
        assert_eq!(receivers.origins(), &[Origin::InProcess]);
        let mut frame = rig_protocols::Frame::default();
        frame.car.speed_mps = 25.0;
        let mut native = vec![0; rig_protocols::telemetry::MAX_PACKET_LEN];
        let len = rig_protocols::Format::Native
            .encode(&frame, &mut native)
            .unwrap();
        assert!(feed.send(&native[..len]));
        assert!(feed.send(b"garbage"));
        let packets: Vec<Packet> = receivers.drain().collect();
        assert_eq!(packets.len(), 2);
        assert_eq!(packets[0].from, Origin::InProcess);
        assert_eq!(packets[0].decoded.unwrap().speed_mps, Some(25.0));
        assert!(packets[1].decoded.is_err());
        for _ in 0..CHANNEL_CAPACITY + 2 {
            feed.send(&native[..len]);
        }
        assert_eq!(
            receivers.take_dropped(),
            2,
            "a full hand-off drops and counts"
        );
        drop(receivers);
        assert!(!feed.send(&native[..len]), "the dashboard is gone");
    }

    #[test]
    fn a_taken_port_is_a_bind_error_naming_the_address() {
        let taken = UdpSocket::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap();
        let error = Receivers::bind(&[addr], FormatChoice::Auto).unwrap_err();
        let message = error.to_string();
        assert!(message.contains(&addr.to_string()), "{message}");
        assert!(message.contains("--listen"), "{message}");
    }
}
