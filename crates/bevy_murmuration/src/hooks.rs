//! Game-facing hooks: components on children of a flock's entity, placed by their
//! `Transform`'s translation in the flock's space, mirrored into the world before
//! each step (only what changed is written).

use crate::flock::Flock;
use bevy_ecs::prelude::{ChildOf, Commands, Component, Entity, Query};
use bevy_math::{Vec2 as BVec2, Vec3 as BVec3};
use bevy_transform::components::Transform;
use murmuration::{Attractor, Obstacle, Path, Pulse, Vector, World, WorldError, Zone};

/// A region, relative to its entity's translation (rotation and scale are not
/// applied: the engine's boxes are axis-aligned).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A circle (2D) or sphere (3D) of this radius, units.
    Sphere {
        /// Radius, units, in (0, 1e6].
        radius: f32,
    },
    /// An axis-aligned box.
    Box {
        /// Half the edge length per axis, units, each in (0, 1e6] (z unused in 2D).
        half_extents: BVec3,
    },
    /// Every point within `radius` of the segment `a`–`b`: a wall with round ends.
    Capsule {
        /// One end of the core segment, units.
        a: BVec3,
        /// The other end, units.
        b: BVec3,
        /// Half the wall's thickness, units, in (0, 1e6].
        radius: f32,
    },
    /// A simple polygon, 2D flocks only: 3 to 4,096 vertices in order.
    Polygon {
        /// Vertices, units.
        points: Vec<BVec2>,
    },
}

impl Shape {
    /// The engine's obstacle for this shape placed at `at`.
    fn place<V: Vector>(&self, at: BVec3) -> Obstacle<V> {
        let v = |p: BVec3| V::from_array3((p + at).to_array());
        match self {
            Shape::Sphere { radius } => Obstacle::Sphere {
                center: v(BVec3::ZERO),
                radius: *radius,
            },
            Shape::Box { half_extents } => Obstacle::Box {
                center: v(BVec3::ZERO),
                half_extents: V::from_array3(half_extents.to_array()),
            },
            Shape::Capsule { a, b, radius } => Obstacle::Capsule {
                a: v(*a),
                b: v(*b),
                radius: *radius,
            },
            Shape::Polygon { points } => Obstacle::Polygon {
                points: points.iter().map(|p| v(p.extend(0.0))).collect(),
            },
        }
    }
}

/// A target the flock seeks and slows down at (Reynolds' arrive), at its
/// entity's translation. With `follow > 0` the world's attractor chases the
/// translation with exponential smoothing (the game's focus), otherwise it jumps.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
pub struct FlockAttractor {
    /// Weight of the seek force, in [0, 1000].
    pub weight: f32,
    /// Arrival radius, units, in (0, 1e6]: boids slow down inside it.
    pub radius: f32,
    /// Boids farther than this ignore it, units, in (0, ∞].
    pub range: f32,
    /// How fast the attractor follows its entity, 1/s, in [0, 1000]; 0 jumps.
    pub follow: f32,
    /// Only this species sees it (see [`Flock::species_index`]); `None`: all.
    pub species: Option<u16>,
    /// Boids seek it around obstacles (a flow field over the free space),
    /// not straight into a wall; CPU backends only.
    pub navigate: bool,
    /// No pull within `radius`: the crowd it gathers keeps its spacing.
    pub free_inside: bool,
}

impl FlockAttractor {
    /// An attractor seen by every species from everywhere, following its entity
    /// at once.
    pub fn new(weight: f32, radius: f32) -> Self {
        Self {
            weight,
            radius,
            range: f32::INFINITY,
            follow: 0.0,
            species: None,
            navigate: false,
            free_inside: false,
        }
    }
}

/// A repelling impulse fired once at its entity's translation when the plugin
/// first sees it; the entity is despawned when the pulse has faded.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
pub struct FlockPulse {
    /// Reach, units, in (0, 1e6].
    pub radius: f32,
    /// Push at the centre, units/s², in [0, 1e7]; falls linearly to the edge.
    pub strength: f32,
    /// Seconds it lasts, in (0, 1e6]; the push fades linearly over it.
    pub duration: f32,
}

