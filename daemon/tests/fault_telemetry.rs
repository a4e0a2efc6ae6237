//! Fault matrix, UDP telemetry (docs/reliability.md), on real loopback sockets with the real
//! sender thread fed at 1 kHz as the RT loop feeds it:
//! - a destination that goes away (its listener closes: the kernel refuses) and comes back on
//!   the same port: the refusals are counted for that destination with their kind, another
//!   destination loses nothing, the returned listener gets every packet due after its return
//!   (but the one that may meet a refusal the kernel still held), packets are lost only while
//!   it is away, and handing frames to the sender never waits
//!   (the RT side's `on_tick` p99 stays under 1 ms through the fault);
//! - a destination given by name: rigd resolves no names (a lookup can block for seconds), so
//!   a name is refused when the file is read, with the fix; a name that stops resolving at
//!   run time therefore cannot happen.

mod fault_support;

use std::time::{Duration, Instant};

use fault_support::{Arrival, Listener};
use rig_protocols::telemetry::native;
use rig_protocols::Frame;
use rigd::rt::stage::RtStage;

const RATE_HZ: u32 = 500;
/// Ticks of each phase: present, away, back.
const PHASE_TICKS: u32 = 1000;

fn frame_at(n: u32) -> Frame {
    let mut frame = Frame {
        sequence: n,
        ..Frame::default()
    };
    frame.car.time_s = f64::from(n) / 1000.0;
    frame.car.orientation = [1.0, 0.0, 0.0, 0.0];
    frame
}

/// Ticks `ticks` frames from `first` at 1 kHz on absolute deadlines; returns how long each
/// `on_tick` took.
fn produce(stage: &mut dyn RtStage, first: u32, ticks: u32) -> Vec<Duration> {
    let start = Instant::now();
    let mut took = Vec::with_capacity(ticks as usize);
    for i in 0..ticks {
        let deadline = start + Duration::from_micros(u64::from(i) * 1000);
        if let Some(wait) = deadline.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let before = Instant::now();
        stage.on_tick(&frame_at(first + i));
        took.push(before.elapsed());
    }
    // The sender drains what it was handed before the phase ends.
    std::thread::sleep(Duration::from_millis(100));
    took
}

fn sequences(arrivals: &[Arrival]) -> Vec<u32> {
    arrivals
        .iter()
        .map(|(_, bytes)| {
            native::decode(bytes)
                .expect("a native packet")
                .to_frame()
                .expect("a frame")
                .sequence
        })
        .collect()
}

fn in_phase(sequences: &[u32], phase: u32) -> usize {
    let range = phase * PHASE_TICKS..(phase + 1) * PHASE_TICKS;
    sequences.iter().filter(|s| range.contains(s)).count()
}

#[test]
fn a_destination_that_goes_away_and_returns_is_counted_and_served_again() {
    let away = Listener::bind(0);
    let steady = Listener::bind(0);
    let port = away.port;
    let toml = format!(
        "[[telemetry]]\nformat = \"native\"\nrate_hz = {RATE_HZ}\ndestinations = [\"127.0.0.1:{port}\", \"127.0.0.1:{}\"]\n",
        steady.port
    );
    let config = rig_config::parse(&toml, "away.toml").expect("valid config");
    let (mut stage, handle) = rigd::telemetry_out::start(&config.telemetry).expect("starts");
    let stats = handle.stats();
    let due_per_phase = (PHASE_TICKS * RATE_HZ / 1000) as usize;

    let mut took = produce(&mut stage, 0, PHASE_TICKS);
    let before = sequences(&away.close());
    took.extend(produce(&mut stage, PHASE_TICKS, PHASE_TICKS));
    let while_away = stats.snapshot().destinations[0].clone();
    let back = Listener::bind(port);
    took.extend(produce(&mut stage, 2 * PHASE_TICKS, PHASE_TICKS));
    drop(stage);
    handle.join();
    let after = sequences(&back.close());
    let steady = sequences(&steady.close());
    let end = stats.snapshot();

    assert_eq!(
        in_phase(&before, 0),
        due_per_phase,
        "every packet before the fault"
    );
    // The kernel may still hold one refusal from the away phase for the socket: the first
    // send after the return reports it (that packet is counted as an error, not sent).
    let returned = in_phase(&after, 2);
    assert!(
        returned + 1 >= due_per_phase,
        "every packet due after the return arrived but at most the queued refusal: {returned} of {due_per_phase}"
    );
    assert_eq!(
        in_phase(&after, 1),
        0,
        "nothing sent while away arrived late"
    );
    for phase in 0..3 {
        assert_eq!(
            in_phase(&steady, phase),
            due_per_phase,
            "the other destination lost nothing in phase {phase}"
        );
    }

    let refused = while_away.errors_by_kind.refused;
    assert!(refused > 0, "refusals counted while away: {while_away:?}");
    assert!(
        while_away
            .last_error
            .as_deref()
            .is_some_and(|e| e.contains("refused")),
        "{while_away:?}"
    );
    let destination = &end.destinations[0];
    assert!(
        destination.errors <= while_away.errors + 1,
        "no more errors once it is back (one refusal may still be queued): {while_away:?} -> {destination:?}"
    );
    assert_eq!(
        destination.sent + destination.errors,
        3 * due_per_phase as u64,
        "every due packet was attempted once: {destination:?}"
    );
    assert_eq!(end.destinations[1].errors, 0);
    assert_eq!(end.frames_dropped, 0);

    took.sort();
    let p99 = took[took.len() * 99 / 100];
    assert!(
        p99 < Duration::from_millis(1),
        "handing frames over never waits on the network: on_tick p99 {p99:?}"
    );
}

#[test]
fn a_destination_given_by_name_is_refused_when_the_file_is_read() {
    let toml = "[[telemetry]]\nformat = \"outgauge\"\ndestinations = [\"dash-pc.local:5300\"]\n";
    let problems = rig_config::parse(toml, "named.toml").expect_err("a host name is refused");
    let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let text = text.join("\n");
    assert!(
        text.contains("numeric address") && text.contains("not resolved"),
        "the message says what to write instead: {text}"
    );
    assert_eq!(problems[0].line, 3, "{text}");
}
