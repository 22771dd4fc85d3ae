//! Banked flight after StarDisplay (Hildenbrandt, Carere & Hemelrijk, Behav. Ecol.
//! 2010; Hemelrijk & Hildenbrandt, PLoS ONE 2011): a bird turns by rolling its
//! lift, not by pushing sideways, so it turns with a lag, in wider arcs, and sinks
//! while banked.
//!
//! The steering the species asks for (rules, targets, the roost) is split in the
//! bird's frame — forward `f`, right wing `s` (horizontal), up `u`:
//! - the forward part changes speed directly (with the cruise thrust in it);
//! - the sideways part sets a wanted bank, the coordinated turn's
//!   `atan2(a·s, g + a·u)` within `±max_bank`, which the bird rolls toward at
//!   most `roll_rate`;
//! - the lift `L = max(g·(v / v₀)²·(u·ŷ) + a·u, 0.2·g)` (the upward part is
//!   pitch; `u·ŷ`, the cosine of the pitch, leaves a steep climber no lift toward
//!   the vertical, so gravity pitches a stalling bird over; the floor keeps the
//!   bank readable) acts along the banked up axis `n = u·cos β + s·sin β`, and
//!   gravity pulls down.
//!
//! Level and unbanked at the cruise speed `v₀` the lift holds the bird up; banked,
//! its vertical share `L·cos β` falls short of `g` and the bird loses height in
//! the turn unless it pitches up, as StarDisplay's starlings do.
//!
//! The bank is no extra state: it is read back from the last applied acceleration
//! (lift + gravity + forward part, stored as the steering), whose sideways-to-up
//! ratio in the frame of the velocity it was applied to (`v − a·dt`) is the bank.
//! Snapshots, resumes and determinism need nothing new, and the renderer's
//! coordinated-turn roll of the same steering draws the same bank.

use crate::params::SpeciesParams;
use crate::vector::Vector;
use glam::Vec3;

/// The vertical axis (y), as the roost's.
const UP: Vec3 = Vec3::Y;
/// The least lift, as a fraction of gravity.
const MIN_LIFT: f32 = 0.2;

/// The acceleration a banked flier applies when its steering asks for `a`, with
/// velocity `v` and last applied acceleration `prev`, over a step of `dt` seconds.
/// Unchanged for species without banked flight, in 2D and at rest.
#[inline(never)]
pub(crate) fn banked<V: Vector>(a: V, prev: V, v: V, p: &SpeciesParams, dt: f32) -> V {
    if V::DIM != 3 || p.roll_rate <= 0.0 {
        return a;
    }
    let v = Vec3::from_array(v.to_array3());
    let speed = v.length();
    if speed <= 1e-6 {
        return a;
    }
    let f = v / speed;
    let (s, u) = frame(f);
    let a3 = Vec3::from_array(a.to_array3());
    let g = p.gravity;
    let gravity = UP * -g;
    let max_bank = p.max_bank.to_radians();
    // The bank of the last step's lift, read in the frame it was applied in (the
    // velocity before that step, v − prev·dt, exact unless a speed limit or
    // jitter acted); zero before the first step, where prev = 0 leaves only the
    // lift that cancels gravity.
    let prev = Vec3::from_array(prev.to_array3());
    let (sp, up) = frame((v - prev * dt).try_normalize().unwrap_or(f));
    let lift_prev = prev - gravity;
    let (ps, pu) = (lift_prev.dot(sp), lift_prev.dot(up));
    let was = if ps == 0.0 && pu == 0.0 {
        0.0
    } else {
        libm::atan2f(ps, pu)
    };
    let was = was.clamp(-max_bank, max_bank);
    let (a_side, a_up) = (a3.dot(s), a3.dot(u));
    let want = libm::atan2f(a_side, g + a_up).clamp(-max_bank, max_bank);
    let roll = p.roll_rate.to_radians() * dt;
    let bank = was + (want - was).clamp(-roll, roll);
    let (sin_b, cos_b) = libm::sincosf(bank);
    let n = u * cos_b + s * sin_b;
    let v0 = if p.cruise_speed > 0.0 {
        p.cruise_speed
    } else {
        p.max_speed
    };
    let r = speed / v0;
    // The weight's share across the wings (cos of the pitch): a steep climb gets
    // no lift toward the vertical, so gravity pitches a stalling bird over.
    // At least a fifth of the weight: a bird pushes over, it does not drop like
    // a stone, and the bank stays readable from the lift it leaves.
    let lift = (g * r * r * u.dot(UP) + a_up).max(MIN_LIFT * g);
    let out = f * a3.dot(f) + n * lift + gravity;
    V::from_array3(out.to_array())
}

