//! The pages behind Tab, each a layout of widgets built from constraints (nothing is placed at
//! absolute positions), so every page works at 80x24 and uses extra room when there is some.
//! The drive page shows everything a driver needs at once; the others enlarge one subject.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Widget;

use super::car::Car;
use super::gg::GgDiagram;
use super::health::{HealthPanel, HostPanel, LoopHealthLine, SourcePanel};
use super::laps::Laps;
use super::map::TrackMap;
use super::pedals::Pedals;
use super::rpm::Rpm;
use super::speed::SpeedGear;
use super::steering::Steering;
use super::tyres::{Tyres, TYRE_ROWS};
use super::View;

/// Width from which the drive page adds the track map, cells.
pub const DRIVE_MAP_MIN_WIDTH: u16 = 110;
const LAPS_WIDTH: u16 = 24;
const TYRES_WIDTH: u16 = 37;
/// The source panel: seven lines and the border.
const SOURCE_HEIGHT: u16 = 9;
/// The car panel: seven lines (the last the dash lights) and the border.
const CAR_HEIGHT: u16 = 9;

/// One page of the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Page {
    /// Everything at a glance.
    #[default]
    Drive,
    /// Tyres and the g-g diagram, large.
    Tyres,
    /// The track map, large, with lap timing.
    Track,
    /// Source statistics, the car's gauges and lights, and rigd's loop health.
    Rig,
}

impl Page {
    /// Every page, in tab order.
    pub const ALL: [Page; 4] = [Page::Drive, Page::Tyres, Page::Track, Page::Rig];

    /// The tab label.
    pub fn title(self) -> &'static str {
        match self {
            Page::Drive => "Drive",
            Page::Tyres => "Tyres",
            Page::Track => "Track",
            Page::Rig => "Rig",
        }
    }

    fn index(self) -> usize {
        Page::ALL.iter().position(|&p| p == self).unwrap_or(0)
    }

    /// The next page, wrapping around.
    pub fn next(self) -> Page {
        Page::ALL[(self.index() + 1) % Page::ALL.len()]
    }

    /// The previous page, wrapping around.
    pub fn previous(self) -> Page {
        Page::ALL[(self.index() + Page::ALL.len() - 1) % Page::ALL.len()]
    }
}

/// A page drawn for a view.
#[derive(Debug, Clone, Copy)]
pub struct PageView<'a> {
    /// Which page.
    pub page: Page,
    /// What to draw.
    pub view: &'a View<'a>,
}

impl Widget for PageView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let view = self.view;
        match self.page {
            Page::Drive => drive(view, area, buf),
            Page::Tyres => tyres(view, area, buf),
            Page::Track => track(view, area, buf),
            Page::Rig => rig(view, area, buf),
        }
    }
}

fn drive(view: &View, area: Rect, buf: &mut Buffer) {
    let [top, middle, bottom, health] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Length(6),
        Constraint::Min(9),
        Constraint::Length(1),
    ])
    .areas(area);
    let [speed, rpm] = Layout::horizontal([Constraint::Length(20), Constraint::Min(30)]).areas(top);
    SpeedGear(view).render(speed, buf);
    Rpm(view).render(rpm, buf);
    let [pedals, steering] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(middle);
    Pedals(view).render(pedals, buf);
    Steering(view).render(steering, buf);
    if area.width >= DRIVE_MAP_MIN_WIDTH {
        let [gg, laps, tyres, map] = Layout::horizontal([
            Constraint::Length(30),
            Constraint::Length(LAPS_WIDTH),
            Constraint::Length(TYRES_WIDTH),
            Constraint::Min(20),
        ])
        .areas(bottom);
        GgDiagram(view).render(gg, buf);
        Laps(view).render(laps, buf);
        Tyres(view).render(tyres, buf);
        TrackMap(view).render(map, buf);
    } else {
        let [gg, laps, tyres] = Layout::horizontal([
            Constraint::Min(16),
            Constraint::Length(LAPS_WIDTH),
            Constraint::Length(TYRES_WIDTH),
        ])
        .areas(bottom);
        GgDiagram(view).render(gg, buf);
        Laps(view).render(laps, buf);
        Tyres(view).render(tyres, buf);
    }
    LoopHealthLine(view).render(health, buf);
}

fn tyres(view: &View, area: Rect, buf: &mut Buffer) {
    let [left, right] =
        Layout::horizontal([Constraint::Length(TYRES_WIDTH + 4), Constraint::Min(20)]).areas(area);
    let [tyres, steering] =
        Layout::vertical([Constraint::Length(TYRE_ROWS + 2), Constraint::Length(6)]).areas(left);
    Tyres(view).render(tyres, buf);
    Steering(view).render(steering, buf);
    let [gg, pedals] = Layout::vertical([Constraint::Min(8), Constraint::Length(6)]).areas(right);
    GgDiagram(view).render(gg, buf);
    Pedals(view).render(pedals, buf);
}

fn track(view: &View, area: Rect, buf: &mut Buffer) {
    let [map, side] =
        Layout::horizontal([Constraint::Min(30), Constraint::Length(LAPS_WIDTH)]).areas(area);
    TrackMap(view).render(map, buf);
    let [speed, laps, rpm] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Length(9),
        Constraint::Length(4),
    ])
    .areas(side);
    SpeedGear(view).render(speed, buf);
    Laps(view).render(laps, buf);
    Rpm(view).render(rpm, buf);
}

/// The rig page: source and car panels on the left, rigd's loop on the right, the embedder's
/// lines (rigd's telemetry destinations) under them and the loop-health line at the bottom.
/// The panels keep their full height (every car row, the lights included, at 80x24); the
/// embedder's lines get what is left, at least their title and one line.
fn rig(view: &View, area: Rect, buf: &mut Buffer) {
    let host = &view.state.host;
    let host_height = if host.lines.is_empty() {
        0
    } else {
        let wanted = host.lines.len() as u16 + 1;
        let spare = area.height.saturating_sub(SOURCE_HEIGHT + CAR_HEIGHT + 1);
        wanted.min(spare.max(2))
    };
    let [panels, host_area, health] = Layout::vertical([
        Constraint::Min(SOURCE_HEIGHT + CAR_HEIGHT),
        Constraint::Length(host_height),
        Constraint::Length(1),
    ])
    .areas(area);
    if host_height > 0 {
        HostPanel(view).render(host_area, buf);
    }
    let [left, loop_health] =
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(panels);
    let [source, car] = Layout::vertical([
        Constraint::Length(SOURCE_HEIGHT),
        Constraint::Min(CAR_HEIGHT),
    ])
    .areas(left);
    SourcePanel(view).render(source, buf);
    Car(view).render(car, buf);
    HealthPanel(view).render(loop_health, buf);
    LoopHealthLine(view).render(health, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_order_wraps_both_ways() {
        assert_eq!(Page::Drive.next(), Page::Tyres);
        assert_eq!(Page::Rig.next(), Page::Drive);
        assert_eq!(Page::Drive.previous(), Page::Rig);
        for page in Page::ALL {
            assert_eq!(page.next().previous(), page);
        }
    }
}
