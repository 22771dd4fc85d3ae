//! The swarm's sound (seed 001, 6.4): every creature now and then gives a faint
//! chirp, and the sum follows the swarm's density — warm and full when it is
//! dense (low, long, many chirps overlapping), thin and sparse when it is
//! scattered (high, short, few). Synthesised per fixed step as mono samples,
//! deterministic: every chirp is keyed by (seed, step, index), like the
//! simulation's own random numbers, so a replay sounds the same every time.
//! Over it, what happens is heard: a hunter's meal as a low thump, a gate
//! opening as a rising fifth.

use crate::game::{Game, GameEvent};
use murmuration::World2;
use std::f32::consts::TAU;

/// Output sample rate, Hz.
pub const SAMPLE_RATE: u32 = 44_100;

/// Chirps each creature gives per second, on average.
const CHIRPS_PER_SECOND: f32 = 0.25;

/// One chirp being played: a sine glide under a smooth envelope.
#[derive(Clone, Copy, Debug)]
struct Chirp {
    /// Start and end frequency, Hz.
    from: f32,
    to: f32,
    /// Length, samples.
    len: u32,
    /// Samples played.
    at: u32,
    /// Peak amplitude.
    gain: f32,
    /// The oscillator as a unit phasor (cos, sin of its phase), turned each
    /// sample instead of taking a sine: a complex multiply, not a `sin` call.
    osc: [f32; 2],
    /// The envelope's phasor, at angle τ·at/len.
    env: [f32; 2],
}

/// Samples between two updates of a gliding chirp's frequency (0.7 ms).
const BLOCK: usize = 32;

/// `a` turned by the unit phasor `b`.
fn turn(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
}

/// The swarm's voice: chirps started each step from the swarm's state.
#[derive(Clone, Debug, Default)]
pub struct Voice {
    chirps: Vec<Chirp>,
    /// Fractional samples carried between steps (a step is not a whole number
    /// of samples in general).
    carry: f64,
    /// The density measure of the last step, in [0, 1] (0 scattered, 1 dense).
    pub density: f32,
}

/// A counter-based random number in [0, 1) keyed by three words.
fn keyed(seed: u64, a: u64, b: u64) -> f32 {
    let mut x =
        seed ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^= x >> 33;
    (x >> 40) as f32 / (1u64 << 24) as f32
}

/// How dense the swarm is, in [0, 1]: its creatures per unit area inside their
/// root-mean-square radius from the centroid, against a packed swarm (one per
/// 0.6 × 0.6 units) — 1 packed, near 0 scattered over the map.
pub fn density(world: &World2, swarm: u16) -> f32 {
    let (mut n, mut sum) = (0u64, glam::DVec2::ZERO);
    for (p, &s) in world
        .boids()
        .positions()
        .iter()
        .zip(world.boids().species())
    {
        if s == swarm {
            n += 1;
            sum += p.as_dvec2();
        }
    }
    if n < 2 {
        return 0.0;
    }
    let c = sum / n as f64;
    let mut r2 = 0.0;
    for (p, &s) in world
        .boids()
        .positions()
        .iter()
        .zip(world.boids().species())
    {
        if s == swarm {
            r2 += (p.as_dvec2() - c).length_squared();
        }
    }
    let area = std::f64::consts::PI * (r2 / n as f64).max(1e-6) * 2.0;
    let packed = 1.0 / (0.6 * 0.6);
    ((n as f64 / area) / packed).clamp(0.0, 1.0) as f32
}

/// A cue: its glides (from, to in Hz), length in seconds and peak gain.
struct Cue {
    glides: &'static [(f32, f32)],
    secs: f32,
    gain: f32,
}

/// A hunter's meal: a low thump gliding down, far below every chirp
/// (the densest swarm's are above 300 Hz).
const MEAL: Cue = Cue {
    glides: &[(190.0, 55.0), (95.0, 40.0)],
    secs: 0.22,
    gain: 0.45,
};

/// A gate opening: a fifth rising over half a second.
const GATE: Cue = Cue {
    glides: &[(330.0, 440.0), (495.0, 660.0)],
    secs: 0.6,
    gain: 0.18,
};

impl Voice {
    /// Starts a cue's glides.
    fn cue(&mut self, cue: Cue) {
        for &(from, to) in cue.glides {
            self.chirps.push(Chirp {
                from,
                to,
                len: (cue.secs * SAMPLE_RATE as f32) as u32,
                at: 0,
                gain: cue.gain,
                osc: [1.0, 0.0],
                env: [1.0, 0.0],
            });
        }
    }

