//! The behaviours' data on the GPU (bind group 1 of `shaders/behaviours.wgsl`):
//! one scene buffer holding obstacles packed as shapes, one `f32` array (polygon
//! vertices, baked field samples, the coarse clearance grid, path vertices), the
//! actor table, and the moving entities' state per step. The entities evolve on
//! the host by the core's own clock ([`murmuration::entities`]), a frame per step
//! uploaded before each submission, so both engines see the same attractor
//! positions and fades bit for bit.

use crate::dims::GpuVector;
use crate::error::GpuError;
use crate::relations::Plan;
use bytemuck::{Pod, Zeroable};
use murmuration::{Attractor, Obstacle, Path, Pulse, World};

/// The shader's `Behave` (uniform; 128 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct BehaveUniform {
    pub obstacles: u32,
    pub attractors: u32,
    pub pulses: u32,
    pub paths: u32,
    pub frame_stride: u32,
    pub frames: u32,
    pub clear_first: u32,
    pub skin: f32,
    pub clear_origin: [f32; 4],
    pub clear_dims: [u32; 4],
    pub clear_cell: f32,
    /// Offset of the per-species wander phases in a frame (vec4s).
    pub wander_base: u32,
    /// 1 when some species wanders (frames carry the phases).
    pub wanders: u32,
    /// Actors (relations.rs).
    pub actors: u32,
    /// Species (the interaction table is species × species).
    pub species: u32,
    /// Eating chasers.
    pub eaters: u32,
    /// Eaten events the event buffer holds.
    pub events_cap: u32,
    /// relations.rs's `Plan::eat_reach`, `Plan::travel`.
    pub eat_reach: f32,
    pub travel: f32,
    /// The farthest any boid looks at an actor it flees or follows.
    pub actor_reach: f32,
    /// Where the scene buffer holds the data, the actor table and the frames
    /// (16-byte words; the shapes start at 0).
    pub data_at: u32,
    pub table_at: u32,
    pub frames_at: u32,
    pub _pad: [u32; 3],
}

/// The shader's `Shape` (80 bytes: five 16-byte words of the scene buffer).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct ShapeData {
    pub kind: u32,
    pub first: u32,
    pub count: u32,
    pub aux: f32,
    pub dims: [u32; 4],
    pub a: [f32; 4],
    pub b: [f32; 4],
    pub bound: [f32; 4],
}

const _: () = assert!(std::mem::size_of::<BehaveUniform>() == 128);
const _: () = assert!(std::mem::size_of::<ShapeData>() == 80);

/// Eaten events recorded between two reads of the event buffer; more are
/// counted (the boids still die) but not described.
pub(crate) const EVENTS_CAP: u32 = 4096;
/// `u32` words per event record (step lo, step hi, predator, prey, x, y, z, 0),
/// after a header of 4 (count, 0, 0, 0).
pub(crate) const EVENT_WORDS: u32 = 8;

const SHAPE_SPHERE: u32 = 0;
const SHAPE_BOX: u32 = 1;
const SHAPE_CAPSULE: u32 = 2;
const SHAPE_POLYGON: u32 = 3;
const SHAPE_FIELD: u32 = 4;

fn v4<V: GpuVector>(v: V, w: f32) -> [f32; 4] {
    let a = v.to_array3();
    [a[0], a[1], a[2], w]
}

/// What a world's behaviours put on the GPU, and the entities' host clock.
#[derive(Clone, Debug)]
pub(crate) struct Behaviours<V: GpuVector> {
    pub uniform: BehaveUniform,
    pub shapes: Vec<ShapeData>,
    pub data: Vec<f32>,
    plan: Plan,
    /// The entities as of the next step to record; every slot kept (expired
    /// ones inactive) so a frame's layout never changes.
    attractors: Vec<Attractor<V>>,
    pulses: Vec<Pulse<V>>,
    paths: Vec<Path<V>>,
    /// Where each path's vertices start in `data`.
    path_first: Vec<u32>,
    /// Per species: the wander period, when the species wanders.
    wander: Vec<Option<f32>>,
    /// The step the next frame is for.
    step: u64,
    dt: f32,
}

