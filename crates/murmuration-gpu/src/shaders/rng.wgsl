// The core's counter-based generator (murmuration::rng::CounterRng), bit for bit, in
// 32-bit arithmetic: a u64 is vec2<u32>(low word, high word).

const GOLDEN: vec2<u32> = vec2<u32>(0x7f4a7c15u, 0x9e3779b9u);
const STEP_OFFSET: vec2<u32> = vec2<u32>(0xd9b4e019u, 0x632be59bu);
const STREAM_MUL: vec2<u32> = vec2<u32>(0xd192ed03u, 0xd1b54a32u);
const MIX1: vec2<u32> = vec2<u32>(0x1ce4e5b9u, 0xbf58476du);
const MIX2: vec2<u32> = vec2<u32>(0x133111ebu, 0x94d049bbu);
const STREAM_JITTER: u32 = 3u;
const STREAM_COINCIDENT: u32 = 4u;
const STREAM_REST_HEADING: u32 = 5u;
const STREAM_WANDER: u32 = 6u;

// Full 64-bit product of two 32-bit words.
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let p = mul_wide(a.x, b.x);
    return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x);
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

// a >> s for 0 < s < 32.
fn shr64(a: vec2<u32>, s: u32) -> vec2<u32> {
    return vec2<u32>((a.x >> s) | (a.y << (32u - s)), a.y >> s);
}

// SplitMix64's finaliser.
fn mix64(z0: vec2<u32>) -> vec2<u32> {
    var z = mul64(z0 ^ shr64(z0, 30u), MIX1);
    z = mul64(z ^ shr64(z, 27u), MIX2);
    return z ^ shr64(z, 31u);
}

struct Rng {
    key: vec2<u32>,
    counter: u32,
}

// CounterRng::new(seed, id, step, stream); `seed_key` is mix(seed ^ GOLDEN), computed once on the host.
fn rng_new(seed_key: vec2<u32>, id: vec2<u32>, step: vec2<u32>, stream: u32) -> Rng {
    var k = mix64(seed_key ^ mul64(id, GOLDEN));
    k = mix64(k ^ add64(step, STEP_OFFSET));
    k = mix64(k ^ mul64(vec2<u32>(stream, 0u), STREAM_MUL));
    return Rng(k, 0u);
}

// Uniform in [0, 1) with 24 bits: the top 24 bits of the next 64.
fn rng_f32(r: ptr<function, Rng>) -> f32 {
    (*r).counter += 1u;
    let x = mix64((*r).key ^ mul64(vec2<u32>((*r).counter, 0u), GOLDEN));
    return f32(x.y >> 8u) * (1.0 / 16777216.0);
}
