//! The game bridge end to end with the real `rigd` binary, one run per game (all at once, on
//! threads of one test, since each mostly waits on its own rigd): packets built
//! byte by byte from each game's published layout (`game_e2e/packets/`) are sent over
//! loopback with a 60 Hz game's recorded timing to `[source] kind = "game"`, and an SMC3 seat
//! mover with three vertical actuators on a pty moves from them. Every game goes through the
//! same phases (`game_e2e::Bridge`): garbage alone never moves the seat; live, `STATUS=`
//! names the stream, its rate and age; braking lifts the rear, accelerating lowers it, a left
//! turn lowers the right side, a heave bump lifts the seat (games that send vertical
//! motion); the game's pause (where it has one), a stream loss and a position jump each park
//! the seat and it raises again with its ramp; garbage and other games' packets are all
//! counted and dropped; the dashboard's feed carries the game's speed, rpm and gear; the
//! wheel's force feedback is never opened. Per game on top: F1's player car is not car 0 and
//! the F1 output re-encoded from the bridged frames decodes back to the game's values; F1 and
//! Codemasters send a different tyre pressure per wheel (psi, in their RL RR FL FR order)
//! and each reaches the dashboard's feed on its own wheel in kPa; LFS's garbage includes
//! random bytes of exactly OutSim's and OutGauge's sizes, counted as implausible; GT7 and
//! BeamNG ride out a 200 ms delivery stall without parking (a jump still parks); GT7's
//! packets come only after rigd's heartbeat reached the console; F1 faults rigd's loop twice
//! (SIGSTOP) with the game's pause overlapping each fault hold, and the seat raises again.

mod game_e2e;
mod motion_pty;
mod smc3_wire;
mod support;

use std::time::{Duration, Instant};

use game_e2e::car::{SendTiming, CRUISE_MPS, GEAR, KPA_PER_PSI, RPM, START_YAW_RAD, TYRE_PSI};
use game_e2e::packets::{beamng::BeamNg, codemasters::Codemasters, ea_wrc::EaWrc, f1, forza};
use game_e2e::packets::{gt7::Gt7, lfs};
use game_e2e::{unique_port, Bridge, GameSetup};
use rig_protocols::game::f1::{F1Packet, F1Year};

/// Every game's run, each on its own thread at once: each mostly waits on its own rigd (a
/// phase reads the seat for a second or two, or waits for a park or a `STATUS=`), so side by
/// side they take about the time of the longest run rather than the sum (each rigd has its
/// own ports, pty, notify socket and temp dir; GT7's console address is this process's own).
/// A game's failure names the game; the others still run to their end.
#[test]
fn every_game_moves_an_smc3_seat_and_every_hold_parks_it() {
    let games: [(&str, fn()); 9] = [
        (
            "forza",
            forza_packets_move_an_smc3_seat_and_every_hold_parks_it,
        ),
        (
            "f1-24",
            f1_24_moves_the_seat_and_its_f1_25_output_decodes_back,
        ),
        (
            "f1-25",
            f1_25_moves_the_seat_and_its_f1_24_output_decodes_back,
        ),
        ("codemasters", codemasters_extradata_3_moves_the_seat),
        (
            "ea-wrc",
            ea_wrc_moves_the_seat_and_its_pause_packet_parks_it,
        ),
        (
            "beamng",
            beamng_motionsim_and_outgauge_on_two_ports_move_the_seat,
        ),
        ("lfs", lfs_outsim_and_outgauge_on_two_ports_move_the_seat),
        ("lfs-pack2", lfs_outsim_pack2_with_options_moves_the_seat),
        ("gt7", gt7_streams_after_the_heartbeat_and_moves_the_seat),
    ];
    let failed: Vec<&str> = std::thread::scope(|scope| {
        let runs: Vec<_> = games
            .iter()
            .map(|&(name, run)| {
                let thread = std::thread::Builder::new().name(format!("bridge-{name}"));
                (name, thread.spawn_scoped(scope, run).unwrap())
            })
            .collect();
        runs.into_iter()
            .filter_map(|(name, run)| run.join().is_err().then_some(name))
            .collect()
    });
    assert!(
        failed.is_empty(),
        "failed (each game's panic and rigd's log are above, under its thread's name): {failed:?}"
    );
}

#[test]
fn the_recorded_timing_is_a_60_hz_game_with_jitter_and_hitches() {
    let stats = SendTiming::recorded().statistics(3600);
    assert!((stats.mean_ms - 1000.0 / 60.0).abs() < 0.05, "{stats:?}");
    assert!((5.0..7.0).contains(&stats.std_dev_ms), "{stats:?}");
    assert!(
        stats.min_ms < 0.5 && stats.max_ms > 60.0 && stats.max_ms < 90.0,
        "{stats:?}"
    );
    assert!((0.015..0.04).contains(&stats.back_to_back), "{stats:?}");
    assert!((0.005..0.02).contains(&stats.gaps), "{stats:?}");
    let steady = SendTiming::steady().statistics(3600);
    assert!(
        steady.max_ms < 27.0 && steady.min_ms > 7.0 && steady.back_to_back == 0.0,
        "{steady:?}"
    );
}

