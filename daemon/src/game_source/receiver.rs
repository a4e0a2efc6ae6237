//! The game bridge's receiver: a non-RT thread (`rigd-game-rx`) that owns one UDP socket per
//! `[source] listen` address, decodes every datagram, stamps its arrival on CLOCK_MONOTONIC
//! and hands `(arrival_ns, GameSample)` to the RT thread through a wait-free SPSC ring sized
//! at start-up ([`RING_CAPACITY`]). Only decoded samples enter the ring: garbage never reaches
//! the RT side.
//!
//! Which datagrams count ([`Classifier`]): with a `format`, datagrams that decode as it; with
//! `auto`, the first datagram any decoder recognises locks the receiver onto that game, and
//! from then on only its datagrams count. Everything else is garbage: a wrong size, a wrong
//! magic or header, random bytes, or another game's format (counted apart as foreign), and
//! datagrams of a magic-less stream's length whose values no game sends (counted apart as
//! implausible: random bytes of exactly that size).
//! A valid packet of a type the bridge does not read (e.g. F1's Lobby Info) is ignored, not
//! garbage. Counters per listen address, atomics the health thread reads: packets and bytes
//! accepted, garbage, foreign, implausible, ignored, last arrival ([`ListenCounters`]).
//!
//! OutGauge is the one stream two games share (LFS, and BeamNG next to its MotionSim): it is
//! read under auto but locks nothing, so the game's motion stream decides. With
//! `lfs_outsim_options` the OutSimPack2 layout of those options is read ([`Classifier`]).
//! GT7 sends nothing until asked: with a console address the thread sends the heartbeat
//! ([`game::gt7::heartbeat`]) from the first listen socket to the console's port 33739 at start
//! and every [`game::gt7::HEARTBEAT_INTERVAL_S`].
//!
//! The thread sleeps in `poll(2)` on all its sockets with a 100 ms timeout, so dropping the
//! [`GameReceiver`] stops it within 100 ms; it then closes the sockets (a reload can bind
//! the same addresses again at once).

use std::io::ErrorKind;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use rig_protocols::game::{self, gt7, lfs, GameDecodeError, GameFormat, GameSample, GameStream};
use rig_protocols::telemetry::OutSimOptions;

use super::confirm::{needs_confirmation, Confirmation};
use crate::rt::clock::now_ns;

/// Samples the ring holds (the RT thread drains it every tick; a game sends at most a few
/// hundred a second, so this is seconds of slack).
pub const RING_CAPACITY: usize = 1024;
/// How long the thread sleeps in `poll` before it looks at its quit flag, ms.
const POLL_TIMEOUT_MS: i32 = 100;
/// The largest UDP payload, bytes (one buffer, allocated at start).
const MAX_DATAGRAM: usize = 65_536;

/// Every stream, in the order their index is stored in [`SourceFeed`].
const STREAMS: [GameStream; 13] = [
    GameStream::ForzaSled,
    GameStream::ForzaFm7Dash,
    GameStream::ForzaHorizon,
    GameStream::ForzaFm2023,
    GameStream::F1_24,
    GameStream::F1_25,
    GameStream::Codemasters,
    GameStream::EaWrc,
    GameStream::BeamNgMotionSim,
    GameStream::OutGauge,
    GameStream::OutSim,
    GameStream::OutSimPack2,
    GameStream::Gt7,
];

/// One sample on its way to the RT thread: its arrival on CLOCK_MONOTONIC, ns, and itself.
pub type Arrival = (u64, GameSample);

/// The counters of one listen address (written by the receiver, read by the health thread).
#[derive(Debug)]
pub struct ListenCounters {
    /// The address listened on.
    pub address: SocketAddr,
    /// Datagrams decoded and handed to the RT thread.
    pub packets: AtomicU64,
    /// Their bytes.
    pub bytes: AtomicU64,
    /// Datagrams dropped as garbage (foreign ones included).
    pub garbage: AtomicU64,
    /// Of the garbage: datagrams of another game than the one read.
    pub foreign: AtomicU64,
    /// Of the garbage: datagrams of a magic-less stream's length (LFS OutSim and OutGauge,
    /// Codemasters) whose values no game sends (random bytes of that size).
    pub implausible: AtomicU64,
    /// Valid packets of a type the bridge does not read.
    pub ignored: AtomicU64,
    /// Arrival of the last accepted datagram, CLOCK_MONOTONIC ns (0: none yet).
    pub last_arrival_ns: AtomicU64,
}

