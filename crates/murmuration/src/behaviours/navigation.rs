//! Flow fields: the distance to an attractor along the world's free space
//! (around obstacles, not through them), so boids seeking a navigating
//! attractor come around a wall's end instead of pressing into it. The game's
//! focus and recall use it; so can any "go there" target of a level or a game.
//!
//! One field per navigating attractor: a uniform grid over the world box,
//! cells blocked where an obstacle is within half a cell's diagonal, and a
//! Dijkstra sweep from the attractor's cell over the free ones (8 neighbours in
//! 2D, 26 in 3D, no corner cutting). A boid steers down the field's gradient
//! where the path bends, and straight at the attractor where it does not, so a
//! navigating attractor in open space pulls exactly as a plain one.
//! Rebuilt only when the attractor changes cell or the obstacles change.

use crate::behaviours::obstacles::ObstacleSet;
use crate::vector::Vector;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Most cells in a field: the cell size grows with the world to stay under it.
pub const NAV_CELLS: usize = 1 << 15;

/// The geodesic distance to one attractor over the free cells of a world.
#[derive(Clone, Debug)]
pub struct NavField<V> {
    origin: V,
    cell: f32,
    dims: [usize; 3],
    /// Cells an obstacle leaves free.
    free: Vec<bool>,
    /// Distance to the target along free cells, units (infinite: unreachable).
    dist: Vec<f32>,
    /// The cell the distances were swept from.
    target: usize,
    /// What the free cells were built from: the world box and the obstacles'
    /// bounding spheres (a gate opening changes them).
    key: (V, V, Vec<(V, f32)>),
}

impl<V: Vector> NavField<V> {
    /// The field toward `target` in the box `min..max` around `obstacles`.
    pub fn build(min: V, max: V, target: V, obstacles: &ObstacleSet<V>) -> Self {
        let size = (max - min).to_array3();
        let volume: f32 = size[..V::DIM].iter().map(|s| s.max(1e-3)).product();
        let cell = libm::powf(volume / NAV_CELLS as f32, 1.0 / V::DIM as f32).max(1e-3);
        let mut dims = [1usize; 3];
        for (d, s) in dims.iter_mut().zip(size).take(V::DIM) {
            *d = ((s / cell).ceil() as usize).clamp(1, NAV_CELLS);
        }
        let mut field = Self {
            origin: min,
            cell,
            dims,
            free: Vec::new(),
            dist: Vec::new(),
            target: usize::MAX,
            key: (min, max, obstacles.bounds().to_vec()),
        };
        field.block(obstacles);
        field.sweep(target);
        field
    }

    /// Brings the field up to date for `target` in `min..max`: nothing when
    /// neither the target's cell nor the obstacles changed.
    pub fn update(&mut self, min: V, max: V, target: V, obstacles: &ObstacleSet<V>) {
        if self.key.0 != min || self.key.1 != max || self.key.2 != obstacles.bounds() {
            *self = Self::build(min, max, target, obstacles);
        } else if self.index(target) != self.target {
            self.sweep(target);
        }
    }

    fn len(&self) -> usize {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    /// A cell's integer coordinates.
    fn coords(&self, i: usize) -> [usize; 3] {
        let [nx, ny, _] = self.dims;
        [i % nx, (i / nx) % ny, i / (nx * ny)]
    }

    fn centre(&self, i: usize) -> V {
        let c = self.coords(i);
        self.origin
            + V::from_array3([
                (c[0] as f32 + 0.5) * self.cell,
                (c[1] as f32 + 0.5) * self.cell,
                (c[2] as f32 + 0.5) * self.cell,
            ])
    }

    /// The cell holding `p` (clamped into the grid).
    fn index(&self, p: V) -> usize {
        let q = ((p - self.origin) * (1.0 / self.cell)).to_array3();
        let mut c = [0usize; 3];
        for a in 0..V::DIM {
            c[a] = (q[a].max(0.0) as usize).min(self.dims[a] - 1);
        }
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }

    /// The neighbour of cell `c` at offset `o` (each component −1, 0 or 1).
    fn step_to(&self, c: [usize; 3], o: [i32; 3]) -> Option<usize> {
        let mut n = [0usize; 3];
        for a in 0..3 {
            let v = c[a] as i64 + o[a] as i64;
            if v < 0 || v >= self.dims[a] as i64 {
                return None;
            }
            n[a] = v as usize;
        }
        Some(n[0] + self.dims[0] * (n[1] + self.dims[1] * n[2]))
    }

    /// Marks the cells an obstacle comes within half a cell's diagonal of.
    fn block(&mut self, obstacles: &ObstacleSet<V>) {
        let margin = 0.5 * self.cell * (V::DIM as f32).sqrt();
        self.free = (0..self.len())
            .map(|i| {
                let p = self.centre(i);
                obstacles
                    .nearest(p, margin)
                    .is_none_or(|s| s.distance > margin)
            })
            .collect();
    }

    /// The offsets to a cell's neighbours in this dimension.
    fn offsets() -> impl Iterator<Item = [i32; 3]> {
        let z = if V::DIM == 3 { -1..=1 } else { 0..=0 };
        z.flat_map(|dz| (-1..=1).flat_map(move |dy| (-1..=1).map(move |dx| [dx, dy, dz])))
            .filter(|o| *o != [0, 0, 0])
    }

    /// Dijkstra from `target`'s cell over the free cells. A diagonal step needs
    /// every axis step it is made of free, so paths never cut a wall's corner.
    fn sweep(&mut self, target: V) {
        let start = self.index(target);
        self.target = start;
        self.dist.clear();
        self.dist.resize(self.len(), f32::INFINITY);
        self.dist[start] = 0.0;
        let offsets: Vec<([i32; 3], f32)> = Self::offsets()
            .map(|o| {
                let l = ((o[0] * o[0] + o[1] * o[1] + o[2] * o[2]) as f32).sqrt();
                (o, l * self.cell)
            })
            .collect();
        // Non-negative floats order as their bits; ties go by cell index.
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((0u32, start)));
        while let Some(Reverse((bits, i))) = heap.pop() {
            let d = f32::from_bits(bits);
            if d > self.dist[i] {
                continue;
            }
            let c = self.coords(i);
            for &(o, cost) in &offsets {
                let Some(n) = self.step_to(c, o) else {
                    continue;
                };
                if !self.free[n] || !self.axis_steps_free(c, o) {
                    continue;
                }
                let nd = d + cost;
                if nd < self.dist[n] {
                    self.dist[n] = nd;
                    heap.push(Reverse((nd.to_bits(), n)));
                }
            }
        }
    }

