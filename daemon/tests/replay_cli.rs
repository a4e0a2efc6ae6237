//! End to end on the real binary: `rigd run --record` (headless, the robot driving, native
//! telemetry to a loopback receiver) for 3.5 seconds, stopped with SIGTERM, then
//! `rigd replay` of that file verifies every checkpoint and sends the replayed frames to the
//! configured telemetry output; a damaged file exits 2 naming the file and the fix; a file
//! from another build warns and still verifies; a diverging replay exits 1 naming the steps.

mod support;

use std::net::UdpSocket;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rig_protocols::telemetry::{decode_any, Decoded};
use rigd::replay::{format, player};
use support::*;

fn replay(
    config: &std::path::Path,
    file: &std::path::Path,
    extra: &[&str],
) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_rigd"))
        .args([
            "--config",
            config.to_str().unwrap(),
            "replay",
            "--no-display",
        ])
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_session_recorded_by_rigd_run_replays_verified_and_feeds_telemetry() {
    let dir = TempDir::new("replay-cli");
    let receiver = UdpSocket::bind("127.0.0.1:0").unwrap();
    receiver
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{TEST_CONFIG}\n[[telemetry]]\nformat = \"native\"\nrate_hz = 100\n\
             destinations = [\"{}\"]\n",
            receiver.local_addr().unwrap()
        ),
    );
    let file = dir.0.join("session.rigrec");
    let notify = NotifySocket::bind(&dir.0);
    let mut rigd = spawn_rigd(&config, &notify, &["--record", file.to_str().unwrap()], &[]);
    notify.wait_for("READY=1", Duration::from_secs(20));
    std::thread::sleep(Duration::from_millis(3_500));
    signal(&rigd, libc::SIGTERM);
    let status = wait_exit(&mut rigd, Duration::from_secs(10));
    let stderr = stderr_of(&mut rigd);
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("written:"), "{stderr}");

    let recording = player::read(&file).unwrap();
    // About 3.5 s at 1 kHz, nothing lost (a loaded test machine may drop some loop time
    // beyond the catch-up steps, so not exactly 3500), a checkpoint per 1000 steps.
    assert!(recording.steps >= 3_000, "{} steps", recording.steps);
    assert_eq!(recording.lost_steps, 0);
    assert_eq!(recording.checkpoints.len() as u64, recording.steps / 1000);
    // Drain what the recording session sent before replaying.
    let mut buf = [0u8; 2048];
    while receiver.recv(&mut buf).is_ok() {}

    // Collect the replay's packets while it runs (the socket buffer holds only ~100).
    let stop = Arc::new(AtomicBool::new(false));
    let collector = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut times = Vec::new();
            let mut buf = [0u8; 2048];
            while !stop.load(Ordering::Relaxed) {
                if let Ok(len) = receiver.recv(&mut buf) {
                    if let Ok(Decoded::Native(packet)) = decode_any(&buf[..len]) {
                        times.push(packet.header.time_s.get());
                    }
                }
            }
            times
        })
    };
    let started = Instant::now();
    let (code, stdout, stderr) = replay(&config, &file, &["--realtime"]);
    let elapsed = started.elapsed();
    std::thread::sleep(Duration::from_millis(300));
    stop.store(true, Ordering::Relaxed);
    let times = collector.join().unwrap();
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!(
            "every frame matches the recording ({} checkpoints verified)",
            recording.checkpoints.len()
        )),
        "{stdout}"
    );
    // Real time: the replay took at least as long as the recording.
    let expected = Duration::from_millis(recording.steps);
    assert!(elapsed >= expected, "{elapsed:?} for {expected:?}");
    // The replayed frames reached the telemetry output at its 100 Hz: native packets whose
    // simulated time runs up to the recording's end.
    let end_s = recording.steps as f64 / 1000.0;
    assert!(
        times.len() as f64 >= end_s * 100.0 * 0.9,
        "{} packets in {end_s} s",
        times.len()
    );
    assert!(times.windows(2).all(|w| w[1] > w[0]), "{times:?}");
    let last = times[times.len() - 1];
    assert!(
        last > end_s - 0.5 && last <= end_s,
        "last {last} s of {end_s} s"
    );

    // Another build: a warning, still verified.
    let mut other = recording.clone();
    other.header.build = "feedface".into();
    let other_file = dir.0.join("other.rigrec");
    std::fs::write(&other_file, format::encode(&other)).unwrap();
    let (code, stdout, stderr) = replay(&config, &other_file, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stderr.contains("build feedface, replayed by rigd"),
        "{stderr}"
    );
    assert!(stdout.contains("every frame matches"), "{stdout}");

    // A diverging replay (a checkpoint that no longer matches): exit 1, the steps named.
    let mut diverging = recording.clone();
    diverging.checkpoints[1].1 ^= 1;
    let diverging_file = dir.0.join("diverging.rigrec");
    std::fs::write(&diverging_file, format::encode(&diverging)).unwrap();
    let (code, stdout, stderr) = replay(&config, &diverging_file, &[]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("the frames DIFFER"), "{stdout}");
    assert!(
        stderr.contains("diverged from the recording: the frames of steps 1001..=2000 differ"),
        "{stderr}"
    );

    // A damaged file: exit 2, the file, the problem and the fix.
    let mut bytes = std::fs::read(&file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    let damaged = dir.0.join("damaged.rigrec");
    std::fs::write(&damaged, &bytes).unwrap();
    let (code, _, stderr) = replay(&config, &damaged, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!("{}: checksum mismatch", damaged.display()))
            && stderr.contains("fix:"),
        "{stderr}"
    );
}
