//! [`GpuFlock`]: a world's state on the GPU, stepped by compute shaders.
//!
//! The shader is one source for both dimensions: the host prepends `const WG`
//! (`WORKGROUP_SIZE`, 256), the dimension's twin (`dims.rs`) and the generated
//! `struct Species` (`uniforms.rs`). Kernel variants (grid mode, nearest image,
//! vision cone, several species, read-ahead, cell span, and `OBSTACLES`,
//! `ENTITIES`, `RELATIONS`, `EATING`, `TOPO`, `BANKED`) are override constants
//! fixed when the pipelines are built, so a plain flock's step is unchanged.
//!
//! One step is one compute pass over state A (positions, velocities, steering,
//! (id, species)) in the previous step's cell order: `count` (each boid's cell,
//! a dense grid in periodic worlds, a hash table about twice N in open ones, and
//! its rank by `atomicAdd`); `scan_local`, `scan_blocks`, `scan_add` (the
//! exclusive prefix sum into cell starts; they also zero the counts and advance
//! the step clock); `scatter` (slots into `order`); `rank_cells` (each rank
//! replaced by the number of the cell's boids at lower slots, so the order and
//! every sum are a pure function of the state); `reorder` (A into cell order,
//! B); `steer` (one thread per boid scans the rows of cells around its own,
//! adds the behaviours in the core's priority order and integrates as the CPU
//! does, writing A at the same slot). Worlds with chasers add `pursue` before
//! `steer`; eating chasers add `eat_search` and `eat` after it (one thread
//! takes the chasers in ascending id order, as the CPU does). The eaten sort
//! into a last grid cell no pass scans.
//!
//! Read-back copies A to mappable buffers and hands the live boids' motion to
//! `World::replace_motion`, which checks that the ids are exactly the world's
//! (the eaten removed first); the world's entities are advanced by the steps it
//! missed, and `World::finish_external_steps` delivers the meals and recounts
//! the zones (zone events between two read-backs are seen as one step's).

use crate::WORKGROUP_SIZE;
use crate::behaviours::{BehaviourBuffers, Behaviours, EVENT_WORDS, EVENTS_CAP};
use crate::device::{Gpu, mapped};
use crate::dims::GpuVector;
use crate::error::GpuError;
use crate::layouts::{self, GROUPS, PassBindings};
use crate::relations::DEAD;
use crate::uniforms::{SimUniform, SpeciesUniform, plan, relation_code, species_wgsl};
use murmuration::{BoidId, Event, SpeciesParams, World};
use std::marker::PhantomData;
use wgpu::util::DeviceExt;

/// Most workgroups along one dispatch axis (WebGPU's guaranteed minimum).
const MAX_GROUPS_X: u32 = 65_535;
/// Steps recorded per command buffer by [`GpuFlock::step_n`].
const STEPS_PER_SUBMIT: u64 = 64;
/// The most steps [`GpuFlock::timed_steps`] times at once (two timestamps
/// each, in one query set).
pub const MAX_TIMED_STEPS: u32 = 1024;

/// Where `steer` stands in [`PASSES`] (`pursue` goes before it).
const STEER: usize = PASSES.len() - 1;

/// The passes of one step, in order; worlds with chasers add `pursue` before
/// `steer`, and `eat` after it when chasers eat ([`passes`]).
const PASSES: [&str; 8] = [
    "count",
    "scan_local",
    "scan_blocks",
    "scan_add",
    "scatter",
    "rank_cells",
    "reorder",
    "steer",
];

/// The flock's buffers (group 0), named after the shader's bindings.
struct Buffers {
    uniform: wgpu::Buffer,
    species: wgpu::Buffer,
    relations: wgpu::Buffer,
    /// pos, vel, acc, tags (bindings 3..=6): state A in the first half, the
    /// sorted copy B in the second.
    state: [wgpu::Buffer; 4],
    /// keys, counts, starts, order, blocks (bindings 7..=11): the grid.
    grid: [wgpu::Buffer; 5],
    /// The step clock: step index (low, high) in flight, (word 2) the step of
    /// the first entity frame, then from word [`STATS_WORD`] the counters of
    /// each steer workgroup.
    clock: wgpu::Buffer,
}

/// Where the steer workgroups' counters start in the clock buffer (the
/// shader's `STATS`, prepended by [`shader_source`]).
const STATS_WORD: u64 = 4;

impl Buffers {
    /// Group 0's buffers in binding order.
    fn all(&self) -> [&wgpu::Buffer; 13] {
        let [p, v, a, t] = &self.state;
        let [k, c, s, o, b] = &self.grid;
        [
            &self.uniform,
            &self.species,
            &self.relations,
            p,
            v,
            a,
            t,
            k,
            c,
            s,
            o,
            b,
            &self.clock,
        ]
    }
}

/// One pass of the step: its pipeline, and layouts and bind groups over only
/// the bindings its entry point uses ([`layouts`]).
struct Pass {
    bindings: PassBindings,
    layouts: [Option<wgpu::BindGroupLayout>; GROUPS],
    pipeline_layout: wgpu::PipelineLayout,
    pipeline: wgpu::ComputePipeline,
    groups: [Option<wgpu::BindGroup>; GROUPS],
}

/// The state of a [`GpuFlock`] as it lives on the GPU, in the flock's storage
/// (cell) order, which changes every step. Each buffer holds `2 × len` entries:
/// the state in the first `len`, the step's sorted copy after it.
#[derive(Clone, Debug)]
pub struct BoidBuffers {
    /// Positions: `vec2<f32>` (8 bytes) in 2D, `vec3<f32>` padded to 16 bytes in 3D.
    pub positions: wgpu::Buffer,
    /// Velocities, laid out as the positions.
    pub velocities: wgpu::Buffer,
    /// Last steering accelerations, laid out as the positions.
    pub steering: wgpu::Buffer,
    /// `vec2<u32>` per boid: (boid id, species index).
    pub meta: wgpu::Buffer,
    /// Boids.
    pub len: u32,
    /// 2 or 3.
    pub dim: u32,
}

