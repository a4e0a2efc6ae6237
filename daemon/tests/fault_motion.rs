//! Fault matrix, motion platforms (docs/reliability.md), on the real `rigd` binary with
//! emulated SMC3 boards (tests/smc3_board) on ptys:
//! - one controller's port vanishes mid-run (the pty closes) and comes back: the other
//!   platform's board keeps receiving moving frames throughout, `STATUS=` marks the lost
//!   platform (`no controller link`), and on return it re-homes from the board's boot position
//!   within its speed and acceleration limits;
//! - a controller that stops reading (nobody drains the pty: its buffer fills within a second
//!   at 1 kHz of long frames): the RT loop keeps its rate (writes happen on the writer thread,
//!   which gives up after its 200 ms write timeout), the platform is marked, and once the
//!   controller reads again the link comes back and the platform rejoins;
//! - rigd stopped for 2 s (SIGSTOP, SIGCONT: a suspended VM, a debugger): on resume the loop
//!   sees the missed deadlines, the platform parks from where it was within its limits, and
//!   rejoins its cues after a second on time; `STATUS=` counts the fault hold.

#[path = "fault_support/seat.rs"]
mod fault_seat;
mod fault_support;
mod motion_pty;
mod smc3_board;
mod smc3_wire;
mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fault_seat::{assert_ramp, following_cues, park, plug_board, smc3_output};
use fault_support::{number_after, point_link};
use motion_pty::Pty;
use smc3_board::{max_step, seat_platform, BoardOnPty, BOOT_TARGET, RATE_HZ};
use support::*;

/// Frames that moved among the last `window` of `frames`.
fn moving(frames: &[[u16; 3]], window: usize) -> usize {
    let tail = &frames[frames.len().saturating_sub(window)..];
    tail.windows(2).filter(|w| w[0] != w[1]).count()
}

/// True once the rig parked, rose and has followed its cues for a while.
fn running(frames: &[[u16; 3]]) -> bool {
    following_cues(frames, 150)
}

struct Rig {
    dir: TempDir,
    child: KillOnDrop,
    notify: NotifySocket,
}

impl Rig {
    fn start(name: &str, config: impl Fn(&Path) -> String) -> Rig {
        let dir = TempDir::new(name);
        let path = dir.file("rigd.toml", &config(&dir.0));
        let notify = NotifySocket::bind(&dir.0);
        let child = spawn_rigd(&path, &notify, &[], &[]);
        notify.wait_for("READY=1", Duration::from_secs(30));
        Rig { dir, child, notify }
    }

    /// The next `STATUS=` with the loop's figures that satisfies `ok`, within `bound`.
    fn status_where(&self, bound: Duration, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + bound;
        let mut last = String::new();
        while Instant::now() < end {
            if let Some(m) = self.notify.recv(end - Instant::now()) {
                if let Some(status) = m.strip_prefix("STATUS=") {
                    if ok(status) {
                        return status.to_string();
                    }
                    last = status.to_string();
                }
            }
        }
        panic!("{what}: no such STATUS= within {bound:?}; the last: {last}");
    }

    fn drain(&self) {
        while self.notify.recv(Duration::from_millis(1)).is_some() {}
    }

    /// SIGTERM; the exit status and the log.
    fn terminate(mut self) -> (std::process::ExitStatus, String) {
        signal(&self.child, libc::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(15);
        let status = loop {
            self.notify.recv(Duration::from_millis(20));
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "rigd did not exit after SIGTERM");
        };
        let stderr = stderr_of(&mut self.child);
        drop(self.dir);
        (status, stderr)
    }
}

