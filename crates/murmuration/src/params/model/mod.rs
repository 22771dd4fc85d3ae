//! The models a species can move by, as plain data: Reynolds' rules (the
//! default) or one of the classic collective-motion models with its parameters,
//! each as its paper defines it (docs/RESEARCH.md). The steps are elsewhere
//! (`crate::models`, `crate::models::vicsek`); this module imports nothing of the engine,
//! so `SpeciesParams` can hold a `Model`.

mod abm;
mod couzin;
mod dorsogna;
mod fields;
mod vicsek;

pub use abm::AbmFlocking;
pub use couzin::Couzin;
pub use dorsogna::Dorsogna;
pub use fields::{MODEL_FIELDS, ModelField, model_field};
pub use vicsek::{Vicsek, VicsekUpdate};

use crate::error::ParamError;
use serde::{Deserialize, Serialize};

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

/// A research model's parameter struct, as a species' [`Model`] holds it.
pub(crate) trait ModelParams: Copy + Default {
    /// The parameters, when `m` is this model.
    fn of(m: &Model) -> Option<Self>;
}

macro_rules! model_params {
    ($($variant:ident),*) => {$(
        impl ModelParams for $variant {
            fn of(m: &Model) -> Option<Self> {
                match m {
                    Model::$variant(p) => Some(*p),
                    _ => None,
                }
            }
        }
    )*};
}
model_params!(Vicsek, Couzin, Dorsogna, AbmFlocking);

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

    /// Checks that every parameter is finite and in its range (`prefix` names
    /// the species).
    pub fn validate_fields(&self, prefix: &str) -> Result<(), ParamError> {
        for f in MODEL_FIELDS.iter().filter(|f| f.model == self.kind()) {
            f.check(self, prefix)?;
        }
        Ok(())
    }

    /// Checks the parameters (`prefix` names the species), in a world of `dim`
    /// dimensions.
    pub fn validate(&self, prefix: &str, dim: usize) -> Result<(), ParamError> {
        self.validate_fields(prefix)?;
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
