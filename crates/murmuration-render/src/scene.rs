//! A frame's drawable content, built from a [`World`]: one instance per boid
//! (position, heading, colour), overlay lines and 2D fills for the behaviour
//! entities, and trails.

use crate::overlay;
use crate::periodic::{nearest_image, period};
use crate::settings::{ColourMode, RenderSettings};
use crate::vertex::{BoidInstance, ColourVertex, to3};
use glam::Vec3;
use murmuration::scenario::Look;
use murmuration::{Vector, World};
use murmuration_gpu::BoidBuffers;

/// Glowing species colours (linear RGB), cycled when there are more species.
pub const PALETTE: [[f32; 3]; 8] = [
    [0.25, 0.85, 1.0],
    [1.0, 0.55, 0.12],
    [1.0, 0.28, 0.78],
    [0.55, 1.0, 0.3],
    [1.0, 0.85, 0.3],
    [0.6, 0.45, 1.0],
    [1.0, 0.3, 0.3],
    [0.85, 0.92, 1.0],
];

/// Blue → cyan → yellow → red for `t` in [0, 1].
pub fn heat(t: f32) -> [f32; 3] {
    let stops = [
        [0.08, 0.2, 1.0],
        [0.1, 0.9, 1.0],
        [1.0, 0.9, 0.2],
        [1.0, 0.18, 0.1],
    ];
    let t = t.clamp(0.0, 1.0) * 3.0;
    let i = (t as usize).min(2);
    let f = t - i as f32;
    std::array::from_fn(|c| stops[i][c] + (stops[i + 1][c] - stops[i][c]) * f)
}

fn rgba8(c: [f32; 3]) -> [u8; 4] {
    let q = |x: f32| (x.clamp(0.0, 1.0) * 255.0 + 0.5) as u8;
    [q(c[0]), q(c[1]), q(c[2]), 255]
}

/// The roll of a boid in a coordinated turn, radians: its wings' lift must
/// bear its weight (`gravity` along −y) and give its turning acceleration (the
/// part of `steering` across `heading`), so its up axis leans along
/// `turn + gravity·ŷ` — about 45° in a turn pulling one g. Measured from the
/// up axis toward the side axis the shader builds (`side = ŷ × heading`).
/// `scene.wgsl`'s `bank` is the same formula for boids drawn from a GPU flock.
pub fn bank(heading: Vec3, steering: Vec3, gravity: f32) -> f32 {
    if heading.y.abs() > 0.99 || !steering.is_finite() {
        return 0.0; // straight up or down: no side axis to roll toward
    }
    let side = Vec3::Y.cross(heading).normalize();
    let up = heading.cross(side);
    let turn = steering - heading * steering.dot(heading);
    let lift = turn + Vec3::Y * gravity;
    lift.dot(side).atan2(lift.dot(up))
}

/// The gravity a `V`-dimensional scene banks with: 2D darts are drawn level.
fn bank_gravity<V: Vector>(settings: &RenderSettings) -> f32 {
    if V::DIM == 3 { settings.gravity } else { 0.0 }
}

/// The last positions of every boid, by id, for trails.
#[derive(Clone, Debug, Default)]
pub struct Trails {
    len: usize,
    /// `history[id * len + k]`: position `k` frames ago (NaN: none).
    history: Vec<Vec3>,
    frames: usize,
}

impl Trails {
    /// Forgets every trail.
    pub fn clear(&mut self) {
        self.history.clear();
        self.frames = 0;
    }
}

