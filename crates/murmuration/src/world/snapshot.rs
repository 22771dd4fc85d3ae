//! Snapshots: the whole world in a versioned, checksummed binary file, and the state digest.
//!
//! Layout (little-endian), version 2 (version 1, without obstacles, still loads):
//! ```text
//! magic "MURMSNAP" | version u32 | dim u32 | step u64 | next_id u32 | reserved u32
//! | n u64 | params_len u64 | params (TOML: config, species, relations, obstacles,
//!   attractors, pulses, paths, zones with their members)
//! | ids n×u32 (storage order) | species n×u16 | positions n×dim×f32 | velocities | steering
//! | FNV-1a 64 checksum of everything before it
//! ```
//! Loading checks the length and checksum before parsing anything, then validates
//! the parameters and the state, so a truncated or corrupted file is an error.

use crate::behaviours::attractors::{Attractor, Pulse};
use crate::behaviours::obstacles::Obstacle;
use crate::behaviours::paths::Path as FlowPath;
use crate::behaviours::zones::Zone;
use crate::boids::Boids;
use crate::digest::{FNV_OFFSET, fnv1a};
use crate::error::SnapshotError;
use crate::params::{Boundary, Relations, SpeciesParams, WorldConfig};
use crate::vector::Vector;
use crate::world::{MAX_BOIDS, World};
use serde::{Deserialize, Serialize};

use std::path::Path;

const MAGIC: &[u8; 8] = b"MURMSNAP";
/// Snapshot format version written and read by this build.
pub const SNAPSHOT_VERSION: u32 = 2;
/// Oldest snapshot format version this build reads.
const OLDEST_VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 4 + 8 + 4 + 4 + 8 + 8;
/// Largest parameter block accepted (guards against absurd lengths).
const MAX_PARAMS_LEN: u64 = 64 << 20;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, bound = "")]
struct Params<V: Vector> {
    config: WorldConfig<V>,
    species: Vec<SpeciesParams>,
    relations: Relations,
    #[serde(default)]
    obstacles: Vec<Obstacle<V>>,
    #[serde(default)]
    attractors: Vec<Attractor<V>>,
    #[serde(default)]
    pulses: Vec<Pulse<V>>,
    #[serde(default)]
    paths: Vec<FlowPath<V>>,
    #[serde(default)]
    zones: Vec<Zone<V>>,
    #[serde(default)]
    schedule: Vec<crate::params::schedule::Change>,
}

