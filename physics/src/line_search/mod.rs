//! The line-finding robot (the Physics of Racing's RARSEP plan): searches for a faster line
//! around a track by driving it. The line is the robot's lateral offsets at its stations; the
//! objective is the flying-lap time of the real car (the 1 kHz [`crate::World`] with the
//! built-in robot at the wheel, its speed profile re-planned for every line), measured by
//! driving ([`drive`]).
//!
//! The search: start from the robot's planned line; each iteration tries a batch of tweaks
//! (a smooth bump of the line over a stretch of stations, towards the left or the right),
//! each re-driven only over the stretch it changes, from the last checkpoint before it, until
//! the car is back on the previous trace's speed and position; batches run on `threads`
//! threads ([`std::thread::scope`]). Tweaks that gain are combined, the whole line is driven
//! from the grid again, and kept only if the flying lap is faster and every wheel stayed
//! inside the track edges. A tweak that worked is tried again (the seed's "keep tweaking in
//! the same direction"); when a number of batches in a row gain nothing the tweak size
//! shrinks (diminishing returns), and the search has converged when it is below
//! [`MIN_TWEAK_M`].
//!
//! [`Strategy::Sections`] chooses tweaks differently (coordinate descent): the stations near
//! corners are cut into sections, each with its own tweak size and direction; an iteration
//! tries the next batch of sections in turn, and each section's size grows after a gain (its
//! stretch's time delta) and shrinks after failing both ways, so the search spends its laps
//! where the line still gains and stops where it does not ([`Search::converged`]: every
//! section below [`MIN_TWEAK_M`]).
//!
//! Deterministic: tweaks come from a seeded generator, each evaluation is a pure function of
//! the line and the trace, and results are combined in tweak order whatever thread ran them,
//! so the same seed and number of iterations give the same line bit for bit. This module has
//! no clock: the caller (`rigd line`) owns the time budget. Not used by `World::step`.

pub mod drive;
pub mod file;

use drive::{run_full, run_stretch, Abandoned, Course, Runner, Trace};

/// Largest tweak at the start, m.
pub const START_TWEAK_M: f64 = 1.2;
/// The search has converged when tweaks are smaller than this, m.
pub const MIN_TWEAK_M: f64 = 0.04;
/// Each shrink multiplies the tweak size by this.
const SHRINK: f64 = 0.6;
/// Batches in a row without gain before the tweak size shrinks.
const PATIENCE: u32 = 6;
/// A tweak's half width, stations: from this ...
const MIN_HALF_STATIONS: usize = 3;
/// ... to this.
const MAX_HALF_STATIONS: usize = 14;
/// The re-drive starts this far before the first station whose plan changed (covers the
/// robot's pure-pursuit look-ahead and speed preview at speed), m.
const LEAD_IN_M: f64 = 90.0;
/// A stretch counts as gaining when it is this much faster, s.
const MIN_GAIN_S: f64 = 1e-4;
/// [`Strategy::Sections`]: stations between section centres.
const SECTION_STRIDE: usize = 6;
/// [`Strategy::Sections`]: a section's tweak half width, stations.
const SECTION_HALF_STATIONS: usize = 8;
/// [`Strategy::Sections`]: a gain multiplies the section's size by this ...
const SECTION_GROW: f64 = 1.3;
/// ... up to this, m.
const SECTION_MAX_TWEAK_M: f64 = 2.0 * START_TWEAK_M;
/// [`Strategy::Sections`]: failing both ways multiplies it by this.
const SECTION_SHRINK: f64 = 0.5;

/// How a search chooses its tweaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Random bumps near corners, one tweak size for all that shrinks when a number of
    /// batches in a row gain nothing (the seed's plan).
    #[default]
    Random,
    /// Coordinate descent over sections near corners, each with its own tweak size and
    /// direction, adapted from its own stretch's time delta.
    Sections,
}