impl ListenCounters {
    fn new(address: SocketAddr) -> ListenCounters {
        ListenCounters {
            address,
            packets: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            garbage: AtomicU64::new(0),
            foreign: AtomicU64::new(0),
            implausible: AtomicU64::new(0),
            ignored: AtomicU64::new(0),
            last_arrival_ns: AtomicU64::new(0),
        }
    }
}

/// What the receiver, the RT thread and the health thread share about the source: atomics.
#[derive(Debug)]
pub struct SourceFeed {
    /// One entry per listen address, in config order.
    pub listeners: Vec<ListenCounters>,
    /// Samples dropped because the ring was full (the RT thread not draining).
    pub ring_full: AtomicU64,
    /// The stream of the last accepted datagram (OutGauge only until a motion stream comes):
    /// 0 none yet, else 1 + index in `STREAMS`.
    stream: AtomicU8,
    /// The condition the RT thread found on its last tick (`SourceCondition as u8`).
    condition: AtomicU8,
}

impl SourceFeed {
    fn new(addresses: &[SocketAddr]) -> SourceFeed {
        SourceFeed {
            listeners: addresses.iter().map(|a| ListenCounters::new(*a)).collect(),
            ring_full: AtomicU64::new(0),
            stream: AtomicU8::new(0),
            condition: AtomicU8::new(0),
        }
    }

    /// The stream of the last accepted datagram.
    pub fn stream(&self) -> Option<GameStream> {
        let index = usize::from(self.stream.load(Ordering::Relaxed));
        index.checked_sub(1).and_then(|i| STREAMS.get(i)).copied()
    }

    fn set_stream(&self, stream: GameStream) {
        let index = STREAMS.iter().position(|s| *s == stream).unwrap_or(0);
        self.stream.store(index as u8 + 1, Ordering::Relaxed);
    }

    /// The condition code the RT thread stored last.
    pub fn condition_code(&self) -> u8 {
        self.condition.load(Ordering::Relaxed)
    }

    /// Stores the RT thread's condition code (wait-free).
    pub fn set_condition_code(&self, code: u8) {
        self.condition.store(code, Ordering::Relaxed);
    }

    /// Accepted datagrams on every address.
    pub fn packets(&self) -> u64 {
        self.listeners
            .iter()
            .map(|l| l.packets.load(Ordering::Relaxed))
            .sum()
    }

    /// Garbage datagrams on every address.
    pub fn garbage(&self) -> u64 {
        self.listeners
            .iter()
            .map(|l| l.garbage.load(Ordering::Relaxed))
            .sum()
    }

    /// Of the garbage, the implausible datagrams on every address.
    pub fn implausible(&self) -> u64 {
        self.listeners
            .iter()
            .map(|l| l.implausible.load(Ordering::Relaxed))
            .sum()
    }

    /// The newest accepted arrival on any address, ns (None before the first).
    pub fn last_arrival_ns(&self) -> Option<u64> {
        self.listeners
            .iter()
            .map(|l| l.last_arrival_ns.load(Ordering::Relaxed))
            .max()
            .filter(|t| *t > 0)
    }
}

/// Why a datagram is not handed to the RT thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A valid packet of a type the bridge does not read.
    Ignored,
    /// Not the game read: wrong size, magic or header, random bytes.
    Garbage,
    /// Another game's datagram.
    Foreign,
    /// The length of a stream without a magic, values no game sends (random bytes).
    Implausible,
}

/// Decides what each datagram is, locking `auto` onto the first game recognised.
#[derive(Debug, Clone)]
pub struct Classifier {
    locked: Option<GameFormat>,
    lfs_options: Option<OutSimOptions>,
}

impl Classifier {
    /// A classifier for `format` (`None`: auto-detect and lock), reading LFS OutSimPack2 with
    /// `lfs_options` when given.
    pub fn new(format: Option<GameFormat>, lfs_options: Option<OutSimOptions>) -> Classifier {
        Classifier {
            locked: format,
            lfs_options,
        }
    }

    /// The game read (None until auto-detection recognised one).
    pub fn locked(&self) -> Option<GameFormat> {
        self.locked
    }

    /// Locks an auto classifier onto `stream`'s game (nothing when locked already).
    pub fn lock_onto(&mut self, stream: GameStream) {
        self.locked.get_or_insert(stream.format());
    }