impl BoidBuffers {
    /// `f32` words per position or velocity (2 in 2D, 4 in 3D).
    pub fn stride(&self) -> u32 {
        if self.dim == 3 { 4 } else { 2 }
    }
}

/// A flock's state as read back ([`GpuFlock::read_back_staged`]), to write into
/// the world it was built from with [`ReadBack::apply`].
#[derive(Clone, Debug)]
pub struct ReadBack<V: GpuVector> {
    ids: Vec<BoidId>,
    positions: Vec<V>,
    velocities: Vec<V>,
    steering: Vec<V>,
    eaten: Vec<Event<V>>,
    step: u64,
}

impl<V: GpuVector> ReadBack<V> {
    /// The step the state is of.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Writes the state into `world` (the flock's own world, edited since or
    /// not): boids eaten on the GPU are removed, positions, velocities,
    /// steering and the step counter replaced, and the meals become its events.
    /// Returns the steps the world was behind; its moving entities are not
    /// advanced ([`GpuFlock::read_motion_into`]).
    pub fn apply(self, world: &mut World<V>) -> Result<u64, GpuError> {
        if self.ids.len() != world.len() {
            let alive: std::collections::HashSet<BoidId> = self.ids.iter().copied().collect();
            let gone: Vec<BoidId> = world
                .boids()
                .ids()
                .iter()
                .copied()
                .filter(|id| !alive.contains(id))
                .collect();
            world.remove_boids(&gone)?;
        }
        let behind = self.step.saturating_sub(world.step_index());
        world.replace_motion(
            &self.ids,
            &self.positions,
            &self.velocities,
            &self.steering,
            self.step,
        )?;
        if behind > 0 {
            world.finish_external_steps(&self.eaten);
        }
        Ok(behind)
    }
}

/// Counters of the last step, read back from the GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuStats {
    /// Σ over boids of neighbours reacted to.
    pub neighbours: u64,
    /// Σ over boids of candidates whose distance was measured.
    pub candidates: u64,
}

/// The flock of one [`World`] living on the GPU.
///
/// Built from a world ([`GpuFlock::new`]), stepped with [`GpuFlock::step_n`] (no
/// read-back inside a step), and copied back on demand with
/// [`GpuFlock::read_into`]. The model, parameters and random numbers are the CPU
/// step's; only the order of floating-point sums differs (see the crate docs).
pub struct GpuFlock<V: GpuVector> {
    gpu: Gpu,
    sim: SimUniform,
    step: u64,
    buffers: Buffers,
    passes: Vec<Pass>,
    module: wgpu::ShaderModule,
    behaviours: Behaviours<V>,
    behaviour_buffers: BehaviourBuffers,
    variant: Vec<(&'static str, f64)>,
    steer_groups: (u32, u32),
    device_bytes: u64,
    _v: PhantomData<V>,
}

fn groups_for(threads: u32) -> (u32, u32) {
    let g = threads.div_ceil(WORKGROUP_SIZE).max(1);
    let x = g.min(MAX_GROUPS_X);
    (x, g.div_ceil(x))
}

/// The step's WGSL. A world without behaviours gets stand-ins for
/// behaviours.wgsl and relations.wgsl that bind nothing, so its passes fit
/// WebGPU's default limits.
fn shader_source<V: GpuVector>(behaviours: bool) -> String {
    let extras = if behaviours {
        concat!(
            include_str!("shaders/behaviours.wgsl"),
            "\n",
            include_str!("shaders/relations.wgsl")
        )
    } else {
        include_str!("shaders/no_behaviours.wgsl")
    };
    format!(
        "const WG: u32 = {WORKGROUP_SIZE}u;\nconst STATS: u32 = {STATS_WORD}u;\n{}\n{}\n{}\n{}\n{}\n{}\n{}",
        V::WGSL,
        species_wgsl(),
        include_str!("shaders/rng.wgsl"),
        include_str!("shaders/flock.wgsl"),
        extras,
        include_str!("shaders/flight.wgsl"),
        include_str!("shaders/topological.wgsl")
    )
}

/// Creates every buffer of a flock and uploads `world`'s state in its storage
/// order (state A) and parameters.
fn upload<V: GpuVector>(
    device: &wgpu::Device,
    world: &World<V>,
    sim: &SimUniform,
    stat_words: u64,
) -> Buffers {
    let n = sim.n.max(1) as u64;
    let b = world.boids();
    // State A, then room for the sorted copy B.
    let pack = |xs: &[V]| -> Vec<V::Packed> {
        let mut v: Vec<V::Packed> = xs.iter().map(|&x| x.pack()).collect();
        v.resize(2 * n as usize, V::ZERO.pack());
        v
    };
    let mut meta: Vec<[u32; 2]> = b
        .ids()
        .iter()
        .zip(b.species())
        .map(|(&id, &s)| [id, s as u32])
        .collect();
    meta.resize(2 * n as usize, [0, 0]);
    let storage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let init = |label: &str, contents: &[u8]| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents,
            usage: storage,
        })
    };
    let empty = |label: &str, bytes: u64| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.max(16).next_multiple_of(16),
            usage: storage,
            mapped_at_creation: false,
        })
    };
    let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("sim uniform"),
        contents: bytemuck::bytes_of(sim),
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
    });
    let (species_data, rel) = param_data(world);
    let species = init("species", bytemuck::cast_slice(&species_data));
    let relations = init("relations", bytemuck::cast_slice(&rel));
    let state = [
        init("positions", bytemuck::cast_slice(&pack(b.positions()))),
        init("velocities", bytemuck::cast_slice(&pack(b.velocities()))),
        init("steering", bytemuck::cast_slice(&pack(b.steering()))),
        init("tags", bytemuck::cast_slice(&meta)),
    ];
    let grid = [
        empty("keys", n * 8),
        empty("counts", sim.scan_cells as u64 * 4),
        empty("starts", (sim.scan_cells as u64 + 1) * 4),
        empty("order", n * 4),
        empty("blocks", sim.blocks.max(1) as u64 * 4),
    ];
    // `scan_blocks` advances the clock before `steer` reads it.
    let before = world.step_index().wrapping_sub(1);
    let mut words = vec![0u32; (STATS_WORD + stat_words) as usize];
    words[0] = before as u32;
    words[1] = (before >> 32) as u32;
    let clock = init("clock", bytemuck::cast_slice(&words));
    Buffers {
        uniform,
        species,
        relations,
        state,
        grid,
        clock,
    }
}