    /// Adds this step's sound to `out` (one step of `dt` seconds of samples at
    /// [`SAMPLE_RATE`]): new chirps from the living creatures, then every
    /// playing chirp advanced.
    pub fn step(&mut self, game: &Game, out: &mut Vec<f32>) {
        let world = game.world();
        let dt = world.config().dt as f64;
        let step = game.step_index();
        let seed = world.config().seed;
        let alive = game.alive() as f32;
        self.density = density(world, game.swarm());
        let d = self.density.sqrt(); // perceptually: most swarms are far from packed
        // Dense: low (300–700 Hz), long (120 ms), gentle glides down. Scattered:
        // high (1.8–3.6 kHz), short (25 ms), sharp glides up.
        let centre = 2600.0 * (1.0 - d) + 480.0 * d;
        let spread = 0.35;
        let len = ((0.025 * (1.0 - d) + 0.12 * d) * SAMPLE_RATE as f32) as u32;
        let expected = alive * CHIRPS_PER_SECOND * dt as f32;
        let count =
            expected.floor() as u64 + (keyed(seed, step, u64::MAX) < expected.fract()) as u64;
        // Many quiet voices: the sum's loudness grows as √n, kept near one level.
        let gain = 0.2 / (alive * CHIRPS_PER_SECOND * 0.08).max(1.0).sqrt();
        for k in 0..count.min(256) {
            let r = keyed(seed, step, 2 * k);
            let from = centre * (1.0 + spread * (2.0 * r - 1.0));
            let glide = if d > 0.5 { 0.85 } else { 1.3 };
            self.chirps.push(Chirp {
                from,
                to: from * glide,
                len: len.max(8),
                at: 0,
                gain,
                osc: {
                    let (sin, cos) = (TAU * keyed(seed, step, 2 * k + 1)).sin_cos();
                    [cos, sin]
                },
                env: [1.0, 0.0],
            });
        }
        // What happened this step is heard over the swarm: a meal as a low
        // thump, a gate opening as a rising fifth.
        for e in game.events() {
            match e {
                GameEvent::Eaten(_) => self.cue(MEAL),
                GameEvent::GateOpened(_) => self.cue(GATE),
                _ => {}
            }
        }
        self.carry += dt * SAMPLE_RATE as f64;
        let samples = self.carry.floor() as usize;
        self.carry -= samples as f64;
        let start = out.len();
        out.resize(start + samples, 0.0);
        let rate = SAMPLE_RATE as f32;
        for c in &mut self.chirps {
            let (sin, cos) = (TAU / c.len as f32).sin_cos();
            let env_step = [cos, sin];
            for block in out[start..].chunks_mut(BLOCK) {
                if c.at >= c.len {
                    break;
                }
                // The glide's frequency at the block's middle sample: over a
                // linear glide the block's phase advances exactly as sample by sample.
                let t = (c.at as f32 + 0.5 * (block.len() - 1) as f32) / c.len as f32;
                let f = c.from + (c.to - c.from) * t.min(1.0);
                let (sin, cos) = (TAU * f / rate).sin_cos();
                let step = [cos, sin];
                for s in block.iter_mut() {
                    if c.at >= c.len {
                        break;
                    }
                    c.osc = turn(c.osc, step);
                    // A raised-cosine envelope: no clicks.
                    *s += c.gain * (0.5 - 0.5 * c.env[0]) * c.osc[1];
                    c.env = turn(c.env, env_step);
                    c.at += 1;
                }
                // Keep the phasors on the unit circle against rounding.
                for z in [&mut c.osc, &mut c.env] {
                    let r = (z[0] * z[0] + z[1] * z[1]).sqrt();
                    *z = [z[0] / r, z[1] / r];
                }
            }
        }
        self.chirps.retain(|c| c.at < c.len);
        for s in &mut out[start..] {
            *s = s.clamp(-1.0, 1.0);
        }
    }
}

/// The spectral centroid of `samples` in Hz: the power-weighted mean frequency,
/// averaged over windows of 2,048 samples (a plain DFT; for tests and reports).
pub fn spectral_centroid(samples: &[f32]) -> f32 {
    const N: usize = 2048;
    let turn: Vec<(f64, f64)> = (0..N)
        .map(|j| {
            let a = std::f64::consts::TAU * j as f64 / N as f64;
            (a.cos(), a.sin())
        })
        .collect();
    let hann: Vec<f64> = (0..N).map(|i| 0.5 - 0.5 * turn[i].0).collect();
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for w in samples.chunks_exact(N).step_by(4) {
        let x: Vec<f64> = w.iter().zip(&hann).map(|(&x, h)| x as f64 * h).collect();
        for k in 1..N / 2 {
            let (mut re, mut im) = (0.0f64, 0.0f64);
            for (i, &xi) in x.iter().enumerate() {
                let (c, s) = turn[(k * i) % N];
                re += xi * c;
                im -= xi * s;
            }
            let p = re * re + im * im;
            num += p * k as f64 * SAMPLE_RATE as f64 / N as f64;
            den += p;
        }
    }
    if den > 0.0 { (num / den) as f32 } else { 0.0 }
}
