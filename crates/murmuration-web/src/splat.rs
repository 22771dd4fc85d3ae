//! The flock drawn on the CPU into one RGBA8 picture, for browsers whose WebGL
//! is a software rasteriser (SwiftShader, llvmpipe). There every point costs
//! the rasteriser about 1 µs whatever its size, so 50,000 boids cap the page
//! at 18 frames/s; adding a prepared sprite per boid here and uploading the
//! picture as one texture costs 4–7 ms on the page's thread (BENCHMARKS.md).
//!
//! Each boid is a stamp: its species' arrowhead and glow, the same shape as
//! the WebGL sprite (`web/render.js`), rendered once per heading (64 of them)
//! with 4 × 4 samples a pixel, and added with saturation where the boid is.

use std::f32::consts::TAU;

use crate::session::INSTANCE_FLOATS;

/// Headings a stamp is rendered at (the boid's heading rounds to the nearest).
const HEADINGS: usize = 64;
/// The largest sprite half-size drawn, pixels: larger sprites are drawn at it
/// (the page draws a flock this large on screen as WebGL points instead).
pub const MAX_HALF_PIXELS: f32 = 48.0;
/// The night background, as the WebGL path clears to (0.012, 0.018, 0.045).
pub const BACKGROUND: u32 = u32::from_le_bytes([3, 5, 11, 255]);
/// Sprite sizes are rounded to steps of this ratio, so a gliding camera (an
/// open world's follow, a pinch) re-renders the stamps now and then, not
/// every frame.
const SIZE_STEP: f32 = 1.04;

/// Where the world lands in the picture: pixels from the picture's bottom-left
/// (`x_px = ox + (x - min_x) · scale`, rows counted upward as WebGL's are).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Picture width, pixels.
    pub width: u32,
    /// Picture height, pixels.
    pub height: u32,
    /// The world point at offset (`ox`, `oy`).
    pub min: [f32; 2],
    /// Pixels per world unit.
    pub scale: f32,
    /// Pixel offset of `min` from the left edge.
    pub ox: f32,
    /// Pixel offset of `min` from the bottom edge.
    pub oy: f32,
}

/// How the species look: colour (linear RGB, 0–1) and body size (× the
/// sprite size) for up to eight species, and whether boids glow.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Looks {
    /// Each species' colour.
    pub colours: [[f32; 3]; 8],
    /// Each species' body size.
    pub sizes: [f32; 8],
    /// The soft halo around each body.
    pub glow: bool,
}

impl Default for Looks {
    fn default() -> Self {
        Self {
            colours: [[0.45, 0.85, 1.0]; 8],
            sizes: [1.0; 8],
            glow: true,
        }
    }
}

/// One species' sprite at every heading: `HEADINGS` squares of `side` pixels.
#[derive(Clone, Debug, Default)]
struct Stamps {
    /// Pixels a side (odd: the boid sits on the middle pixel).
    side: usize,
    /// `HEADINGS · side²` packed RGBA, alpha 0.
    pixels: Vec<u32>,
}

/// The CPU drawing of the flock: the picture and the stamps it is drawn with.
#[derive(Clone, Debug, Default)]
pub struct Splat {
    /// The picture, rows bottom-up, packed RGBA (little-endian bytes R, G, B, A).
    pixels: Vec<u32>,
    /// Per species, its stamps (rendered when the species is first drawn).
    stamps: Vec<Option<Stamps>>,
    /// What the stamps were rendered for: looks and the rounded half-size (px).
    key: Option<(Looks, f32)>,
    /// The picture's size.
    size: (usize, usize),
    /// The pixels the last picture drew on (x0, y0, x1, y1; empty when x0 ≥ x1).
    drawn: [usize; 4],
    /// The pixels that changed from the picture before it: the last drawing's
    /// rectangle joined with the one before (all of it after a resize), as
    /// x, y, width, height.
    changed: [u32; 4],
}