fn forza_packets_move_an_smc3_seat_and_every_hold_parks_it() {
    let mut bridge = Bridge::start(GameSetup {
        name: "bridge-forza",
        stream: "Forza FM7 Car Dash",
        source: "format = \"auto\"".into(),
        ports: 1,
        console: false,
        extra_config: String::new(),
        timing: SendTiming::recorded(),
        packets: Box::new(forza::Forza::new()),
    });
    bridge.every_phase(true, true);
    bridge.finish(true);
}

/// An `[[telemetry]]` output of `format` to `port`.
fn output(format: &str, port: u16) -> String {
    format!("[[telemetry]]\nformat = \"{format}\"\nrate_hz = 60\ndestinations = [\"127.0.0.1:{port}\"]\n")
}

/// F1 24 or 25 in, the other year out: the bridged frames re-encoded as F1 decode back to
/// the values the game sent (speed, rpm, gear, throttle, heading, body velocity, 1 g up).
fn f1_end_to_end(name: &'static str, year: f1::Year, stream: &'static str, out: (&str, F1Year)) {
    let out_socket = std::net::UdpSocket::bind(("127.0.0.1", unique_port())).unwrap();
    let out_port = out_socket.local_addr().unwrap().port();
    let mut bridge = Bridge::start(GameSetup {
        name,
        stream,
        source: "format = \"auto\"".into(),
        ports: 1,
        console: false,
        extra_config: output(out.0, out_port),
        timing: SendTiming::recorded(),
        packets: Box::new(f1::F1::new(year)),
    });
    bridge.garbage_alone_keeps_the_seat_parked();
    bridge.goes_live();
    bridge.cruise_baseline();
    bridge.status_names_the_stream();

    // Cruising straight at the start heading: the newest packet of each type rigd sent.
    out_socket
        .set_read_timeout(Some(Duration::from_millis(50)))
        .unwrap();
    let mut newest = std::collections::HashMap::new();
    let mut buf = [0u8; 2048];
    let until = Instant::now() + Duration::from_millis(500);
    while Instant::now() < until {
        if let Ok(len) = out_socket.recv(&mut buf) {
            newest.insert(buf[6], buf[..len].to_vec());
        }
    }
    let decoded = |packet: F1Packet| {
        let bytes = newest
            .get(&packet.id())
            .unwrap_or_else(|| panic!("no {packet:?} from rigd's {} output", out.0));
        assert_eq!(bytes.len(), packet.len(out.1), "{packet:?}");
        assert_eq!(bytes[27], 0, "rigd's output puts the player at index 0");
        rig_protocols::game::f1::decode(bytes).unwrap()
    };
    let out_wheels = decoded(F1Packet::CarTelemetry).wheels;
    for (wheel, psi) in TYRE_PSI.iter().enumerate() {
        let kpa = out_wheels[wheel].pressure_kpa;
        assert!(
            kpa.is_some_and(|kpa| (kpa - psi * KPA_PER_PSI).abs() < 0.01),
            "wheel {wheel} (FL FR RL RR) of rigd's F1 output: {kpa:?} kPa from {psi} psi"
        );
    }
    let telemetry = decoded(F1Packet::CarTelemetry).car;
    assert!(
        (telemetry.speed_mps.unwrap() - CRUISE_MPS).abs() < 0.2,
        "{telemetry:?}"
    );
    assert_eq!(telemetry.engine_rpm, Some(RPM));
    assert_eq!(telemetry.gear, Some(GEAR));
    assert!(
        (telemetry.throttle.unwrap() - 0.6).abs() < 1e-6,
        "{telemetry:?}"
    );
    let motion = decoded(F1Packet::Motion).motion;
    let yaw = motion.roll_pitch_yaw_rad.unwrap()[2];
    assert!(
        (yaw - START_YAW_RAD).abs() < 0.01,
        "heading {yaw} {motion:?}"
    );
    let a = motion.acceleration_body_mps2.unwrap();
    assert!(
        a.iter().all(|c| c.abs() < 0.3),
        "cruising: no acceleration {a:?}"
    );
    let v = motion.velocity_world_mps.unwrap();
    let heading = [
        START_YAW_RAD.cos() * CRUISE_MPS,
        START_YAW_RAD.sin() * CRUISE_MPS,
    ];
    assert!(
        (v[0] - heading[0]).abs() < 0.2 && (v[1] - heading[1]).abs() < 0.2,
        "{v:?}"
    );
    let ex = decoded(F1Packet::MotionEx).motion;
    let body = ex.velocity_body_mps.unwrap();
    assert!(
        (body[0] - CRUISE_MPS).abs() < 0.2 && body[1].abs() < 0.2,
        "{body:?}"
    );
    assert!(ex.angular_velocity_body_radps.unwrap()[2].abs() < 0.01);

    bridge.dash_shows_the_game();
    bridge.dash_shows_the_tyre_pressures();
    bridge.braking_and_accelerating_pitch_the_seat();
    bridge.left_turn_lowers_the_right_side();
    bridge.heave_bump_lifts_the_seat();
    bridge.pause_parks_and_resumes();
    // Two loop faults and a pause (once seen under load: no frame for 30 s after them).
    bridge.loop_faults_overlapping_a_pause_park_and_resume();
    bridge.loss_parks_and_resumes();
    bridge.jump_parks_and_resumes();
    bridge.finish(true);
}

