//! Pressure plates with hysteresis, and the gates they open (seed 001, 5.1):
//! "the first thirty cross and trigger it, the next second the swarm's tail
//! swings off and it springs back" — a held plate lets go only after its count
//! has stayed under the release count for a while.

use crate::level::{Gate, Plate};

/// A plate's state between steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlateState {
    /// Creatures on it after the last step.
    pub count: u64,
    /// It holds (its gates may open).
    pub held: bool,
    /// Seconds its count has been under the release count while held.
    pub below: f32,
    /// The most creatures that have stood on it at once (a failure names it).
    pub most: u64,
}

impl PlateState {
    /// Takes the count after a step of `dt` seconds; true when `held` changed.
    pub fn update(&mut self, plate: &Plate, count: u64, dt: f32) -> bool {
        self.count = count;
        self.most = self.most.max(count);
        let was = self.held;
        if !self.held {
            if count >= plate.need {
                self.held = true;
                self.below = 0.0;
            }
        } else if count < plate.release {
            self.below += dt;
            if self.below >= plate.hold {
                self.held = false;
                self.below = 0.0;
            }
        } else {
            self.below = 0.0;
        }
        self.held != was
    }
}

/// A gate's state between steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GateState {
    /// Its obstacle is gone.
    pub open: bool,
    /// Its plates let go but a creature is inside its shape: it closes once the
    /// passage is clear (a gate never closes on a creature).
    pub closing: bool,
    /// It has opened at least once: the swarm may be past it, so its plates
    /// no longer decide that the level is lost.
    pub opened: bool,
    /// The game time, seconds, when it last opened or closed (the look
    /// animates the change).
    pub changed_at: f32,
}

/// What a gate should be given its plates: open when every plate holds; a
/// latched gate stays open. Returns the wanted `open`.
pub fn wants_open(gate: &Gate, state: GateState, plates: &[PlateState]) -> bool {
    (state.open && gate.latch) || gate.plates.iter().all(|&p| plates[p].held)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;
    use murmuration::Obstacle;

    fn plate(need: u64, release: u64, hold: f32) -> Plate {
        Plate {
            name: "p".into(),
            shape: Obstacle::Sphere {
                center: Vec2::ZERO,
                radius: 1.0,
            },
            need,
            release,
            hold,
        }
    }

    #[test]
    fn a_plate_holds_at_need_and_a_tail_swinging_off_does_not_flicker_it() {
        let p = plate(60, 48, 0.5);
        let mut s = PlateState::default();
        let dt = 1.0 / 60.0;
        assert!(!s.update(&p, 59, dt) && !s.held, "59 of 60 must not hold");
        assert!(s.update(&p, 60, dt) && s.held);
        // The tail swings off and back: 50..59 on it (above release), then a
        // dip under release shorter than the hold time: still held throughout.
        for c in (50..60).rev() {
            s.update(&p, c, dt);
            assert!(s.held, "let go at {c}, above the release count");
        }
        for _ in 0..20 {
            s.update(&p, 40, dt); // 20 steps = 0.33 s < 0.5 s
        }
        assert!(s.held, "a dip shorter than the hold time let it go");
        s.update(&p, 55, dt);
        assert_eq!(
            s.below, 0.0,
            "the dip's time resets once the count recovers"
        );
        // A real departure: under release for the hold time.
        let mut changed = false;
        for _ in 0..31 {
            changed |= s.update(&p, 30, dt);
        }
        assert!(
            changed && !s.held,
            "under release for 0.52 s should let it go"
        );
        // And it needs the full count again to hold.
        s.update(&p, 59, dt);
        assert!(!s.held);
    }

    #[test]
    fn a_gate_opens_when_all_its_plates_hold_and_a_latched_one_stays_open() {
        let gate = |latch| Gate {
            plates: vec![0, 1],
            shape: Obstacle::Sphere {
                center: Vec2::ZERO,
                radius: 1.0,
            },
            latch,
            required: true,
        };
        let held = |a, b| {
            [
                PlateState {
                    held: a,
                    ..PlateState::default()
                },
                PlateState {
                    held: b,
                    ..PlateState::default()
                },
            ]
        };
        let closed = GateState::default();
        let open = GateState {
            open: true,
            closing: false,
            opened: true,
            changed_at: 0.0,
        };
        assert!(!wants_open(&gate(true), closed, &held(true, false)));
        assert!(wants_open(&gate(true), closed, &held(true, true)));
        assert!(wants_open(&gate(true), open, &held(false, false)));
        assert!(!wants_open(&gate(false), open, &held(true, false)));
    }
}
