//! Fault matrix, a panic inside a stage of the running binary (docs/reliability.md): the real
//! `rigd run` with an emulated SMC3 seat on a pty and a native telemetry listener on loopback,
//! and `--test-panic-stage NAME` planting a panic in the named stage's `on_tick` on the RT
//! thread once the seat follows its cues. Each test asserts rigd's real panic path:
//! - every stage goes to its safe state (the panicking one too): the seat parks within its
//!   speed and acceleration limits and ends parked; telemetry stops with the loop (nothing
//!   arrives after the exit);
//! - the process exits 1 (the documented code for a fault; 2 is kept for bad configuration, and
//!   the unit's `RestartPreventExitStatus=2` restarts on 1 only);
//! - what systemd's `Restart=on-failure` then does, done by the test (no systemd runs in the
//!   test machines): the same command on the same rig comes back READY, re-homes the seat
//!   (whose board reset when the port opened) within its limits, and telemetry flows again.
//!
//! The FFB stage needs a wheel, which only the vmrig guest has: its panic is the vmrig check
//! `pid-evdev-panic` (tests/vmrig/pid_checks.rs). The rumble stage needs a gamepad, which
//! neither has; its safe stop on a panic is the loop's, the path these tests take
//! (`runtime_safety.rs` shows it in-process for any stage).

#[path = "fault_support/seat.rs"]
mod fault_seat;
mod fault_support;
mod motion_pty;
mod smc3_board;
mod smc3_wire;
mod support;

use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use fault_seat::{assert_within_limits, following_cues, park, plug_board, smc3_output};
use fault_support::Listener;
use smc3_board::{max_step, seat_platform, BoardOnPty, BOOT_TARGET};
use support::*;

/// The planted panic comes this long after the loop started: the seat has risen and follows
/// its cues by then (2-3 s on a busy host).
const PANIC_AFTER_MS: u64 = 8000;

/// True once the seat parked, rose and has followed its cues for a while.
fn running(frames: &[[u16; 3]]) -> bool {
    following_cues(frames, 100)
}

/// The rig one test runs rigd on: the seat's board behind a pty at a stable path, the
/// telemetry listener and the config naming both. Kept across a restart, as on a real rig.
struct Rig {
    dir: TempDir,
    link: PathBuf,
    board: BoardOnPty,
    listener: Listener,
    config: PathBuf,
}

impl Rig {
    fn new(name: &str) -> Rig {
        let dir = TempDir::new(name);
        let link = dir.0.join("ttySEAT");
        let board = plug_board(&link);
        let listener = Listener::bind(0);
        let config = dir.file("rigd.toml", &config(&link, listener.port));
        Rig {
            dir,
            link,
            board,
            listener,
            config,
        }
    }

    /// Starts `rigd run` with `args` and waits for READY (a notify socket per run).
    fn start(&self, run: &str, args: &[&str]) -> KillOnDrop {
        let notify_dir = self.dir.0.join(run);
        std::fs::create_dir_all(&notify_dir).unwrap();
        let notify = NotifySocket::bind(&notify_dir);
        let child = spawn_rigd(&self.config, &notify, args, &[]);
        notify.wait_for("READY=1", Duration::from_secs(30));
        child
    }
}

/// What one run of `rigd run` with a planted panic left behind.
struct PanicRun {
    status: ExitStatus,
    stderr: String,
    /// Time from the seat following its cues to the process's exit.
    exited_after: Duration,
    /// The seat's frames from the moment it followed its cues to the exit (and 300 ms after).
    seat: Vec<[u16; 3]>,
    /// Native packets before the exit, and after it.
    packets: usize,
    packets_after_exit: usize,
}

/// The config: the test seat on `link` and native telemetry at 100 Hz to `port`.
fn config(link: &Path, port: u16) -> String {
    format!(
        "{TEST_CONFIG}\n[[telemetry]]\nformat = \"native\"\nrate_hz = 100\n\
         destinations = [\"127.0.0.1:{port}\"]\n{}",
        seat_platform("seat", &smc3_output(link))
    )
}

