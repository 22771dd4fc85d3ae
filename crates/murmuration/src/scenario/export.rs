//! A world written back as a scenario file: what the sandbox saves, so a tuned
//! flock can be loaded, run headless or shared.

use crate::params::model::Model;
use crate::params::{Boundary, Relation};
use crate::vector::Vector;
use crate::world::World;
use toml::{Table, Value};

/// A species' keys as a scenario writes them: every Reynolds parameter, or a
/// research model's name and its own parameters (the only keys it takes).
fn species_table(p: &crate::params::SpeciesParams) -> Table {
    let own = |t: Result<Table, toml::ser::Error>| -> Table {
        let mut t = t.expect("model parameters serialize");
        t.insert("model".into(), p.model.kind().name().into());
        t
    };
    match p.model {
        Model::Reynolds => Table::try_from(p).expect("species parameters serialize"),
        Model::Vicsek(m) => own(Table::try_from(m)),
        Model::Couzin(m) => own(Table::try_from(m)),
        Model::Dorsogna(m) => own(Table::try_from(m)),
        Model::AbmFlocking(m) => own(Table::try_from(m)),
    }
}

fn vector<V: Vector>(v: V) -> Value {
    Value::Array(
        v.to_array3()[..V::DIM]
            .iter()
            .map(|&x| Value::Float(x as f64))
            .collect(),
    )
}

/// A boundary with a band: `{ kind = "soft" | "roost", margin, strength }`.
fn banded(kind: &str, margin: f32, strength: f32) -> Value {
    let mut b = Table::new();
    b.insert("kind".into(), kind.into());
    b.insert("margin".into(), Value::Float(margin as f64));
    b.insert("strength".into(), Value::Float(strength as f64));
    Value::Table(b)
}

/// The scenario text of `world`: its box, boundary, time step and seed, every
/// species (named by `names`, else `species_<i>`) with all its parameters, its
/// current boid count and its look (from `looks`, when not the default), the
/// relations that differ from the default, and every obstacle, attractor, pulse,
/// path and zone. Boids are respawned when it is loaded (positions are not part
/// of a scenario: use a snapshot for that).
pub fn to_toml<V: Vector>(
    world: &World<V>,
    names: &[String],
    looks: &[super::Look],
    name: &str,
    description: &str,
) -> String {
    let species_name = |i: usize| {
        names
            .get(i)
            .cloned()
            .unwrap_or_else(|| format!("species_{i}"))
    };
    let mut t = Table::new();
    t.insert("name".into(), name.into());
    t.insert("description".into(), description.into());
    t.insert("dimension".into(), Value::Integer(V::DIM as i64));
    t.insert("world".into(), world_table(world));
    t.insert(
        "species".into(),
        species_tables(world, looks, &species_name),
    );
    let relations = relations_table(world, &species_name);
    if !relations.is_empty() {
        t.insert("relations".into(), Value::Table(relations));
    }
    entity_tables(world, &species_name, &mut t);
    let mut t = Value::Table(t);
    tidy_floats(&mut t);
    toml::to_string(&t).expect("a scenario table serializes")
}

/// `[world]`: box, boundary, time step and seed.
fn world_table<V: Vector>(world: &World<V>) -> Value {
    let c = world.config();
    let mut w = Table::new();
    w.insert("min".into(), vector(c.min));
    w.insert("max".into(), vector(c.max));
    w.insert(
        "boundary".into(),
        match c.boundary {
            Boundary::Wrap => "wrap".into(),
            Boundary::Reflect => "reflect".into(),
            Boundary::Unbounded => "unbounded".into(),
            Boundary::Soft { margin, strength } => banded("soft", margin, strength),
            Boundary::Roost { margin, strength } => banded("roost", margin, strength),
        },
    );
    w.insert("dt".into(), Value::Float(c.dt as f64));
    w.insert("seed".into(), Value::Integer(c.seed as i64));
    Value::Table(w)
}

/// `[species.<name>]`: each species' current count, parameters and look.
fn species_tables<V: Vector>(
    world: &World<V>,
    looks: &[super::Look],
    species_name: &dyn Fn(usize) -> String,
) -> Value {
    let mut counts = vec![0i64; world.species().len()];
    for &s in world.boid_species() {
        counts[s as usize] += 1;
    }
    let mut species = Table::new();
    for (i, p) in world.species().iter().enumerate() {
        let mut s = Table::new();
        s.insert("count".into(), Value::Integer(counts[i]));
        s.extend(species_table(p));
        if let Some(look) = looks.get(i).filter(|l| **l != super::Look::default()) {
            s.insert(
                "look".into(),
                Value::try_from(look).expect("looks serialize"),
            );
        }
        species.insert(species_name(i), Value::Table(s));
    }
    Value::Table(species)
}