/// What one frame draws.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// 2 or 3.
    pub dim: usize,
    /// One instance per boid, in the world's storage order.
    pub boids: Vec<BoidInstance>,
    /// Length of a boid's body, units.
    pub boid_size: f32,
    /// Overlay line segments (pairs of vertices).
    pub lines: Vec<ColourVertex>,
    /// Overlay triangles (2D fills: obstacles, zones).
    pub fills: Vec<ColourVertex>,
    /// The world box.
    pub bounds: (Vec3, Vec3),
    /// The flock's centroid (for a following camera; in a wrap-around world the
    /// circular mean, inside the box) when [`Scene::track_centroid`] is set,
    /// else the box's centre.
    pub centroid: Vec3,
    /// Compute [`Scene::centroid`] at each update. Only a following camera
    /// reads it, and in a wrap-around world it costs a sine and a cosine per
    /// boid and axis: at a million boids more than a GPU's whole frame.
    pub track_centroid: bool,
    /// The world's period per axis ([`crate::period`]: zero unless it wraps).
    pub period: Vec3,
    /// In a wrap-around world, draw every boid, trail and overlay at its periodic
    /// image nearest this point: a following camera sets it to where it looks, so
    /// the flock crosses the seam whole. `None` draws them inside the box. (Boids
    /// drawn from a GPU flock's buffers stay in the box.)
    pub view_centre: Option<Vec3>,
    /// When set, the boids are drawn straight from a GPU flock's buffers and
    /// [`Scene::boids`] is empty.
    pub gpu: Option<GpuBoids>,
    /// How each species is drawn (its scenario's `look`), by species index; a
    /// species past the end takes the palette's colour at size 1. Set it once
    /// from [`murmuration::scenario::Scenario::looks`].
    pub looks: Vec<Look>,
}

/// Boids drawn from a GPU flock's storage buffers on the renderer's device (no
/// copy through the CPU).
#[derive(Clone, Debug)]
pub struct GpuBoids {
    /// The flock's live state.
    pub buffers: BoidBuffers,
    /// Per species: linear RGB colour, max speed (units/s), body length
    /// multiple, then three zeros (two `vec4`s in the shader).
    pub species: Vec<[f32; 8]>,
    /// Colour by speed (else by species).
    pub by_speed: bool,
    /// Gravity for banking, units/s² (0 in 2D: drawn level).
    pub gravity: f32,
}

impl Scene {
    /// An empty scene.
    pub fn new() -> Self {
        Self::default()
    }

    /// Rebuilds the scene from `world` (reusing its memory).
    pub fn update<V: Vector>(
        &mut self,
        world: &World<V>,
        settings: &RenderSettings,
        trails: &mut Trails,
    ) {
        self.gpu = None;
        self.entities(world, settings);
        let b = world.boids();
        let (pos, vel, sp) = (b.positions(), b.velocities(), b.species());
        let steering = b.steering();
        let species = world.species();
        let gravity = bank_gravity::<V>(settings);
        let counts = match settings.colour {
            ColourMode::Neighbours => world.neighbour_counts(),
            _ => Vec::new(),
        };
        self.boids.clear();
        self.boids.reserve(pos.len());
        let around = self.around();
        for i in 0..pos.len() {
            let mut p = to3(pos[i]);
            if let Some(c) = around {
                p = nearest_image(p, c, self.period);
            }
            let v = to3(vel[i]);
            let speed = v.length();
            let s = sp[i] as usize;
            let look = self.look(s);
            let colour = match settings.colour {
                ColourMode::Species => look.colour.unwrap_or(PALETTE[s % PALETTE.len()]),
                ColourMode::Speed => heat(speed / species[s].max_speed),
                ColourMode::Neighbours => {
                    let t = (counts[i] as f32 / 20.0).min(1.0);
                    [0.1 + 0.9 * t, 0.2 + 0.8 * t, 0.6 + 0.4 * t]
                }
            };
            let heading = if speed > 0.0 { v / speed } else { Vec3::X };
            self.boids.push(BoidInstance {
                position: p.to_array(),
                heading: heading.to_array(),
                colour: rgba8(colour),
                size: look.size,
                bank: if gravity > 0.0 {
                    bank(heading, to3(steering[i]), gravity)
                } else {
                    0.0
                },
            });
        }
        if settings.trails > 0 {
            self.trails(world, settings, trails);
        } else {
            trails.clear();
        }
    }

