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
use crate::trig;
use crate::vector::Vector;
use glam::Vec3;

/// The vertical axis (y), as the roost's.
const UP: Vec3 = Vec3::Y;
/// The least lift, as a fraction of gravity.
const MIN_LIFT: f32 = 0.2;

/// The acceleration a banked flier applies when its steering asks for `a`, with
/// velocity `v` and last applied acceleration `prev`, over a step of `dt` seconds.
/// Unchanged for species without banked flight, in 2D and at rest.
pub(crate) fn banked<V: Vector>(a: V, prev: V, v: V, p: &SpeciesParams, dt: f32) -> V {
    let Some(b) = Bird::prepare(a, prev, v, p, dt) else {
        return a;
    };
    let was = if b.ps == 0.0 && b.pu == 0.0 {
        0.0
    } else {
        libm::atan2f(b.ps, b.pu)
    };
    let want = libm::atan2f(b.a_side, b.g + b.a_up);
    let (sin_b, cos_b) = libm::sincosf(b.bank(was, want, p, dt));
    V::from_array3(b.finish(sin_b, cos_b, p))
}

/// [`banked`] for up to [`trig::LANES`] birds at once, bit for bit: `a[l]`
/// becomes the acceleration bird `l` applies (velocity `v[l]`, last applied
/// acceleration `prev[l]`, its species' parameters `p(l)`). Every bird goes
/// through one branch-free pass over the lanes (the same operations as
/// [`banked`]'s, the arctangents and the bank's sine and cosine by
/// [`trig`]'s lane kernels), which the compiler vectorizes; a bird whose
/// trigonometry leaves the kernels' range (an infinite or NaN argument, a
/// zero or one denominator: never in flight) is done again by [`banked`].
#[inline(always)]
pub(crate) fn banked_lanes<'p, V: Vector>(
    a: &mut [V],
    prev: &[V],
    v: &[V],
    p: impl Fn(usize) -> &'p SpeciesParams,
    dt: f32,
) {
    const L: usize = trig::LANES;
    let m = a.len().min(L);
    if V::DIM != 3 {
        return;
    }
    // The lanes' inputs as columns; lanes past `m` fly level at rest (their
    // results are ignored).
    let mut c = Columns::default();
    for l in 0..m {
        let sp = p(l);
        let (x, q, w) = (a[l].to_array3(), prev[l].to_array3(), v[l].to_array3());
        for k in 0..3 {
            (c.a[k][l], c.prev[k][l], c.v[k][l]) = (x[k], q[k], w[k]);
        }
        c.on[l] = sp.roll_rate > 0.0;
        c.g[l] = sp.gravity;
        c.max_bank[l] = sp.max_bank.to_radians();
        c.roll[l] = sp.roll_rate.to_radians() * dt;
        c.v0[l] = if sp.cruise_speed > 0.0 {
            sp.cruise_speed
        } else {
            sp.max_speed
        };
    }
    let mut out = [[0.0f32; L]; 3];
    let (mut keep, mut redo) = ([false; L], [false; L]);
    for l in 0..L {
        let at = |x: &[[f32; L]; 3]| V3 {
            x: x[0][l],
            y: x[1][l],
            z: x[2][l],
        };
        let (o, k, r) = bank_lane(at(&c.a), at(&c.prev), at(&c.v), &c, l, dt);
        (out[0][l], out[1][l], out[2][l]) = (o.x, o.y, o.z);
        (keep[l], redo[l]) = (k, r);
    }
    for l in 0..m {
        if redo[l] {
            a[l] = banked(a[l], prev[l], v[l], p(l), dt);
        } else if !keep[l] {
            a[l] = V::from_array3([out[0][l], out[1][l], out[2][l]]);
        }
    }
}

/// The inputs of [`banked_lanes`], lane by lane.
#[derive(Default)]
struct Columns {
    a: [[f32; trig::LANES]; 3],
    prev: [[f32; trig::LANES]; 3],
    v: [[f32; trig::LANES]; 3],
    /// The species banks (a roll rate above zero).
    on: [bool; trig::LANES],
    /// Gravity, units/s².
    g: [f32; trig::LANES],
    /// The steepest bank, radians.
    max_bank: [f32; trig::LANES],
    /// The most the bank rolls in one step, radians.
    roll: [f32; trig::LANES],
    /// The speed at which the lift holds a level bird up, units/s.
    v0: [f32; trig::LANES],
}

/// A 3D vector as three `f32`, with glam's `Vec3` operations in glam's order
/// (so a lane computes [`banked`]'s bits), for the lanes of [`banked_lanes`].
#[derive(Clone, Copy)]
struct V3 {
    x: f32,
    y: f32,
    z: f32,
}

