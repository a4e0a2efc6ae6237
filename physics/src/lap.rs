//! Lap timing: turns a car's along-track distance, step after step, into laps, sectors and
//! current / last / best times.
//!
//! Invariants:
//! - The timer follows an *unwrapped* distance (metres travelled along the centreline since the
//!   first update, negative when driving backwards), so crossing the line backwards and
//!   forwards again never counts a lap: a lap is complete only when the unwrapped distance
//!   passes the next line position, one full lap length after the line that started it.
//! - A car that starts behind the line (on the grid) begins timing when it first crosses the
//!   line; a car placed on the line (within [`START_ON_LINE_M`]) is timing from its first
//!   update.
//! - Crossing instants are interpolated inside the step, so lap times do not carry the step
//!   quantisation.
//! - `update` does no allocation and no I/O: it runs on the real-time thread once per car and
//!   step.

use crate::telemetry::LapTelemetry;
use crate::track::{wrap_into_lap, Track, TrackCoord};

/// A car this close past the line at its first update counts as starting on it, m.
pub const START_ON_LINE_M: f64 = 0.5;

/// Lap and sector timing for one car.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LapTimer {
    length_m: f64,
    sector_starts_m: [f64; 2],
    /// Distance of the previous update in `0 .. length`, `None` before the first update.
    previous_distance_m: Option<f64>,
    /// Unwrapped distance travelled along the centreline.
    unwrapped_m: f64,
    /// Unwrapped distance at which the next lap is completed (or timing starts).
    next_line_m: f64,
    timing: bool,
    laps_completed: u32,
    sector: u8,
    current_lap_s: f64,
    sector_entry_s: f64,
    last_lap_s: f64,
    best_lap_s: f64,
    sector_times_s: [f64; 3],
    best_sector_times_s: [f64; 3],
    lateral_m: f64,
}

impl LapTimer {
    /// A timer for laps of `track`, waiting for its first update.
    pub fn new(track: &Track) -> LapTimer {
        LapTimer {
            length_m: track.length_m(),
            sector_starts_m: track.sector_starts_m(),
            previous_distance_m: None,
            unwrapped_m: 0.0,
            next_line_m: 0.0,
            timing: false,
            laps_completed: 0,
            sector: 0,
            current_lap_s: 0.0,
            sector_entry_s: 0.0,
            last_lap_s: 0.0,
            best_lap_s: 0.0,
            sector_times_s: [0.0; 3],
            best_sector_times_s: [0.0; 3],
            lateral_m: 0.0,
        }
    }

    /// Advances the timer: the car is now at `coord` after `dt_s` seconds of driving.
    pub fn update(&mut self, coord: &TrackCoord, dt_s: f64) {
        self.lateral_m = coord.lateral_m;
        let distance = coord.distance_m;
        let Some(previous) = self.previous_distance_m else {
            self.start(distance);
            return;
        };
        self.previous_distance_m = Some(distance);
        let half = 0.5 * self.length_m;
        let delta = wrap_into_lap(distance - previous + half, self.length_m) - half;
        let before = self.unwrapped_m;
        self.unwrapped_m += delta;
        self.current_lap_s += dt_s;

        if self.unwrapped_m >= self.next_line_m && delta > 0.0 {
            // Fraction of this step spent after the line.
            let after = (self.unwrapped_m - self.next_line_m) / (self.unwrapped_m - before);
            let after_s = after.clamp(0.0, 1.0) * dt_s;
            if self.timing {
                self.complete_lap(self.current_lap_s - after_s);
            }
            self.timing = true;
            self.begin_lap(after_s);
            self.next_line_m += self.length_m;
        }
        if self.timing {
            self.advance_sector();
        }
    }

    /// The lap channels for the car's telemetry.
    pub fn telemetry(&self) -> LapTelemetry {
        let mut sector_times_s = self.sector_times_s;
        if self.timing {
            sector_times_s[usize::from(self.sector)] = self.current_lap_s - self.sector_entry_s;
        }
        LapTelemetry {
            distance_m: self.previous_distance_m.unwrap_or(0.0),
            lateral_offset_m: self.lateral_m,
            track_length_m: self.length_m,
            laps_completed: self.laps_completed,
            sector: self.sector,
            current_lap_s: self.current_lap_s,
            last_lap_s: self.last_lap_s,
            best_lap_s: self.best_lap_s,
            sector_times_s,
            best_sector_times_s: self.best_sector_times_s,
        }
    }

    fn start(&mut self, distance_m: f64) {
        self.previous_distance_m = Some(distance_m);
        // Unwrapped origin: the line is at 0, the car within half a lap of it.
        let half = 0.5 * self.length_m;
        self.unwrapped_m = (distance_m + half).rem_euclid(self.length_m) - half;
        if (0.0..START_ON_LINE_M).contains(&self.unwrapped_m) {
            self.timing = true;
            self.next_line_m = self.length_m;
        } else if self.unwrapped_m < 0.0 {
            self.next_line_m = 0.0;
        } else {
            self.next_line_m = self.length_m;
        }
    }