/// `[relations]`: the pairs that differ from the default (flock with one's own
/// species, separate from the others).
fn relations_table<V: Vector>(world: &World<V>, species_name: &dyn Fn(usize) -> String) -> Table {
    let mut relations = Table::new();
    let n = world.species().len();
    for a in 0..n {
        let mut row = Table::new();
        for b in 0..n {
            let r = world.relations().get(a, b);
            let default = if a == b {
                Relation::Flock
            } else {
                Relation::Separate
            };
            if r != default {
                row.insert(species_name(b), Value::try_from(r).expect("relation"));
            }
        }
        if !row.is_empty() {
            relations.insert(species_name(a), Value::Table(row));
        }
    }
    relations
}

/// The obstacles, attractors, pulses, paths and zones, each list only when it
/// has entries.
fn entity_tables<V: Vector>(
    world: &World<V>,
    species_name: &dyn Fn(usize) -> String,
    t: &mut Table,
) {
    let list = |items: Vec<Value>| Value::Array(items);
    if !world.obstacles().is_empty() {
        let o = world
            .obstacles()
            .iter()
            .map(|o| Value::try_from(o).expect("obstacles serialize"))
            .collect();
        t.insert("obstacles".into(), list(o));
    }
    let named = |s: Option<u16>, tab: &mut Table| {
        if let Some(s) = s {
            tab.insert("species".into(), species_name(s as usize).into());
        }
    };
    if !world.attractors().is_empty() {
        let a = world
            .attractors()
            .iter()
            .map(|a| {
                let mut tab = Table::new();
                tab.insert("position".into(), vector(a.position));
                tab.insert("goal".into(), vector(a.goal));
                tab.insert("follow".into(), Value::Float(a.follow as f64));
                tab.insert("weight".into(), Value::Float(a.weight as f64));
                tab.insert("radius".into(), Value::Float(a.radius as f64));
                tab.insert("range".into(), Value::Float(a.range as f64));
                named(a.species, &mut tab);
                for (key, on) in [("navigate", a.navigate), ("free_inside", a.free_inside)] {
                    if on {
                        tab.insert(key.into(), Value::Boolean(true));
                    }
                }
                Value::Table(tab)
            })
            .collect();
        t.insert("attractors".into(), list(a));
    }
    if !world.pulses().is_empty() {
        let p = world
            .pulses()
            .iter()
            .map(|p| Value::try_from(p).expect("pulses serialize"))
            .collect();
        t.insert("pulses".into(), list(p));
    }
    if !world.paths().is_empty() {
        let p = world
            .paths()
            .iter()
            .map(|p| {
                let mut v = Value::try_from(p).expect("paths serialize");
                if let Value::Table(tab) = &mut v {
                    tab.remove("species");
                    named(p.species, tab);
                }
                v
            })
            .collect();
        t.insert("paths".into(), list(p));
    }
    if !world.zones().is_empty() {
        let z = world
            .zones()
            .iter()
            .map(|z| {
                let mut tab = Table::new();
                tab.insert(
                    "shape".into(),
                    Value::try_from(&z.shape).expect("shapes serialize"),
                );
                named(z.species, &mut tab);
                tab.insert("threshold".into(), Value::Integer(z.threshold as i64));
                Value::Table(tab)
            })
            .collect();
        t.insert("zones".into(), list(z));
    }
}

/// Writes every float that is an `f32` widened to `f64` as the shortest decimal
/// that reads back as the same `f32` (`0.7`, not `0.699999988079071`): what a
/// person would type, and still the same bits when loaded.
fn tidy_floats(v: &mut Value) {
    match v {
        Value::Float(x) => {
            let narrow = *x as f32;
            if narrow as f64 == *x
                && narrow.is_finite()
                && let Ok(short) = narrow.to_string().parse::<f64>()
                && short as f32 == narrow
            {
                *x = short;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy_floats),
        Value::Table(t) => t.iter_mut().for_each(|(_, v)| tidy_floats(v)),
        _ => {}
    }
}