impl V3 {
    #[inline(always)]
    fn dot(self, o: Self) -> f32 {
        (self.x * o.x) + (self.y * o.y) + (self.z * o.z)
    }
    #[inline(always)]
    fn cross(self, o: Self) -> Self {
        Self {
            x: self.y * o.z - o.y * self.z,
            y: self.z * o.x - o.z * self.x,
            z: self.x * o.y - o.x * self.y,
        }
    }
    #[inline(always)]
    fn scale(self, k: f32) -> Self {
        Self {
            x: self.x * k,
            y: self.y * k,
            z: self.z * k,
        }
    }
    #[inline(always)]
    fn div(self, k: f32) -> Self {
        Self {
            x: self.x / k,
            y: self.y / k,
            z: self.z / k,
        }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
    #[inline(always)]
    fn length(self) -> f32 {
        self.dot(self).sqrt()
    }
    /// `if c { a } else { b }`, per component.
    #[inline(always)]
    fn pick(c: bool, a: Self, b: Self) -> Self {
        Self {
            x: if c { a.x } else { b.x },
            y: if c { a.y } else { b.y },
            z: if c { a.z } else { b.z },
        }
    }
    /// The wing and up axes of [`frame`], branch-free.
    #[inline(always)]
    fn frame(self) -> (Self, Self) {
        let up = V3 {
            x: 0.0,
            y: 1.0,
            z: 0.0,
        };
        let x = V3 {
            x: 1.0,
            y: 0.0,
            z: 0.0,
        };
        let level = self.cross(up);
        let side = Self::pick(level.dot(level) <= 1e-6, self.cross(x), level);
        let s = side.scale(1.0 / side.length());
        (s, s.cross(self))
    }
}

/// `f32::clamp`'s operations (`lo <= hi`), branch-free.
#[inline(always)]
fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if x > hi { hi } else { x }
}

/// Lane `l` of [`banked_lanes`]: the acceleration applied, whether the
/// steering stays as asked (no banked flight, at rest), and whether the lane
/// must be done again by [`banked`] (its trigonometry left the kernels).
#[inline(always)]
fn bank_lane(a: V3, prev: V3, v: V3, c: &Columns, l: usize, dt: f32) -> (V3, bool, bool) {
    let up_axis = V3 {
        x: 0.0,
        y: 1.0,
        z: 0.0,
    };
    let speed = v.length();
    let keep = !c.on[l] || speed <= 1e-6;
    let f = v.div(speed);
    let (s, u) = f.frame();
    let g = c.g[l];
    let gravity = up_axis.scale(-g);
    // `try_normalize` of v − prev·dt, else f.
    let w = v.sub(prev.scale(dt));
    let rcp = 1.0 / w.length();
    let fine = rcp.is_finite() && rcp > 0.0;
    let (sp, up) = V3::pick(fine, w.scale(rcp), f).frame();
    let lift_prev = prev.sub(gravity);
    let (ps, pu) = (lift_prev.dot(sp), lift_prev.dot(up));
    let (was, odd_was) = trig::atan2_lane(ps, pu);
    let level = ps == 0.0 && pu == 0.0;
    let was = clamp(if level { 0.0 } else { was }, -c.max_bank[l], c.max_bank[l]);
    let (a_side, a_up) = (a.dot(s), a.dot(u));
    let (want, odd_want) = trig::atan2_lane(a_side, g + a_up);
    let want = clamp(want, -c.max_bank[l], c.max_bank[l]);
    let roll = c.roll[l];
    let bank = was + clamp(want - was, -roll, roll);
    let (sin_b, cos_b, odd_bank) = trig::sincos_lane(bank);
    let n = u.scale(cos_b).add(s.scale(sin_b));
    let r = speed / c.v0[l];
    let lift = (g * r * r * u.dot(up_axis) + a_up).max(MIN_LIFT * g);
    let out = f.scale(a.dot(f)).add(n.scale(lift)).add(gravity);
    let redo = !keep && ((odd_was && !level) || odd_want || odd_bank);
    (out, keep, redo)
}

/// One banked bird's frame and steering before the trigonometry of its bank.
#[derive(Clone, Copy, Debug)]
struct Bird {
    /// Forward, right wing and up axes (unit).
    f: Vec3,
    s: Vec3,
    u: Vec3,
    /// The steering asked for.
    a: Vec3,
    /// Speed, units/s.
    speed: f32,
    /// Gravity, units/s².
    g: f32,
    /// The last lift's sideways and upward parts in its own frame.
    ps: f32,
    pu: f32,
    /// The steering's sideways and upward parts.
    a_side: f32,
    a_up: f32,
}

