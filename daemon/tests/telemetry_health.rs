//! Per-destination telemetry counters in the running daemon's health, on real loopback
//! sockets: a destination whose port is closed (the connected UDP socket gets ECONNREFUSED
//! from the kernel's ICMP port-unreachable) shows its error counter growing, by kind, in
//! systemd's `STATUS=` second after second while the loop keeps ticking at its rate, a
//! listening destination keeps receiving, and the log gets one warning and one counters line
//! over several seconds of errors at 500 packets per second (rate-limited, no flood).

mod support;

use std::net::UdpSocket;
use std::time::Duration;

use support::*;

/// The errors of `port`'s destination and the loop's tick rate, from one `STATUS=` message.
fn parse_status(message: &str, port: u16) -> Option<(u64, f64)> {
    let status = message.lines().find_map(|l| l.strip_prefix("STATUS="))?;
    let rate: f64 = status.split(" Hz").next()?.trim().parse().ok()?;
    let needle = format!("to 127.0.0.1:{port}: sent ");
    let after = &status[status.find(&needle)? + needle.len()..];
    let errors = after.split(", errors ").nth(1)?;
    let errors: u64 = errors
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    Some((errors, rate))
}

#[test]
fn a_closed_port_grows_its_error_counter_in_status_while_the_loop_ticks_and_warns_once() {
    let dir = TempDir::new("telemetry-health");
    let listening = UdpSocket::bind("127.0.0.1:0").unwrap();
    listening
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let closed_port = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port(); // closed again here: nothing listens on it any more
    let config = dir.file(
        "rigd.toml",
        &format!(
            "{TEST_CONFIG}\n[[telemetry]]\nformat = \"outgauge\"\nrate_hz = 500\n\
             destinations = [\"127.0.0.1:{closed_port}\"]\n\n\
             [[telemetry]]\nformat = \"native\"\nrate_hz = 60\ndestinations = [\"{}\"]\n",
            listening.local_addr().unwrap()
        ),
    );
    let notify = NotifySocket::bind(&dir.0);
    let mut child = spawn_rigd(&config, &notify, &[], &[]);
    notify.wait_for("READY=1", Duration::from_secs(20));
    let messages = notify.collect(Duration::from_millis(4500));
    let mut buf = [0u8; 2048];
    let received = listening.recv(&mut buf).is_ok();
    signal(&child, libc::SIGTERM);
    let status = wait_exit(&mut child, Duration::from_secs(5));
    let stderr = stderr_of(&mut child);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(received, "the listening destination still receives");

    let readings: Vec<(u64, f64)> = messages
        .iter()
        .filter_map(|(_, m)| parse_status(m, closed_port))
        .collect();
    assert!(
        readings.len() >= 3,
        "one STATUS= per second with the destination's counters: {messages:?}"
    );
    for pair in readings.windows(2) {
        assert!(
            pair[1].0 > pair[0].0,
            "the error counter grows every second: {readings:?}"
        );
    }
    // 500 packets/s to a closed port: at least a quarter fail (the kernel reports the ICMP
    // error on the next send, so about every other packet is refused).
    let (last_errors, _) = readings[readings.len() - 1];
    let (first_errors, _) = readings[0];
    let per_second = (last_errors - first_errors) as f64 / (readings.len() - 1) as f64;
    assert!(
        per_second > 125.0,
        "{per_second:.0} errors/s counted: {readings:?}"
    );
    for (_, rate) in &readings[1..] {
        assert!(
            *rate > 800.0,
            "the 1000 Hz loop keeps ticking while sends fail: {readings:?}"
        );
    }
    let status_text = &messages
        .iter()
        .rev()
        .find(|(_, m)| parse_status(m, closed_port).is_some())
        .unwrap()
        .1;
    assert!(
        status_text.contains("errors 0") && status_text.contains("(refused "),
        "the listening destination has no errors, the closed one counts them as refused: \
         {status_text}"
    );

    // Thousands of failed sends in 4.5 s: one sender warning, one counters line in the log.
    let destination = format!("127.0.0.1:{closed_port}");
    let warnings = stderr
        .lines()
        .filter(|l| l.contains("send error(s)") && l.contains(&destination))
        .count();
    let counters = stderr
        .lines()
        .filter(|l| l.contains("telemetry counters:"))
        .collect::<Vec<_>>();
    assert_eq!(warnings, 1, "rate-limited sender warning:\n{stderr}");
    assert_eq!(counters.len(), 1, "rate-limited counters line:\n{stderr}");
    assert!(
        counters[0].contains(&format!("LFS OutGauge to {destination}: sent ")),
        "{counters:?}"
    );
}
