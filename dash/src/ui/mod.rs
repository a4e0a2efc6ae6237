//! Drawing: one module per widget, each a small `Widget` over a [`View`], plus the pages that
//! lay them out. Widgets only read the view; nothing here touches the network or the clock.

pub mod car;
pub mod chrome;
pub mod fit;
pub mod gg;
pub mod health;
pub mod laps;
pub mod map;
pub mod overlay;
pub mod pages;
pub mod pedals;
pub mod rpm;
pub mod speed;
pub mod steering;
pub mod text;
pub mod tyres;

use std::time::Instant;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Block, BorderType, Paragraph, Widget, Wrap};

use crate::sample::Sample;
use crate::state::DashState;
use crate::theme::THEME;

/// What one frame draws: a state and the instant it is seen at.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// The state to draw (the live one, or the frozen copy).
    pub state: &'a DashState,
    /// The frame's clock (the freeze instant while frozen).
    pub now: Instant,
    /// Track-map zoom level: 0 fits the whole trace, each step halves the span.
    pub map_zoom: u8,
}

impl View<'_> {
    /// The newest sample, if any arrived.
    pub fn sample(&self) -> Option<&Sample> {
        self.state.latest.as_ref()
    }

    /// True when the shown values are not current (no packet yet, or stale).
    pub fn no_data(&self) -> bool {
        self.state.source.no_data(self.now)
    }

    /// Style for values: normal when live, dimmed when stale.
    pub fn value_style(&self) -> Style {
        if self.no_data() {
            THEME.dim
        } else {
            THEME.value
        }
    }
}

/// The bordered panel every widget draws in.
pub fn panel(title: &str) -> Block<'_> {
    Block::bordered()
        .border_type(BorderType::Rounded)
        .border_style(THEME.border)
        .title(title)
        .title_style(THEME.title)
}

/// Draws `block` holding one dim note instead of values (`--`, or why a panel is empty),
/// wrapped to the panel's width.
pub fn note_panel(block: Block<'_>, note: impl Into<String>, area: Rect, buf: &mut Buffer) {
    Paragraph::new(Line::styled(note.into(), THEME.dim))
        .wrap(Wrap { trim: true })
        .block(block)
        .render(area, buf);
}

#[cfg(test)]
pub(crate) mod test_support {
    //! Fixed states for the snapshot tests: a live native sample mid-lap, the same seen after
    //! it went stale, and an empty state. Instants are offsets from one base, so snapshots do
    //! not depend on the wall clock.
    use std::time::{Duration, Instant};

    use ratatui::backend::TestBackend;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::Widget;
    use ratatui::Terminal;
    use rig_protocols::LoopHealth;

    use crate::sample::{Gear, LapSample, Sample, SteeringTorque, TyreSample};
    use crate::state::{DashState, Packet};

    /// The sender in every fixture.
    pub const SENDER: &str = "127.0.0.1:40000";
    /// The listening address in every fixture.
    pub const LISTEN: &str = "127.0.0.1:20999";

