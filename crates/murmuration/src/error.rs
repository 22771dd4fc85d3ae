//! Typed errors. Every message names the offending field and value.

use thiserror::Error;

/// An error and its causes on one line, `: `-separated, as the command line
/// prints them (for front ends without anyhow: the Python package, the page).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

/// An invalid parameter: the field path (e.g. `species[0].separation_radius`) and value.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum ParamError {
    /// NaN or infinity where a finite number is needed.
    #[error("{field} = {} is not a finite number", num(*value))]
    NotFinite {
        /// Field path.
        field: String,
        /// The value given.
        value: f64,
    },
    /// A number outside its documented range.
    #[error("{field} = {} is out of range: must be {range}", num(*value))]
    OutOfRange {
        /// Field path.
        field: String,
        /// The value given.
        value: f64,
        /// The valid range in words, e.g. `in (0, 1000]`.
        range: String,
    },
    /// A value that must not exceed another field's value.
    #[error("{field} = {} must not exceed {limit_field} = {}", num(*value), num(*limit))]
    Exceeds {
        /// Field path.
        field: String,
        /// The value given.
        value: f64,
        /// The field it is limited by.
        limit_field: String,
        /// That field's value.
        limit: f64,
    },
    /// A value that is valid alone but not here (e.g. a model in the wrong
    /// dimension or boundary); `reason` says why and what to do.
    #[error("{field}: {reason}")]
    Invalid {
        /// Field path.
        field: String,
        /// Why, in words.
        reason: String,
    },
    /// A species table or matrix of the wrong shape.
    #[error("{field} has {got} entries but {expected} are needed ({species} species)")]
    WrongShape {
        /// Field path.
        field: String,
        /// Entries given.
        got: usize,
        /// Entries needed.
        expected: usize,
        /// Number of species.
        species: usize,
    },
}

/// A value as written: parameters are `f32`, so one that is exactly an `f32`
/// prints as that `f32` (`1.2`, not `1.2000000476837158`).
fn num(v: f64) -> String {
    let f = v as f32;
    if f as f64 == v || v.is_nan() {
        f.to_string()
    } else {
        v.to_string()
    }
}

impl ParamError {
    /// Checks an entity's species filter (`{field}.species`): `None`, or an index
    /// below `count`, the number of species the world has.
    pub(crate) fn check_species(
        field: &str,
        species: Option<u16>,
        count: usize,
    ) -> Result<(), Self> {
        match species {
            Some(s) if s as usize >= count => Err(Self::OutOfRange {
                field: format!("{field}.species"),
                value: s as f64,
                range: format!("a species index below {count}"),
            }),
            _ => Ok(()),
        }
    }

    /// The field path the error names.
    pub fn field(&self) -> &str {
        match self {
            Self::NotFinite { field, .. }
            | Self::OutOfRange { field, .. }
            | Self::Exceeds { field, .. }
            | Self::Invalid { field, .. }
            | Self::WrongShape { field, .. } => field,
        }
    }

    /// The same error with every field path passed through `rename` (a scenario
    /// file names `species[0]` by its name, `species.fish`).
    pub fn rename_fields(mut self, rename: impl Fn(&str) -> String) -> Self {
        match &mut self {
            Self::NotFinite { field, .. }
            | Self::OutOfRange { field, .. }
            | Self::Invalid { field, .. }
            | Self::WrongShape { field, .. } => *field = rename(field),
            Self::Exceeds {
                field, limit_field, ..
            } => {
                *field = rename(field);
                *limit_field = rename(limit_field);
            }
        }
        self
    }
}

/// Errors from building or changing a [`crate::World`].
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum WorldError {
    /// A parameter failed validation.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// A species index that does not exist.
    #[error("species index {index} does not exist (the world has {count} species)")]
    UnknownSpecies {
        /// The index given.
        index: usize,
        /// Number of species.
        count: usize,
    },
    /// An obstacle index that does not exist.
    #[error("obstacle index {index} does not exist (the world has {count} obstacles)")]
    UnknownObstacle {
        /// The index given.
        index: usize,
        /// Number of obstacles.
        count: usize,
    },
    /// An index into a list of behaviour entities (attractors, paths, zones) that
    /// does not exist.
    #[error("{what} index {index} does not exist (the world has {count})")]
    UnknownEntity {
        /// Which kind of entity.
        what: &'static str,
        /// The index given.
        index: usize,
        /// How many there are.
        count: usize,
    },
    /// A boid id that does not exist (never added, or already removed).
    #[error("boid id {0} does not exist")]
    UnknownBoid(u32),
    /// More boids than the engine supports.
    #[error("boid count {requested} is out of range: must be at most {limit}")]
    TooManyBoids {
        /// Count requested.
        requested: u64,
        /// The limit.
        limit: u64,
    },
    /// A replacement state (from [`crate::World::replace_motion`]) that does not fit
    /// the world's boids.
    #[error("replacement state does not match the world: {0}")]
    StateMismatch(String),
    /// Memory for the request could not be allocated.
    #[error("not enough memory for {what}: {reason}")]
    OutOfMemory {
        /// What was being allocated.
        what: String,
        /// The allocator's reason.
        reason: String,
    },
    /// A spawn region with no room outside the obstacles.
    #[error(
        "no free place for boid {placed} of {count} after {tries} random tries: the spawn region {lo:?} to {hi:?} lies {solid_percent:.1}% inside obstacles; move the region or the obstacles"
    )]
    SpawnBlocked {
        /// Boids of this spawn already placed.
        placed: u64,
        /// Boids asked for.
        count: u64,
        /// Positions tried for the boid that found no room.
        tries: u32,
        /// Lower corner of the region.
        lo: [f32; 3],
        /// Upper corner of the region.
        hi: [f32; 3],
        /// Share of the region inside obstacles, percent (sampled on a lattice).
        solid_percent: f64,
    },
    /// A boid position or velocity that is NaN or infinite.
    #[error("{what} of the new boid is not finite: {value:?}")]
    NotFinite {
        /// `position` or `velocity`.
        what: &'static str,
        /// Components.
        value: [f32; 3],
    },
}