/// Runs rigd on `rig` with `stage` panicking after [`PANIC_AFTER_MS`]; watches it to its exit.
fn run_with_panic_in(rig: &Rig, stage: &str) -> PanicRun {
    let after = PANIC_AFTER_MS.to_string();
    let mut child = rig.start(
        "panic",
        &["--test-panic-stage", stage, "--test-panic-after-ms", &after],
    );
    let risen = rig.board.wait_for(Duration::from_secs(30), running);
    let followed_at = Instant::now();
    let status = wait_exit(&mut child, Duration::from_secs(PANIC_AFTER_MS / 1000 + 30));
    let exited_after = followed_at.elapsed();
    let exited_at = Instant::now();
    std::thread::sleep(Duration::from_millis(300));
    let stderr = stderr_of(&mut child);
    let arrivals = rig.listener.arrivals();
    let after_exit = arrivals.iter().filter(|(at, _)| *at > exited_at).count();
    PanicRun {
        status,
        stderr,
        exited_after,
        seat: rig.board.frames()[risen.len() - 1..].to_vec(),
        packets: arrivals.len() - after_exit,
        packets_after_exit: after_exit,
    }
}

/// The common assertions: exit 1 with the panic named and the fault logged, the seat parked
/// within its limits, telemetry stopped with the process.
fn assert_panic_path(run: &PanicRun, stage: &str) {
    assert_eq!(run.status.code(), Some(1), "exit code 1:\n{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("planted panic in the {stage} stage")),
        "the panic is printed:\n{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("the physics loop panicked; every output was safe-stopped"),
        "the fault is logged with what rigd did:\n{}",
        run.stderr
    );
    assert!(
        run.exited_after < Duration::from_millis(PANIC_AFTER_MS + 15_000),
        "exited {:?} after the seat followed its cues",
        run.exited_after
    );
    assert!(
        run.packets > 100,
        "telemetry flowed first: {} packets",
        run.packets
    );
    assert_eq!(
        run.packets_after_exit, 0,
        "telemetry stops with the process"
    );
    let last = run.seat.last().unwrap();
    assert_eq!([last[0], last[1]], [park(), park()], "the seat ends parked");
    assert!(
        run.seat.windows(2).filter(|w| w[0] != w[1]).count() > 50,
        "the seat moved before the panic"
    );
    assert_within_limits(&run.seat, "following, then parking after the panic");
}

/// What `Restart=on-failure` does next (after `RestartSec=1s`): the same command on the same
/// rig. Opening the port resets an SMC3's Uno, which boots with its target at centre, so the
/// board behind the link boots anew (as in `fault_motion.rs`'s re-plug). rigd must come back
/// READY, re-home the seat from the boot position within its limits and follow its cues, and
/// send telemetry again; SIGTERM then ends it with 0 and the seat parked.
fn assert_restarts(mut rig: Rig) {
    std::thread::sleep(Duration::from_secs(1));
    let board = plug_board(&rig.link);
    drop(std::mem::replace(&mut rig.board, board).unplug());
    let packets_before = rig.listener.count();
    let mut child = rig.start("restart", &[]);
    let frames = rig.board.wait_for(Duration::from_secs(30), running);
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(15));
    assert!(status.success(), "{}", stderr_of(&mut child));
    assert!(
        frames[0][0].abs_diff(BOOT_TARGET) <= max_step(),
        "re-homed from the boot position: {:?}",
        frames[0]
    );
    let mut from_boot = vec![[BOOT_TARGET; 3]];
    from_boot.extend_from_slice(&frames);
    assert_within_limits(&from_boot, "re-homing and rising after the restart");
    let last = *rig.board.frames().last().unwrap();
    assert_eq!([last[0], last[1]], [park(), park()], "parked at exit");
    assert!(
        rig.listener.count() > packets_before + 50,
        "telemetry flows again after the restart"
    );
}

#[test]
fn a_panic_in_the_telemetry_stage_parks_the_seat_exits_1_and_a_restart_rehomes_it() {
    let rig = Rig::new("fault-panic-telemetry");
    let run = run_with_panic_in(&rig, "telemetry");
    assert_panic_path(&run, "telemetry");
    assert_restarts(rig);
}

#[test]
fn a_panic_in_the_motion_stage_parks_its_own_seat_stops_telemetry_and_exits_1() {
    let rig = Rig::new("fault-panic-motion");
    let run = run_with_panic_in(&rig, "motion");
    assert_panic_path(&run, "motion");
}

#[test]
fn a_stage_the_configuration_does_not_run_is_refused_with_the_names_it_runs() {
    let dir = TempDir::new("fault-panic-unknown");
    let path = dir.file("rigd.toml", TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&path, &notify, &["--test-panic-stage", "ffb"], &[]);
    let status = wait_exit(&mut child, Duration::from_secs(30));
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("this configuration runs no `ffb` stage"),
        "{stderr}"
    );
}