    /// True when each single-axis step that `o` is made of lands on a free cell.
    fn axis_steps_free(&self, c: [usize; 3], o: [i32; 3]) -> bool {
        (0..3).filter(|&a| o[a] != 0).count() < 2
            || (0..3).filter(|&a| o[a] != 0).all(|a| {
                let mut e = [0; 3];
                e[a] = o[a];
                self.step_to(c, e).is_some_and(|n| self.free[n])
            })
    }

    /// Where a boid at `p`, `straight` units from the target as the crow
    /// flies, should head to reach it around obstacles, as a unit direction
    /// and the distance left along the way; `None` where the way is straight
    /// (the path bends by less than two cells) or `p` cannot reach the target
    /// (the plain straight seek applies).
    pub fn direction(&self, p: V, straight: f32) -> Option<(V, f32)> {
        let i = self.index(p);
        let here = self.dist[i];
        if !here.is_finite() || here <= straight + 2.0 * self.cell {
            return None;
        }
        // Down the gradient by central differences; a blocked or unreached
        // neighbour counts as uphill, so the way leads off walls.
        let c = self.coords(i);
        let value = |n: Option<usize>| {
            n.map(|n| self.dist[n])
                .filter(|d| d.is_finite())
                .unwrap_or(here + self.cell)
        };
        let mut g = [0.0f32; 3];
        for (a, ga) in g.iter_mut().enumerate().take(V::DIM) {
            let mut e = [0; 3];
            e[a] = 1;
            let up = value(self.step_to(c, e));
            e[a] = -1;
            let down = value(self.step_to(c, e));
            *ga = down - up;
        }
        let mut dir = V::from_array3(g).normalize_or_zero();
        if dir == V::ZERO {
            // A saddle: the lowest neighbour.
            let best = Self::offsets()
                .filter_map(|o| self.step_to(c, o).map(|n| (o, self.dist[n])))
                .min_by(|a, b| a.1.total_cmp(&b.1))?;
            let o = best.0;
            dir = V::from_array3([o[0] as f32, o[1] as f32, o[2] as f32]).normalize_or_zero();
        }
        Some((dir, here))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviours::obstacles::Obstacle;
    use glam::Vec2;

    /// A wall from the floor to y = 70 between a boid and its target: the way
    /// leads up, around the wall's end, not into it; in the open it is straight.
    #[test]
    fn the_way_around_a_wall_leads_past_its_end() {
        let wall = Obstacle::Box {
            center: Vec2::new(50.0, 35.0),
            half_extents: Vec2::new(2.0, 35.0),
        };
        let set = ObstacleSet::new(&[wall]);
        let (min, max) = (Vec2::ZERO, Vec2::new(100.0, 100.0));
        let target = Vec2::new(80.0, 30.0);
        let field = NavField::build(min, max, target, &set);
        let (dir, d) = field
            .direction(Vec2::new(20.0, 30.0), 60.0)
            .expect("the wall bends the way");
        assert!(dir.y > 0.7, "heads up toward the wall's end: {dir}");
        // Around the end at (50, 70): 50 up to it, 52 down from it, plus
        // the clearance a cell keeps off the wall and the grid's steps.
        assert!((100.0..125.0).contains(&d), "distance along the way {d}");
        assert_eq!(field.direction(Vec2::new(70.0, 30.0), 10.0), None);
        // Moving the target within its cell sweeps nothing again; across, it does.
        let mut f2 = field.clone();
        f2.update(min, max, Vec2::new(80.0, 90.0), &set);
        assert!(
            f2.direction(Vec2::new(20.0, 30.0), Vec2::new(60.0, 60.0).length())
                .is_some()
        );
        assert_ne!(f2.target, field.target);
    }

    /// With the wall gone (a gate opened), the field is rebuilt: the way is straight.
    #[test]
    fn an_obstacle_removed_rebuilds_the_field() {
        let wall = Obstacle::Box {
            center: Vec2::new(50.0, 35.0),
            half_extents: Vec2::new(2.0, 35.0),
        };
        let (min, max) = (Vec2::ZERO, Vec2::new(100.0, 100.0));
        let target = Vec2::new(80.0, 30.0);
        let mut field = NavField::build(min, max, target, &ObstacleSet::new(&[wall]));
        field.update(min, max, target, &ObstacleSet::new(&[]));
        assert_eq!(field.direction(Vec2::new(20.0, 30.0), 60.0), None);
    }
}