/// The unbanked wing (right, horizontal) and up axes of a bird heading along unit
/// `f`; straight up or down the wings lie along z (any fixed choice will do).
#[inline]
fn frame(f: Vec3) -> (Vec3, Vec3) {
    let mut side = f.cross(UP);
    if side.length_squared() <= 1e-6 {
        side = f.cross(Vec3::X);
    }
    let s = side.normalize();
    (s, s.cross(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bird() -> SpeciesParams {
        SpeciesParams {
            roll_rate: 90.0,
            max_bank: 60.0,
            gravity: 9.81,
            cruise_speed: 10.0,
            max_speed: 14.0,
            ..SpeciesParams::default()
        }
    }

    /// Level and straight at the cruise speed, lift cancels gravity.
    #[test]
    fn level_flight_at_cruise_speed_holds_height() {
        let v = Vec3::new(10.0, 0.0, 0.0);
        let a = banked(Vec3::ZERO, Vec3::ZERO, v, &bird(), 0.02);
        assert!(a.length() < 1e-5, "{a}");
    }

    /// Asked to turn hard, the bank grows by at most roll_rate·dt per step, the
    /// bird turns toward the asked side, and banked it sinks.
    #[test]
    fn the_bank_rolls_at_the_roll_rate_and_a_banked_bird_sinks() {
        let p = bird();
        let dt = 0.02;
        let v = Vec3::new(10.0, 0.0, 0.0);
        let ask = Vec3::new(0.0, 0.0, 8.0); // to the right wing (x × y = +z)
        let mut prev = Vec3::ZERO;
        let mut last_bank = 0.0f32;
        for step in 0..100 {
            let a = banked(ask, prev, v, &p, dt);
            let lift = a - UP * -p.gravity;
            let bank = libm::atan2f(lift.z, lift.y);
            assert!(
                bank - last_bank <= p.roll_rate.to_radians() * dt + 1e-5,
                "step {step}: {last_bank} -> {bank}"
            );
            assert!(bank <= p.max_bank.to_radians() + 1e-5);
            assert!(a.z > 0.0, "turns toward the asked side");
            if step > 10 {
                assert!(a.y < -0.1, "step {step}: banked it sinks ({a})");
            }
            last_bank = bank;
            prev = a;
        }
        // Rolled to the coordinated bank for 8 m/s², atan(8 / 9.81) = 39°.
        assert!(
            (last_bank.to_degrees() - 39.2).abs() < 0.5,
            "{}",
            last_bank.to_degrees()
        );
    }

    /// Without banked flight (or in 2D) the steering passes through unchanged.
    #[test]
    fn without_a_roll_rate_the_steering_is_unchanged() {
        let a = Vec3::new(1.0, 2.0, 3.0);
        let p = SpeciesParams::default();
        assert_eq!(banked(a, Vec3::ZERO, Vec3::X, &p, 0.02), a);
        let a2 = glam::Vec2::new(1.0, 2.0);
        assert_eq!(
            banked(a2, glam::Vec2::ZERO, glam::Vec2::X, &bird(), 0.02),
            a2
        );
    }
}