/// Errors from reading or writing a snapshot.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// Reading or writing failed.
    #[error("snapshot I/O failed for {path}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not a Murmuration snapshot.
    #[error("not a murmuration snapshot (bad magic bytes)")]
    BadMagic,
    /// A snapshot from a newer or unknown format version.
    #[error(
        "snapshot format version {found} is not supported (this build reads version {supported})"
    )]
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// A 2D snapshot loaded as 3D, or the reverse.
    #[error("snapshot is {found}D but a {expected}D world was requested")]
    DimensionMismatch {
        /// Dimension in the file.
        found: u32,
        /// Dimension requested.
        expected: u32,
    },
    /// The file ends before the data it announces.
    #[error("snapshot is truncated: {section} needs {needed} bytes but only {available} remain")]
    Truncated {
        /// Which part was being read.
        section: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// Bytes after the end of the snapshot.
    #[error("snapshot has {0} unexpected trailing bytes")]
    TrailingBytes(u64),
    /// The checksum does not match: the file was corrupted.
    #[error(
        "snapshot checksum mismatch (stored {stored:016x}, computed {computed:016x}): the file is corrupted"
    )]
    Checksum {
        /// Stored checksum.
        stored: u64,
        /// Checksum of the bytes read.
        computed: u64,
    },
    /// The embedded parameters do not parse.
    #[error("snapshot parameters are malformed: {0}")]
    Params(String),
    /// The state in the snapshot is invalid (bad ids, species, or values).
    #[error("snapshot state is invalid: {0}")]
    InvalidState(String),
    /// The parameters parse but fail validation.
    #[error("snapshot parameters are invalid")]
    World(#[from] WorldError),
}

/// Errors from reading or building a scenario file. Every message names where
/// (file, line and column, or the `--set` override) and the field and value.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read scenario {path}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A problem at a place in the file: bad syntax, an unknown key, a value of the
    /// wrong type or out of its range.
    #[error("{origin}:{line}:{column}: {message}")]
    Invalid {
        /// The file (or `<embedded>` for text without a file).
        origin: String,
        /// Line, from 1.
        line: usize,
        /// Column in characters, from 1.
        column: usize,
        /// Dotted path of the field (`species.fish.max_speed`), empty for syntax errors.
        field: String,
        /// What is wrong, with the value.
        message: String,
    },
    /// A problem with a value given by an override (`--set PATH=VALUE`).
    #[error("{origin} (--set {setting}): {message}")]
    Override {
        /// The file the override applies to.
        origin: String,
        /// The override as given.
        setting: String,
        /// Dotted path of the field.
        field: String,
        /// What is wrong, with the value.
        message: String,
    },
    /// The scenario's boids would not fit in the memory this process may still
    /// allocate.
    #[error("{origin}: {message}")]
    Memory {
        /// The scenario.
        origin: String,
        /// The counts, the memory needed and what limits it.
        message: String,
    },
    /// Neither a file nor a shipped preset has this name.
    #[error("{file}: no such file, and no preset of that name (the presets: {presets})")]
    NotFound {
        /// The name given.
        file: String,
        /// The presets' names, comma-separated.
        presets: String,
    },
}

impl ScenarioError {
    /// The dotted path of the offending field, if the error concerns one.
    pub fn field(&self) -> Option<&str> {
        match self {
            Self::Read { .. } | Self::NotFound { .. } | Self::Memory { .. } => None,
            Self::Invalid { field, .. } | Self::Override { field, .. } => {
                Some(field).filter(|f| !f.is_empty()).map(|f| f.as_str())
            }
        }
    }
}