impl<V: GpuVector> GpuFlock<V> {
    /// Uploads `world` (state, parameters, relations) to `gpu`. Blocks until the
    /// device has checked it: a browser uses [`GpuFlock::new_async`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new(gpu: &Gpu, world: &World<V>) -> Result<Self, GpuError> {
        pollster::block_on(Self::new_async(gpu, world))
    }

    /// [`GpuFlock::new`] without blocking.
    pub async fn new_async(gpu: &Gpu, world: &World<V>) -> Result<Self, GpuError> {
        check_supported(world)?;
        let device = &gpu.device;
        let sim = plan(world);
        let n = sim.n.max(1) as u64;
        let vec_bytes = std::mem::size_of::<V::Packed>() as u64;
        let steer_groups = groups_for(sim.n);
        let stat_words = 2 * (steer_groups.0 as u64 * steer_groups.1 as u64);
        let limit = device.limits().max_storage_buffer_binding_size;
        let max_buffer = device.limits().max_buffer_size;
        // The state arrays hold A and B (twice the flock).
        let sizes: [(&'static str, u64); 12] = [
            ("positions", 2 * n * vec_bytes),
            ("velocities", 2 * n * vec_bytes),
            ("steering", 2 * n * vec_bytes),
            ("tags", 2 * n * 8),
            ("keys", n * 8),
            ("counts", sim.scan_cells as u64 * 4),
            ("starts", (sim.scan_cells as u64 + 1) * 4),
            ("order", n * 4),
            ("blocks", sim.blocks.max(1) as u64 * 4),
            ("clock", (STATS_WORD + stat_words) * 4),
            (
                "species",
                world.species().len() as u64 * std::mem::size_of::<SpeciesUniform>() as u64,
            ),
            ("relations", world.relations().table.len() as u64 * 4),
        ];
        let device_bytes = sizes.iter().map(|s| s.1).sum::<u64>();
        check_fits(&gpu.info.name, &sizes, limit.min(max_buffer))?;

        let mut behaviours = Behaviours::new(world)?;
        let full =
            behaviours.has_obstacles() || behaviours.has_entities() || behaviours.has_relations();
        if full {
            // The scene buffer grows to a submission's frames when entities move.
            let frames = if behaviours.is_dynamic() {
                STEPS_PER_SUBMIT as u32
            } else {
                1
            };
            let scene = [("behaviour scene", behaviours.scene_bytes(frames))];
            check_fits(&gpu.info.name, &scene, limit.min(max_buffer))?;
        }
        let source = shader_source::<V>(full);
        let bindings = layouts::reflect(&source, &passes(behaviours.chases(), behaviours.eats()))?;
        check_storage_buffers(&gpu.info.name, &bindings, device.limits())?;

        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("flock.wgsl"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let buffers = upload(device, world, &sim, stat_words);
        let behaviour_buffers = BehaviourBuffers::new(device, &mut behaviours);
        let variant = variant(world, &sim, &behaviours);
        let passes = bindings
            .into_iter()
            .map(|b| {
                let pass = build_pass(device, &module, b, &variant);
                bind_pass(device, pass, &buffers, &behaviour_buffers)
            })
            .collect();
        let step = world.step_index();
        if let Some(e) = oom.pop().await {
            return Err(GpuError::Runtime(format!("out of GPU memory: {e}")));
        }
        if let Some(e) = scope.pop().await {
            return Err(GpuError::Runtime(e.to_string()));
        }
        Ok(Self {
            gpu: gpu.clone(),
            sim,
            step,
            buffers,
            variant,
            passes,
            module,
            behaviours,
            behaviour_buffers,
            steer_groups,
            device_bytes,
            _v: PhantomData,
        })
    }

    /// Boids in the flock.
    pub fn len(&self) -> usize {
        self.sim.n as usize
    }

    /// True when the flock has no boids.
    pub fn is_empty(&self) -> bool {
        self.sim.n == 0
    }

    /// Steps taken (the world's step counter, continued).
    pub fn step_index(&self) -> u64 {
        self.step
    }

    /// Bytes of GPU memory the flock's buffers hold.
    pub fn device_bytes(&self) -> u64 {
        self.device_bytes
    }

    /// The live state buffers, for a renderer that draws straight from them on the
    /// same device (no copy through the CPU). Valid until the next step is recorded.
    pub fn boid_buffers(&self) -> BoidBuffers {
        let [p, v, a, m] = &self.buffers.state;
        BoidBuffers {
            positions: p.clone(),
            velocities: v.clone(),
            steering: a.clone(),
            meta: m.clone(),
            len: self.sim.n,
            dim: V::DIM as u32,
        }
    }

    /// Grid cells (periodic worlds) or hash buckets (open worlds).
    pub fn cells(&self) -> u32 {
        self.sim.cells
    }

    /// `Ok` when the GPU backend can run `world`; otherwise
    /// [`GpuError::Unsupported`] naming the first feature it lacks.
    pub fn check_supported(world: &World<V>) -> Result<(), GpuError> {
        check_supported(world)
    }

    /// Re-uploads configuration, species parameters and relations from `world`
    /// (changed between steps). The boid count and species count must be unchanged.
    pub fn update_params(&mut self, world: &World<V>) -> Result<(), GpuError> {
        check_supported(world)?;
        let sim = plan(world);
        if sim.n != self.sim.n
            || sim.species_count != self.sim.species_count
            || sim.cells != self.sim.cells
        {
            return Err(GpuError::Unsupported(format!(
                "changing the boid count ({} -> {}), species count ({} -> {}) or grid size of a live GPU flock; build a new GpuFlock",
                self.sim.n, sim.n, self.sim.species_count, sim.species_count
            )));
        }
        self.sim = sim;
        let v = variant(world, &sim, &self.behaviours);
        if v != self.variant {
            for pass in &mut self.passes {
                pass.pipeline = pipeline(
                    &self.gpu.device,
                    &self.module,
                    pass.bindings.entry,
                    &pass.pipeline_layout,
                    &v,
                );
            }
            self.variant = v;
        }
        let q = &self.gpu.queue;
        q.write_buffer(&self.buffers.uniform, 0, bytemuck::bytes_of(&sim));
        let (sp, rel) = param_data(world);
        q.write_buffer(&self.buffers.species, 0, bytemuck::cast_slice(&sp));
        q.write_buffer(&self.buffers.relations, 0, bytemuck::cast_slice(&rel));
        Ok(())
    }

    /// Re-uploads `world`'s entities (attractors, pulses, paths: a target
    /// moved, say) in place, when they keep the slots the flock was built
    /// with and need no other shader variant: `Ok(true)`. `Ok(false)` when
    /// only a new flock can carry them (an entity added or removed). The
    /// world's entity clock must be current (`World::advance_entities` after
    /// each GPU step); its boids need not be.
    pub fn update_entities(&mut self, world: &World<V>) -> Result<bool, GpuError> {
        let mut next = Behaviours::new(world)?;
        next.uniform.frames = self.behaviours.uniform.frames;
        if !self.behaviours.same_layout(&next) || variant(world, &self.sim, &next) != self.variant {
            return Ok(false);
        }
        self.behaviours.take_entities(next, self.step);
        self.behaviour_buffers
            .reload_static_frame(&self.gpu.queue, &mut self.behaviours);
        Ok(true)
    }

    /// The passes of this flock's step.
    fn passes(&self) -> Vec<&'static str> {
        passes(self.behaviours.chases(), self.behaviours.eats())
    }

    fn dispatch_sizes(&self) -> Vec<(u32, u32)> {
        let n = self.sim.n;
        let cells = self.sim.scan_cells;
        let blocks = self.sim.blocks;
        let bx = blocks.clamp(1, MAX_GROUPS_X);
        let mut sizes = vec![
            groups_for(n),
            (bx, blocks.div_ceil(bx).max(1)),
            (1, 1),
            groups_for(cells),
            groups_for(n),
            groups_for(n),
            groups_for(n),
            self.steer_groups,
        ];
        if self.behaviours.chases() {
            // One workgroup per actor: see `pursue`.
            let actors = self.behaviours.plan().actors.max(1);
            let x = actors.min(MAX_GROUPS_X);
            sizes.insert(STEER, (x, actors.div_ceil(x)));
        }
        if self.behaviours.eats() {
            // One invocation per workgroup: see `eat_search`.
            let eaters = self.behaviours.plan().eaters.max(1);
            let x = eaters.min(MAX_GROUPS_X);
            sizes.extend([(x, eaters.div_ceil(x)), (1, 1)]);
        }
        sizes
    }

    /// Records one step. With `timestamps = (set, i)` the step's pass writes
    /// timestamps `2i` and `2i + 1`. With `per_pass`, each dispatch gets a pass of
    /// its own with timestamps `2(base + k)`, `2(base + k) + 1` (profiling only).
    fn encode_step(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamps: Option<(&wgpu::QuerySet, u32)>,
        per_pass: Option<(&wgpu::QuerySet, u32)>,
    ) {
        let sizes = self.dispatch_sizes();
        if let Some((set, base)) = per_pass {
            let names = self.passes();
            for (k, (p, (x, y))) in self.passes.iter().zip(sizes).enumerate() {
                let q = 2 * (base + k as u32);
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some(names[k]),
                    timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                        query_set: set,
                        beginning_of_pass_write_index: Some(q),
                        end_of_pass_write_index: Some(q + 1),
                    }),
                });
                p.record(&mut pass, x, y);
            }
            return;
        }
        let timestamp_writes = timestamps.map(|(set, i)| wgpu::ComputePassTimestampWrites {
            query_set: set,
            beginning_of_pass_write_index: Some(2 * i),
            end_of_pass_write_index: Some(2 * i + 1),
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("flock step"),
            timestamp_writes,
        });
        for (p, (x, y)) in self.passes.iter().zip(sizes) {
            p.record(&mut pass, x, y);
        }
    }

    /// Profiles `steps` steps with every pass timed on its own (GPU timestamps
    /// required): returns each pass's name and median milliseconds. Separate passes
    /// add a little overhead, so the sum exceeds a normal step slightly.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn profile_passes(&mut self, steps: u32) -> Result<Vec<(&'static str, f64)>, GpuError> {
        if !self.gpu.timestamps {
            return Err(GpuError::Unsupported(
                "pass profiling without GPU timestamps".into(),
            ));
        }
        let names = self.passes();
        let per = names.len() as u32;
        let count = 2 * per * steps;
        let set = self.gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count,
        });
        let bytes = 8 * count as u64;
        let resolve = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("pass timestamp resolve"),
            size: bytes,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        self.load_frames(steps);
        let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
        for s in 0..steps {
            self.encode_step(&mut encoder, None, Some((&set, s * per)));
        }
        encoder.resolve_query_set(&set, 0..count, &resolve, 0);
        let ticks: Vec<u64> =
            pollster::block_on(self.read_buffers(encoder, &[(&resolve, bytes)]))?.remove(0);
        self.step += steps as u64;
        let period = self.gpu.queue.get_timestamp_period() as f64;
        Ok(names
            .iter()
            .enumerate()
            .map(|(k, &name)| {
                let mut t: Vec<f64> = (0..steps as usize)
                    .map(|s| {
                        let q = 2 * (s * per as usize + k);
                        ticks[q + 1].wrapping_sub(ticks[q]) as f64 * period * 1e-6
                    })
                    .collect();
                t.sort_by(f64::total_cmp);
                (name, t[t.len() / 2])
            })
            .collect())
    }

    /// Advances `steps` steps; nothing is read back.
    pub fn step_n(&mut self, steps: u64) -> Result<(), GpuError> {
        if self.sim.n == 0 {
            self.step += steps;
            return Ok(());
        }
        let mut left = steps;
        while left > 0 {
            let k = left.min(STEPS_PER_SUBMIT);
            self.load_frames(k as u32);
            let mut encoder =
                self.gpu
                    .device
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("flock steps"),
                    });
            for _ in 0..k {
                self.encode_step(&mut encoder, None, None);
            }
            self.gpu.queue.submit([encoder.finish()]);
            self.gpu.check()?;
            self.step += k;
            left -= k;
        }
        Ok(())
    }

    /// Advances one step.
    pub fn step(&mut self) -> Result<(), GpuError> {
        self.step_n(1)
    }

    /// Runs `steps` steps (1 to [`MAX_TIMED_STEPS`]), one submission each, and
    /// returns each step's time in milliseconds: GPU timestamps around the
    /// step's pass where the device has them, else wall time from submit to an
    /// idle device. Another count is refused (a query set holds at most 4,096).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn timed_steps(&mut self, steps: u32) -> Result<Vec<f64>, GpuError> {
        if steps == 0 || steps > MAX_TIMED_STEPS {
            return Err(GpuError::Unsupported(format!(
                "timing {steps} steps at once (1 to {MAX_TIMED_STEPS})"
            )));
        }
        let mut out = Vec::with_capacity(steps as usize);
        if self.gpu.timestamps {
            let set = self.gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("step timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2 * steps,
            });
            let bytes = 16 * steps as u64;
            let resolve = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamp resolve"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            for i in 0..steps {
                self.load_frames(1);
                let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
                self.encode_step(&mut encoder, Some((&set, i)), None);
                self.gpu.queue.submit([encoder.finish()]);
                self.step += 1;
            }
            let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
            encoder.resolve_query_set(&set, 0..2 * steps, &resolve, 0);
            let ticks: Vec<u64> =
                pollster::block_on(self.read_buffers(encoder, &[(&resolve, bytes)]))?.remove(0);
            let period = self.gpu.queue.get_timestamp_period() as f64;
            for i in 0..steps as usize {
                let dt = ticks[2 * i + 1].wrapping_sub(ticks[2 * i]);
                out.push(dt as f64 * period * 1e-6);
            }
        } else {
            for _ in 0..steps {
                self.load_frames(1);
                self.step += 1;
                let t = std::time::Instant::now();
                let mut encoder = self.gpu.device.create_command_encoder(&Default::default());
                self.encode_step(&mut encoder, None, None);
                self.gpu.queue.submit([encoder.finish()]);
                self.gpu.wait()?;
                out.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        self.gpu.check()?;
        Ok(out)
    }

    /// Copies `sources` into mappable buffers after `encoder`'s work and returns
    /// their contents as `T`s.
    async fn read_buffers<T: bytemuck::Pod>(
        &self,
        encoder: wgpu::CommandEncoder,
        sources: &[(&wgpu::Buffer, u64)],
    ) -> Result<Vec<Vec<T>>, GpuError> {
        self.stage(encoder, sources).await
    }

    /// Submits copies of `sources` now (after `encoder`'s work) and returns a
    /// future of their bytes that owns its staging buffers and borrows
    /// nothing: the flock may step on while it waits (the copies are ahead of
    /// those steps in the queue).
    fn stage<T: bytemuck::Pod>(
        &self,
        mut encoder: wgpu::CommandEncoder,
        sources: &[(&wgpu::Buffer, u64)],
    ) -> impl std::future::Future<Output = Result<Vec<Vec<T>>, GpuError>> + use<T, V> {
        let device = &self.gpu.device;
        let staging: Vec<wgpu::Buffer> = sources
            .iter()
            .map(|(src, bytes)| {
                let dst = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("read-back"),
                    size: *bytes,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                encoder.copy_buffer_to_buffer(src, 0, &dst, 0, *bytes);
                dst
            })
            .collect();
        self.gpu.queue.submit([encoder.finish()]);
        let maps: Vec<_> = staging.iter().map(|s| mapped(s.slice(..))).collect();
        // Natively the maps complete inside this wait; a browser's device
        // answers on its own.
        let waited = self.gpu.wait();
        async move {
            waited?;
            for m in maps {
                m.await?;
            }
            staging
                .iter()
                .map(|s| {
                    let view = s
                        .slice(..)
                        .get_mapped_range()
                        .map_err(|e| GpuError::Runtime(e.to_string()))?;
                    let v = bytemuck::cast_slice::<u8, T>(&view).to_vec();
                    drop(view);
                    s.unmap();
                    Ok(v)
                })
                .collect()
        }
    }

    /// Counters of the last step (a small read-back).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn last_stats(&self) -> Result<GpuStats, GpuError> {
        pollster::block_on(self.last_stats_async())
    }

    /// [`GpuFlock::last_stats`] without blocking, as a browser needs.
    pub async fn last_stats_async(&self) -> Result<GpuStats, GpuError> {
        let words = 2 * self.steer_groups.0 as u64 * self.steer_groups.1 as u64;
        let encoder = self.gpu.device.create_command_encoder(&Default::default());
        let v: Vec<u32> = self
            .read_buffers(encoder, &[(&self.buffers.clock, (STATS_WORD + words) * 4)])
            .await?
            .remove(0);
        let mut s = GpuStats::default();
        for w in v[STATS_WORD as usize..].chunks_exact(2) {
            s.neighbours += w[0] as u64;
            s.candidates += w[1] as u64;
        }
        Ok(s)
    }

    /// Reads the state back: ids, positions, velocities and steering in the GPU's
    /// storage (cell) order, eaten boids left out.
    #[allow(
        clippy::type_complexity,
        reason = "four parallel arrays, named in the doc comment"
    )]
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_state(&self) -> Result<(Vec<BoidId>, Vec<V>, Vec<V>, Vec<V>), GpuError> {
        pollster::block_on(self.read_state_async())
    }

    /// [`GpuFlock::read_state`] without blocking, as a browser needs.
    pub async fn read_state_async(
        &self,
    ) -> Result<(Vec<BoidId>, Vec<V>, Vec<V>, Vec<V>), GpuError> {
        let n = self.sim.n as u64;
        if n == 0 {
            return Ok(Default::default());
        }
        let vb = n * std::mem::size_of::<V::Packed>() as u64;
        let [p, v, a, m] = &self.buffers.state;
        // One round trip (a browser's read-back costs a frame): bytes, then typed.
        let encoder = self.gpu.device.create_command_encoder(&Default::default());
        let bytes: Vec<Vec<u8>> = self
            .read_buffers(encoder, &[(p, vb), (v, vb), (a, vb), (m, n * 8)])
            .await?;
        Ok(unpack_state::<V>(bytes))
    }

    /// Writes the GPU state into `world` (the world this flock was built from):
    /// positions, velocities, steering and the step counter; boids eaten on the
    /// GPU are removed; the world's moving entities (attractors, pulses, paths)
    /// are advanced by the steps it missed; its events become the boids eaten
    /// since the last read-back ([`GpuFlock::take_events`]) and the zones'
    /// events from a recount at the new positions
    /// ([`World::finish_external_steps`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_into(&self, world: &mut World<V>) -> Result<(), GpuError> {
        pollster::block_on(self.read_into_async(world))
    }

    /// [`GpuFlock::read_into`] without blocking, as a browser needs.
    pub async fn read_into_async(&self, world: &mut World<V>) -> Result<(), GpuError> {
        let behind = self.read_motion_into_async(world).await?;
        world.advance_entities(behind);
        Ok(())
    }

    /// [`GpuFlock::read_into`] without the moving entities, for a caller that
    /// advances them itself as it steps (so a window's overlays stay current
    /// between read-backs). Returns the steps the world was behind.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read_motion_into(&self, world: &mut World<V>) -> Result<u64, GpuError> {
        pollster::block_on(self.read_motion_into_async(world))
    }

    /// [`GpuFlock::read_motion_into`] without blocking, as a browser needs.
    pub async fn read_motion_into_async(&self, world: &mut World<V>) -> Result<u64, GpuError> {
        self.read_back_staged().await?.apply(world)
    }

    /// The flock's state and the boids eaten since the last read-back, as a
    /// future that borrows nothing: the copies (state and meals, one
    /// submission) are queued now, so the flock may step on while the page
    /// waits for them, and no world is borrowed across the wait (a page's
    /// world is shared with its event handlers). The state is of
    /// [`ReadBack::step`]; [`ReadBack::apply`] writes it into the world.
    pub fn read_back_staged(
        &self,
    ) -> impl std::future::Future<Output = Result<ReadBack<V>, GpuError>> + use<V> {
        let n = self.sim.n as u64;
        let step = self.step;
        let vb = n * std::mem::size_of::<V::Packed>() as u64;
        let [p, v, a, m] = &self.buffers.state;
        let eats = self.behaviours.eats();
        let event_words = 4 + EVENTS_CAP as u64 * EVENT_WORDS as u64;
        let mut sources = Vec::new();
        if n > 0 {
            sources.extend([(p, vb), (v, vb), (a, vb), (m, n * 8)]);
        }
        if eats {
            sources.push((self.behaviour_buffers.events(), event_words * 4));
        }
        let encoder = self.gpu.device.create_command_encoder(&Default::default());
        let staged = (!sources.is_empty()).then(|| self.stage::<u8>(encoder, &sources));
        if eats {
            // Consumed: the next read-back gets the meals after this one.
            self.gpu
                .queue
                .write_buffer(self.behaviour_buffers.events(), 0, &[0; 16]);
        }
        async move {
            let mut bytes = match staged {
                Some(f) => f.await?,
                None => Vec::new(),
            };
            let eaten = if eats {
                let raw: Vec<u32> = bytemuck::pod_collect_to_vec(&bytes.pop().unwrap_or_default());
                events_of::<V>(&raw).0
            } else {
                Vec::new()
            };
            let (ids, positions, velocities, steering) = if n > 0 {
                unpack_state::<V>(bytes)
            } else {
                Default::default()
            };
            Ok(ReadBack {
                ids,
                positions,
                velocities,
                steering,
                eaten,
                step,
            })
        }
    }

    /// The boids eaten since the last call ([`Event::Eaten`], in the order they
    /// happened: by step, then chaser id), and how many more were eaten than the
    /// event buffer could describe. Empty when no chaser eats.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn take_events(&self) -> Result<(Vec<Event<V>>, u64), GpuError> {
        pollster::block_on(self.take_events_async())
    }

    /// [`GpuFlock::take_events`] without blocking, as a browser needs.
    pub async fn take_events_async(&self) -> Result<(Vec<Event<V>>, u64), GpuError> {
        if !self.behaviours.eats() {
            return Ok((Vec::new(), 0));
        }
        let words = 4 + EVENTS_CAP as u64 * EVENT_WORDS as u64;
        let encoder = self.gpu.device.create_command_encoder(&Default::default());
        let raw: Vec<u32> = self
            .read_buffers(encoder, &[(self.behaviour_buffers.events(), words * 4)])
            .await?
            .remove(0);
        self.gpu
            .queue
            .write_buffer(self.behaviour_buffers.events(), 0, &[0; 16]);
        Ok(events_of::<V>(&raw))
    }

    /// Uploads the entity frames of the next `steps` steps (from `self.step`).
    fn load_frames(&mut self, steps: u32) {
        let replaced = self.behaviour_buffers.load_frames(
            &self.gpu.device,
            &self.gpu.queue,
            &mut self.behaviours,
            &self.buffers.clock,
            (self.step, steps),
        );
        if replaced {
            let passes = std::mem::take(&mut self.passes);
            self.passes = passes
                .into_iter()
                .map(|p| bind_pass(&self.gpu.device, p, &self.buffers, &self.behaviour_buffers))
                .collect();
        }
    }
}