impl Strategy {
    /// The name written in line files and taken by `rigd line --search`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Random => "random",
            Strategy::Sections => "sections",
        }
    }

    /// The strategy called `name` ([`Strategy::name`]).
    pub fn from_name(name: &str) -> Option<Strategy> {
        [Strategy::Random, Strategy::Sections]
            .into_iter()
            .find(|strategy| strategy.name() == name)
    }
}

/// Search settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Seed of the tweak generator.
    pub seed: u64,
    /// Tweaks tried per iteration.
    pub batch: usize,
    /// Threads that drive them.
    pub threads: usize,
    /// How tweaks are chosen.
    pub strategy: Strategy,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 1,
            batch: 4,
            threads: 2,
            strategy: Strategy::default(),
        }
    }
}

/// A smooth bump of the line: `amplitude_m` at station `centre`, fading to nothing over
/// `half_stations` on either side (a raised cosine).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tweak {
    /// Station at the bump's peak.
    pub centre: usize,
    /// Stations on either side over which it fades out.
    pub half_stations: usize,
    /// Its height, m (positive left).
    pub amplitude_m: f64,
}

/// What one iteration did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IterationReport {
    /// Iterations done so far.
    pub iteration: u64,
    /// Tweaks whose stretch gained.
    pub gaining: usize,
    /// The line changed (its full lap was faster).
    pub improved: bool,
    /// Best flying lap so far, s.
    pub best_lap_s: f64,
    /// Time gained against the start line, s.
    pub gained_s: f64,
    /// Current tweak size, m.
    pub tweak_m: f64,
}

/// A line search in progress.
#[derive(Debug)]
pub struct Search {
    course: Course,
    settings: Settings,
    offsets_m: Vec<f64>,
    trace: Trace,
    start_lap_s: f64,
    runners: Vec<Runner>,
    rng: SplitMix,
    tweak_m: f64,
    batches_without_gain: u32,
    repeat: Option<Tweak>,
    /// Stations where a tweak may be centred (near the track's corners).
    centres: Vec<usize>,
    /// [`Strategy::Sections`]: the sections and the next one to try.
    sections: Vec<Section>,
    next_section: usize,
    iteration: u64,
}

/// [`Strategy::Sections`]: one section of the line with its own tweak.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Section {
    centre: usize,
    /// Its tweak size, m.
    tweak_m: f64,
    /// The direction tried next (+1 left).
    sign: f64,
    /// Tries in a row without a gain (two: both directions failed).
    misses: u32,
}

/// Why a search cannot start.
#[allow(missing_docs)] // Each variant's #[error] text says what its fields are.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// The starting line does not complete a lap inside the track edges.
    #[error(
        "the starting line does not lap {track} with {car} inside the track edges ({why:?}); \
         start from the robot's own planned line"
    )]
    StartLineFails {
        track: String,
        car: String,
        why: Abandoned,
    },
    /// The line has a different number of stations than the course.
    #[error("the line has {given} stations, the track needs {needed}")]
    StationCount { given: usize, needed: usize },
}

impl Search {
    /// A search on `course` starting from the robot's planned line.
    pub fn new(course: Course, settings: Settings) -> Result<Search, SearchError> {
        let offsets = course.planned_offsets();
        Search::from_line(course, settings, offsets)
    }

    /// A search on `course` starting from `offsets_m`.
    pub fn from_line(
        course: Course,
        settings: Settings,
        offsets_m: Vec<f64>,
    ) -> Result<Search, SearchError> {
        if offsets_m.len() != course.station_count() {
            return Err(SearchError::StationCount {
                given: offsets_m.len(),
                needed: course.station_count(),
            });
        }
        let threads = settings.threads.max(1);
        let mut runners: Vec<Runner> = (0..threads).map(|_| Runner::new(&course)).collect();
        let trace = run_full(&mut runners[0], course.robot(&offsets_m)).map_err(|why| {
            SearchError::StartLineFails {
                track: course.track().name().to_string(),
                car: course.car().name.clone(),
                why,
            }
        })?;
        let centres = corner_centres(&course);
        let sections = centres
            .iter()
            .step_by(SECTION_STRIDE)
            .map(|&centre| Section {
                centre,
                tweak_m: START_TWEAK_M,
                sign: 1.0,
                misses: 0,
            })
            .collect();
        Ok(Search {
            start_lap_s: trace.lap_s,
            rng: SplitMix(settings.seed),
            settings: Settings {
                threads,
                batch: settings.batch.max(1),
                ..settings
            },
            course,
            offsets_m,
            trace,
            runners,
            tweak_m: START_TWEAK_M,
            batches_without_gain: 0,
            repeat: None,
            centres,
            sections,
            next_section: 0,
            iteration: 0,
        })
    }

