//! Fault matrix, the daemon process (docs/reliability.md), on the real `rigd` binary with its
//! native telemetry on a loopback listener (every packet carries the simulation time, so a
//! glitch shows as a gap or a step back):
//! - config reloads: a file with an error and a file caught half written are refused with
//!   their line, the running configuration is kept (the stream goes on at its old rate without
//!   a gap over 100 ms), and a valid change then applies (the new rate), the world going on
//!   where it was (its simulation time never goes back) after one bounded pause;
//! - reloads leave nothing behind: threads and open file descriptors are the same after three
//!   reloads as at start (gilrs, the gamepad library, used to leave two threads per reload);
//! - the log's disk full: stderr is /dev/full (every log write fails with ENOSPC); rigd starts,
//!   ticks at its rate, sends its telemetry and stops cleanly (exit 0) on SIGTERM.

mod fault_support;
mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fault_support::{longest_gap, number_after, Arrival, Listener};
use rig_protocols::telemetry::native;
use support::*;

fn config(port: u16, rate_hz: u32) -> String {
    format!(
        "{TEST_CONFIG}\n[[telemetry]]\nformat = \"native\"\nrate_hz = {rate_hz}\ndestinations = [\"127.0.0.1:{port}\"]\n"
    )
}

/// The simulation time of each packet's frame.
fn sim_times(arrivals: &[Arrival]) -> Vec<f64> {
    arrivals
        .iter()
        .map(|(_, bytes)| {
            let packet = native::decode(bytes).expect("native packet");
            packet.to_frame().expect("a frame").car.time_s
        })
        .collect()
}

/// Packets per second among `arrivals` between `from` and `to`.
fn rate_between(arrivals: &[Arrival], from: Instant, to: Instant) -> f64 {
    let n = arrivals
        .iter()
        .filter(|(t, _)| *t >= from && *t < to)
        .count();
    n as f64 / (to - from).as_secs_f64()
}

#[test]
fn reloads_keep_the_running_config_on_a_bad_or_half_written_file_and_apply_a_valid_one() {
    let dir = TempDir::new("fault-reload");
    let listener = Listener::bind(0);
    let good = config(listener.port, 100);
    let path = dir.file("rigd.toml", &good);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&path, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(30));
    std::thread::sleep(Duration::from_millis(1500));

    // A mistake, then the new file caught half written (cut inside its [[telemetry]] table).
    let refused_from = Instant::now();
    std::fs::write(&path, good.replace("rate_hz = 100", "rate_hz = \"fast\"")).unwrap();
    signal(&child, libc::SIGHUP);
    std::thread::sleep(Duration::from_millis(1000));
    let changed = config(listener.port, 250);
    let cut = changed.find("destinations = [\"127.0.0.1:").unwrap() + 20;
    std::fs::write(&path, &changed[..cut]).unwrap();
    signal(&child, libc::SIGHUP);
    std::thread::sleep(Duration::from_millis(1500));
    let refused_to = Instant::now();
    let during_refused: Vec<_> = listener
        .arrivals()
        .into_iter()
        .filter(|(t, _)| *t >= refused_from && *t < refused_to)
        .collect();

    // The valid change.
    std::fs::write(&path, &changed).unwrap();
    signal(&child, libc::SIGHUP);
    let reloading = notify.wait_for("RELOADING=1", Duration::from_secs(10));
    let ready = notify.wait_for("READY=1", Duration::from_secs(10));
    let applied = ready.last().unwrap().0;
    std::thread::sleep(Duration::from_millis(2000));
    let measured_to = Instant::now();

    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(10));
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");
    let arrivals = listener.close();

    // Old configuration kept through both refusals: its rate, no gap.
    let kept_rate = rate_between(&arrivals, refused_from, refused_to);
    assert!(
        (kept_rate - 100.0).abs() < 10.0,
        "the old 100 Hz stream went on during the refused reloads: {kept_rate:.1} Hz"
    );
    let gap = longest_gap(&during_refused);
    assert!(
        gap < Duration::from_millis(100),
        "no pause for a refused reload: longest gap {gap:?}"
    );
    assert!(
        stderr.contains("telemetry[0].rate_hz"),
        "the mistake is named with its place:\n{stderr}"
    );
    let kept = stderr.matches("keeping the running configuration").count();
    assert_eq!(
        kept, 2,
        "both refusals keep the running configuration:\n{stderr}"
    );

    // The valid change: one reload, then the new rate.
    assert!(
        reloading.iter().all(|(_, m)| !m.contains("STOPPING")),
        "{reloading:?}"
    );
    let new_rate = rate_between(&arrivals, applied + Duration::from_millis(500), measured_to);
    assert!(
        (new_rate - 250.0).abs() < 25.0,
        "the new rate applies after the reload: {new_rate:.1} Hz"
    );
    let gap = longest_gap(&arrivals);
    assert!(
        gap < Duration::from_millis(1500),
        "the valid reload pauses the stream once, briefly: longest gap {gap:?}"
    );
    // The world goes on where it was (the restarted loop counts its ticks from 0 again, the
    // simulation time goes on): no frame from before, no jump.
    let times = sim_times(&arrivals);
    let back: Vec<_> = times.windows(2).filter(|w| w[1] < w[0]).collect();
    assert!(back.is_empty(), "simulation time never goes back: {back:?}");
    let jump = times.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
    assert!(
        jump < 1.5,
        "and jumps no further than the reload's pause: {jump} s"
    );
    assert!(stderr.contains("configuration reloaded"), "{stderr}");
}