/// The species and relation buffers' contents for `world`.
fn param_data<V: GpuVector>(world: &World<V>) -> (Vec<SpeciesUniform>, Vec<u32>) {
    let species = world.species().iter().map(SpeciesUniform::new).collect();
    let relations = world
        .relations()
        .table
        .iter()
        .map(|&r| relation_code(r))
        .collect();
    (species, relations)
}

/// The kernel variant (the shader's override constants) for `world`.
/// The state arrays as read back (positions, velocities, steering, then
/// id and flags per slot; bytes) as ids, positions, velocities and steering
/// in the GPU's storage order, eaten boids left out.
#[allow(
    clippy::type_complexity,
    reason = "four parallel arrays, named in the doc comment"
)]
fn unpack_state<V: GpuVector>(mut bytes: Vec<Vec<u8>>) -> (Vec<BoidId>, Vec<V>, Vec<V>, Vec<V>) {
    let meta: Vec<[u32; 2]> = bytemuck::pod_collect_to_vec(&bytes.pop().unwrap_or_default());
    let mut vecs: Vec<Vec<V::Packed>> = bytes
        .iter()
        .map(|b| bytemuck::pod_collect_to_vec(b))
        .collect();
    let alive = |k: &usize| meta[*k][1] & DEAD == 0;
    let unpack = |x: Vec<V::Packed>| {
        (0..x.len())
            .filter(alive)
            .map(|k| V::unpack(x[k]))
            .collect::<Vec<V>>()
    };
    let acc = unpack(vecs.pop().unwrap_or_default());
    let vel = unpack(vecs.pop().unwrap_or_default());
    let pos = unpack(vecs.pop().unwrap_or_default());
    let ids = (0..meta.len()).filter(alive).map(|k| meta[k][0]).collect();
    (ids, pos, vel, acc)
}