impl<V: Vector> World<V> {
    /// The snapshot bytes of this world.
    pub fn to_snapshot_bytes(&self) -> Vec<u8> {
        let params = toml::to_string(&Params {
            config: self.config,
            species: self.species.clone(),
            relations: self.relations.clone(),
            obstacles: self.obstacles.shapes().to_vec(),
            attractors: self.attractors.clone(),
            pulses: self.pulses.clone(),
            paths: self.paths.clone(),
            zones: self.zones.clone(),
            schedule: self.schedule.clone(),
        })
        .expect("validated parameters always serialize");
        let b = &self.boids;
        let n = b.len();
        let mut out = Vec::with_capacity(HEADER + params.len() + n * (6 + 12 * V::DIM) + 8);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
        out.extend_from_slice(&(V::DIM as u32).to_le_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&b.next_id.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(n as u64).to_le_bytes());
        out.extend_from_slice(&(params.len() as u64).to_le_bytes());
        out.extend_from_slice(params.as_bytes());
        b.ids
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        b.species
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        for arr in [&b.positions, &b.velocities, &b.steering] {
            for v in arr.iter() {
                for x in &v.to_array3()[..V::DIM] {
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
        }
        let sum = fnv1a(FNV_OFFSET, &out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Writes the snapshot atomically (temporary file in the same folder, then rename):
    /// after an error the destination is either the old file or absent, never partial.
    pub fn save_snapshot(&self, path: &Path) -> Result<(), SnapshotError> {
        crate::atomic::write_atomic(path, &self.to_snapshot_bytes()).map_err(|source| {
            SnapshotError::Io {
                path: path.display().to_string(),
                source,
            }
        })
    }

    /// Reads a snapshot file.
    pub fn load_snapshot(path: &Path) -> Result<Self, SnapshotError> {
        let bytes = std::fs::read(path).map_err(|source| SnapshotError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_snapshot_bytes(&bytes)
    }

    /// Parses snapshot bytes; every malformed input is an error, never a panic.
    pub fn from_snapshot_bytes(bytes: &[u8]) -> Result<Self, SnapshotError> {
        let mut r = Reader { bytes, at: 0 };
        let h = read_header::<V>(&mut r)?;
        let text = std::str::from_utf8(r.take(h.params_len as usize, "params")?)
            .map_err(|e| SnapshotError::Params(e.to_string()))?;
        let params: Params<V> =
            toml::from_str(text).map_err(|e| SnapshotError::Params(e.to_string()))?;
        let boids = read_boids::<V>(&mut r, h.n as usize, h.next_id)?;
        check_boids(&boids, &params, h.next_id)?;
        validate_state(&boids, &params, h.step)?;
        rebuild(params, boids, h.step)
    }
}

/// What a snapshot's header says, once checked (with the whole file's length
/// and checksum).
struct Header {
    step: u64,
    next_id: u32,
    n: u64,
    params_len: u64,
}

/// Reads and checks the header: magic, version, dimension, sizes within their
/// limits, the body's exact length and the checksum.
fn read_header<V: Vector>(r: &mut Reader<'_>) -> Result<Header, SnapshotError> {
    let bytes = r.bytes;
    if r.take(8, "magic")? != MAGIC {
        return Err(SnapshotError::BadMagic);
    }
    let version = r.u32("header")?;
    if !(OLDEST_VERSION..=SNAPSHOT_VERSION).contains(&version) {
        return Err(SnapshotError::UnsupportedVersion {
            found: version,
            supported: SNAPSHOT_VERSION,
        });
    }
    let dim = r.u32("header")?;
    if dim as usize != V::DIM {
        return Err(SnapshotError::DimensionMismatch {
            found: dim,
            expected: V::DIM as u32,
        });
    }
    let step = r.u64("header")?;
    let next_id = r.u32("header")?;
    let _reserved = r.u32("header")?;
    let n = r.u64("header")?;
    let params_len = r.u64("header")?;
    if n > MAX_BOIDS {
        return Err(SnapshotError::InvalidState(format!(
            "boid count {n} exceeds the maximum {MAX_BOIDS}"
        )));
    }
    if params_len > MAX_PARAMS_LEN {
        return Err(SnapshotError::Params(format!(
            "parameter block of {params_len} bytes exceeds {MAX_PARAMS_LEN}"
        )));
    }
    let body = params_len + n * (4 + 2 + 12 * V::DIM as u64);
    let needed = body + 8;
    let available = (bytes.len() - r.at) as u64;
    if available < needed {
        return Err(SnapshotError::Truncated {
            section: "body",
            needed,
            available,
        });
    }
    if available > needed {
        return Err(SnapshotError::TrailingBytes(available - needed));
    }
    let end = bytes.len() - 8;
    let stored = u64::from_le_bytes(bytes[end..].try_into().expect("8 bytes"));
    let computed = fnv1a(FNV_OFFSET, &bytes[..end]);
    if stored != computed {
        return Err(SnapshotError::Checksum { stored, computed });
    }
    Ok(Header {
        step,
        next_id,
        n,
        params_len,
    })
}

/// The boids' arrays, in storage order.
fn read_boids<V: Vector>(
    r: &mut Reader<'_>,
    n: usize,
    next_id: u32,
) -> Result<Boids<V>, SnapshotError> {
    let mut boids = Boids::<V>::new();
    boids.next_id = next_id;
    boids.ids = (0..n).map(|_| r.u32("ids")).collect::<Result<_, _>>()?;
    boids.species = (0..n).map(|_| r.u16("species")).collect::<Result<_, _>>()?;
    boids.positions = r.vectors(n, "positions")?;
    boids.velocities = r.vectors(n, "velocities")?;
    boids.steering = r.vectors(n, "steering")?;
    Ok(boids)
}

/// Ids unique and below `next_id`, species indexes in range, every vector finite.
fn check_boids<V: Vector>(
    boids: &Boids<V>,
    params: &Params<V>,
    next_id: u32,
) -> Result<(), SnapshotError> {
    let mut sorted_ids = boids.ids.clone();
    sorted_ids.sort_unstable();
    if let Some(w) = sorted_ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(SnapshotError::InvalidState(format!(
            "boid id {} appears twice",
            w[0]
        )));
    }
    if let Some(&last) = sorted_ids.last()
        && last >= next_id
    {
        return Err(SnapshotError::InvalidState(format!(
            "boid id {last} is not below next_id {next_id}"
        )));
    }
    if let Some(&s) = boids
        .species
        .iter()
        .find(|&&s| s as usize >= params.species.len())
    {
        return Err(SnapshotError::InvalidState(format!(
            "species index {s} but only {} species",
            params.species.len()
        )));
    }
    for (what, arr) in [
        ("position", &boids.positions),
        ("velocity", &boids.velocities),
        ("steering", &boids.steering),
    ] {
        if let Some(i) = arr.iter().position(|v| !v.is_finite()) {
            return Err(SnapshotError::InvalidState(format!(
                "{what} of boid {} is not finite: {:?}",
                boids.ids[i], arr[i]
            )));
        }
    }
    Ok(())
}

/// The world of the snapshot's parameters, boids and step, its entities added
/// back in order (zones with the boids they held).
fn rebuild<V: Vector>(
    params: Params<V>,
    boids: Boids<V>,
    step: u64,
) -> Result<World<V>, SnapshotError> {
    let mut world =
        World::from_parts(params.config, params.species, params.relations, boids, step)?;
    for shape in params.obstacles {
        world.add_obstacle(shape)?;
    }
    for a in params.attractors {
        world.add_attractor(a)?;
    }
    for p in params.pulses {
        world.add_pulse(p)?;
    }
    for p in params.paths {
        world.add_path(p)?;
    }
    for z in params.zones {
        let inside = z.inside.clone();
        let i = world.add_zone(z)?;
        world.zones[i].inside = inside;
    }
    world.set_schedule(params.schedule)?;
    Ok(world)
}

/// Largest step counter a snapshot may hold: time (`step · dt`) stays exact in
/// `f64`, and the counter can never wrap.
pub const MAX_STEP: u64 = 1 << 53;

/// Farthest a boid may be from the origin along any axis in a world without walls,
/// units: offsets between boids and their squares stay finite in `f32`.
pub const MAX_COORDINATE: f32 = 1e18;

/// Checks a restored state as a scenario's would be: the step counter in range,
/// every boid where its boundary lets it be and no faster than its species allows.
fn validate_state<V: Vector>(
    boids: &Boids<V>,
    params: &Params<V>,
    step: u64,
) -> Result<(), SnapshotError> {
    if step > MAX_STEP {
        return Err(SnapshotError::InvalidState(format!(
            "step counter {step} is out of range: must be at most 2^53"
        )));
    }
    let c = &params.config;
    let walled = matches!(c.boundary, Boundary::Wrap | Boundary::Reflect);
    for (i, (&p, &v)) in boids.positions.iter().zip(&boids.velocities).enumerate() {
        let id = boids.ids[i];
        for a in 0..V::DIM {
            let (x, lo, hi) = (p.get(a), c.min.get(a), c.max.get(a));
            let inside = match c.boundary {
                Boundary::Wrap => lo <= x && x < hi,
                Boundary::Reflect => lo <= x && x <= hi,
                _ => x.abs() <= MAX_COORDINATE,
            };
            if !inside {
                let range = if walled {
                    format!("inside the world box [{lo}, {hi}]")
                } else {
                    format!("within ±{MAX_COORDINATE:e}")
                };
                return Err(SnapshotError::InvalidState(format!(
                    "position of boid {id} is {:?}: axis {a} must lie {range}",
                    &p.to_array3()[..V::DIM]
                )));
            }
        }
        let max = params.species[boids.species[i] as usize].max_speed;
        let speed = v.length();
        if speed > max * (1.0 + 1e-4) {
            return Err(SnapshotError::InvalidState(format!(
                "speed of boid {id} is {speed}, above its species' max_speed {max}"
            )));
        }
    }
    Ok(())
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize, section: &'static str) -> Result<&'a [u8], SnapshotError> {
        let available = self.bytes.len() - self.at;
        if available < len {
            return Err(SnapshotError::Truncated {
                section,
                needed: len as u64,
                available: available as u64,
            });
        }
        let s = &self.bytes[self.at..self.at + len];
        self.at += len;
        Ok(s)
    }
    fn u16(&mut self, s: &'static str) -> Result<u16, SnapshotError> {
        Ok(u16::from_le_bytes(self.take(2, s)?.try_into().expect("2")))
    }
    fn u32(&mut self, s: &'static str) -> Result<u32, SnapshotError> {
        Ok(u32::from_le_bytes(self.take(4, s)?.try_into().expect("4")))
    }
    fn u64(&mut self, s: &'static str) -> Result<u64, SnapshotError> {
        Ok(u64::from_le_bytes(self.take(8, s)?.try_into().expect("8")))
    }
    fn vectors<V: Vector>(&mut self, n: usize, s: &'static str) -> Result<Vec<V>, SnapshotError> {
        let raw = self.take(n * 4 * V::DIM, s)?;
        Ok(raw
            .chunks_exact(4 * V::DIM)
            .map(|c| {
                let mut a = [0.0f32; 3];
                for (i, x) in c.chunks_exact(4).enumerate() {
                    a[i] = f32::from_le_bytes(x.try_into().expect("4"));
                }
                V::from_array3(a)
            })
            .collect())
    }
}
