//! Adding boids: [`Spawn`] (the named arguments of [`World::spawn`]), placement
//! by rejection sampling outside the obstacles, [`World::add_boid`] and
//! [`World::solid_fraction`].

use crate::behaviours::boundary::wrap;
use crate::boids::BoidId;
use crate::error::WorldError;
use crate::params::{Boundary, SpeciesId};
use crate::rng::{CounterRng, Stream};
use crate::vector::Vector;
use crate::world::World;

/// Random positions tried for one spawned boid before its region counts as full.
const SPAWN_TRIES: u32 = 4096;

/// What [`World::spawn`] adds: `count` boids of `species`, with optional region,
/// speed and heading (builder methods, or the public fields).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spawn<V> {
    /// The species of the new boids.
    pub species: SpeciesId,
    /// How many boids (the world holds at most [`crate::MAX_BOIDS`]).
    pub count: u64,
    /// Where, the box `[lo, hi)`, units; `None`: the world box.
    pub region: Option<(V, V)>,
    /// Speed, units/s, ≥ 0, clamped to the species' max speed; `None`: the max speed.
    pub speed: Option<f32>,
    /// A common heading (any non-zero length); `None`: uniform headings.
    /// Positions do not depend on it.
    pub heading: Option<V>,
}

impl<V: Vector> Spawn<V> {
    /// `count` boids of `species` anywhere in the box, uniform headings, at the
    /// species' max speed.
    pub fn new(species: SpeciesId, count: u64) -> Self {
        Self {
            species,
            count,
            region: None,
            speed: None,
            heading: None,
        }
    }

    /// Only inside the box `[lo, hi)`, units.
    pub fn region(self, lo: V, hi: V) -> Self {
        Self {
            region: Some((lo, hi)),
            ..self
        }
    }

    /// At `speed`, units/s (clamped to the species' max speed).
    pub fn speed(self, speed: f32) -> Self {
        Self {
            speed: Some(speed),
            ..self
        }
    }

    /// All along `direction` (any non-zero length).
    pub fn heading(self, direction: V) -> Self {
        Self {
            heading: Some(direction),
            ..self
        }
    }
}

impl<V: Vector> World<V> {
    /// Adds one boid; returns its id. Positions are wrapped into a periodic box.
    pub fn add_boid(
        &mut self,
        species: SpeciesId,
        position: V,
        velocity: V,
    ) -> Result<BoidId, WorldError> {
        let species = species.index();
        self.check_species(species)?;
        self.check_room(1)?;
        for (what, v) in [("position", position), ("velocity", velocity)] {
            if !v.is_finite() {
                return Err(WorldError::NotFinite {
                    what,
                    value: v.to_array3(),
                });
            }
        }
        let p = if self.config.boundary == Boundary::Wrap {
            wrap(position, &self.config)
        } else {
            position
        };
        let max = self.species[species].max_speed;
        Ok(self
            .state_mut()
            .push(species as u16, p, velocity.clamp_length_max(max)))
    }