    /// The sample in `bytes`, or why there is none; the first recognised datagram locks an
    /// auto classifier (a stream without a magic only once the receiver confirmed it:
    /// [`super::confirm`]).
    pub fn classify(&mut self, bytes: &[u8]) -> Result<GameSample, Verdict> {
        let pack2 = self.lfs_options.filter(|options| {
            matches!(self.locked, None | Some(GameFormat::Lfs))
                && lfs::matches_pack2(bytes, *options)
        });
        let decoded = match pack2 {
            Some(options) => lfs::decode_pack2(bytes, options),
            None => game::decode(self.locked, bytes),
        };
        match decoded {
            Ok(sample) => {
                // A stream without a magic locks once confirmed ([`Classifier::lock_onto`]).
                if sample.stream != GameStream::OutGauge && !needs_confirmation(sample.stream) {
                    self.lock_onto(sample.stream);
                }
                Ok(sample)
            }
            Err(GameDecodeError::Ignored { stream, .. }) => {
                if self.locked.is_some_and(|game| game != stream.format()) {
                    Err(Verdict::Foreign)
                } else {
                    Err(Verdict::Ignored)
                }
            }
            Err(GameDecodeError::Implausible { .. }) => Err(Verdict::Implausible),
            Err(_) => match (self.locked, game::detect_format(bytes)) {
                (Some(game), Some(other)) if other != game => Err(Verdict::Foreign),
                _ => Err(Verdict::Garbage),
            },
        }
    }
}

