//! Shared parts of the fault matrix tests (`daemon/tests/fault_*.rs`, listed with their bounds
//! in docs/reliability.md): waiting for a condition with a bound that names what was awaited,
//! a stable device path that can be pointed at a new pty (a cable pulled and plugged back), a
//! loopback UDP listener that keeps every arrival time (gaps show an output glitch), and
//! reading numbers out of rigd's `STATUS=` text. The emulated SMC3 seat both motion fault
//! tests run rigd with is in `seat.rs`, which only they compile in (it needs the board's modules).

#![allow(dead_code)] // each test binary uses its own subset

use std::net::UdpSocket;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Polls `probe` every 5 ms until it gives a value; fails naming `what` after `bound`.
/// Returns the value and how long it took.
pub fn within<T>(
    bound: Duration,
    what: &str,
    mut probe: impl FnMut() -> Option<T>,
) -> (T, Duration) {
    let start = Instant::now();
    loop {
        if let Some(value) = probe() {
            return (value, start.elapsed());
        }
        assert!(start.elapsed() < bound, "{what}: not within {bound:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Points the stable `link` at `target` atomically (a device plugged in at a fixed path).
pub fn point_link(link: &Path, target: &Path) {
    let fresh = link.with_extension("new");
    let _ = std::fs::remove_file(&fresh);
    std::os::unix::fs::symlink(target, &fresh).unwrap();
    std::fs::rename(&fresh, link).unwrap();
}

/// A datagram as it arrived: when, and its bytes.
pub type Arrival = (Instant, Vec<u8>);

/// A UDP socket on loopback that records when each datagram arrived and its bytes.
pub struct Listener {
    pub port: u16,
    stop: Arc<AtomicBool>,
    got: Arc<Mutex<Vec<Arrival>>>,
    thread: Option<JoinHandle<()>>,
}

impl Listener {
    /// Binds 127.0.0.1:`port` (0: any free port).
    pub fn bind(port: u16) -> Listener {
        let socket = UdpSocket::bind(("127.0.0.1", port)).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(20)))
            .unwrap();
        let port = socket.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let got = Arc::new(Mutex::new(Vec::new()));
        let thread = {
            let (stop, got) = (Arc::clone(&stop), Arc::clone(&got));
            std::thread::spawn(move || {
                let mut buf = [0u8; 2048];
                while !stop.load(Ordering::Relaxed) {
                    if let Ok(n) = socket.recv(&mut buf) {
                        got.lock()
                            .unwrap()
                            .push((Instant::now(), buf[..n].to_vec()));
                    }
                }
            })
        };
        Listener {
            port,
            stop,
            got,
            thread: Some(thread),
        }
    }

    /// Every datagram so far, with its arrival time.
    pub fn arrivals(&self) -> Vec<Arrival> {
        self.got.lock().unwrap().clone()
    }

    /// How many datagrams arrived so far.
    pub fn count(&self) -> usize {
        self.got.lock().unwrap().len()
    }

    /// Closes the socket (the port refuses from then on); returns what arrived.
    pub fn close(mut self) -> Vec<Arrival> {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.join().unwrap();
        }
        self.arrivals()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The longest gap between consecutive arrivals (zero for fewer than two).
pub fn longest_gap(arrivals: &[Arrival]) -> Duration {
    arrivals
        .windows(2)
        .map(|w| w[1].0 - w[0].0)
        .max()
        .unwrap_or_default()
}

/// The number written right after `label` in `text` (e.g. `late >1 ms 3`), if any.
pub fn number_after(text: &str, label: &str) -> Option<f64> {
    let rest = &text[text.find(label)? + label.len()..];
    let digits: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    digits.parse().ok()
}
