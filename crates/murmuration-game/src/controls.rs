//! What the player can do (seed 001, 3.2): the commands one fixed step takes,
//! the tuning of each control (plain data, a level's `[game.controls]`), and the
//! default key bindings the pause menu lists.

use glam::Vec2;
use serde::{Deserialize, Serialize};

/// One thing the player did, applied at the start of a fixed simulation step.
/// Positions are in the level's own coordinates (relative to its lower corner,
/// [`murmuration::scenario::ParseOptions::recentre`]), so a recording replays
/// wherever the level is placed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Command {
    /// The pointer is here: the focus heads for it (with smoothing).
    Point(Vec2),
    /// Movement keys held, each axis −1, 0 or 1 (WASD or arrows); `(0, 0)` when
    /// released. The focus's goal moves at [`Controls::key_speed`].
    Keys(i8, i8),
    /// Shift pressed with the pointer here: a light path starts.
    PathBegin(Vec2),
    /// The drag reached here: the path grows (points closer than
    /// [`Controls::path_spacing`] to the last are skipped).
    PathTo(Vec2),
    /// The drag ended: the path fades over [`Controls::path_lifetime`].
    PathEnd,
    /// Right click here: a repel pulse, when its cooldown allows.
    Pulse(Vec2),
    /// Space or double click: every creature gathers to the focus, around
    /// walls, when its cooldown allows.
    Recall,
}

/// The tuning of the player's controls (a level's `[game.controls]`; every key
/// optional). Lengths in level units, times in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Controls {
    /// How fast the focus follows the pointer, 1/s, in (0, 100]: each step it
    /// closes `1 − exp(−focus_follow·dt)` of the gap, so a flick never teleports it.
    pub focus_follow: f32,
    /// Weight of the swarm's pull to the focus, in (0, 10]. Under force
    /// priorities the pull takes this share of a creature's steering at most,
    /// leaving the rest to separation and alignment. Seed 001's "gentle pull"
    /// (3.1): stronger, it packs every creature toward one point, a dense comet.
    pub focus_weight: f32,
    /// Arrival radius of the focus, units, in (0, 1000]: creatures slow inside it
    /// and settle around the focus instead of piling onto it.
    pub focus_radius: f32,
    /// How far the focus's light reaches, units, in (0, 1e4]: creatures farther
    /// away lose it and drift with their neighbours, so a group combed off by a
    /// light path stays where it was led (a recall reaches everyone).
    pub focus_range: f32,
    /// Speed of the focus under the movement keys, units/s, in (0, 1000].
    pub key_speed: f32,
    /// Capture radius of a light path, units, in (0, 100]: narrow, so a short
    /// path at the swarm's edge combs off only the creatures it touches.
    pub path_capture: f32,
    /// Weight of a light path's flow, in (0, 100].
    pub path_weight: f32,
    /// Seconds a released light path takes to fade away, in (0, 60].
    pub path_lifetime: f32,
    /// Least distance between a path's points, units, in (0, 100].
    pub path_spacing: f32,
    /// Reach of a repel pulse, units, in (0, 1000].
    pub pulse_radius: f32,
    /// Outward acceleration at a fresh pulse's centre, units/s², in (0, 1e6].
    pub pulse_strength: f32,
    /// Seconds a pulse lasts (its push fades to zero), in (0, 10].
    pub pulse_duration: f32,
    /// Seconds before the next pulse, in [0, 60].
    pub pulse_cooldown: f32,
    /// Seconds before the next recall, in [0, 60] (seed 001: 3 s, long enough
    /// to watch the swarm gather).
    pub recall_cooldown: f32,
    /// Seconds a recall lasts, in (0, 30]: the focus's pull reaches every
    /// creature, however far, along the way around walls.
    pub recall_duration: f32,
    /// Weight of the pull to the focus during a recall, in (0, 10].
    pub recall_weight: f32,
    /// Once enough creatures are saved, the level ends after this many seconds
    /// without another reaching the exit, in (0, 600].
    pub finish_after: f32,
}

impl Default for Controls {
    fn default() -> Self {
        Self {
            focus_follow: 5.0,
            focus_weight: 0.3,
            focus_radius: 8.0,
            focus_range: 45.0,
            key_speed: 20.0,
            path_capture: 1.6,
            path_weight: 1.5,
            path_lifetime: 8.0,
            path_spacing: 0.8,
            pulse_radius: 8.0,
            pulse_strength: 200.0,
            pulse_duration: 0.6,
            pulse_cooldown: 1.5,
            recall_cooldown: 3.0,
            recall_duration: 2.5,
            recall_weight: 0.8,
            finish_after: 5.0,
        }
    }
}