/// The event buffer as read back: the meals it describes (in order), and how
/// many more happened than it could hold.
fn events_of<V: GpuVector>(raw: &[u32]) -> (Vec<Event<V>>, u64) {
    let count = raw.first().copied().unwrap_or(0) as u64;
    let described = count.min(EVENTS_CAP as u64) as usize;
    let events = (0..described)
        .map(|e| {
            let r = &raw[4 + e * EVENT_WORDS as usize..][..EVENT_WORDS as usize];
            let mut position = V::ZERO;
            for i in 0..V::DIM {
                position.set(i, f32::from_bits(r[4 + i]));
            }
            Event::Eaten {
                step: r[0] as u64 | (r[1] as u64) << 32,
                predator: r[2],
                prey: r[3],
                position,
            }
        })
        .collect();
    (events, count - described as u64)
}

fn variant<V: GpuVector>(
    world: &World<V>,
    sim: &SimUniform,
    behaviours: &Behaviours<V>,
) -> Vec<(&'static str, f64)> {
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let min_image =
        sim.mode == crate::uniforms::MODE_PERIODIC && (0..V::DIM).any(|a| sim.dims[a] < 3);
    // Reading four candidates ahead measured 3-5% faster in 2D and 6% slower in 3D
    // on an H200 (BENCHMARKS.md). MURMURATION_GPU_UNROLL=0|1 overrides it.
    let unroll = match std::env::var("MURMURATION_GPU_UNROLL").as_deref() {
        Ok("0") => false,
        Ok(_) => true,
        Err(_) => V::DIM == 2,
    };
    vec![
        ("MODE", sim.mode as f64),
        ("MIN_IMAGE", flag(min_image)),
        (
            "FOV",
            flag(world.species().iter().any(SpeciesParams::has_vision_cone)),
        ),
        ("MULTI", flag(world.species().len() > 1)),
        ("UNROLL", flag(unroll)),
        ("OBSTACLES", flag(behaviours.has_obstacles())),
        ("ENTITIES", flag(behaviours.has_entities())),
        ("RELATIONS", flag(behaviours.has_relations())),
        ("EATING", flag(behaviours.eats())),
        (
            "TOPO",
            flag(world.species().iter().any(|p| p.topological_neighbours > 0)),
        ),
        (
            "BANKED",
            flag(V::DIM == 3 && world.species().iter().any(|p| p.roll_rate > 0.0)),
        ),
        (
            "SPAN",
            if sim.mode == crate::uniforms::MODE_PERIODIC {
                sim.span as f64
            } else {
                1.0
            },
        ),
    ]
}

