//! Game formats through the real decode path into whole screens: a Forza Horizon packet and an
//! OutGauge packet (bytes as a game sends them, some fields patched at the offsets the
//! reference gives) are decoded by `source::decode`, folded into a `DashState` and drawn with
//! ratatui's `TestBackend`. Every channel the format carries must appear; channels it lacks
//! must read `--`, never 0.

use std::time::{Duration, Instant};

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use rig_dash::app::App;
use rig_dash::keys::Action;
use rig_dash::source::decode;
use rig_dash::state::{DashState, Origin, Packet};
use rig_dash::FormatChoice;
use rig_protocols::{Format, Frame};

/// A car at 34 m/s in third, mid-lap, steering 10 % left with the handbrake a quarter on.
fn frame() -> Frame {
    let mut frame = Frame::default();
    let car = &mut frame.car;
    car.speed_mps = 34.0;
    car.velocity_body_mps = [34.0, 0.0, 0.0];
    car.acceleration_body_mps2 = [2.0, 9.0, 0.0];
    car.position_m = [120.0, -40.0, 2.0];
    car.controls.throttle = 0.85;
    car.controls.handbrake = 0.25;
    car.controls.steering = 0.1;
    car.steering_wheel_angle_rad = 0.8;
    car.steering_torque_nm = 6.5;
    car.drivetrain.gear = 3;
    car.drivetrain.engine_rpm = 6800.0;
    car.drivetrain.max_rpm = 7500.0;
    car.drivetrain.engine_torque_nm = 300.0;
    for (i, wheel) in car.wheels.iter_mut().enumerate() {
        let i = i as f64;
        wheel.load_n = 4000.0;
        wheel.slip_ratio = 0.02 + 0.01 * i;
        wheel.slip_angle_rad = (-3.0 - i).to_radians();
        wheel.temperature_c = 80.0 + i;
        wheel.radius_m = 0.31;
        wheel.angular_velocity_radps = 34.0 / 0.31;
        wheel.suspension_travel_m = 0.030 + 0.005 * i;
    }
    car.lap.laps_completed = 3;
    car.lap.current_lap_s = 41.25;
    car.lap.last_lap_s = 84.001;
    car.lap.best_lap_s = 82.987;
    frame
}

fn encode(format: Format, frame: &Frame) -> Vec<u8> {
    let mut bytes = vec![0; rig_protocols::telemetry::MAX_PACKET_LEN];
    let len = format.encode(frame, &mut bytes).unwrap();
    bytes.truncate(len);
    bytes
}