/// A route boids within `capture_radius` flow along, for as long as the entity
/// lives. Vertices are relative to the entity's translation.
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
pub struct FlockPath {
    /// Vertices in travel order, units; 2 to 4,096 (z unused in 2D).
    pub points: Vec<BVec3>,
    /// Boids closer than this to the polyline follow it, units, in (0, 1e4].
    pub capture_radius: f32,
    /// Weight of the follow force, in [0, 1000].
    pub weight: f32,
    /// Only this species follows it; `None`: all.
    pub species: Option<u16>,
}

/// An obstacle boids never enter, at its entity's translation.
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
pub struct FlockObstacle(pub Shape);

/// A counted region at its entity's translation: [`ZoneCount`] holds how many
/// boids are inside after each step, and crossings arrive as
/// [`ZoneCrossed`](crate::ZoneCrossed) and [`ZoneThreshold`](crate::ZoneThreshold).
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform, ZoneCount)]
pub struct FlockZone {
    /// The region.
    pub shape: Shape,
    /// Count only this species; `None`: all.
    pub species: Option<u16>,
    /// Report when the count rises to at least this or falls below it; 0: never.
    pub threshold: u64,
}

/// Boids inside a [`FlockZone`] after the last step (written by the plugin).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ZoneCount(pub usize);

/// Why the plugin could not mirror a hook (a NaN radius, a polygon in a 3D flock,
/// a species the flock lacks): the engine's message, with the field and value.
/// The hook is left out of the world until it is fixed; then this is removed.
#[derive(Component, Clone, Debug, PartialEq, Eq)]
pub struct HookError(pub String);

/// One kind of world list the hooks mirror into.
trait Kind<V: Vector> {
    type Item: Clone + PartialEq;
    fn len(w: &World<V>) -> usize;
    fn add(w: &mut World<V>, item: Self::Item) -> Result<(), WorldError>;
    fn set(w: &mut World<V>, index: usize, item: Self::Item) -> Result<(), WorldError>;
    fn remove(w: &mut World<V>, index: usize);
}

struct Attractors;
impl<V: Vector> Kind<V> for Attractors {
    type Item = Attractor<V>;
    fn len(w: &World<V>) -> usize {
        w.attractors().len()
    }
    fn add(w: &mut World<V>, item: Self::Item) -> Result<(), WorldError> {
        w.add_attractor(item).map(drop)
    }
    fn set(w: &mut World<V>, index: usize, mut item: Self::Item) -> Result<(), WorldError> {
        // A following attractor keeps its smoothed position; only its goal moves.
        if item.follow > 0.0 {
            item.position = w.attractors()[index].position;
        }
        w.set_attractor(index, item)
    }
    fn remove(w: &mut World<V>, index: usize) {
        let _ = w.remove_attractor(index);
    }
}

struct Obstacles;
impl<V: Vector> Kind<V> for Obstacles {
    type Item = Obstacle<V>;
    fn len(w: &World<V>) -> usize {
        w.obstacles().len()
    }
    fn add(w: &mut World<V>, item: Self::Item) -> Result<(), WorldError> {
        w.add_obstacle(item).map(drop)
    }
    fn set(w: &mut World<V>, index: usize, item: Self::Item) -> Result<(), WorldError> {
        w.set_obstacle(index, item)
    }
    fn remove(w: &mut World<V>, index: usize) {
        let _ = w.remove_obstacle(index);
    }
}

struct Paths;
impl<V: Vector> Kind<V> for Paths {
    type Item = Path<V>;
    fn len(w: &World<V>) -> usize {
        w.paths().len()
    }
    fn add(w: &mut World<V>, item: Self::Item) -> Result<(), WorldError> {
        w.add_path(item).map(drop)
    }
    fn set(w: &mut World<V>, index: usize, item: Self::Item) -> Result<(), WorldError> {
        w.set_path(index, item)
    }
    fn remove(w: &mut World<V>, index: usize) {
        let _ = w.remove_path(index);
    }
}