/// The running receiver thread; dropping it stops the thread and closes its sockets.
#[derive(Debug)]
pub struct GameReceiver {
    quit: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for GameReceiver {
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Binds every address of `listen` and starts the receiver for `format` (`None`: auto);
/// returns it, the ring's RT end and the shared counters.
pub fn start(
    listen: &[SocketAddr],
    format: Option<GameFormat>,
    lfs_options: Option<OutSimOptions>,
    gt7_console: Option<IpAddr>,
) -> Result<(GameReceiver, rtrb::Consumer<Arrival>, Arc<SourceFeed>)> {
    let sockets = listen
        .iter()
        .map(|address| bind(*address))
        .collect::<Result<Vec<_>>>()?;
    let feed = Arc::new(SourceFeed::new(listen));
    let (producer, consumer) = rtrb::RingBuffer::new(RING_CAPACITY);
    let quit = Arc::new(AtomicBool::new(false));
    let worker = Worker {
        sockets,
        classifier: Classifier::new(format, lfs_options),
        confirmation: Confirmation::default(),
        heartbeat_to: gt7_console.map(|ip| SocketAddr::new(ip, gt7::HEARTBEAT_PORT)),
        producer,
        feed: feed.clone(),
        quit: quit.clone(),
    };
    let thread = std::thread::Builder::new()
        .name("rigd-game-rx".into())
        .spawn(move || worker.run())
        .context("cannot start the game telemetry receiver thread")?;
    Ok((
        GameReceiver {
            quit,
            thread: Some(thread),
        },
        consumer,
        feed,
    ))
}

fn bind(address: SocketAddr) -> Result<UdpSocket> {
    let socket = UdpSocket::bind(address).map_err(|e| {
        let fix = match e.kind() {
            ErrorKind::AddrInUse => {
                "another program (a second rigd, a dashboard app) listens there: stop it, or \
                 choose another port here and in the game's telemetry settings"
            }
            ErrorKind::AddrNotAvailable => {
                "use an address of this machine, or 0.0.0.0 for every interface"
            }
            ErrorKind::PermissionDenied => "use a port above 1023",
            _ => "check [source] listen",
        };
        anyhow::anyhow!(
            "cannot listen for the game's telemetry on {address}: {} (fix: {fix})",
            rig_toml::plain::io_words(&e)
        )
    })?;
    socket
        .set_nonblocking(true)
        .with_context(|| format!("cannot make the socket on {address} non-blocking"))?;
    Ok(socket)
}

/// The thread's state.
struct Worker {
    sockets: Vec<UdpSocket>,
    classifier: Classifier,
    /// Holds back a magic-less stream's samples until they continue each other.
    confirmation: Confirmation,
    /// Where GT7's heartbeat goes (the console's heartbeat port), when asked for.
    heartbeat_to: Option<SocketAddr>,
    producer: rtrb::Producer<Arrival>,
    feed: Arc<SourceFeed>,
    quit: Arc<AtomicBool>,
}

impl Worker {
    fn run(mut self) {
        let mut buffer = vec![0u8; MAX_DATAGRAM];
        let mut fds: Vec<libc::pollfd> = self
            .sockets
            .iter()
            .map(|socket| libc::pollfd {
                fd: socket.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let heartbeat_every_ns = (gt7::HEARTBEAT_INTERVAL_S * 1e9) as u64;
        let mut next_heartbeat_ns = now_ns();
        while !self.quit.load(Ordering::Relaxed) {
            if let Some(console) = self.heartbeat_to {
                if now_ns() >= next_heartbeat_ns {
                    // A lost heartbeat is sent again next second; the stream's age says the rest.
                    let _ = self.sockets[0].send_to(gt7::heartbeat(gt7::Gt7Variant::A), console);
                    next_heartbeat_ns = now_ns() + heartbeat_every_ns;
                }
            }
            // SAFETY: `fds` is a live array of `fds.len()` pollfd structs for the whole call.
            let ready =
                unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, POLL_TIMEOUT_MS) };
            if ready <= 0 {
                continue; // timeout or EINTR: look at the quit flag
            }
            for (index, fd) in fds.iter().enumerate() {
                if fd.revents != 0 {
                    self.drain(index, &mut buffer);
                }
            }
        }
    }

    /// Counts `sample` (a `len`-byte datagram on socket `index`, arrived at `arrival_ns`) as
    /// accepted and hands it to the RT thread.
    fn hand_over(&mut self, index: usize, len: usize, arrival_ns: u64, sample: GameSample) {
        let counters = &self.feed.listeners[index];
        counters.packets.fetch_add(1, Ordering::Relaxed);
        counters.bytes.fetch_add(len as u64, Ordering::Relaxed);
        counters
            .last_arrival_ns
            .store(arrival_ns, Ordering::Relaxed);
        if sample.stream != GameStream::OutGauge {
            self.classifier.lock_onto(sample.stream);
        }
        // OutGauge rides beside the game's motion stream (BeamNG, LFS): the status names the
        // motion stream once there is one.
        if sample.stream != GameStream::OutGauge || self.feed.stream().is_none() {
            self.feed.set_stream(sample.stream);
        }
        if self.producer.push((arrival_ns, sample)).is_err() {
            self.feed.ring_full.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Reads every datagram waiting on socket `index`.
    fn drain(&mut self, index: usize, buffer: &mut [u8]) {
        loop {
            let len = match self.sockets[index].recv(buffer) {
                Ok(len) => len,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return, // WouldBlock: drained (an ICMP error: nothing to read either)
            };
            let arrival_ns = now_ns();
            let counters = &self.feed.listeners[index];
            match self.classifier.classify(&buffer[..len]) {
                Ok(sample) => {
                    let admission = self.confirmation.admit(arrival_ns, &sample);
                    if admission.dropped {
                        counters.implausible.fetch_add(1, Ordering::Relaxed);
                        counters.garbage.fetch_add(1, Ordering::Relaxed);
                    }
                    if let Some((held_arrival_ns, held)) = admission.release {
                        self.hand_over(index, len, held_arrival_ns, held);
                    }
                    if admission.pass {
                        self.hand_over(index, len, arrival_ns, sample);
                    }
                }
                Err(Verdict::Ignored) => {
                    counters.ignored.fetch_add(1, Ordering::Relaxed);
                }
                Err(Verdict::Foreign) => {
                    counters.foreign.fetch_add(1, Ordering::Relaxed);
                    counters.garbage.fetch_add(1, Ordering::Relaxed);
                }
                Err(Verdict::Garbage) => {
                    counters.garbage.fetch_add(1, Ordering::Relaxed);
                }
                Err(Verdict::Implausible) => {
                    counters.implausible.fetch_add(1, Ordering::Relaxed);
                    counters.garbage.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn forza_sled(race_on: u8) -> Vec<u8> {
        let mut bytes = vec![0u8; 232];
        bytes[0] = race_on;
        bytes
    }

    #[test]
    fn auto_locks_onto_the_first_game_and_everything_else_is_garbage() {
        let mut auto = Classifier::new(None, None);
        assert_eq!(auto.classify(&[1, 2, 3]), Err(Verdict::Garbage));
        assert_eq!(auto.locked(), None, "garbage locks nothing");
        assert!(auto.classify(&forza_sled(1)).is_ok());
        assert_eq!(auto.locked(), Some(GameFormat::Forza));
        assert_eq!(
            auto.classify(&forza_sled(9)),
            Err(Verdict::Garbage),
            "wrong flag"
        );
        assert_eq!(
            auto.classify(&[0u8; 500]),
            Err(Verdict::Garbage),
            "wrong size"
        );
        let mut forza = Classifier::new(Some(GameFormat::Forza), None);
        assert!(matches!(forza.classify(&forza_sled(0)), Ok(s) if s.driving == Some(false)));
    }

    #[test]
    fn a_real_socket_counts_and_hands_over_only_decoded_samples() {
        let probe = UdpSocket::bind("127.0.0.1:0").unwrap();
        let address = probe.local_addr().unwrap();
        drop(probe);
        let (receiver, mut ring, feed) = start(&[address], None, None, None).unwrap();
        let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
        let before = now_ns();
        sender.send_to(&[7u8; 100], address).unwrap();
        sender.send_to(&forza_sled(1), address).unwrap();
        sender.send_to(&forza_sled(3), address).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while feed.packets() + feed.garbage() < 3 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        let (arrival, sample) = ring.pop().expect("the Forza sample");
        assert!(arrival >= before && arrival <= now_ns());
        assert_eq!(sample.stream, GameStream::ForzaSled);
        assert!(ring.pop().is_err(), "garbage never enters the ring");
        let counters = &feed.listeners[0];
        assert_eq!(counters.packets.load(Ordering::Relaxed), 1);
        assert_eq!(counters.bytes.load(Ordering::Relaxed), 232);
        assert_eq!(counters.garbage.load(Ordering::Relaxed), 2);
        assert_eq!(feed.stream(), Some(GameStream::ForzaSled));
        assert_eq!(feed.last_arrival_ns(), Some(arrival));
        let stopping = Instant::now();
        drop(receiver);
        assert!(stopping.elapsed() < Duration::from_millis(500));
        UdpSocket::bind(address).expect("the address is free again after the drop");
    }

    #[test]
    fn bytes_of_outsims_length_with_values_no_car_has_are_implausible() {
        let mut lfs = Classifier::new(Some(GameFormat::Lfs), None);
        // Every float 3.4e38.
        let random = [0x7f; 64];
        assert_eq!(lfs.classify(&random), Err(Verdict::Implausible));
        let mut auto = Classifier::new(None, None);
        assert_eq!(auto.classify(&random), Err(Verdict::Implausible));
        assert_eq!(auto.locked(), None, "implausible bytes lock nothing");
    }

    #[test]
    fn outgauge_locks_nothing_so_the_motion_stream_decides() {
        // BeamNG sends OutGauge next to MotionSim; a first OutGauge must not lock auto onto LFS.
        let mut auto = Classifier::new(None, None);
        let mut outgauge = vec![0u8; 96];
        outgauge[..4].copy_from_slice(&0u32.to_le_bytes());
        if let Ok(sample) = auto.classify(&outgauge) {
            assert_eq!(sample.stream, GameStream::OutGauge);
        }
        assert_eq!(auto.locked(), None, "OutGauge is shared by LFS and BeamNG");
        assert!(auto.classify(&forza_sled(1)).is_ok());
        assert_eq!(auto.locked(), Some(GameFormat::Forza));
    }

    #[test]
    fn gt7_heartbeats_go_to_the_console_every_second() {
        let probe = UdpSocket::bind("127.0.0.1:0").unwrap();
        let address = probe.local_addr().unwrap();
        drop(probe);
        // The heartbeat goes to the console's fixed port 33739: listen there if it is free,
        // else the test cannot observe it on this machine and says so.
        let Ok(heartbeat_port) = UdpSocket::bind(("127.0.0.1", gt7::HEARTBEAT_PORT)) else {
            eprintln!(
                "port {} is taken here: heartbeat not observed",
                gt7::HEARTBEAT_PORT
            );
            return;
        };
        heartbeat_port
            .set_read_timeout(Some(Duration::from_millis(2500)))
            .unwrap();
        let started = Instant::now();
        let (receiver, _ring, _feed) = start(
            &[address],
            Some(GameFormat::Gt7),
            None,
            Some("127.0.0.1".parse().unwrap()),
        )
        .unwrap();
        let mut buffer = [0u8; 16];
        let (len, from) = heartbeat_port
            .recv_from(&mut buffer)
            .expect("the first heartbeat");
        assert_eq!(&buffer[..len], gt7::heartbeat(gt7::Gt7Variant::A));
        assert_eq!(from.port(), address.port(), "sent from the listen socket");
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "sent at start"
        );
        heartbeat_port
            .recv_from(&mut buffer)
            .expect("the second heartbeat");
        let interval = started.elapsed();
        assert!(
            interval >= Duration::from_millis(900) && interval < Duration::from_millis(2000),
            "about a second apart: {interval:?}"
        );
        drop(receiver);
    }
}