impl Splat {
    /// Draws the boids of `instances` (x, y, heading, species per boid; the
    /// page's instance array) with sprites of half-size `size` world units,
    /// and returns the picture: `width · height` RGBA pixels, bottom row first.
    pub fn draw(&mut self, instances: &[f32], view: &View, size: f32, looks: &Looks) -> &[u32] {
        let (w, h) = (view.width as usize, view.height as usize);
        // Only what the last picture drew on goes back to the background.
        let before = if self.size == (w, h) {
            let [x0, y0, x1, y1] = self.drawn;
            for y in y0..y1.max(y0) {
                self.pixels[y * w + x0..y * w + x1.max(x0)].fill(BACKGROUND);
            }
            self.drawn
        } else {
            self.pixels.clear();
            self.pixels.resize(w * h, BACKGROUND);
            self.size = (w, h);
            [0, 0, w, h]
        };
        let mut drawn = [0; 4];
        let half = rounded(size * view.scale);
        if self.key != Some((*looks, half)) {
            self.stamps = vec![None; 8];
            self.key = Some((*looks, half));
        }
        for b in instances.chunks_exact(INSTANCE_FLOATS) {
            let [x, y, heading, species] = [b[0], b[1], b[2], b[3]];
            let px = view.ox + (x - view.min[0]) * view.scale;
            let py = view.oy + (y - view.min[1]) * view.scale;
            // Far off the picture (or not a number): nothing to draw.
            if !(px.abs() < 1e7 && py.abs() < 1e7 && heading.is_finite()) {
                continue;
            }
            let s = (species as usize) & 7;
            let stamps = self.stamps[s].get_or_insert_with(|| {
                Stamps::render(half * looks.sizes[s], looks.colours[s], looks.glow)
            });
            let k = ((heading / TAU * HEADINGS as f32).round() as i64).rem_euclid(HEADINGS as i64);
            if let Some(r) = stamps.add(&mut self.pixels, w, h, px, py, k as usize) {
                drawn = join(drawn, r);
            }
        }
        self.drawn = drawn;
        let [x0, y0, x1, y1] = join(before, drawn);
        self.changed = [x0, y0, x1 - x0, y1 - y0].map(|v| v as u32);
        &self.pixels
    }

    /// The part of the last picture that differs from the one before it:
    /// `[x, y, width, height]` in pixels from the bottom-left (upload only it).
    pub fn changed(&self) -> &[u32; 4] {
        &self.changed
    }
}

/// The smallest rectangle holding both (an empty one, x0 ≥ x1, holds nothing).
fn join(a: [usize; 4], b: [usize; 4]) -> [usize; 4] {
    let empty = |r: [usize; 4]| r[0] >= r[2] || r[1] >= r[3];
    match (empty(a), empty(b)) {
        (true, true) => [0; 4],
        (true, false) => b,
        (false, true) => a,
        (false, false) => [
            a[0].min(b[0]),
            a[1].min(b[1]),
            a[2].max(b[2]),
            a[3].max(b[3]),
        ],
    }
}

/// `half` pixels rounded to a step of [`SIZE_STEP`] (at least a quarter
/// pixel, at most [`MAX_HALF_PIXELS`]).
fn rounded(half: f32) -> f32 {
    let half = if half.is_finite() {
        half.clamp(0.25, MAX_HALF_PIXELS)
    } else {
        1.0
    };
    SIZE_STEP.powf((half.ln() / SIZE_STEP.ln()).round())
}

impl Stamps {
    /// The sprite of half-size `half` pixels in `colour` at every heading: the
    /// WebGL fragment shader's arrowhead and halo, averaged over 4 × 4 samples
    /// a pixel (2 × 2 from 4 px, 1 from 16 px: a large sprite's edge is
    /// sharp without them).
    fn render(half: f32, colour: [f32; 3], glow: bool) -> Self {
        let half = half.min(MAX_HALF_PIXELS);
        // The halo fades to nothing by one half-size; the body's back corners
        // (-0.55, ±0.462) are 0.72 half-sizes out.
        let reach = if glow { half } else { 0.75 * half };
        let r = reach.ceil() as usize;
        let side = 2 * r + 1;
        let mut pixels = vec![0u32; HEADINGS * side * side];
        let samples = match half {
            h if h < 4.0 => 4,
            h if h < 16.0 => 2,
            _ => 1,
        };
        let n = samples as f32;
        for (k, stamp) in pixels.chunks_exact_mut(side * side).enumerate() {
            let (sin, cos) = (k as f32 / HEADINGS as f32 * TAU).sin_cos();
            for (j, row) in stamp.chunks_exact_mut(side).enumerate() {
                for (i, px) in row.iter_mut().enumerate() {
                    let mut rgb = [0.0f32; 3];
                    for sy in 0..samples {
                        for sx in 0..samples {
                            // The sample's offset from the boid, in half-sizes.
                            let dx = (i as f32 - r as f32 + (sx as f32 + 0.5) / n - 0.5) / half;
                            let dy = (j as f32 - r as f32 + (sy as f32 + 0.5) / n - 0.5) / half;
                            let (u, v) = (dx * cos + dy * sin, -dx * sin + dy * cos);
                            let c = shade(u, v, colour, glow);
                            rgb.iter_mut().zip(c).for_each(|(a, c)| *a += c);
                        }
                    }
                    let byte = |c: f32| (c / (n * n) * 255.0).round().clamp(0.0, 255.0) as u8;
                    *px = u32::from_le_bytes([byte(rgb[0]), byte(rgb[1]), byte(rgb[2]), 0]);
                }
            }
        }
        Self { side, pixels }
    }

