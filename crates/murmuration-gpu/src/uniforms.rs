//! Host mirrors of the shader's `Sim` and `Species` structs, and the grid plan: how
//! the world maps onto cells (the same cell sizing rule as the CPU grid).

use crate::dims::GpuVector;
use bytemuck::{Pod, Zeroable};
use murmuration::{Boundary, CombineMode, Relation, RuleConsts, SpeciesParams, Steering, World};

/// Elements per scan block (the shader's `SCAN_BLOCK`).
pub(crate) const SCAN_BLOCK: u32 = crate::WORKGROUP_SIZE * 4;
/// Grid cells allowed per boid (as the CPU grid), with a floor for tiny worlds.
const MAX_CELLS_PER_BOID: u64 = 4;
const MIN_CELL_BUDGET: u64 = 4096;

pub(crate) const MODE_PERIODIC: u32 = 0;
pub(crate) const MODE_HASHED: u32 = 1;

/// The shader's `Sim` (uniform; WGSL layout, 176 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct SimUniform {
    pub n: u32,
    pub mode: u32,
    pub species_count: u32,
    pub boundary: u32,
    pub dims: [u32; 4],
    pub origin: [f32; 4],
    pub inv_cell: [f32; 4],
    pub period: [f32; 4],
    pub inv_period: [f32; 4],
    pub wmin: [f32; 4],
    pub wmax: [f32; 4],
    pub cells: u32,
    pub blocks: u32,
    pub dt: f32,
    pub soft_margin: f32,
    pub soft_strength: f32,
    /// Cells per radius of the periodic grid (the shader's `SPAN` override).
    pub span: u32,
    pub seed_key: [u32; 2],
    pub seed: [u32; 2],
    /// Cells the scans cover: `cells` and the graveyard, where eaten boids sort.
    pub scan_cells: u32,
    pub _pad1: u32,
}

/// The shader's `Species` (storage; 160 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct SpeciesUniform {
    pub sep2: f32,
    pub ali2: f32,
    pub coh2: f32,
    pub max2: f32,
    pub cos_half_fov: f32,
    pub eps2: f32,
    pub coincident_push: f32,
    pub w_sep: f32,
    pub w_ali: f32,
    pub w_coh: f32,
    pub max_speed: f32,
    pub min_speed: f32,
    pub max_force: f32,
    pub jitter: f32,
    pub smoothing: f32,
    pub combine: u32,
    pub has_fov: u32,
    /// [`Steering`] as the shader's `STEERING_*` codes.
    pub steering: u32,
    pub cruise_speed: f32,
    pub cruise_time: f32,
    pub obstacle_weight: f32,
    pub obstacle_lookahead: f32,
    pub obstacle_margin: f32,
    pub wander_weight: f32,
    pub flee_radius: f32,
    pub flee_weight: f32,
    pub chase_radius: f32,
    pub chase_weight: f32,
    pub eat_radius: f32,
    pub straggler_preference: f32,
    pub confusion: f32,
    pub follow_radius: f32,
    pub follow_weight: f32,
    pub perception_radius: f32,
    pub roll_rate: f32,
    pub max_bank: f32,
    pub gravity: f32,
    /// Topological neighbours `k` (0: metric).
    pub topological: u32,
    pub _pad: [f32; 2],
}

// The WGSL structs' sizes (`Sim` in uniform layout, `Species` in storage layout):
// a field added on one side only fails the build here.
const _: () = assert!(std::mem::size_of::<SimUniform>() == 176);
const _: () = assert!(std::mem::size_of::<SpeciesUniform>() == 160);

impl SpeciesUniform {
    /// The CPU kernel's own derived constants ([`RuleConsts`]) and the weights,
    /// limits and flags the shader reads.
    pub fn new(p: &SpeciesParams) -> Self {
        let RuleConsts {
            sep2,
            ali2,
            coh2,
            max2,
            cos_half_fov,
            eps2,
            coincident_push,
            reach: _,
            gate2: _,
        } = RuleConsts::new(p);
        Self {
            sep2,
            ali2,
            coh2,
            max2,
            cos_half_fov,
            eps2,
            coincident_push,
            w_sep: p.separation_weight,
            w_ali: p.alignment_weight,
            w_coh: p.cohesion_weight,
            max_speed: p.max_speed,
            min_speed: p.min_speed,
            max_force: p.max_force,
            jitter: p.jitter,
            smoothing: p.smoothing,
            combine: match p.combine {
                CombineMode::WeightedSum => 0,
                CombineMode::Prioritized => 1,
            },
            has_fov: u32::from(p.has_vision_cone()),
            steering: match p.steering {
                Steering::PerRule => 0,
                Steering::Directions => 1,
                Steering::Raw => 2,
            },
            cruise_speed: p.cruise_speed,
            cruise_time: p.cruise_time,
            obstacle_weight: p.obstacle_weight,
            obstacle_lookahead: p.obstacle_lookahead,
            obstacle_margin: p.obstacle_margin,
            wander_weight: p.wander_weight,
            flee_radius: p.flee_radius,
            flee_weight: p.flee_weight,
            chase_radius: p.chase_radius,
            chase_weight: p.chase_weight,
            eat_radius: p.eat_radius,
            straggler_preference: p.straggler_preference,
            confusion: p.confusion,
            follow_radius: p.follow_radius,
            follow_weight: p.follow_weight,
            perception_radius: p.perception_radius(),
            roll_rate: p.roll_rate,
            max_bank: p.max_bank,
            gravity: p.gravity,
            topological: p.topological_neighbours,
            _pad: [0.0; 2],
        }
    }
}