    /// Closes the lap at `lap_s` (the interpolated crossing instant).
    fn complete_lap(&mut self, lap_s: f64) {
        let last_sector = usize::from(self.sector);
        self.sector_times_s[last_sector] = lap_s - self.sector_entry_s;
        if self.sector == 2 {
            // Sector bests only from laps that passed every sector in order.
            for (best, time) in self.best_sector_times_s.iter_mut().zip(self.sector_times_s) {
                if *best == 0.0 || time < *best {
                    *best = time;
                }
            }
        }
        self.laps_completed += 1;
        self.last_lap_s = lap_s;
        if self.best_lap_s == 0.0 || lap_s < self.best_lap_s {
            self.best_lap_s = lap_s;
        }
    }

    /// Starts a new lap that has already run for `elapsed_s`.
    fn begin_lap(&mut self, elapsed_s: f64) {
        self.current_lap_s = elapsed_s;
        self.sector = 0;
        self.sector_entry_s = 0.0;
        self.sector_times_s = [0.0; 3];
    }

    /// Moves to the next sector when the lap's progress passes its start (forward only).
    /// Sector splits are not interpolated inside the step: at most one step of error.
    fn advance_sector(&mut self) {
        let lap_start_m = self.next_line_m - self.length_m;
        let progress_m = self.unwrapped_m - lap_start_m;
        while self.sector < 2 && progress_m >= self.sector_starts_m[usize::from(self.sector)] {
            let index = usize::from(self.sector);
            self.sector_times_s[index] = self.current_lap_s - self.sector_entry_s;
            self.sector_entry_s = self.current_lap_s;
            self.sector += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(distance_m: f64) -> TrackCoord {
        TrackCoord {
            distance_m,
            ..TrackCoord::default()
        }
    }

    /// Drives `timer` at `speed_mps` from `from_m` for `seconds` in 1 ms steps on a track of
    /// `length_m`; returns the final distance.
    fn drive(
        timer: &mut LapTimer,
        length_m: f64,
        from_m: f64,
        speed_mps: f64,
        seconds: f64,
    ) -> f64 {
        let dt = 0.001;
        let steps = (seconds / dt).round() as usize;
        let mut d = from_m;
        for _ in 0..steps {
            d += speed_mps * dt;
            timer.update(&at(d.rem_euclid(length_m)), dt);
        }
        d
    }

    #[test]
    fn laps_from_a_grid_start_time_from_the_first_crossing() {
        let track = Track::flat();
        let length = track.length_m();
        let mut timer = LapTimer::new(&track);
        timer.update(&at(length - 10.0), 0.001);
        // 10 m to the line at 50 m/s = 0.2 s, then two 20 s laps and 5 s more.
        drive(&mut timer, length, -10.0, 50.0, 45.2);
        let lap = timer.telemetry();
        assert_eq!(lap.laps_completed, 2);
        assert!((lap.last_lap_s - 20.0).abs() < 1e-6, "{}", lap.last_lap_s);
        assert!((lap.best_lap_s - 20.0).abs() < 1e-6);
        assert!(
            (lap.current_lap_s - 5.0).abs() < 1e-6,
            "{}",
            lap.current_lap_s
        );
        let third = 20.0 / 3.0;
        for best in lap.best_sector_times_s {
            assert!((best - third).abs() < 2e-3, "{best}");
        }
        assert_eq!(lap.sector, 0);
    }

    #[test]
    fn backing_over_the_line_and_forward_again_is_not_a_lap() {
        let track = Track::flat();
        let length = track.length_m();
        let mut timer = LapTimer::new(&track);
        timer.update(&at(length - 5.0), 0.001);
        let d = drive(&mut timer, length, -5.0, 10.0, 1.0); // crosses: timing starts
        let d = drive(&mut timer, length, d, -10.0, 1.0); // back over the line
        drive(&mut timer, length, d, 10.0, 1.0); // forward over it again
        let lap = timer.telemetry();
        assert_eq!(lap.laps_completed, 0);
        assert_eq!(lap.last_lap_s, 0.0);
    }

    #[test]
    fn sectors_advance_and_report_running_times() {
        let track = Track::flat();
        let length = track.length_m();
        let starts = track.sector_starts_m();
        let mut timer = LapTimer::new(&track);
        timer.update(&at(0.0), 0.001);
        drive(&mut timer, length, 0.0, 100.0, (starts[0] + 50.0) / 100.0);
        let lap = timer.telemetry();
        assert_eq!(lap.sector, 1);
        assert!((lap.sector_times_s[0] - starts[0] / 100.0).abs() < 2e-3);
        assert!((lap.sector_times_s[1] - 0.5).abs() < 2e-3);
        assert_eq!(lap.sector_times_s[2], 0.0);
    }
}
