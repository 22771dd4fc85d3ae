//! The steps of the research models that do not run in the boids pipeline
//! (Couzin, D'Orsogna, the ABM comparison's Flocking; Vicsek steps in the
//! pipeline, `crate::models::vicsek`), and the rule that one world runs one model.

mod abm;
mod couzin;
mod dorsogna;
mod neighbours;
pub(crate) mod vicsek;

use crate::boids::Boids;
use crate::error::ParamError;
use crate::params::model::ModelKind;
use crate::params::{Boundary, SpeciesParams, WorldConfig};
use crate::stats::StepStats;
use crate::vector::Vector;

pub(crate) use neighbours::Scratch;

/// The model every species of a world runs, or the first disagreement: one world
/// runs one model. Also checks the boundary the model is defined with.
pub(crate) fn check_world<V: Vector>(
    config: &WorldConfig<V>,
    species: &[SpeciesParams],
    relations: &crate::params::Relations,
    entities: &[(&str, usize)],
) -> Result<ModelKind, ParamError> {
    let kind = species
        .first()
        .map_or(ModelKind::Reynolds, |s| s.model.kind());
    if let Some((i, s)) = species
        .iter()
        .enumerate()
        .find(|(_, s)| s.model.kind() != kind)
    {
        return Err(ParamError::Invalid {
            field: format!("species[{i}].model"),
            reason: format!(
                "species[{i}] uses model {} but species[0] uses {}: one world runs one model",
                s.model.kind().name(),
                kind.name()
            ),
        });
    }
    if kind == ModelKind::Reynolds {
        return Ok(kind);
    }
    if let Some(r) = relations.table.iter().find(|r| r.indexes_target()) {
        return Err(ParamError::Invalid {
            field: "relations".into(),
            reason: format!(
                "the relation {r:?} steers boids (the reynolds model); a {} world takes none",
                kind.name()
            ),
        });
    }
    if let Some((what, count)) = entities.iter().find(|e| e.1 > 0) {
        return Err(ParamError::Invalid {
            field: (*what).into(),
            reason: format!(
                "{what} ({count}) steer boids (the reynolds model); a {} world takes none (zones, which only count, are fine)",
                kind.name()
            ),
        });
    }
    let allowed: &[&str] = match kind {
        ModelKind::Reynolds => return Ok(kind),
        ModelKind::Vicsek | ModelKind::AbmFlocking => &["wrap"],
        ModelKind::Couzin | ModelKind::Dorsogna => &["wrap", "unbounded"],
    };
    let b = match config.boundary {
        Boundary::Wrap => "wrap",
        Boundary::Unbounded => "unbounded",
        Boundary::Reflect => "reflect",
        Boundary::Soft { .. } => "soft",
        Boundary::Roost { .. } => "roost",
    };
    if !allowed.contains(&b) {
        return Err(ParamError::Invalid {
            field: "world.boundary".into(),
            reason: format!(
                "world.boundary = {b:?}: the {} model is defined {} (boundary = {})",
                kind.name(),
                if allowed.len() == 1 {
                    "in a periodic box"
                } else {
                    "in a periodic box or open space"
                },
                allowed
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        });
    }
    Ok(kind)
}

/// The widest interaction range of the world's species, units: the grid's cell.
fn widest(species: &[SpeciesParams]) -> f32 {
    species
        .iter()
        .filter_map(|s| s.model.range())
        .fold(0.0, f32::max)
}

/// Advances `boids` one step by the world's model (not Reynolds).
pub(crate) fn step<V: Vector>(
    scratch: &mut Scratch<V>,
    boids: &mut Boids<V>,
    config: &WorldConfig<V>,
    species: &[SpeciesParams],
    step: u64,
) -> StepStats {
    if boids.is_empty() {
        return StepStats::default();
    }
    match species[0].model.kind() {
        ModelKind::Reynolds => StepStats::default(),
        // Vicsek's sums are the boids kernel's alignment sums: it steps in the
        // pipeline (`steer.rs`), never here.
        ModelKind::Vicsek => StepStats::default(),
        ModelKind::Couzin => couzin::step(scratch, boids, config, species, step),
        ModelKind::Dorsogna => dorsogna::step(scratch, boids, config, species),
        ModelKind::AbmFlocking => abm::step(scratch, boids, config, species, step),
    }
}
