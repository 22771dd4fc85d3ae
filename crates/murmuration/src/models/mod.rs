//! The classic collective-motion models beside Reynolds' rules, each as its paper
//! defines it: Vicsek et al. (1995), Couzin et al. (2002), D'Orsogna et al. (2006)
//! and the Flocking model of the ABM frameworks comparison. A species picks one
//! with `model = "…"`; one world runs one model (every species the same), on the
//! same grid, state, metrics, snapshots and determinism as boids.
//! `docs/RESEARCH.md` states every equation as implemented.

mod abm;
mod couzin;
mod dorsogna;
mod fields;
mod neighbours;
pub(crate) mod vicsek;

pub use abm::AbmFlocking;
pub use couzin::Couzin;
pub use dorsogna::Dorsogna;
pub use fields::{MODEL_FIELDS, ModelField, model_field};
pub use vicsek::{Vicsek, VicsekUpdate};

use crate::boids::Boids;
use crate::error::ParamError;
use crate::params::{Boundary, SpeciesParams, WorldConfig};
use crate::pipeline::StepStats;
use crate::vector::Vector;
use serde::{Deserialize, Serialize};

pub(crate) use neighbours::Scratch;

/// The model a species moves by, with its parameters (plain data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// Reynolds' boids: the species' own rule parameters (the default).
    #[default]
    Reynolds,
    /// Vicsek et al., PRL 75, 1226 (1995).
    Vicsek(Vicsek),
    /// Couzin et al., J. theor. Biol. 218, 1 (2002).
    Couzin(Couzin),
    /// D'Orsogna et al., PRL 96, 104302 (2006).
    Dorsogna(Dorsogna),
    /// The Flocking model of the ABM frameworks comparison (Agents.jl, Mesa,
    /// NetLogo, MASON).
    AbmFlocking(AbmFlocking),
}

/// Which model, without parameters: the value of `model = "…"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ModelKind {
    /// `reynolds`
    Reynolds,
    /// `vicsek`
    Vicsek,
    /// `couzin`
    Couzin,
    /// `dorsogna`
    Dorsogna,
    /// `abm-flocking`
    AbmFlocking,
}

impl ModelKind {
    /// Every model, in documentation order.
    pub const ALL: [ModelKind; 5] = [
        Self::Reynolds,
        Self::Vicsek,
        Self::Couzin,
        Self::Dorsogna,
        Self::AbmFlocking,
    ];

    /// The name scenario files use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Reynolds => "reynolds",
            Self::Vicsek => "vicsek",
            Self::Couzin => "couzin",
            Self::Dorsogna => "dorsogna",
            Self::AbmFlocking => "abm-flocking",
        }
    }

    /// The model named `name`, if any.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Every model's name, comma separated (for messages).
    pub fn names() -> String {
        Self::ALL.map(Self::name).join(", ")
    }
}

impl Model {
    /// Which model this is.
    pub fn kind(&self) -> ModelKind {
        match self {
            Self::Reynolds => ModelKind::Reynolds,
            Self::Vicsek(_) => ModelKind::Vicsek,
            Self::Couzin(_) => ModelKind::Couzin,
            Self::Dorsogna(_) => ModelKind::Dorsogna,
            Self::AbmFlocking(_) => ModelKind::AbmFlocking,
        }
    }

    /// The model with its paper's parameters (Reynolds: none).
    pub fn default_of(kind: ModelKind) -> Self {
        match kind {
            ModelKind::Reynolds => Self::Reynolds,
            ModelKind::Vicsek => Self::Vicsek(Vicsek::default()),
            ModelKind::Couzin => Self::Couzin(Couzin::default()),
            ModelKind::Dorsogna => Self::Dorsogna(Dorsogna::default()),
            ModelKind::AbmFlocking => Self::AbmFlocking(AbmFlocking::default()),
        }
    }

    /// The largest distance at which one individual reacts to another, units.
    pub fn range(&self) -> Option<f32> {
        match self {
            Self::Reynolds => None,
            Self::Vicsek(m) => Some(m.r),
            Self::Couzin(m) => Some(m.r_a()),
            Self::Dorsogna(m) => Some(m.cutoff),
            Self::AbmFlocking(m) => Some(m.visual_distance),
        }
    }

    /// The model's characteristic speed, units/s (Vicsek's v0, Couzin's s,
    /// D'Orsogna's √(α/β), the ABM's speed).
    pub fn speed(&self) -> Option<f32> {
        match self {
            Self::Reynolds => None,
            Self::Vicsek(m) => Some(m.v0),
            Self::Couzin(m) => Some(m.s),
            Self::Dorsogna(m) => Some(m.terminal_speed()),
            Self::AbmFlocking(m) => Some(m.speed),
        }
    }

    /// A species moving by this model: its interaction range stands as the three
    /// rule radii and its speed as `max_speed`, so the grid, spawning and the
    /// metrics (groups, speed fraction) read them as for boids; nothing else of
    /// the Reynolds parameters is used.
    pub fn species(self) -> SpeciesParams {
        let (Some(r), Some(s)) = (self.range(), self.speed()) else {
            return SpeciesParams::default();
        };
        SpeciesParams {
            separation_radius: r,
            alignment_radius: r,
            cohesion_radius: r,
            max_speed: s,
            min_speed: 0.0,
            model: self,
            ..SpeciesParams::default()
        }
    }

    /// Checks the parameters (`prefix` names the species), in a world of `dim`
    /// dimensions.
    pub fn validate(&self, prefix: &str, dim: usize) -> Result<(), ParamError> {
        for f in MODEL_FIELDS.iter().filter(|f| f.model == self.kind()) {
            f.check(self, prefix)?;
        }
        match self {
            Self::Vicsek(_) if dim != 2 => Err(ParamError::Invalid {
                field: format!("{prefix}.model"),
                reason: "the vicsek model is defined in 2D (Vicsek et al. 1995): use dimension = 2"
                    .into(),
            }),
            Self::AbmFlocking(_) if dim != 2 => Err(ParamError::Invalid {
                field: format!("{prefix}.model"),
                reason: "the abm-flocking model is defined in 2D (the frameworks comparison's specification): use dimension = 2".into(),
            }),
            _ => Ok(()),
        }
    }
}

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

/// The order parameter the world's model's paper defines, over velocities `v`
/// of species `s`: Vicsek's v_a = |Σ v_i| / (N v0); Couzin's group polarization
/// p = |Σ v̂_i| / N; D'Orsogna's P = |Σ v_i| / Σ |v_i|; for boids and the ABM
/// model the polarization |Σ v̂_i| / N.
pub(crate) fn order_parameter<V: Vector>(
    velocities: &[V],
    species_of: &[u16],
    species: &[SpeciesParams],
) -> f64 {
    let n = velocities.len();
    if n == 0 {
        return f64::NAN;
    }
    let mut sum = [0f64; 3];
    let mut norm = 0f64;
    for (v, &s) in velocities.iter().zip(species_of) {
        let a = v.to_array3();
        let len = v.length() as f64;
        let scale = match species[s as usize].model {
            Model::Vicsek(m) => 1.0 / m.v0 as f64,
            Model::Dorsogna(_) => 1.0,
            _ if len > 0.0 => 1.0 / len,
            _ => 0.0,
        };
        for i in 0..3 {
            sum[i] += a[i] as f64 * scale;
        }
        norm += match species[s as usize].model {
            Model::Dorsogna(_) => len,
            _ => 1.0,
        };
    }
    let l = (sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]).sqrt();
    if norm > 0.0 { l / norm } else { 0.0 }
}