impl<V: GpuVector> Behaviours<V> {
    /// Packs `world`'s obstacles, entities and interactions.
    pub fn new(world: &World<V>) -> Result<Self, GpuError> {
        let plan = Plan::new(world)?;
        let mut data = Vec::new();
        let mut shapes = Vec::new();
        for shape in world.obstacles() {
            let (c, r) = shape.bounds();
            let mut s = ShapeData::zeroed();
            s.bound = v4(c, r);
            match shape {
                Obstacle::Sphere { center, radius } => {
                    s.kind = SHAPE_SPHERE;
                    s.a = v4(*center, *radius);
                }
                Obstacle::Box {
                    center,
                    half_extents,
                } => {
                    s.kind = SHAPE_BOX;
                    s.a = v4(*center, 0.0);
                    s.b = v4(*half_extents, 0.0);
                }
                Obstacle::Capsule { a, b, radius } => {
                    s.kind = SHAPE_CAPSULE;
                    s.a = v4(*a, *radius);
                    s.b = v4(*b, 0.0);
                }
                Obstacle::Polygon { points } => {
                    s.kind = SHAPE_POLYGON;
                    s.first = data.len() as u32;
                    s.count = points.len() as u32;
                    for q in points {
                        data.extend_from_slice(&[q.get(0), q.get(1)]);
                    }
                }
                Obstacle::Field(g) => {
                    s.kind = SHAPE_FIELD;
                    s.first = data.len() as u32;
                    s.aux = g.lipschitz();
                    let d = g.dims();
                    s.dims = [d[0] as u32, d[1] as u32, d[2] as u32, 1];
                    s.a = v4(g.origin(), g.cell());
                    data.extend_from_slice(g.values());
                }
            }
            shapes.push(s);
        }
        let mut uniform = BehaveUniform::zeroed();
        uniform.obstacles = shapes.len() as u32;
        uniform.skin = world.contact_skin();
        if !shapes.is_empty() {
            let grid = world.obstacle_set().clearance_grid();
            if !grid.lower.is_empty() {
                uniform.clear_first = data.len() as u32;
                uniform.clear_origin = [grid.origin[0], grid.origin[1], grid.origin[2], 0.0];
                uniform.clear_dims = [
                    grid.dims[0] as u32,
                    grid.dims[1] as u32,
                    grid.dims[2] as u32,
                    0,
                ];
                uniform.clear_cell = grid.cell;
                data.extend_from_slice(grid.lower);
            }
        }
        let mut path_first = Vec::new();
        for p in world.paths() {
            path_first.push(data.len() as u32);
            for q in &p.points {
                data.extend_from_slice(&q.to_array3()[..V::DIM]);
            }
        }
        uniform.attractors = world.attractors().len() as u32;
        uniform.pulses = world.pulses().len() as u32;
        uniform.paths = world.paths().len() as u32;
        uniform.wander_base = 2 * (uniform.attractors + uniform.pulses + uniform.paths);
        let wander: Vec<Option<f32>> = world
            .species()
            .iter()
            .map(|p| (p.wander_weight > 0.0).then_some(p.wander_period))
            .collect();
        uniform.wanders = u32::from(wander.iter().any(Option::is_some));
        uniform.frame_stride = uniform.wander_base + uniform.wanders * world.species().len() as u32;
        uniform.actors = plan.actors;
        uniform.species = world.species().len() as u32;
        uniform.eaters = plan.eaters;
        uniform.events_cap = if plan.eats { EVENTS_CAP } else { 0 };
        uniform.eat_reach = plan.eat_reach;
        uniform.travel = plan.travel;
        uniform.actor_reach = plan.reach;
        if shapes.is_empty() {
            shapes.push(ShapeData::zeroed());
        }
        if data.is_empty() {
            data.push(0.0);
        }
        Ok(Self {
            uniform,
            shapes,
            data,
            plan,
            attractors: world.attractors().to_vec(),
            pulses: world.pulses().to_vec(),
            paths: world.paths().to_vec(),
            path_first,
            wander,
            step: world.step_index(),
            dt: world.config().dt,
        })
    }

    /// True when some species flees, chases or follows another.
    pub fn has_relations(&self) -> bool {
        self.plan.any
    }

    /// True when some species chases another.
    pub fn chases(&self) -> bool {
        self.plan.chases
    }

    /// True when some chaser eats.
    pub fn eats(&self) -> bool {
        self.plan.eats
    }