    /// Rebuilds the scene with the boids drawn straight from `buffers`, the live
    /// state of a GPU flock built from `world` on the renderer's device. Overlays
    /// and the follow camera's centroid come from `world` as of its last
    /// read-back. Colouring by neighbour count and trails need the state on the
    /// CPU ([`RenderSettings::needs_cpu_state`]): boids are coloured by species
    /// and no trails are drawn here.
    pub fn update_from_gpu<V: Vector>(
        &mut self,
        world: &World<V>,
        buffers: BoidBuffers,
        settings: &RenderSettings,
    ) {
        self.entities(world, settings);
        self.boids.clear();
        self.gpu = Some(GpuBoids {
            buffers,
            species: world
                .species()
                .iter()
                .enumerate()
                .map(|(s, p)| {
                    let look = self.look(s);
                    let c = look.colour.unwrap_or(PALETTE[s % PALETTE.len()]);
                    [c[0], c[1], c[2], p.max_speed, look.size, 0.0, 0.0, 0.0]
                })
                .collect(),
            by_speed: settings.colour == ColourMode::Speed,
            gravity: bank_gravity::<V>(settings),
        });
    }

    /// The point to draw periodic images around, when the world wraps.
    fn around(&self) -> Option<Vec3> {
        self.view_centre.filter(|_| self.period != Vec3::ZERO)
    }

    /// The look of species `s` (the default past the end of [`Scene::looks`]).
    fn look(&self, s: usize) -> Look {
        self.looks.get(s).copied().unwrap_or_default()
    }

    /// Everything but the boids: size, box, centroid and overlays.
    fn entities<V: Vector>(&mut self, world: &World<V>, settings: &RenderSettings) {
        let pos = world.boids().positions();
        let species = world.species();
        self.dim = V::DIM;
        let cfg = world.config();
        self.bounds = (to3(cfg.min), to3(cfg.max));
        self.period = period(cfg);
        self.boid_size = if settings.boid_size > 0.0 {
            settings.boid_size
        } else {
            let sep = species
                .iter()
                .map(|s| s.separation_radius)
                .fold(f32::INFINITY, f32::min);
            let extent = (self.bounds.1 - self.bounds.0).max_element();
            // Visible at any zoom that shows the whole box, never larger than the
            // spacing the flock keeps.
            (1.2 * sep).min(extent / 60.0).max(extent / 900.0)
        };
        self.centroid = if pos.is_empty() || !self.track_centroid {
            0.5 * (self.bounds.0 + self.bounds.1)
        } else {
            // Only the centroid: the other metrics (neighbour searches) are not needed.
            to3(murmuration::metrics::centroid(pos, cfg))
        };
        self.lines.clear();
        self.fills.clear();
        if settings.overlays {
            overlay::entities(world, &mut self.lines, &mut self.fills);
            if let Some(c) = self.around() {
                // Each segment or triangle moves whole, by its first vertex's shift.
                let period = self.period;
                for (list, n) in [(&mut self.lines, 2), (&mut self.fills, 3)] {
                    for prim in list.chunks_mut(n) {
                        let first = Vec3::from_array(prim[0].position);
                        let shift = nearest_image(first, c, period) - first;
                        for v in prim {
                            v.position = (Vec3::from_array(v.position) + shift).to_array();
                        }
                    }
                }
            }
        }
    }