    /// Adds stamp `k` centred on pixel (`px`, `py`) to the picture, clipped
    /// to its edges; the pixels it covered (x0, y0, x1, y1), if any.
    fn add(
        &self,
        picture: &mut [u32],
        w: usize,
        h: usize,
        px: f32,
        py: f32,
        k: usize,
    ) -> Option<[usize; 4]> {
        let side = self.side as i64;
        let r = side / 2;
        let (cx, cy) = (px.floor() as i64, py.floor() as i64);
        let (x0, y0) = (cx - r, cy - r);
        let (i0, i1) = ((-x0).max(0), (w as i64 - x0).min(side));
        let (j0, j1) = ((-y0).max(0), (h as i64 - y0).min(side));
        if i0 >= i1 || j0 >= j1 {
            return None;
        }
        let stamp = &self.pixels[k * self.side * self.side..(k + 1) * self.side * self.side];
        for j in j0..j1 {
            let src = &stamp[(j * side + i0) as usize..(j * side + i1) as usize];
            let row = ((y0 + j) as usize) * w + (x0 + i0) as usize;
            let dst = &mut picture[row..row + src.len()];
            for (d, &s) in dst.iter_mut().zip(src) {
                *d = saturating_add(*d, s);
            }
        }
        Some([x0 + i0, y0 + j0, x0 + i1, y0 + j1].map(|v| v as usize))
    }
}

/// The WebGL sprite's colour at (`u`, `v`) half-sizes from the boid, `u`
/// along its heading: a sharp arrowhead and, with `glow`, a soft halo.
fn shade(u: f32, v: f32, colour: [f32; 3], glow: bool) -> [f32; 3] {
    let body = if v.abs() <= 0.42 * (0.55 - u) && u >= -0.55 {
        1.0
    } else {
        0.0
    };
    let halo = if glow {
        (-5.0 * (u * u + v * v)).exp() * 0.55
    } else {
        0.0
    };
    colour.map(|c| c * (body * 0.85 + halo) + 0.15 * body)
}

/// Adds each byte of `a` and `b` with saturation at 255 (four bytes at once).
#[inline(always)]
fn saturating_add(a: u32, b: u32) -> u32 {
    const HIGH: u32 = 0x8080_8080;
    let low = (a & !HIGH) + (b & !HIGH);
    let sum = low ^ ((a ^ b) & HIGH);
    // A byte overflowed where both high bits were set, or one was and the
    // carry into it cleared the sum's.
    let carry = ((a & b) | ((a | b) & !sum)) & HIGH;
    sum | ((carry >> 7) * 0xff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturating_add_is_bytewise_and_saturates() {
        let cases = [
            (0x0000_0000, 0x0102_0304, 0x0102_0304),
            (0xff00_80f0, 0x01ff_8020, 0xffff_ffff),
            (0x7f7f_7f7f, 0x0101_0101, 0x8080_8080),
            (0x80ff_0001, 0x7f01_ff01, 0xffff_ff02),
        ];
        for (a, b, want) in cases {
            assert_eq!(saturating_add(a, b), want, "{a:08x} + {b:08x}");
        }
        for a in (0..=255u32).step_by(7) {
            for b in (0..=255u32).step_by(5) {
                let got = saturating_add(a << 8, b << 8) >> 8;
                assert_eq!(got, (a + b).min(255), "{a} + {b}");
            }
        }
    }
}