    /// The interaction plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// True when the world has obstacles.
    pub fn has_obstacles(&self) -> bool {
        self.uniform.obstacles > 0
    }

    /// True when the world has attractors, pulses, paths or wanderers.
    pub fn has_entities(&self) -> bool {
        self.uniform.frame_stride > 0
    }

    /// True when the frames change from step to step (a following attractor,
    /// a pulse, a path with a lifetime, a wanderer): uploaded per step.
    pub fn is_dynamic(&self) -> bool {
        self.uniform.wanders != 0
            || self.attractors.iter().any(|a| a.follow > 0.0)
            || !self.pulses.is_empty()
            || self.paths.iter().any(|p| p.lifetime.is_finite())
    }

    /// True when `other` (the same world's behaviours after an entity moved or
    /// changed) packs into the same buffers: the same uniform but for the
    /// buffers' own fields, the same shapes, data and interaction plan. Its
    /// entities can then replace these in place ([`GpuFlock::update_entities`]).
    ///
    /// [`GpuFlock::update_entities`]: crate::GpuFlock::update_entities
    pub fn same_layout(&self, other: &Self) -> bool {
        let mut a = self.uniform;
        let mut b = other.uniform;
        // The capacity and the places in the scene buffer are the buffers'
        // (`scene_head`), which the shapes, data and table compared below fix.
        for u in [&mut a, &mut b] {
            u.frames = 0;
            u.data_at = 0;
            u.table_at = 0;
            u.frames_at = 0;
        }
        bytemuck::bytes_of(&a) == bytemuck::bytes_of(&b)
            && bytemuck::cast_slice::<ShapeData, u8>(&self.shapes)
                == bytemuck::cast_slice::<ShapeData, u8>(&other.shapes)
            && self.data.len() == other.data.len()
            && self
                .data
                .iter()
                .zip(&other.data)
                .all(|(x, y)| x.to_bits() == y.to_bits())
            && self.plan == other.plan
            && self.path_first == other.path_first
    }

    /// Takes `other`'s entities (attractors, pulses, paths and their host
    /// clock) for the steps from `step` on; the layout is this one's.
    pub fn take_entities(&mut self, other: Self, step: u64) {
        self.attractors = other.attractors;
        self.pulses = other.pulses;
        self.paths = other.paths;
        self.step = step;
    }

    /// Bytes of the scene buffer when it holds `frames` frames: the head
    /// (shapes, data and actor table, as [`scene_head`] packs them) and the
    /// frames (at least one word each, as [`BehaviourBuffers::new`] makes it).
    pub fn scene_bytes(&self, frames: u32) -> u64 {
        let words = |n: usize| n.div_ceil(4) as u64;
        let head = (std::mem::size_of_val(&self.shapes[..]) / 16) as u64
            + words(self.data.len())
            + words(self.plan.table.len());
        16 * (head + u64::from(self.uniform.frame_stride.max(1)) * u64::from(frames))
    }

    /// The entity state of the next `steps` steps, one frame each, advancing the
    /// host clock past them.
    pub fn frames(&mut self, steps: u32) -> Vec<[f32; 4]> {
        let mut out = Vec::with_capacity((steps * self.uniform.frame_stride) as usize);
        for _ in 0..steps {
            self.frame(&mut out);
            murmuration::entities::age(
                &mut self.attractors,
                &mut self.pulses,
                &mut self.paths,
                self.dt,
            );
            self.step += 1;
        }
        out
    }

    /// One frame of the current state into `out` (layout in behaviours.wgsl).
    fn frame(&self, out: &mut Vec<[f32; 4]>) {
        let species = |s: Option<u16>| s.map_or(-1.0, f32::from);
        for a in &self.attractors {
            out.push(v4(a.position, a.weight));
            let range2 = (a.range * a.range).min(f32::MAX);
            out.push([
                a.radius,
                range2,
                species(a.species),
                f32::from(u8::from(a.free_inside)),
            ]);
        }
        for p in &self.pulses {
            out.push(v4(p.position, p.radius));
            out.push([p.strength, p.fade(), f32::from(u8::from(p.is_live())), 0.0]);
        }
        for (p, &first) in self.paths.iter().zip(&self.path_first) {
            out.push([
                p.capture_radius,
                p.faded_weight(),
                species(p.species),
                f32::from(u8::from(p.is_live())),
            ]);
            out.push([
                f32::from_bits(first),
                f32::from_bits(p.points.len() as u32),
                0.0,
                0.0,
            ]);
        }
        if self.uniform.wanders != 0 {
            for period in &self.wander {
                let (k, s) =
                    period.map_or((0, 0.0), |t| murmuration::knot_phase(self.step, self.dt, t));
                out.push([
                    f32::from_bits(k as u32),
                    f32::from_bits((k >> 32) as u32),
                    s,
                    0.0,
                ]);
            }
        }
    }
}