struct Zones;
impl<V: Vector> Kind<V> for Zones {
    type Item = Zone<V>;
    fn len(w: &World<V>) -> usize {
        w.zones().len()
    }
    fn add(w: &mut World<V>, item: Self::Item) -> Result<(), WorldError> {
        w.add_zone(item).map(drop)
    }
    fn set(w: &mut World<V>, index: usize, item: Self::Item) -> Result<(), WorldError> {
        w.set_zone(index, item)
    }
    fn remove(w: &mut World<V>, index: usize) {
        let _ = w.remove_zone(index);
    }
}

/// Brings the world's mirrored entries (after the scenario's own) to `desired`
/// (ascending by entity): removes what is gone, rewrites what changed, appends
/// what is new. Hooks the world refuses are reported in `errors`.
fn sync_kind<V: Vector, K: Kind<V>>(
    world: &mut World<V>,
    mirrored: &mut Vec<(Entity, K::Item)>,
    desired: &[(Entity, K::Item)],
    errors: &mut Vec<(Entity, String)>,
) {
    let find = |e: Entity| desired.binary_search_by_key(&e, |d| d.0).ok();
    let base = K::len(world).saturating_sub(mirrored.len());
    for k in (0..mirrored.len()).rev() {
        if find(mirrored[k].0).is_none() {
            K::remove(world, base + k);
            mirrored.remove(k);
        }
    }
    for (k, (e, item)) in mirrored.iter_mut().enumerate() {
        let want = &desired[find(*e).expect("kept entries are desired")].1;
        if want != item {
            match K::set(world, base + k, want.clone()) {
                Ok(()) => *item = want.clone(),
                Err(err) => errors.push((*e, err.to_string())),
            }
        }
    }
    for (e, want) in desired {
        if mirrored.iter().any(|m| m.0 == *e) {
            continue;
        }
        match K::add(world, want.clone()) {
            Ok(()) => mirrored.push((*e, want.clone())),
            Err(err) => errors.push((*e, err.to_string())),
        }
    }
}

/// The hooks that are children of `flock`, ascending by entity, from a list
/// sorted by (parent, entity).
fn children_of<T>(
    all: &[(Entity, Entity, T)],
    flock: Entity,
) -> impl Iterator<Item = &(Entity, Entity, T)> {
    let start = all.partition_point(|h| h.0 < flock);
    all[start..].iter().take_while(move |h| h.0 == flock)
}

/// The hooks of `flock` as (entity, value), ascending by entity.
fn mine<T: Clone>(all: &[(Entity, Entity, T)], flock: Entity) -> Vec<(Entity, T)> {
    children_of(all, flock)
        .map(|h| (h.1, h.2.clone()))
        .collect()
}

/// Every hook of one kind as (parent, entity, value), sorted.
fn gather<'a, C: Component, T>(
    hooks: impl Iterator<Item = (Entity, &'a ChildOf, &'a Transform, &'a C)>,
    value: impl Fn(&C, BVec3) -> T,
) -> Vec<(Entity, Entity, T)> {
    let mut all: Vec<_> = hooks
        .map(|(e, parent, t, c)| (parent.parent(), e, value(c, t.translation)))
        .collect();
    all.sort_by_key(|h| (h.0, h.1));
    all
}

