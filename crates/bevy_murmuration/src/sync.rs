//! Stepping flocks, and the ECS side of a step: messages, boid entities, zone
//! counts and faded pulses.

use crate::flock::{BoidSync, Flock};
use crate::hooks::ZoneCount;
use crate::messages::{BoidEaten, ZoneCrossed, ZoneRef, ZoneThreshold};
use bevy_ecs::prelude::{ChildOf, Commands, Component, Entity, MessageWriter, Query};
use bevy_math::{Quat, Vec3 as BVec3};
use bevy_transform::components::Transform;
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
pub(crate) fn step_flocks<V: Vector>(
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
        (d.x != 0.0 || d.y != 0.0).then(|| Quat::from_rotation_z(d.y.atan2(d.x)))
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
    mut boids: Query<&mut Transform, bevy_ecs::query::With<Boid>>,
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
            for (_, e) in flock.entities.drain(..) {
                commands.entity(e).try_despawn();
            }
            continue;
        }
        let world = &flock.world;
        let (ids, pos, vel, species) = (
            world.ids(),
            world.positions(),
            world.velocities(),
            world.boid_species(),
        );
        let old = std::mem::take(&mut flock.entities);
        let mut next = Vec::with_capacity(ids.len());
        let mut o = 0;
        for i in 0..ids.len() {
            // Boids gone since the last sync (eaten, removed) lose their entity.
            while o < old.len() && old[o].0 < ids[i] {
                commands.entity(old[o].1).try_despawn();
                o += 1;
            }
            let p = BVec3::from_array(pos[i].to_array3());
            let existing = (o < old.len() && old[o].0 == ids[i]).then(|| {
                o += 1;
                old[o - 1].1
            });
            let live = existing.and_then(|e| boids.get_mut(e).ok().map(|t| (e, t)));
            let e = match live {
                Some((e, mut t)) => {
                    if V::DIM == 2 {
                        t.translation.x = p.x;
                        t.translation.y = p.y;
                    } else {
                        t.translation = p;
                    }
                    if let Some(r) = heading(vel[i]) {
                        t.rotation = r;
                    }
                    e
                }
                // New boids, and boids whose entity the game despawned.
                None => {
                    let mut t = Transform::from_translation(p);
                    if let Some(r) = heading(vel[i]) {
                        t.rotation = r;
                    }
                    let boid = Boid {
                        id: ids[i],
                        species: species[i],
                    };
                    commands.spawn((boid, t, ChildOf(entity))).id()
                }
            };
            next.push((ids[i], e));
        }
        for &(_, e) in &old[o..] {
            commands.entity(e).try_despawn();
        }
        flock.entities = next;
    }
}
