//! End to end: the real `rig-dash` binary in a detached tmux session of fixed size, fed by a real
//! UDP sender on loopback. `tmux capture-pane -p` must show the speed, gear and rpm that were
//! sent, follow them when they change, survive seconds of garbage and truncated packets at
//! 1 kHz while its garbage counter keeps moving, show NO DATA when valid data stops, and quit
//! on `q`.
//!
//! Exit paths, each in its own tmux server: when the terminal goes away (the tmux server is
//! killed, closing the pty) rig-dash exits within 2 s instead of spinning on the dead terminal
//! (it used to spin at ~40 % of a core inside crossterm's event reader and ignore SIGTERM); on
//! SIGTERM it exits within 1 s with status 0 (handled, not killed) and leaves the alternate
//! screen.
//!
//! Waits poll the screen with generous deadlines (a loaded 2-core machine); nothing here
//! measures speed. The exit bounds are behaviour (a stuck process never exits), not speed.

#[path = "../../tests/support/tmux.rs"]
mod tmux;

use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rig_protocols::{Format, Frame};
use tmux::{exited, Tmux, DEADLINE};

/// The pane's size, columns x rows.
const SIZE: (u16, u16) = (100, 30);

/// What the sender thread sends each millisecond: this frame as a native packet, or (`None`)
/// garbage and truncated packets.
type Feed = Option<Frame>;

/// A 1 kHz UDP sender on loopback.
struct Sender {
    feed: Arc<Mutex<Feed>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Sender {
    fn start(destination: SocketAddr, feed: Feed) -> Sender {
        let feed = Arc::new(Mutex::new(feed));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (feed, stop) = (Arc::clone(&feed), Arc::clone(&stop));
            std::thread::spawn(move || {
                let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
                let mut buffer = vec![0u8; rig_protocols::telemetry::MAX_PACKET_LEN];
                let start = Instant::now();
                let mut tick = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    let current = *feed.lock().unwrap();
                    match current {
                        Some(mut frame) => {
                            frame.sequence = tick;
                            let len = Format::Native.encode(&frame, &mut buffer).unwrap();
                            let _ = socket.send_to(&buffer[..len], destination);
                        }
                        None => {
                            // A truncated native packet, then bytes of no known format.
                            // Lengths another format has are skipped (a 232-byte cut is a
                            // Forza Sled by size: receivers choose layouts by size).
                            let len = Format::Native
                                .encode(&Frame::default(), &mut buffer)
                                .unwrap();
                            let cut = 1 + (tick as usize * 7) % (len - 1);
                            if rig_protocols::detect(&buffer[..cut]).is_none() {
                                let _ = socket.send_to(&buffer[..cut], destination);
                            }
                            let noise: Vec<u8> =
                                (0..(tick % 300)).map(|i| (i * 31 + tick) as u8).collect();
                            if rig_protocols::detect(&noise).is_none() {
                                let _ = socket.send_to(&noise, destination);
                            }
                        }
                    }
                    tick = tick.wrapping_add(1);
                    let next = start + Duration::from_millis(u64::from(tick));
                    std::thread::sleep(next.saturating_duration_since(Instant::now()));
                }
            })
        };
        Sender {
            feed,
            stop,
            thread: Some(thread),
        }
    }

    fn set(&self, feed: Feed) {
        *self.feed.lock().unwrap() = feed;
    }
}