/// The buffers of group 1, in binding order.
struct Group1 {
    uniform: wgpu::Buffer,
    /// Shapes, data, the actor table (relations.rs) and the entity frames, in
    /// 16-byte words (the layout in behaviours.wgsl).
    scene: wgpu::Buffer,
    /// Actor records (two halves and the pursuit forces) and eaten events
    /// (with each eater's target).
    actors: wgpu::Buffer,
    events: wgpu::Buffer,
}

impl Group1 {
    /// The buffers in binding order.
    fn all(&self) -> [&wgpu::Buffer; 4] {
        [&self.uniform, &self.scene, &self.actors, &self.events]
    }
}

/// The behaviours' buffers (group 1).
pub(crate) struct BehaviourBuffers {
    buffers: Group1,
    /// The scene buffer's words before the frames (kept to copy into a larger
    /// buffer).
    head: Vec<[u32; 4]>,
    /// Frames the scene buffer holds.
    capacity: u32,
}

impl BehaviourBuffers {
    /// The eaten events (header, records, each eater's target).
    pub fn events(&self) -> &wgpu::Buffer {
        &self.buffers.events
    }

    /// Group 1's buffers in binding order.
    pub fn all(&self) -> [&wgpu::Buffer; 4] {
        self.buffers.all()
    }
}

impl BehaviourBuffers {
    /// Uploads `b` (obstacles, data; entity frames come with each submission,
    /// but a world whose entities never change gets its one frame now).
    pub fn new<V: GpuVector>(device: &wgpu::Device, b: &mut Behaviours<V>) -> Self {
        use wgpu::util::DeviceExt;
        let init = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: usage | wgpu::BufferUsages::COPY_DST,
            })
        };
        let storage = wgpu::BufferUsages::STORAGE;
        let capacity = 1;
        b.uniform.frames = capacity;
        // The actor records' half the first step reads (before any frame advances
        // the host clock).
        let half = (b.step & 1) as usize;
        let first = if b.has_entities() && !b.is_dynamic() {
            b.frames(1)
        } else {
            vec![[0.0; 4]; (b.uniform.frame_stride as usize).max(1)]
        };
        let head = scene_head(&mut b.uniform, &b.shapes, &b.data, &b.plan.table);
        let plan = b.plan();
        let uniform = init(
            "behave uniform",
            bytemuck::bytes_of(&b.uniform),
            wgpu::BufferUsages::UNIFORM,
        );
        let mut words = head.clone();
        words.extend(first.iter().map(|f| f.map(f32::to_bits)));
        let scene = init("behaviour scene", bytemuck::cast_slice(&words), storage);
        // Both halves (the first step reads half (step & 1)), then each actor's
        // pursuit force.
        let k = plan.records.len();
        let mut records = vec![[0.0f32; 4]; (2 * k + plan.actors as usize).max(1)];
        records[half * k..(half + 1) * k].copy_from_slice(&plan.records);
        let actors = init("actor records", bytemuck::cast_slice(&records), storage);
        // The header, the records, then each eater's target (`eat_search`).
        let words = 4 + b.uniform.events_cap * EVENT_WORDS + plan.eaters;
        let events = init(
            "eaten events",
            bytemuck::cast_slice(&vec![0u32; words as usize]),
            storage | wgpu::BufferUsages::COPY_SRC,
        );
        let buffers = Group1 {
            uniform,
            scene,
            actors,
            events,
        };
        Self {
            buffers,
            head,
            capacity,
        }
    }

    /// Uploads the one frame of a world whose entities never change (after an
    /// in-place edit of them): the next submission would not.
    pub fn reload_static_frame<V: GpuVector>(&self, queue: &wgpu::Queue, b: &mut Behaviours<V>) {
        if b.has_entities() && !b.is_dynamic() {
            // As `new` does: the one frame, the host clock past it.
            let frame = b.frames(1);
            let at = 16 * self.head.len() as u64;
            queue.write_buffer(&self.buffers.scene, at, bytemuck::cast_slice(&frame));
        }
    }

    /// Uploads the entity frames of the next `steps` steps, the first of which
    /// is step `step` (`clock[2]` in `clock`), growing the scene buffer when it
    /// holds fewer. Nothing to do for a world whose entities never change.
    /// True when the scene buffer was replaced (the bind groups over it must be
    /// made again).
    pub fn load_frames<V: GpuVector>(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        b: &mut Behaviours<V>,
        clock: &wgpu::Buffer,
        (step, steps): (u64, u32),
    ) -> bool {
        if !b.has_entities() || !b.is_dynamic() {
            return false;
        }
        let mut replaced = false;
        let frames = b.frames(steps);
        let at = 16 * self.head.len() as u64;
        if steps > self.capacity {
            self.capacity = steps;
            self.buffers.scene = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("behaviour scene"),
                size: at + 16 * frames.len() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            queue.write_buffer(&self.buffers.scene, 0, bytemuck::cast_slice(&self.head));
            b.uniform.frames = steps;
            queue.write_buffer(&self.buffers.uniform, 0, bytemuck::bytes_of(&b.uniform));
            replaced = true;
        }
        queue.write_buffer(&self.buffers.scene, at, bytemuck::cast_slice(&frames));
        queue.write_buffer(clock, 8, bytemuck::bytes_of(&(step as u32)));
        replaced
    }
}

