//! Warnings for valid scenarios that are probably not what was meant: a grid cell
//! far from a species' perception, steps longer than an obstacle is thick,
//! separation as wide as perception, soft walls too weak to hold, zones no boid
//! can reach.

use super::{Plan, Scenario};
use crate::behaviours::obstacles::Obstacle;
use crate::params::Boundary;
use crate::vector::Vector;
use std::fmt;

/// One warning: where, and what to do about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lint {
    /// Dotted path of the field it concerns.
    pub field: String,
    /// Line in the file, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
    /// The problem, its consequence and a fix.
    pub message: String,
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: warning: {}",
            self.line, self.column, self.message
        )
    }
}

/// Thickness of the thinnest part of a shape (`None` when not cheap to say).
fn thickness<V: Vector>(o: &Obstacle<V>) -> Option<f32> {
    match o {
        Obstacle::Sphere { radius, .. } | Obstacle::Capsule { radius, .. } => Some(2.0 * radius),
        Obstacle::Box { half_extents, .. } => {
            let mut t = f32::INFINITY;
            for i in 0..V::DIM {
                t = t.min(2.0 * half_extents.get(i));
            }
            Some(t)
        }
        Obstacle::Polygon { .. } | Obstacle::Field(_) => None,
    }
}

/// The warnings of one scenario, each located at its field.
struct Warnings<'s> {
    text: &'s str,
    out: Vec<Lint>,
}

impl Warnings<'_> {
    fn warn(&mut self, field: String, message: String) {
        let span = super::span_of(self.text, &super::split_path(&field)).map_or(0, |r| r.start);
        let (line, column) = super::location::line_column(self.text, span);
        self.out.push(Lint {
            field,
            line,
            column,
            message,
        });
    }
}

pub(crate) fn lints<V: Vector>(s: &Scenario, plan: &Plan<V>) -> Vec<Lint> {
    let mut w = Warnings {
        text: &s.text,
        out: Vec::new(),
    };
    let names: Vec<&str> = plan.spawns.iter().map(|p| p.name.as_str()).collect();
    radii(&mut w, plan, &names);
    soft_walls(&mut w, plan, &names);
    thin_obstacles(&mut w, plan, &names);
    crowded_spawns(&mut w, plan);
    unreachable_zones(&mut w, plan);
    if plan.spawns.iter().all(|p| p.count == 0) {
        w.warn(
            "species".into(),
            "every species has count = 0: the world is empty".into(),
        );
    }
    w.out
}

/// Radii that waste the grid (one species far narrower than the cell) or
/// burst the flock (separation as wide as perception).
fn radii<V: Vector>(w: &mut Warnings<'_>, plan: &Plan<V>, names: &[&str]) {
    let world = &plan.world;
    let species = world.species();
    // The grid cell is the widest perception radius of any species.
    let (widest, cell) = species
        .iter()
        .enumerate()
        .map(|(i, p)| (i, p.perception_radius()))
        .fold((0, 0.0f32), |a, b| if b.1 > a.1 { b } else { a });
    for (i, p) in species.iter().enumerate() {
        let r = p.perception_radius();
        if plan.spawns[i].count > 0 && r < 0.5 * cell {
            let waste = (cell / r).powi(V::DIM as i32);
            w.warn(
                format!("species.{}", names[i]),
                format!(
                    "species.{} sees {r} units but the neighbour grid cell is {cell} (species.{}'s perception radius): its neighbour queries scan about {waste:.0}x the area they need; narrow the widest radius or use one closer to the others",
                    names[i], names[widest]
                ),
            );
        }
        // Topological boids repel only their k nearest, so a separation as wide
        // as perception spaces them evenly instead of bursting the flock.
        // (Reynolds' rules only: a research model's radii all stand for its range.)
        if plan.spawns[i].count > 0
            && p.model == crate::params::model::Model::Reynolds
            && p.topological_neighbours == 0
            && p.separation_radius >= 0.95 * r
        {
            w.warn(
                format!("species.{}.separation_radius", names[i]),
                format!(
                    "species.{}.separation_radius = {} is as wide as its perception radius {r}: every neighbour repels and the flock bursts apart; about half the perception radius is usual",
                    names[i], p.separation_radius
                ),
            );
        }
    }
}