#[test]
fn a_lost_controller_parks_alone_is_marked_and_rehomes_on_return() {
    let links: std::cell::RefCell<Vec<PathBuf>> = Default::default();
    let rig = Rig::start("fault-motion-lost", |dir| {
        let seat = dir.join("ttySEAT");
        let shaker = dir.join("ttySHAKER");
        links.borrow_mut().extend([seat.clone(), shaker.clone()]);
        format!(
            "{TEST_CONFIG}{}{}",
            seat_platform("seat", &smc3_output(&seat)),
            seat_platform("shaker", &smc3_output(&shaker))
        )
    });
    // rigd retries opening every 500 ms: the boards may come after it started.
    let (seat_link, shaker_link) = (links.borrow()[0].clone(), links.borrow()[1].clone());
    let seat = plug_board(&seat_link);
    let shaker = plug_board(&shaker_link);
    seat.wait_for(Duration::from_secs(30), running);
    shaker.wait_for(Duration::from_secs(30), running);
    rig.drain();

    // Pull the seat's cable for 2 s.
    let lost_at = Instant::now();
    let seat_before = seat.unplug();
    let shaker_at_loss = shaker.frames().len();
    let marked = rig.status_where(Duration::from_secs(5), "seat marked", |s| {
        s.contains("motion seat: ") && s.contains("(no controller link)")
    });
    // The shaker is not held for the seat's link (a busy host's late loop may hold it for a
    // moment on its own, which STATUS= says as a loop fault).
    let shaker_state = marked
        .split(" | ")
        .find(|part| part.starts_with("motion shaker: "))
        .expect("the shaker in STATUS=");
    assert!(
        !shaker_state.contains("no controller link"),
        "the other platform keeps its link: {marked}"
    );
    std::thread::sleep(Duration::from_secs(2).saturating_sub(lost_at.elapsed()));
    let shaker_frames = shaker.frames();
    let during = &shaker_frames[shaker_at_loss..];
    assert!(
        during.len() as f64 >= RATE_HZ,
        "the shaker kept sending while the seat was lost (a busy host's fault hold may pause it for a moment): {} frames in {:?}",
        during.len(),
        lost_at.elapsed()
    );
    assert!(
        moving(during, during.len()) > 50,
        "and kept following its cues"
    );
    assert_eq!((seat_before.clipped, seat_before.errors), (0, 0));

    // Plug it back: a new board boots at centre; the seat re-homes from there with a ramp.
    let seat = plug_board(&seat_link);
    let again = seat.wait_for(Duration::from_secs(30), running);
    assert!(
        again[0][0].abs_diff(BOOT_TARGET) <= max_step(),
        "re-homed from the boot position: {:?}",
        again[0]
    );
    assert_ramp([BOOT_TARGET; 3], &again, "re-home");
    rig.status_where(Duration::from_secs(5), "seat back", |s| {
        s.contains("motion seat: active")
    });

    let (status, stderr) = rig.terminate();
    let (seat, shaker) = (seat.unplug(), shaker.unplug());
    assert!(status.success(), "{stderr}");
    for (name, board) in [("seat", &seat), ("shaker", &shaker)] {
        let last = board.frames.last().unwrap();
        assert_eq!(
            [last[0], last[1]],
            [park(), park()],
            "{name} parked at exit"
        );
        assert_eq!((board.clipped, board.errors), (0, 0), "{name}");
    }
    assert!(
        stderr.contains("motion controller write failed"),
        "the loss is logged:\n{stderr}"
    );
}

