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

/// The species list the shaders read, written once: each field's name, WGSL
/// type (`f32` or `u32`) and value from the species' parameters `p` and the CPU
/// kernel's own derived constants `c` ([`RuleConsts`]). It generates the host
/// struct [`SpeciesUniform`], its constructor and the WGSL `Species` struct
/// ([`species_wgsl`]), so a GPU-visible parameter is one line here plus its use
/// in a shader.
macro_rules! species_uniform {
    (|$p:ident, $c:ident| $($(#[$doc:meta])* $name:ident: $ty:ident = $value:expr;)*) => {
        /// The shader's `Species` (storage), field for field as [`species_wgsl`]
        /// declares it.
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Pod, Zeroable)]
        pub(crate) struct SpeciesUniform {
            $($(#[$doc])* pub $name: $ty,)*
            /// Padding to a whole number of 16-byte rows.
            pub _pad: [u32; SPECIES_PAD],
        }

        /// Fields of the list (without padding).
        const SPECIES_FIELDS: usize = [$(stringify!($name)),*].len();

        impl SpeciesUniform {
            /// The species' row as the shaders read it.
            pub fn new($p: &SpeciesParams) -> Self {
                let $c = RuleConsts::new($p);
                Self {
                    $($name: $value,)*
                    _pad: [0; SPECIES_PAD],
                }
            }
        }

        /// The WGSL `Species` struct, generated from the same list as
        /// [`SpeciesUniform`].
        pub(crate) fn species_wgsl() -> String {
            let mut s = String::from("struct Species {\n");
            $(s.push_str(&format!("    {}: {},\n", stringify!($name), stringify!($ty)));)*
            for i in 0..SPECIES_PAD {
                s.push_str(&format!("    _pad{i}: u32,\n"));
            }
            s.push_str("}\n");
            s
        }
    };
}

/// Padding words that round the species row to 16 bytes.
const SPECIES_PAD: usize = (4 - SPECIES_FIELDS % 4) % 4;

species_uniform! { |p, c|
    sep2: f32 = c.sep2;
    ali2: f32 = c.ali2;
    coh2: f32 = c.coh2;
    max2: f32 = c.max2;
    cos_half_fov: f32 = c.cos_half_fov;
    eps2: f32 = c.eps2;
    coincident_push: f32 = c.coincident_push;
    w_sep: f32 = p.separation_weight;
    w_ali: f32 = p.alignment_weight;
    w_coh: f32 = p.cohesion_weight;
    max_speed: f32 = p.max_speed;
    min_speed: f32 = p.min_speed;
    max_force: f32 = p.max_force;
    jitter: f32 = p.jitter;
    smoothing: f32 = p.smoothing;
    /// [`CombineMode`]: 0 weighted sum, 1 prioritized.
    combine: u32 = match p.combine {
        CombineMode::WeightedSum => 0,
        CombineMode::Prioritized => 1,
    };
    has_fov: u32 = u32::from(p.has_vision_cone());
    /// [`Steering`] as the shader's `STEERING_*` codes.
    steering: u32 = match p.steering {
        Steering::PerRule => 0,
        Steering::Directions => 1,
        Steering::Raw => 2,
    };
    cruise_speed: f32 = p.cruise_speed;
    cruise_time: f32 = p.cruise_time;
    obstacle_weight: f32 = p.obstacle_weight;
    obstacle_lookahead: f32 = p.obstacle_lookahead;
    obstacle_margin: f32 = p.obstacle_margin;
    wander_weight: f32 = p.wander_weight;
    flee_radius: f32 = p.flee_radius;
    flee_weight: f32 = p.flee_weight;
    fear: f32 = p.fear;
    chase_radius: f32 = p.chase_radius;
    chase_weight: f32 = p.chase_weight;
    eat_radius: f32 = p.eat_radius;
    straggler_preference: f32 = p.straggler_preference;
    confusion: f32 = p.confusion;
    follow_radius: f32 = p.follow_radius;
    follow_weight: f32 = p.follow_weight;
    perception_radius: f32 = p.perception_radius();
    roll_rate: f32 = p.roll_rate;
    max_bank: f32 = p.max_bank;
    gravity: f32 = p.gravity;
    /// Topological neighbours `k` (0: metric; topological.wgsl).
    topological: u32 = p.topological_neighbours;
}

// The WGSL `Sim` struct's size in uniform layout: a field added on one side
// only fails the build here (`Species` is generated, so it cannot differ).
const _: () = assert!(std::mem::size_of::<SimUniform>() == 176);
const _: () = assert!(std::mem::size_of::<SpeciesUniform>().is_multiple_of(16));

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated WGSL struct has one 4-byte field per word of the host
    /// struct, in the same order.
    #[test]
    fn the_wgsl_species_is_the_host_struct_word_for_word() {
        let w = species_wgsl();
        let fields: Vec<&str> = w.lines().filter(|l| l.ends_with(',')).collect();
        assert_eq!(fields.len() * 4, std::mem::size_of::<SpeciesUniform>());
        assert_eq!(fields[0], "    sep2: f32,");
        assert!(
            w.contains("    steering: u32,\n    cruise_speed: f32,\n"),
            "{w}"
        );
        let p = SpeciesParams::default();
        let u = SpeciesUniform::new(&p);
        assert_eq!(u.w_sep, p.separation_weight);
        assert_eq!(u.sep2, RuleConsts::new(&p).sep2);
    }
}
