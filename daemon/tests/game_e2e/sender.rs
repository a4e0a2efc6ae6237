//! The fake game's sending thread: steps the kinematic car once per frame at the times of a
//! [`SendTiming`] trace and sends the game's datagrams, plus garbage and other games'
//! packets when the scenario asks, counting every datagram that must be dropped. A delivery
//! stall ([`Game::stall`]) holds the game's datagrams back for a while (the game goes on)
//! and then sends them back to back, as a congested network or a descheduled sender does.
//!
//! Two transports: straight to rigd's listen ports (every game but GT7), or as a console
//! (GT7): the thread listens on the console's heartbeat port and streams only to the address
//! a heartbeat came from, while heartbeats keep coming (within [`CONSOLE_TIMEOUT`]), as the
//! console does.

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::car::{Car, CarFrame, Scenario, SendTiming};
use super::packets::{random_bytes, GamePackets};

/// A console stops streaming this long after the last heartbeat.
pub const CONSOLE_TIMEOUT: Duration = Duration::from_secs(5);
/// A bump: this many frames up at [`BUMP_MPS2`], then as many down (the car ends level).
const BUMP_FRAMES: u32 = 12;
const BUMP_MPS2: f64 = 25.0;

/// Where the datagrams go.
pub enum Transport {
    /// rigd's listen ports, in config order.
    Listen(Vec<SocketAddr>),
    /// GT7: the console's heartbeat socket; packets go where heartbeats come from.
    Console(UdpSocket),
}

/// What the thread reports back.
#[derive(Debug, Default)]
pub struct Sent {
    /// Datagrams sent that the bridge must drop (garbage and other games').
    pub dropped: AtomicU64,
    /// Heartbeats the console received (all of them `A`).
    pub heartbeats: AtomicU64,
    /// Heartbeats that were not `A`.
    pub odd_heartbeats: AtomicU64,
}

/// The running fake game; dropping it stops the thread.
pub struct Game {
    scenario: Arc<Mutex<Scenario>>,
    bump: Arc<AtomicBool>,
    stall_ms: Arc<AtomicU64>,
    last: Arc<Mutex<Option<CarFrame>>>,
    pub sent: Arc<Sent>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Game {
    pub fn start(
        mut packets: Box<dyn GamePackets>,
        transport: Transport,
        mut timing: SendTiming,
        first: Scenario,
    ) -> Game {
        let scenario = Arc::new(Mutex::new(first));
        let bump = Arc::new(AtomicBool::new(false));
        let stall_ms = Arc::new(AtomicU64::new(0));
        let last = Arc::new(Mutex::new(None));
        let sent = Arc::new(Sent::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, bump_asked, stall_asked, last_car, report, quit) = (
            scenario.clone(),
            bump.clone(),
            stall_ms.clone(),
            last.clone(),
            sent.clone(),
            stop.clone(),
        );
        let thread = std::thread::spawn(move || {
            let (socket, fixed) = match transport {
                Transport::Listen(ports) => (UdpSocket::bind("127.0.0.1:0").unwrap(), Some(ports)),
                Transport::Console(socket) => {
                    socket.set_nonblocking(true).unwrap();
                    (socket, None)
                }
            };
            let mut heartbeat: Option<(Instant, SocketAddr)> = None;
            let mut car = Car::new();
            let mut seed = 0x6a5b_u64;
            let mut bump_frame = 0u32;
            let mut stalled_until: Option<Instant> = None;
            let mut held: Vec<(usize, Vec<u8>)> = Vec::new();
            let start = Instant::now();
            let mut k = 0u64;
            while !quit.load(Ordering::Relaxed) {
                k += 1;
                let at = start + Duration::from_micros(timing.send_at_us(k));
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
                let mut s = *shared.lock().unwrap();
                if bump_asked.swap(false, Ordering::Relaxed) {
                    bump_frame = 2 * BUMP_FRAMES;
                }
                let stall = stall_asked.swap(0, Ordering::Relaxed);
                if stall > 0 {
                    stalled_until = Some(Instant::now() + Duration::from_millis(stall));
                }
                let stalled = stalled_until.is_some_and(|until| Instant::now() < until);
                if bump_frame > 0 {
                    s.accel_up_mps2 = if bump_frame > BUMP_FRAMES {
                        BUMP_MPS2
                    } else {
                        -BUMP_MPS2
                    };
                    bump_frame -= 1;
                }
                let frame = car.step(&s);
                *last_car.lock().unwrap() = Some(frame);
                let mut buf = [0u8; 64];
                while fixed.is_none() {
                    let Ok((len, from)) = socket.recv_from(&mut buf) else {
                        break;
                    };
                    report.heartbeats.fetch_add(1, Ordering::Relaxed);
                    if &buf[..len] != b"A" {
                        report.odd_heartbeats.fetch_add(1, Ordering::Relaxed);
                    }
                    heartbeat = Some((Instant::now(), from));
                }
                let ports = match &fixed {
                    Some(ports) => ports.clone(),
                    None => match heartbeat {
                        Some((when, from)) if when.elapsed() < CONSOLE_TIMEOUT => vec![from],
                        _ => continue,
                    },
                };
                if !stalled {
                    for (port, bytes) in held.drain(..) {
                        socket.send_to(&bytes, ports[port]).unwrap();
                    }
                }
                if s.sending {
                    for datagram in packets.frame(&frame) {
                        if stalled {
                            held.push((datagram.port, datagram.bytes));
                        } else {
                            socket
                                .send_to(&datagram.bytes, ports[datagram.port])
                                .unwrap();
                        }
                    }
                }
                let mut dropped = Vec::new();
                if s.garbage {
                    // Wrong sizes (random bytes), an empty datagram, and the game's own
                    // broken ones.
                    dropped.push(random_bytes(&mut seed, 100));
                    dropped.push(random_bytes(&mut seed, 1000));
                    dropped.push(Vec::new());
                    dropped.extend(packets.corrupt(&frame));
                }
                if s.foreign {
                    dropped.extend(packets.foreign(&frame));
                }
                for datagram in &dropped {
                    socket.send_to(datagram, ports[0]).unwrap();
                }
                report
                    .dropped
                    .fetch_add(dropped.len() as u64, Ordering::Relaxed);
            }
        });
        Game {
            scenario,
            bump,
            stall_ms,
            last,
            sent,
            stop,
            thread: Some(thread),
        }
    }

    /// What the game does from now on.
    pub fn set(&self, scenario: Scenario) {
        *self.scenario.lock().unwrap() = scenario;
    }

    /// What the game does now.
    pub fn scenario(&self) -> Scenario {
        *self.scenario.lock().unwrap()
    }

    /// A vertical bump (up, then down again) starting with the next frame.
    pub fn bump(&self) {
        self.bump.store(true, Ordering::Relaxed);
    }

    /// Holds the game's datagrams back for `duration` from the next frame on (the game goes
    /// on), then sends them back to back.
    pub fn stall(&self, duration: Duration) {
        self.stall_ms
            .store(duration.as_millis() as u64, Ordering::Relaxed);
    }

    /// The car of the last frame.
    pub fn last_car(&self) -> Option<CarFrame> {
        *self.last.lock().unwrap()
    }

    /// Stops the thread.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        self.stop();
    }
}
