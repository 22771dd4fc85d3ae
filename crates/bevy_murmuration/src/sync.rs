//! Stepping flocks, and the ECS side of a step: messages, boid entities, zone
//! counts and faded pulses.

use crate::flock::{BoidSync, Flock};
use crate::hooks::ZoneCount;
use crate::messages::{BoidEaten, ZoneCrossed, ZoneRef, ZoneThreshold};
use bevy_ecs::prelude::{ChildOf, Commands, Component, Entity, MessageWriter, Query};
use bevy_math::{Quat, Vec2 as BVec2, Vec3 as BVec3};
use bevy_transform::components::Transform;
use murmuration::Dimension;
use murmuration::{BoidId, Event, Vector};

/// A boid's entity under [`BoidSync::Entities`]: a child of its flock whose
/// `Transform` the plugin writes after every step. In 2D the local +X axis
/// points along the velocity and the translation's z is left as the game set
/// it; in 3D Bevy's forward (−Z) points along it, +Y up.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[require(Transform)]
pub struct Boid {
    /// The boid's id in the world (stable for its life).
    pub id: BoidId,
    /// Its species' index.
    pub species: u16,
}

/// Steps every unpaused flock once and writes its events (`FlockSet::Step`).
pub(crate) fn step_flocks<V: Dimension>(
    mut flocks: Query<(Entity, &mut Flock<V>)>,
    mut eaten: MessageWriter<BoidEaten>,
    mut crossed: MessageWriter<ZoneCrossed>,
    mut thresholds: MessageWriter<ZoneThreshold>,
) {
    for (entity, mut flock) in &mut flocks {
        if flock.paused {
            continue;
        }
        let flock = &mut *flock;
        flock.world.step();
        let base = flock.mirror.zone_base(&flock.world);
        let zone = |i: usize| match i.checked_sub(base) {
            Some(k) if k < flock.mirror.zones.len() => ZoneRef::Hook(flock.mirror.zones[k].0),
            _ => ZoneRef::Scenario(i),
        };
        for event in flock.world.events() {
            match *event {
                Event::Eaten {
                    step,
                    predator,
                    prey,
                    position,
                } => {
                    eaten.write(BoidEaten {
                        flock: entity,
                        step,
                        predator,
                        prey,
                        position: BVec3::from_array(position.to_array3()),
                    });
                }
                Event::ZoneEntered {
                    step,
                    zone: z,
                    boid,
                }
                | Event::ZoneExited {
                    step,
                    zone: z,
                    boid,
                } => {
                    crossed.write(ZoneCrossed {
                        flock: entity,
                        step,
                        zone: zone(z),
                        boid,
                        entered: matches!(event, Event::ZoneEntered { .. }),
                    });
                }
                Event::ZoneThreshold {
                    step,
                    zone: z,
                    count,
                    rising,
                } => {
                    thresholds.write(ZoneThreshold {
                        flock: entity,
                        step,
                        zone: zone(z),
                        count,
                        rising,
                    });
                }
            }
        }
    }
}

/// The rotation that points a boid along `v` (`None` for a standing boid).
fn heading<V: Vector>(v: V) -> Option<Quat> {
    let d = BVec3::from_array(v.to_array3());
    if V::DIM == 2 {
        // No trigonometry: the shortest arc from +X (one square root).
        let d = d.truncate().try_normalize()?;
        Some(Quat::from_rotation_arc_2d(BVec2::X, d))
    } else {
        d.try_normalize()
            .map(|d| Transform::IDENTITY.looking_to(d, BVec3::Y).rotation)
    }
}

/// Writes each flock's boids to their entities, spawning and despawning as the
/// world gained or lost boids; updates zone counts; despawns faded pulses
/// (`FlockSet::Sync`).
pub(crate) fn sync_flocks<V: Vector>(
    mut flocks: Query<(Entity, &mut Flock<V>)>,
    mut boids: Query<(Entity, &Boid, &ChildOf, &mut Transform)>,
    mut counts: Query<&mut ZoneCount>,
    mut commands: Commands,
) {
    for (entity, mut flock) in &mut flocks {
        let flock = &mut *flock;
        // Zone counts, written only when they change.
        let base = flock.mirror.zone_base(&flock.world);
        for (k, (e, _)) in flock.mirror.zones.iter().enumerate() {
            let n = flock.world.zones()[base + k].count();
            if let Ok(mut c) = counts.get_mut(*e)
                && c.0 != n
            {
                c.0 = n;
            }
        }
        // Pulses that have faded.
        let now = flock.world.time();
        flock.mirror.pulses.retain(|&(e, end)| {
            let live = now < end;
            if !live {
                commands.entity(e).try_despawn();
            }
            live
        });

        if flock.sync == BoidSync::Off {
            flock.entities.clear(&mut commands);
            continue;
        }
        // Walk the boid entities in the ECS's own order (their transforms are
        // read and written in sequence) and fetch each boid's state by id from
        // the stored arrays (cell order, no copy): the world's id-ordered view
        // would gather every array, and walking cell order would scatter the
        // writes over the transforms.
        let b = flock.world.boids();
        let entities = &mut flock.entities;
        entities.begin(b.ids(), b.next_id());
        for (e, boid, parent, mut t) in &mut boids {
            if parent.parent() != entity {
                continue;
            }
            let Some(slot) = entities.slot(boid.id) else {
                // Eaten or removed since the last sync.
                entities.forget(boid.id, e);
                commands.entity(e).try_despawn();
                continue;
            };
            let p = BVec3::from_array(b.positions()[slot].to_array3());
            if V::DIM == 2 {
                t.translation.x = p.x;
                t.translation.y = p.y;
            } else {
                t.translation = p;
            }
            if let Some(r) = heading(b.velocities()[slot]) {
                t.rotation = r;
            }
            entities.saw(boid.id, e);
        }
        // New boids, and boids whose entity the game despawned.
        for slot in 0..b.len() {
            let id = b.ids()[slot];
            if entities.was_seen(id) {
                continue;
            }
            let mut t =
                Transform::from_translation(BVec3::from_array(b.positions()[slot].to_array3()));
            if let Some(r) = heading(b.velocities()[slot]) {
                t.rotation = r;
            }
            let boid = Boid {
                id,
                species: b.species()[slot],
            };
            let e = commands.spawn((boid, t, ChildOf(entity))).id();
            entities.saw(id, e);
        }
    }
}