fn put_f32(bytes: &mut [u8], offset: usize, value: f32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

fn put_u32(bytes: &mut [u8], offset: usize, value: u32) {
    bytes[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
}

/// The app after receiving `bytes` (auto-detected) 5 ms before the returned instant.
fn app_fed(bytes: &[u8]) -> App {
    let t0 = Instant::now();
    let listen: Origin = "127.0.0.1:20999".parse().unwrap();
    let mut state = DashState::new(vec![listen], t0);
    let decoded = decode(bytes, FormatChoice::Auto);
    assert!(decoded.is_ok(), "{decoded:?}");
    state.ingest([Packet {
        from: "127.0.0.1:40000".parse().unwrap(),
        received_at: t0,
        decoded,
    }]);
    let mut app = App::new(state, t0);
    app.set_now(t0 + Duration::from_millis(5));
    app
}

fn screen(app: &App) -> Terminal<TestBackend> {
    screen_sized(app, 80, 24)
}

fn screen_sized(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .unwrap();
    terminal
}

fn text(terminal: &Terminal<TestBackend>) -> String {
    let buffer = terminal.backend().buffer();
    let area = buffer.area;
    (area.top()..area.bottom())
        .map(|y| {
            (area.left()..area.right())
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_shows(shown: &str, expected: &[&str]) {
    for part in expected {
        assert!(shown.contains(part), "{part:?} missing:\n{shown}");
    }
}

/// Forza Horizon (324 bytes): Dash block at 244; fuel at +44, boost (psi) at +40, race
/// position (u8) at +70.
fn forza_packet() -> Vec<u8> {
    const DASH: usize = 244;
    let mut bytes = encode(Format::ForzaHorizon, &frame());
    assert_eq!(bytes.len(), 324);
    put_f32(&mut bytes, DASH + 40, 14.503_774);
    put_f32(&mut bytes, DASH + 44, 0.45);
    bytes[DASH + 70] = 3;
    bytes
}

#[test]
fn forza_shows_steer_input_slip_wheels_suspension_laps_and_gauges() {
    let mut app = app_fed(&forza_packet());
    let drive = screen(&app);
    let shown = text(&drive);
    assert_shows(
        &shown,
        &[
            " 122 km/h",
            "gear   3",
            " 6800 / 7500",
            // Forza sends the steering input, not the wheel angle or the rim torque.
            "input      +10% L",
            "torque      -- Nm",
            "HBK",
            " 25%",
            "Laps P3",
            "lap 4    0:41.250",
            "last     1:24.001",
            "best     1:22.987",
        ],
    );
    insta::assert_snapshot!("forza_drive_80x24", drive.backend());

    app.apply(Action::NextPage);
    let tyres = screen(&app);
    let shown = text(&tyres);
    assert_shows(
        &shown,
        &[
            // Forza has no wheel load, patch speed, brake temperature or pressure.
            "load kN    --     --     --     --",
            "slip    +0.02  +0.03  +0.04  +0.05",
            "angle °  -3.0   -4.0   -5.0   -6.0",
            "tread°C    80     81     82     83",
            // Combined slip, normalised: hypot(0.02 / 0.1, 3° / 0.14 rad) = 0.42, and so on.
            "comb.    0.42   0.58   0.74   0.90",
            "ω rad/s   110    110    110    110",
            "v km/h     --     --     --     --",
            "susp mm    30     35     40     45",
            "brake°C    --     --     --     --",
        ],
    );
    insta::assert_snapshot!("forza_tyres_80x24", tyres.backend());

    app.apply(Action::NextPage);
    app.apply(Action::NextPage);
    let rig = screen(&app);
    let shown = text(&rig);
    assert_shows(
        &shown,
        &[
            "format    Forza Horizon",
            "fuel      45%",
            "water     -- °C",
            "boost     1.00 bar",
            // 300 N m at 6800 rpm = 213.6 kW.
            "engine    214 kW  300 Nm",
            "position  P3",
            "lights    --",
            "only from rigd (source sends Forza Horizon)",
        ],
    );
    insta::assert_snapshot!("forza_rig_80x24", rig.backend());
}

/// OutGauge (92 bytes): turbo at 20, engine temperature 24, fuel 28, oil pressure 32, oil
/// temperature 36, dash lights available 40 and on 44.
fn outgauge_packet() -> Vec<u8> {
    const DL_SHIFT: u32 = 1 << 0;
    const DL_HANDBRAKE: u32 = 1 << 2;
    const DL_TC: u32 = 1 << 4;
    const DL_ABS: u32 = 1 << 10;
    const DL_FUELWARN: u32 = 1 << 15;
    const DL_NEUTRAL: u32 = 1 << 17;
    let mut frame = frame();
    frame.car.drivetrain.engine_rpm = 7400.0;
    let mut bytes = encode(Format::OutGauge { id: None }, &frame);
    assert_eq!(bytes.len(), 92);
    put_f32(&mut bytes, 20, 0.8);
    put_f32(&mut bytes, 24, 92.0);
    put_f32(&mut bytes, 28, 0.08);
    put_f32(&mut bytes, 32, 4.2);
    put_f32(&mut bytes, 36, 105.0);
    put_u32(
        &mut bytes,
        40,
        DL_SHIFT | DL_HANDBRAKE | DL_TC | DL_ABS | DL_FUELWARN | DL_NEUTRAL,
    );
    put_u32(&mut bytes, 44, DL_SHIFT | DL_FUELWARN);
    bytes
}

#[test]
fn outgauge_shows_its_shift_light_gauges_and_lights_and_dashes_for_the_rest() {
    let mut app = app_fed(&outgauge_packet());
    let drive = screen(&app);
    let shown = text(&drive);
    assert_shows(
        &shown,
        &[
            " 122 km/h",
            "gear   3",
            // No rev limit in OutGauge: the game's own shift light lights the row.
            " 7400 rpm ●●●●●●●●●● SHIFT",
            "angle       --°",
            "torque      -- Nm",
            "HBK ",
            "no tyre data in LFS OutGauge",
        ],
    );
    assert!(
        shown.contains("HBK ··") && shown.contains("   --│"),
        "OutGauge has no handbrake position (only a light):\n{shown}"
    );
    insta::assert_snapshot!("outgauge_drive_80x24", drive.backend());

    app.apply(Action::PreviousPage);
    let rig = screen(&app);
    let shown = text(&rig);
    assert_shows(
        &shown,
        &[
            "format    LFS OutGauge",
            "fuel      8%",
            "water     92 °C",
            "oil       105 °C  4.2 bar",
            "boost     0.80 bar",
            "engine    -- kW  -- Nm",
            "position  --",
            "●SHIFT ○HBK ○TC ○ABS ●FUEL ○N",
        ],
    );
    insta::assert_snapshot!("outgauge_rig_80x24", rig.backend());
}

/// Codemasters extradata=3 (264 bytes): the gear is the float at index 33 (offset 132); DiRT
/// Rally sends 10.0 for reverse (DiRT Rally 2.0 sends -1).
#[test]
fn codemasters_reverse_from_dirt_rally_reads_r() {
    let mut bytes = encode(Format::Codemasters, &frame());
    assert_eq!(bytes.len(), 264);
    put_f32(&mut bytes, 33 * 4, 10.0);
    let app = app_fed(&bytes);
    for (width, height) in [(80, 24), (120, 40)] {
        let drive = screen_sized(&app, width, height);
        let shown = text(&drive);
        assert_shows(&shown, &["Codemasters", "gear   R"]);
        assert!(!shown.contains("gear  10"), "{shown}");
        insta::assert_snapshot!(
            format!("codemasters_reverse_drive_{width}x{height}"),
            drive.backend()
        );
    }
}