    /// The course searched.
    pub fn course(&self) -> &Course {
        &self.course
    }

    /// The best line so far (offsets at the stations), m.
    pub fn offsets_m(&self) -> &[f64] {
        &self.offsets_m
    }

    /// The flying lap of the best line so far, s.
    pub fn best_lap_s(&self) -> f64 {
        self.trace.lap_s
    }

    /// The flying lap of the line the search started from, s.
    pub fn start_lap_s(&self) -> f64 {
        self.start_lap_s
    }

    /// The best line's flying-lap record.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Iterations done.
    pub fn iterations(&self) -> u64 {
        self.iteration
    }

    /// Simulated steps driven so far (all threads).
    pub fn simulated_steps(&self) -> u64 {
        self.runners.iter().map(|runner| runner.steps).sum()
    }

    /// The current tweak size (with [`Strategy::Sections`], the largest section's), m.
    pub fn tweak_m(&self) -> f64 {
        match self.settings.strategy {
            Strategy::Random => self.tweak_m,
            Strategy::Sections => self
                .sections
                .iter()
                .fold(0.0, |largest, section| section.tweak_m.max(largest)),
        }
    }

    /// True when the tweaks have shrunk below [`MIN_TWEAK_M`] (every section's, with
    /// [`Strategy::Sections`]).
    pub fn converged(&self) -> bool {
        self.tweak_m() < MIN_TWEAK_M
    }

    /// The line with `tweak` applied, kept inside the edges.
    pub fn tweaked(&self, base: &[f64], tweak: Tweak) -> Vec<f64> {
        let m = base.len();
        let mut line = base.to_vec();
        let h = tweak.half_stations as isize;
        for i in -h..=h {
            let j = (tweak.centre as isize + i).rem_euclid(m as isize) as usize;
            let weight = 0.5 * (1.0 + (std::f64::consts::PI * i as f64 / (h + 1) as f64).cos());
            let (lo, hi) = self.course.bounds_m(j);
            line[j] = (line[j] + tweak.amplitude_m * weight).clamp(lo, hi);
        }
        line
    }

    fn next_tweak(&mut self) -> Tweak {
        let centre = self.centres[self.rng.below(self.centres.len())];
        let half_stations =
            MIN_HALF_STATIONS + self.rng.below(MAX_HALF_STATIONS - MIN_HALF_STATIONS + 1);
        let size = self.tweak_m * (0.25 + 0.75 * self.rng.unit());
        let sign = if self.rng.below(2) == 0 { -1.0 } else { 1.0 };
        Tweak {
            centre,
            half_stations,
            amplitude_m: sign * size,
        }
    }

    /// [`Strategy::Sections`]: the next batch of unconverged sections, in turn (indices).
    fn next_sections(&mut self) -> Vec<usize> {
        let n = self.sections.len();
        let mut chosen = Vec::with_capacity(self.settings.batch);
        let mut looked = 0;
        while chosen.len() < self.settings.batch && looked < n {
            let index = self.next_section % n;
            self.next_section = (self.next_section + 1) % n;
            looked += 1;
            if self.sections[index].tweak_m >= MIN_TWEAK_M {
                chosen.push(index);
            }
        }
        chosen
    }

