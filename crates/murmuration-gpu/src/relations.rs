//! Flee, chase and follow on the GPU: the host's plan of who looks at whom.
//!
//! Boids of the species some species flees or follows, and chasers, are *actors*:
//! few (a shark, a leader), listed by (species, id). Each step every actor writes
//! its new state into one half of a double-buffered record array (`actors`) and
//! every boid reads the other half, so fleeing and following cost a loop over the
//! few actors of the species concerned. Before `steer`, a pass with one workgroup
//! per actor lets each chaser search the step's grid at its chase radius (as the
//! CPU's chasers do: the lanes share the cells, their bests meet by (score, id)) and leaves the pursuit force after the records, so the long search
//! never holds up the flock's threads; after `steer` one thread lets the eating
//! chasers eat in ascending id order, one meal each, as `World::step` does. Eaten boids are marked dead (`DEAD` in their species word),
//! sorted into a last grid cell no one scans, and dropped at read-back.
//!
//! The table `actor_table` (`u32`), in order:
//! - `S × S` interaction codes (`INTERACT_*`), row = the reacting species;
//! - per species, the start and end of its actors in the actor list;
//! - the actor indices of eating chasers, ascending id;
//! - per boid id, its actor index (`NO_ACTOR` for the rest).

use crate::dims::GpuVector;
use crate::error::GpuError;
use murmuration::{Relation, World};

/// Set in a boid's species word once it is eaten.
pub(crate) const DEAD: u32 = 0x8000_0000;
/// Not an actor.
const NO_ACTOR: u32 = u32::MAX;
/// Actors the GPU loops over at most (every fleeing or following boid visits
/// each actor of its target species; chasers are actors too).
pub(crate) const MAX_ACTORS: usize = 16_384;
/// Boid ids the id → actor table may span.
const MAX_ID_SPAN: u32 = 1 << 26;

const INTERACT_NONE: u32 = 0;
const INTERACT_FLEE: u32 = 1;
const INTERACT_CHASE: u32 = 2;
const INTERACT_FOLLOW: u32 = 3;

/// The plan of one world's interactions, as uploaded.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Plan {
    /// The actor table (module docs), empty when there are no interactions.
    pub table: Vec<u32>,
    /// Actor records for the half the first step reads: 2 × `[f32; 4]` each.
    pub records: Vec<[f32; 4]>,
    /// Actors.
    pub actors: u32,
    /// Eating chasers.
    pub eaters: u32,
    /// Some species flees, chases or follows.
    pub any: bool,
    /// Some species chases another.
    pub chases: bool,
    /// Some chaser eats.
    pub eats: bool,
    /// How far an eating chaser's candidates can be from its cell before the
    /// move: the largest eat radius plus 2.5 steps of the fastest travel.
    pub eat_reach: f32,
    /// Two steps of the fastest travel: a crowd counted after the move looks
    /// this much farther in the grid built before it.
    pub travel: f32,
    /// The farthest any boid looks at an actor it flees or follows.
    pub reach: f32,
}

fn code(r: Relation) -> u32 {
    match r {
        Relation::Flee => INTERACT_FLEE,
        Relation::Chase => INTERACT_CHASE,
        Relation::Follow => INTERACT_FOLLOW,
        Relation::Flock | Relation::Separate | Relation::Ignore => INTERACT_NONE,
    }
}