impl Bird {
    /// The bird of steering `a`, last applied acceleration `prev` and
    /// velocity `v` over a step of `dt` seconds; `None` where banked flight leaves the steering as it is
    /// (no banked flight, 2D, at rest).
    #[inline(always)]
    fn prepare<V: Vector>(a: V, prev: V, v: V, p: &SpeciesParams, dt: f32) -> Option<Self> {
        if V::DIM != 3 || p.roll_rate <= 0.0 {
            return None;
        }
        let v = Vec3::from_array(v.to_array3());
        let speed = v.length();
        if speed <= 1e-6 {
            return None;
        }
        let f = v / speed;
        let (s, u) = frame(f);
        let a = Vec3::from_array(a.to_array3());
        let g = p.gravity;
        // The bank of the last step's lift, read in the frame it was applied
        // in (the velocity before that step, v − prev·dt, exact unless a speed
        // limit or jitter acted); zero before the first step, where prev = 0
        // leaves only the lift that cancels gravity.
        let prev = Vec3::from_array(prev.to_array3());
        let (sp, up) = frame((v - prev * dt).try_normalize().unwrap_or(f));
        let lift_prev = prev - UP * -g;
        Some(Self {
            f,
            s,
            u,
            a,
            speed,
            g,
            ps: lift_prev.dot(sp),
            pu: lift_prev.dot(up),
            a_side: a.dot(s),
            a_up: a.dot(u),
        })
    }

    /// The bank this step, radians: the last one (`was`, the angle of
    /// (`ps`, `pu`)) rolled toward the coordinated turn's (`want`, the angle
    /// of (`a_side`, `g + a_up`)) by at most the roll rate, both within the
    /// steepest bank.
    #[inline(always)]
    fn bank(&self, was: f32, want: f32, p: &SpeciesParams, dt: f32) -> f32 {
        let max_bank = p.max_bank.to_radians();
        let was = was.clamp(-max_bank, max_bank);
        let want = want.clamp(-max_bank, max_bank);
        let roll = p.roll_rate.to_radians() * dt;
        was + (want - was).clamp(-roll, roll)
    }

    /// The acceleration applied at a bank of sine `sin_b` and cosine `cos_b`:
    /// the forward part of the steering, the lift along the banked up axis,
    /// and gravity.
    #[inline(always)]
    fn finish(&self, sin_b: f32, cos_b: f32, p: &SpeciesParams) -> [f32; 3] {
        let (f, s, u, g) = (self.f, self.s, self.u, self.g);
        let n = u * cos_b + s * sin_b;
        let v0 = if p.cruise_speed > 0.0 {
            p.cruise_speed
        } else {
            p.max_speed
        };
        let r = self.speed / v0;
        // The weight's share across the wings (cos of the pitch): a steep climb
        // gets no lift toward the vertical, so gravity pitches a stalling bird
        // over. At least a fifth of the weight: a bird pushes over, it does not
        // drop like a stone, and the bank stays readable from the lift it leaves.
        let lift = (g * r * r * u.dot(UP) + self.a_up).max(MIN_LIFT * g);
        let out = f * self.a.dot(f) + n * lift + UP * -g;
        out.to_array()
    }
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

    /// The lanes give each bird the bits `banked` gives it alone, with the
    /// arctangents and the bank's sine and cosine in lanes: random steering,
    /// velocities and last accelerations, level and vertical flight, birds
    /// at rest, species with and without banked flight, a partial group.
    #[test]
    fn banked_lanes_keep_the_bits_of_one_bird_at_a_time() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut unit = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let species = [
            bird(),
            SpeciesParams {
                roll_rate: 400.0,
                max_bank: 85.0,
                cruise_speed: 0.0,
                ..bird()
            },
            SpeciesParams::default(),
        ];
        let dt = 0.02;
        for round in 0..4000 {
            let m = if round % 7 == 0 {
                1 + round % trig::LANES
            } else {
                trig::LANES
            };
            let mut v3 = |scale: f32| Vec3::new(unit(), unit(), unit()) * scale;
            let mut a = [Vec3::ZERO; trig::LANES];
            let mut prev = [Vec3::ZERO; trig::LANES];
            let mut v = [Vec3::ZERO; trig::LANES];
            let mut who = [0usize; trig::LANES];
            for l in 0..m {
                a[l] = v3(20.0);
                prev[l] = if l % 5 == 0 { Vec3::ZERO } else { v3(20.0) };
                v[l] = match (round + l) % 9 {
                    0 => Vec3::ZERO,
                    1 => Vec3::new(0.0, 12.0, 0.0),
                    2 => Vec3::new(0.0, -3.0, 0.0),
                    _ => v3(14.0),
                };
                who[l] = (round + 3 * l) % species.len();
            }
            let want: Vec<Vec3> = (0..m)
                .map(|l| banked(a[l], prev[l], v[l], &species[who[l]], dt))
                .collect();
            banked_lanes(&mut a[..m], &prev[..m], &v[..m], |l| &species[who[l]], dt);
            for l in 0..m {
                assert_eq!(
                    a[l].to_array().map(f32::to_bits),
                    want[l].to_array().map(f32::to_bits),
                    "round {round}, lane {l}: {} against {}",
                    a[l],
                    want[l]
                );
            }
        }
    }
}