    /// [`Strategy::Sections`]: each tried section's size and direction after its delta.
    fn adapt_sections(&mut self, tried: &[usize], deltas: &[Option<f64>]) {
        for (&index, delta) in tried.iter().zip(deltas) {
            let section = &mut self.sections[index];
            if delta.is_some_and(|d| d < -MIN_GAIN_S) {
                section.tweak_m = (section.tweak_m * SECTION_GROW).min(SECTION_MAX_TWEAK_M);
                section.misses = 0;
            } else {
                section.sign = -section.sign;
                section.misses += 1;
                if section.misses >= 2 {
                    section.tweak_m *= SECTION_SHRINK;
                    section.misses = 0;
                }
            }
        }
    }

    /// One iteration: a batch of tweaks driven, the gaining ones combined and kept if the
    /// whole lap is faster.
    pub fn iterate(&mut self) -> IterationReport {
        self.iteration += 1;
        let mut tweaks: Vec<Tweak> = Vec::with_capacity(self.settings.batch);
        let mut tried_sections = Vec::new();
        match self.settings.strategy {
            Strategy::Random => {
                if let Some(repeat) = self.repeat.take() {
                    tweaks.push(repeat);
                }
                while tweaks.len() < self.settings.batch {
                    let tweak = self.next_tweak();
                    tweaks.push(tweak);
                }
            }
            Strategy::Sections => {
                tried_sections = self.next_sections();
                tweaks.extend(tried_sections.iter().map(|&index| {
                    let section = self.sections[index];
                    Tweak {
                        centre: section.centre,
                        half_stations: SECTION_HALF_STATIONS,
                        amplitude_m: section.sign * section.tweak_m,
                    }
                }));
            }
        }
        let lines: Vec<Vec<f64>> = tweaks
            .iter()
            .map(|tweak| self.tweaked(&self.offsets_m, *tweak))
            .collect();
        let deltas = self.evaluate(&lines);
        if self.settings.strategy == Strategy::Sections {
            self.adapt_sections(&tried_sections, &deltas);
        }
        // Gaining tweaks, best first (ties in tweak order), combined while they touch
        // different stretches.
        let mut order: Vec<usize> = (0..tweaks.len())
            .filter(|&i| deltas[i].is_some_and(|d| d < -MIN_GAIN_S))
            .collect();
        order.sort_by(|&a, &b| deltas[a].unwrap().total_cmp(&deltas[b].unwrap()));
        let gaining = order.len();
        let mut improved = false;
        if let Some(&best) = order.first() {
            let mut chosen = vec![best];
            for &i in &order[1..] {
                if chosen
                    .iter()
                    .all(|&c| apart(&tweaks[c], &tweaks[i], self.offsets_m.len()))
                {
                    chosen.push(i);
                }
            }
            let mut attempts = vec![chosen.clone()];
            if chosen.len() > 1 {
                attempts.push(vec![best]);
            }
            for attempt in attempts {
                let mut line = self.offsets_m.clone();
                for &i in &attempt {
                    line = self.tweaked(&line, tweaks[i]);
                }
                if let Ok(trace) = run_full(&mut self.runners[0], self.course.robot(&line)) {
                    if trace.lap_s < self.trace.lap_s {
                        self.offsets_m = line;
                        self.trace = trace;
                        if self.settings.strategy == Strategy::Random {
                            self.repeat = Some(tweaks[best]);
                        }
                        improved = true;
                        break;
                    }
                }
            }
        }
        if improved || self.settings.strategy == Strategy::Sections {
            self.batches_without_gain = 0;
        } else {
            self.batches_without_gain += 1;
            if self.batches_without_gain >= PATIENCE {
                self.batches_without_gain = 0;
                self.tweak_m *= SHRINK;
            }
        }
        IterationReport {
            iteration: self.iteration,
            gaining,
            improved,
            best_lap_s: self.trace.lap_s,
            gained_s: self.start_lap_s - self.trace.lap_s,
            tweak_m: self.tweak_m(),
        }
    }