/// The passes of a step: [`PASSES`], with `pursue` before `steer` when some
/// species chases, and `eat_search` then `eat` after it when chasers eat.
fn passes(chases: bool, eats: bool) -> Vec<&'static str> {
    let mut p = PASSES.to_vec();
    if chases {
        p.insert(STEER, "pursue");
    }
    if eats {
        p.extend(["eat_search", "eat"]);
    }
    p
}

impl Pass {
    /// Binds this pass's groups and dispatches `x` × `y` workgroups.
    fn record(&self, pass: &mut wgpu::ComputePass<'_>, x: u32, y: u32) {
        for (g, group) in self.groups.iter().enumerate() {
            if let Some(group) = group {
                pass.set_bind_group(g as u32, group, &[]);
            }
        }
        pass.set_pipeline(&self.pipeline);
        pass.dispatch_workgroups(x, y, 1);
    }
}

/// The pipeline of `entry` with the kernel variant `constants`.
fn pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    entry: &'static str,
    layout: &wgpu::PipelineLayout,
    constants: &[(&str, f64)],
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants,
            ..Default::default()
        },
        cache: None,
    })
}

/// The layouts and pipeline of one pass (its bind groups come from [`bind_pass`]).
fn build_pass(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    bindings: PassBindings,
    constants: &[(&str, f64)],
) -> Pass {
    let entry = bindings.entry;
    let layouts: [_; GROUPS] = std::array::from_fn(|g| {
        layouts::group_layout(device, &format!("{entry} group {g}"), &bindings.groups[g])
    });
    // Up to the last group the pass uses; an unused one before it stays unset.
    let used = layouts
        .iter()
        .rposition(Option::is_some)
        .map_or(0, |g| g + 1);
    let groups: Vec<Option<&wgpu::BindGroupLayout>> =
        layouts[..used].iter().map(Option::as_ref).collect();
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(entry),
        bind_group_layouts: &groups,
        immediate_size: 0,
    });
    let pipeline = pipeline(device, module, entry, &pipeline_layout, constants);
    Pass {
        bindings,
        layouts,
        pipeline_layout,
        pipeline,
        groups: [None, None],
    }
}