impl Drop for Sender {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn car(speed_mps: f64, gear: i8, rpm: f64) -> Feed {
    let mut frame = Frame::default();
    frame.car.speed_mps = speed_mps;
    frame.car.drivetrain.gear = gear;
    frame.car.drivetrain.engine_rpm = rpm;
    frame.car.drivetrain.max_rpm = 7500.0;
    Some(frame)
}

/// The number after `label` on the screen (e.g. `garbage 123`).
fn counter(screen: &str, label: &str) -> Option<u64> {
    let start = screen.find(label)? + label.len();
    let digits: String = screen[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn free_udp_port() -> SocketAddr {
    // The OS picks a free port; it is released just before rig-dash binds it.
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

#[test]
fn dashboard_follows_a_live_udp_feed_and_survives_garbage() {
    let listen = free_udp_port();
    let command = format!(
        "exec {} --listen {listen} --fps 30",
        env!("CARGO_BIN_EXE_rig-dash")
    );
    let tmux = Tmux::start("rig-dash-e2e-feed", SIZE, &command);

    // Before any packet: NO DATA and where it listens.
    tmux.wait_for("the no-data screen", |s| {
        s.contains("NO DATA") && s.contains(&listen.to_string())
    });

    // 34 m/s = 122 km/h, third gear, 6800 rpm.
    let sender = Sender::start(listen, car(34.0, 3, 6800.0));
    let screen = tmux.wait_for("122 km/h in 3rd at 6800 rpm", |s| {
        s.contains(" 122 km/h") && s.contains("gear   3") && s.contains(" 6800 / 7500")
    });
    assert!(!screen.contains("NO DATA"), "{screen}");
    assert!(screen.contains("rigd native from 127.0.0.1:"), "{screen}");

    // The input changes: 50 m/s = 180 km/h, fifth, 7400 rpm (shift lights all on).
    sender.set(car(50.0, 5, 7400.0));
    tmux.wait_for("180 km/h in 5th at 7400 rpm", |s| {
        s.contains(" 180 km/h")
            && s.contains("gear   5")
            && s.contains(" 7400 / 7500")
            && s.contains("SHIFT")
    });

    // Garbage and truncated packets at 1 kHz for several seconds: the counter keeps moving.
    let valid_before = counter(&tmux.capture(), "pkts ").expect("packet counter on screen");
    sender.set(None);
    let mut last_garbage = 0;
    for second in 0..4 {
        std::thread::sleep(Duration::from_secs(1));
        let screen = tmux.capture();
        let garbage = counter(&screen, "garbage ").expect("garbage counter on screen");
        assert!(
            garbage > last_garbage,
            "garbage counter stuck at {garbage} after {second} s:\n{screen}"
        );
        last_garbage = garbage;
    }
    assert!(
        last_garbage > 1000,
        "about 2000 garbage datagrams per second were sent"
    );
    tmux.wait_for("NO DATA once only garbage arrives", |s| {
        s.contains("NO DATA")
    });
    assert!(tmux.session_alive(), "rig-dash died on garbage");

    // Valid data again: the screen recovers.
    sender.set(car(20.0, 2, 3000.0));
    let screen = tmux.wait_for("72 km/h in 2nd after the garbage", |s| {
        s.contains("  72 km/h") && s.contains("gear   2") && !s.contains("NO DATA")
    });
    assert!(
        counter(&screen, "pkts ").unwrap() > valid_before,
        "{screen}"
    );

    // `q` quits and the session (whose only process is rig-dash) ends.
    tmux.send_keys("q");
    let deadline = Instant::now() + DEADLINE;
    while tmux.session_alive() {
        assert!(Instant::now() < deadline, "rig-dash did not quit on q");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits up to `limit` for `pid` to exit; on timeout kills it (so no spinning process is
/// left behind) and fails naming `what`.
fn assert_exits_within(pid: i32, limit: Duration, what: &str) {
    let started = Instant::now();
    while !exited(pid) {
        if started.elapsed() > limit {
            // SAFETY: kill(2) with a pid this test started; no memory is involved.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("rig-dash (pid {pid}) still running {limit:?} after {what}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn rig_dash_command() -> String {
    format!(
        "exec {} --listen {} --fps 30",
        env!("CARGO_BIN_EXE_rig-dash"),
        free_udp_port()
    )
}

#[test]
fn exits_when_its_terminal_goes_away() {
    // The kernel sends SIGHUP (rig-dash leads the pane's session) and the tty hangs up.
    let tmux = Tmux::start("rig-dash-e2e-hangup", SIZE, &rig_dash_command());
    tmux.wait_for("the dashboard to be up", |s| s.contains("NO DATA"));
    let pid = tmux.pane_pid();
    tmux.kill_server();
    assert_exits_within(pid, Duration::from_secs(2), "its terminal went away");
}

#[test]
fn exits_cleanly_when_its_terminal_goes_away_even_with_sighup_ignored() {
    // As under nohup: no SIGHUP arrives, so only the hung-up terminal can end it. The shell
    // ignores the hang-up too and records rig-dash's exit status in a file.
    let status_file = std::env::temp_dir().join(format!("rig-dash-nohup-{}", std::process::id()));
    let _ = std::fs::remove_file(&status_file);
    let command = format!(
        "trap '' HUP; {}; echo $? > {}",
        rig_dash_command().trim_start_matches("exec "),
        status_file.display()
    );
    let tmux = Tmux::start("rig-dash-e2e-nohup", SIZE, &command);
    tmux.wait_for("the dashboard to be up", |s| s.contains("NO DATA"));
    let pid = child_of(tmux.pane_pid());
    tmux.kill_server();
    assert_exits_within(pid, Duration::from_secs(2), "its terminal went away");
    let deadline = Instant::now() + DEADLINE;
    let recorded = loop {
        match std::fs::read_to_string(&status_file) {
            Ok(text) if text.ends_with('\n') => break text,
            _ => assert!(
                Instant::now() < deadline,
                "the shell recorded no exit status"
            ),
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = std::fs::remove_file(&status_file);
    // 1: the dashboard reported the lost terminal. It used to die with SIGABRT (134): ratatui
    // printed a restore failure to the dead stderr, which panicked twice.
    assert_eq!(recorded.trim(), "1");
}

/// The first child of process `parent` (rig-dash under the pane's shell).
fn child_of(parent: i32) -> i32 {
    *tmux::children(parent)
        .first()
        .expect("the shell has started rig-dash")
}

#[test]
fn sigterm_ends_it_cleanly_and_restores_the_screen() {
    // A shell runs rig-dash and then prints its exit status on the restored screen.
    let command = format!(
        "{}; echo \"rig-dash exit status $?\"; sleep 60",
        rig_dash_command().trim_start_matches("exec ")
    );
    let tmux = Tmux::start("rig-dash-e2e-sigterm", SIZE, &command);
    tmux.wait_for("the dashboard to be up", |s| s.contains("NO DATA"));
    let pid = child_of(tmux.pane_pid());
    // SAFETY: kill(2) on the pid of the process this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    assert_exits_within(pid, Duration::from_secs(1), "SIGTERM");
    // 0: handled and ended cleanly; a fatal SIGTERM would read 143.
    let screen = tmux.wait_for("the shell to print rig-dash's exit status", |s| {
        s.contains("rig-dash exit status")
    });
    assert!(screen.contains("rig-dash exit status 0"), "{screen}");
    assert!(
        !screen.contains("NO DATA"),
        "the alternate screen was left on exit:\n{screen}"
    );
}
