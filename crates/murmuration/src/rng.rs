//! Counter-based random numbers keyed by (seed, boid id, step, stream).
//!
//! There is no shared random stream anywhere in the engine: every random number is
//! a pure function of its key, so results never depend on thread count, scheduling
//! or the order boids are visited in. The mixer is SplitMix64's finaliser (Stafford
//! variant 13) applied to a key-folded counter; it passes BigCrush as a counter-mode
//! generator and costs a few multiplies. Written here (15 lines) rather than pulled
//! from a crate because the exact bit stream is part of the determinism contract
//! and must never change with a dependency update.

/// Streams separate independent uses of randomness for the same boid and step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Stream {
    /// Initial positions when spawning.
    SpawnPosition = 1,
    /// Initial headings when spawning.
    SpawnHeading = 2,
    /// Per-step steering jitter.
    Jitter = 3,
    /// Direction used to separate two coincident boids.
    Coincident = 4,
    /// Heading chosen when a boid must move at min speed from rest.
    RestHeading = 5,
    /// The knots of a wanderer's random direction (keyed by knot, not step).
    Wander = 6,
    /// A research model's per-step noise (Vicsek's angle, Couzin's rotation).
    ModelNoise = 7,
    /// The activation order of an asynchronous model (keyed by step, not boid).
    Activation = 8,
}

#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// A tiny generator whose whole state is its key and a counter.
#[derive(Clone, Copy, Debug)]
pub struct CounterRng {
    key: u64,
    counter: u64,
}

impl CounterRng {
    /// Generator for `(seed, id, step, stream)`.
    #[inline]
    pub fn new(seed: u64, id: u64, step: u64, stream: Stream) -> Self {
        let mut k = mix(seed ^ GOLDEN);
        k = mix(k ^ id.wrapping_mul(GOLDEN));
        k = mix(k ^ step.wrapping_add(0x632b_e59b_d9b4_e019));
        k = mix(k ^ (stream as u64).wrapping_mul(0xd1b5_4a32_d192_ed03));
        Self { key: k, counter: 0 }
    }

    /// Next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.counter = self.counter.wrapping_add(1);
        mix(self.key ^ self.counter.wrapping_mul(GOLDEN))
    }

    /// Uniform in [0, 1) with 24 bits of precision.
    #[inline]
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_key_same_numbers_different_key_different_numbers() {
        let mut a = CounterRng::new(1, 2, 3, Stream::Jitter);
        let mut b = CounterRng::new(1, 2, 3, Stream::Jitter);
        let mut c = CounterRng::new(1, 2, 4, Stream::Jitter);
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn uniform_floats_have_the_right_mean() {
        let mut sum = 0.0f64;
        let n = 100_000;
        for id in 0..n {
            let x = CounterRng::new(7, id, 0, Stream::SpawnPosition).next_f32();
            assert!((0.0..1.0).contains(&x));
            sum += x as f64;
        }
        let mean = sum / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
    }

    #[test]
    fn stream_bits_are_pinned() {
        // The bit stream is part of the determinism contract: changing it changes
        // every golden digest. This pins it explicitly.
        let mut r = CounterRng::new(1, 0, 0, Stream::SpawnPosition);
        assert_eq!(r.next_u64(), PINNED);
    }
    const PINNED: u64 = 8_801_991_029_901_683_937;
}
