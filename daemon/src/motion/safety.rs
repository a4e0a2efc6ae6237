//! The motion safety state machine: when the platform may follow the cues, when it fades to
//! neutral, and when it parks. Pure logic, one call per tick; the stage applies the target.
//!
//! ```text
//! Connecting --a link ready--> Parking --at park--> Parked --fresh physics--> Raising
//! Raising --at neutral--> Active --stale--> Holding --fresh--> Active
//! Holding --hold_before_idle--> Idle --fresh--> Active;  Idle --idle_before_park--> Parking
//! any --every link lost--> Connecting (frozen);  a link back --> Parking (from there)
//! any --safe stop--> Parking (the writer threads own the final ramp)
//! ```
//! Motion never resumes without passing through Raising (ramp from park to neutral at the
//! actuator limits), and every ramp runs at the limits of the tracker.

/// Where the platform is in its life cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SafetyState {
    /// Waiting for the controller link (port open, post-open delay, start string).
    #[default]
    Connecting,
    /// At the park position, waiting for live physics.
    Parked,
    /// Ramping from park to neutral.
    Raising,
    /// Following the cues.
    Active,
    /// Physics went stale: cue input frozen at rest, the washout fades to neutral.
    Holding,
    /// Stale for long: held at neutral.
    Idle,
    /// Ramping to park.
    Parking,
}

/// What the actuators should aim at this tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Keep the current command (no link).
    Freeze,
    /// The park position.
    Park,
    /// Neutral (all actuators at 0).
    Neutral,
    /// The cued pose.
    Cue,
}

/// Timeouts in ticks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SafetyTimeouts {
    /// Ticks without simulation progress before physics counts as stale.
    pub stale_after: u64,
    /// Stale ticks before Holding becomes Idle.
    pub hold_before_idle: u64,
    /// Idle ticks before parking.
    pub idle_before_park: u64,
}

/// What happened this tick, as seen by the stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TickFacts {
    /// At least one controller link is up (each output parks and rejoins on its own).
    pub link_ready: bool,
    /// Simulation time advanced recently (not stale).
    pub physics_fresh: bool,
    /// The tracker is at the target of the current state.
    pub at_target: bool,
}

/// The state machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SafetyMachine {
    state: SafetyState,
    ticks_in_state: u64,
    timeouts: SafetyTimeouts,
}

impl SafetyMachine {
    /// A machine waiting for its link.
    pub fn new(timeouts: SafetyTimeouts) -> SafetyMachine {
        SafetyMachine {
            state: SafetyState::Connecting,
            ticks_in_state: 0,
            timeouts,
        }
    }

    /// The current state.
    pub fn state(&self) -> SafetyState {
        self.state
    }

    /// The target for the current state.
    pub fn target(&self) -> Target {
        match self.state {
            SafetyState::Connecting => Target::Freeze,
            SafetyState::Parked | SafetyState::Parking => Target::Park,
            SafetyState::Raising | SafetyState::Idle => Target::Neutral,
            SafetyState::Active | SafetyState::Holding => Target::Cue,
        }
    }

    /// Forces a state (safe stop, link restored).
    pub fn enter(&mut self, state: SafetyState) {
        if state != self.state {
            self.state = state;
            self.ticks_in_state = 0;
        }
    }

    /// Advances one tick; returns the new state.
    pub fn tick(&mut self, facts: TickFacts) -> SafetyState {
        self.ticks_in_state += 1;
        if !facts.link_ready {
            self.enter(SafetyState::Connecting);
            return self.state;
        }
        let t = self.timeouts;
        let next = match self.state {
            SafetyState::Connecting => Some(SafetyState::Parking),
            SafetyState::Parked if facts.physics_fresh => Some(SafetyState::Raising),
            SafetyState::Raising if facts.at_target => Some(SafetyState::Active),
            SafetyState::Active if !facts.physics_fresh => Some(SafetyState::Holding),
            SafetyState::Holding if facts.physics_fresh => Some(SafetyState::Active),
            SafetyState::Holding if self.ticks_in_state >= t.hold_before_idle => {
                Some(SafetyState::Idle)
            }
            SafetyState::Idle if facts.physics_fresh => Some(SafetyState::Active),
            SafetyState::Idle if self.ticks_in_state >= t.idle_before_park => {
                Some(SafetyState::Parking)
            }
            SafetyState::Parking if facts.at_target => Some(SafetyState::Parked),
            _ => None,
        };
        if let Some(state) = next {
            self.enter(state);
        }
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(link_ready: bool, physics_fresh: bool, at_target: bool) -> TickFacts {
        TickFacts {
            link_ready,
            physics_fresh,
            at_target,
        }
    }

    #[test]
    fn full_life_cycle() {
        let mut m = SafetyMachine::new(SafetyTimeouts {
            stale_after: 100,
            hold_before_idle: 3,
            idle_before_park: 5,
        });
        assert_eq!(m.tick(facts(false, true, false)), SafetyState::Connecting);
        assert_eq!(m.target(), Target::Freeze);
        // From wherever the link loss froze it, the platform parks first.
        assert_eq!(m.tick(facts(true, false, false)), SafetyState::Parking);
        assert_eq!(m.target(), Target::Park);
        assert_eq!(m.tick(facts(true, true, false)), SafetyState::Parking);
        assert_eq!(m.tick(facts(true, false, true)), SafetyState::Parked);
        assert_eq!(m.tick(facts(true, false, true)), SafetyState::Parked);
        assert_eq!(m.tick(facts(true, true, false)), SafetyState::Raising);
        assert_eq!(m.tick(facts(true, true, false)), SafetyState::Raising);
        assert_eq!(m.tick(facts(true, true, true)), SafetyState::Active);
        assert_eq!(m.tick(facts(true, false, false)), SafetyState::Holding);
        assert_eq!(m.target(), Target::Cue);
        for _ in 0..2 {
            assert_eq!(m.tick(facts(true, false, false)), SafetyState::Holding);
        }
        assert_eq!(m.tick(facts(true, false, false)), SafetyState::Idle);
        assert_eq!(m.target(), Target::Neutral);
        for _ in 0..4 {
            m.tick(facts(true, false, true));
        }
        assert_eq!(m.tick(facts(true, false, true)), SafetyState::Parking);
        assert_eq!(m.tick(facts(true, false, true)), SafetyState::Parked);
        // Link loss from anywhere freezes.
        m.enter(SafetyState::Active);
        assert_eq!(m.tick(facts(false, true, true)), SafetyState::Connecting);
    }
}