#[test]
fn a_full_log_disk_does_not_stop_the_loop_or_the_clean_exit() {
    let dir = TempDir::new("fault-log-full");
    let listener = Listener::bind(0);
    let path = dir.file("rigd.toml", &config(listener.port, 100));
    let notify = NotifySocket::bind(&dir.0);
    let dev_full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let mut child = KillOnDrop::spawn(
        Command::new(env!("CARGO_BIN_EXE_rigd"))
            .args(["--config", path.to_str().unwrap(), "run", "--no-display"])
            // Every log line is at least one failed write; debug makes many of them.
            .env("RUST_LOG", "debug")
            .env("NOTIFY_SOCKET", &notify.path)
            .env_remove("WATCHDOG_USEC")
            .env_remove("JOURNAL_STREAM")
            .stdin(Stdio::null())
            .stdout(Stdio::from(dev_full.try_clone().unwrap()))
            .stderr(Stdio::from(dev_full)),
    );
    notify.wait_for("READY=1", Duration::from_secs(30));
    let statuses = notify.collect(Duration::from_millis(3000));
    let rates: Vec<f64> = statuses
        .iter()
        .filter_map(|(_, m)| m.strip_prefix("STATUS="))
        .filter_map(|m| number_after(m, ""))
        .collect();
    assert!(
        rates.iter().any(|hz| (hz - 1000.0).abs() < 50.0),
        "ticking at 1 kHz while every log write fails: {statuses:?}"
    );
    let sent = listener.count();
    assert!(
        sent >= 250,
        "telemetry goes on: {sent} packets in ~3 s at 100 Hz"
    );

    let asked = Instant::now();
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    assert_eq!(
        status.code(),
        Some(0),
        "a clean exit, {:?} after SIGTERM",
        asked.elapsed()
    );
    assert!(
        asked.elapsed() < Duration::from_millis(500),
        "stops as fast as with a working log: {:?}",
        asked.elapsed()
    );
}

/// The names of `pid`'s threads (sorted) and its count of open file descriptors.
fn threads_and_fds(pid: u32) -> (Vec<String>, usize) {
    let mut threads: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .map(|name| name.trim().to_string())
        .collect();
    threads.sort();
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .count();
    (threads, fds)
}

#[test]
fn reloads_leave_no_thread_or_file_descriptor_behind() {
    let dir = TempDir::new("fault-reload-leak");
    // The default gamepad support on: gilrs starts threads of its own.
    let path = dir.file("rigd.toml", TEST_CONFIG);
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&path, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(30));
    // Threads the session starts just after READY (the gamepad context's) count as the start:
    // the baseline is the first sample equal to the one 500 ms before it.
    let mut before = threads_and_fds(child.id());
    let settle = Instant::now() + Duration::from_secs(5);
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let again = threads_and_fds(child.id());
        if again == before || Instant::now() > settle {
            break;
        }
        before = again;
    }
    for round in 0..3 {
        signal(&child, libc::SIGHUP);
        notify.wait_for("RELOADING=1", Duration::from_secs(10));
        notify.wait_for("READY=1", Duration::from_secs(10));
        // The old session's threads may take a moment to end on a busy host.
        let end = Instant::now() + Duration::from_secs(5);
        let mut now = threads_and_fds(child.id());
        while now != before && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(50));
            now = threads_and_fds(child.id());
        }
        assert_eq!(
            now, before,
            "(threads, fds) after reload {round}, as at start"
        );
    }
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(0), "{}", stderr_of(&mut child));
}