    /// A rigd car at 122.4 km/h in third, turning left, mid-lap.
    pub fn native_sample() -> Sample {
        let tyre = |load_n: f64, slip_ratio: f64, slip_angle_deg: f64| TyreSample {
            load_n: Some(load_n),
            slip_ratio: Some(slip_ratio),
            slip_angle_rad: Some(slip_angle_deg.to_radians()),
            temperature_c: Some(85.0),
            carcass_temperature_c: Some(92.0),
            combined_slip: None,
            wheel_speed_radps: Some(34.0 / 0.31),
            patch_speed_mps: Some(34.0),
            suspension_travel_m: Some(load_n / 100_000.0),
            brake_temperature_c: None,
            pressure_kpa: Some(231.0),
            wear: Some(0.04),
        };
        Sample {
            format: "rigd native",
            speed_mps: Some(34.0),
            gear: Some(Gear::Forward(3)),
            rpm: Some(6800.0),
            max_rpm: Some(7500.0),
            throttle: Some(0.85),
            brake: Some(0.0),
            clutch: Some(0.0),
            handbrake: Some(0.0),
            steering_angle_rad: Some(45f64.to_radians()),
            steering_input: Some(45.0 / 450.0),
            steering_torque: Some(SteeringTorque {
                torque_nm: 6.5,
                ffb_output: Some(0.65),
                clipping: false,
                clipping_share: Some(0.012),
                ffb_hold: None,
            }),
            accel_mps2: Some([2.0, 9.0]),
            tyres: [
                tyre(3100.0, 0.02, -3.5),
                tyre(4900.0, 0.03, -4.0),
                tyre(2800.0, 0.18, -2.5),
                tyre(4400.0, 0.05, -3.0),
            ],
            lap: Some(LapSample {
                laps_completed: 3,
                sector: 1,
                current_lap_s: 41.25,
                last_lap_s: 84.001,
                best_lap_s: 82.987,
                sector_times_s: [28.123, 0.0, 0.0],
                best_sector_times_s: [28.018, 27.9, 27.07],
                has_sectors: true,
                race_position: None,
            }),
            position_m: Some([0.0, 0.0]),
            health: Some(LoopHealth {
                ticks: 123_456,
                tick_rate_hz: 1000.0,
                wake_latency_p50_us: 12.0,
                wake_latency_p99_us: 45.0,
                wake_latency_max_us: 230.0,
                tick_work_p99_us: 120.0,
                physics_step_p99_us: 30.0,
                late_ticks_250us: 3,
                late_ticks_1ms: 0,
                dropped_time_ms: 0.0,
            }),
            motion_holds: None,
            gauges: Default::default(),
            damage: None,
        }
    }

    /// A state that received `native_sample` (and a circle of positions, and a g-g trail)
    /// 5 ms before `now`, plus some garbage; rate measured at 1000 Hz.
    pub fn live_state() -> (DashState, Instant) {
        let t0 = Instant::now();
        let mut state = DashState::new(vec![LISTEN.parse().unwrap()], t0);
        let from = SENDER.parse().unwrap();
        let mut at = t0;
        for i in 0..=120 {
            let angle = i as f64 / 120.0 * std::f64::consts::TAU;
            let mut sample = native_sample();
            sample.position_m = Some([200.0 * angle.cos(), 100.0 * angle.sin()]);
            sample.accel_mps2 = Some([2.0 - i as f64 * 0.05, 9.0 * (i as f64 / 120.0)]);
            at = t0 + Duration::from_millis(i * 8);
            state.ingest([Packet {
                from,
                received_at: at,
                decoded: Ok(sample),
            }]);
        }
        state.ingest((0..7).map(|_| Packet {
            from,
            received_at: at,
            decoded: Err(crate::state::Garbage::Unrecognised { len: 13 }),
        }));
        // 121 packets over 1 s: a rate of 121 Hz.
        state.tick(t0 + Duration::from_secs(1));
        (state, at + Duration::from_millis(5))
    }

    /// An empty state seen 2.5 s after start.
    pub fn empty_state() -> (DashState, Instant) {
        let t0 = Instant::now();
        let state = DashState::new(vec![LISTEN.parse().unwrap()], t0);
        (state, t0 + Duration::from_millis(2500))
    }

    /// The view of `state` at `now`, with the map unzoomed.
    pub fn view_at(state: &DashState, now: Instant) -> super::View<'_> {
        super::View {
            state,
            now,
            map_zoom: 0,
        }
    }

    /// Renders a widget into a `width` x `height` buffer.
    pub fn render<W: Widget>(widget: W, width: u16, height: u16) -> Buffer {
        let mut buffer = Buffer::empty(Rect::new(0, 0, width, height));
        widget.render(buffer.area, &mut buffer);
        buffer
    }

    /// Renders a widget through a `TestBackend` terminal, for `insta::assert_snapshot!`.
    pub fn terminal<W: Widget>(widget: W, width: u16, height: u16) -> Terminal<TestBackend> {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        terminal
            .draw(|frame| frame.render_widget(widget, frame.area()))
            .unwrap();
        terminal
    }

    /// The buffer's symbols, one string per row (styles ignored).
    pub fn rows(buffer: &Buffer) -> Vec<String> {
        let area = buffer.area;
        (area.top()..area.bottom())
            .map(|y| {
                (area.left()..area.right())
                    .map(|x| buffer[(x, y)].symbol())
                    .collect()
            })
            .collect()
    }
}