/// The share of [`Controls::focus_range`] a pointer may lead the swarm by: the
/// focus stays well inside its light however far the cursor goes.
pub const LEAD_SHARE: f32 = 0.8;

impl Controls {
    /// Where the pointer leads the swarm: the point under the cursor, drawn in
    /// toward the swarm's centre `swarm` until it lies within [`LEAD_SHARE`] of
    /// the focus's reach. A cursor at the screen's edge then leads at the
    /// swarm's pace instead of running the focus out of its light (seed 001,
    /// 3.3: the swarm never disconnects from the hand).
    pub fn lead(&self, pointer: Vec2, swarm: Vec2) -> Vec2 {
        if !pointer.is_finite() || !swarm.is_finite() {
            return pointer;
        }
        swarm + (pointer - swarm).clamp_length_max(LEAD_SHARE * self.focus_range)
    }

    /// Every field with its valid range: `(key, value, low, high, low open)`.
    fn ranges(&self) -> [(&'static str, f32, f32, f32, bool); 17] {
        [
            ("focus_follow", self.focus_follow, 0.0, 100.0, true),
            ("focus_weight", self.focus_weight, 0.0, 10.0, true),
            ("focus_radius", self.focus_radius, 0.0, 1000.0, true),
            ("focus_range", self.focus_range, 0.0, 1e4, true),
            ("key_speed", self.key_speed, 0.0, 1000.0, true),
            ("path_capture", self.path_capture, 0.0, 100.0, true),
            ("path_weight", self.path_weight, 0.0, 100.0, true),
            ("path_lifetime", self.path_lifetime, 0.0, 60.0, true),
            ("path_spacing", self.path_spacing, 0.0, 100.0, true),
            ("pulse_radius", self.pulse_radius, 0.0, 1000.0, true),
            ("pulse_strength", self.pulse_strength, 0.0, 1e6, true),
            ("pulse_duration", self.pulse_duration, 0.0, 10.0, true),
            ("pulse_cooldown", self.pulse_cooldown, 0.0, 60.0, false),
            ("recall_cooldown", self.recall_cooldown, 0.0, 60.0, false),
            ("recall_duration", self.recall_duration, 0.0, 30.0, true),
            ("recall_weight", self.recall_weight, 0.0, 10.0, true),
            ("finish_after", self.finish_after, 0.0, 600.0, true),
        ]
    }

    /// The first field out of its range, as `(key, message)`.
    pub fn invalid(&self) -> Option<(&'static str, String)> {
        self.ranges()
            .into_iter()
            .find_map(|(key, v, lo, hi, open)| {
                let ok = if open { v > lo } else { v >= lo } && v <= hi;
                (!ok).then(|| {
                    let l = if open { '(' } else { '[' };
                    (
                        key,
                        format!("{key} = {v} is out of range: must be in {l}{lo}, {hi}]"),
                    )
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lead_stays_within_the_focus_reach_of_the_swarm() {
        let c = Controls::default();
        let swarm = Vec2::new(10.0, 5.0);
        // Near the swarm the pointer is taken as it is.
        assert_eq!(c.lead(Vec2::new(20.0, 5.0), swarm), Vec2::new(20.0, 5.0));
        // Far away it is drawn in along the same direction.
        let far = c.lead(Vec2::new(1010.0, 5.0), swarm);
        assert!(
            (far - swarm).length() <= LEAD_SHARE * c.focus_range + 1e-3,
            "{far}"
        );
        assert!((far.y - 5.0).abs() < 1e-4 && far.x > swarm.x);
    }

    #[test]
    fn the_defaults_are_valid_and_each_range_is_checked() {
        assert_eq!(Controls::default().invalid(), None);
        let c = Controls {
            recall_weight: 0.0,
            ..Controls::default()
        };
        let (key, m) = c.invalid().unwrap();
        assert_eq!(key, "recall_weight");
        assert!(m.contains("(0, 10]"), "{m}");
        let c = Controls {
            focus_follow: f32::NAN,
            ..Controls::default()
        };
        assert_eq!(c.invalid().unwrap().0, "focus_follow");
    }
}
