//! The car's gauges beyond speed and rpm: fuel, coolant and oil temperature, oil pressure,
//! boost, engine power and torque, race position, and the dashboard lights a game reports
//! (OutGauge `DL_*` bits: only the lights the car has are listed, `●` on and `○` off).
//! Which format sends what is listed in rig-protocols' dash view; anything not sent shows
//! `--`, never 0. Every row is one line: the lights row leaves out unlit lights, then lit ones,
//! when the panel is too narrow for all, and no value is cut at the edge ([`super::fit`]).
//! A last row lists rigd's broken parts (native packets only; `none` when the car is whole).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use super::fit::{fit, label_value, Field};
use super::text::{plain, MISSING};
use super::{note_panel, panel, View};
use crate::theme::THEME;

/// Fuel fraction below which the fuel figure is marked.
pub const LOW_FUEL_FRACTION: f64 = 0.1;
const LABEL_WIDTH: usize = 10;

/// LFS `DL_*` bit numbers and the short names shown for them (InSim.txt order; the "any
/// signal" bit is left out as it repeats the two indicators).
pub const LIGHT_NAMES: [(u32, &str); 17] = [
    (0, "SHIFT"),
    (1, "BEAM"),
    (2, "HBK"),
    (3, "PIT"),
    (4, "TC"),
    (5, "◀"),
    (6, "▶"),
    (8, "OIL"),
    (9, "BATT"),
    (10, "ABS"),
    (11, "ENG"),
    (12, "FOG-R"),
    (13, "FOG-F"),
    (14, "DIP"),
    (15, "FUEL"),
    (16, "SIDE"),
    (17, "N"),
];

/// The car panel.
#[derive(Debug, Clone, Copy)]
pub struct Car<'a>(pub &'a View<'a>);

impl Widget for Car<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.0;
        let block = panel("Car");
        let Some(sample) = view.sample() else {
            return note_panel(block, MISSING, area, buf);
        };
        let value = view.value_style();
        let gauges = &sample.gauges;
        let width = usize::from(block.inner(area).width);
        let row = |label: &'static str, text: String, style: Style| -> Line<'static> {
            label_value(label, LABEL_WIDTH, THEME.label, text, style, width)
        };
        let fuel = gauges.fuel_fraction.filter(|f| f.is_finite());
        let low_fuel = fuel.is_some_and(|f| f < LOW_FUEL_FRACTION) && !view.no_data();
        let position = sample.lap.and_then(|lap| lap.race_position);
        let mut lines = vec![
            row(
                "fuel",
                fuel.map_or_else(|| MISSING.to_owned(), |f| format!("{:.0}%", f * 100.0)),
                if low_fuel { THEME.warn } else { value },
            ),
            row(
                "water",
                format!("{} °C", plain(gauges.engine_temp_c, 0)),
                value,
            ),
            row(
                "oil",
                format!(
                    "{} °C  {} bar",
                    plain(gauges.oil_temp_c, 0),
                    plain(gauges.oil_pressure_bar, 1)
                ),
                value,
            ),
            row(
                "boost",
                format!("{} bar", plain(gauges.boost_bar, 2)),
                value,
            ),
            row(
                "engine",
                format!(
                    "{} kW  {} Nm",
                    plain(gauges.engine_power_w.map(|w| w / 1000.0), 0),
                    plain(gauges.engine_torque_nm, 0)
                ),
                value,
            ),
            row(
                "position",
                position.map_or_else(|| MISSING.to_owned(), |p| format!("P{p}")),
                value,
            ),
        ];
        let mut lights = vec![Field::text(
            9,
            format!("{:<LABEL_WIDTH$}", "lights"),
            THEME.label,
        )];
        match gauges.lights {
            Some(reported) if reported.available != 0 => {
                for (bit, name) in LIGHT_NAMES {
                    if let Some(on) = reported.state(1 << bit) {
                        let (mark, style, priority) = if on {
                            (
                                "●",
                                if view.no_data() {
                                    THEME.dim
                                } else {
                                    THEME.warn
                                },
                                6,
                            )
                        } else {
                            ("○", THEME.dim, 3)
                        };
                        lights.push(Field::text(priority, format!("{mark}{name} "), style));
                    }
                }
            }
            _ => lights.push(Field::text(6, MISSING, value)),
        }
        lines.push(fit(lights, width));
        // Only sources that report damage (rigd's native packets) get the row.
        if let Some(d) = sample.damage {
            let (damage, damage_style) = if d.any() {
                (broken_parts(&d), THEME.warn)
            } else {
                ("none".to_owned(), value)
            };
            lines.push(row("damage", damage, damage_style));
        }
        Paragraph::new(lines).block(block).render(area, buf);
    }
}

/// The broken parts, shortest names first in the car's order (front to back).
fn broken_parts(d: &rig_types::DamageTelemetry) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if d.front_wing {
        parts.push("F-wing");
    }
    if d.steering_rack {
        parts.push("rack");
    }
    for (broken, name) in d.links.iter().zip(["FL", "FR", "RL", "RR"]) {
        if *broken {
            parts.push(name);
        }
    }
    if d.rear_wing {
        parts.push("R-wing");
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use rig_protocols::telemetry::{DashGauges, DashLights};

    use super::*;
    use crate::ui::test_support::*;

    #[test]
    fn native_shows_engine_figures_and_dashes_for_the_rest() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.gauges = DashGauges {
                engine_power_w: Some(152_000.0),
                engine_torque_nm: Some(320.0),
                ..DashGauges::default()
            };
        }
        let view = view_at(&state, now);
        let rows = rows(&render(Car(&view), 40, 9));
        assert!(rows[1].contains("fuel      --"), "{rows:?}");
        assert!(rows[2].contains("water     -- °C"), "{rows:?}");
        assert!(rows[5].contains("engine    152 kW  320 Nm"), "{rows:?}");
        assert!(rows[6].contains("position  --"), "{rows:?}");
        assert!(rows[7].contains("lights    --"), "{rows:?}");
    }

    #[test]
    fn broken_parts_are_listed_and_a_whole_car_says_none() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.damage = Some(rig_types::DamageTelemetry::default());
        }
        let view = view_at(&state, now);
        let whole = rows(&render(Car(&view), 40, 10));
        assert!(whole[8].contains("damage    none"), "{whole:?}");
        if let Some(sample) = state.latest.as_mut() {
            sample.damage = Some(rig_types::DamageTelemetry {
                front_wing: true,
                links: [false, true, false, false],
                ..Default::default()
            });
        }
        let view = view_at(&state, now);
        let broken = rows(&render(Car(&view), 40, 10));
        assert!(broken[8].contains("damage    F-wing FR"), "{broken:?}");
    }

    #[test]
    fn only_available_lights_are_listed_and_lit_ones_marked() {
        let (mut state, now) = live_state();
        if let Some(sample) = state.latest.as_mut() {
            sample.gauges.lights = Some(DashLights {
                available: 1 | 1 << 2 | 1 << 17,
                on: 1 | 1 << 17,
            });
        }
        let view = view_at(&state, now);
        let rows = rows(&render(Car(&view), 40, 9));
        assert!(rows[7].contains("lights    ●SHIFT ○HBK ●N"), "{rows:?}");
    }
}