impl Plan {
    /// The plan for `world`; an error when it has more actors or a wider id span
    /// than the GPU tables allow.
    pub fn new<V: GpuVector>(world: &World<V>) -> Result<Self, GpuError> {
        let rel = world.relations();
        let species = world.species();
        let s = species.len();
        if !rel.table.iter().any(|r| r.indexes_target()) {
            return Ok(Self::default());
        }
        let chaser = |a: usize| (0..s).any(|b| rel.get(a, b) == Relation::Chase);
        let eater = |a: usize| species[a].eat_radius > 0.0 && chaser(a);
        let actor_species = actor_species(world);
        let b = world.boids();
        let mut actors: Vec<(u16, u32, usize)> = (0..b.len())
            .filter(|&i| actor_species[b.species()[i] as usize])
            .map(|i| (b.species()[i], b.ids()[i], i))
            .collect();
        check_limits(actors.len(), b.next_id())?;
        let span = b.next_id();
        actors.sort_unstable_by_key(|&(sp, id, _)| (sp, id));
        let mut table: Vec<u32> = rel.table.iter().map(|&r| code(r)).collect();
        for sp in 0..s {
            let start = actors.partition_point(|a| (a.0 as usize) < sp);
            let end = actors.partition_point(|a| (a.0 as usize) <= sp);
            table.extend([start as u32, end as u32]);
        }
        let mut eaters: Vec<(u32, u32)> = actors
            .iter()
            .enumerate()
            .filter(|(_, a)| eater(a.0 as usize))
            .map(|(k, a)| (a.1, k as u32))
            .collect();
        eaters.sort_unstable();
        table.extend(eaters.iter().map(|e| e.1));
        let base = table.len();
        table.resize(base + span as usize, NO_ACTOR);
        let mut records = Vec::with_capacity(2 * actors.len());
        for (k, &(sp, id, i)) in actors.iter().enumerate() {
            table[base + id as usize] = k as u32;
            let p = b.positions()[i].to_array3();
            let v = b.velocities()[i].to_array3();
            records.push([p[0], p[1], p[2], f32::from_bits(id)]);
            records.push([v[0], v[1], v[2], f32::from_bits(u32::from(sp))]);
        }
        let travel = species
            .iter()
            .map(|p| p.max_speed * world.config().dt)
            .fold(0.0f32, f32::max);
        let eat_radius = (0..s)
            .filter(|&a| eater(a))
            .map(|a| species[a].eat_radius)
            .fold(0.0f32, f32::max);
        let reach = (0..s)
            .flat_map(|a| (0..s).map(move |b| (a, b)))
            .map(|(a, b)| match rel.get(a, b) {
                Relation::Flee => species[a].flee_radius,
                Relation::Follow => species[a].follow_radius,
                _ => 0.0,
            })
            .fold(0.0f32, f32::max);
        Ok(Self {
            reach,
            table,
            records,
            actors: actors.len() as u32,
            eaters: eaters.len() as u32,
            any: true,
            chases: (0..s).any(chaser),
            eats: !eaters.is_empty(),
            eat_reach: eat_radius + 2.5 * travel,
            travel: 2.0 * travel,
        })
    }
}

/// Per species: its boids are actors (a species flees or follows it, or it
/// chases).
fn actor_species<V: GpuVector>(world: &World<V>) -> Vec<bool> {
    let rel = world.relations();
    let s = world.species().len();
    (0..s)
        .map(|b| {
            (0..s).any(|c| rel.get(b, c) == Relation::Chase)
                || (0..s).any(|a| matches!(rel.get(a, b), Relation::Flee | Relation::Follow))
        })
        .collect()
}

/// Refuses more actors or a wider id span than the GPU tables allow.
fn check_limits(actors: usize, span: u32) -> Result<(), GpuError> {
    if actors > MAX_ACTORS {
        return Err(GpuError::Unsupported(format!(
            "{actors} boids that others flee or follow, or that chase (the GPU lists at most {MAX_ACTORS})"
        )));
    }
    if span > MAX_ID_SPAN {
        return Err(GpuError::Unsupported(format!(
            "boid ids up to {span} with flee, chase or follow (at most {MAX_ID_SPAN})"
        )));
    }
    Ok(())
}

/// [`Plan::new`]'s refusals without building its tables (a count by species).
pub(crate) fn check<V: GpuVector>(world: &World<V>) -> Result<(), GpuError> {
    if !world.relations().table.iter().any(|r| r.indexes_target()) {
        return Ok(());
    }
    let actor_species = actor_species(world);
    let actors = world
        .boids()
        .species()
        .iter()
        .filter(|&&sp| actor_species[sp as usize])
        .count();
    check_limits(actors, world.boids().next_id())
}