fn f1_24_moves_the_seat_and_its_f1_25_output_decodes_back() {
    f1_end_to_end(
        "bridge-f1-24",
        f1::Year::F1_24,
        "F1 24",
        ("f1-25", F1Year::F1_25),
    );
}

fn f1_25_moves_the_seat_and_its_f1_24_output_decodes_back() {
    f1_end_to_end(
        "bridge-f1-25",
        f1::Year::F1_25,
        "F1 25",
        ("f1-24", F1Year::F1_24),
    );
}

fn codemasters_extradata_3_moves_the_seat() {
    let mut bridge = Bridge::start(GameSetup {
        name: "bridge-codemasters",
        stream: "Codemasters",
        source: "format = \"auto\"".into(),
        ports: 1,
        console: false,
        extra_config: String::new(),
        timing: SendTiming::recorded(),
        packets: Box::new(Codemasters::new()),
    });
    // No pause flag, no vertical g in extradata=3.
    bridge.every_phase(false, false);
    bridge.dash_shows_the_tyre_pressures();
    bridge.finish(false);
}

fn ea_wrc_moves_the_seat_and_its_pause_packet_parks_it() {
    let mut bridge = Bridge::start(GameSetup {
        name: "bridge-ea-wrc",
        stream: "EA WRC",
        source: "format = \"ea-wrc\"".into(),
        ports: 1,
        console: false,
        extra_config: String::new(),
        timing: SendTiming::recorded(),
        packets: Box::new(EaWrc::new()),
    });
    bridge.every_phase(true, true);
    bridge.finish(true);
}

fn beamng_motionsim_and_outgauge_on_two_ports_move_the_seat() {
    let mut bridge = Bridge::start(GameSetup {
        name: "bridge-beamng",
        stream: "BeamNG MotionSim",
        source: "format = \"beamng\"".into(),
        ports: 2,
        console: false,
        extra_config: String::new(),
        timing: SendTiming::recorded(),
        packets: Box::new(BeamNg),
    });
    // MotionSim has no pause flag: a paused game stops sending (the loss phase).
    bridge.every_phase(false, true);
    // Nor a clock: the stall is told from a jump by the velocity's reach.
    bridge.a_delivery_stall_is_not_a_jump(Duration::from_millis(200));
    bridge.finish(false);
}

fn lfs_outsim_and_outgauge_on_two_ports_move_the_seat() {
    let mut bridge = Bridge::start(GameSetup {
        name: "bridge-lfs",
        stream: "OutSim",
        source: "format = \"lfs\"".into(),
        ports: 2,
        console: false,
        extra_config: String::new(),
        timing: SendTiming::recorded(),
        packets: Box::new(lfs::Lfs::classic()),
    });
    bridge.every_phase(false, true);
    bridge.status_counts_implausible();
    bridge.finish(false);
}

fn lfs_outsim_pack2_with_options_moves_the_seat() {
    let mut bridge = Bridge::start(GameSetup {
        name: "bridge-lfs-pack2",
        stream: "OutSimPack2",
        source: format!(
            "format = \"lfs\"\nlfs_outsim_options = {:#x}",
            lfs::PACK2_OPTIONS
        ),
        ports: 2,
        console: false,
        extra_config: String::new(),
        timing: SendTiming::recorded(),
        packets: Box::new(lfs::Lfs::pack2()),
    });
    bridge.every_phase(false, true);
    bridge.status_counts_implausible();
    bridge.finish(false);
}

fn gt7_streams_after_the_heartbeat_and_moves_the_seat() {
    let mut bridge = Bridge::start(GameSetup {
        name: "bridge-gt7",
        stream: "Gran Turismo 7",
        source: "format = \"gt7\"".into(),
        ports: 1,
        console: true,
        extra_config: String::new(),
        // A console on a LAN streams at a steady 60 Hz (the PC game's recorded hitches are
        // not a console's); its packet id is the clock (docs/games/gt7.md).
        timing: SendTiming::steady(),
        packets: Box::new(Gt7),
    });
    bridge.every_phase(true, true);
    // Its packet id is the clock that tells the stall from a jump.
    bridge.a_delivery_stall_is_not_a_jump(Duration::from_millis(200));
    let sent = bridge.game.sent.clone();
    let seconds = bridge.started.elapsed().as_secs_f64();
    bridge.finish(true);
    let heartbeats = sent.heartbeats.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        sent.odd_heartbeats
            .load(std::sync::atomic::Ordering::Relaxed),
        0
    );
    assert!(
        heartbeats as f64 >= 0.7 * seconds && heartbeats as f64 <= 1.3 * seconds + 2.0,
        "{heartbeats} heartbeats in {seconds:.0} s: one a second"
    );
}