    fn trails<V: Vector>(&mut self, world: &World<V>, settings: &RenderSettings, t: &mut Trails) {
        let len = settings.trails.min(64) as usize;
        let b = world.boids();
        let ids = b.ids();
        let width = b.next_id() as usize;
        // Trails hold len positions per id slot: cap the memory at ~64 MB.
        if width.saturating_mul(len) > 4 << 20 {
            return;
        }
        if t.len != len || t.history.len() != width * len {
            let mut h = vec![Vec3::NAN; width * len];
            if t.len == len {
                let keep = t.history.len().min(h.len());
                h[..keep].copy_from_slice(&t.history[..keep]);
            }
            t.history = h;
            t.len = len;
        }
        let size = self.bounds.1 - self.bounds.0;
        let wrap = world.config().boundary == murmuration::Boundary::Wrap;
        for (i, &id) in ids.iter().enumerate() {
            let h = &mut t.history[id as usize * len..(id as usize + 1) * len];
            h.rotate_right(1);
            h[0] = Vec3::from_array(self.boids[i].position);
            let c = self.boids[i].colour;
            let base = [
                c[0] as f32 / 255.0,
                c[1] as f32 / 255.0,
                c[2] as f32 / 255.0,
            ];
            for k in 0..len - 1 {
                let (a, b) = (h[k], h[k + 1]);
                if !(a.is_finite() && b.is_finite()) {
                    break;
                }
                let d = (a - b).abs();
                if wrap && (d.x > 0.5 * size.x || d.y > 0.5 * size.y || d.z > 0.5 * size.z) {
                    continue;
                }
                let fade = 0.6 * (1.0 - k as f32 / len as f32);
                let colour = [base[0] * fade, base[1] * fade, base[2] * fade, 1.0];
                self.lines.push(ColourVertex {
                    position: a.to_array(),
                    colour,
                });
                self.lines.push(ColourVertex {
                    position: b.to_array(),
                    colour,
                });
            }
        }
        t.frames += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;
    use murmuration::{Boundary, SpeciesParams, World2, WorldConfig};
    use murmuration::{Spawn, SpeciesId};

    /// The frame's per-boid trigonometry: a scene computes the flock's circular
    /// centroid only for a following camera (`render --backend gpu` at a
    /// million boids spent it on every frame of a world it never read).
    #[test]
    fn the_centroid_is_computed_only_when_tracked() {
        let config = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
        let mut w = World2::new(config, vec![SpeciesParams::default()]).unwrap();
        // A flock across the corner: its circular centroid is there, far
        // from the box's centre.
        let (lo, hi) = (w.config().min, w.config().max);
        for (a, b) in [(lo, lo + Vec2::ONE), (hi - Vec2::ONE, hi)] {
            w.spawn(Spawn::new(SpeciesId::FIRST, 20).region(a, b).speed(1.0))
                .unwrap();
        }
        let centre = (0.5 * (lo + hi)).extend(0.0);
        let (mut scene, mut trails) = (Scene::new(), Trails::default());
        let settings = RenderSettings::default();
        scene.update(&w, &settings, &mut trails);
        assert_eq!(scene.centroid, centre, "untracked: the box's centre");
        scene.track_centroid = true;
        scene.update(&w, &settings, &mut trails);
        let c = murmuration::metrics::centroid(w.positions(), w.config()).extend(0.0);
        assert_eq!(scene.centroid, c);
        assert!((c - centre).length() > 5.0, "circular, by the corner: {c}");
    }

    #[test]
    fn every_boid_becomes_one_instance_with_its_species_colour() {
        let config = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
        let mut w = World2::new(config, vec![SpeciesParams::default(); 2]).unwrap();
        w.spawn(Spawn::new(SpeciesId::FIRST, 50).speed(1.0))
            .unwrap();
        w.spawn(Spawn::new(SpeciesId::new(1), 30).speed(1.0))
            .unwrap();
        w.step();
        let mut scene = Scene::new();
        let mut trails = Trails::default();
        let settings = RenderSettings {
            trails: 4,
            overlays: false,
            ..RenderSettings::default()
        };
        scene.update(&w, &settings, &mut trails);
        assert_eq!(scene.boids.len(), 80);
        let cyan = rgba8(PALETTE[0]);
        let orange = rgba8(PALETTE[1]);
        assert_eq!(scene.boids.iter().filter(|b| b.colour == cyan).count(), 50);
        assert_eq!(
            scene.boids.iter().filter(|b| b.colour == orange).count(),
            30
        );
        for b in &scene.boids {
            let h = Vec3::from_array(b.heading);
            assert!((h.length() - 1.0).abs() < 1e-4);
        }
        w.step();
        scene.update(&w, &settings, &mut trails);
        assert_eq!(
            scene.lines.len(),
            2 * 80,
            "one trail segment per boid after two frames"
        );
    }

    /// A following camera past the seam of a wrap-around world sees every boid
    /// and overlay at its image around it (within half a world on each axis);
    /// without a view centre, or in a walled world, they stay in the box.
    #[test]
    fn a_view_centre_draws_a_wrapped_world_around_it() {
        let config = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
        let mut w = World2::new(config, vec![SpeciesParams::default()]).unwrap();
        w.spawn(Spawn::new(SpeciesId::FIRST, 200).speed(1.0))
            .unwrap();
        w.add_attractor(murmuration::Attractor::new(Vec2::new(1.0, 1.0), 1.0, 1.0))
            .unwrap();
        let mut scene = Scene::new();
        let mut trails = Trails::default();
        let settings = RenderSettings::default();
        let centre = Vec3::new(21.0, -1.0, 0.0);
        scene.view_centre = Some(centre);
        scene.update(&w, &settings, &mut trails);
        assert_eq!(scene.period, Vec3::new(20.0, 20.0, 0.0));
        for b in &scene.boids {
            let d = Vec3::from_array(b.position) - centre;
            assert!(d.x.abs() <= 10.0 && d.y.abs() <= 10.0, "{:?}", b.position);
        }
        assert!(!scene.lines.is_empty() || !scene.fills.is_empty());
        let at = Vec3::new(21.0, 1.0, 0.0);
        let near = |v: &ColourVertex| (Vec3::from_array(v.position) - at).length() < 1.5;
        assert!(
            scene.lines.iter().chain(&scene.fills).any(near),
            "the attractor at (1, 1) is drawn at (21, 1)"
        );
        scene.view_centre = None;
        scene.update(&w, &settings, &mut trails);
        for b in &scene.boids {
            assert!(b.position[0] >= 0.0 && b.position[0] < 20.0);
        }
    }

    #[test]
    fn the_shark_is_drawn_larger_and_in_its_own_colour() {
        let config = WorldConfig::new(Vec2::splat(20.0), Boundary::Wrap);
        let mut w = World2::new(config, vec![SpeciesParams::default(); 2]).unwrap();
        w.spawn(Spawn::new(SpeciesId::FIRST, 20).speed(1.0))
            .unwrap();
        w.spawn(Spawn::new(SpeciesId::new(1), 1).speed(1.0))
            .unwrap();
        let mut scene = Scene::new();
        scene.looks = vec![
            Look::default(),
            Look {
                colour: Some([0.9, 0.95, 1.0]),
                size: 5.0,
            },
        ];
        scene.update(&w, &RenderSettings::default(), &mut Trails::default());
        let shark: Vec<_> = scene.boids.iter().filter(|b| b.size == 5.0).collect();
        assert_eq!(shark.len(), 1);
        assert_eq!(shark[0].colour, rgba8([0.9, 0.95, 1.0]));
        let fish = scene.boids.iter().filter(|b| b.size == 1.0);
        assert!(fish.clone().all(|b| b.colour == rgba8(PALETTE[0])));
        assert_eq!(fish.count(), 20);
        assert!(
            scene.boids.iter().all(|b| b.bank == 0.0),
            "2D is drawn level"
        );
    }

    #[test]
    fn a_boid_banks_into_its_turn_as_in_a_coordinated_turn() {
        let g = 9.81;
        // Level, straight flight: wings level.
        assert_eq!(bank(Vec3::X, Vec3::ZERO, g), 0.0);
        // Speeding up along the heading is no turn.
        assert!(bank(Vec3::X, Vec3::X * 5.0, g).abs() < 1e-6);
        // Heading +x, the shader's side axis is y × x = −z: a one-g turn toward
        // −z rolls 45° toward it, the opposite turn −45°.
        let side = Vec3::Y.cross(Vec3::X);
        let b = bank(Vec3::X, side * g, g);
        assert!((b - std::f32::consts::FRAC_PI_4).abs() < 1e-5, "{b}");
        assert!((bank(Vec3::X, -side * g, g) + std::f32::consts::FRAC_PI_4).abs() < 1e-5);
        // A pull-up (acceleration along up) is no roll; straight up has no side.
        assert!(bank(Vec3::X, Vec3::Y * 3.0, g).abs() < 1e-6);
        assert_eq!(bank(Vec3::Y, side, g), 0.0);
    }

    #[test]
    fn heat_runs_from_blue_to_red() {
        assert!(heat(0.0)[2] > 0.9 && heat(0.0)[0] < 0.2);
        assert!(heat(1.0)[0] > 0.9 && heat(1.0)[2] < 0.2);
    }
}