/// Soft walls too weak to turn a boid around within their margin.
fn soft_walls<V: Vector>(w: &mut Warnings<'_>, plan: &Plan<V>, names: &[&str]) {
    let world = &plan.world;
    let species = world.species();
    // A soft wall too weak to turn a full-speed boid within its margin: the push
    // grows linearly into the band (a spring of stiffness k = strength / margin)
    // while the whole steering budget may pull outward (max_force f), so a boid
    // arriving at speed v reaches depth (f + sqrt(f² + k v²)) / k, which stays
    // within the margin when strength ≥ v² / margin + 2 f.
    if let Boundary::Soft { margin, strength } = world.config().boundary {
        for (i, p) in species.iter().enumerate() {
            let (v, f) = (p.max_speed, p.max_force);
            let needed = v * v / margin + 2.0 * f;
            if plan.spawns[i].count > 0 && strength < needed {
                let k = strength / margin;
                let depth = (f + (f * f + k * v * v).sqrt()) / k;
                w.warn(
                    "world.boundary.strength".into(),
                    format!(
                        "world.boundary.strength = {strength} cannot turn species.{} around within the {margin}-unit margin at its max speed {v}: it can reach {:.2} units past the face; use strength >= {needed:.3} (max_speed² / margin + 2 max_force) or a wider margin",
                        names[i],
                        depth - margin
                    ),
                );
            }
        }
    }
}

/// A step longer than an obstacle is thick.
fn thin_obstacles<V: Vector>(w: &mut Warnings<'_>, plan: &Plan<V>, names: &[&str]) {
    let world = &plan.world;
    let species = world.species();
    let dt = world.config().dt;
    let thinnest = world
        .obstacles()
        .iter()
        .enumerate()
        .filter_map(|(i, o)| thickness(o).map(|t| (i, t)))
        .fold(None, |a: Option<(usize, f32)>, b| match a {
            Some(a) if a.1 <= b.1 => Some(a),
            _ => Some(b),
        });
    if let Some((oi, t)) = thinnest {
        for (i, p) in species.iter().enumerate() {
            let travel = p.max_speed * dt;
            if plan.spawns[i].count > 0 && travel > t {
                w.warn(
                    format!("species.{}.max_speed", names[i]),
                    format!(
                        "species.{} moves up to {travel} units a step (max_speed {} x dt {dt}), more than obstacles[{oi}] is thick ({t}): boids are still kept out (each step is swept), but avoidance starts late and turns look abrupt; lower max_speed or world.dt, or thicken the obstacle",
                        names[i], p.max_speed
                    ),
                );
            }
        }
    }
}

/// Spawn regions mostly inside obstacles (wholly inside is an error).
fn crowded_spawns<V: Vector>(w: &mut Warnings<'_>, plan: &Plan<V>) {
    for s in &plan.spawns {
        let solid = s.solid;
        if s.count > 0 && solid >= 0.5 {
            let field = super::spawn_field(&s.name, s.region.is_some());
            w.warn(
                field.clone(),
                format!(
                    "{field}: {:.0}% of the spawn region lies inside obstacles; boids are placed only in the free part, so the flock starts that much denser; move the region or the obstacles",
                    100.0 * solid
                ),
            );
        }
    }
}

/// Zones no boid can reach.
fn unreachable_zones<V: Vector>(w: &mut Warnings<'_>, plan: &Plan<V>) {
    let world = &plan.world;
    let config = world.config();
    for (zi, z) in world.zones().iter().enumerate() {
        let field = format!("zones[{zi}]");
        let (centre, radius) = z.shape.bounds();
        let mut outside = false;
        if !matches!(
            config.boundary,
            Boundary::Unbounded | Boundary::Roost { .. }
        ) {
            for i in 0..V::DIM {
                let c = centre.get(i);
                if c + radius < config.min.get(i) || c - radius > config.max.get(i) {
                    outside = true;
                }
            }
        }
        let counted: u64 = match z.species {
            Some(s) => plan.spawns[s as usize].count,
            None => plan.spawns.iter().map(|p| p.count).sum(),
        };
        let buried = world.obstacles().iter().any(|o| {
            let d = o.surface(centre).distance;
            d < 0.0 && -d > radius
        });
        let why = if outside {
            Some("lies wholly outside the world box")
        } else if buried {
            Some("lies wholly inside an obstacle")
        } else if counted == 0 {
            Some("counts a species with no boids")
        } else {
            None
        };
        if let Some(why) = why {
            w.warn(
                field.clone(),
                format!("{field} {why}: no boid can ever enter it"),
            );
        }
    }
}