/// The scene buffer's words before the frames: the shapes, the data and the
/// actor table, each from a whole word; sets their places in `uniform`.
fn scene_head(
    uniform: &mut BehaveUniform,
    shapes: &[ShapeData],
    data: &[f32],
    table: &[u32],
) -> Vec<[u32; 4]> {
    let mut words: Vec<[u32; 4]> = bytemuck::cast_slice(shapes).to_vec();
    let mut push = |xs: &[u32]| {
        let at = words.len() as u32;
        words.extend(xs.chunks(4).map(|c| {
            let mut w = [0; 4];
            w[..c.len()].copy_from_slice(c);
            w
        }));
        at
    };
    uniform.data_at = push(bytemuck::cast_slice(data));
    uniform.table_at = push(table);
    uniform.frames_at = words.len() as u32;
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scene_buffers_size_is_known_before_it_is_made() {
        let config =
            murmuration::WorldConfig::new(glam::Vec2::splat(40.0), murmuration::Boundary::Wrap);
        let mut w =
            murmuration::World2::new(config, vec![murmuration::SpeciesParams::default()]).unwrap();
        for k in 0..7 {
            let center = glam::Vec2::new(5.0 + 4.0 * k as f32, 20.0);
            let circle = murmuration::Obstacle::Sphere {
                center,
                radius: 1.0,
            };
            w.add_obstacle(circle).unwrap();
        }
        // A baked field: the data the head carries beside the shapes.
        let ball = murmuration::Obstacle::Sphere {
            center: glam::Vec2::splat(30.0),
            radius: 2.0,
        };
        let (lo, hi) = (glam::Vec2::splat(26.0), glam::Vec2::splat(34.0));
        let baked = murmuration::SdfGrid::bake(&[ball], lo, hi, 0.25).unwrap();
        w.add_obstacle(murmuration::Obstacle::Field(baked)).unwrap();
        w.add_attractor(murmuration::Attractor::new(
            glam::Vec2::splat(9.0),
            1.0,
            3.0,
        ))
        .unwrap();
        let mut b = Behaviours::new(&w).unwrap();
        let stride = u64::from(b.uniform.frame_stride);
        assert!(
            stride > 0 && b.data.len() > 1000,
            "{stride} {}",
            b.data.len()
        );
        let mut uniform = b.uniform;
        let head = scene_head(&mut uniform, &b.shapes, &b.data, &b.plan.table);
        assert_eq!(b.scene_bytes(3), 16 * (head.len() as u64 + 3 * stride));
        assert_eq!(b.frames(3).len() as u64, 3 * stride);
    }
}
