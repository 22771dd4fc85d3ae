//! What the research models share: the step's grid, the state gathered into its
//! cell order, and the scan of one individual's neighbours over the runs of the
//! cells around it (the boids' grid and periodic images, scalar).

use crate::boids::Boids;
use crate::grid::{Extent, Grid};
use crate::params::WorldConfig;
use crate::vector::Vector;
use crate::vector::min_image;
use rayon::prelude::*;

/// Individuals per parallel task.
pub(super) const CHUNK: usize = 256;

/// Reusable memory of a model step: in steady state a step allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scratch<V> {
    pub(super) grid: Grid,
    /// Positions in the grid's cell order.
    pub(super) pos: Vec<V>,
    /// Velocities in the grid's cell order.
    pub(super) vel: Vec<V>,
    pub(super) ids: Vec<u32>,
    pub(super) species: Vec<u16>,
    /// New positions and velocities, cell order.
    pub(super) new_pos: Vec<V>,
    pub(super) new_vel: Vec<V>,
    /// Further per-individual vectors (the integrator's stages).
    pub(super) extra: Vec<Vec<V>>,
    /// Slot lists (the ABM's activation order).
    pub(super) slots: Vec<u32>,
}

impl<V: Vector> Scratch<V> {
    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        let v = std::mem::size_of::<V>();
        self.grid.heap_bytes()
            + (self.pos.capacity()
                + self.vel.capacity()
                + self.new_pos.capacity()
                + self.new_vel.capacity()
                + self.extra.iter().map(Vec::capacity).sum::<usize>())
                * v
            + self.ids.capacity() * 4
            + self.species.capacity() * 2
            + self.slots.capacity() * 4
    }

    /// Builds the grid over the stored positions with cells at least `radius`
    /// wide and gathers the state into its cell order.
    pub(super) fn gather(&mut self, boids: &Boids<V>, config: &WorldConfig<V>, radius: f32) {
        self.grid
            .build(&boids.positions, radius, Extent::of(config));
        let order = self.grid.order();
        let n = order.len();
        self.pos.clear();
        self.pos
            .extend(order.iter().map(|&s| boids.positions[s as usize]));
        self.vel.clear();
        self.vel
            .extend(order.iter().map(|&s| boids.velocities[s as usize]));
        self.ids.clear();
        self.ids
            .extend(order.iter().map(|&s| boids.ids[s as usize]));
        self.species.clear();
        self.species
            .extend(order.iter().map(|&s| boids.species[s as usize]));
        self.new_pos.resize(n, V::ZERO);
        self.new_vel.resize(n, V::ZERO);
    }

    /// Moves the new state into `boids` in cell order; the steering is the change
    /// of velocity over `dt`.
    pub(super) fn store(&mut self, boids: &mut Boids<V>, dt: f32) {
        let inv = 1.0 / dt;
        boids.steering.clear();
        boids.steering.extend(
            self.new_vel
                .iter()
                .zip(&self.vel)
                .map(|(&a, &b)| (a - b) * inv),
        );
        std::mem::swap(&mut boids.positions, &mut self.new_pos);
        std::mem::swap(&mut boids.velocities, &mut self.new_vel);
        std::mem::swap(&mut boids.ids, &mut self.ids);
        std::mem::swap(&mut boids.species, &mut self.species);
    }
}

/// Computes every individual's new position and velocity from its cell-order
/// index, in parallel (each result depends only on the gathered state).
pub(super) fn update_each<V: Vector>(
    new_pos: &mut [V],
    new_vel: &mut [V],
    f: impl Fn(usize) -> (V, V) + Sync,
) {
    new_pos
        .par_chunks_mut(CHUNK)
        .zip(new_vel.par_chunks_mut(CHUNK))
        .enumerate()
        .for_each(|(c, (ps, vs))| {
            for (i, (p, v)) in ps.iter_mut().zip(vs.iter_mut()).enumerate() {
                (*p, *v) = f(c * CHUNK + i);
            }
        });
}

/// Calls `f(j, d, d²)` for every entry `j` of `pos` (a grid's cell-order copy)
/// strictly within `sqrt(r2)` of `p`, `d` the offset from `p` to it (nearest
/// periodic image), in the grid's fixed order. `p` itself is included (d = 0).
#[inline]
pub(super) fn for_each_near<V: Vector>(
    grid: &Grid,
    pos: &[V],
    p: V,
    r2: f32,
    mut f: impl FnMut(usize, V, f32),
) {
    let period = grid.period::<V>().unwrap_or(V::ZERO);
    let mi = grid.needs_min_image();
    for run in grid.runs::<V>(grid.coords_of(p)).as_slice() {
        let origin = p - run.shift;
        for (j, &q) in pos
            .iter()
            .enumerate()
            .take(run.end as usize)
            .skip(run.start as usize)
        {
            let mut d = q - origin;
            if mi {
                d = min_image(d, period);
            }
            let d2 = d.length_squared();
            if d2 < r2 {
                f(j, d, d2);
            }
        }
    }
}

/// A uniform random unit vector perpendicular to the unit vector `d`, from two
/// uniforms per try (in 2D the left normal; the caller's angle carries the sign).
#[inline]
pub(super) fn perpendicular<V: Vector>(d: V, mut uniform: impl FnMut() -> f32) -> V {
    if V::DIM == 2 {
        return V::from_array3([-d.get(1), d.get(0), 0.0]);
    }
    for _ in 0..16 {
        let u = V::unit_from_uniform(uniform(), uniform());
        let w = u - d * u.dot(d);
        let l = w.length();
        if l > 1e-3 {
            return w / l;
        }
    }
    // Sixteen draws all within 0.06° of ±d: practically never; any normal will do.
    let a = d.to_array3();
    let w = if a[0].abs() < 0.9 {
        V::from_array3([0.0, -a[2], a[1]])
    } else {
        V::from_array3([a[2], 0.0, -a[0]])
    };
    w.normalize_or_zero()
}

/// The unit vector `d` turned toward the unit vector `target` by at most
/// `max_angle` radians, in the plane they span.
#[inline]
pub(super) fn turn_toward<V: Vector>(d: V, target: V, max_angle: f32, perp: V) -> V {
    let c = d.dot(target).clamp(-1.0, 1.0);
    let angle = libm::acosf(c);
    if angle <= max_angle {
        return target;
    }
    // The component of target across d; antiparallel: the given perpendicular.
    let mut u = target - d * c;
    let l = u.length();
    u = if l > 1e-6 { u / l } else { perp };
    (d * libm::cosf(max_angle) + u * libm::sinf(max_angle)).normalize_or_zero()
}