    /// Adds boids as `spawn` says: positions uniform in its region (the world
    /// box by default) and outside every obstacle, headings uniform or common, at
    /// its speed (the species' max speed by default). Random numbers are keyed by
    /// (seed, new id), so spawning is reproducible. All or nothing: returns the
    /// first and one-past-last new ids, or an error and no new boid.
    ///
    /// ```
    /// # use murmuration::{Boundary, SpeciesId, SpeciesParams, Spawn, World2, WorldConfig};
    /// # use glam::Vec2;
    /// # let config = WorldConfig::new(Vec2::splat(40.0), Boundary::Wrap);
    /// let mut world = World2::new(config, vec![SpeciesParams::default()]).unwrap();
    /// let fish = SpeciesId::FIRST;
    /// world.spawn(Spawn::new(fish, 500).speed(3.0)).unwrap();
    /// let (first, end) = world
    ///     .spawn(Spawn::new(fish, 20).region(Vec2::ZERO, Vec2::splat(5.0)).heading(Vec2::X))
    ///     .unwrap();
    /// assert_eq!((first, end), (500, 520));
    /// ```
    pub fn spawn(&mut self, spawn: Spawn<V>) -> Result<(BoidId, BoidId), WorldError> {
        let Spawn {
            species,
            count,
            region,
            speed,
            heading,
        } = spawn;
        let species = species.index();
        self.check_species(species)?;
        let heading = match heading {
            None => None,
            Some(h) if h.is_finite() && h.length_squared() > 0.0 => Some(h.normalize_or_zero()),
            Some(h) => {
                return Err(WorldError::NotFinite {
                    what: "spawn heading (zero or not finite)",
                    value: h.to_array3(),
                });
            }
        };
        self.check_room(count)?;
        let (lo, hi) = region.unwrap_or((self.config.min, self.config.max));
        let asked = speed.unwrap_or(0.0);
        if !(lo.is_finite() && hi.is_finite() && asked.is_finite() && asked >= 0.0) {
            return Err(WorldError::NotFinite {
                what: "spawn region or speed",
                value: [lo.get(0), hi.get(0), asked],
            });
        }
        let max_speed = self.species[species].max_speed;
        let speed = speed.unwrap_or(max_speed).min(max_speed);
        let first = self.boids.next_id();
        let (seed, config) = (self.config.seed, self.config);
        let skin = crate::behaviours::obstacles::contact_skin(&self.species);
        // Take the state out so the obstacles stay readable while boids are pushed.
        let mut boids = std::mem::take(self.state_mut());
        if let Err(e) = boids.reserve(count as usize) {
            self.boids = boids;
            return Err(WorldError::OutOfMemory {
                what: format!("{count} more boids"),
                reason: e.to_string(),
            });
        }
        for placed in 0..count {
            let id = boids.next_id() as u64;
            // Rejection sampling: successive draws of the boid's own stream until one
            // lands outside every obstacle (the first draw is the obstacle-free one).
            let mut rp = CounterRng::new(seed, id, 0, Stream::SpawnPosition);
            let mut tries = 0;
            let p = loop {
                let mut p = V::ZERO;
                for i in 0..V::DIM {
                    let (a, b) = (lo.get(i), hi.get(i));
                    p.set(i, a + (b - a) * rp.next_f32());
                }
                if config.boundary == Boundary::Wrap {
                    p = wrap(p, &config);
                }
                if self.obstacles.is_free(p, skin) {
                    break p;
                }
                tries += 1;
                if tries == SPAWN_TRIES {
                    let solid_percent = 100.0 * self.solid_fraction(Some((lo, hi)));
                    // All or nothing: the boids of this call placed so far go again.
                    let kept = boids.len() - placed as usize;
                    boids.retain_slots(|slot| slot >= kept);
                    boids.next_id = first;
                    self.boids = boids;
                    return Err(WorldError::SpawnBlocked {
                        placed,
                        count,
                        tries,
                        lo: lo.to_array3(),
                        hi: hi.to_array3(),
                        solid_percent,
                    });
                }
            };
            let v = match heading {
                Some(h) => h * speed,
                None => {
                    let mut rh = CounterRng::new(seed, id, 0, Stream::SpawnHeading);
                    V::unit_from_uniform(rh.next_f32(), rh.next_f32()) * speed
                }
            };
            boids.push(species as u16, p, v);
        }
        let end = boids.next_id();
        self.boids = boids;
        Ok((first, end))
    }

    /// Share of the box `[lo, hi)` (the world box when `None`) inside obstacles, in
    /// [0, 1]: the centres of a regular lattice of about 4,096 points, counted
    /// solid within the contact gap of a surface. 0 without obstacles.
    pub fn solid_fraction(&self, region: Option<(V, V)>) -> f64 {
        if self.obstacles.is_empty() {
            return 0.0;
        }
        let (lo, hi) = region.unwrap_or((self.config.min, self.config.max));
        let skin = crate::behaviours::obstacles::contact_skin(&self.species);
        let per_axis: u32 = if V::DIM == 2 { 64 } else { 16 };
        let total = per_axis.pow(V::DIM as u32);
        let solid = (0..total)
            .filter(|&k| {
                let mut p = V::ZERO;
                let mut rest = k;
                for i in 0..V::DIM {
                    let t = ((rest % per_axis) as f32 + 0.5) / per_axis as f32;
                    rest /= per_axis;
                    p.set(i, lo.get(i) + (hi.get(i) - lo.get(i)) * t);
                }
                if self.config.boundary == Boundary::Wrap {
                    p = wrap(p, &self.config);
                }
                !self.obstacles.is_free(p, skin)
            })
            .count();
        solid as f64 / total as f64
    }
}