type Hooks<'w, 's, C> = Query<'w, 's, (Entity, &'static ChildOf, &'static Transform, &'static C)>;

/// Writes every flock's hooks into its world (`FlockSet::Mirror`).
#[allow(
    clippy::type_complexity,
    clippy::too_many_arguments,
    reason = "one query per hook kind is the clearest form of a Bevy system"
)]
pub(crate) fn mirror_hooks<V: Vector>(
    mut flocks: Query<(Entity, &mut Flock<V>)>,
    attractors: Hooks<FlockAttractor>,
    obstacles: Hooks<FlockObstacle>,
    paths: Hooks<FlockPath>,
    zones: Hooks<FlockZone>,
    pulses: Hooks<FlockPulse>,
    flagged: Query<(Entity, &HookError)>,
    mut commands: Commands,
) {
    let attractors = gather(attractors.iter(), |a: &FlockAttractor, at| Attractor {
        position: V::from_array3(at.to_array()),
        goal: V::from_array3(at.to_array()),
        follow: a.follow,
        weight: a.weight,
        radius: a.radius,
        range: a.range,
        species: a.species,
        navigate: a.navigate,
        free_inside: a.free_inside,
    });
    let obstacles = gather(obstacles.iter(), |o: &FlockObstacle, at| o.0.place::<V>(at));
    let paths = gather(paths.iter(), |p: &FlockPath, at| Path {
        points: p
            .points
            .iter()
            .map(|q| V::from_array3((*q + at).to_array()))
            .collect(),
        capture_radius: p.capture_radius,
        weight: p.weight,
        lifetime: f32::INFINITY,
        age: 0.0,
        species: p.species,
    });
    let zones = gather(zones.iter(), |z: &FlockZone, at| Zone {
        shape: z.shape.place::<V>(at),
        species: z.species,
        threshold: z.threshold,
        inside: Vec::new(),
    });
    let pulses = gather(pulses.iter(), |p: &FlockPulse, at| {
        Pulse::new(
            V::from_array3(at.to_array()),
            p.radius,
            p.strength,
            p.duration,
        )
    });

    let mut errors = Vec::new();
    for (entity, mut flock) in &mut flocks {
        let flock = &mut *flock;
        let (world, mirror) = (&mut flock.world, &mut flock.mirror);
        sync_kind::<V, Attractors>(
            world,
            &mut mirror.attractors,
            &mine(&attractors, entity),
            &mut errors,
        );
        sync_kind::<V, Obstacles>(
            world,
            &mut mirror.obstacles,
            &mine(&obstacles, entity),
            &mut errors,
        );
        sync_kind::<V, Paths>(world, &mut mirror.paths, &mine(&paths, entity), &mut errors);
        sync_kind::<V, Zones>(world, &mut mirror.zones, &mine(&zones, entity), &mut errors);
        for (_, e, pulse) in children_of(&pulses, entity) {
            if mirror.pulses.iter().any(|p| p.0 == *e) {
                continue;
            }
            match world.add_pulse(*pulse) {
                Ok(()) => mirror
                    .pulses
                    .push((*e, world.time() + pulse.duration as f64)),
                Err(err) => errors.push((*e, err.to_string())),
            }
        }
    }

    // Flag refused hooks; clear the flag of those the world took since.
    for (e, message) in &errors {
        let unchanged = flagged.get(*e).is_ok_and(|(_, f)| f.0 == *message);
        if !unchanged {
            commands.entity(*e).try_insert(HookError(message.clone()));
        }
    }
    for (e, _) in &flagged {
        if !errors.iter().any(|(x, _)| *x == e) && hook_of_dimension::<V>(e, &flocks) {
            commands.entity(e).try_remove::<HookError>();
        }
    }
}

/// Whether `hook` was handled by this dimension's pass (a 3D pass must not clear
/// a flag the 2D pass set).
fn hook_of_dimension<V: Vector>(hook: Entity, flocks: &Query<(Entity, &mut Flock<V>)>) -> bool {
    flocks.iter().any(|(_, f)| {
        let m = &f.mirror;
        m.attractors.iter().any(|x| x.0 == hook)
            || m.obstacles.iter().any(|x| x.0 == hook)
            || m.paths.iter().any(|x| x.0 == hook)
            || m.zones.iter().any(|x| x.0 == hook)
            || m.pulses.iter().any(|x| x.0 == hook)
    })
}