#[test]
fn a_controller_that_stops_reading_never_slows_the_loop_and_rejoins_when_it_reads_again() {
    // 200-byte decimal frames at 1 kHz: 200 kB/s fill a pty nobody drains within a second.
    let pad = "x".repeat(180);
    let pty = Pty::open();
    let slave = pty.slave_path.clone();
    let rig = Rig::start("fault-motion-stall", |dir| {
        let link = dir.join("ttyDEAF");
        point_link(&link, &slave);
        let output = format!(
            "template = \"S<Axis1a>,<Axis2a>;{pad}<10>\"\nbits = 10\nformat = \"decimal\"\nbaud = 4000000\nrate_hz = 1000.0\nserial_port = \"{}\"\npost_open_delay_ms = 0\n",
            link.display()
        );
        format!("{TEST_CONFIG}{}", seat_platform("seat", &output))
    });
    // Read for a moment (the link comes up), then stop reading.
    let read = pty.read_for(Duration::from_millis(1500));
    assert!(
        read.len() > 10_000,
        "frames flow first: {} bytes",
        read.len()
    );
    rig.drain();
    let marked = rig.status_where(Duration::from_secs(10), "seat marked", |s| {
        s.contains("(no controller link)")
    });
    let late_then = number_after(&marked, "late >1 ms").unwrap();
    // The loop keeps its rate while the writer waits on the full port.
    for _ in 0..3 {
        let status = rig.status_where(Duration::from_secs(3), "loop figures", |s| {
            number_after(s, "").is_some_and(|hz| hz > 100.0)
        });
        let hz = number_after(&status, "").unwrap();
        assert!(
            (hz - 1000.0).abs() < 50.0,
            "the loop keeps 1 kHz while the controller reads nothing: {status}"
        );
    }
    let status = rig.status_where(Duration::from_secs(3), "late count", |s| {
        s.contains("late >1 ms")
    });
    let late_now = number_after(&status, "late >1 ms").unwrap();

    // The controller reads again: the link comes back and the platform rejoins.
    let drained = pty.read_for(Duration::from_millis(200));
    assert!(!drained.is_empty());
    let reader = std::thread::spawn(move || pty.read_for(Duration::from_secs(6)));
    let back = rig.status_where(Duration::from_secs(6), "rejoined", |s| {
        s.contains("motion seat: active")
    });
    let after = reader.join().unwrap();
    assert!(
        after.len() > 50_000,
        "frames flow again: {} bytes",
        after.len()
    );
    let (status, stderr) = rig.terminate();
    assert!(status.success(), "{stderr}");
    assert!(
        late_now - late_then <= 200.0,
        "the stalled controller added no late loops of its own (busy host: {late_then} -> {late_now}): {back}"
    );
    assert!(
        stderr.contains("timed out") || stderr.contains("write failed"),
        "{stderr}"
    );
}

#[test]
fn a_two_second_stop_of_rigd_parks_on_resume_within_the_limits_and_rejoins() {
    let pty = Pty::open();
    let slave = pty.slave_path.clone();
    let board = BoardOnPty::start(pty);
    let rig = Rig::start("fault-motion-sigstop", |dir| {
        let link = dir.join("ttySEAT");
        point_link(&link, &slave);
        format!(
            "{TEST_CONFIG}{}",
            seat_platform("seat", &smc3_output(&link))
        )
    });
    board.wait_for(Duration::from_secs(30), running);
    rig.drain();

    let before = board.frames().len();
    signal(&rig.child, libc::SIGSTOP);
    std::thread::sleep(Duration::from_secs(2));
    let stopped = board.frames().len();
    signal(&rig.child, libc::SIGCONT);
    let parking = rig.status_where(Duration::from_secs(10), "fault hold", |s| {
        s.contains("motion seat: parking (loop fault")
    });
    let back = rig.status_where(Duration::from_secs(20), "rejoined", |s| {
        s.contains("motion seat: active, ")
    });
    std::thread::sleep(Duration::from_millis(500));
    let frames = board.frames();
    assert!(
        stopped - before <= 5,
        "nothing is written while rigd is stopped ({} frames)",
        stopped - before
    );
    let resumed = &frames[before..];
    let parked = resumed
        .iter()
        .position(|f| f[0] == park() && f[1] == park())
        .unwrap_or_else(|| panic!("parked after the resume: {parking}"));
    assert_ramp(frames[before - 1], resumed, "park and rejoin after SIGCONT");
    assert!(
        moving(&resumed[parked..], resumed.len()) > 20,
        "the seat follows its cues again: {back}"
    );
    let faults = number_after(&back, "hold(s): fault").unwrap();
    assert!(faults >= 1.0, "{back}");
    let dropped = number_after(&back, "dropped").unwrap();
    assert!(
        dropped >= 1500.0,
        "the stop is counted as dropped time: {back}"
    );
    let (status, stderr) = rig.terminate();
    let board = board.unplug();
    assert!(status.success(), "{stderr}");
    assert_eq!((board.clipped, board.errors), (0, 0));
}