/// Makes `pass`'s bind groups over the flock's and the behaviours' buffers.
fn bind_pass(
    device: &wgpu::Device,
    mut pass: Pass,
    buffers: &Buffers,
    behaviours: &BehaviourBuffers,
) -> Pass {
    let all: [&[&wgpu::Buffer]; GROUPS] = [&buffers.all(), &behaviours.all()];
    let entry = pass.bindings.entry;
    for (g, ((slot, layout), buffers)) in pass
        .groups
        .iter_mut()
        .zip(&pass.layouts)
        .zip(all)
        .enumerate()
    {
        *slot = layout.as_ref().map(|layout| {
            let label = format!("{entry} group {g}");
            layouts::bind(device, layout, &label, &pass.bindings.groups[g], buffers)
        });
    }
    pass
}

/// Refuses a device whose stages bind fewer storage buffers than some pass uses.
fn check_storage_buffers(
    adapter: &str,
    passes: &[PassBindings],
    limits: wgpu::Limits,
) -> Result<(), GpuError> {
    let has = limits.max_storage_buffers_per_shader_stage;
    match passes.iter().max_by_key(|p| p.storage_buffers()) {
        Some(p) if p.storage_buffers() > has => Err(GpuError::Capability {
            adapter: adapter.to_string(),
            what: "storage buffers per shader stage",
            needed: p.storage_buffers() as u64,
            has: has as u64,
        }),
        _ => Ok(()),
    }
}