/// Relation codes as the neighbour kernel reads them: follow takes part in the
/// rules as flock does, flee and chase as ignore does (the core kernel's masks);
/// their own steering comes from the interaction codes (`relations.rs`).
pub(crate) fn relation_code(r: Relation) -> u32 {
    match r {
        Relation::Flock | Relation::Follow => 0,
        Relation::Separate => 1,
        Relation::Ignore | Relation::Flee | Relation::Chase => 2,
    }
}

/// SplitMix64's finaliser (the core's `rng::mix`), for the seed key the shader starts from.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn split(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

/// Cells per perception radius of the periodic grid: 2 halves the cell edge, so a
/// boid scans ±2 cells (fewer candidates, more rows). Tuning knob for
/// measurements: `MURMURATION_GPU_SPAN=1|2`.
pub(crate) fn preferred_span() -> u32 {
    match std::env::var("MURMURATION_GPU_SPAN").as_deref() {
        Ok("2") => 2,
        Ok(_) => 1,
        Err(_) => DEFAULT_SPAN,
    }
}

/// The default of [`preferred_span`].
const DEFAULT_SPAN: u32 = 1;

/// Cells or buckets the grid uses for `world`, and the uniform describing it.
/// Returns the uniform and the span the periodic grid uses.
pub(crate) fn plan<V: GpuVector>(world: &World<V>) -> SimUniform {
    let span = preferred_span();
    let u = plan_with_span(world, span);
    if span > 1 && (0..V::DIM).any(|a| u.dims[a] < 2 * span + 1) {
        return plan_with_span(world, 1);
    }
    u
}

fn plan_with_span<V: GpuVector>(world: &World<V>, span: u32) -> SimUniform {
    let cfg = world.config();
    let n = world.len() as u64;
    let radius = world
        .species()
        .iter()
        .map(SpeciesParams::perception_radius)
        .fold(0.0f32, f32::max)
        .max(1e-6);
    let size = cfg.size();
    let mut u = SimUniform::zeroed();
    u.span = span;
    u.n = n as u32;
    u.species_count = world.species().len() as u32;
    u.dims = [1; 4];
    for a in 0..V::DIM {
        u.origin[a] = cfg.min.get(a);
        u.period[a] = size.get(a);
        u.inv_period[a] = 1.0 / size.get(a);
        u.wmin[a] = cfg.min.get(a);
        u.wmax[a] = cfg.max.get(a);
    }
    let (boundary, margin, strength) = match cfg.boundary {
        Boundary::Wrap => (0, 1.0, 0.0),
        Boundary::Soft { margin, strength } => (1, margin, strength),
        Boundary::Reflect => (2, 1.0, 0.0),
        Boundary::Unbounded => (3, 1.0, 0.0),
        Boundary::Roost { margin, strength } => (4, margin, strength),
    };
    u.boundary = boundary;
    u.soft_margin = margin;
    u.soft_strength = strength;
    if cfg.boundary == Boundary::Wrap {
        // Dense periodic grid: as many cells per axis as fit at edge >= radius,
        // within the budget (the CPU grid's rule).
        u.mode = MODE_PERIODIC;
        let budget = (n * MAX_CELLS_PER_BOID).max(MIN_CELL_BUDGET);
        let mut cell = radius / span as f32;
        loop {
            let mut total = 1u64;
            for a in 0..V::DIM {
                let k = (size.get(a) / cell).floor().clamp(1.0, 1e9) as u32;
                u.dims[a] = k;
                total = total.saturating_mul(k as u64);
            }
            if total <= budget {
                u.cells = total as u32;
                break;
            }
            cell *= 1.5;
        }
        for a in 0..V::DIM {
            u.inv_cell[a] = u.dims[a] as f32 / size.get(a);
        }
    } else {
        // Open worlds: cells of edge `radius` anywhere in space, hashed into a
        // power-of-two table about twice the boid count.
        u.mode = MODE_HASHED;
        u.cells = (2 * n).clamp(1024, 1 << 31).next_power_of_two() as u32;
        for a in 0..V::DIM {
            u.inv_cell[a] = 1.0 / radius;
        }
    }
    u.scan_cells = u.cells + 1;
    u.blocks = u.scan_cells.div_ceil(SCAN_BLOCK);
    u.dt = cfg.dt;
    u.seed_key = split(mix(cfg.seed ^ 0x9e37_79b9_7f4a_7c15));
    u.seed = split(cfg.seed);
    u
}