    /// The time each line gains (negative) on its changed stretch against the current
    /// trace; None when it leaves the track or changes nothing. Runs on the runners' threads.
    fn evaluate(&mut self, lines: &[Vec<f64>]) -> Vec<Option<f64>> {
        let course = &self.course;
        let trace = &self.trace;
        let current = &self.offsets_m;
        let base_robot = course.robot(current);
        let threads = self.runners.len();
        let mut results = vec![None; lines.len()];
        std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .runners
                .iter_mut()
                .enumerate()
                .map(|(worker, runner)| {
                    let base_robot = &base_robot;
                    scope.spawn(move || {
                        (worker..lines.len())
                            .step_by(threads)
                            .map(|i| {
                                let delta = evaluate_line(
                                    course, runner, trace, base_robot, current, &lines[i],
                                );
                                (i, delta)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for handle in handles {
                // A worker only drives the simulation, which does not panic on any input;
                // a panic there is a bug worth propagating.
                for (i, delta) in handle.join().expect("line-search worker panicked") {
                    results[i] = delta;
                }
            }
        });
        results
    }
}

/// The time `line` gains against `trace` (of `current`, driven by `base_robot`) over the
/// stretch it changes; None when it changes nothing or leaves the track.
fn evaluate_line(
    course: &Course,
    runner: &mut Runner,
    trace: &Trace,
    base_robot: &crate::robot::Robot,
    current: &[f64],
    line: &[f64],
) -> Option<f64> {
    let planned = course.robot(line);
    let m = course.station_count();
    let spacing = course.spacing_m();
    let changed: Vec<bool> = (0..m)
        .map(|j| {
            let d = j as f64 * spacing;
            line[j].to_bits() != current[j].to_bits()
                || planned.target_speed_mps(d).to_bits() != base_robot.target_speed_mps(d).to_bits()
        })
        .collect();
    let (first, length) = changed_arc(&changed)?;
    let lead = (LEAD_IN_M / spacing).ceil() as usize;
    let (from, through) = if first + length > m || first < lead {
        // The change wraps over (or runs close to) the line: drive the whole flying lap.
        (0, m)
    } else {
        (first - lead, first + length)
    };
    run_stretch(runner, trace, planned, from, through)
        .ok()
        .map(|result| result.delta_s)
}

/// The shortest cyclic run of stations that holds every `true`: (first, length).
fn changed_arc(changed: &[bool]) -> Option<(usize, usize)> {
    let m = changed.len();
    let any = changed.iter().position(|&c| c)?;
    // The longest cyclic run of unchanged stations; the arc is its complement.
    let (mut best_gap, mut best_end) = (0, any);
    let mut gap = 0;
    for step in 1..=m {
        let j = (any + step) % m;
        if changed[j] {
            if gap > best_gap {
                best_gap = gap;
                best_end = j;
            }
            gap = 0;
        } else {
            gap += 1;
        }
    }
    Some((best_end, m - best_gap))
}

/// True when two tweaks' stretches (with the re-drive's lead-in) do not overlap.
fn apart(a: &Tweak, b: &Tweak, m: usize) -> bool {
    let distance = (a.centre as isize - b.centre as isize).rem_euclid(m as isize) as usize;
    let distance = distance.min(m - distance);
    distance > a.half_stations + b.half_stations + 2 * MAX_HALF_STATIONS
}

/// Stations within reach of a corner of the track (where tweaks are centred): every station
/// within 30 stations of one whose centreline curvature exceeds 1/600 m.
fn corner_centres(course: &Course) -> Vec<usize> {
    let m = course.station_count();
    let spacing = course.spacing_m();
    let curved: Vec<bool> = (0..m)
        .map(|j| {
            course
                .track()
                .section(j as f64 * spacing)
                .curvature_per_m
                .abs()
                > 1.0 / 600.0
        })
        .collect();
    let reach = 30;
    let centres: Vec<usize> = (0..m)
        .filter(|&j| (0..=2 * reach).any(|k| curved[(j + m + k - reach) % m]))
        .collect();
    if centres.is_empty() {
        (0..m).collect()
    } else {
        centres
    }
}

/// SplitMix64: a small, fast, seedable generator (the search needs reproducibility, not
/// cryptographic quality).
#[derive(Debug, Clone)]
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0 .. n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