/// Refuses buffers larger than the device allows, naming the first that does not fit.
fn check_fits(adapter: &str, sizes: &[(&'static str, u64)], limit: u64) -> Result<(), GpuError> {
    match sizes.iter().find(|s| s.1 > limit) {
        Some(&(buffer, bytes)) => Err(GpuError::TooLarge {
            adapter: adapter.to_string(),
            buffer,
            bytes,
            limit,
        }),
        None => Ok(()),
    }
}

/// Refuses worlds the GPU backend cannot run, naming the feature.
fn check_supported<V: GpuVector>(world: &World<V>) -> Result<(), GpuError> {
    if let Some(p) = world
        .species()
        .iter()
        .find(|p| p.model != murmuration::Model::Reynolds)
    {
        return Err(GpuError::Unsupported(format!(
            "the {} model (the research models step on the CPU)",
            p.model.kind().name()
        )));
    }
    crate::relations::check(world)?;
    if let Some(i) = world.attractors().iter().position(|a| a.navigate) {
        return Err(GpuError::Unsupported(format!(
            "attractors[{i}].navigate (flow fields around obstacles step on the CPU)"
        )));
    }
    if world.len() as u64 >= u32::MAX as u64 / 2 {
        return Err(GpuError::Unsupported(format!(
            "{} boids (at most 2^31)",
            world.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Storage buffers per pass, by entry point.
    fn storage_per_pass<V: GpuVector>(full: bool) -> Vec<(&'static str, u32)> {
        let source = shader_source::<V>(full);
        layouts::reflect(&source, &passes(full, full))
            .unwrap()
            .iter()
            .map(|p| (p.entry, p.storage_buffers()))
            .collect()
    }

    #[test]
    fn every_pass_binds_at_most_eight_storage_buffers_plain_and_ten_with_behaviours() {
        for counts in [
            storage_per_pass::<glam::Vec2>(false),
            storage_per_pass::<glam::Vec3>(false),
        ] {
            let widest = counts.iter().map(|c| c.1).max().unwrap();
            assert_eq!(widest, 8, "{counts:?}");
            // The grid passes bind only what they touch (reorder: the four
            // state buffers, keys and starts).
            assert!(
                counts.iter().all(|c| c.0 == "steer" || c.1 <= 6),
                "{counts:?}"
            );
        }
        // With obstacles, entities and relations, group 1 adds its scene and
        // actor records: 10, the limit of Chrome (and SwiftShader) on desktops.
        for full in [
            storage_per_pass::<glam::Vec2>(true),
            storage_per_pass::<glam::Vec3>(true),
        ] {
            let widest = full.iter().map(|c| c.1).max().unwrap();
            assert_eq!(widest, 10, "{full:?}");
        }
    }

    #[test]
    fn a_buffer_over_the_device_limit_is_a_clear_error() {
        let sizes = [
            ("positions", 800),
            ("keys", 4_000_000_000),
            ("order", 5_000_000_000),
        ];
        let e = check_fits("Test GPU", &sizes, 2_147_483_648).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the world does not fit on Test GPU: buffer keys needs 4000000000 bytes but the device allows 2147483648"
        );
        assert!(check_fits("Test GPU", &sizes[..1], 1024).is_ok());
    }

    #[test]
    fn a_navigating_attractor_is_refused_by_name() {
        let config =
            murmuration::WorldConfig::new(glam::Vec2::splat(20.0), murmuration::Boundary::Wrap);
        let mut w =
            murmuration::World2::new(config, vec![murmuration::SpeciesParams::default()]).unwrap();
        let goal = murmuration::Attractor {
            navigate: true,
            ..murmuration::Attractor::new(glam::Vec2::splat(5.0), 1.0, 1.0)
        };
        w.add_attractor(goal).unwrap();
        let e = check_supported(&w).unwrap_err().to_string();
        assert!(e.contains("attractors[0].navigate"), "{e}");
    }

    #[test]
    fn dispatches_split_across_two_axes_beyond_65535_workgroups() {
        assert_eq!(groups_for(0), (1, 1));
        assert_eq!(groups_for(256), (1, 1));
        assert_eq!(groups_for(257), (2, 1));
        let (x, y) = groups_for(100_000_000);
        assert!(x <= MAX_GROUPS_X && (x as u64 * y as u64 * WORKGROUP_SIZE as u64) >= 100_000_000);
    }
}
